"""Forms that `strict` takes wherever they are said, with no question before them: codes of letters and digits
run together, and dates said as a day of a month.

- **Letters in a row** ("S &T OS"), said alone or run together in capitals: a name spelled.
- **Codes**: a word of letters and digits run together ("D12", "Bn1", "4T", "S7K1J5"): a postcode, a unit or a
  reference heard as one word. Ordinals, times, sizes and a few common names of things ("5G", "MP3", "A4") are
  no codes.
- **Dates said as a day of a month**: an ordinal, "of", then a month or another ordinal ("the 9th of the 10th
  41", "17th of April oh five"), with the year said after it, if any. A date of birth is said this way far more
  often than anything else a strict user would keep.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from speechproc.conversation import DetectedClass, Token
from speechproc.stages.personal_data.pii_talk import turns_of
from speechproc.stages.personal_data.pii_words import (
    MONTHS,
    ORDINAL,
    detection,
    number_word,
    plain,
    spelled,
    words_span,
)

CODE = re.compile(r"^(?=[a-z0-9]*\d)(?=[a-z0-9]*[a-z])[a-z0-9]{2,8}$")
NOT_CODE = re.compile(r"^(\d+(st|nd|rd|th|am|pm|s|k|g|gb|mb|kg|km|mm|cm|ml|p|x)|[2-6]g|mp[34]|a[3-5]|covid19)$")
ABBREVIATIONS = frozenset("ok id tv pc us uk usa atm dvr pdf sms gps am pm".split())
YEAR_WORDS = 3  # words of a year said after a date, at most ("nineteen eighty-one", "oh five")


def codes(words: Sequence[Token]) -> list[DetectedClass]:
    """Every word of letters and digits run together that is no ordinal, time, size or common name of a thing."""
    out = []
    for w in words:
        text = w.w.strip(".,?!;:\"'()").lower()
        if CODE.match(text) and not NOT_CODE.match(text):
            out.append(detection("address", [words_span([w])]))
    return out


def _year_said(word: Token) -> bool:
    return number_word(word) or any(c.isdigit() for c in word.w) or plain(word) in ("oh", "o")


def day_of_month(words: Sequence[Token]) -> list[DetectedClass]:
    """Each "(the) ORDINAL of (the) MONTH-or-ORDINAL", with up to YEAR_WORDS words of a year after it, as a
    date of birth."""
    out = []
    for turn in turns_of(words):
        text = [plain(w) for w in turn]
        for k in range(len(turn) - 2):
            if not (ORDINAL.match(text[k]) and text[k + 1] == "of"):
                continue
            month = k + 3 if text[k + 2] == "the" else k + 2
            if month >= len(turn) or not (text[month] in MONTHS or ORDINAL.match(text[month])):
                continue
            start = k - 1 if k and text[k - 1] == "the" else k
            end = month + 1
            while end < min(len(turn), month + 1 + YEAR_WORDS) and _year_said(turn[end]):
                end += 1
            out.append(detection("dateOfBirth", [words_span(turn[start:end])]))
    return out


def letter_runs(words: Sequence[Token]) -> list[DetectedClass]:
    """Two or more letters in a row, said alone or run together in capitals ("S &T OS"), that are no common
    abbreviation: a name spelled."""
    out: list[DetectedClass] = []
    run: list[Token] = []
    for w in [*words, None]:
        text = w.w.strip(".,?!;:\"'()&") if w is not None else ""
        if w is not None and (spelled(w) or 1 <= len(text) <= 3 and text.isalpha() and text.isupper()) and \
                plain(w) not in ABBREVIATIONS and (not run or w.speaker == run[-1].speaker):
            run.append(w)
            continue
        if len(run) >= 2:
            out.append(detection("name", [words_span(run)]))
        run = [w] if w is not None and spelled(w) else []
    return out
