"""Forms strict mode takes wherever they are said (`pii_strict_forms`), on known words: no model."""
from __future__ import annotations

import pytest

from speechproc.stages.personal_data.pii_strict_forms import codes, day_of_month
from test_pii import said


def words_of(detections, words) -> list[str]:
    """The words each detection covers, joined."""
    out = []
    for one in detections:
        for speaker, spans in one.segments.items():
            for s, e in spans:
                out.append(" ".join(w.w for w in words if w.speaker == speaker and w.s >= s and w.e <= e))
    return out


@pytest.mark.parametrize("text, wanted", [
    ("D12 X7 0A is on the letter", ["D12", "X7", "0A"]),
    ("it's Bn1, Bn1 the same", ["Bn1,", "Bn1"]),
    ("postcode S7K1J5 thanks", ["S7K1J5"]),
    ("the 5G plan came at 4pm on the 2nd with an MP3 and a A4 sheet, 10gb a month", []),
    ("flat 3b please", ["3b"]),
])
def test_codes_are_words_of_letters_and_digits_run_together(text, wanted):
    words = said(("Caller", text))
    found = codes(words)
    assert words_of(found, words) == wanted
    assert {one.label for one in found} <= {"address"}


@pytest.mark.parametrize("text, wanted", [
    ("she was the 9th of the 10th 41 bless her", ["the 9th of the 10th 41"]),
    ("17th of April oh five", ["17th of April oh five"]),
    ("born the third of the ninth eighty eight right", ["the third of the ninth eighty eight"]),
    ("the fourteenth of February nineteen seventy nine and then", ["the fourteenth of February nineteen seventy nine"]),
    ("the first of many calls", []),
    ("the 4th of those", []),
])
def test_a_day_of_a_month_is_taken_with_its_year(text, wanted):
    words = said(("Caller", text))
    found = day_of_month(words)
    assert words_of(found, words) == wanted
    assert {one.label for one in found} <= {"dateOfBirth"}


def test_a_date_is_read_within_one_turn():
    words = said(("Agent", "the 9th of"), ("Caller", "March"))
    assert day_of_month(words) == []
