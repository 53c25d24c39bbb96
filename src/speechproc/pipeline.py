"""The ordered stages and the runner: progress events per stage, failures named by stage."""
from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import errors as E
from .config import Settings
from .conversation import Conversation, RecognizedWord
from .stages import (
    asr,
    categories,
    classify,
    detect,
    diarize,
    ingest,
    knowledge,
    metrics,
    punctuation,
    sentiment,
    spotting,
    turns,
    verbnoun,
    voice,
)


@dataclass(frozen=True)
class Stage:
    name: str
    display: str
    phase: str


STAGES = (
    Stage("decode", "Decode the recording into channels", "ingest"),
    Stage("asr", "Recognise speech per channel", "transcription"),
    Stage("diarize", "Tell the speakers of a one-channel recording apart", "transcription"),
    Stage("punctuation", "Split punctuation", "transcription"),
    Stage("turns", "Speaker turns and voice activity", "transcription"),
    Stage("detect", "Detectors and transcript redaction", "analytics"),
    Stage("voice", "Word-level voice features", "analytics"),
    Stage("sentiment", "Sentence sentiment", "analytics"),
    Stage("verbnoun", "Verb-noun pairs", "analytics"),
    Stage("knowledge", "Keywords and topics", "analytics"),
    Stage("metrics", "Conversation metrics", "analytics"),
    Stage("spotting", "Keyword groups", "analytics"),
    Stage("categories", "Categories", "analytics"),
    Stage("classify", "Classifiers", "analytics"),
    Stage("publish", "Write the outputs", "publish"),
)

StageEvent = Callable[[str, str], None]  # (stage name, task status)
SecondsEvent = Callable[[float], None]

# Configuration parts this version accepts but does not compute yet: (test, what is ignored).
_NOT_YET = (
    (lambda s: not s.number_formatting, "transcript.formatting.enableNumberFormatting false"),
    (lambda s: bool(((s.section("transcript") or {}).get("contentFiltering") or {}).get("enableProfanityFiltering")),
     "transcript.contentFiltering.enableProfanityFiltering"),
)


def new_tasks(media_id: str) -> list[dict[str, Any]]:
    """One pending task per stage, with ids stable for the media item."""
    return [{"taskId": str(uuid.uuid5(uuid.UUID(media_id), st.name)), "name": st.name, "display": st.display,
             "phase": st.phase, "status": "pending"} for st in STAGES]


def unsupported_warnings(settings: Settings) -> list[tuple[int, str]]:
    return [(E.FEATURE_NOT_AVAILABLE, f"{what} is not computed by this version of speechproc and was ignored")
            for test, what in _NOT_YET if test(settings)]


def _take_words(conv: Conversation, words: list[RecognizedWord]) -> None:
    """Use given words (an aligned human transcript) instead of recognising; their speakers name the parties."""
    conv.recognized = list(words)
    speakers = list(dict.fromkeys(w.speaker for w in words))
    if len(conv.channels) == 1 and speakers != [conv.channels[0].speaker_name]:
        conv.diarized_speakers = speakers


def analyse(path: Path, settings: Settings, conv: Conversation, on_stage: StageEvent,
            on_seconds: SecondsEvent | None = None, words: list[RecognizedWord] | None = None) -> None:
    """Run every analysis stage on one recording; raise a SpeechprocError naming the failed stage.

    With `words` (an aligned transcript) recognition and diarization are replaced by those words."""
    steps: list[tuple[str, Callable[[], None]]] = [
        ("decode", lambda: ingest.load_channels(path, settings, conv)),
        ("asr", lambda: asr.run(conv, settings, on_seconds) if words is None else _take_words(conv, words)),
        ("diarize", lambda: diarize.run(conv, settings) if words is None else None),
        ("punctuation", lambda: punctuation.run(conv, settings)),
        ("turns", lambda: turns.run(conv)),
        ("detect", lambda: detect.run(conv, settings)),
        ("voice", lambda: voice.run(conv) if settings.voice_features else None),
        ("sentiment", lambda: sentiment.run(conv, settings)),
        ("verbnoun", lambda: verbnoun.run(conv, settings)),
        ("knowledge", lambda: knowledge.run(conv, settings)),
        ("metrics", lambda: metrics.run(conv, settings)),
        ("spotting", lambda: spotting.run(conv, settings)),
        ("categories", lambda: categories.run(conv, settings)),
        ("classify", lambda: classify.run(conv, settings)),
    ]
    for name, step in steps:
        on_stage(name, "started")
        try:
            step()
        except E.SpeechprocError:
            on_stage(name, "failed")
            raise
        except Exception as exc:  # a bug or a library failure: report it against the stage, keep the batch going
            on_stage(name, "failed")
            raise E.SpeechprocError(E.STAGE_FAILED, f"stage {name} failed: {type(exc).__name__}: {exc}",
                                    status=500) from exc
        on_stage(name, "finished")
    for code, message in unsupported_warnings(settings):
        conv.warn(code, message)
