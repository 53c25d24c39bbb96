"""Bounded memory: the log-Mel features of a long recording in blocks, and audio let go once no stage reads it."""
from __future__ import annotations

import numpy as np
import pytest
from faster_whisper.feature_extractor import FeatureExtractor

from conftest import SAMPLES
from speechproc import media
from speechproc.conversation import Conversation
from speechproc.engines.lowmem import BLOCK_FRAMES, BlockFeatureExtractor
from speechproc.engines.models import load_whisper
from speechproc.stages import pipeline
from text_helpers import stage_options


@pytest.fixture(scope="module")
def agent_channel() -> np.ndarray:
    return np.ascontiguousarray(media.decode(SAMPLES / "call.flac").samples[0])


@pytest.mark.parametrize("seconds", [BLOCK_FRAMES / 100 - 0.5, BLOCK_FRAMES / 100 + 0.01, 69.0, 207.3])
def test_block_features_equal_faster_whispers_own(agent_channel, seconds):
    samples = np.tile(agent_channel, 3)[: int(seconds * media.ASR_RATE)]
    theirs = FeatureExtractor()(samples, chunk_length=30)
    ours = BlockFeatureExtractor()(samples, chunk_length=30)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    # the same frames and clamp; a matrix product over fewer columns may round its last bit differently
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-6)


@pytest.mark.slow
def test_the_recogniser_computes_features_in_blocks():
    assert isinstance(load_whisper("tiny.en").feature_extractor, BlockFeatureExtractor)


@pytest.mark.slow
def test_without_voice_features_the_audio_is_let_go_after_diarization():
    held: dict[str, bool] = {}
    conv = Conversation("00000000-0000-0000-0000-000000000002")

    def on_stage(name: str, status: str) -> None:
        if status in ("started", "skipped"):
            held[name] = all(ch.samples is not None for ch in conv.channels)

    pipeline.analyse(SAMPLES / "call.flac", stage_options({}), conv, on_stage)
    assert held["asr"] and held["diarize"]
    assert not held["punctuation"] and not held["metrics"]
    assert all(ch.samples is None and ch.original is None for ch in conv.channels)
    assert conv.length_ms == pytest.approx(69595, abs=50)


def test_streaming_vad_gives_faster_whispers_probabilities(agent_channel):
    from faster_whisper.vad import SileroVADModel, get_assets_path

    from speechproc.engines.lowmem import FW_VAD_BATCH, VAD_BATCH, VAD_WINDOW, StreamingSileroVAD

    path = f"{get_assets_path()}/silero_vad_v6.onnx"
    windows = FW_VAD_BATCH + VAD_BATCH + 123  # two batches of faster-whisper's, twelve of ours
    assert VAD_BATCH < FW_VAD_BATCH
    audio = np.tile(agent_channel, 10)[: windows * VAD_WINDOW]
    theirs = SileroVADModel(path)(audio.copy())
    ours = StreamingSileroVAD(path)(audio.copy())
    assert ours.shape == theirs.shape and len(ours) == windows
    assert np.array_equal(ours, theirs)


@pytest.mark.slow
def test_the_recogniser_detects_speech_with_the_streaming_vad():
    from faster_whisper import vad

    from speechproc.engines.lowmem import StreamingSileroVAD

    load_whisper("tiny.en")
    assert isinstance(vad.get_vad_model(), StreamingSileroVAD)


@pytest.mark.parametrize("seconds, options", [
    (None, {}),  # the whole call: one model batch
    (2 * 10000 * 512 / 16000 + 3.7, {}),  # longer than one model batch, not whole windows
    (10000 * 512 / 16000, {}),  # exactly one batch of whole windows: faster-whisper pads one more
    (0.02, {}), (0.0, {}),
    (None, {"min_speech_duration_ms": 250, "speech_pad_ms": 30, "max_speech_duration_s": 5}),
    (None, {"threshold": 0.3, "neg_threshold": 0.2, "max_speech_duration_s": 3, "min_silence_duration_ms": 0}),
    (None, {"max_speech_duration_s": 30, "min_silence_duration_ms": 160}),  # what batched recognition asks
])
def test_streamed_speech_timestamps_equal_faster_whispers_own(agent_channel, seconds, options, monkeypatch):
    from faster_whisper import vad
    from faster_whisper.vad import SileroVADModel, VadOptions, get_assets_path, get_speech_timestamps

    from speechproc.engines.lowmem import speech_timestamps

    theirs = SileroVADModel(f"{get_assets_path()}/silero_vad_v6.onnx")
    monkeypatch.setattr(vad, "get_vad_model", lambda: theirs)  # not the streaming model the recogniser installs
    audio = agent_channel if seconds is None else np.tile(agent_channel, 10)[: int(seconds * media.ASR_RATE)]
    expected = get_speech_timestamps(audio.copy(), VadOptions(**options))  # faster-whisper's model and decisions
    assert speech_timestamps(audio, VadOptions(**options)) == expected
    assert seconds == 0.0 or seconds == 0.02 or expected  # the real call has speech to find


def test_memory_freed_is_given_back_without_error():
    media.give_back_memory()
