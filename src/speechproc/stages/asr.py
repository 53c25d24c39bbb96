"""Speech recognition per channel with faster-whisper (word timestamps, VAD)."""
from __future__ import annotations

from collections.abc import Callable

from ..config import Settings
from ..conversation import Channel, Conversation, RecognizedWord
from ..errors import UNSUPPORTED_LANGUAGE, SpeechprocError
from ..models import load_whisper

ProgressFn = Callable[[float], None]


def check_language(settings: Settings) -> None:
    """Refuse a non-English language on an English-only model before any audio is decoded."""
    model = load_whisper(settings.model, settings.device, settings.compute_type, settings.threads)
    if settings.whisper_language != "en" and not model.model.is_multilingual:
        raise SpeechprocError(UNSUPPORTED_LANGUAGE,
                              f"speechModel.language {settings.language} needs a multilingual model; "
                              f"'{settings.model}' is English-only (set speechproc.model to base or larger)")


def transcribe_channel(channel: Channel, settings: Settings, on_seconds: ProgressFn | None = None) -> list[RecognizedWord]:
    """Recognise one channel; every word carries the channel's speaker name."""
    model = load_whisper(settings.model, settings.device, settings.compute_type, settings.threads)
    segments, _ = model.transcribe(
        channel.samples,
        language=settings.whisper_language,
        beam_size=settings.beam_size,
        word_timestamps=True,
        vad_filter=settings.vad,
        hotwords=settings.hotwords,
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


def run(conv: Conversation, settings: Settings, on_seconds: ProgressFn | None = None) -> None:
    """Recognise every channel on its own; the words of all channels go to `conv.recognized`."""
    check_language(settings)
    for channel in conv.channels:
        conv.recognized.extend(transcribe_channel(channel, settings, on_seconds))
