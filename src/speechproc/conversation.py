"""The data model shared by all stages. Times are integer milliseconds."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

TURN = "turn"
PUNC = "punc"


@dataclass
class Frequency:
    f: float
    e: float


@dataclass
class Word:
    """One transcript token: a word, a punctuation mark (m="punc") or a turn marker (m="turn")."""

    p: int
    c: float
    s: int
    e: int
    w: str
    m: str | None = None
    v: float | None = None
    frq: list[Frequency] | None = None
    speaker: str = ""

    @property
    def is_word(self) -> bool:
        return self.m is None


@dataclass
class RecognizedWord:
    """A word as the recogniser gave it, punctuation still attached."""

    text: str
    s: int
    e: int
    probability: float
    speaker: str


@dataclass
class Turn:
    speaker: str
    s: int
    e: int
    words: list[Word] = field(default_factory=list)


@dataclass
class Channel:
    """One speaker's audio: a channel of the file, or a mix of several."""

    index: int
    speaker_name: str
    samples: np.ndarray
    sample_rate: int
    speaker_role: str | None = None


@dataclass
class Conversation:
    """Everything known about one recording; each stage fills its own part."""

    media_id: str
    language: str = "en-US"
    length_ms: int = 0
    content_type: str = ""
    channels: list[Channel] = field(default_factory=list)
    recognized: list[RecognizedWord] = field(default_factory=list)
    words: list[Word] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)
    voice_activity: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    confidence: float = 0.0
    warnings: list[tuple[int, str]] = field(default_factory=list)
    # analytics results, filled by later stages; None means "not requested"
    knowledge: dict[str, Any] | None = None
    spotting: dict[str, Any] | None = None
    prediction: dict[str, Any] | None = None
    metrics: list[dict[str, Any]] | None = None
    categories: list[dict[str, Any]] | None = None
    conversation: dict[str, Any] | None = None
    speaker_sentiments: list[dict[str, Any]] | None = None
    streams: list[dict[str, Any]] | None = None

    @property
    def speakers(self) -> list[str]:
        """Speaker names in channel order, without repeats."""
        return list(dict.fromkeys(ch.speaker_name for ch in self.channels))

    def warn(self, code: int, message: str) -> None:
        self.warnings.append((code, message))


@dataclass
class MediaItem:
    """Media-level facts of one recording (the v3 media item without its results)."""

    media_id: str
    status: str
    date_created: str
    date_finished: str | None = None
    content_type: str | None = None
    length_ms: int | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    errors: list[tuple[int, str]] = field(default_factory=list)
    warnings: list[tuple[int, str]] = field(default_factory=list)
