"""Resemblyzer's speaker encoder (GE2E) on our own front-end: its 40-band mel power spectrogram and level."""
from __future__ import annotations

import numpy as np

from speechproc.concurrency import ordered
from speechproc.engines.models import load_voice_encoder
from speechproc.media import ASR_RATE

MEL_FRAME_MS = 10
EMBED_BATCH = 256
_NORM_DBFS = -30.0  # Resemblyzer's training level


def _hz_to_mel(f: np.ndarray | float) -> np.ndarray:
    """Slaney's mel scale (linear below 1 kHz, logarithmic above), as librosa uses by default."""
    f = np.asarray(f, dtype=np.float64)
    log_step = np.log(6.4) / 27.0
    return np.where(f < 1000.0, f * 3.0 / 200.0, 15.0 + np.log(np.maximum(f, 1e-9) / 1000.0) / log_step)


def _mel_to_hz(m: np.ndarray) -> np.ndarray:
    log_step = np.log(6.4) / 27.0
    return np.where(m < 15.0, m * 200.0 / 3.0, 1000.0 * np.exp(log_step * (m - 15.0)))


def mel_filterbank(rate: int = ASR_RATE, n_fft: int = 400, n_mels: int = 40) -> np.ndarray:
    """Slaney-normalised triangular mel filters, shape (n_mels, n_fft // 2 + 1)."""
    mel_f = _mel_to_hz(np.linspace(_hz_to_mel(0.0), _hz_to_mel(rate / 2), n_mels + 2))
    fft_f = np.fft.rfftfreq(n_fft, 1.0 / rate)
    ramps = mel_f[:, None] - fft_f[None, :]
    fdiff = np.diff(mel_f)
    lower = -ramps[:-2] / fdiff[:-1, None]
    upper = ramps[2:] / fdiff[1:, None]
    weights = np.maximum(0.0, np.minimum(lower, upper))
    return (weights * (2.0 / (mel_f[2:] - mel_f[:-2]))[:, None]).astype(np.float32)


_FILTERS = mel_filterbank()


def mel_spectrogram(samples: np.ndarray) -> np.ndarray:
    """Resemblyzer's input: 40-band mel power spectrogram (not log), 25 ms windows every 10 ms, (frames, 40)."""
    n_fft, hop = 400, ASR_RATE * MEL_FRAME_MS // 1000
    padded = np.pad(samples.astype(np.float32), n_fft // 2)
    n_frames = 1 + (len(padded) - n_fft) // hop
    window = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n_fft) / n_fft)).astype(np.float32)  # periodic Hann
    out = np.empty((n_frames, _FILTERS.shape[0]), dtype=np.float32)
    step = 8192
    for lo in range(0, n_frames, step):
        idx = (np.arange(lo, min(lo + step, n_frames)) * hop)[:, None] + np.arange(n_fft)[None, :]
        power = np.abs(np.fft.rfft(padded[idx] * window, axis=1)) ** 2
        out[lo: lo + len(idx)] = power @ _FILTERS.T
    return out


def normalised(samples: np.ndarray, regions: list[tuple[int, int]]) -> np.ndarray:
    """Raise the level so speech sits at Resemblyzer's -30 dBFS (never lowered, as Resemblyzer does)."""
    speech = np.concatenate([samples[s * ASR_RATE // 1000: e * ASR_RATE // 1000] for s, e in regions])
    rms = float(np.sqrt(np.mean(np.square(speech, dtype=np.float64)))) if len(speech) else 0.0
    if rms <= 1e-9:
        return samples
    gain = 10 ** ((_NORM_DBFS - 20 * np.log10(rms)) / 20)
    return samples * np.float32(gain) if gain > 1 else samples


def embed_windows(mel: np.ndarray, starts: np.ndarray, lengths: np.ndarray, weights: str | None = None,
                  threads: int = 1) -> np.ndarray:
    """One L2-normalised 256-d embedding per window (`starts` and `lengths` in mel frames); short windows are
    tiled to the full length. The windows go through the encoder EMBED_BATCH at a time (memory stays flat on
    long recordings), `threads` batches side by side."""
    import torch

    encoder = load_voice_encoder(weights)
    full = int(lengths.max()) if len(lengths) else 0

    def embedded(lo: int) -> np.ndarray:
        firsts, counts = starts[lo: lo + EMBED_BATCH], lengths[lo: lo + EMBED_BATCH]
        batch = np.zeros((len(firsts), full, mel.shape[1]), dtype=np.float32)
        for i, (first, n) in enumerate(zip(firsts, counts)):
            piece = mel[first: first + n]
            if len(piece):
                batch[i] = np.resize(piece, (full, mel.shape[1])) if len(piece) < full else piece[:full]
        with torch.inference_mode():
            return encoder(torch.from_numpy(batch)).cpu().numpy()

    out = list(ordered(embedded, range(0, len(starts), EMBED_BATCH), threads, "speechproc-resemblyzer"))
    emb = np.concatenate(out) if out else np.zeros((0, 256), dtype=np.float32)
    return emb / np.maximum(np.linalg.norm(emb, axis=1, keepdims=True), 1e-9)
