"""Speech recognition of every channel with faster-whisper, word timestamps for every word.

Batched (`speechproc.batched`, the default): the speech of all channels in chunks of at most 30 s, `batch_size`
of them in flight at once (fewer on a long recording); on the CPU they go to the decoders CPU_BATCH at a
time, in batches fixed by the recording, the decoders (up to one per thread) taking the batches side by
side; a chunk whose result looks broken is decoded again sequentially, by the decoder itself or, with
several, one at a time in time order by a single-worker recogniser (`batching`, `load_single`).
Sequential: faster-whisper's classic path, channel by channel, window after window, each conditioned on the
text before it.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from speechproc.conversation import Channel, Conversation, RecognizedWord
from speechproc.engines import batching, inventory
from speechproc.engines.models import default_threads, load_whisper, on_cpu, torch_threads_kept, whisper_location
from speechproc.errors import UNSUPPORTED_LANGUAGE, SpeechprocError
from speechproc.media import ASR_RATE
from speechproc.stages.options import RecognitionOptions

ProgressFn = Callable[[float], None]
# What one 30 s chunk holds while it is decoded with beam 5 (tiny.en, measured): mostly the decoder's
# cross-attention cache, one copy of the encoder output per beam and layer. It grows with the beam, and with
# the model's layers and width: about as its weights' size to the power 0.65 (checked on base:
# docs/benchmarks.md#batches-and-decoders-on-the-cpu).
CHUNK_MEMORY = 115 * 2**20
TINY_WEIGHTS = 75_537_502  # bytes of tiny.en's model.bin (float16), the size CHUNK_MEMORY was measured with
# model.bin sizes (float16) of faster-whisper's model names, for a model given by name
NAMED_WEIGHTS = {"tiny": TINY_WEIGHTS, "base": 145_217_532, "small": 483_546_902, "medium": 1_527_906_378,
                 "large": 3_087_284_237}
RECOGNITION_MEMORY = 1200 * 2**20  # what the audio held and the chunks in flight may take together
# Chunks per decoder call on the CPU: two already give all that batching gains there (more are no faster:
# docs/benchmarks.md#batches-and-decoders-on-the-cpu), and small batches let several decoders share even a
# short recording.
CPU_BATCH = 2
log = logging.getLogger(__name__)


def decoders(options: RecognitionOptions) -> int:
    """How many batches are decoded at once. On the CPU, batched recognition gives each of its threads a
    decoder of its own, as many as the chunks in flight fill (`batch_size // CPU_BATCH`): the matrix
    products of a small model split over threads wait for each other at every layer of every step, while
    independent decoders never wait (docs/benchmarks.md#batches-and-decoders-on-the-cpu)."""
    if not options.batched or not on_cpu(options.device):
        return 1
    return max(1, min(options.threads or default_threads(), options.batch_size // CPU_BATCH))


def batch_plan(options: RecognitionOptions, flying: int) -> tuple[int, int]:
    """(chunks per decoder call, decoders at once) for a recording of which `flying` chunks may be in flight.
    The first depends on the recording and the options, never on the threads: it decides which chunks share
    a call, and so the numbers the decoder computes. On a GPU one decoder takes every chunk in flight."""
    size = min(flying, CPU_BATCH if on_cpu(options.device) else options.batch_size)
    return size, max(1, min(decoders(options), flying // size))


def in_flight(options: RecognitionOptions, audio_bytes: int) -> int:
    """Chunks decoded at once for a recording whose 16 kHz audio takes `audio_bytes`: `batch_size`, fewer where
    the audio and the chunks in flight would take more than RECOGNITION_MEMORY together (a long recording, a
    larger model). With several decoders one chunk's room is kept for a broken chunk decoded again beside
    the batches (`load_single`)."""
    per_chunk = (CHUNK_MEMORY * options.beam_size / RecognitionOptions.beam_size
                 * (weights_bytes(options.model) / TINY_WEIGHTS) ** 0.65)
    kept = per_chunk if decoders(options) > 1 else 0
    return max(1, min(options.batch_size, int((RECOGNITION_MEMORY - audio_bytes - kept) // per_chunk)))


def weights_bytes(model: str) -> int:
    """The size of a model's weights: its model.bin, or by its name; a name not known counts as large."""
    location = Path(whisper_location(model))
    if (location / "model.bin").is_file():
        return max(TINY_WEIGHTS, (location / "model.bin").stat().st_size)
    return next((size for name, size in NAMED_WEIGHTS.items() if name in model.lower()), NAMED_WEIGHTS["large"])


def load(options: RecognitionOptions):  # -> faster_whisper.WhisperModel
    """The recogniser the options name (loaded once per process): one replica per decoder, the threads
    shared out among them."""
    parallel = decoders(options)
    return load_whisper(options.model, options.device, options.compute_type,
                        _decoder_threads(options) if parallel > 1 else options.threads, parallel)


def load_single(options: RecognitionOptions):  # -> faster_whisper.WhisperModel
    """With several decoders, the recogniser with a single worker, and a decoder's threads, that decodes the
    broken chunks again (`batching.recognise`): the temperature fallback samples, and one worker draws from
    one random generator, chunk after chunk, where the decoders' replicas each draw from their own and which
    one a chunk reaches depends on timing. A second copy of the weights, loaded once per process when a
    chunk first needs it."""
    return load_whisper(options.model, options.device, options.compute_type, _decoder_threads(options), 1)


def _decoder_threads(options: RecognitionOptions) -> int:
    return max(1, (options.threads or default_threads()) // decoders(options))


BUNDLED_MODELS = {"tiny.en": inventory.WHISPER_TINY, "base": inventory.WHISPER_BASE}


def needs(options: RecognitionOptions) -> tuple[str, ...]:
    """The bundled model the options name (`inventory` keys); a model of the user's is checked as it loads."""
    return (BUNDLED_MODELS[options.model],) if options.model in BUNDLED_MODELS else ()


def check_language(options: RecognitionOptions) -> None:
    """Refuse a non-English language on an English-only model before any audio is decoded."""
    if options.whisper_language != "en" and not load(options).model.is_multilingual:
        raise SpeechprocError(UNSUPPORTED_LANGUAGE,
                              f"speechModel.language {options.language} needs a multilingual model; "
                              f"'{options.model}' is English-only (set speechproc.model to base or larger)")


def transcribe_channel(channel: Channel, options: RecognitionOptions,
                       on_seconds: ProgressFn | None = None) -> list[RecognizedWord]:
    """Recognise one channel on faster-whisper's sequential path; every word carries the channel's speaker name.
    A loop that the path's own fallbacks left is said once (`batching.without_loops`)."""
    words: list[RecognizedWord] = []
    with batching.seeded_sampling():  # its fallback samples: the same words every run
        segments, _ = load(options).transcribe(channel.samples, vad_filter=options.vad, word_timestamps=True,
                                               **_decoding(options))
        for segment in segments:
            for w in segment.words or []:
                word = recognized_word(w.word, w.start, w.end, w.probability, channel)
                if word is not None:
                    words.append(word)
            if on_seconds is not None:
                on_seconds(segment.end)
    words.sort(key=lambda w: w.s)
    return batching.without_loops(words)


def transcribe_batched(channels: list[Channel], options: RecognitionOptions, on_seconds: ProgressFn | None = None,
                       speech_found: Callable[[], None] | None = None) -> list[RecognizedWord]:
    """Recognise every channel in shared batches (`batching`); words channel by channel, each in time order.
    `speech_found` is called when voice activity detection is done and decoding starts."""
    found: list[list[RecognizedWord]] = [[] for _ in channels]
    reached = 0.0
    size, parallel = batch_plan(options, in_flight(options, sum(channel.live_samples().nbytes for channel in channels)))
    chunks = batching.recognise([channel.live_samples() for channel in channels], load(options), size, options.vad,
                                _decoding(options), parallel, options.short_window,
                                # whenever the recogniser has several replicas, even where this recording has
                                # fewer batches than decoders: which replica takes a chunk depends on timing
                                again=(lambda: load_single(options)) if decoders(options) > 1 else None,
                                speech_found=speech_found)
    for chunk, chunk_words, redecoded in chunks:
        if redecoded is not None:
            log.info("chunk of channel %d at %.1f s %s: decoded again sequentially", chunk.channel,
                     chunk.pieces[0][0] / ASR_RATE, redecoded)
        for w in chunk_words:
            word = recognized_word(w.text, *chunk.original_times(w.start, w.end), w.probability,
                                   channels[chunk.channel])
            if word is not None:
                found[chunk.channel].append(word)
        reached = max(reached, chunk.pieces[-1][1] / ASR_RATE)
        if on_seconds is not None:
            on_seconds(reached)
    for words in found:
        words.sort(key=lambda w: w.s)
    return [word for words in found for word in words]


def recognized_word(text: str, start: float, end: float, probability: float, channel: Channel
                    ) -> RecognizedWord | None:
    """A word the recogniser timed at (start, end) seconds of the channel, in milliseconds, within the channel:
    the last word's end can be placed a little past the end of the audio. None for a word of no text."""
    text = text.strip()
    if not text:
        return None
    length = round(channel.live_samples().shape[0] * 1000 / channel.sample_rate)
    start_ms = min(length, round(start * 1000))
    return RecognizedWord(text, start_ms, min(length, max(start_ms, round(end * 1000))), float(probability),
                          channel.speaker_name)


def _decoding(options: RecognitionOptions) -> dict:
    """faster-whisper's decoding options, the same on both paths."""
    return dict(language=options.whisper_language, beam_size=options.beam_size, hotwords=options.hotwords)


def run(conv: Conversation, options: RecognitionOptions, on_seconds: ProgressFn | None = None,
        speech_found: Callable[[], None] | None = None) -> None:
    """Recognise every channel; the words of all channels go to `conv.recognized`, channel by channel.
    `speech_found` is called when voice activity detection is done (on the sequential path, where
    faster-whisper runs it for each channel in turn, as recognition starts)."""
    check_language(options)
    with torch_threads_kept():
        if options.batched:
            conv.recognized.extend(transcribe_batched(conv.channels, options, on_seconds, speech_found))
            return
        if speech_found is not None:
            speech_found()
        for channel in conv.channels:
            conv.recognized.extend(transcribe_channel(channel, options, on_seconds))
