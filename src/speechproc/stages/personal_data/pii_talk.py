"""The conversation around personal data, for the PII detector (`stages/personal_data/pii.py`): the answer to a question
about it ("Can I have your date of birth?"), however the recogniser heard the answer, and what the asker
reads back ("Let me read that back: ... Is that correct?")."""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from speechproc.conversation import DetectedClass, Token
from speechproc.stages.personal_data.pii_words import (
    DATE_DIGITS,
    MONTHS,
    NUMBER_WORDS,
    STREET,
    Ends,
    detection,
    domain_end,
    number_word,
    plain,
    spelled,
    words_span,
)

ANSWER_MS = 15000  # the answer to a question comes within this long
QUESTIONS = (  # what an agent asks, by the kind of its answer; e-mail before address ("email address")
    ("email", re.compile(r"\b(your e-?mail|e-?mail address|e-?mail on (the|your|file)|best e-?mail)\b")),
    # "your date of ..." however its last word was heard ("date of words"): in a call, a date of birth
    ("dateOfBirth", re.compile(r"\b(date o[fn]|birth ?date|birthday|born|dob|d o b)\b")),
    ("name", re.compile(r"\b((?<!in )your (\w+ ){0,3}name|surname|(who )?am i speaking|who i'm speaking|who('s| is) calling|"
                        r"speaking with today|name on the account|spell (it|that|your))\b")),
    ("bankRouting", re.compile(r"\b(routing|sort code|transit number)\b")),
    ("pin", re.compile(r"\b(pin|bin|pin number|passcode|pass code)\b")),
    ("driversLicense", re.compile(r"\b(driver'?s? licen[cs]e|licen[cs]e number|driving licen[cs]e)\b")),
    ("passport", re.compile(r"\bpassport\b")),
    ("address", re.compile(r"\b((your|the|home|mailing|street|billing|shipping) address|address on|"
                           r"where do you live|zip ?code|post ?code|(the|your|which) (city|town|state(?! of)|province|county|"
                           r"country(?! code)))\b")),
    ("account", re.compile(r"\b(account|member(ship)?|policy|reference|customer|confirmation) (number|id|no)\b")),
    ("phone", re.compile(r"\b(phone|cell|mobile|callback|call ?back number|contact number|best number|"
                         r"number (where|to reach|we can|i can))\b")),
)
# what makes a turn a question (the detector reads words, not punctuation): a question word, "your", or "and
# the ..." (the agent's "And the address on the account?")
ASKING = re.compile(r"\b(what|what's|which|who|where|can|could|may|would|do you|confirm|tell me|give me|your)\b|"
                    r"^(and (the|a|an)|am i|is (this|that|it)|are you)\b")
PREAMBLE = frozenset("yes yeah yep sure ok okay um uh it it's its is that's that i i'm live living at my the "
                     "email address phone number name date of birth account".split())
MAX_ANSWER_WORDS = 20
QUESTION_WORDS = 25  # the words of a turn read for its question: its last
PAUSE_MS = 2500  # a longer pause ends an answer: what follows is other talk
NUMBERED = frozenset(("phone", "account", "dateOfBirth", "bankRouting", "pin", "driversLicense", "passport"))
DIGITS_ONLY = NUMBERED - {"dateOfBirth"}  # an answer holds a digit within its first words, or is none
FIRST_WORDS = 5
DIGIT_HEARD = frozenset("i i'm a to for do free".split())  # a digit a recogniser wrote as a word before the others
MAX_SPELLED_EMAIL = 45  # words of an e-mail address spelled letter by letter, at most
# a word that starts other talk after an answer's sentence ends
NEW_SENTENCE = frozenset("also okay ok thank thanks i i'm my please let can could that's anyway by".split())
# the asker reading an answer back ("let me read that back", heard "let me read that Mac"); other cues
# ("just to confirm") read back only when a confirming question follows
READING = re.compile(r"\b(let me read (that|it|this|at)|read (that|it) back)$")
BACK = frozenset("back mac bag black pack bad hack that it at".split())  # "read that back" however "back" was heard
CHECKING_CUES = r"let me confirm|just to confirm|to confirm|let me repeat( that| it)?|so that's|so that is|so let's see"
CHECKING = re.compile(rf"\b({CHECKING_CUES})$")
SHORT_CHECK = 12
SAYING_BACK = re.compile(r"\bso that ('s|is)$|\bso that's$|\bso let's see$")  # "So that's A I S H A?" with no question after it
CONFIRMING = re.compile(r"^(is \w+ (correct|right)|isn't that|correct|did i get)")  # "is net correct" as heard


def turns_of(words: Sequence[Token]) -> list[list[Token]]:
    """One speaker's words in a row."""
    out: list[list[Token]] = []
    for w in words:
        if out and out[-1][-1].speaker == w.speaker:
            out[-1].append(w)
        else:
            out.append([w])
    return out


def until_new_sentence(said: Sequence[Token], ends: Ends, kind: str = "name") -> list[Token]:
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


def _goes_on(rest: Sequence[Token], kind: str) -> bool:
    """Whether the talk after a full stop goes on with the data: digits within its first two words, a
    domain's ending within its first ten."""
    if kind in ("phone", "account", "dateOfBirth"):
        return any(number_word(w) for w in rest[:2])
    if kind == "email":
        return any(domain_end(rest, j) for j in range(min(len(rest), 10)))
    return False


def read_back(turn: Sequence[Token]) -> tuple[list[Token], bool]:
    """What the asker reads back in `turn` ("Let me read that back: 555 218 4497. Is that correct?"): the
    words after the cue and before the confirming question, or nothing when the turn reads nothing back;
    and whether the reading was certain (a reading cue, or a confirming question after it). A checking cue
    that ends its turn within SHORT_CHECK words ("So that's A I S H A?") is an uncertain reading."""
    text = [plain(w) for w in turn]
    for k in range(len(turn)):
        before = " ".join(text[max(0, k - 5):k + 1])
        reading = READING.search(before) is not None
        if reading or CHECKING.search(before):
            k += reading and k + 1 < len(turn) and text[k + 1] in BACK
            end = next((j for j in range(k + 1, len(turn)) if CONFIRMING.match(" ".join(text[j:j + 3]))), None)
            if end is None and not reading:
                short = 0 < len(turn) - k - 1 <= SHORT_CHECK and SAYING_BACK.search(before) is not None
                return (list(turn[k + 1:]), False) if short else ([], False)
            return list(turn[k + 1:min(end or len(turn), k + 1 + MAX_ANSWER_WORDS)]), True
    return [], False


Asker = Callable[[Sequence[str]], list["str | None"]]  # questions -> the kind each asks for (`QuestionReader`)


def asked_kinds(turns: Sequence[Sequence[Token]], ask: Asker | None) -> list[str | None]:
    """The kind of personal data each turn asks for: by the question patterns, else by `ask` (the last
    QUESTION_WORDS words of the turn)."""
    asked = [" ".join(plain(w) for w in turn[-QUESTION_WORDS:]) for turn in turns]
    asking = [ASKING.search(text) is not None or ASKING.search(" ".join(text.split()[:3])) is not None for text in asked]
    kinds = [next((k for k, pattern in QUESTIONS if pattern.search(text)), None) if question else None
             for text, question in zip(asked, asking)]
    if ask is not None:  # a question asks: "Sure, my passport number is ..." is no question about a passport
        unread = [i for i, kind in enumerate(kinds) if kind is None and asking[i] and not _holds_data(turns[i])]
        for i, kind in zip(unread, ask([" ".join(w.w for w in turns[i][-QUESTION_WORDS:]) for i in unread])):
            kinds[i] = kind
    return kinds


def _holds_data(turn: Sequence[Token]) -> bool:
    """Whether a turn's last words hold data themselves (digits, a domain): a request that gives data ("could
    you send it to dan at gmail dot com?") asks for none."""
    tail = turn[-QUESTION_WORDS:]
    return any(number_word(w) or any(c.isdigit() for c in w.w) or domain_end(tail, j) for j, w in enumerate(tail))


def _number_end(said: Sequence[Token]) -> int:
    """How many of an answer's words a number takes: through its last digit (or a digit heard as a word,
    "free free four zero") before more than two words that hold none."""
    holding = [k for k, w in enumerate(said) if number_word(w) or any(c.isdigit() for c in w.w) or
               plain(w) in DIGIT_HEARD | {"free", "to", "for", "oh"} and any(number_word(x) for x in said[k + 1:k + 3])]
    end = holding[0] + 1 if holding else 0
    for k in holding[1:]:
        if k - end > 2:
            break
        end = k + 1
    return end


def _answer_start(answer: Sequence[Token], kind: str) -> int | None:
    """Where the answer's data starts: past its preamble ("yes, it's"), at its first digit for a number (None:
    no digit among its first words, so no number answers)."""
    start = 0
    while start < len(answer) and plain(answer[start]) in PREAMBLE:
        start += 1
    if 0 < start < len(answer) and spelled(answer[start]) and plain(answer[start - 1]) in ("the", "a"):
        start -= 1  # the first letter of a spelling heard as a word ("it's the R I Y ...")
    if 0 < start < len(answer) and kind in NUMBERED and number_word(answer[start]) and \
            plain(answer[start - 1]) in DIGIT_HEARD:
        start -= 1  # a first digit heard as a word ("I'm 3 8 9 4 ...": "nine 3 8 9 4")
    if kind in DIGITS_ONLY:
        first = next((k for k in range(start, min(len(answer), start + FIRST_WORDS))
                      if number_word(answer[k]) or any(c.isdigit() for c in answer[k].w)), None)
        if first is None:
            return None  # "How can I help you?" after "Cobalt Mobile": no phone number answers it
        while first > 0 and (plain(answer[first - 1]) in DIGIT_HEARD or any(c.isdigit() for c in answer[first - 1].w)):
            first -= 1  # "I'm 3 8 9 4", "$2 .99": a first digit heard as a word, or written as money
        start = first
    return start


def answers(words: Sequence[Token], kinds: Sequence[str], ends: Ends = frozenset(),
            ask: Asker | None = None) -> list[DetectedClass]:
    """The answer to a question about personal data: the turn right after it, by another speaker, within
    ANSWER_MS, from its first word past the preamble ("yes, it's", "I live at") for MAX_ANSWER_WORDS or to
    the end of its sentence when other talk follows. However the recogniser heard it ("Oak Avenue" as "O Cam
    a new"), what answers "what's your address?" is one. `ask` reads the questions no pattern reads."""
    out = []
    turns = turns_of(words)
    pairs = [(q, a) for q, a in zip(turns, turns[1:]) if a[0].s - q[-1].e <= ANSWER_MS]
    for (_, answer), kind in zip(pairs, asked_kinds([q for q, _ in pairs], ask)):
        start = _answer_start(answer, kind) if kind is not None and kind in kinds else None
        if kind is None or start is None:
            continue
        stop = next((k for k in range(start + 1, len(answer)) if answer[k].s - answer[k - 1].e > PAUSE_MS), len(answer))
        said = until_new_sentence(answer[start:min(stop, start + MAX_ANSWER_WORDS)], ends, kind)
        if kind in DIGITS_ONLY:  # a number's answer ends with its last digit ("one up in 2019 I think": "2019")
            said = said[:_number_end(said)]
        if kind == "email":  # spelled letter by letter, an address takes more words: to its domain's ending
            last = next((j for j in range(min(len(answer), start + MAX_SPELLED_EMAIL) - 1, start + len(said) - 1, -1)
                         if domain_end(answer, j)), None)
            if last is not None:
                said = list(answer[start:last + 1])
        if said:
            out.append(detection(kind, [words_span(said)]))
    return out


def read_backs(words: Sequence[Token], found: Sequence[DetectedClass], kinds: Sequence[str],
               doubtful: bool = False) -> list[DetectedClass]:
    """What one speaker reads back of what the other just said ("Let me read that back: ... Is that
    correct?"), of the kind found in the turn before it, or else of the kind its own words look like; with
    `doubtful`, whatever is read back after a turn that held data, however little it looks like it ("So
    that's all I really are?" for a spelled name)."""
    out = []
    turns = turns_of(words)
    for before, turn in zip(turns, turns[1:]):
        again, certain = read_back(turn)
        if not again:
            continue
        heard = [d.label for d in found for s, e in d.segments.get(before[0].speaker, [])
                 if s < before[-1].e and e > before[0].s]
        if not certain and not (heard and (doubtful or _reads_as(again, max(heard, key=heard.count)))):
            continue  # "so that's all set": nothing of the data given is read back
        kind = max(heard, key=heard.count) if heard else looks_like(again)
        if kind in kinds:
            out.append(detection(kind, [words_span(again)]))
    return out


def _reads_as(said: Sequence[Token], kind: str) -> bool:
    """Whether words read back without a confirming question look like data of `kind`: digits for a number or
    a date, letters or capitalised words for a name, "at" and "dot" for an e-mail, capitalised words or
    numbers for an address ("So that's M A R G A R E T?", not "so let's see what we have here")."""
    if kind == "email":
        return any(plain(w) in ("at", "dot") for w in said)
    if kind == "name":
        looks = [spelled(w) or w.w[:1].isupper() for w in said]
    else:
        looks = [number_word(w) or any(c.isdigit() for c in w.w) or kind == "address" and w.w[:1].isupper()
                 for w in said]
    return sum(looks) * 2 >= len(looks)


def looks_like(said: Sequence[Token]) -> str:
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


