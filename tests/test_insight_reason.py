"""The model's reason kept to what the call says (`stages/call_insights/reason.py`), on known text."""
from __future__ import annotations

import pytest

from speechproc.stages.call_insights.grounding import Line
from speechproc.stages.call_insights.reason import evidence_line, grounded_part, kept_reason

SAID = ("my passport was lost and i need it replaced it was issued in abuja "
        "my carpet shows browning and shrinkage since the clean ethan moore has a lunch account")
LINES = [Line(1, "Agent", 0, 1, "Good morning, passport office.", False),
         Line(2, "Caller", 1, 2, "My carpet shows browning and shrinkage since the clean.", False),
         Line(3, "Caller", 2, 3, "", True)]  # a spoken instruction: no words the model read


@pytest.mark.parametrize("given,kept", [
    ("The caller lost their passport, issued in Abuja in 2020 and valid until 2030.",
     "The caller lost their passport, issued in Abuja"),
    ("Refund Ethan Moore's lunch account", "Refund Ethan"),  # a name said, but not with "'s"
    ("The caller's carpet shows browning from Saltm", "The caller's carpet shows browning"),  # cut at the limit
    ("The carpet shows browning and shrinkage.", "The carpet shows browning and shrinkage."),  # all said: whole
    ("in Texas", ""),
    ("Slow speed with the Wi", "Slow speed"),  # a word cut off there, not the "wi" of "with"
    ("Tyres for the car, two thousand and fifteen model", "Tyres for the car"),  # number words
    ("Charged twenty-two pounds on the clean", "Charged"),  # "twenty two", as the check joins them
])
def test_a_reason_keeps_its_words_before_the_first_name_or_number_the_call_does_not_hold(given, kept):
    assert grounded_part(given, SAID) == kept
    assert given.startswith(kept)  # nothing is added to the model's words


def test_a_reason_ending_in_another_script_than_the_calls_is_cut_before_it():
    # the bundled model at times ends an English sentence in Chinese words, written on to the last English one
    assert grounded_part("The carpet shows browning since the客服.", SAID) == "The carpet shows browning since"
    assert grounded_part("The passport was lost due to the home住址, and it was issued in Abuja", SAID) == \
        "The passport was lost due to the home"
    assert grounded_part("Lost 护照", SAID) == "Lost"
    assert grounded_part("Лишился паспорта", SAID) == ""  # nothing of it is in the call's letters


def test_a_call_written_in_another_script_grounds_answers_in_it():
    said = "我的护照丢了 我需要补办"  # a call in Chinese: its letters are the call's own
    assert grounded_part("客户的护照丢了", said) == "客户的护照丢了"
    assert grounded_part("Le passeport a été perdu à Abuja", SAID) == "Le passeport a été perdu à Abuja"


def test_a_reason_holding_a_date_the_call_holds_is_kept_whole_and_one_it_does_not_is_cut_before_it():
    said = "we have the 18th free for the clean at 10am"
    assert grounded_part("The caller booked the 18th for a clean at 10am", said) == \
        "The caller booked the 18th for a clean at 10am"
    assert grounded_part("The caller booked the 19th for a clean", said) == "The caller booked"


def test_the_evidence_is_the_turn_with_words_that_shares_most_words_with_the_reason():
    assert evidence_line("Browning and shrinkage after the clean", LINES) is LINES[1]
    assert evidence_line("The caller is unhappy", LINES) is None  # shares no two words with any turn
    assert evidence_line("anything", []) is None


def test_a_reason_is_kept_when_it_is_long_enough_and_rests_on_a_turn():
    assert kept_reason("The carpet shows browning and shrinkage.", SAID, None, LINES) == \
        "The carpet shows browning and shrinkage."  # the named turn was the instruction: the words find turn 2
    assert kept_reason("The caller is unhappy with everything", SAID, None, LINES) is None
    assert kept_reason("The caller is unhappy with everything", SAID, LINES[1], LINES) == \
        "The caller is unhappy with everything"  # the turn it named holds words the model read
    assert kept_reason("Lost in Texas", SAID, LINES[0], LINES) is None  # one word left: too little
    assert kept_reason("The caller called to report a 250 pound charge", SAID, LINES[0], LINES) is None
    assert kept_reason("Lost passport in Texas", SAID, LINES[0], LINES) == "Lost passport"
    assert kept_reason("Passport lost", SAID, LINES[0], LINES) == "Passport lost"  # short, but whole
    assert kept_reason("   ", SAID, LINES[0], LINES) is None


@pytest.mark.parametrize("given", ["", "2020", "'s", "Saltm Saltm Saltm", "a" * 5000, "((((", "\u0000 Texas 9"])
def test_hostile_reasons_give_a_prefix_of_themselves_or_nothing(given):
    kept = kept_reason(given, SAID, LINES[1], LINES)
    assert kept is None or given.strip().startswith(kept)
