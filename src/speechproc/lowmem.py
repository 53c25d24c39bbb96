"""faster-whisper's features and voice activity detection of a long recording, in bounded memory.

faster-whisper computes the log-Mel spectrogram of its whole input at once: for an hour of 16 kHz audio
the framed signal and its Fourier transform hold well over a gigabyte, for a result of 115 MB. Its
Silero VAD builds two more copies of the whole input before running the model 10,000 windows at a
time. `BlockFeatureExtractor` and `StreamingSileroVAD` give the same numbers (the same frames, window,
Mel filters, clamp; the same model batches and state) while holding one block at a time; inputs of
one block or less go through faster-whisper's own code unchanged. `install` puts both in place.
"""
from __future__ import annotations

import os
from functools import lru_cache

import numpy as np
from faster_whisper import vad as fw_vad
from faster_whisper.feature_extractor import FeatureExtractor
from faster_whisper.utils import get_assets_path

BLOCK_FRAMES = 6000  # 60 s of 10 ms frames
VAD_WINDOW, VAD_CONTEXT, VAD_BATCH = 512, 64, 10000  # as faster-whisper's SileroVADModel runs the model


def install(model) -> None:  # model: faster_whisper.WhisperModel
    """Compute this model's features, and every VAD pass in this process, in blocks."""
    model.feature_extractor = BlockFeatureExtractor(**model.feat_kwargs)
    fw_vad.get_vad_model = _streaming_vad_model


class BlockFeatureExtractor(FeatureExtractor):
    """faster-whisper's FeatureExtractor, computed in blocks of BLOCK_FRAMES frames."""

    def __call__(self, waveform: np.ndarray, padding: int = 160, chunk_length: int | None = None) -> np.ndarray:
        length = len(waveform) + padding  # the signal zero-padded at the end, as faster-whisper pads it
        kept = length // self.hop_length  # frames of the centred STFT, less the last one, which is dropped
        if kept <= BLOCK_FRAMES:
            return super().__call__(waveform, padding, chunk_length)
        if chunk_length is not None:
            self.n_samples = chunk_length * self.sampling_rate
            self.nb_max_frames = self.n_samples // self.hop_length
        waveform = np.asarray(waveform, dtype=np.float32)
        window = np.hanning(self.n_fft + 1)[:-1].astype(np.float32)
        spectrogram = np.empty((self.mel_filters.shape[0], kept), dtype=np.float32)
        for first in range(0, kept, BLOCK_FRAMES):
            last = min(kept, first + BLOCK_FRAMES)
            segment = _centred(waveform, length, self.n_fft // 2, first * self.hop_length,
                               (last - 1) * self.hop_length + self.n_fft)
            frames = np.lib.stride_tricks.as_strided(
                segment, (last - first, self.n_fft), (self.hop_length * segment.strides[0], segment.strides[0]))
            spectrum = np.fft.rfft(frames * window, n=self.n_fft, axis=-1).astype(np.complex64)
            mel = self.mel_filters @ (np.abs(spectrum.T) ** 2)
            spectrogram[:, first:last] = np.log10(np.clip(mel, a_min=1e-10, a_max=None))
        np.maximum(spectrogram, spectrogram.max() - 8.0, out=spectrogram)
        spectrogram += 4.0
        spectrogram /= 4.0
        return spectrogram


def _centred(waveform: np.ndarray, length: int, half: int, start: int, stop: int) -> np.ndarray:
    """Samples [start, stop) of the waveform zero-padded to `length` and then reflect-padded by `half` on each
    side (numpy's "reflect": the edge sample is not repeated), without building the padded copy."""
    index = np.arange(start, stop) - half
    index = np.where(index < 0, -index, index)
    index = np.where(index >= length, 2 * (length - 1) - index, index)
    inside = index < len(waveform)
    return np.where(inside, waveform[np.minimum(index, len(waveform) - 1)], np.float32(0)).astype(np.float32)


class StreamingSileroVAD(fw_vad.SileroVADModel):
    """faster-whisper's SileroVADModel, with each batch of windows and its context built on its own."""

    def __call__(self, audio: np.ndarray, num_samples: int = VAD_WINDOW,
                 context_size_samples: int = VAD_CONTEXT) -> np.ndarray:
        if len(audio) <= VAD_BATCH * num_samples:
            return super().__call__(audio, num_samples, context_size_samples)
        windows = audio.reshape(-1, num_samples)
        windows[-1, -context_size_samples:] = 0  # as faster-whisper does (its context view writes through)
        h = np.zeros((1, 1, 128), dtype=np.float32)
        c = np.zeros((1, 1, 128), dtype=np.float32)
        outputs = []
        for first in range(0, len(windows), VAD_BATCH):
            block = windows[first : first + VAD_BATCH]
            context = np.zeros((len(block), context_size_samples), dtype=np.float32)
            context[1:] = block[:-1, -context_size_samples:]  # each window's context: the end of the one before
            if first:
                context[0] = windows[first - 1, -context_size_samples:]
            batch = np.concatenate([context, block], axis=1)
            output, h, c = self.session.run(None, {"input": batch, "h": h, "c": c})
            outputs.append(output)
        return np.concatenate(outputs, axis=0)


@lru_cache(maxsize=1)
def _streaming_vad_model() -> StreamingSileroVAD:
    return StreamingSileroVAD(os.path.join(get_assets_path(), "silero_vad_v6.onnx"))
