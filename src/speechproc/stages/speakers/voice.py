"""Word-level voice features: two frequency peaks (`frq`), relative volume (`v`) and a pitch estimate.

Everything is computed from the word's own channel at the recording's original sample rate, in
batches of short frames (40 ms Hann windows every 20 ms) transformed together with numpy.

- `frq`: the mean power spectrum over the word's frames; its highest local maximum is the dominant
  peak and the highest maximum outside that peak's main lobe the secondary one. `f` is refined by
  parabolic interpolation; `e` is the amplitude of that spectral component relative to digital full
  scale (a full-scale sine has e = 1). Peaks lie between 50 Hz and the ceiling: 16 kHz for recordings
  sampled at 32 kHz or more, else 8 kHz, and never above the Nyquist frequency.
- `v = A * M`: A is the mean and M the maximum RMS level of the word's frames, each relative to a
  reference of -22 dBFS. A sound held steadily at that level has v = 1, and v grows with the square
  of the amplitude, so twice as loud gives four times the value (3 dB louder, twice the value).
  A word's loudest frame lies a few dB above the speech level and its mean a few dB below, so a
  channel whose speech level is about -23 dBFS has its median word near v = 1. The reference was
  chosen so that recorded speech falls mostly within 0-2, as VoiceBase's own output does: about
  three quarters of the words on the sample calls and on real recordings
  (benchmarks/speakers/voice_scale.py). Values above 2 are kept, not cropped, so that the volume metrics
  see the real spread.
- pitch: per frame, the autocorrelation normalised by the window's own (Boersma 1993) over lags
  for 60-400 Hz; frames whose peak clears the voicing threshold give F0, and the word's pitch is their
  median. It is internal (the v3 word has no field for it) and feeds the talk-style metrics.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from speechproc.concurrency import ordered
from speechproc.conversation import Channel, Conversation, FrequencyPeak, Token

FRAME_S = 0.040
HOP_S = 0.020
MIN_PEAK_HZ = 50.0
PITCH_RANGE_HZ = (60.0, 400.0)
VOICING_THRESHOLD = 0.45
OCTAVE_COST = 0.02
REFERENCE_DBFS = -22.0
REFERENCE_RMS = 10 ** (REFERENCE_DBFS / 20)
SILENCE_AMPLITUDE = 1e-4  # peaks weaker than -80 dBFS are reported as {f: 0, e: 0}
BATCH_FRAMES = 4096


@dataclass
class WordFeatures:
    peaks: list[FrequencyPeak]
    volume: float
    pitch: float | None


def frequency_ceiling(sample_rate: int) -> float:
    """The highest reported frequency: 16 kHz for rates of 32 kHz and up, else 8 kHz; never above Nyquist."""
    ceiling = 16000.0 if sample_rate >= 32000 else 8000.0
    return min(ceiling, sample_rate / 2)


class _Analyser:
    """Frame geometry and precomputed windows for one sample rate."""

    def __init__(self, sample_rate: int) -> None:
        self.rate = sample_rate
        self.frame = max(16, round(FRAME_S * sample_rate))
        self.hop = max(1, round(HOP_S * sample_rate))
        self.nfft = 1 << int(np.ceil(np.log2(2 * self.frame)))  # zero padding: finer peaks, linear autocorrelation
        self.window = np.hanning(self.frame + 2)[1:-1].astype(np.float32)
        self.amplitude_scale = 2.0 / float(self.window.sum())
        bins = np.fft.rfftfreq(self.nfft, 1.0 / sample_rate)
        self.bin_hz = sample_rate / self.nfft
        self.peak_band = (bins >= MIN_PEAK_HZ) & (bins <= frequency_ceiling(sample_rate))
        self.lobe_bins = int(np.ceil(2 * sample_rate / self.frame / self.bin_hz))  # Hann main lobe half-width
        window_ac = np.fft.irfft(np.abs(np.fft.rfft(self.window, self.nfft)) ** 2, self.nfft)[: self.frame]
        self.window_ac = np.maximum(window_ac / window_ac[0], 1e-6)
        lo = int(np.floor(sample_rate / PITCH_RANGE_HZ[1]))
        hi = min(int(np.ceil(sample_rate / PITCH_RANGE_HZ[0])), self.frame // 2)
        self.lags = (lo, hi)

    def frame_starts(self, s_ms: int, e_ms: int, n_samples: int) -> np.ndarray:
        """Frame start samples covering [s, e] (the part of it within the channel); at least one frame, centred
        on a short word."""
        start = min(max(0, round(s_ms * self.rate / 1000)), n_samples)
        end = min(max(start, round(e_ms * self.rate / 1000)), n_samples)
        if end - start <= self.frame:
            centre = (start + end) // 2
            first = min(max(0, centre - self.frame // 2), max(0, n_samples - self.frame))
            return np.array([first], dtype=np.int64)
        return np.arange(start, end - self.frame + 1, self.hop, dtype=np.int64)


def _interpolate(log_mag: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Parabolic interpolation around bins k of each row: (offset in bins, peak log-magnitude)."""
    rows = np.arange(log_mag.shape[0])
    left = log_mag[rows, np.maximum(k - 1, 0)]
    mid = log_mag[rows, k]
    right = log_mag[rows, np.minimum(k + 1, log_mag.shape[1] - 1)]
    denom = left - 2 * mid + right
    offset = np.where(np.abs(denom) > 1e-12, 0.5 * (left - right) / np.where(denom == 0, 1, denom), 0.0)
    offset = np.clip(offset, -0.5, 0.5)
    return offset, mid - 0.25 * (left - right) * offset


def _peaks(power: np.ndarray, an: _Analyser) -> tuple[np.ndarray, np.ndarray]:
    """Dominant and secondary peaks of each row of mean power spectra: (freqs (n, 2), amplitudes (n, 2))."""
    magnitude = np.sqrt(np.maximum(power, 0.0)) * an.amplitude_scale
    is_max = np.zeros_like(magnitude, dtype=bool)
    is_max[:, 1:-1] = (magnitude[:, 1:-1] > magnitude[:, :-2]) & (magnitude[:, 1:-1] >= magnitude[:, 2:])
    candidates = np.where(is_max & an.peak_band, magnitude, 0.0)
    log_mag = np.log(np.maximum(magnitude, 1e-12))
    freqs = np.zeros((len(power), 2))
    amps = np.zeros((len(power), 2))
    bins = np.arange(magnitude.shape[1])
    for slot in range(2):
        k = np.argmax(candidates, axis=1)
        present = candidates[np.arange(len(k)), k] > SILENCE_AMPLITUDE
        offset, peak_log = _interpolate(log_mag, k)
        freqs[:, slot] = np.where(present, (k + offset) * an.bin_hz, 0.0)
        amps[:, slot] = np.where(present, np.exp(peak_log), 0.0)
        candidates[np.abs(bins[None, :] - k[:, None]) <= an.lobe_bins] = 0.0
    return freqs, np.clip(amps, 0.0, 1.0)


def _frame_pitch(power: np.ndarray, an: _Analyser) -> np.ndarray:
    """F0 in Hz per frame, NaN where the frame is unvoiced."""
    lo, hi = an.lags
    ac = np.fft.irfft(power, an.nfft, axis=1)[:, : hi + 2]
    energy = ac[:, :1]
    normalised = np.where(energy > 1e-10, ac / np.maximum(energy, 1e-10), 0.0) / an.window_ac[: hi + 2]
    # Praat's octave cost: a slight preference for shorter lags stops halving the pitch of periodic voices
    cost = OCTAVE_COST * np.log2(np.arange(lo, hi + 1) / lo)
    k = np.argmax(normalised[:, lo : hi + 1] - cost, axis=1) + lo
    best = normalised[np.arange(len(k)), k]
    offset, _ = _interpolate(normalised, k)
    voiced = (best >= VOICING_THRESHOLD) & (energy[:, 0] > 1e-8) & (k > lo) & (k < hi)
    return np.where(voiced, an.rate / (k + offset), np.nan)


def analyse_words(samples: np.ndarray, sample_rate: int, spans: list[tuple[int, int]]) -> list[WordFeatures]:
    """Voice features for each (s, e) span in ms of one channel."""
    if not spans:
        return []
    an = _Analyser(sample_rate)
    padded = samples if len(samples) >= an.frame else np.pad(samples, (0, an.frame - len(samples)))
    starts_per_word = [an.frame_starts(s, e, len(padded)) for s, e in spans]
    counts = np.array([len(st) for st in starts_per_word])
    all_starts = np.concatenate(starts_per_word)
    offsets = np.arange(an.frame)
    power_sum = np.zeros((len(spans), an.nfft // 2 + 1))
    rms_mean = np.zeros(len(spans))
    rms_max = np.zeros(len(spans))
    pitch_frames = np.empty(len(all_starts))
    word_of_frame = np.repeat(np.arange(len(spans)), counts)
    for lo in range(0, len(all_starts), BATCH_FRAMES):
        hi = min(lo + BATCH_FRAMES, len(all_starts))
        frames = padded[all_starts[lo:hi, None] + offsets[None, :]]
        rms = np.sqrt(np.mean(np.square(frames, dtype=np.float64), axis=1))
        power = np.abs(np.fft.rfft(frames * an.window, an.nfft, axis=1)) ** 2
        owners = word_of_frame[lo:hi]
        firsts = np.concatenate(([0], np.flatnonzero(np.diff(owners)) + 1))  # a word's frames are contiguous
        words = owners[firsts]
        power_sum[words] += np.add.reduceat(power, firsts, axis=0)
        rms_mean[words] += np.add.reduceat(rms, firsts)
        rms_max[words] = np.maximum(rms_max[words], np.maximum.reduceat(rms, firsts))
        pitch_frames[lo:hi] = _frame_pitch(power, an)
    rms_mean /= counts
    freqs, amps = _peaks(power_sum / counts[:, None], an)
    volume = (rms_mean / REFERENCE_RMS) * (rms_max / REFERENCE_RMS)
    pitches = np.split(pitch_frames, np.cumsum(counts)[:-1])
    result = []
    for i in range(len(spans)):
        voiced = pitches[i][~np.isnan(pitches[i])]
        result.append(WordFeatures(
            peaks=[FrequencyPeak(f=round(float(freqs[i, j]), 3), e=round(float(amps[i, j]), 3)) for j in range(2)],
            volume=round(float(volume[i]), 3),
            pitch=round(float(np.median(voiced)), 1) if len(voiced) else None,
        ))
    return result


def _channel_audio(channel: Channel) -> tuple[np.ndarray, int]:
    if channel.original is not None:
        return channel.original, channel.original_rate
    return channel.live_samples(), channel.sample_rate


def run(conv: Conversation) -> None:
    """Fill `frq`, `v` and `pitch` of every word token (not punctuation or turn markers). Each speaker's words
    are analysed in a thread of their own, up to one per core (numpy's FFTs let go of the GIL)."""
    words_by_speaker: dict[str, list[Token]] = {}
    for w in conv.words:
        if w.is_word:
            words_by_speaker.setdefault(w.speaker, []).append(w)

    def analyse(words: list[Token]) -> None:
        samples, rate = _channel_audio(conv.channel_of(words[0].speaker))
        for w, feats in zip(words, analyse_words(samples, rate, [(w.s, w.e) for w in words])):
            w.frq, w.v, w.pitch = feats.peaks, feats.volume, feats.pitch

    groups = list(words_by_speaker.values())
    for _ in ordered(analyse, groups, os.cpu_count() or 1, "speechproc-voice"):
        pass
