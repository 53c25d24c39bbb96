"""Word-level voice features: frequency peaks, relative volume and pitch, on signals whose answer is known
and on the sample call."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import SAMPLES, truth_for
from speechproc import media
from speechproc.conversation import Conversation
from speechproc.stages.recognition import ingest
from speechproc.stages.speakers.voice import REFERENCE_RMS, analyse_words, frequency_ceiling
from text_helpers import stage_options


def tone(rate: int, parts: list[tuple[float, float]], seconds: float = 1.0, lead: float = 0.5) -> np.ndarray:
    """Silence, then `seconds` of summed sines (frequency Hz, amplitude), then silence."""
    t = np.arange(int(rate * seconds)) / rate
    body = sum(a * np.sin(2 * np.pi * f * t) for f, a in parts)
    pad = np.zeros(int(rate * lead))
    return np.concatenate([pad, body, pad]).astype(np.float32)


@pytest.mark.parametrize("rate", [8000, 16000, 22050, 44100])
def test_two_tones_give_their_frequencies_and_amplitudes(rate):
    x = tone(rate, [(440.0, 0.5), (1250.0, 0.2)])
    [word] = analyse_words(x, rate, [(500, 1500)])
    (f1, e1), (f2, e2) = [(p.f, p.e) for p in word.peaks]
    assert f1 == pytest.approx(440.0, abs=1.0) and e1 == pytest.approx(0.5, abs=0.01)
    assert f2 == pytest.approx(1250.0, abs=1.0) and e2 == pytest.approx(0.2, abs=0.01)


def sine_at(rate: int, dbfs: float, frequency: float = 300.0) -> np.ndarray:
    """A 1 s sine whose RMS level is `dbfs`, between half-second silences."""
    return tone(rate, [(frequency, np.sqrt(2) * 10 ** (dbfs / 20))])


def test_relative_volume_follows_its_definition_and_grows_with_loudness():
    rate, amplitude = 22050, 0.2
    quiet = tone(rate, [(300.0, amplitude)])
    [q] = analyse_words(quiet, rate, [(500, 1500)])
    [loud] = analyse_words(quiet * 2, rate, [(500, 1500)])
    # a steady sine: mean frame RMS = max frame RMS = a / sqrt(2); v = A * M against the reference level
    expected = (amplitude / np.sqrt(2) / REFERENCE_RMS) ** 2
    assert q.volume == pytest.approx(expected, rel=0.02)
    assert loud.volume == pytest.approx(4 * q.volume, rel=0.02)


@pytest.mark.parametrize("dbfs, v", [(-22.0, 1.0), (-26.0, 0.40), (-16.0, 3.98), (-10.0, 15.85)])
def test_the_volume_of_a_steady_tone_is_set_by_its_level(dbfs, v):
    # -22 dBFS is the reference (v 1); 4 dB quieter, at the telephony nominal -26 dBFS, is 0.40; loud
    # sounds go above 2 and are not cropped
    [word] = analyse_words(sine_at(16000, dbfs), 16000, [(500, 1500)])
    assert word.volume == pytest.approx(v, rel=0.02)


def test_a_noise_burst_at_minus_26_dbfs_and_twice_as_loud():
    rng = np.random.default_rng(7)
    noise = rng.standard_normal(22050).astype(np.float32) * 10 ** (-26 / 20)  # RMS -26 dBFS
    x = np.concatenate([np.zeros(11025, np.float32), noise, np.zeros(11025, np.float32)])
    [burst] = analyse_words(x, 22050, [(500, 1500)])
    [double] = analyse_words(2 * x, 22050, [(500, 1500)])
    assert 0.38 <= burst.volume <= 0.46  # 0.40 plus a little: the loudest frame of noise is a bit above the mean
    assert double.volume == pytest.approx(4 * burst.volume, rel=0.01)


def test_a_chirp_peaks_inside_its_sweep():
    rate = 16000
    t = np.arange(rate) / rate
    chirp = (0.3 * np.sin(2 * np.pi * (300 * t + 150 * t**2))).astype(np.float32)  # 300 -> 600 Hz
    [word] = analyse_words(chirp, rate, [(0, 1000)])
    assert 300 <= word.peaks[0].f <= 600
    assert 0 < word.peaks[0].e < 0.3


def test_the_frequency_ceiling_depends_on_the_sample_rate():
    assert frequency_ceiling(44100) == 16000 and frequency_ceiling(48000) == 16000
    assert frequency_ceiling(22050) == 8000 and frequency_ceiling(16000) == 8000 and frequency_ceiling(8000) == 4000
    # a 12 kHz tone is reported at 44.1 kHz, but lies above the 8 kHz ceiling of a 22.05 kHz recording
    [high] = analyse_words(tone(44100, [(12000.0, 0.5), (300.0, 0.1)]), 44100, [(500, 1500)])
    assert high.peaks[0].f == pytest.approx(12000.0, abs=2.0)
    [low] = analyse_words(tone(22050, [(9000.0, 0.5), (300.0, 0.1)]), 22050, [(500, 1500)])
    assert low.peaks[0].f == pytest.approx(300.0, abs=1.0) and all(p.f <= 8000 for p in low.peaks)


def test_silence_has_zero_peaks_no_volume_and_no_pitch():
    [word] = analyse_words(np.zeros(16000, dtype=np.float32), 16000, [(100, 600)])
    assert [(p.f, p.e) for p in word.peaks] == [(0.0, 0.0), (0.0, 0.0)]
    assert word.volume == 0.0 and word.pitch is None


@pytest.mark.parametrize("f0", [110.0, 150.0, 220.0, 310.0])
def test_pitch_of_a_harmonic_voice_is_its_fundamental(f0):
    rate = 22050
    x = tone(rate, [(f0 * k, 0.2 / k) for k in range(1, 8)])
    [word] = analyse_words(x, rate, [(500, 1500)])
    assert word.pitch == pytest.approx(f0, rel=0.02)


def test_a_word_shorter_than_a_frame_still_gets_features():
    x = tone(16000, [(500.0, 0.4)], seconds=0.02)
    [word] = analyse_words(x, 16000, [(500, 520)])
    assert word.peaks[0].f == pytest.approx(500.0, abs=25.0) and word.volume > 0


@pytest.mark.parametrize("span", [(1800, 2300), (1990, 2600), (2100, 2400)])  # past the end, or wholly after it
def test_a_word_timed_past_the_end_of_the_channel_gets_the_features_of_its_end(span):
    x = tone(8000, [(440.0, 0.4)], seconds=1.5, lead=0.25)  # 2.0 s of audio, the tone until 1.75 s
    [word] = analyse_words(x, 8000, [span])
    assert word.volume >= 0 and len(word.peaks) == 2


def test_features_come_from_the_original_rate_not_the_asr_copy():
    wanted = stage_options({"speechModel": {"features": ["voiceFeatures"]}})
    conv = Conversation("00000000-0000-0000-0000-000000000000")
    ingest.load_channels(SAMPLES / "call.flac", wanted.ingest, conv)
    assert all(ch.original is None for ch in conv.channels)  # decoded when the voice stage needs it
    ingest.attach_originals(SAMPLES / "call.flac", wanted.ingest, conv)
    assert [ch.sample_rate for ch in conv.channels] == [16000, 16000]
    assert [ch.original_rate for ch in conv.channels] == [22050, 22050]
    original = media.decode(SAMPLES / "call.flac", sample_rate=None).samples
    assert np.array_equal(conv.channels[1].original, original[1])


def test_without_voice_features_no_original_copy_is_kept():
    conv = Conversation("00000000-0000-0000-0000-000000000000")
    ingest.load_channels(SAMPLES / "call.flac", stage_options({}).ingest, conv)
    ingest.attach_originals(SAMPLES / "call.flac", stage_options({}).ingest, conv)
    assert all(ch.original is None for ch in conv.channels)


def _words(item: dict) -> list[tuple[str, dict]]:
    out, speaker = [], ""
    for w in item["transcript"]["words"]:
        if w.get("m") == "turn":
            speaker = w["w"]
        elif "m" not in w:
            out.append((speaker, w))
    return out


@pytest.fixture(scope="module")
def call_with_features(tmp_path_factory):
    """The stereo sample call analysed with voice features: the conversation, pitch included."""
    from speechproc.stages import pipeline

    wanted = stage_options({"speechModel": {"features": ["voiceFeatures"]}})
    conv = Conversation("00000000-0000-0000-0000-000000000001")
    pipeline.analyse(SAMPLES / "call.flac", wanted, conv, on_stage=lambda *_: None)
    return conv


@pytest.mark.slow
def test_no_audio_is_held_once_the_last_stage_reading_it_is_over(call_with_features):
    assert [(ch.samples, ch.original) for ch in call_with_features.channels] == [(None, None)] * 2
    assert [ch.original_rate for ch in call_with_features.channels] == [22050, 22050]


@pytest.mark.slow
def test_every_word_of_the_call_has_two_peaks_and_a_volume(call_with_features):
    words = [w for w in call_with_features.words if w.is_word]
    assert len(words) > 100
    assert all(len(w.frq) == 2 and w.v is not None for w in words)
    assert all(0 <= p.e <= 1 and 0 <= p.f <= 8000 for w in words for p in w.frq)
    assert all(w.frq is None and w.v is None for w in call_with_features.words if not w.is_word)
    voiced = [w for w in words if w.frq[0].f > 0]
    assert len(voiced) >= 0.95 * len(words)


@pytest.mark.slow
def test_the_two_synthetic_voices_differ_in_pitch_as_made(call_with_features):
    # the agent was synthesised at espeak pitch 35 (male voice), the caller at pitch 75 (female voice)
    pitch = {name: np.median([w.pitch for w in call_with_features.words if w.is_word and w.speaker == name
                              and w.pitch]) for name in ("Agent", "Caller")}
    assert 70 < pitch["Agent"] < 160
    assert pitch["Caller"] > 1.4 * pitch["Agent"]


@pytest.mark.slow
def test_a_louder_copy_of_a_word_has_a_larger_volume(call_with_features):
    word = next(w for w in call_with_features.words if w.is_word and w.e - w.s >= 300)
    channel = call_with_features.channel_of(word.speaker)
    original = media.decode(SAMPLES / "call.flac", sample_rate=None)
    samples = original.samples[channel.index]
    [same] = analyse_words(samples, original.sample_rate, [(word.s, word.e)])
    [louder] = analyse_words(samples * 1.5, original.sample_rate, [(word.s, word.e)])
    assert same.volume == pytest.approx(word.v)
    assert louder.volume == pytest.approx(2.25 * word.v, rel=0.01)


def truth_words(recording: dict) -> dict[int, list[tuple[int, int]]]:
    """Word spans per channel from the script's turn times: each turn shared among its words by their
    length in characters (a word takes its share plus one for the space after it)."""
    spans: dict[int, list[tuple[int, int]]] = {}
    for turn in recording["turns"]:
        tokens = turn["text"].split()
        weights = np.cumsum([0] + [len(t) + 1 for t in tokens])
        edges = turn["s"] + (turn["e"] - turn["s"]) * weights / weights[-1]
        spans.setdefault(turn["channel"], []).extend(
            (round(a), round(b)) for a, b in zip(edges[:-1], edges[1:]))
    return spans


def test_most_words_of_the_sample_call_have_a_volume_within_0_to_2():
    recording = truth_for("call.flac")
    decoded = media.decode(SAMPLES / "call.flac", sample_rate=None)
    volumes = np.array([word.volume for channel, spans in truth_words(recording).items()
                        for word in analyse_words(decoded.samples[channel], decoded.sample_rate, spans)])
    assert len(volumes) > 150
    assert np.mean((volumes > 0) & (volumes <= 2)) >= 2 / 3
    assert 0.5 <= np.median(volumes) <= 1.5
    assert volumes.max() > 2  # the loudest words are kept above 2, not cropped


def test_the_volume_metrics_of_the_sample_call_follow_its_loudness_without_cropping():
    from speechproc.conversation import Token
    from speechproc.stages.analytics.metrics import talk_style

    decoded = media.decode(SAMPLES / "call.flac", sample_rate=None)
    spans = truth_words(truth_for("call.flac"))

    def party(channel: int, speaker: str, gain: float) -> list[Token]:
        features = analyse_words(decoded.samples[channel] * gain, decoded.sample_rate, spans[channel])
        return [Token(p=0, c=1.0, s=s, e=e, w="w", speaker=speaker, v=f.volume, pitch=f.pitch)
                for (s, e), f in zip(spans[channel], features)]

    base = talk_style(party(0, "Agent", 1.0), party(1, "Caller", 1.0))
    louder = talk_style(party(0, "Agent", 2.0), party(1, "Caller", 1.0))
    assert 0.1 <= base["agent-relative-voice-volume-energy"] < 1 and 0.1 <= base["caller-relative-voice-volume-energy"] < 1
    assert louder["agent-relative-voice-volume-energy"] == pytest.approx(4 * base["agent-relative-voice-volume-energy"], abs=0.03)
    assert louder["agent-voice-dynamism-std-dev-score"] == pytest.approx(4 * base["agent-voice-dynamism-std-dev-score"], abs=0.03)
    assert louder["agent-intra-call-change-in-relative-voice-volume-energy"] == pytest.approx(
        base["agent-intra-call-change-in-relative-voice-volume-energy"], abs=0.01)
    assert louder["caller-relative-voice-volume-energy"] == base["caller-relative-voice-volume-energy"]
