"""Transcript building: punctuation tokens, turns, turn markers, positions, voice activity."""
from __future__ import annotations

import pytest

from speechproc.conversation import Conversation, RecognizedWord, Token
from speechproc.stages.recognition import punctuation, turns


def rw(text: str, s: int, e: int, speaker: str = "Agent", prob: float = 0.9) -> RecognizedWord:
    return RecognizedWord(text, s, e, prob, speaker)


@pytest.mark.parametrize("text, advanced, expected", [
    ("you.", False, ("you", ".")),
    ("today?", False, ("today", ".")),
    ("today?", True, ("today", "?")),
    ("John,", False, ("John", None)),
    ("John,", True, ("John", ",")),
    ("wow!", True, ("wow", ".")),
    ('"quoted."', True, ("quoted", ".")),
    ("$40.", True, ("$40", ".")),
    ("3.5", True, ("3.5", None)),
    ("I'm", True, ("I'm", None)),
    ("Mr.", True, ("Mr.", None)),
    ("U.S.", True, ("U.S.", None)),
    ("U.S.,", True, ("U.S.", ",")),
    ("...", True, ("", ".")),
    ("wait;", True, ("wait", ",")),
])
def test_split_word(text, advanced, expected):
    assert punctuation.split_word(rw(text, 0, 100), advanced) == expected


def test_punctuation_tokens_sit_at_the_end_of_the_word_before_with_zero_confidence():
    toks = punctuation.tokens([rw("Hello,", 0, 400), rw("world.", 500, 900)], advanced=True)
    assert [(t.w, t.m, t.s, t.e, t.c) for t in toks] == [
        ("Hello", None, 0, 400, 0.9), (",", "punc", 400, 400, 0.0),
        ("world", None, 500, 900, 0.9), (".", "punc", 900, 900, 0.0)]


def test_default_mode_keeps_only_sentence_periods():
    toks = punctuation.tokens([rw("Hello,", 0, 400), rw("how?", 500, 900)], advanced=False)
    assert [t.w for t in toks] == ["Hello", "how", "."]


def test_leading_punctuation_without_a_word_before_is_dropped():
    assert [t.w for t in punctuation.tokens([rw("...", 0, 10), rw("so", 20, 90)], advanced=True)] == ["so"]


def conversation(words: list[RecognizedWord], speakers=("Agent", "Caller"), advanced=True) -> Conversation:
    import numpy as np

    from speechproc.conversation import Channel

    conv = Conversation("00000000-0000-0000-0000-000000000000")
    conv.channels = [Channel(i, name, np.zeros(1, np.float32), 16000) for i, name in enumerate(speakers)]
    conv.words = punctuation.tokens(words, advanced)
    turns.run(conv)
    return conv


def summary(conv: Conversation) -> list[tuple]:
    return [(w.p, w.m, w.w, w.s, w.e) for w in conv.words]


def test_alternating_turns_get_markers_spanning_them_and_consecutive_positions():
    conv = conversation([rw("Hi.", 0, 500), rw("there", 600, 900, "Agent"),
                         rw("Hello.", 1500, 2000, "Caller"), rw("Bye.", 2600, 3000)])
    assert summary(conv) == [
        (0, "turn", "Agent", 0, 900), (1, None, "Hi", 0, 500), (2, "punc", ".", 500, 500),
        (3, None, "there", 600, 900),
        (4, "turn", "Caller", 1500, 2000), (5, None, "Hello", 1500, 2000), (6, "punc", ".", 2000, 2000),
        (7, "turn", "Agent", 2600, 3000), (8, None, "Bye", 2600, 3000), (9, "punc", ".", 3000, 3000)]


def test_overlapping_speech_keeps_whole_turns_ordered_by_start():
    # the caller starts while the agent is still talking: neither turn is cut in pieces
    conv = conversation([rw("one", 0, 300), rw("two", 350, 700), rw("three", 750, 1100),
                         rw("yes", 600, 800, "Caller"), rw("sure", 850, 1200, "Caller")])
    markers = [(w.w, w.s, w.e) for w in conv.words if w.m == "turn"]
    assert markers == [("Agent", 0, 1100), ("Caller", 600, 1200)]
    assert [w.w for w in conv.words] == ["Agent", "one", "two", "three", "Caller", "yes", "sure"]


def test_a_word_said_inside_a_short_gap_of_the_other_speaker_ends_the_turn():
    conv = conversation([rw("okay", 0, 300), rw("good", 900, 1200), rw("yes", 400, 800, "Caller")])
    assert [w.w for w in conv.words if w.m == "turn"] == ["Agent", "Caller", "Agent"]


def test_same_speaker_after_a_long_silence_stays_one_turn():
    conv = conversation([rw("hold", 0, 300), rw("back", 6000, 6300)])
    assert [(w.w, w.s, w.e) for w in conv.words if w.m == "turn"] == [("Agent", 0, 6300)]


def test_voice_activity_merges_close_words_per_speaker_and_lists_silent_speakers():
    conv = conversation([rw("a", 0, 300), rw("b", 500, 800), rw("c", 2000, 2300)])
    assert conv.voice_activity == {"Agent": [(0, 800), (2000, 2300)], "Caller": []}


def test_confidence_is_the_mean_over_real_words():
    conv = conversation([rw("a.", 0, 300, prob=0.5), rw("b", 400, 800, prob=1.0)])
    assert conv.confidence == pytest.approx(0.75)


def test_empty_recognition_gives_an_empty_transcript():
    conv = conversation([])
    assert conv.words == [] and conv.confidence == 0.0 and conv.voice_activity == {"Agent": [], "Caller": []}


def test_punctuation_is_never_separated_from_its_word_by_sorting():
    conv = conversation([rw("one.", 0, 300), rw("two", 300, 600)])
    assert [w.w for w in conv.words] == ["Agent", "one", ".", "two"]
    assert isinstance(conv.words[0], Token)
