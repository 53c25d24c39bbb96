"""Verb-noun pairs from the spaCy parse: objects, negations, questions, times and speakers."""
from __future__ import annotations

import pytest

from speechproc.stages.analytics import verbnoun
from text_helpers import conversation, run_stage, stage_options

SETTINGS = stage_options({"conversation": {"verbNounPairsEnabled": True}}).verb_noun_pairs


def pairs(*turns: tuple[str, str]) -> dict:
    conv = conversation(*turns)
    verbnoun.run(conv, SETTINGS)
    return {speaker: [(p.verb, p.noun, p.verb_neg, p.noun_neg, p.question) for p in found]
            for speaker, found in conv.verb_noun_pairs.items()}


@pytest.mark.parametrize("text, expected", [
    ("I want to cancel my subscription.", [("cancel", "subscription", None, None, False)]),
    ("We sent the invoices yesterday.", [("send", "invoice", None, None, False)]),
    ("I didn't receive my package.", [("receive", "package", "not", None, False)]),
    ("I never got the refund.", [("get", "refund", "never", None, False)]),
    ("We have no record of the payment.", [("have", "record", None, "no", False)]),
    ("Can you check my balance?", [("check", "balance", None, None, True)]),
    ("Can you check my balance", [("check", "balance", None, None, True)]),  # no question mark from the recogniser
    ("Why did you close my account?", [("close", "account", None, None, True)]),
    ("Please update the address and the phone number.",
     [("update", "address", None, None, False), ("update", "number", None, None, False)]),
    ("It is raining. Thank you so much.", []),  # no direct object
    ("Send it to me.", []),  # a pronoun is not a noun
])
@pytest.mark.slow
def test_pairs_in_known_sentences(text, expected):
    assert pairs(("Agent", text)) == {"Agent": expected}


@pytest.mark.slow
def test_pairs_are_per_speaker_with_times_of_their_words():
    conv = conversation(("Agent", "Let me check your order."), ("Caller", "Please cancel the order."))
    verbnoun.run(conv, SETTINGS)
    agent, caller = conv.verb_noun_pairs["Agent"], conv.verb_noun_pairs["Caller"]
    assert [(p.verb, p.noun) for p in agent] == [("check", "order")]
    assert [(p.verb, p.noun) for p in caller] == [("cancel", "order")]
    words = {w.w: w for w in conv.words if w.speaker == "Caller" and w.m is None}
    assert (caller[0].s, caller[0].e) == (words["cancel"].s, words["order"].e)


def test_off_unless_asked_and_english_only():
    conv = conversation(("Agent", "I sent the invoice."))
    assert not run_stage("verbnoun", conv, {})
    assert conv.verb_noun_pairs is None
    assert run_stage("verbnoun", conv, {"speechModel": {"language": "fr-FR"},
                                        "conversation": {"verbNounPairsEnabled": True}})
    assert conv.verb_noun_pairs == {} and conv.warnings[0][0] == 10603
