"""The words of personal data as recognisers write them, for the PII detector (`stages/personal_data/pii.py`) and the
conversation around it (`stages/personal_data/pii_talk.py`): number words, months, street words, domain endings, and how
a word or a stretch of words becomes a detection."""
from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from speechproc.conversation import DetectedClass, Token

SHORT_WORDS = frozenset("to at on in is it of or me my we us so no do go be by he an as if up am".split())
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
COM_HEARD = frozenset("come calm comb cam comm".split())  # "dot com" as a recogniser may write it
DOMAIN_ENDS = frozenset("com net org edu gov io co uk ca de info biz".split())  # spoken: not "me", "us"
DATE_JOINERS = frozenset("of the slash dash".split())  # inside a date: "22 slash 01 slash 1992"
DATE_DIGITS = re.compile(r"^\d{1,4}([/.-]\d{1,2}([/.-]\d{2,4})?)?$")
STOP = frozenset("and or but so the a an from at in on with calling here please thank thanks yes no how what when "
                 "where why who can could would is are do does did hi hello hey sorry okay ok also anyway".split())

Span = tuple[int, int]
Ends = frozenset[tuple[str, int]]  # (speaker, end time) of each word that ends a sentence


def plain(word: Token) -> str:
    """The word in lower case, without the punctuation around it."""
    return word.w.lower().strip(".,?!;:\"'()")


# words that start sentences, never a name however capitalised ("Thank you. Have a nice day.")
SENTENCE_STARTS = frozenset("your my this that these those let have has now one nobody nothing bye goodbye hello hi good "
                            "great sure well so please sorry yes no okay perfect right alright fine just there here "
                            "what when where why how who which".split())
WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday today tomorrow".split())


def capitalised(word: Token) -> bool:
    """A capitalised word that may be part of a name (not a month or a day: "it's Friday")."""
    text = word.w.strip(".,?!;:\"'()")
    return bool(text) and text[0].isupper() and plain(word) not in STOP | MONTHS | WEEKDAYS


def talk_before(words: Sequence[Token], i: int, pattern: re.Pattern, within_ms: int) -> bool:
    """Whether talk matching `pattern` was said (by anyone) within `within_ms` before words[i]."""
    text, j = "", i
    while j > 0 and words[i].s - words[j - 1].s <= within_ms:
        j -= 1
    text = " ".join(plain(w) for w in words[j:i + 1])
    return pattern.search(text) is not None


def detection(kind: str, spans: Sequence[tuple[str, int, int]]) -> DetectedClass:
    """A detection of `kind` over (speaker, start ms, end ms) spans."""
    segments: dict[str, list[Span]] = {}
    for speaker, s, e in spans:
        segments.setdefault(speaker, []).append((s, e))
    return DetectedClass(kind, segments)


def words_span(found: Sequence[Token]) -> tuple[str, int, int]:
    """(speaker, start, end) of a stretch of one speaker's words."""
    return found[0].speaker, found[0].s, found[-1].e


def spelled(word: Token) -> bool:
    """A letter said on its own (not "a" or "I")."""
    letters = plain(word)
    return len(letters) == 1 and letters.isalpha() and letters not in ("a", "i")


def number_word(word: Token) -> bool:
    """Digits ("4,321") or a number word ("four", "hundred")."""
    text = plain(word).replace(",", "")
    return text.isdigit() or text in NUMBER_WORDS


def domain_end(words: Sequence[Token], j: int) -> bool:
    """Whether words[j] ends a domain: "com" after "dot", or a written ".com", "gmail.com"."""
    raw = words[j].w.lower().rstrip(",?!;:\"')")
    if re.search(r"\.(com|net|org|edu|gov|io|co|uk|us|ca|de|info|biz|me)$", raw):
        return True
    return (plain(words[j]) in DOMAIN_ENDS or plain(words[j]) in COM_HEARD) and j > 0 and \
        plain(words[j - 1]) in ("dot", "not")



Starts = dict[str, list[tuple[int, int]]]  # speaker -> (start ms, position in the words) of each of their words


def speaker_starts(words: Sequence[Token]) -> Starts:
    """Each speaker's words by start time, with their positions in `words` (in time order)."""
    starts: Starts = {}
    for k, w in enumerate(words):
        starts.setdefault(w.speaker, []).append((w.s, k))
    return starts


def positions(words: Sequence[Token], found: Sequence[DetectedClass], label: str | None = None,
              starts: Starts | None = None) -> list[tuple[int, int]]:
    """(first, last) position in `words` (in time order) of the words of each span of each detection (of
    `label`, when given) that holds any word; `starts` (`speaker_starts(words)`) when it is at hand."""
    starts = speaker_starts(words) if starts is None else starts
    out = []
    for one in found:
        if label is not None and one.label != label:
            continue
        for speaker, spans in one.segments.items():
            mine = starts.get(speaker, [])
            for s, e in spans:
                # a word overlaps [s, e] when it starts before e and ends after s (a word no longer than
                # MAX_WORD_MS starts at most that long before s)
                inside = [k for _, k in mine[bisect.bisect_left(mine, (s - MAX_WORD_MS, -1)):
                                             bisect.bisect_right(mine, (e, len(words)))]
                          if words[k].s < e and words[k].e > s or words[k].s == words[k].e and s <= words[k].s <= e]
                if inside:
                    out.append((inside[0], inside[-1]))
    return out


MAX_WORD_MS = 10000  # no recognised word lasts longer


DIGIT_NAMES = "zero one two three four five six seven eight nine".split()


def digits_of(word: Token) -> str:
    """The digits a word says: those written in it, or the one a digit's name says ("four": "4")."""
    text = plain(word)
    return "".join(c for c in text if c.isdigit()) or (str(DIGIT_NAMES.index(text)) if text in DIGIT_NAMES else "")
