"""Batched recognition: the speech of every channel of a call packed into chunks of at most 30 s, decoded
`batch_size` chunks at a time (the channels share batches), and any chunk whose result looks broken decoded
again on faster-whisper's sequential path.

Whisper decodes a chunk in one pass when it is batched: no temperature fallback and, without timestamp
tokens, no way to go on where the decoder stopped. With a small model a chunk holding a long read-out
number can then repeat itself (`4.5.3.9...5.5.5.5`) or end early, losing what follows. Such a chunk is easy
to tell: its text compresses like a loop (faster-whisper's own fallback test), or a stretch of its speech
has no word at all. Only those chunks are decoded again, sequentially, with the fallback and seeking that
recover them, so batching keeps its speed and the sequential path's numbers.
"""
from __future__ import annotations

import bisect
import functools
import threading
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import numpy as np

from speechproc.concurrency import ordered, traced
from speechproc.media import give_back_memory

RATE = 16000  # the recogniser's sample rate
CHUNK_S = 30  # Whisper's input window: the most speech one chunk holds
LOOP_COMPRESSION = 2.4  # faster-whisper's compression_ratio_threshold: above it, the text repeats itself
UNHEARD_S = 3.0  # this much speech with no word in it means the decoder stopped or skipped
LOOP_REPEATS = 8  # a word or phrase said this many times in a row is a decoder caught in a loop
LOOP_PHRASE = 4  # the longest phrase looked for
VAD_MIN_SILENCE_MS = 160  # the silence that splits speech, as BatchedInferencePipeline uses it
# The encoder's window for a batch of short chunks: its cost grows with the square of the window, and Whisper
# hears a short chunk as well in 20 s as in 30 s, though not in 15 s on every CPU path nor in 10 s: see
# `window_frames` and docs/benchmarks.md#decoding-choices-the-encoders-window-packing-greedy-decoding.
SHORT_WINDOW_S = 20


@dataclass(frozen=True)
class Chunk:
    """Speech of one channel, up to CHUNK_S seconds, as pieces (start, end) of the channel's samples."""

    channel: int
    pieces: tuple[tuple[int, int], ...]

    @property
    def samples(self) -> int:
        return sum(end - start for start, end in self.pieces)

    def audio(self, channel_samples: np.ndarray) -> np.ndarray:
        """The chunk's pieces joined, as the recogniser hears them."""
        return np.concatenate([channel_samples[start:end] for start, end in self.pieces])

    def original_times(self, start: float, end: float) -> tuple[float, float]:
        """The channel times of a word at (start, end) seconds inside the joined chunk. The word belongs to the
        piece that holds its middle, and both ends move with that piece: a word that runs over a seam does not
        stretch across the silence cut out there (faster-whisper restores its VAD chunks the same way)."""
        ends = np.cumsum([piece_end - piece_start for piece_start, piece_end in self.pieces])
        middle = round((start + end) / 2 * RATE)
        index = min(bisect.bisect_right(ends.tolist(), middle), len(self.pieces) - 1)
        shift = self.pieces[index][0] - (int(ends[index - 1]) if index else 0)
        return max(0.0, start + shift / RATE), max(0.0, end + shift / RATE)


class _Spoken(Protocol):
    @property
    def text(self) -> str: ...


Said = TypeVar("Said", bound=_Spoken)  # a recognised word of any kind: ChunkWord, conversation.RecognizedWord


@dataclass(frozen=True)
class ChunkWord:
    """A recognised word, its times in seconds inside its chunk."""

    text: str
    start: float
    end: float
    probability: float


def speech_pieces(samples: np.ndarray, vad: bool, longest_s: int = CHUNK_S) -> list[tuple[int, int]]:
    """Where a channel has speech, in samples, as pieces of at most `longest_s`: Silero VAD's speech (split
    where it pauses, as near that length as it can), or, without VAD, the whole channel."""
    total = samples.shape[0]
    if total == 0:
        return []
    if not vad:
        found = [(0, total)] if total else []
    else:
        from faster_whisper.vad import VadOptions

        from speechproc.engines import lowmem

        found = [(int(s["start"]), int(s["end"])) for s in lowmem.speech_timestamps(
            samples, VadOptions(max_speech_duration_s=longest_s, min_silence_duration_ms=VAD_MIN_SILENCE_MS))]
    step = longest_s * RATE  # VAD's padding can take a piece just past longest_s
    return [(start, min(end, start + step)) for s, end in found if end > s for start in range(s, end, step)]


def pack(channel: int, pieces: list[tuple[int, int]], limit: int = CHUNK_S * RATE) -> list[Chunk]:
    """Consecutive pieces (each at most `limit` samples) joined into chunks of at most `limit` samples."""
    chunks: list[Chunk] = []
    current: list[tuple[int, int]] = []
    held = 0
    for start, end in pieces:
        if held + end - start > limit and current:
            chunks.append(Chunk(channel, tuple(current)))
            current, held = [], 0
        current.append((start, end))
        held += end - start
    if current:
        chunks.append(Chunk(channel, tuple(current)))
    return chunks


def compression_ratio(text: str) -> float:
    """How well a text compresses (faster-whisper's measure): a decoder caught in a loop scores high."""
    data = text.encode("utf-8")
    return len(data) / len(zlib.compress(data)) if data else 0.0


def _token(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalnum())


def _runs(tokens: list[str], longest: int) -> Iterator[tuple[int, int, int]]:
    """(first token, phrase length, times in a row) of every phrase of up to `longest` tokens said twice or more
    in a row."""
    for n in range(1, longest + 1):
        k = n
        while k <= len(tokens) - n:
            first, count = k - n, 1
            while k <= len(tokens) - n and tokens[k:k + n] == tokens[k - n:k]:
                count, k = count + 1, k + n
            if count > 1:
                yield first, n, count
            else:
                k += 1


def repeated_run(words: list[ChunkWord], longest: int = LOOP_PHRASE) -> int:
    """How many times in a row the chunk says the same word, or the same phrase of up to `longest` words, at
    most (case and punctuation aside)."""
    tokens = [_token(w.text) for w in words]
    return max((count for first, n, count in _runs(tokens, longest) if all(tokens[first:first + n])),
               default=1 if any(tokens) else 0)


def without_loops(words: list[Said]) -> list[Said]:
    """The words (anything with a `text`) with every loop (a word or phrase said LOOP_REPEATS times in a row or
    more) said once: what the sequential path still loops on is not speech."""
    tokens = [_token(w.text) for w in words]
    dropped: set[int] = set()
    for first, n, count in _runs(tokens, LOOP_PHRASE):
        if count >= LOOP_REPEATS and all(tokens[first:first + n]):
            dropped.update(range(first + n, first + n * count))
    return [w for k, w in enumerate(words) if k not in dropped] if dropped else words


def broken(words: list[ChunkWord], text: str, seconds: float, all_speech: bool = True) -> str | None:
    """Why a chunk's batched result cannot be kept, or None: a looping text, or, when the chunk is all speech
    (VAD's), UNHEARD_S of it with no word at its start, between two words or at its end. A chunk with no word
    at all is kept: music on hold or noise the VAD took for speech, not a decoder that stopped (decoding it
    again, with the sequential path's fallbacks, would only cost time).

    A loop is a text that compresses like one (faster-whisper's test) or a word or phrase said LOOP_REPEATS
    times in a row: a loop at the end of a chunk of varied speech does not raise the ratio of the whole."""
    if compression_ratio(text) > LOOP_COMPRESSION or repeated_run(words) >= LOOP_REPEATS:
        return "repeats itself"
    if not all_speech or not words:
        return None
    edges = [0.0, *(t for w in words for t in (w.start, w.end)), seconds]
    gaps = [edges[k + 1] - edges[k] for k in range(0, len(edges), 2)]
    if max(gaps) > UNHEARD_S:
        return "has speech without words"
    return None


def batches(chunks: list[Chunk], size: int) -> list[list[Chunk]]:
    """The chunks, in order, as the fewest batches of at most `size`, as even as can be. The plan depends on
    the chunks and `size` alone, never on how many decoders share the batches out."""
    if not chunks:
        return []
    count = -(-len(chunks) // size)
    smaller, larger = divmod(len(chunks), count)
    found, first = [], 0
    for k in range(count):
        last = first + smaller + (1 if k < larger else 0)
        found.append(chunks[first:last])
        first = last
    return found


def recognise(channels: list[np.ndarray], model, batch_size: int, vad: bool, options: dict, decoders: int = 1,
              short_window: bool = True, chunk_s: int = CHUNK_S, again: Callable[[], Any] | None = None,
              speech_found: Callable[[], None] | None = None) -> Iterator[tuple[Chunk, list[ChunkWord], str | None]]:
    """Recognise every channel's speech; yield (chunk, its words, why it was decoded again or None), chunks in
    time order. `options` are faster-whisper's transcribe options (language, beam_size, hotwords).

    The chunks go to the decoder `batch_size` at a time (`batches`: a plan fixed by the recording and the
    batch size). `decoders` batches are decoded at once, each by a replica of the model (it must have been
    loaded with that many workers), and the VAD of as many channels runs at once (Silero runs on one core);
    neither changes a word. With `short_window` a batch of short chunks is encoded in SHORT_WINDOW_S
    (`window_frames`), else in Whisper's 30 s. `chunk_s` (1-30) is the most speech a chunk holds: Whisper's
    window (packed into chunks of 19 s, which fit the short window, long speech lost accuracy for little
    speed: docs/benchmarks.md#decoding-choices-the-encoders-window-packing-greedy-decoding).

    A broken chunk is decoded again sequentially: without `again`, by the decoder that found it, in its turn
    (for a model with a single worker); with it, by `again()`, a recogniser with a single worker, one chunk
    at a time, in time order, as each one's turn to be yielded comes (several decoders need it). Whisper's
    fallback samples, every worker of a model draws from a random generator of its own, and which of the
    decoders' replicas a chunk reached would depend on timing (`seeded_sampling`).

    `speech_found` is called once the VAD is done, before decoding starts."""
    if not 1 <= chunk_s <= CHUNK_S:
        raise ValueError(f"chunk_s must be 1-{CHUNK_S} seconds, not {chunk_s}")
    if decoders > 1 and again is None:
        raise ValueError("several decoders need `again`: a single-worker recogniser for the chunks decoded again")
    with traced("vad"):
        speech = list(ordered(lambda samples: speech_pieces(samples, vad, chunk_s), channels,
                              min(decoders, len(channels)), "speechproc-vad"))
    if speech_found is not None:
        speech_found()
    give_back_memory(sum(c.nbytes for c in channels))  # the VAD's working memory, before decoding takes its own
    chunks = [chunk for index, pieces in enumerate(speech) for chunk in pack(index, pieces, chunk_s * RATE)]
    chunks.sort(key=lambda c: (c.pieces[0][0], c.channel))

    def decode(batch: list[Chunk]) -> list[tuple[Chunk, list[ChunkWord], str | None]]:
        audios = [chunk.audio(channels[chunk.channel]) for chunk in batch]
        pipeline = fitted_pipeline(ChunkWordTimes(model), short_window)
        decoded = []
        for chunk, audio, (words, text) in zip(batch, audios, _decode_batch(pipeline, audios, options)):
            reason = broken(words, text, audio.shape[0] / RATE, all_speech=vad)
            if reason is not None and again is None:
                words = without_loops(_decode_sequentially(model, audio, options))
            decoded.append((chunk, words, reason))
        return decoded

    def decode_again(chunk: Chunk, single: Callable[[], Any]) -> list[ChunkWord]:
        return without_loops(_decode_sequentially(single(), chunk.audio(channels[chunk.channel]), options))

    for decoded in ordered(decode, batches(chunks, batch_size), decoders, "speechproc-decoder"):
        for chunk, words, reason in decoded:
            if reason is not None and again is not None:  # on a thread of its own: an interrupt is still heard
                words = next(iter(ordered(functools.partial(decode_again, single=again), [chunk], 1,
                                          "speechproc-again")))
            yield chunk, words, reason


def batch_segments(pipeline, audios: list[np.ndarray], options: dict):  # -> Iterable[faster_whisper Segment]
    """faster-whisper's segments of chunks decoded in one batch: the chunks laid out CHUNK_S apart in one array,
    each a clip of its own; a segment's `seek` tells its chunk (its window's index times CHUNK_S)."""
    window = CHUNK_S * RATE
    laid_out = np.zeros(window * len(audios), dtype=np.float32)
    clips = []
    for k, audio in enumerate(audios):
        laid_out[k * window:k * window + audio.shape[0]] = audio
        clips.append({"start": k * CHUNK_S, "end": (k * window + audio.shape[0]) / RATE})
    segments, _ = pipeline.transcribe(laid_out, clip_timestamps=clips, batch_size=len(audios), **options)
    return segments


def _decode_batch(pipeline, audios: list[np.ndarray], options: dict) -> list[tuple[list[ChunkWord], str]]:
    """(words, text) of each chunk, decoded in one batch (`batch_segments`)."""
    segments = batch_segments(pipeline, audios, {"word_timestamps": True, **options})
    found: list[tuple[list[ChunkWord], list[str]]] = [([], []) for _ in audios]
    frames_per_window = CHUNK_S * pipeline.model.frames_per_second
    for segment in segments:
        k = min(round(segment.seek / frames_per_window), len(audios) - 1)
        offset = k * CHUNK_S
        words, texts = found[k]
        texts.append(segment.text)
        words.extend(ChunkWord(w.word, w.start - offset, w.end - offset, w.probability) for w in segment.words or [])
    return [(words, "".join(texts)) for words, texts in found]


def window_frames(longest_s: float, frames_per_second: int) -> int:
    """The encoder's window, in feature frames, for a batch whose longest chunk lasts `longest_s`: SHORT_WINDOW_S
    where the chunk ends at least a second before it, else Whisper's CHUNK_S. A batch's window depends on its
    chunks alone, and so on the recording alone."""
    seconds = SHORT_WINDOW_S if longest_s <= SHORT_WINDOW_S - 1 else CHUNK_S
    return seconds * frames_per_second


@functools.cache
def _fitted_windows() -> type:
    from faster_whisper import BatchedInferencePipeline

    class FittedWindows(BatchedInferencePipeline):
        """faster-whisper's batched pipeline with the encoder's window fitted to the batch (`window_frames`):
        the features come padded with zeros to 30 s, and what is cut off is only that padding."""

        def forward(self, features, tokenizer, chunks_metadata, options):
            longest = max((chunk["duration"] for chunk in chunks_metadata), default=CHUNK_S)
            frames = window_frames(longest, self.model.frames_per_second)
            return super().forward(np.ascontiguousarray(features[..., :frames]), tokenizer, chunks_metadata, options)

    return FittedWindows


def fitted_pipeline(model, short_window: bool = True):  # -> a faster_whisper.BatchedInferencePipeline
    """A batched pipeline over `model` whose encoder window fits the batch (`window_frames`), or faster-whisper's
    own (30 s) without `short_window`; the class is made when faster-whisper is first needed."""
    if not short_window:
        from faster_whisper import BatchedInferencePipeline

        return BatchedInferencePipeline(model)
    return _fitted_windows()(model)


class ChunkWordTimes:
    """The recogniser as the batched pipeline sees it, placing the words of each chunk of a batch on their own.

    faster-whisper shortens the first word after a pause, a pause it measures from the end of the speech
    before, which in a batch is the previous chunk's last word, whichever chunk that is. A chunk's words
    would then depend on its place in its batch, and so on the batch size and the number of decoders.
    Here each chunk's speech before is its own start: the same words whatever the batches. (On a GPU the
    batch's encoder output stays on the device and faster-whisper places the words as it does.)"""

    def __init__(self, model) -> None:  # model: faster_whisper.WhisperModel
        self._model = model

    def __getattr__(self, name: str):
        return getattr(self._model, name)

    def add_word_timestamps(self, segments: list, tokenizer, encoder_output, num_frames: list[int],
                            prepend_punctuations: str, append_punctuations: str, last_speech_timestamp: float):
        import ctranslate2

        if encoder_output.device != "cpu":  # on a GPU the output cannot be cut here: faster-whisper's own way
            return self._model.add_word_timestamps(segments, tokenizer, encoder_output, num_frames,
                                                   prepend_punctuations, append_punctuations, last_speech_timestamp)
        encoded = np.asarray(encoder_output)
        for k, segment in enumerate(segments):
            if segment:
                own = ctranslate2.StorageView.from_array(np.ascontiguousarray(encoded[k:k + 1]))
                last_speech_timestamp = self._model.add_word_timestamps(
                    [segment], tokenizer, own, num_frames[k:k + 1], prepend_punctuations, append_punctuations,
                    segment[0]["seek"] / self._model.frames_per_second)
        return last_speech_timestamp


SAMPLING_SEED = 0
_sampling = threading.Lock()


@contextmanager
def seeded_sampling() -> Iterator[None]:
    """Around a decode on faster-whisper's sequential path, consumed whole inside: its temperature fallback
    samples with CTranslate2's random generators, which are seeded from SAMPLING_SEED when they are first
    used (unseeded they start from the system's entropy, and a retried window came out differently from run
    to run); no other sequential decode of this process samples meanwhile. CTranslate2 keeps one generator
    per thread and cannot re-seed it per call, so a sampled window's words can still depend on what the
    same process sampled before it (docs/scaling.md)."""
    import ctranslate2

    with _sampling:
        ctranslate2.set_random_seed(SAMPLING_SEED)
        yield


def _decode_sequentially(model, audio: np.ndarray, options: dict) -> list[ChunkWord]:
    """A broken chunk decoded again with Whisper's own fallbacks. Each 30 s window is decoded without the text
    before it: where the first window stops short of the chunk's end, the rest is decoded on its own, as
    its own speech, not as more of what may have gone wrong (conditioned on it, a read-out phone number
    after a garbled card number was dropped as silence on one CPU path)."""
    with seeded_sampling():
        segments, _ = model.transcribe(audio, vad_filter=False, word_timestamps=True,
                                       condition_on_previous_text=False, **options)
        return [ChunkWord(w.word, w.start, w.end, w.probability) for segment in segments
                for w in segment.words or []]
