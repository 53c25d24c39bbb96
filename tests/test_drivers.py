"""Call drivers (`store.collection.drivers`): reasons reduced to their gist, placed with the caller's opening
words, grouped by average-linkage clustering cut at DRIVER_SIMILARITY, each driver named by its most typical
reason, with its outcomes."""
from __future__ import annotations

import re

import numpy as np
import pytest

from speechproc.store.collection import drivers
from text_helpers import HashEncoder, WordsEncoder


def unit_groups(within: float, across: float) -> np.ndarray:
    """Three unit vectors around each of two directions: cosine `within` inside a group (about), `across`
    between the two directions."""
    a = np.array([1.0, 0.0, 0.0])
    b = np.array([across, np.sqrt(1 - across**2), 0.0])
    spread = np.sqrt(max(0.0, 1 - within)) / 2
    rows = []
    for centre in (a, b):
        for k in (-1, 0, 1):
            v = centre + np.array([0.0, 0.0, k * spread])
            rows.append(v / np.linalg.norm(v))
    return np.array(rows, dtype=np.float32)


def test_reasons_of_two_kinds_fall_apart_and_alike_ones_together_at_the_line():
    assert drivers.clusters(unit_groups(0.95, 0.05)) == [[0, 1, 2], [3, 4, 5]]
    # as alike as the line allows: one driver; a stricter line keeps them apart
    assert drivers.clusters(unit_groups(0.95, drivers.DRIVER_SIMILARITY + 0.1)) == [[0, 1, 2, 3, 4, 5]]
    assert drivers.clusters(unit_groups(0.95, drivers.DRIVER_SIMILARITY + 0.1),
                            similarity=drivers.DRIVER_SIMILARITY + 0.2) == [[0, 1, 2], [3, 4, 5]]


def test_no_reason_or_one_reason_is_no_group_or_one():
    assert drivers.clusters(np.zeros((0, 3), dtype=np.float32)) == []
    assert drivers.clusters(np.eye(3, dtype=np.float32)[:1]) == [[0]]


@pytest.mark.parametrize("reason, gist", [
    ("The caller wanted to get a refund for a double charge, and the agent issued it.", "get a refund for a double charge"),
    ("Customer reported that the boiler is leaking", "the boiler is leaking"),
    ("Boiler leaking", "Boiler leaking"),
])
def test_a_reasons_gist_is_what_was_wanted_without_the_caller_or_the_agent(reason, gist):
    assert drivers.gist(reason) == gist


@pytest.mark.parametrize("reason", ["The caller wanted to.", "  ", ", and the agent", "🙂"])
def test_a_reason_with_nothing_left_keeps_some_text(reason):
    assert drivers.gist(reason)


def test_items_without_a_reason_or_with_odd_insights_are_left_out():
    items = [{"mediaId": "a", "insights": {"reason": " refund please ", "outcome": "resolved"}},
             {"mediaId": "b", "insights": {"reason": "boiler", "outcome": "maybe"}},
             {"mediaId": "c", "insights": {"reason": "   "}}, {"mediaId": "d", "insights": "text"},
             {"mediaId": "e"}, {"mediaId": "f", "insights": {"reason": 5}}]
    assert drivers.of_items(items) == [drivers.Reasoned("a", "refund please", "resolved"),
                                       drivers.Reasoned("b", "boiler", None)]


def v3_words(*turns: tuple[str, str]) -> list[dict]:
    """A transcript's v3 words: a turn marker per turn, then its words and punctuation marks."""
    words: list[dict] = []
    for speaker, text in turns:
        words.append({"p": len(words), "c": 1.0, "s": 0, "e": 0, "m": "turn", "w": speaker})
        for piece in re.findall(r"[\w']+|[.,?!]", text):
            mark = {"m": "punc"} if piece in ".,?!" else {}
            words.append({"p": len(words), "c": 1.0, "s": 0, "e": 0, **mark, "w": piece})
    return words


def test_a_calls_turns_are_read_back_from_its_transcript_words():
    words = v3_words(("Agent", "Hello, Acme."), ("Caller", "Hi, my boiler leaks!"), ("Agent", "Sorry."))
    words[3:3] = [{"w": 5}, {"m": "punc"}, "junk", {"m": "turn|punc", "w": 7}]  # malformed: skipped
    assert drivers.turns_of({"transcript": {"words": words}}) == [
        ("Agent", "Hello, Acme."), ("Caller", "Hi, my boiler leaks!"), ("Agent", "Sorry.")]
    assert drivers.turns_of({"transcript": {"words": [{"w": "no", "s": 0}, {"w": "turns"}]}}) == [("", "no turns")]
    for odd in ({}, {"transcript": "text"}, {"transcript": {"words": None}}, {"transcript": {"words": [1, None]}}):
        assert drivers.turns_of(odd) == []


@pytest.mark.parametrize("turns, opening", [
    ([("Agent", "Acme, hello."), ("Caller", "My boiler leaks."), ("Agent", "Oh no."), ("Caller", "Since Monday."),
      ("Caller", "Later words.")], "My boiler leaks. Since Monday."),  # the caller's words in the first four turns
    ([("Speaker 1", "Acme, hello."), ("Speaker 2", "My boiler leaks."), ("Speaker 1", "Oh no.")],
     "My boiler leaks."),  # no speaker named Caller: all but who answered
    ([("Speaker 1", "Hi, it's Ann, my boiler leaks, ring me back.")], "Hi, it's Ann, my boiler leaks, ring me back."),
    ([("Agent", "Acme.")] * 4 + [("Caller", "Late.")], ""),  # the caller speaks only after the first turns
    ([], "")])
def test_the_callers_opening_is_their_words_in_the_first_turns(turns, opening):
    assert drivers.caller_opening(turns) == opening


def test_the_callers_opening_is_cut_to_its_most_characters():
    said = drivers.caller_opening([("Agent", "Hello."), ("Caller", "word " * 200)])
    assert len(said) <= drivers.OPENING_CHARS and said.startswith("word word")


def test_items_carry_their_callers_opening():
    item = {"mediaId": "a", "insights": {"reason": "a leak"},
            "transcript": {"words": v3_words(("Agent", "Acme."), ("Caller", "My boiler leaks."))}}
    assert drivers.of_items([item]) == [drivers.Reasoned("a", "a leak", None, "My boiler leaks.")]


def test_a_call_is_placed_by_its_reason_and_its_callers_opening(monkeypatch):
    monkeypatch.setattr(drivers, "load_sentence_encoder", lambda name: HashEncoder())
    vague = ["I need some help", "a question please", "calling about something", "just ringing today",
             "could you assist", "it is urgent"]  # reasons that say little, alike in nothing
    openings = ["my boiler is leaking water", "the boiler leaking water again", "boiler water leaking",
                "refund the double charge on my card", "a double charge refund on the card", "card charge refund"]
    calls = [drivers.Reasoned(f"m{k}", reason, None, opening) for k, (reason, opening) in enumerate(zip(vague, openings))]
    vectors = drivers.call_vectors(calls)
    reasons = drivers.reason_vectors(vague)
    expected = drivers.unit_rows(reasons + drivers.unit_rows(HashEncoder().encode(openings)))
    assert np.allclose(vectors, expected) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert drivers.clusters(vectors) == [[0, 1, 2], [3, 4, 5]]
    unknown = [drivers.Reasoned(c.media_id, c.reason, None) for c in calls]  # no opening: the reason alone
    assert np.allclose(drivers.call_vectors(unknown), reasons)
    assert drivers.clusters(drivers.call_vectors(unknown)) != [[0, 1, 2], [3, 4, 5]]


REASONS = [("r1", "The caller wanted a refund for a double charge on their card", "resolved"),
           ("b1", "The caller's boiler is leaking water in the kitchen", "followUp"),
           ("r2", "The caller wanted a refund for a charge taken twice from their card", "resolved"),
           ("b2", "The caller reported the boiler leaking water again", "followUp"),
           ("r3", "A refund for a card charge taken twice", None),
           ("b3", "Boiler leaking water in the kitchen, third time", "unresolved")]


def test_drivers_name_each_group_by_its_most_typical_reason_with_its_outcomes(monkeypatch):
    monkeypatch.setattr(drivers, "load_sentence_encoder", lambda name: WordsEncoder())
    found = drivers.drivers([drivers.Reasoned(*r) for r in REASONS])
    assert found["calls"] == 6 and "grouped" not in found
    groups = [sorted(e["mediaId"] for e in d["examples"]) for d in found["drivers"]]
    assert groups == [["r1", "r2", "r3"], ["b1", "b2", "b3"]]
    refunds, boilers = found["drivers"]
    assert refunds["calls"] == 3 and refunds["share"] == 0.5
    assert refunds["outcomes"] == {"resolved": 1.0, "unresolved": 0.0, "followUp": 0.0}  # of the two known
    assert boilers["outcomes"] == {"resolved": 0.0, "unresolved": 0.333, "followUp": 0.667}
    assert refunds["driver"] in {r for _, r, _ in REASONS}


def test_beyond_the_most_grouped_an_even_sample_is_grouped_and_said(monkeypatch):
    monkeypatch.setattr(drivers, "load_sentence_encoder", lambda name: WordsEncoder())
    monkeypatch.setattr(drivers, "MAX_GROUPED", 10)
    calls = [drivers.Reasoned(f"m{k}", "refund for a double charge" if k % 2 else "boiler leaking", None)
             for k in range(25)]
    found = drivers.drivers(calls)
    assert found["calls"] == 25 and found["grouped"] == 10
    assert sum(d["calls"] for d in found["drivers"]) == 10 and len(found["drivers"]) == 2


@pytest.mark.slow
def test_the_bundled_encoder_keeps_refunds_and_boilers_apart():
    found = drivers.drivers([drivers.Reasoned(*r) for r in REASONS])
    groups = sorted(sorted(e["mediaId"] for e in d["examples"]) for d in found["drivers"])
    assert groups == [["b1", "b2", "b3"], ["r1", "r2", "r3"]]
