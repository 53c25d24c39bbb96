"""Speech recognition per channel with faster-whisper (word timestamps, VAD)."""
from __future__ import annotations

from collections.abc import Callable

from ..conversation import Channel, Conversation, RecognizedWord
from ..errors import UNSUPPORTED_LANGUAGE, SpeechprocError
from ..models import load_whisper
from ..options import RecognitionOptions

ProgressFn = Callable[[float], None]


def load(options: RecognitionOptions):  # -> faster_whisper.WhisperModel
    """The recogniser the options name (loaded once per process)."""
    return load_whisper(options.model, options.device, options.compute_type, options.threads)


def check_language(options: RecognitionOptions) -> None:
    """Refuse a non-English language on an English-only model before any audio is decoded."""
    if options.whisper_language != "en" and not load(options).model.is_multilingual:
        raise SpeechprocError(UNSUPPORTED_LANGUAGE,
                              f"speechModel.language {options.language} needs a multilingual model; "
                              f"'{options.model}' is English-only (set speechproc.model to base or larger)")


def transcribe_channel(channel: Channel, options: RecognitionOptions,
                       on_seconds: ProgressFn | None = None) -> list[RecognizedWord]:
    """Recognise one channel; every word carries the channel's speaker name."""
    segments, _ = load(options).transcribe(
        channel.samples,
        language=options.whisper_language,
        beam_size=options.beam_size,
        word_timestamps=True,
        vad_filter=options.vad,
        hotwords=options.hotwords,
    )
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
    return words


def run(conv: Conversation, options: RecognitionOptions, on_seconds: ProgressFn | None = None) -> None:
    """Recognise every channel on its own; the words of all channels go to `conv.recognized`."""
    check_language(options)
    for channel in conv.channels:
        conv.recognized.extend(transcribe_channel(channel, options, on_seconds))
