"""The metric functions on hand-built conversations whose answers can be worked out by hand."""
from __future__ import annotations

import pytest

from speechproc.conversation import Channel, Conversation, Sentence, Token
from speechproc.stages.analytics import metrics as M


def words(speaker: str, start: int, count: int, step: int = 500, length: int = 400, **extra) -> list[Token]:
    return [Token(p=0, c=1.0, s=start + i * step, e=start + i * step + length, w="w", speaker=speaker, **extra)
            for i in range(count)]


def conversation(tokens: list[Token], length_ms: int, speakers=("Agent", "Caller")) -> Conversation:
    import numpy as np

    from speechproc.stages.recognition.turns import voice_activity

    conv = Conversation("00000000-0000-0000-0000-000000000000", length_ms=length_ms)
    conv.channels = [Channel(i, name, np.zeros(1, np.float32), 16000) for i, name in enumerate(speakers)]
    conv.words = sorted(tokens, key=lambda w: w.s)
    conv.voice_activity = voice_activity(conv.words, list(speakers))
    return conv


def test_span_arithmetic():
    assert M.merge([(5, 8), (0, 3), (2, 4), (8, 9)]) == [(0, 4), (5, 9)]
    assert M.intersect([(0, 10), (20, 30)], [(5, 25)]) == [(5, 10), (20, 25)]
    assert M.subtract([(0, 10)], [(2, 3), (5, 12)]) == [(0, 2), (3, 5)]
    assert M.clip([(0, 10), (20, 30)], 5, 25) == [(5, 10), (20, 25)]


@pytest.mark.parametrize("names, expected", [
    (["Agent", "Caller"], ("Agent", "Caller")),
    (["Customer", "Service"], ("Service", "Customer")),
    (["Call Center", "client"], ("Call Center", "client")),
    (["left", "right"], ("left", "right")),
    (["Prospect", "Speaker 2"], ("Speaker 2", "Prospect")),
    (["Speaker"], ("Speaker", None)),
])
def test_parties_come_from_the_names_else_the_order(names, expected):
    assert M.parties(names) == expected


def test_two_overlapping_turns_are_one_incident_of_the_party_who_cut_in():
    values = M.overtalk([(0, 5000)], [(4000, 8000)], length_ms=10000)
    assert values == {"overtalk-incidents": 1, "agent-overtalk-incidents": 0, "caller-overtalk-incidents": 1,
                      "overtalk-ratio": 0.1, "agent-overtalk-ratio": 0.0, "caller-overtalk-ratio": 1.0}


def test_overtalk_ratios_split_simultaneous_talk_by_who_began_first():
    # the agent cuts into the caller for 1 s; the caller cuts into the agent for 3 s
    values = M.overtalk([(0, 4000), (9000, 12000)], [(3000, 10000)], length_ms=20000)
    assert values["overtalk-incidents"] == 2
    assert values["agent-overtalk-incidents"] == 1 and values["caller-overtalk-incidents"] == 1
    assert values["overtalk-ratio"] == 0.1  # 2 s of 20 s
    assert values["agent-overtalk-ratio"] == 0.5 and values["caller-overtalk-ratio"] == 0.5


def test_starting_together_is_an_incident_of_neither_party():
    values = M.overtalk([(1000, 2000)], [(1000, 3000)], length_ms=4000)
    assert values["overtalk-incidents"] == 1
    assert values["agent-overtalk-incidents"] == values["caller-overtalk-incidents"] == 0


def test_no_overlap_means_no_overtalk():
    assert set(M.overtalk([(0, 1000)], [(1000, 2000)], 2000).values()) == {0}


def test_a_pause_of_three_seconds_ends_a_streak_and_a_shorter_one_does_not():
    assert M.streaks([(0, 1000), (3999, 5000)]) == [(0, 5000)]  # 2.999 s pause
    assert M.streaks([(0, 1000), (4000, 5000)]) == [(0, 1000), (4000, 5000)]  # 3 s pause
    assert M.streak_stats([(0, 1000), (4000, 6000), (10000, 14000)]) == (2.33, 4.0, 2.0)


def test_silences_longer_than_four_seconds_between_speech_are_incidents():
    assert M.silence_incidents([(0, 1000), (5001, 6000), (10000, 11000)]) == 1  # 4.001 s, then exactly 4 s
    assert M.silence_incidents([(0, 1000)]) == 0


def test_talk_time_and_rate_on_a_hand_built_call():
    agent = words("Agent", 0, 20)  # 20 words, 0 .. 9.9 s
    caller = words("Caller", 14000, 12)  # 12 words, 14 .. 19.9 s
    conv = conversation(agent + caller, 30000)
    values = M.compute(conv, ["talk-time-and-rate"], False, "en-US")[0].values
    assert values["agent-talk-ratio"] == round(9900 / 15800, 2) and values["caller-talk-ratio"] == round(5900 / 15800, 2)
    assert values["silence-ratio"] == round((30000 - 15800) / 30000, 2)
    assert values["silence-incidents"] == 1  # 9.9 s -> 14 s; the silence after the last word is not an incident
    assert values["agent-talk-rate"] == round(20 / (9900 / 60000))  # 121 words a minute
    assert values["caller-talk-rate"] == round(12 / (5900 / 60000))
    assert values["agent-to-caller-talk-rate-ratio"] == round(values["agent-talk-rate"] / values["caller-talk-rate"], 2)
    assert values["agent-longest-streak"] == 9.9 and values["caller-median-streak"] == 5.9
    assert values["average-streak"] == 7.9 and values["longest-streak"] == 9.9  # two streaks over both parties


def test_talk_rate_leaves_out_the_other_partys_speech():
    agent = words("Agent", 0, 10, step=1000, length=500)  # 10 words over 9.5 s
    assert M.talk_rate([(w.s, w.e) for w in agent], []) == pytest.approx(10 / (9500 / 60000))
    # the caller talks for 2 s inside the agent's streak: the agent's talking time is 7.5 s
    assert M.talk_rate([(w.s, w.e) for w in agent], [(4500, 6500)]) == pytest.approx(10 / (7500 / 60000))


def test_change_in_talk_rate_compares_the_last_third_with_the_first():
    fast = [(i * 250, i * 250 + 200) for i in range(40)]  # 0 .. 10 s, 240 words a minute
    slow = [(20000 + i * 500, 20000 + i * 500 + 400) for i in range(20)]  # 20 .. 30 s, 120 a minute
    assert M.change_in_talk_rate(fast + slow, [], 30000) == pytest.approx(round(
        (20 / (9900 / 60000)) / (40 / (9950 / 60000)), 2))
    assert M.change_in_talk_rate(slow, [], 30000) == 0.0  # no talk in the first third


def test_talk_style_from_voice_features():
    agent = [Token(p=0, c=1, s=i * 500, e=i * 500 + 400, w="w", speaker="Agent", v=v, pitch=p)
             for i, (v, p) in enumerate([(1.0, 100.0)] * 3 + [(1.5, 120.0)] * 3 + [(2.0, 150.0)] * 3)]
    caller = [Token(p=0, c=1, s=9000 + i * 500, e=9000 + i * 500 + 400, w="w", speaker="Caller", v=3.0, pitch=None)
              for i in range(6)]
    values = M.talk_style(agent, caller)
    assert values["agent-intra-call-change-in-pitch"] == 1.5
    assert values["agent-intra-call-change-in-relative-voice-volume-energy"] == 2.0
    assert values["agent-relative-voice-volume-energy"] == round(1.5 / 4.33, 2)
    assert values["caller-relative-voice-volume-energy"] == round(3.0 / 7.57, 2)
    assert values["agent-voice-dynamism-std-dev-score"] == round((1 / 6) ** 0.5, 2)
    assert values["caller-voice-dynamism-std-dev-score"] == 0.0
    assert values["caller-intra-call-change-in-pitch"] == 0.0  # no voiced word: undefined, 0


def sentence(speaker: str, s: int, value: float) -> Sentence:
    return Sentence(speaker, [Token(p=0, c=1, s=s, e=s + 500, w="w", speaker=speaker)], sentiment=value)


def test_sentiment_thirds_and_change_as_start_minus_end():
    values = M.sentiment_summary([0.5, 0.5, 0.0, 0.0, -0.5, -0.5], "call")
    assert values == {"call-sentiment": 0.0, "start-sentiment": 0.5, "end-sentiment": -0.5,
                      "call-change-in-sentiment": 1.0}
    sentences = [sentence("Agent", 0, 0.8), sentence("Caller", 1000, -0.6), sentence("Agent", 2000, 0.2),
                 sentence("Caller", 3000, 0.4)]
    party = M.sentiment(sentences, "Agent", "Caller")
    assert party["agent-sentiment"] == 0.5 and party["agent-intra-call-change-in-sentiment"] == 0.6
    assert party["caller-start-sentiment"] == -0.6 and party["caller-end-sentiment"] == 0.4
    assert party["caller-intra-call-change-in-sentiment"] == -1.0


# the specification's catalogue, group by group, in its order
CATALOGUE = {
    "overtalk": ["overtalk-incidents", "agent-overtalk-incidents", "caller-overtalk-incidents", "overtalk-ratio",
                 "agent-overtalk-ratio", "caller-overtalk-ratio"],
    "talk-time-and-rate": [
        "agent-talk-ratio", "caller-talk-ratio", "silence-ratio", "silence-incidents", "agent-talk-rate",
        "caller-talk-rate", "agent-to-caller-talk-rate-ratio", "agent-intra-call-change-in-talk-rate",
        "caller-intra-call-change-in-talk-rate", "agent-average-streak", "caller-average-streak",
        "agent-longest-streak", "caller-longest-streak", "agent-median-streak", "caller-median-streak",
        "average-streak", "longest-streak", "median-streak"],
    "talk-style-tone-and-volume": [
        "agent-intra-call-change-in-pitch", "caller-intra-call-change-in-pitch",
        "agent-intra-call-change-in-relative-voice-volume-energy",
        "caller-intra-call-change-in-relative-voice-volume-energy", "agent-relative-voice-volume-energy",
        "caller-relative-voice-volume-energy", "agent-voice-dynamism-std-dev-score",
        "caller-voice-dynamism-std-dev-score"],
    "sentiment": [
        "call-sentiment", "start-sentiment", "end-sentiment", "call-change-in-sentiment", "agent-sentiment",
        "agent-start-sentiment", "agent-end-sentiment", "agent-intra-call-change-in-sentiment", "caller-sentiment",
        "caller-start-sentiment", "caller-end-sentiment", "caller-intra-call-change-in-sentiment"],
}


def test_the_groups_have_every_catalogue_name_in_order():
    conv = conversation(words("Agent", 0, 9) + words("Caller", 6000, 9), 12000)
    groups = M.compute(conv, ["talk-style-tone-and-volume", "sentiment", "overtalk", "talk-time-and-rate"],
                       True, "en-US")
    assert [g.name for g in groups] == ["talk-style-tone-and-volume", "sentiment", "overtalk", "talk-time-and-rate"]
    assert {g.name: list(g.values) for g in groups} == CATALOGUE


def test_whole_call_sentiment_is_computed_on_one_channel_under_its_catalogue_names():
    conv = conversation(words("Speaker", 0, 6), 4000, speakers=("Speaker",))
    conv.sentences = [sentence("Speaker", 0, 0.6), sentence("Speaker", 1000, 0.0), sentence("Speaker", 2000, -0.2)]
    values = M.compute(conv, ["sentiment"], False, "en-US")[0].values
    assert values["start-sentiment"] == 0.6 and values["end-sentiment"] == -0.2
    assert values["call-change-in-sentiment"] == 0.8 and values["call-sentiment"] == round(0.4 / 3, 2)
    assert values["agent-start-sentiment"] == 0 and values["caller-sentiment"] == 0


def test_one_channel_gives_0_for_party_metrics_and_says_so():
    conv = conversation(words("Speaker", 0, 10) + words("Speaker", 20000, 10), 30000, speakers=("Speaker",))
    groups = {g.name: g.values for g in M.compute(conv, ["talk-time-and-rate", "overtalk"], True, "en-US")}
    assert groups["talk-time-and-rate"]["agent-talk-rate"] == 0 and groups["talk-time-and-rate"]["agent-talk-ratio"] == 0
    assert groups["talk-time-and-rate"]["silence-incidents"] == 1 and groups["talk-time-and-rate"]["longest-streak"] == 4.9
    assert groups["overtalk"]["overtalk-incidents"] == 0
    assert any("one channel per speaker" in message for _, message in conv.warnings)


def test_talk_style_without_voice_features_is_0_with_a_warning():
    conv = conversation(words("Agent", 0, 9, v=1.0) + words("Caller", 6000, 9, v=1.0), 12000)
    values = M.compute(conv, ["talk-style-tone-and-volume"], False, "en-US")[0].values
    assert set(values.values()) == {0}
    assert any("voiceFeatures" in message for _, message in conv.warnings)


def test_sentiment_metrics_are_0_outside_english():
    conv = conversation(words("Agent", 0, 3) + words("Caller", 2000, 3), 4000)
    conv.sentences = [sentence("Agent", 0, 0.9), sentence("Caller", 2000, 0.9)]
    assert set(M.compute(conv, ["sentiment"], False, "fr-FR")[0].values.values()) == {0}
    assert M.compute(conv, ["sentiment"], False, "en-UK")[0].values["call-sentiment"] == 0.9
