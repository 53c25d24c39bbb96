"""Spoken digit runs in a transcript: "four five three nine", "4539, 1488", "oh four", "double seven".

A run is one speaker's consecutive number words (digits as words or numerals; "oh" for zero;
"double"/"triple"; teens and tens for two digits) with pauses under RUN_GAP_MS between them; fillers
("uh", "dash") are skipped. Amounts of money ("$40", "forty dollars", "two hundred") are not runs.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from speechproc.conversation import Token

RUN_GAP_MS = 3000
DIGITS = {"zero": "0", "oh": "0", "o": "0", "nought": "0", "one": "1", "two": "2", "three": "3", "four": "4",
          "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9"}
TEENS = {"ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13", "fourteen": "14", "fifteen": "15",
         "sixteen": "16", "seventeen": "17", "eighteen": "18", "nineteen": "19"}
TENS = {"twenty": "2", "thirty": "3", "forty": "4", "fifty": "5", "sixty": "6", "seventy": "7", "eighty": "8",
        "ninety": "9"}
REPEATS = {"double": 2, "triple": 3}
FILLERS = frozenset({"uh", "um", "er", "dash", "hyphen", "space"})
MONEY = frozenset({"dollar", "dollars", "cent", "cents", "buck", "bucks", "euro", "euros", "pound", "pounds",
                   "hundred", "thousand", "million", "billion", "percent", "grand"})
_NUMERAL = re.compile(r"^[$£€]?[\d][\d,.\-/]*$")


@dataclass
class DigitRun:
    """Digits said in a row by one speaker, and the words that said them."""

    speaker: str
    digits: str
    words: list[Token]

    @property
    def s(self) -> int:
        return self.words[0].s

    @property
    def e(self) -> int:
        return self.words[-1].e


def _plain(word: Token) -> str:
    return word.w.lower().strip(".,?!;:\"'()")


def _value(words: Sequence[Token], i: int) -> tuple[str | None, int]:
    """The digits said by words[i] (and how many words that took), or (None, 0) if it says none."""
    text = _plain(words[i])
    nxt = _plain(words[i + 1]) if i + 1 < len(words) else ""
    if _NUMERAL.match(words[i].w.strip(".,?!;:")):
        return re.sub(r"\D", "", text), 1
    if text in DIGITS:
        return DIGITS[text], 1
    if text in TEENS:
        return TEENS[text], 1
    if text in TENS:
        return (TENS[text] + DIGITS[nxt], 2) if nxt in DIGITS and nxt not in ("oh", "o", "zero") \
            else (TENS[text] + "0", 1)
    if text in REPEATS and nxt in DIGITS:
        return DIGITS[nxt] * REPEATS[text], 2
    return None, 0


def _is_money(words: Sequence[Token], i: int) -> bool:
    return words[i].w.lstrip()[:1] in "$£€" or (i + 1 < len(words) and _plain(words[i + 1]) in MONEY)


def runs_of(words: Sequence[Token], speaker: str) -> list[DigitRun]:
    """The digit runs in one speaker's words (in time order)."""
    out: list[DigitRun] = []
    current: DigitRun | None = None
    money = False
    i = 0
    while i < len(words):
        digits, used = _value(words, i)
        if digits is None and current is not None and _plain(words[i]) in FILLERS:
            i += 1
            continue
        if digits is None or (current is not None and words[i].s - current.e > RUN_GAP_MS):
            if current is not None and not money:
                out.append(current)
            current, money = None, False
            if digits is None:
                i += 1
                continue
        if current is None:
            current = DigitRun(speaker, "", [])
        current.digits += digits
        current.words += list(words[i: i + used])
        money = money or _is_money(words, i + used - 1)
        i += used
    if current is not None and not money:
        out.append(current)
    return [r for r in out if r.digits]


def digit_runs(words: Iterable[Token]) -> list[DigitRun]:
    """Every speaker's digit runs, in time order."""
    by_speaker: dict[str, list[Token]] = {}
    for w in words:
        if w.is_word:
            by_speaker.setdefault(w.speaker, []).append(w)
    runs = [r for speaker, ws in by_speaker.items() for r in runs_of(sorted(ws, key=lambda w: w.s), speaker)]
    return sorted(runs, key=lambda r: r.s)


def luhn(digits: str) -> bool:
    """The Luhn check that every payment card number passes."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return bool(digits) and total % 10 == 0
