"""Numbers that are personal data, for the PII detector (`stages/personal_data/pii.py`): phone, account and bank routing
numbers, PINs, driver's licence and passport numbers, found by the talk before them, and then followed
wherever the talk takes them: widened over the digits a recogniser wrote as words beside them ("six I'm
784 960"), carried on into the speaker's next turn when the other speaker only said "okay" between, and
into the correction that follows ("no, sorry, it's four one two, not four two one").
"""
from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from difflib import SequenceMatcher

from speechproc.conversation import DetectedClass, Token
from speechproc.stages.personal_data.numbers import DigitRun, digit_runs
from speechproc.stages.personal_data.pii_talk import CONFIRMING
from speechproc.stages.personal_data.pii_words import (
    SHORT_WORDS,
    STOP,
    detection,
    digits_of,
    number_word,
    plain,
    positions,
    speaker_starts,
    spelled,
    talk_before,
    words_span,
)

CONTEXT_MS = 30000  # talk this long before a number tells what the number is
ANSWER_GAP_MS = 2000  # a longer pause ends what was said after a cue
MAX_GARBLED = 2  # words among the digits after a cue that are no digits ("760 daytime 4 1 4 9")
DIGIT_SOUNDS = frozenset("to too for won ate oh o i'm do free tree".split())  # digits heard as words: "two two" as "two to"
NUMBERED = ("phone", "account", "bankRouting", "pin", "driversLicense", "passport")  # and dateOfBirth, widened too
WITH_LETTERS = frozenset(("driversLicense", "passport", "account"))  # numbers that may hold letters ("D 4419273")
CUES = (  # kind, the talk just before its digits
    ("bankRouting", re.compile(r"\b(routing|sort code|transit|aba)( number| no| code)?( is)?$")),
    ("pin", re.compile(r"\b(pin|pin number|pin code|passcode|pass code|security pin)( is)?$")),
    ("driversLicense", re.compile(r"\b(driver'?s? licen[cs]e|licen[cs]e|driver id|driving licen[cs]e)( number| no)?"
                                  r"( is)?$")),
    ("passport", re.compile(r"\bpassport( number| no)?( is)?$")),
    ("phone", re.compile(r"\b(call me( \w+)? (at|on)|reach me (at|on)|text me (at|on)|my (new |old |home |work |phone |"
                         r"cell |mobile )*number is|(phone|cell|mobile) number is|(phone|cell|mobile) is|"
                         r"(changed|new|updated) (my |the )?(phone |cell |mobile )?number,? (it's|it is|is)( now)?)$")),
    ("account", re.compile(r"\b(account|count|member(ship)?|policy|reference|customer) (number|no|id)( is)?$|"
                           r"\bthe new one is$")),
)
PHONE_TALK = re.compile(r"\b(phone|number|call|reach|cell|mobile|callback|call back|landline)\b")
ACCOUNT_TALK = re.compile(r"\b(account|count number|member|membership|policy|reference|customer|id|client)\b")
MIXED = re.compile(r"^(?=.*\d)(?=.*[a-z])[a-z\d-]{4,}$")
CORRECTING = re.compile(r"\b(no|sorry|not|actually|i mean|wrong|mistake|new one|old one|correct(ion)?)\b")
FOLLOW_MS = 20000  # a correction or the rest of a number comes within this long
MAX_PARTS = 8  # turns a number is carried on into, at most (a call of nothing but numbers is no one number)
BETWEEN_WORDS = 4  # what the other speaker may say between two parts of a number ("okay", "uh huh")


def _numberish(words: Sequence[Token], k: int, letters: bool) -> bool:
    """A digit or number word, or a word holding a digit ("D31583"); a word a recogniser made of a digit when
    a digit follows it ("free 227454"); with `letters` a letter said on its own ("D 4 4 1 9")."""
    if number_word(words[k]) or any(c.isdigit() for c in words[k].w) or (letters and spelled(words[k])):
        return True  # "i3", ",093", "$1": digits the recogniser wrote with something else
    return plain(words[k]) in DIGIT_SOUNDS and k + 1 < len(words) and number_word(words[k + 1])


def _cued(words: Sequence[Token], kinds: Sequence[str]) -> list[DetectedClass]:
    """The digits said after a cue ("my routing number is", "call me back at"), with the words a recogniser
    makes of some digits and up to MAX_GARBLED words it garbled among them; a number that may hold letters
    may start with a letter heard as a word ("before" for "B four")."""
    out = []
    for i in range(1, len(words)):
        before = " ".join(plain(w) for w in words[max(0, i - 5):i] if w.speaker == words[i].speaker)
        kind = next((k for k, cue in CUES if k in kinds and cue.search(before)), None)
        if kind is None or any(cue.search(f"{before} {plain(words[i])}") for k, cue in CUES if k == kind):
            continue  # "my routing" matched before its "number is": the digits come after them
        letters = kind in WITH_LETTERS
        if not (_numberish(words, i, letters) or letters and _letter_heard(words, i)):
            continue  # "my passport expires in 2027", "routing number or the 800 number"
        end, garbled = i + 1, 0
        while end < len(words) and words[end].speaker == words[i].speaker and end - i < 20 and \
                words[end].s - words[end - 1].e < ANSWER_GAP_MS:
            if not _numberish(words, end, letters):
                ahead = any(number_word(w) for w in words[end + 1:end + 1 + MAX_GARBLED - garbled])
                if garbled >= MAX_GARBLED or not ahead:
                    break
                garbled += 1
            end += 1
        while end > i and not _numberish(words, end - 1, letters):
            end -= 1
        if _money(words, i, end):
            continue  # "the new one is 300 dollars"
        if sum(number_word(w) for w in words[i:end]) >= 3 or sum(c.isdigit() for w in words[i:end] for c in w.w) >= 3:
            out.append(detection(kind, [words_span(words[i:end])]))
    return out


def _letter_heard(words: Sequence[Token], i: int) -> bool:
    """A number's first letter heard as a short word, a digit after it ("before zero nine": "B four ...")."""
    text = plain(words[i])
    return (text.isalpha() and len(text) <= 6 and text not in SHORT_WORDS | STOP and i + 1 < len(words)
            and number_word(words[i + 1]))


MONEY = frozenset("dollar dollars cents pounds euros bucks quid".split())


def _money(words: Sequence[Token], start: int, end: int) -> bool:
    """Whether words[start:end] is an amount ("$300", "300 dollars")."""
    return words[start].w.lstrip()[:1] in "$£€" and words[start].w.strip() != "" or \
        end < len(words) and plain(words[end]) in MONEY


def _by_talk(words: Sequence[Token], runs: Sequence[DigitRun], kinds: Sequence[str]) -> list[DetectedClass]:
    """Runs of 10-11 digits (phone numbers), 7-9 after phone talk, 4 or more after account talk, and words
    mixing letters and digits after account talk."""
    out = []
    position = {id(w): i for i, w in enumerate(words)}
    for run in runs:
        i = position[id(run.words[0])]
        digits = len(run.digits)
        if "phone" in kinds and (10 <= digits <= 11 or 7 <= digits <= 11 and talk_before(words, i, PHONE_TALK, CONTEXT_MS)):
            out.append(detection("phone", [(run.speaker, run.s, run.e)]))
        elif "account" in kinds and digits >= 4 and talk_before(words, i, ACCOUNT_TALK, CONTEXT_MS):
            out.append(detection("account", [(run.speaker, run.s, run.e)]))
    if "account" in kinds:
        out += [detection("account", [words_span([w])]) for i, w in enumerate(words)
                if MIXED.match(plain(w)) and talk_before(words, i, ACCOUNT_TALK, CONTEXT_MS)]
    return out


def numbers(words: Sequence[Token], kinds: Sequence[str], known: Sequence[DetectedClass] = ()) -> list[DetectedClass]:
    """Every number of `kinds` said after its cue, or else after its talk: a number that a cue or `known`
    (the answers to questions) already tells the kind of is not taken for a phone or account number by the
    talk around it."""
    cued = _cued(words, kinds)
    told = [span for one in [*cued, *known] for spans in one.segments.values() for span in spans]
    return cued + [one for one in _by_talk(words, digit_runs(words), kinds)
                   if not any(s < e0 and e > s0 for spans in one.segments.values() for s, e in spans for s0, e0 in told)]


def _widened(words: Sequence[Token], first: int, last: int, letters: bool) -> tuple[int, int]:
    near = 1500
    while first > 0 and words[first - 1].speaker == words[first].speaker and \
            words[first].s - words[first - 1].e < near and _numberish(words, first - 1, letters):
        first -= 1
    while last + 1 < len(words) and words[last + 1].speaker == words[last].speaker and \
            words[last + 1].s - words[last].e < near and (_numberish(words, last + 1, letters) or
                                                          plain(words[last + 1]) in DIGIT_SOUNDS and
                                                          last + 2 < len(words) and _numberish(words, last + 2, letters)):
        last += 1
    return first, last


def _next_part(words: Sequence[Token], last: int) -> int | None:
    """Where the speaker of words[last] goes on with more of a number in their next turn (its first digit),
    when words[last] ends their turn and the other speaker said at most BETWEEN_WORDS words between ("okay",
    "uh huh")."""
    k = last + 1
    while k < len(words) and words[k].speaker != words[last].speaker:
        k += 1
    between = k - last - 1
    if k >= len(words) or not 0 < between <= BETWEEN_WORDS or words[k].s - words[last].e > FOLLOW_MS:
        return None
    return next((j for j in range(k, min(len(words), k + 2)) if number_word(words[j])), None)


def _confirming_after(words: Sequence[Token], last: int) -> bool:
    """Whether a confirming question follows words[last] in its speaker's turn ("... is that correct?")."""
    after = [plain(w) for w in words[last + 1:last + 5] if w.speaker == words[last].speaker]
    return CONFIRMING.match(" ".join(after)) is not None


def followed(words: Sequence[Token], found: Sequence[DetectedClass]) -> list[DetectedClass]:
    """Numbers found, widened over the digits beside them, carried into the speaker's next turn when it goes on
    with digits, and into a correction (after "no", "sorry", "not", ...) or a read-back by the other speaker
    (digits alike) within FOLLOW_MS after them, each of the found number's kind."""
    out = []
    runs = digit_runs(words)
    position = {id(w): i for i, w in enumerate(words)}
    starts = speaker_starts(words)
    for one in found:
        if one.label not in NUMBERED and one.label != "dateOfBirth":
            continue
        letters = one.label in WITH_LETTERS
        for first, last in positions(words, [one], starts=starts):
            first, last = _widened(words, first, last, letters)
            out.append(detection(one.label, [words_span(words[first:last + 1])]))
            part = _next_part(words, last)
            parts = 0
            while part is not None and parts < MAX_PARTS:  # "five five five," "okay" "two one eight," ...
                start, end = _widened(words, part, part, letters)
                out.append(detection(one.label, [words_span(words[start:end + 1])]))
                part = _next_part(words, end) if end > last else None
                last = end
                parts += 1
            digits = "".join(c for w in words[first:last + 1] for c in digits_of(w))
            start_at = bisect.bisect_right(runs, words[last].e, key=lambda r: r.s)
            for run in runs[start_at:]:  # a correction, or the other speaker reading it back
                if run.s - words[last].e > FOLLOW_MS:
                    break
                if len(run.digits) >= 3 and (
                        talk_before(words, position[id(run.words[0])], CORRECTING, 4000) or
                        run.speaker != words[last].speaker and (SequenceMatcher(None, run.digits, digits).ratio() >= 0.6
                                                                or _confirming_after(words, position[id(run.words[-1])]))):
                    first, end = _widened(words, position[id(run.words[0])], position[id(run.words[-1])], letters)
                    out.append(detection(one.label, [words_span(words[first:end + 1])]))
    return out
