"""Mono diarization: the pure parts, then the sample call mixed down to one channel."""
from __future__ import annotations

import copy
import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest

from conftest import SAMPLES, truth_for
from speechproc import config
from speechproc.conversation import Conversation, RecognizedWord
from speechproc.stages import asr, diarize, ingest
from speechproc.stages.diarize import Segment
from text_helpers import run_stage, stage_options

# --- pure logic ------------------------------------------------------------------------------------------

@pytest.mark.skipif(importlib.util.find_spec("librosa") is None, reason="librosa comes with resemblyzer")
def test_mel_spectrogram_matches_the_one_resemblyzer_was_trained_on():
    import librosa

    rng = np.random.default_rng(0)
    x = (rng.standard_normal(16000) * 0.1).astype(np.float32)
    ours = diarize.mel_spectrogram(x)
    theirs = librosa.feature.melspectrogram(y=x, sr=16000, n_fft=400, hop_length=160, n_mels=40).T
    assert ours.shape == theirs.shape
    assert np.allclose(ours, theirs, rtol=1e-3, atol=1e-6)


def test_windows_label_every_moment_of_every_region_once():
    regions = [(0, 900), (1500, 6000), (7000, 8700)]
    windows = diarize.plan_windows(regions, window_s=1.6, hop_s=0.4)
    spans = windows.spans.tolist()
    assert spans[0] == [0, 900]  # a short region is one window
    covered = sum(e - s for s, e in spans)
    assert covered == sum(e - s for s, e in regions)
    for (_, e1), (s2, _) in zip(spans, spans[1:]):
        assert e1 <= s2
    assert windows.lengths[0] == 90 and set(windows.lengths[1:].tolist()) == {160}


def test_a_word_goes_to_the_speaker_who_covers_most_of_it():
    segments = [Segment(0, 1000, 0), Segment(1000, 1300, 1), Segment(1300, 3000, 0), Segment(4000, 5000, 1)]
    starts = [s.s for s in segments]
    assert diarize.speaker_of(900, 1250, segments, starts) == 1  # 250 ms of speaker 1 against 100 ms
    assert diarize.speaker_of(800, 1500, segments, starts) == 0  # 200 + 200 ms of speaker 0 against 300 ms
    assert diarize.speaker_of(3200, 3400, segments, starts) == 0  # in a gap: the nearest segment
    assert diarize.speaker_of(3800, 3900, segments, starts) == 1
    assert diarize.speaker_of(6000, 6100, segments, starts) == 1  # after the last segment


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
        assert diarize.estimate_speakers(emb, spans) == k
    emb, spans = voices(3)
    assert diarize.estimate_speakers(emb, spans, max_speakers=2) <= 2
    # a long recording: more windows than the dendrogram takes; the rest join their nearest centroid
    emb, spans = voices(2, per=1100)
    assert len(emb) > diarize.MAX_LINKAGE_WINDOWS
    labels = diarize.cluster(emb, spans)
    assert sorted(np.bincount(labels).tolist()) == [1100, 1100]


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


def test_the_downmixed_call_is_split_into_its_two_speakers(recognized_downmix):
    conv = diarized(recognized_downmix, {})
    assert conv.diarized_speakers == ["Speaker 1", "Speaker 2"]
    assert agreement(conv.recognized) >= 0.90
    assert conv.recognized[0].speaker == "Speaker 1"  # numbered by first appearance: the agent opens the call


def test_configured_names_and_count_are_used(recognized_downmix):
    conv = diarized(recognized_downmix, {"speechproc": {"speakers": 2, "speakerNames": ["Agent", "Caller"]}})
    assert conv.diarized_speakers == ["Agent", "Caller"]
    assert sum(w.speaker == truth_speaker(w.s, w.e) for w in conv.recognized) >= 0.9 * len(conv.recognized)


def test_a_configured_count_overrides_the_estimate(recognized_downmix):
    conv = diarized(recognized_downmix, {"speechproc": {"speakers": 3}})
    assert len(conv.diarized_speakers) == 3 and len({w.speaker for w in conv.recognized}) == 3


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


def test_the_voicemail_keeps_its_single_speaker(processed):
    names = [v["speakerName"] for v in processed["voicemail.wav"]["transcript"]["voiceActivity"]]
    assert names == ["Speaker"]


# --- through `speechproc run`: JSON and every text format ------------------------------------------------

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


def test_voice_features_come_with_the_diarized_transcript(downmix_processed):
    words = [w for w in downmix_processed["transcript"]["words"] if "m" not in w]
    assert all(len(w["frq"]) == 2 and "v" in w for w in words)
    assert not any(w["code"] == 10603 and "voiceFeatures" in w["message"] for w in downmix_processed.get("warnings", []))
