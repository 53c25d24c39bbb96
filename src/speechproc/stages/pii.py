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
from speechproc.stages.pii_talk import BACK, MAX_ANSWER_WORDS, PREAMBLE, answers, read_backs, until_new_sentence
from speechproc.stages.pii_words import (
    DATE_DIGITS,
    DATE_JOINERS,
    MONTHS,
    NUMBER_WORDS,
    ORDINAL,
    SHORT_WORDS,
    STOP,
    STREET,
    Ends,
    capitalised,
    detection,
    domain_end,
    number_word,
    plain,
    spelled,
    talk_before,
    words_span,
)

KINDS = ("name", "dateOfBirth", "address", "email", "phone", "account")
CONTEXT_MS = 30000  # talk this long before a number tells what the number is
DATE_FOLLOW_MS = 12000
MAX_NAME_WORDS = 3
MAX_SPELLED = 30  # letters of a name spelled out, at most
MAX_LOCAL_WORDS = 25  # words before an e-mail's "at", at most (a name spelled out)

NAME_CUE = re.compile(r"\b(my name is|my name's|name is|this is|i am|i'm|speaking with|talking to|it's|mr|mrs|ms|"
                      r"miss|dr|doctor|first name|last name|surname)$")
BIRTH_TALK = re.compile(r"\b(date o[fn] birth|birth date|birthdate|born|birthday|dob|d o b)\b")
ADDRESS_TALK = re.compile(r"\b(address|live at|living at|ship it to|mail it to|street)\b")
PHONE_TALK = re.compile(r"\b(phone|number|call|reach|cell|mobile|callback|call back|landline)\b")
ACCOUNT_TALK = re.compile(r"\b(account|count number|member|membership|policy|reference|customer|id|client)\b")
NOT_A_STREET_NAME = frozenset("the a an by this that any some no every which one other same long".split())  # "by the way"
WRITTEN_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(\.[\w-]+)+")
MIXED = re.compile(r"^(?=.*\d)(?=.*[a-z])[a-z\d-]{4,}$")
ANSWER_GAP_MS = 2000  # a longer pause ends what was said after a cue



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
            letter = spelled(w)
            if letter or (capitalised(w) and names_seen < MAX_NAME_WORDS):
                run.append(w)
                names_seen += not letter
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
    return [detection("name", [words_span(run)]) for run in found]


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
                not talk_before(words, i, BIRTH_TALK, DATE_FOLLOW_MS):
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
            out.append(detection("dateOfBirth", [words_span(run)]))
        i += 1
    return out


# --- addresses ----------------------------------------------------------------------------------------


ADDRESS_CUE = re.compile(r"\b(live (at|a|on|in)|living (at|on|in)|address is|ship (it )?to|mail (it )?to|send (it )?to|moved to|"
                         r"moving to|located at|i'm at|we're at)$")


def _through_zip(said: Sequence[Word]) -> list[Word]:
    """An address said after a cue, through its ZIP code when one is said ("5 Oak Avenue, Clinton 71,118"
    and not the "last month" after it): through the last number, when words came between it and the first."""
    numbers = [k for k, w in enumerate(said) if number_word(w)]
    if numbers and any(not number_word(w) for w in said[numbers[0]:numbers[-1]]):
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
                said = until_new_sentence(said, ends, "address")
            if said:
                out.append(detection("address", [words_span(said)]))
    i = 0
    while i < len(words):
        if not number_word(words[i]):
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
                words[end + 1].s - words[end].e < 1500 and (capitalised(words[end + 1]) or number_word(words[end + 1])):
            end += 1  # the city, state and ZIP code said in the same breath
        out.append(detection("address", [words_span(words[i:end + 1])]))
        i = end + 1
    return out


# --- e-mail -------------------------------------------------------------------------------------------------


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
                    and domain_end(words, j)), None)
        if end is not None:
            while (later := next((j for j in range(end + 1, min(len(words), end + 8))
                                  if words[j].speaker == words[i].speaker and domain_end(words, j)), None)):
                end = later
            out.append(detection("email", [words_span(words[i:end + 1])]))
    return out


def emails(words: Sequence[Word]) -> list[Detection]:
    out = _cued_emails(words)
    for i, w in enumerate(words):
        text = w.w.strip(".,?!;:\"'()")
        if WRITTEN_EMAIL.fullmatch(text):
            out.append(detection("email", [words_span([w])]))
            continue
        if plain(w) != "at" or i == 0:
            continue
        end = next((j for j in range(i + 1, min(len(words), i + 8)) if domain_end(words, j)), None)
        if end is None:
            continue
        start = i - 1
        while start > 0 and i - start < MAX_LOCAL_WORDS and words[start - 1].speaker == w.speaker and \
                words[start].s - words[start - 1].e < 1500 and \
                (plain(words[start - 1]) not in PREAMBLE or _letter_among_letters(words, start - 1)) and \
                (i - start < 5 or _spelling(words[start - 1])):
            start -= 1  # up to four words before "at", more while they are spelled letters ("d a n dot ...")
        out.append(detection("email", [words_span(words[start:end + 1])]))
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
            if not (number_word(words[end]) or plain(words[end]) in DIGIT_SOUNDS):
                if garbled >= MAX_GARBLED or not any(number_word(w) for w in words[end + 1:end + 1 + MAX_GARBLED - garbled]):
                    break
                garbled += 1
            end += 1
        if sum(number_word(w) for w in words[i:end]) >= 3 or sum(c.isdigit() for w in words[i:end] for c in w.w) >= 4:
            out.append(detection(kind, [words_span(words[i:end])]))
    return out


def phones_and_accounts(words: Sequence[Word], runs: Sequence[DigitRun]) -> tuple[list[Detection], list[Detection]]:
    phones, accounts = _cued_numbers(words, PHONE_CUE, "phone"), _cued_numbers(words, ACCOUNT_CUE, "account")
    position = {id(w): i for i, w in enumerate(words)}
    for run in runs:
        i = position[id(run.words[0])]
        digits = len(run.digits)
        if 10 <= digits <= 11 or (7 <= digits <= 11 and talk_before(words, i, PHONE_TALK, CONTEXT_MS)):
            phones.append(detection("phone", [(run.speaker, run.s, run.e)]))
        elif digits >= 4 and talk_before(words, i, ACCOUNT_TALK, CONTEXT_MS):
            accounts.append(detection("account", [(run.speaker, run.s, run.e)]))
    for i, w in enumerate(words):
        if MIXED.match(plain(w)) and talk_before(words, i, ACCOUNT_TALK, CONTEXT_MS):
            accounts.append(detection("account", [words_span([w])]))
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
    for one in found:
        key = (one.label, tuple(sorted((k, tuple(v)) for k, v in one.segments.items())))
        if key not in seen:
            seen.add(key)
            out.append(one)
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
