"""The PII detector: personal data said in a call, by kind (its `detectorClassLabel`).

Recognisers write what callers say in their own way (digits as numerals, "at" and "dot" for e-mail, names
capitalised), so each kind is found from what a recogniser writes, with the talk around it:

- `name`: a person's name. Words spaCy's named-entity recogniser tags PERSON in a turn; the capitalised
  words (or single letters, a name spelled out) after "my name is", "this is", "I'm", "speaking with",
  "Mr"/"Ms"/"Dr"; and the capitalised words of the answer to a question about a name. A common word is a
  name only where such talk or the recogniser's tag says so ("I will pay the bill" keeps Will and Bill).
- `dateOfBirth`: the date said within DATE_FOLLOW_MS after birth talk ("date of birth", "born",
  "birthday", "DOB"): month names, ordinals, day and year numbers, digits ("03/14/1985", "3 14 85").
- `address`: a house number followed within four words by a street word ("218 Maple Street"), with the
  capitalised words, state and ZIP code that follow in the same breath; and what answers address talk.
- `email`: a written address (`dan.smith@gmail.com`), and a spoken one: the words before "at" through
  "dot" and the domain ending ("dan dot smith at gmail dot com").
- `phone`: a run of 7-11 spoken digits (the recogniser's "555 218 4497" is one run) after phone talk
  ("phone", "number", "call", "reach", "cell", "mobile"), and any run of 10-11 digits.
- `account`: a run of 4 or more digits, or a word mixing letters and digits, after account talk
  ("account", "member", "policy", "reference", "customer", "ID").
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from speechproc.conversation import Detection, Word
from speechproc.stages.numbers import DigitRun, digit_runs

KINDS = ("name", "dateOfBirth", "address", "email", "phone", "account")
CONTEXT_MS = 30000  # talk this long before a number tells what the number is
DATE_FOLLOW_MS = 12000
ANSWER_MS = 15000  # the answer to a question comes within this long
MAX_NAME_WORDS = 3
MAX_SPELLED = 30  # letters of a name spelled out, at most
SHORT_WORDS = frozenset("to at on in is it of or me my we us so no do go be by he an as if up am".split())
MAX_LOCAL_WORDS = 25  # words before an e-mail's "at", at most (a name spelled out)

NAME_CUE = re.compile(r"\b(my name is|my name's|name is|this is|i am|i'm|speaking with|talking to|it's|mr|mrs|ms|"
                      r"miss|dr|doctor|first name|last name|surname)$")
BIRTH_TALK = re.compile(r"\b(date o[fn] birth|birth date|birthdate|born|birthday|dob|d o b)\b")
ADDRESS_TALK = re.compile(r"\b(address|live at|living at|ship it to|mail it to|street)\b")
PHONE_TALK = re.compile(r"\b(phone|number|call|reach|cell|mobile|callback|call back|landline)\b")
ACCOUNT_TALK = re.compile(r"\b(account|count number|member|membership|policy|reference|customer|id|client)\b")
STREET = frozenset("street st avenue ave road rd lane ln drive dr boulevard blvd court ct way place pl circle "
                   "parkway highway hwy terrace trail square".split())
NOT_A_STREET_NAME = frozenset("the a an by this that any some no every which one other same long".split())  # "by the way"
MONTHS = frozenset("january february march april may june july august september october november december "
                   "jan feb mar apr jun jul aug sep sept oct nov dec".split())
ORDINAL = re.compile(r"^(\d{1,2}(st|nd|rd|th)|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
                     r"eleventh|twelfth|(thir|four|fif|six|seven|eigh|nine)teenth|twentieth|thirtieth|"
                     r"(twenty|thirty)-?(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth))$")
NUMBER_WORDS = frozenset("zero oh one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
                         "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
                         "eighty ninety hundred thousand".split())
COM_HEARD = frozenset("come calm comb cam comm".split())  # "dot com" as a recogniser may write it
DOMAIN_ENDS = frozenset("com net org edu gov io co uk ca de info biz".split())  # spoken: not "me", "us"
WRITTEN_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(\.[\w-]+)+")
DATE_JOINERS = frozenset("of the slash dash".split())  # inside a date: "22 slash 01 slash 1992"
DATE_DIGITS = re.compile(r"^\d{1,4}([/.-]\d{1,2}([/.-]\d{2,4})?)?$")
MIXED = re.compile(r"^(?=.*\d)(?=.*[a-z])[a-z\d-]{4,}$")
STOP = frozenset("and or but so the a an from at in on with calling here please thank thanks yes no how what when "
                 "where why who can could would is are do does did hi hello hey sorry okay ok also anyway".split())

QUESTIONS = (  # what an agent asks, by the kind of its answer; e-mail before address ("email address")
    ("email", re.compile(r"\b(your e-?mail|e-?mail address|e-?mail on (the|your|file)|best e-?mail)\b")),
    # "your date of ..." however its last word was heard ("date of words"): in a call, a date of birth
    ("dateOfBirth", re.compile(r"\b(date o[fn]|birth ?date|birthday|born|dob|d o b)\b")),
    ("name", re.compile(r"\b(your (full |first |last )?name|surname|who am i speaking|who i'm speaking|"
                        r"name on the account|spell (it|that|your))\b")),
    ("address", re.compile(r"\b((your|the|home|mailing|street|billing|shipping) address|address on|"
                           r"where do you live|zip ?code|post ?code)\b")),
    ("account", re.compile(r"\b(account|member(ship)?|policy|reference|customer|confirmation) (number|id|no)\b")),
    ("phone", re.compile(r"\b(phone|cell|mobile|callback|call ?back number|contact number|best number|"
                         r"number (where|to reach|we can|i can))\b")),
)
# what makes a turn a question (the detector reads words, not punctuation): a question word, "your", or "and
# the ..." (the agent's "And the address on the account?")
ASKING = re.compile(r"\b(what|what's|which|can|could|may|would|do you|confirm|tell me|give me|your)\b|^and (the|a|an)\b")
PREAMBLE = frozenset("yes yeah yep sure ok okay um uh it it's its is that's that i i'm live living at my the "
                     "email address phone number name date of birth account".split())
MAX_ANSWER_WORDS = 20
NUMBERED = frozenset(("phone", "account", "dateOfBirth"))
DIGIT_HEARD = frozenset("i i'm a to for".split())  # a digit a recogniser wrote as a word before the others
MAX_SPELLED_EMAIL = 45  # words of an e-mail address spelled letter by letter, at most
# a word that starts other talk after an answer's sentence ends
NEW_SENTENCE = frozenset("also okay ok thank thanks i i'm my please let can could that's anyway by".split())
# the asker reading an answer back ("let me read that back", heard "let me read that Mac"); other cues
# ("just to confirm") read back only when a confirming question follows
READING = re.compile(r"\b(let me read (that|it|this|at)|read (that|it) back)$")
BACK = frozenset("back mac bag black pack bad hack that it at".split())  # "read that back" however "back" was heard
CHECKING = re.compile(r"\b(let me confirm|just to confirm|to confirm|let me repeat( that| it)?|so that's|so that is)$")
CONFIRMING = re.compile(r"^(is (that|it|not|this) (correct|right)|isn't that|correct|did i get)")
ANSWER_GAP_MS = 2000  # a longer pause ends what was said after a cue

Span = tuple[int, int]
Ends = frozenset[tuple[str, int]]  # (speaker, end time) of each word that ends a sentence


def plain(word: Word) -> str:
    return word.w.lower().strip(".,?!;:\"'()")


WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday today tomorrow".split())


def _capitalised(word: Word) -> bool:
    """A capitalised word that may be part of a name (not a month or a day: "it's Friday")."""
    text = word.w.strip(".,?!;:\"'()")
    return bool(text) and text[0].isupper() and plain(word) not in STOP | MONTHS | WEEKDAYS


def _talk_before(words: Sequence[Word], i: int, pattern: re.Pattern, within_ms: int) -> bool:
    """Whether talk matching `pattern` was said (by anyone) within `within_ms` before words[i]."""
    text, j = "", i
    while j > 0 and words[i].s - words[j - 1].s <= within_ms:
        j -= 1
    text = " ".join(plain(w) for w in words[j:i + 1])
    return pattern.search(text) is not None


def _detection(kind: str, spans: Sequence[tuple[str, int, int]]) -> Detection:
    segments: dict[str, list[Span]] = {}
    for speaker, s, e in spans:
        segments.setdefault(speaker, []).append((s, e))
    return Detection(kind, segments)


def _words_span(found: Sequence[Word]) -> tuple[str, int, int]:
    return found[0].speaker, found[0].s, found[-1].e


# --- answers ----------------------------------------------------------------------------------------------

def _turns(words: Sequence[Word]) -> list[list[Word]]:
    """One speaker's words in a row."""
    out: list[list[Word]] = []
    for w in words:
        if out and out[-1][-1].speaker == w.speaker:
            out[-1].append(w)
        else:
            out.append([w])
    return out


def _until_new_sentence(said: Sequence[Word], ends: Ends, kind: str = "name") -> list[Word]:
    """`said` up to a sentence end (`ends`: the speaker and end time of each word a full stop, question or
    exclamation mark follows) that other talk follows ("Reyes. Also, I was born on ..."): the caller who
    answers and goes on in the same breath. Where what follows still holds data of the kind (digits of a
    number, the domain of an e-mail: "0.086. I'm 5.6", "R O I. I'm not N D at outlook.com"), the
    recogniser's full stop is no end."""
    for k in range(1, len(said)):
        if (said[k - 1].speaker, said[k - 1].e) in ends and plain(said[k]) in NEW_SENTENCE or \
                plain(said[k]) in ("also", "anyway"):
            if not _goes_on(said[k:], kind):
                return list(said[:k])
    return list(said)


def _goes_on(rest: Sequence[Word], kind: str) -> bool:
    """Whether the talk after a full stop goes on with the data: digits within its first two words, a
    domain's ending within its first ten."""
    if kind in ("phone", "account", "dateOfBirth"):
        return any(_number_word(w) for w in rest[:2])
    if kind == "email":
        return any(_domain_end(rest, j) for j in range(min(len(rest), 10)))
    return False


def _read_back(turn: Sequence[Word]) -> list[Word]:
    """What the asker reads back in `turn` ("Let me read that back: 555 218 4497. Is that correct?"): the
    words after the cue and before the confirming question, or nothing when the turn reads nothing back."""
    text = [plain(w) for w in turn]
    for k in range(len(turn)):
        before = " ".join(text[max(0, k - 5):k + 1])
        reading = READING.search(before) is not None
        if reading or CHECKING.search(before):
            k += reading and k + 1 < len(turn) and text[k + 1] in BACK
            end = next((j for j in range(k + 1, len(turn)) if CONFIRMING.match(" ".join(text[j:j + 3]))), None)
            if end is None and not reading:
                return []
            return list(turn[k + 1:min(end or len(turn), k + 1 + MAX_ANSWER_WORDS)])
    return []


def answers(words: Sequence[Word], kinds: Sequence[str], ends: Ends = frozenset()) -> list[Detection]:
    """The answer to a question about personal data: the turn right after it, by another speaker, within
    ANSWER_MS, from its first word past the preamble ("yes, it's", "I live at") for MAX_ANSWER_WORDS or to
    the end of its sentence when other talk follows. However the recogniser heard it ("Oak Avenue" as "O Cam
    a new"), what answers "what's your address?" is one."""
    out = []
    turns = _turns(words)
    for question, answer in zip(turns, turns[1:]):
        if answer[0].s - question[-1].e > ANSWER_MS:
            continue
        asked = " ".join(plain(w) for w in question[-25:])
        if not ASKING.search(asked) and not ASKING.search(" ".join(plain(w) for w in question[-25:][:3])):
            continue  # a question asks: "it's dan at email dot com" is no question about e-mail
        kind = next((k for k, pattern in QUESTIONS if pattern.search(asked)), None)
        if kind is None or kind not in kinds:
            continue
        start = 0
        while start < len(answer) and plain(answer[start]) in PREAMBLE:
            start += 1
        if 0 < start < len(answer) and _spelled(answer[start]) and plain(answer[start - 1]) in ("the", "a"):
            start -= 1  # the first letter of a spelling heard as a word ("it's the R I Y ...")
        if 0 < start < len(answer) and kind in NUMBERED and _number_word(answer[start]) and \
                plain(answer[start - 1]) in DIGIT_HEARD:
            start -= 1  # a first digit heard as a word ("I'm 3 8 9 4 ...": "nine 3 8 9 4")
        said = _until_new_sentence(answer[start:start + MAX_ANSWER_WORDS], ends, kind)
        if kind == "email":  # spelled letter by letter, an address takes more words: to its domain's ending
            last = next((j for j in range(min(len(answer), start + MAX_SPELLED_EMAIL) - 1, start + len(said) - 1, -1)
                         if _domain_end(answer, j)), None)
            if last is not None:
                said = list(answer[start:last + 1])
        if said:
            out.append(_detection(kind, [_words_span(said)]))
    return out


def read_backs(words: Sequence[Word], found: Sequence[Detection], kinds: Sequence[str]) -> list[Detection]:
    """What one speaker reads back of what the other just said ("Let me read that back: ... Is that
    correct?"), of the kind found in the turn before it, or else of the kind its own words look like."""
    out = []
    turns = _turns(words)
    for before, turn in zip(turns, turns[1:]):
        again = _read_back(turn)
        if not again:
            continue
        heard = [d.label for d in found for s, e in d.segments.get(before[0].speaker, [])
                 if s < before[-1].e and e > before[0].s]
        kind = max(set(heard), key=heard.count) if heard else _looks_like(again)
        if kind in kinds:
            out.append(_detection(kind, [_words_span(again)]))
    return out


def _looks_like(said: Sequence[Word]) -> str:
    """The kind of personal data `said` looks like, for words read back with no answer found before them."""
    text = [plain(w) for w in said]
    digits = sum(len(re.sub(r"\D", "", t)) or (t in NUMBER_WORDS and t not in ("hundred", "thousand")) for t in text)
    if "at" in text and any(t in ("dot", "not") or t.startswith(".") for t in text):
        return "email"
    if any(t in STREET for t in text):
        return "address"
    if any(t in MONTHS for t in text) or any(DATE_DIGITS.match(t) and "/" in t for t in text):
        return "dateOfBirth"
    if digits >= 7:
        return "phone" if digits <= 11 else "account"
    return "account" if digits >= 4 else "name"


def _spelled(word: Word) -> bool:
    """A letter said on its own (not "a" or "I")."""
    letters = plain(word)
    return len(letters) == 1 and letters.isalpha() and letters not in ("a", "i")


# --- names ----------------------------------------------------------------------------------------------

def _cued_names(words: Sequence[Word]) -> list[list[Word]]:
    """Capitalised words or spelled letters after name talk, and in the answer to a name question."""
    out: list[list[Word]] = []
    for i in range(len(words)):
        before = " ".join(plain(w) for w in words[max(0, i - 4):i])
        if NAME_CUE.search(before) is None or (i and words[i - 1].speaker != words[i].speaker):
            continue
        run: list[Word] = []
        names_seen = 0
        for w in words[i:i + MAX_SPELLED]:
            letters = plain(w)
            if w.speaker != words[i].speaker or not letters:
                break
            spelled = _spelled(w)
            if spelled or (_capitalised(w) and names_seen < MAX_NAME_WORDS):
                run.append(w)
                names_seen += not spelled
            else:
                break
        if run:
            out.append(run)
    return out


def _tagged_names(words: Sequence[Word], nlp) -> list[list[Word]]:
    """Words spaCy tags PERSON, turn by turn (a turn: one speaker's words in a row)."""
    out: list[list[Word]] = []
    start = 0
    while start < len(words):
        end = start
        while end < len(words) and words[end].speaker == words[start].speaker:
            end += 1
        turn = words[start:end]
        text, offsets = "", []
        for w in turn:
            offsets.append(len(text))
            text += w.w + " "
        for entity in nlp(text).ents:
            if entity.label_ == "PERSON":
                tagged = [w for w, o in zip(turn, offsets) if entity.start_char <= o < entity.end_char]
                k = turn.index(tagged[0]) if tagged else 0
                if tagged and plain(tagged[0]) in BACK and k >= 2 and plain(turn[k - 2]) == "read":
                    tagged.pop(0)  # "let me read that back" heard "... read that Mac"
                while tagged and (plain(tagged[-1]) in STOP or any(c.isdigit() for c in tagged[-1].w)):
                    tagged.pop()  # the tagger reads no punctuation: "John How", "Mac 4"
                while tagged and plain(tagged[0]) in STOP:
                    tagged.pop(0)
                if tagged:
                    out.append(tagged)
        start = end
    return out


def names(words: Sequence[Word], nlp=None) -> list[Detection]:
    found = _cued_names(words) + (_tagged_names(words, nlp) if nlp is not None else [])
    return [_detection("name", [_words_span(run)]) for run in found]


# --- dates of birth ---------------------------------------------------------------------------------------

def _date_like(word: Word) -> bool:
    text = plain(word)
    return (text in MONTHS or text in NUMBER_WORDS or ORDINAL.match(text) is not None or
            DATE_DIGITS.match(text) is not None or text in DATE_JOINERS)


def dates_of_birth(words: Sequence[Word]) -> list[Detection]:
    out = []
    i = 0
    while i < len(words):
        if plain(words[i]) in DATE_JOINERS or not _date_like(words[i]) or \
                not _talk_before(words, i, BIRTH_TALK, DATE_FOLLOW_MS):
            i += 1
            continue
        run = [words[i]]
        while i + 1 < len(words) and _date_like(words[i + 1]) and words[i + 1].s - run[-1].e < 2000 and \
                words[i + 1].speaker == run[0].speaker:
            i += 1
            run.append(words[i])
        while run and plain(run[-1]) in DATE_JOINERS:
            run.pop()
        if run:
            out.append(_detection("dateOfBirth", [_words_span(run)]))
        i += 1
    return out


# --- addresses ----------------------------------------------------------------------------------------

def _number_word(word: Word) -> bool:
    text = plain(word).replace(",", "")
    return text.isdigit() or text in NUMBER_WORDS


ADDRESS_CUE = re.compile(r"\b(live (at|a|on|in)|living (at|on|in)|address is|ship (it )?to|mail (it )?to|send (it )?to|moved to|"
                         r"moving to|located at|i'm at|we're at)$")


def _through_zip(said: Sequence[Word]) -> list[Word]:
    """An address said after a cue, through its ZIP code when one is said ("5 Oak Avenue, Clinton 71,118"
    and not the "last month" after it): through the last number, when words came between it and the first."""
    numbers = [k for k, w in enumerate(said) if _number_word(w)]
    if numbers and any(not _number_word(w) for w in said[numbers[0]:numbers[-1]]):
        return list(said[:numbers[-1] + 1])
    return list(said)


def addresses(words: Sequence[Word], ends: Ends = frozenset()) -> list[Detection]:
    out = []
    for i in range(1, len(words)):  # what follows "I live at" in the same turn, however it was heard
        before = " ".join(plain(w) for w in words[max(0, i - 4):i] if w.speaker == words[i].speaker)
        if ADDRESS_CUE.search(before):
            turn = [w for w in words[i:i + MAX_ANSWER_WORDS] if w.speaker == words[i].speaker]
            end = next((k for k in range(1, len(turn)) if turn[k].s - turn[k - 1].e > ANSWER_GAP_MS), len(turn))
            said = _through_zip(turn[:end])  # an address may hold full stops: "Lake Road. Rivers, 55107"
            if len(said) == end:
                said = _until_new_sentence(said, ends, "address")
            if said:
                out.append(_detection("address", [_words_span(said)]))
    i = 0
    while i < len(words):
        if not _number_word(words[i]):
            i += 1
            continue
        street = next((j for j in range(i + 1, min(len(words), i + 6))
                       if plain(words[j]) in STREET and words[j].speaker == words[i].speaker and
                       plain(words[j - 1]) not in NOT_A_STREET_NAME), None)
        if street is None:
            i += 1
            continue
        end = street
        while end + 1 < len(words) and words[end + 1].speaker == words[i].speaker and \
                words[end + 1].s - words[end].e < 1500 and (_capitalised(words[end + 1]) or _number_word(words[end + 1])):
            end += 1  # the city, state and ZIP code said in the same breath
        out.append(_detection("address", [_words_span(words[i:end + 1])]))
        i = end + 1
    return out


# --- e-mail -------------------------------------------------------------------------------------------------

def _domain_end(words: Sequence[Word], j: int) -> bool:
    """Whether words[j] ends a domain: "com" after "dot", or a written ".com", "gmail.com"."""
    raw = words[j].w.lower().rstrip(",?!;:\"')")
    if re.search(r"\.(com|net|org|edu|gov|io|co|uk|us|ca|de|info|biz|me)$", raw):
        return True
    return (plain(words[j]) in DOMAIN_ENDS or plain(words[j]) in COM_HEARD) and j > 0 and \
        plain(words[j - 1]) in ("dot", "not")


EMAIL_CUE = re.compile(r"\b(e-?mail (it |this |that )?(to|me at)|e-?mail (address )?is|send (it|this|that|them|the \w+|"
                       r"a \w+|my \w+) to|reach me at)$")


def _cued_emails(words: Sequence[Word]) -> list[Detection]:
    """What follows "send the receipt to", "my email is" through the domain's ending, however its "at" was heard
    ("to mr dot nata dot edu via nat dot com")."""
    out = []
    for i in range(1, len(words)):
        before = " ".join(plain(w) for w in words[max(0, i - 5):i] if w.speaker == words[i].speaker)
        if not EMAIL_CUE.search(before):
            continue
        end = next((j for j in range(i, min(len(words), i + MAX_LOCAL_WORDS)) if words[j].speaker == words[i].speaker
                    and _domain_end(words, j)), None)
        if end is not None:
            while (later := next((j for j in range(end + 1, min(len(words), end + 8))
                                  if words[j].speaker == words[i].speaker and _domain_end(words, j)), None)):
                end = later
            out.append(_detection("email", [_words_span(words[i:end + 1])]))
    return out


def emails(words: Sequence[Word]) -> list[Detection]:
    out = _cued_emails(words)
    for i, w in enumerate(words):
        text = w.w.strip(".,?!;:\"'()")
        if WRITTEN_EMAIL.fullmatch(text):
            out.append(_detection("email", [_words_span([w])]))
            continue
        if plain(w) != "at" or i == 0:
            continue
        end = next((j for j in range(i + 1, min(len(words), i + 8)) if _domain_end(words, j)), None)
        if end is None:
            continue
        start = i - 1
        while start > 0 and i - start < MAX_LOCAL_WORDS and words[start - 1].speaker == w.speaker and \
                words[start].s - words[start - 1].e < 1500 and \
                (plain(words[start - 1]) not in PREAMBLE or _letter_among_letters(words, start - 1)) and \
                (i - start < 5 or _spelling(words[start - 1])):
            start -= 1  # up to four words before "at", more while they are spelled letters ("d a n dot ...")
        out.append(_detection("email", [_words_span(words[start:end + 1])]))
    return out


def _letter_among_letters(words: Sequence[Word], j: int) -> bool:
    """Whether words[j] is a letter said between other letters ("P R I Y A": the "I" is no pronoun)."""
    return len(plain(words[j])) == 1 and j + 1 < len(words) and len(plain(words[j + 1])) == 1


def _spelling(word: Word) -> bool:
    """A letter or two said one by one, or the "dot" between spelled names."""
    text = plain(word)
    return (len(text) <= 2 and text.isalpha() and text not in SHORT_WORDS) or \
        text in ("dot", "not", "underscore", "dash")


# --- phone and account numbers --------------------------------------------------------------------------

PHONE_CUE = re.compile(r"\b(call me( \w+)? (at|on)|reach me (at|on)|text me (at|on)|my (phone |cell |mobile )?number "
                       r"is|(phone|cell|mobile) number is|(phone|cell|mobile) is)$")
MAX_GARBLED = 2  # words among the digits after a cue that are no digits ("760 daytime 4 1 4 9")
DIGIT_SOUNDS = frozenset("to too for won ate oh o".split())  # digits heard as words: "two two" as "two to"


ACCOUNT_CUE = re.compile(r"\b(account|count|member(ship)?|policy|reference|customer) (number|no|id)( is)?$")


def _cued_numbers(words: Sequence[Word], cue: re.Pattern, kind: str) -> list[Detection]:
    """The digits said after a cue ("call me back at", "my account number is"), with the words a recogniser
    makes of some digits ("to", "for") and up to MAX_GARBLED words it garbled ("946 I'm well 826") among them."""
    out = []
    for i in range(1, len(words)):
        before = " ".join(plain(w) for w in words[max(0, i - 5):i] if w.speaker == words[i].speaker)
        if not cue.search(before) or plain(words[i]) in ("is", "was"):
            continue  # "my account number" matched before its "is": the digits come after it
        end, garbled = i, 0
        while end < len(words) and words[end].speaker == words[i].speaker and end - i < 20 and \
                (end == i or words[end].s - words[end - 1].e < ANSWER_GAP_MS):
            if not (_number_word(words[end]) or plain(words[end]) in DIGIT_SOUNDS):
                if garbled >= MAX_GARBLED or not any(_number_word(w) for w in words[end + 1:end + 1 + MAX_GARBLED - garbled]):
                    break
                garbled += 1
            end += 1
        if sum(_number_word(w) for w in words[i:end]) >= 3 or sum(c.isdigit() for w in words[i:end] for c in w.w) >= 4:
            out.append(_detection(kind, [_words_span(words[i:end])]))
    return out


def phones_and_accounts(words: Sequence[Word], runs: Sequence[DigitRun]) -> tuple[list[Detection], list[Detection]]:
    phones, accounts = _cued_numbers(words, PHONE_CUE, "phone"), _cued_numbers(words, ACCOUNT_CUE, "account")
    position = {id(w): i for i, w in enumerate(words)}
    for run in runs:
        i = position[id(run.words[0])]
        digits = len(run.digits)
        if 10 <= digits <= 11 or (7 <= digits <= 11 and _talk_before(words, i, PHONE_TALK, CONTEXT_MS)):
            phones.append(_detection("phone", [(run.speaker, run.s, run.e)]))
        elif digits >= 4 and _talk_before(words, i, ACCOUNT_TALK, CONTEXT_MS):
            accounts.append(_detection("account", [(run.speaker, run.s, run.e)]))
    for i, w in enumerate(words):
        if MIXED.match(plain(w)) and _talk_before(words, i, ACCOUNT_TALK, CONTEXT_MS):
            accounts.append(_detection("account", [_words_span([w])]))
    return phones, accounts


def find(tokens: Sequence[Word], kinds: Sequence[str] = KINDS, nlp=None) -> list[Detection]:
    """Every detection of `kinds` in `tokens` (a transcript's tokens in time order; its punctuation tells where
    sentences end); `nlp` (a spaCy pipeline) tags names. A stretch found twice (a name both cued and tagged)
    is one detection."""
    words = [t for t in tokens if t.is_word]
    ends = frozenset((t.speaker, t.e) for t in tokens if t.m == "punc" and t.w in (".", "?", "!"))
    found = _found(words, kinds, nlp, ends)
    seen: set[tuple] = set()
    out = []
    for detection in found:
        key = (detection.label, tuple(sorted((k, tuple(v)) for k, v in detection.segments.items())))
        if key not in seen:
            seen.add(key)
            out.append(detection)
    return out


def _found(words: Sequence[Word], kinds: Sequence[str], nlp, ends: Ends) -> list[Detection]:
    out: list[Detection] = answers(words, kinds, ends)
    if "name" in kinds:
        out += names(words, nlp)
    if "dateOfBirth" in kinds:
        out += dates_of_birth(words)
    if "address" in kinds:
        out += addresses(words, ends)
    if "email" in kinds:
        out += emails(words)
    if "phone" in kinds or "account" in kinds:
        phones, accounts = phones_and_accounts(words, digit_runs(words))
        out += (phones if "phone" in kinds else []) + (accounts if "account" in kinds else [])
    return out + read_backs(words, out, kinds)
