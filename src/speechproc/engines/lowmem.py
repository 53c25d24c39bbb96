"""faster-whisper's features and voice activity detection of a long recording, in bounded memory.

faster-whisper computes the log-Mel spectrogram of its whole input at once: for an hour of 16 kHz audio
the framed signal and its Fourier transform hold well over a gigabyte, for a result of 115 MB. Its
Silero VAD builds two more copies of the whole input before running the model 10,000 windows at a
time (the padded input, then every window with its context), and the model's working memory for 10,000
windows. `BlockFeatureExtractor`, `StreamingSileroVAD` and `speech_timestamps` give the same numbers (the
same frames, window, Mel filters, clamp; the same model state and probabilities; the same speech
decisions) while holding one block at a time. `install` puts them in place for the recogniser's own VAD too.

The Mel projection is not faster-whisper's matrix product: numpy hands that to its multi-threaded BLAS,
whose sums round differently with the number of threads it may use (one in a worker process, one per
core in the main one), and a last-bit change in a feature can change a word. The filters are sparse
(each covers a few frequency bins), so a sparse product, always summed in the same order on one thread,
is both faster and the same everywhere the same CPU runs it.
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from functools import lru_cache

import numpy as np
from faster_whisper import vad as fw_vad
from faster_whisper.feature_extractor import FeatureExtractor
from faster_whisper.utils import get_assets_path

BLOCK_FRAMES = 6000  # 60 s of 10 ms frames
VAD_WINDOW, VAD_CONTEXT = 512, 64  # as faster-whisper's SileroVADModel runs the model
FW_VAD_BATCH = 10000  # the windows of one model call in faster-whisper's SileroVADModel
# The windows of one model call here. A window's probability is the same number in a call of any size (the
# encoder takes each window on its own, the LSTM steps through them in order with its state carried over),
# and a thousand windows' working memory stays in the cache: 10 % faster than faster-whisper's batches on
# one core, 15-30 % with two channels at once (docs/benchmarks.md#whole-runs-against-bare-recognition).
VAD_BATCH = 1000


def install(model) -> None:  # model: faster_whisper.WhisperModel
    """Compute this model's features, and every VAD pass in this process, in blocks."""
    from faster_whisper import transcribe

    model.feature_extractor = BlockFeatureExtractor(**model.feat_kwargs)
    fw_vad.get_vad_model = _streaming_vad_model
    transcribe.get_speech_timestamps = speech_timestamps


class BlockFeatureExtractor(FeatureExtractor):
    """faster-whisper's FeatureExtractor, computed in blocks of BLOCK_FRAMES frames, its Mel projection summed
    on one thread in a fixed order."""

    def __init__(self, *args, **kwargs) -> None:
        from scipy.sparse import csr_array

        super().__init__(*args, **kwargs)
        self._sparse_filters = csr_array(self.mel_filters)

    def __call__(self, waveform: np.ndarray, padding: int = 160, chunk_length: int | None = None) -> np.ndarray:
        length = len(waveform) + padding  # the signal zero-padded at the end, as faster-whisper pads it
        kept = length // self.hop_length  # frames of the centred STFT, less the last one, which is dropped
        if chunk_length is not None:
            self.n_samples = chunk_length * self.sampling_rate
            self.nb_max_frames = self.n_samples // self.hop_length
        waveform = np.asarray(waveform, dtype=np.float32)
        spectrogram = np.empty((self.mel_filters.shape[0], kept), dtype=np.float32)
        for first, power in self._power(waveform, length, kept):
            mel = self._sparse_filters @ power
            spectrogram[:, first:first + power.shape[1]] = np.log10(np.clip(mel, a_min=1e-10, a_max=None))
        np.maximum(spectrogram, spectrogram.max() - 8.0, out=spectrogram)
        spectrogram += 4.0
        spectrogram /= 4.0
        return spectrogram

    def _power(self, waveform: np.ndarray, length: int, kept: int) -> Iterator[tuple[int, np.ndarray]]:
        """(first frame, power spectrum of frames first.. as bins x frames), a block at a time. A signal of one
        block or less goes through faster-whisper's own STFT (which also pads a signal shorter than the
        window as numpy does)."""
        window = np.hanning(self.n_fft + 1)[:-1].astype(np.float32)
        if kept <= BLOCK_FRAMES:
            padded = np.pad(waveform, (0, length - len(waveform)))
            spectrum = self.stft(padded, self.n_fft, self.hop_length, window=window, return_complex=True)
            yield 0, np.abs(spectrum.astype(np.complex64)[..., :kept]) ** 2
            return
        for first in range(0, kept, BLOCK_FRAMES):
            last = min(kept, first + BLOCK_FRAMES)
            segment = _centred(waveform, length, self.n_fft // 2, first * self.hop_length,
                               (last - 1) * self.hop_length + self.n_fft)
            frames = np.lib.stride_tricks.as_strided(
                segment, (last - first, self.n_fft), (self.hop_length * segment.strides[0], segment.strides[0]))
            spectrum = np.fft.rfft(frames * window, n=self.n_fft, axis=-1).astype(np.complex64)
            yield first, np.abs(spectrum.T) ** 2


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
        """The probabilities of audio already padded to whole windows, as faster-whisper calls the model."""
        if len(audio) <= VAD_BATCH * num_samples or (num_samples, context_size_samples) != (VAD_WINDOW, VAD_CONTEXT):
            return super().__call__(audio, num_samples, context_size_samples)
        return self._run(audio, len(audio) // VAD_WINDOW - 1, audio[-VAD_WINDOW:])

    def probabilities(self, audio: np.ndarray, scale: float | None = None) -> np.ndarray:
        """What the model gives for `audio` (times `scale`) zero-padded to whole windows as faster-whisper pads it
        (always by 1 to VAD_WINDOW samples), without that padded copy of the whole input."""
        whole = len(audio) // VAD_WINDOW
        tail = np.zeros(VAD_WINDOW, dtype=np.float32)
        tail[: len(audio) - whole * VAD_WINDOW] = audio[whole * VAD_WINDOW:]
        return self._run(audio, whole, tail, scale)

    def _run(self, audio: np.ndarray, whole: int, tail: np.ndarray, scale: float | None = None) -> np.ndarray:
        """The model over windows 0..whole-1 of `audio` and then `tail`, VAD_BATCH at a time with the state carried
        over. Each window's context is the end of the window before it (zeros for the first), and the last
        window's own end is zeroed, as faster-whisper does (its context view writes through). With `scale`,
        every window is multiplied by `np.float32(scale)` as it is read: the numbers of a scaled copy."""
        factor = np.float32(scale) if scale is not None else None
        tail = tail.astype(np.float32, copy=True)
        if factor is not None:
            tail *= factor
        tail[-VAD_CONTEXT:] = 0
        total = whole + 1
        h = np.zeros((1, 1, 128), dtype=np.float32)
        c = np.zeros((1, 1, 128), dtype=np.float32)
        previous = np.zeros(VAD_CONTEXT, dtype=np.float32)
        outputs = []
        for first in range(0, total, VAD_BATCH):
            last = min(total, first + VAD_BATCH)
            batch = np.empty((last - first, VAD_CONTEXT + VAD_WINDOW), dtype=np.float32)
            inside = min(last, whole) - first  # windows of this batch that lie in `audio` itself
            if inside > 0:
                batch[:inside, VAD_CONTEXT:] = audio[first * VAD_WINDOW:(first + inside) * VAD_WINDOW].reshape(
                    inside, VAD_WINDOW)
                if factor is not None:
                    batch[:inside, VAD_CONTEXT:] *= factor
            if last == total:
                batch[-1, VAD_CONTEXT:] = tail
            batch[1:, :VAD_CONTEXT] = batch[:-1, -VAD_CONTEXT:]
            batch[0, :VAD_CONTEXT] = previous
            previous = batch[-1, -VAD_CONTEXT:].copy()
            output, h, c = self.session.run(None, {"input": batch, "h": h, "c": c})
            outputs.append(output)
        return np.concatenate(outputs, axis=0)


@lru_cache(maxsize=1)
def _streaming_vad_model() -> StreamingSileroVAD:
    return StreamingSileroVAD(os.path.join(get_assets_path(), "silero_vad_v6.onnx"))


def speech_timestamps(audio: np.ndarray, vad_options: fw_vad.VadOptions | None = None, sampling_rate: int = 16000,
                      scale: float | None = None, **kwargs) -> list[dict[str, int]]:
    """faster-whisper's `get_speech_timestamps`: the same speech chunks (start and end samples), decided the same
    way from the same probabilities, without its padded copy of the whole input. With `scale`, those of
    `audio * np.float32(scale)`, each window scaled as it is read (no scaled copy of the whole input)."""
    options = vad_options or fw_vad.VadOptions(**kwargs)
    probabilities = _streaming_vad_model().probabilities(np.asarray(audio, dtype=np.float32), scale)
    speeches = _speech(probabilities.reshape(-1), options, sampling_rate, len(audio))
    return _padded(speeches, options, sampling_rate, len(audio))


def _speech(probabilities: np.ndarray, options: fw_vad.VadOptions, rate: int, length: int) -> list[dict[str, int]]:
    """Speech chunks from window probabilities: speech starts above the threshold, ends after enough silence
    below the lower one, and a chunk that would run past the longest allowed is split at its last silence
    of 98 ms or more (or cut where it is); one still open ends with the audio, unless it is too short."""
    window = VAD_WINDOW
    # faster-whisper compares the model's float32 probabilities with the thresholds in float32
    threshold = float(np.float32(options.threshold))
    low = float(np.float32(options.neg_threshold if options.neg_threshold is not None
                           else max(options.threshold - 0.15, 0.01)))
    min_speech = rate * options.min_speech_duration_ms / 1000
    pad = rate * options.speech_pad_ms / 1000
    max_speech = rate * options.max_speech_duration_s - window - 2 * pad
    min_silence = rate * options.min_silence_duration_ms / 1000
    min_silence_at_max = rate * 98 / 1000
    triggered = False
    speeches: list[dict[str, int]] = []
    current: dict[str, int] = {}
    temp_end = prev_end = next_start = 0
    for i, probability in enumerate(probabilities.tolist()):
        here = window * i
        if probability >= threshold and temp_end:
            temp_end = 0
            if next_start < prev_end:
                next_start = here
        if probability >= threshold and not triggered:
            triggered = True
            current["start"] = here
            continue
        if triggered and here - current["start"] > max_speech:
            if prev_end:
                current["end"] = prev_end
                speeches.append(current)
                current = {}
                if next_start < prev_end:  # the silence before is still not speech
                    triggered = False
                else:
                    current["start"] = next_start
                prev_end = next_start = temp_end = 0
            else:
                current["end"] = here
                speeches.append(current)
                current = {}
                prev_end = next_start = temp_end = 0
                triggered = False
                continue
        if probability < low and triggered:
            if not temp_end:
                temp_end = here
            if here - temp_end > min_silence_at_max:
                prev_end = temp_end
            if here - temp_end < min_silence:
                continue
            current["end"] = temp_end
            if current["end"] - current["start"] > min_speech:
                speeches.append(current)
            current = {}
            prev_end = next_start = temp_end = 0
            triggered = False
    if current and length - current["start"] > min_speech:
        speeches.append({**current, "end": length})
    return speeches


def _padded(speeches: list[dict[str, int]], options: fw_vad.VadOptions, rate: int, length: int) -> list[dict[str, int]]:
    """The chunks padded by speech_pad_ms on each side, a silence shorter than two pads split in half."""
    pad = rate * options.speech_pad_ms / 1000
    for i, speech in enumerate(speeches):
        if i == 0:
            speech["start"] = int(max(0, speech["start"] - pad))
        if i != len(speeches) - 1:
            silence = speeches[i + 1]["start"] - speech["end"]
            if silence < 2 * pad:
                speech["end"] += int(silence // 2)
                speeches[i + 1]["start"] = int(max(0, speeches[i + 1]["start"] - silence // 2))
            else:
                speech["end"] = int(min(length, speech["end"] + pad))
                speeches[i + 1]["start"] = int(max(0, speeches[i + 1]["start"] - pad))
        else:
            speech["end"] = int(min(length, speech["end"] + pad))
    return speeches
