"""Mono diarization: the pure parts, then the sample call mixed down to one channel."""
from __future__ import annotations

import copy
import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest

from conftest import SAMPLES, truth_for
from speechproc.config import v3 as config
from speechproc.conversation import Conversation, RecognizedWord, Token
from speechproc.engines import resemblyzer
from speechproc.stages.recognition import asr, ingest
from speechproc.stages.speakers import diarize, diarize_windows, speaker_clusters
from speechproc.stages.speakers.speaker_clusters import Segment
from text_helpers import run_stage, stage_options

# --- pure logic ------------------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("librosa") is None, reason="librosa comes with resemblyzer")
def test_mel_spectrogram_matches_the_one_resemblyzer_was_trained_on():
    import librosa

    rng = np.random.default_rng(0)
    x = (rng.standard_normal(16000) * 0.1).astype(np.float32)
    ours = resemblyzer.mel_spectrogram(x)
    theirs = librosa.feature.melspectrogram(y=x, sr=16000, n_fft=400, hop_length=160, n_mels=40).T
    assert ours.shape == theirs.shape
    assert np.allclose(ours, theirs, rtol=1e-3, atol=1e-6)


def test_windows_label_every_moment_of_every_region_once():
    regions = [(0, 900), (1500, 6000), (7000, 8700)]
    windows = diarize_windows.plan_windows(regions, window_s=1.6, hop_s=0.4)
    spans = windows.spans.tolist()
    assert spans[0] == [0, 900]  # a short region is one window
    covered = sum(e - s for s, e in spans)
    assert covered == sum(e - s for s, e in regions)
    for (_, e1), (s2, _) in zip(spans, spans[1:]):
        assert e1 <= s2
    assert windows.lengths[0] == 90 and set(windows.lengths[1:].tolist()) == {160}


def test_a_word_goes_to_the_speaker_who_covers_most_of_it():
    segments = [Segment(0, 1000, 0), Segment(1000, 1300, 1), Segment(1300, 3000, 0), Segment(4000, 5000, 1)]
    spans = [(100, 600), (900, 1250), (1400, 1500), (4100, 4400), (4500, 4700)]
    # 250 ms of speaker 1 against 100 ms: speaker 1 although both neighbours are speaker 0
    assert diarize.attribute(spans, segments) == [0, 1, 0, 1, 1]
    assert diarize.attribute([(800, 1500)], segments) == [0]  # 200 + 200 ms of speaker 0 against 300 ms


def test_a_word_nobody_covers_takes_the_speech_around_it():
    segments = [Segment(0, 3000, 0), Segment(4000, 5000, 1)]
    # in the gap: the previous word's speaker, never a turn of its own
    assert diarize.attribute([(2500, 2900), (3200, 3400), (4100, 4300)], segments) == [0, 0, 1]
    # after the last segment, and a first word before every segment
    assert diarize.attribute([(4500, 4800), (6000, 6100)], segments) == [1, 1]
    assert diarize.attribute([(-50, 0), (100, 400)], [Segment(50, 3000, 1)]) == [1, 1]


def test_a_zero_length_word_never_becomes_a_turn_of_its_own():
    segments = [Segment(0, 12060, 0), Segment(12060, 14000, 1), Segment(14000, 20000, 0)]
    spans = [(11000, 11500), (12060, 12060), (12100, 12500), (14500, 14500), (15000, 15400)]
    labels = diarize.attribute(spans, segments)
    assert labels == [0, 1, 1, 0, 0]  # each takes the neighbour the segment at its moment agrees with
    # a zero-length word inside the other speaker's segment, between two words of one speaker
    assert diarize.attribute([(1000, 1400), (13000, 13000), (15000, 15400)], segments) == [0, 0, 0]
    # only zero-length words: the segment around each
    assert diarize.attribute([(500, 500), (13000, 13000)], segments) == [0, 1]


def test_a_lone_weakly_covered_word_joins_its_neighbours():
    segments = [Segment(0, 1000, 0), Segment(1000, 1600, 1), Segment(1600, 4000, 0)]
    # 1300-1700: speaker 1 covers 300 of its 400 ms: a real interjection, it stays
    assert diarize.attribute([(500, 900), (1300, 1700), (2000, 2400)], segments) == [0, 1, 0]
    # 900-2300: speaker 1 covers most of what is covered, but only 600 of its 1400 ms: it joins them
    segments = [Segment(0, 1000, 0), Segment(1000, 1600, 1), Segment(2200, 4000, 0)]
    assert diarize.attribute([(500, 900), (900, 2300), (2500, 2900)], segments) == [0, 0, 0]


def test_a_brief_change_of_speaker_inside_continuous_speech_is_taken_back():
    spans = np.array([(0, 400), (400, 800), (800, 1200), (1200, 1600), (1600, 2000), (3000, 3400), (3400, 3800)])
    labels = np.array([0, 0, 1, 0, 0, 1, 1])
    assert diarize_windows.smooth(spans, labels).tolist() == [0, 0, 0, 0, 0, 1, 1]
    # a run as long as ISLAND_MS, or one after a pause, is a turn
    long_run = np.array([0, 1, 1, 0, 0, 1, 1])
    assert diarize_windows.smooth(spans, long_run).tolist() == long_run.tolist()
    paused = np.array([(0, 400), (400, 800), (1500, 1900), (1900, 2300), (2300, 2700)])
    assert diarize_windows.smooth(paused, np.array([0, 0, 1, 0, 0])).tolist() == [0, 0, 1, 0, 0]


def test_speaker_count_is_one_for_one_tight_cluster_and_k_for_k_separate_ones():
    rng = np.random.default_rng(1)
    centres = rng.standard_normal((3, 256))

    def voices(k: int, per: int = 40) -> tuple[np.ndarray, np.ndarray]:
        emb = np.concatenate([centres[i] + 0.3 * rng.standard_normal((per, 256)) for i in range(k)])
        emb /= np.linalg.norm(emb, axis=1, keepdims=True)
        # interleave the speakers in time, 2 s per window, as in a conversation
        order = np.argsort(np.tile(np.arange(per), k), kind="stable")
        spans = np.array([(i * 2000, i * 2000 + 2000) for i in range(k * per)])
        return emb[order], spans

    for k in (1, 2, 3):
        emb, spans = voices(k)
        assert diarize_windows.estimate_speakers(emb, spans) == k
    emb, spans = voices(3)
    assert diarize_windows.estimate_speakers(emb, spans, max_speakers=2) <= 2
    # a long recording: more windows than k-means is fitted on; the rest join their nearest centroid
    emb, spans = voices(2, per=1600)
    assert len(emb) > diarize_windows.MAX_FIT_WINDOWS
    labels = diarize_windows.cluster(emb, spans)
    assert sorted(np.bincount(labels).tolist()) == [1600, 1600]
    assert np.array_equal(labels, diarize_windows.cluster(emb, spans))  # the same labels every time


def test_a_meetings_quieter_member_counts_but_a_second_voice_needs_more():
    """A third or fourth speaker with 11-12 % of the speech is a speaker; a second one with as little is not
    (one-speaker recordings hold such clusters of odd windows)."""
    rng = np.random.default_rng(3)
    centres = rng.standard_normal((4, 192))

    def meeting(shares: list[int]) -> tuple[np.ndarray, np.ndarray]:
        emb = np.concatenate([centres[i] + 0.6 * rng.standard_normal((n, 192)) for i, n in enumerate(shares)])
        emb /= np.linalg.norm(emb, axis=1, keepdims=True)
        order = rng.permutation(len(emb))
        spans = np.array([(i * 1500, i * 1500 + 1500) for i in range(len(emb))])
        return emb[order], spans

    assert diarize_windows.estimate_speakers(*meeting([60, 50, 40, 19])) == 4  # the fourth: 11.6 % of the speech
    assert diarize_windows.estimate_speakers(*meeting([150, 19])) == 1  # a second voice of 11 %: not enough


def test_a_voice_split_in_two_is_one_speaker_however_many_windows_it_has():
    rng = np.random.default_rng(2)
    centre = rng.standard_normal(192)
    for windows in (6, 12, 40, 400):
        emb = centre + 0.5 * rng.standard_normal((windows, 192))
        emb /= np.linalg.norm(emb, axis=1, keepdims=True)
        spans = np.array([(i * 400, i * 400 + 400) for i in range(windows)])
        assert diarize_windows.estimate_speakers(emb, spans) == 1
        assert diarize_windows.explained(emb, diarize_windows.kmeans(emb, 2)) > 0  # a split always explains something


def test_a_second_speaker_is_never_found_where_it_is_certain_there_is_none():
    """Two voices as far apart as can be, taking turns: where `one_speaker_certain` says so, the count rules
    still find one speaker (too few windows, or too little speech), so the embeddings need not be computed."""
    rng = np.random.default_rng(4)
    apart = np.linalg.qr(rng.standard_normal((192, 2)))[0].T  # two orthogonal voices
    tuning = diarize_windows.TUNINGS[diarize_windows.EMBEDDING]
    certain = uncertain = 0
    for regions in ([(0, 1400)], [(0, 2600)], [(0, 1800), (2500, 3100)], [(0, 900), (1500, 2400)],
                    [(0, 3000)], [(0, 4000)], [(0, 1600), (2000, 3600)], [(0, 6000)]):
        windows = diarize_windows.plan_windows(regions, tuning.window_s, tuning.hop_s)
        turns = (np.arange(len(windows.starts)) * 2 // max(len(windows.starts), 1)) % 2  # first half one voice
        emb = apart[turns] + 0.01 * rng.standard_normal((len(turns), 192))
        emb /= np.linalg.norm(emb, axis=1, keepdims=True)
        labels = diarize_windows.cluster(emb, windows.spans)
        if diarize_windows.one_speaker_certain(windows, None, 1, 8, tuning):
            certain += 1
            assert set(labels.tolist()) == {0}, regions
        else:
            uncertain += len(set(labels.tolist())) == 2  # where it is not certain, these voices are two
    assert certain >= 3 and uncertain >= 2
    windows = diarize_windows.plan_windows([(0, 1400)], tuning.window_s, tuning.hop_s)
    assert diarize_windows.one_speaker_certain(windows, 1, 1, 8, tuning)
    assert not diarize_windows.one_speaker_certain(windows, 2, 1, 8, tuning)  # a count given is always made
    assert not diarize_windows.one_speaker_certain(windows, None, 2, 8, tuning)


@pytest.mark.slow
def test_a_short_recording_nobody_names_is_not_embedded(monkeypatch):
    from speechproc import media

    samples = media.decode(SAMPLES / "voicemail.wav").samples[0]
    regions = diarize_windows.speech_regions(samples)
    first = samples[: (regions[0][0] + 2000) * media.ASR_RATE // 1000]  # two seconds of its speech
    with_voices = diarize_windows.diarized(first)
    assert with_voices.voices and with_voices.clusters == 1

    def refused(*args, **kwargs):
        raise AssertionError("embedded")

    monkeypatch.setattr(diarize_windows, "embed", refused)
    without = diarize_windows.diarized(first, voices_needed=False)
    assert without.segments == with_voices.segments and without.clusters == 1 and not without.voices
    with pytest.raises(AssertionError, match="embedded"):
        diarize_windows.diarized(first)  # voices asked for: embedded, however short

    def unloadable(weights=None):
        raise RuntimeError("no such weights")

    monkeypatch.setattr(diarize_windows, "load_campplus", unloadable)
    with pytest.raises(RuntimeError, match="no such weights"):  # a model that cannot load fails as it did
        diarize_windows.diarized(first, voices_needed=False)


def test_the_diarization_stage_keeps_voices_only_when_someone_can_be_named(monkeypatch):
    import dataclasses
    from types import SimpleNamespace

    from speechproc.stages import pipeline
    from speechproc.stages.options import EnrolledSpeaker

    asked = []
    monkeypatch.setattr(diarize, "run", lambda conv, options, voices_needed=True: asked.append(voices_needed))
    stage = next(s for s in pipeline.STAGES if s.name == "diarize")
    plain = stage_options({})
    enrolled = dataclasses.replace(plain, identify=dataclasses.replace(
        plain.identify, people=(EnrolledSpeaker("Ann", None, ((1.0,) + (0.0,) * 191,)),)))
    switched_off = dataclasses.replace(enrolled, identify=dataclasses.replace(enrolled.identify, enabled=False))
    for options in (plain, enrolled, switched_off):
        stage.step(SimpleNamespace(conv=Conversation("m"), options=options))
    assert asked == [False, True, False]


def test_speaker_names_follow_the_configuration_then_number():
    plain = stage_options({}).diarization.speaker_names
    named = stage_options({"speechproc": {"speakerNames": ["Agent", "Caller"]}}).diarization.speaker_names
    assert diarize.speaker_names(2, plain, "Speaker") == ["Speaker 1", "Speaker 2"]
    assert diarize.speaker_names(1, plain, "Speaker") == ["Speaker"]
    assert diarize.speaker_names(3, named, "Speaker") == ["Agent", "Caller", "Speaker 3"]


@pytest.mark.parametrize("raw", [
    {"speechproc": {"speakers": 0}},
    {"speechproc": {"speakers": "two"}},
    {"speechproc": {"maxSpeakers": 99}},
    {"speechproc": {"speakerNames": []}},
    {"speechproc": {"speakerNames": ["A", "A"]}},
    {"speechproc": {"diarization": "yes"}},
    {"speechproc": {"speakerEmbedding": "ecapa"}},
    {"speechproc": {"speakerEmbedding": ""}},
    {"speechproc": {"speakerEncoder": ""}},
])
def test_bad_diarization_settings_are_refused(raw):
    from speechproc import errors

    with pytest.raises(errors.ConfigurationError, match="speechproc"):
        config.validate(raw)


# --- the downmixed sample call ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def recognized_downmix(downmix: Path) -> Conversation:
    """The downmixed call decoded and recognised once; each test diarizes a copy."""
    wanted = stage_options({})
    conv = Conversation("00000000-0000-0000-0000-00000000000d")
    ingest.load_channels(downmix, wanted.ingest, conv)
    asr.run(conv, wanted.recognition)
    return conv


def diarized(conv: Conversation, raw: dict) -> Conversation:
    copy_ = copy.copy(conv)
    copy_.recognized = [RecognizedWord(w.text, w.s, w.e, w.probability, w.speaker) for w in conv.recognized]
    copy_.diarized_speakers = []
    run_stage("diarize", copy_, raw)
    return copy_


def truth_speaker(s: int, e: int) -> str | None:
    """The speaker of the sample call's truth turn that holds this word; None inside the overlap."""
    holders = [t["speaker"] for t in truth_for("call.flac")["turns"] if t["s"] - 150 <= (s + e) / 2 <= t["e"] + 150]
    return holders[0] if len(holders) == 1 else None


def agreement(words) -> float:
    """Share of words whose speaker matches the truth under the best one-to-one naming."""
    pairs = [(w.speaker, truth_speaker(w.s, w.e)) for w in words]
    pairs = [(h, r) for h, r in pairs if r is not None]
    names = sorted({h for h, _ in pairs})
    best = 0
    for flip in (False, True):
        mapping = dict(zip(names, ["Caller", "Agent"] if flip else ["Agent", "Caller"]))
        best = max(best, sum(mapping.get(h) == r for h, r in pairs))
    return best / len(pairs)


@pytest.mark.slow
def test_the_downmixed_call_is_split_into_its_two_speakers(recognized_downmix):
    conv = diarized(recognized_downmix, {})
    assert conv.diarized_speakers == ["Speaker 1", "Speaker 2"]
    assert agreement(conv.recognized) >= 0.90
    assert conv.recognized[0].speaker == "Speaker 1"  # numbered by first appearance: the agent opens the call


@pytest.mark.slow
def test_the_resemblyzer_backend_still_splits_the_call(recognized_downmix):
    conv = diarized(recognized_downmix, {"speechproc": {"speakerEmbedding": "resemblyzer"}})
    assert conv.diarized_speakers == ["Speaker 1", "Speaker 2"]
    assert agreement(conv.recognized) >= 0.90


@pytest.mark.slow
def test_words_without_duration_never_make_a_turn_of_their_own(recognized_downmix):
    from speechproc.stages.recognition import turns

    conv = diarized(recognized_downmix, {})
    before = [w.speaker for w in conv.recognized]
    # the recogniser gives some words no duration; make every third word one
    squeezed = copy.copy(recognized_downmix)
    squeezed.recognized = [RecognizedWord(w.text, w.s, w.s if i % 3 == 0 else w.e, w.probability, w.speaker)
                           for i, w in enumerate(recognized_downmix.recognized)]
    squeezed = diarized(squeezed, {})
    after = [w.speaker for w in squeezed.recognized]
    assert sum(a == b for a, b in zip(before, after)) >= 0.9 * len(before)
    tokens = [Token(0, w.probability, w.s, w.e, w.text, speaker=w.speaker) for w in squeezed.recognized]
    for turn in turns.build_turns(tokens, squeezed.diarized_speakers):
        assert any(w.e > w.s for w in turn.words), f"a turn of zero-length words only: {turn.words}"


@pytest.mark.slow
def test_configured_names_and_count_are_used(recognized_downmix):
    conv = diarized(recognized_downmix, {"speechproc": {"speakers": 2, "speakerNames": ["Agent", "Caller"]}})
    assert conv.diarized_speakers == ["Agent", "Caller"]
    assert sum(w.speaker == truth_speaker(w.s, w.e) for w in conv.recognized) >= 0.9 * len(conv.recognized)


@pytest.mark.slow
def test_a_configured_count_overrides_the_estimate(recognized_downmix):
    conv = diarized(recognized_downmix, {"speechproc": {"speakers": 3, "diarizer": "windows"}})
    assert len(conv.diarized_speakers) == 3 and len({w.speaker for w in conv.recognized}) == 3


@pytest.mark.slow
@pytest.mark.parametrize("raw", [{"speechproc": {"diarization": False}}, {"speechproc": {"speakers": 1}}])
def test_diarization_can_be_switched_off(recognized_downmix, raw):
    conv = diarized(recognized_downmix, raw)
    assert conv.diarized_speakers == [] and {w.speaker for w in conv.recognized} == {"Speaker"}


def test_a_named_mono_speaker_is_not_diarized(downmix):
    wanted = stage_options({"ingest": {"speakerName": "Maria"}})
    conv = Conversation("00000000-0000-0000-0000-00000000000e")
    ingest.load_channels(downmix, wanted.ingest, conv)
    assert not diarize.applies(conv, wanted.diarization)
    conv_default = Conversation("00000000-0000-0000-0000-00000000000f")
    ingest.load_channels(downmix, stage_options({}).ingest, conv_default)
    assert diarize.applies(conv_default, stage_options({}).diarization)


def test_stereo_channels_are_never_diarized():
    wanted = stage_options({})
    conv = Conversation("00000000-0000-0000-0000-000000000010")
    ingest.load_channels(SAMPLES / "call.flac", wanted.ingest, conv)
    assert not diarize.applies(conv, wanted.diarization)


@pytest.mark.slow
def test_the_voicemail_keeps_its_single_speaker(processed):
    names = [v["speakerName"] for v in processed["voicemail.wav"]["transcript"]["voiceActivity"]]
    assert names == ["Speaker"]


# --- through `speechproc run`: JSON and every text format ------------------------------------------------

@pytest.mark.slow
def test_turns_and_captions_carry_the_diarized_speakers(downmix_processed):
    words = downmix_processed["transcript"]["words"]
    turns = [w for w in words if w.get("m") == "turn"]
    assert {t["w"] for t in turns} == {"Speaker 1", "Speaker 2"}
    assert len(turns) >= 10  # the call has 14 turns
    assert [w["p"] for w in words] == list(range(len(words)))
    names = [v["speakerName"] for v in downmix_processed["transcript"]["voiceActivity"]]
    assert names == ["Speaker 1", "Speaker 2"]
    outputs = downmix_processed["_outputs"]
    for fmt in ("srt", "webvtt"):
        text = Path(outputs[fmt]).read_text()
        assert re.search(r"^Speaker 1: ", text, re.M) and re.search(r"^Speaker 2: ", text, re.M)
    dfxp = Path(outputs["dfxp"]).read_text()
    assert "Speaker 1:" in dfxp and "Speaker 2:" in dfxp


@pytest.mark.slow
def test_turn_boundaries_are_word_boundaries(downmix_processed):
    turns: list[tuple[dict, list[dict]]] = []
    for w in downmix_processed["transcript"]["words"]:
        if w.get("m") == "turn":
            turns.append((w, []))
        elif "m" not in w:
            turns[-1][1].append(w)
    for marker, words in turns:
        assert words, "a turn without words"
        assert marker["s"] == words[0]["s"] and marker["e"] == max(w["e"] for w in words)


@pytest.mark.slow
def test_voice_features_come_with_the_diarized_transcript(downmix_processed):
    words = [w for w in downmix_processed["transcript"]["words"] if "m" not in w]
    assert all(len(w["frq"]) == 2 and "v" in w for w in words)
    assert not any(w["code"] == 10603 and "voiceFeatures" in w["message"] for w in downmix_processed.get("warnings", []))


# ------------------------------------------------------------------ overlapped speech

def test_the_second_voice_of_an_overlap_is_the_nearest_other_speaker():
    segments = [Segment(0, 3000, 0), Segment(3300, 6000, 1), Segment(9000, 9500, 2)]
    assert speaker_clusters.second_speakers(segments, [(2800, 3400)]) == [(2800, 3400, 1)]  # the floor changes hands
    assert speaker_clusters.second_speakers(segments, [(1000, 1500)]) == [(1000, 1500, 1)]  # inside 0's turn: 1 is nearest
    assert speaker_clusters.second_speakers(segments, [(9100, 9300)]) == [(9100, 9300, 1)]
    assert speaker_clusters.second_speakers([Segment(0, 3000, 0)], [(1000, 1500)]) == []  # nobody else to talk over


def _second_speakers_by_sorting(segments, overlaps):
    """The rule of `second_speakers`, written plainly: every segment sorted by its distance to the overlap."""
    out = []
    for s, e in overlaps:
        held: dict[int, int] = {}
        for g in segments:
            if g.s < e and g.e > s:
                held[g.speaker] = held.get(g.speaker, 0) + min(e, g.e) - max(s, g.s)
        main = max(held, key=lambda k: (held[k], -k)) if held else None
        nearest = sorted(segments, key=lambda g: ((0 if g.s < e and g.e > s else min(abs(g.s - e), abs(s - g.e))), g.s))
        other = next((g.speaker for g in nearest if g.speaker != main), None)
        if other is not None:
            out.append((s, e, other))
    return out


@pytest.mark.parametrize("seed", range(20))
def test_the_second_voice_is_found_by_search_as_by_sorting_every_segment(seed):
    rng = np.random.default_rng(seed)
    segments, at = [], 0
    for _ in range(int(rng.integers(1, 40))):
        at += int(rng.integers(0, 800))
        length = int(rng.integers(1, 3000))
        segments.append(Segment(at, at + length, int(rng.integers(0, 4))))
        at += length
    overlaps = sorted((int(s), int(s) + int(rng.integers(1, 2000))) for s in rng.integers(0, at + 500, size=15))
    assert speaker_clusters.second_speakers(segments, overlaps) == _second_speakers_by_sorting(segments, overlaps)


def test_overlapped_speech_joins_the_second_speakers_voice_activity():
    from speechproc.stages.recognition.turns import voice_activity

    words = [Token(p=0, c=0.9, s=0, e=2000, w="hello", speaker="A"), Token(p=1, c=0.9, s=2500, e=4000, w="there",
                                                                     speaker="B")]
    assert voice_activity(words, ["A", "B"]) == {"A": [(0, 2000)], "B": [(2500, 4000)]}
    assert voice_activity(words, ["A", "B"], [(1600, 2100, "B"), (9000, 9100, "C")]) == \
        {"A": [(0, 2000)], "B": [(1600, 4000)]}  # a speaker who is not in the recording is left out


@pytest.mark.slow
def test_where_two_speakers_talk_at_once_both_have_the_speech(tmp_path, home):
    """The sample call's caller made to start 3 s early, over the agent (true overlap 3.7-6.0 s)."""
    import json

    from conftest import invoke, write_wav
    from speechproc import media

    call = media.decode(SAMPLES / "call.flac").samples
    mixed = write_wav(tmp_path / "crosstalk.wav", call[0][:16000 * 13] + call[1][16000 * 3:16000 * 16], 16000)

    def activity(overlap: bool) -> dict[str, list[list[int]]]:
        config = tmp_path / f"{overlap}.json"
        config.write_text(json.dumps({"speechproc": {"overlappedSpeech": overlap}}))
        out = tmp_path / f"out-{overlap}"
        code, result = invoke("run", str(mixed), "--config", str(config), "--out", str(out))
        assert code == 0, result
        item = json.loads((out / "crosstalk.v3.json").read_text())
        return {a["speakerName"]: [[o["s"], o["e"]] for o in a["occurrences"]] for a in item["transcript"]["voiceActivity"]}

    def talking(spans: list[list[int]], moment: int) -> bool:
        return any(s <= moment <= e for s, e in spans)

    plain, handled = activity(False), activity(True)
    assert len(plain) == len(handled) == 2
    assert sum(talking(spans, 5000) for spans in plain.values()) == 1  # one voice at a time
    assert sum(talking(spans, 5000) for spans in handled.values()) == 2  # both voices in the overlap


def test_the_segmentation_loader_reads_no_file_but_the_bundled_one(tmp_path):
    import pickle

    from speechproc.engines import segmentation

    class Trap:
        def __reduce__(self):
            return (exec, ("raise SystemExit('unpickled')",))

    hostile = tmp_path / "pytorch_model.bin"
    hostile.write_bytes(pickle.dumps(Trap()))
    with pytest.raises(ValueError, match="not the bundled"):  # refused on its hash, never unpickled
        segmentation.load(hostile)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["call.flac", "voicemail.wav"])
def test_speech_regions_stream_the_levelled_vad_of_faster_whisper(name):
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    from speechproc import media

    samples = np.ascontiguousarray(media.decode(SAMPLES / name).samples.mean(axis=0, dtype=np.float32))
    frame = media.ASR_RATE // 20
    n = len(samples) // frame
    rms = np.sqrt(np.mean(np.square(samples[: n * frame].reshape(n, frame), dtype=np.float64), axis=1))
    levelled = samples * np.float32(diarize_windows.VAD_LEVEL / float(np.percentile(rms, 90)))
    options = VadOptions(min_silence_duration_ms=300, speech_pad_ms=60, min_speech_duration_ms=200)
    theirs = [(c["start"] * 1000 // 16000, c["end"] * 1000 // 16000) for c in get_speech_timestamps(levelled, options)]
    assert diarize_windows.speech_regions(samples) == theirs and theirs
    old, diarize_windows.POWER_BLOCK = diarize_windows.POWER_BLOCK, 777  # blocks that do not divide the frames
    try:
        assert diarize_windows.speech_regions(samples) == theirs
    finally:
        diarize_windows.POWER_BLOCK = old
