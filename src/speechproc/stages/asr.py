"""Speech recognition per channel with faster-whisper, word timestamps for every channel.

Sequential (the default): faster-whisper's classic path, window after window, each conditioned on the
text before it. Batched (`speechproc.batched`): faster-whisper's BatchedInferencePipeline, Silero VAD
speech joined into chunks of at most 30 s, `batch_size` chunks decoded at a time; without VAD the chunks
are fixed 30 s windows. Batched is faster on calls and as accurate on ordinary speech, but with tiny.en
a chunk that holds a long read-out number can loop or stop early (see the README).
"""
from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from ..conversation import Channel, Conversation, RecognizedWord
from ..errors import UNSUPPORTED_LANGUAGE, SpeechprocError
from ..media import ASR_RATE
from ..models import load_whisper
from ..options import RecognitionOptions

ProgressFn = Callable[[float], None]
WINDOW_S = 30  # Whisper's input window: the longest chunk a batch holds


def load(options: RecognitionOptions):  # -> faster_whisper.WhisperModel
    """The recogniser the options name (loaded once per process)."""
    return load_whisper(options.model, options.device, options.compute_type, options.threads)


@lru_cache(maxsize=2)
def _batched(model):  # -> faster_whisper.BatchedInferencePipeline
    from faster_whisper import BatchedInferencePipeline

    return BatchedInferencePipeline(model)


def check_language(options: RecognitionOptions) -> None:
    """Refuse a non-English language on an English-only model before any audio is decoded."""
    if options.whisper_language != "en" and not load(options).model.is_multilingual:
        raise SpeechprocError(UNSUPPORTED_LANGUAGE,
                              f"speechModel.language {options.language} needs a multilingual model; "
                              f"'{options.model}' is English-only (set speechproc.model to base or larger)")


def windows(seconds: float) -> list[dict[str, float]]:
    """Fixed windows of WINDOW_S covering `seconds` of audio (the chunks of batched recognition without VAD)."""
    starts = range(0, max(1, int(-(-seconds // WINDOW_S))))
    return [{"start": k * WINDOW_S, "end": min(seconds, (k + 1) * WINDOW_S)} for k in starts]


def transcribe_channel(channel: Channel, options: RecognitionOptions,
                       on_seconds: ProgressFn | None = None) -> list[RecognizedWord]:
    """Recognise one channel; every word carries the channel's speaker name."""
    model = load(options)
    common = dict(language=options.whisper_language, beam_size=options.beam_size, word_timestamps=True,
                  hotwords=options.hotwords)
    if options.batched:
        seconds = channel.samples.shape[0] / ASR_RATE
        clips = None if options.vad or seconds <= WINDOW_S else windows(seconds)
        segments, _ = _batched(model).transcribe(channel.samples, batch_size=options.batch_size,
                                                 vad_filter=options.vad, clip_timestamps=clips, **common)
    else:
        segments, _ = model.transcribe(channel.samples, vad_filter=options.vad, **common)
    words: list[RecognizedWord] = []
    for segment in segments:
        for w in segment.words or []:
            text = w.word.strip()
            if text:
                start = round(w.start * 1000)
                words.append(RecognizedWord(text, start, max(start, round(w.end * 1000)),
                                            float(w.probability), channel.speaker_name))
        if on_seconds is not None:
            on_seconds(segment.end)
    words.sort(key=lambda w: w.s)  # batches come back in chunk order; keep time order whatever happens
    return words


def run(conv: Conversation, options: RecognitionOptions, on_seconds: ProgressFn | None = None) -> None:
    """Recognise every channel on its own; the words of all channels go to `conv.recognized`."""
    check_language(options)
    for channel in conv.channels:
        conv.recognized.extend(transcribe_channel(channel, options, on_seconds))
