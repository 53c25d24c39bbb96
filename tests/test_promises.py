"""Promised actions: an action item the model lists stands only when the clause of the turn it comes from
promises a step after the call; what was done in the call, steps taken while the caller waits, offers on a
condition, refusals, a caller's threats to leave, acknowledgements and questions are dropped."""
from __future__ import annotations

import pytest

from speechproc.stages.call_insights.promises import promised, quoted_clauses

KEPT = [
    ("Agent", "I'll send you a new router by Friday.", "Send a new router by Friday"),
    ("Agent", "Thanks. The technician will call you an hour before arriving.", "Technician to call an hour before arriving"),
    ("Agent", "I can't change it from here, but I'll put a request in and they will email you within a day.",
     "I'll put a request in and they will email you within a day"),
    ("Agent", "Okay. I can book a reader to come back on Tuesday between nine and one.",
     "Book a reader to come back on Tuesday"),
    ("Caller", "Great, I'll email the receipt over tonight.", "Caller will email the receipt tonight"),
    ("Agent", "A refund will be issued once the parcel is back with us.", "Refund once the parcel is back"),
    ("Agent", "i'll get that sent over today", "get that sent over today"),
]

DROPPED = [
    ("Agent", "Okay, I've frozen it from today until the first of August.", "Frozen until the first of August"),
    ("Agent", "Let me take a look at that for you, one moment.", "Take a look"),
    ("Agent", "It is. I'll send a one-time code to the mobile on the account. Can you read it back?",
     "Send a one-time code to the mobile"),
    ("Agent", "If the train is cancelled again, you could claim a refund then.", "Claim a refund"),
    ("Agent", "Ring us back and we'll book an engineer.", "Book an engineer"),
    ("Agent", "I'm not able to promise any voucher.", "Promise a voucher"),
    ("Caller", "Right. Well, I'll be moving my prescriptions to another pharmacy.", "Move prescriptions to another pharmacy"),
    ("Caller", "I'll be putting this all over social media.", "Putting this on social media"),
    ("Caller", "No. Forget it, I'll live with it for now.", "Live with it"),
    ("Caller", "Okay, will do.", "Okay, will do"),
    ("Agent", "Done.", "Done"),
    ("Caller", "Will you send me a new card?", "Send a new card"),
    ("Caller", "On Saturday at the supermarket.", "On Saturday at the supermarket"),
]


@pytest.mark.parametrize("speaker,turn,text", KEPT)
def test_a_promise_of_a_step_after_the_call_stands(speaker, turn, text):
    assert promised(text, turn, speaker)


@pytest.mark.parametrize("speaker,turn,text", DROPPED)
def test_what_promises_nothing_for_after_the_call_is_dropped(speaker, turn, text):
    assert not promised(text, turn, speaker)


def test_an_item_is_judged_on_the_clause_it_comes_from_not_on_its_whole_turn():
    turn = "I've cancelled the old order. The new one will arrive on Monday."
    assert promised("The new one will arrive on Monday", turn, "Agent")
    assert not promised("Cancelled the old order", turn, "Agent")
    assert quoted_clauses("cancelled the old order", turn) == ["I've cancelled the old order."]
    # a caller's threat is no step anyone takes for the request
    assert not promised("Complain to the regulator", "I'll complain to the regulator.", "Caller")
    assert promised("Escalate to the complaints team", "I'll escalate this to our complaints team today.", "Agent")


@pytest.mark.parametrize("text,turn", [("", ""), ("x", ""), ("", "I will call you."), ("?" * 50, "?" * 50),
                                        ("will " * 5_000, "will " * 5_000), ("🙂", "🙂 will")])
def test_hostile_items_are_judged_without_error(text, turn):
    assert promised(text, turn, "Agent") in (True, False)
