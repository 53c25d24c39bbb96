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

NAME_CUE = re.compile(r"\b(my name is|my name's|name is|this is|i am|i'm|speaking with|talking to|it's|mr|mrs|ms|"
                      r"miss|dr|doctor|first name|last name|surname)$")
BIRTH_TALK = re.compile(r"\b(date of birth|birth date|birthdate|born|birthday|dob|d o b)\b")
ADDRESS_TALK = re.compile(r"\b(address|live at|living at|ship it to|mail it to|street)\b")
PHONE_TALK = re.compile(r"\b(phone|number|call|reach|cell|mobile|callback|call back|landline)\b")
ACCOUNT_TALK = re.compile(r"\b(account|member|membership|policy|reference|customer|id|client)\b")
STREET = frozenset("street st avenue ave road rd lane ln drive dr boulevard blvd court ct way place pl circle "
                   "parkway highway hwy terrace trail square".split())
MONTHS = frozenset("january february march april may june july august september october november december "
                   "jan feb mar apr jun jul aug sep sept oct nov dec".split())
ORDINAL = re.compile(r"^(\d{1,2}(st|nd|rd|th)|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
                     r"eleventh|twelfth|(thir|four|fif|six|seven|eigh|nine)teenth|twentieth|thirtieth|"
                     r"(twenty|thirty)-?(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth))$")
NUMBER_WORDS = frozenset("zero oh one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
                         "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
                         "eighty ninety hundred thousand".split())
DOMAIN_ENDS = frozenset("com net org edu gov io co uk us ca de info biz me".split())
WRITTEN_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(\.[\w-]+)+")
DATE_DIGITS = re.compile(r"^\d{1,4}([/.-]\d{1,2}([/.-]\d{2,4})?)?$")
MIXED = re.compile(r"^(?=.*\d)(?=.*[a-z])[a-z\d-]{4,}$")
STOP = frozenset("and or but so the a an from at in on with calling here please thank thanks yes no how what when "
                 "where why who can could would is are do does did hi hello hey sorry okay ok".split())

QUESTIONS = (  # what an agent asks, by the kind of its answer; e-mail before address ("email address")
    ("email", re.compile(r"\b(your e-?mail|e-?mail address|e-?mail on (the|your|file)|best e-?mail)\b")),
    # "your date of ..." however its last word was heard ("date of words"): in a call, a date of birth
    ("dateOfBirth", re.compile(r"\b(date of|birth ?date|birthday|born|dob|d o b)\b")),
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
PREAMBLE = frozenset("yes yeah yep sure ok okay um uh so it it's its is that's that i i'm live living at my the "
                     "email address phone number name date of birth account".split())
MAX_ANSWER_WORDS = 20
ANSWER_GAP_MS = 2000  # a longer pause ends what was said after a cue

Span = tuple[int, int]


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


def answers(words: Sequence[Word], kinds: Sequence[str]) -> list[Detection]:
    """The answer to a question about personal data: the turn right after it, by another speaker, within
    ANSWER_MS, from its first word past the preamble ("yes, it's", "I live at") for MAX_ANSWER_WORDS. However
    the recogniser heard it ("Oak Avenue" as "O Cam a new"), what answers "what's your address?" is one."""
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
        said = answer[start:start + MAX_ANSWER_WORDS]
        if said:
            out.append(_detection(kind, [_words_span(said)]))
    return out


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
            spelled = len(letters) == 1 and letters.isalpha() and letters not in ("a", "i")
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
                while tagged and plain(tagged[-1]) in STOP:  # the tagger reads no punctuation: "John How"
                    tagged.pop()
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
            DATE_DIGITS.match(text) is not None or text in ("of", "the"))


def dates_of_birth(words: Sequence[Word]) -> list[Detection]:
    out = []
    i = 0
    while i < len(words):
        if plain(words[i]) in ("of", "the") or not _date_like(words[i]) or \
                not _talk_before(words, i, BIRTH_TALK, DATE_FOLLOW_MS):
            i += 1
            continue
        run = [words[i]]
        while i + 1 < len(words) and _date_like(words[i + 1]) and words[i + 1].s - run[-1].e < 2000 and \
                words[i + 1].speaker == run[0].speaker:
            i += 1
            run.append(words[i])
        while run and plain(run[-1]) in ("of", "the"):
            run.pop()
        if run:
            out.append(_detection("dateOfBirth", [_words_span(run)]))
        i += 1
    return out


# --- addresses ----------------------------------------------------------------------------------------

def _number_word(word: Word) -> bool:
    text = plain(word)
    return text.isdigit() or text in NUMBER_WORDS


ADDRESS_CUE = re.compile(r"\b(live at|living at|address is|ship (it )?to|mail (it )?to|send (it )?to)$")


def addresses(words: Sequence[Word]) -> list[Detection]:
    out = []
    for i in range(1, len(words)):  # what follows "I live at" in the same turn, however it was heard
        before = " ".join(plain(w) for w in words[max(0, i - 4):i] if w.speaker == words[i].speaker)
        if ADDRESS_CUE.search(before):
            turn = [w for w in words[i:i + MAX_ANSWER_WORDS] if w.speaker == words[i].speaker]
            end = next((k for k in range(1, len(turn)) if turn[k].s - turn[k - 1].e > ANSWER_GAP_MS), len(turn))
            out.append(_detection("address", [_words_span(turn[:end])]))
    i = 0
    while i < len(words):
        if not _number_word(words[i]):
            i += 1
            continue
        street = next((j for j in range(i + 1, min(len(words), i + 6))
                       if plain(words[j]) in STREET and words[j].speaker == words[i].speaker), None)
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
    return plain(words[j]) in DOMAIN_ENDS and j > 0 and plain(words[j - 1]) in ("dot", "not")


def emails(words: Sequence[Word]) -> list[Detection]:
    out = []
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
        while start > 0 and i - start < 5 and words[start - 1].speaker == w.speaker and \
                words[start].s - words[start - 1].e < 1500 and plain(words[start - 1]) not in PREAMBLE:
            start -= 1
        out.append(_detection("email", [_words_span(words[start:end + 1])]))
    return out


# --- phone and account numbers --------------------------------------------------------------------------

def phones_and_accounts(words: Sequence[Word], runs: Sequence[DigitRun]) -> tuple[list[Detection], list[Detection]]:
    phones, accounts = [], []
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


def find(words: Sequence[Word], kinds: Sequence[str] = KINDS, nlp=None) -> list[Detection]:
    """Every detection of `kinds` in `words` (word tokens in time order); `nlp` (a spaCy pipeline) tags names.
    A stretch found twice (a name both cued and tagged) is one detection."""
    found = _found(words, kinds, nlp)
    seen: set[tuple] = set()
    out = []
    for detection in found:
        key = (detection.label, tuple(sorted((k, tuple(v)) for k, v in detection.segments.items())))
        if key not in seen:
            seen.add(key)
            out.append(detection)
    return out


def _found(words: Sequence[Word], kinds: Sequence[str], nlp) -> list[Detection]:
    out: list[Detection] = answers(words, kinds)
    if "name" in kinds:
        out += names(words, nlp)
    if "dateOfBirth" in kinds:
        out += dates_of_birth(words)
    if "address" in kinds:
        out += addresses(words)
    if "email" in kinds:
        out += emails(words)
    if "phone" in kinds or "account" in kinds:
        phones, accounts = phones_and_accounts(words, digit_runs(words))
        out += (phones if "phone" in kinds else []) + (accounts if "account" in kinds else [])
    return out
