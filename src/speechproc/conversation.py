"""The data model shared by all stages. Times are integer milliseconds.

These dataclasses are the pipeline's working model: stages fill them, and only `formats/v3json.py` spells
them as v3 JSON, whose shapes are the TypedDicts of `speechproc.results`. The v3 shapes keep the names the
specification gives them (`Word`, `Keyword`, `MediaItem`, ...), since they are the public face of the
results and their documentation mirrors the specification; the working model's classes are named for what
they hold here instead (a `Token` of the transcript, a `KeyTerm` with its `Mention`s, the `MediaFacts` of a
recording, ...), so that no name means two things and a module that uses both reads unambiguously.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from speechproc.results import JsonObject, ModelDescription

TURN = "turn"
PUNC = "punc"
SILENCE_INCIDENT_MS = 4000  # a silence longer than this is an incident (metrics and reports)

Span = tuple[int, int]  # start and end, ms


def merge(spans: Iterable[Span]) -> list[Span]:
    """The union of spans as sorted, disjoint spans."""
    out: list[Span] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        elif e > s:
            out.append((s, e))
    return out


@dataclass
class FrequencyPeak:
    f: float
    e: float


@dataclass
class Token:
    """One transcript token: a word, a punctuation mark (m="punc") or a turn marker (m="turn")."""

    p: int
    c: float
    s: int
    e: int
    w: str
    m: str | None = None
    v: float | None = None
    frq: list[FrequencyPeak] | None = None
    speaker: str = ""
    pitch: float | None = None  # Hz; internal (no v3 field), for the talk-style metrics

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
class SpeakerTurn:
    speaker: str
    s: int
    e: int
    words: list[Token] = field(default_factory=list)


@dataclass
class Sentence:
    """One sentence of one turn: its tokens (words and punctuation) and, once scored, its sentiment."""

    speaker: str
    words: list[Token]
    sentiment: float | None = None
    embedding: np.ndarray | None = None  # internal: the sentence encoder's vector, shared by the stages using it

    @property
    def s(self) -> int:
        return self.words[0].s

    @property
    def e(self) -> int:
        return max(w.e for w in self.words)

    @property
    def text(self) -> str:
        return text_of(self.words)


def text_of(tokens: list[Token]) -> str:
    """Tokens as readable text: words separated by spaces, punctuation attached to the word before."""
    return "".join(w.w if w.m == PUNC or not i else " " + w.w for i, w in enumerate(tokens))


@dataclass
class Mention:
    s: int
    e: int
    exact: str


@dataclass
class KeyTerm:
    """A salient term and every place each speaker said it."""

    keyword: str
    relevance: float | None  # None for a spotted group keyword, which has none
    mentions: dict[str, list[Mention]]  # speaker -> occurrences, in time order


@dataclass
class ScoredTopic:
    name: str
    relevance: float
    subtopics: list[tuple[str, float]]  # (name, score)
    keywords: list[KeyTerm]


@dataclass
class Discovery:
    keywords: list[KeyTerm]
    topics: list[ScoredTopic]


@dataclass
class CategoryResult:
    name: str
    matched: bool
    matches: dict[str, list[Mention]]  # speaker -> the words that satisfied the query


@dataclass
class KeywordGroupResult:
    name: str
    spotted: bool
    score: float  # the share of the group's keywords that were said
    keywords: list[KeyTerm]  # the keywords said, each with its mentions


@dataclass
class DetectedClass:
    label: str
    segments: dict[str, list[tuple[int, int]]]  # speaker -> (s, e) spans
    detector_class: int = 1
    strict_only: bool = False  # found by the PII detector's strict mode alone


@dataclass
class DetectorFindings:
    detector_id: str
    name: str
    display_name: str
    version: str
    detections: list[DetectedClass]
    replacement: str | None = None  # transcript redaction
    tone: tuple[int, float] | None = None  # audio redaction: (Hz, gain)
    strictness: str | None = None  # the PII detector's mode

    def regions(self) -> list[tuple[int, int]]:
        return sorted(span for d in self.detections for spans in d.segments.values() for span in spans)


@dataclass
class ClassifierPrediction:
    classifier_id: str
    name: str
    version: str
    display_name: str
    label: str
    score: float
    predicted_class: int
    type: str = "binary"


@dataclass
class MetricValues:
    name: str
    values: dict[str, float]  # metric name -> value, in the catalogue's order


@dataclass
class VerbNoun:
    s: int
    e: int
    verb: str
    noun: str
    verb_neg: str | None = None
    noun_neg: str | None = None
    question: bool = False


@dataclass
class Channel:
    """One speaker's audio: a channel of the file, or a mix of several."""

    index: int
    speaker_name: str
    samples: np.ndarray | None  # at 16 kHz; None once no stage still to run reads it
    sample_rate: int
    speaker_role: str | None = None
    original: np.ndarray | None = None  # the same channel at the recording's own rate, when a stage needs it
    original_rate: int = 0
    named: bool = True  # False when the name is a default and the channel may hold several speakers (diarized)
    default_name: bool = False  # True when the configuration gave no name: an enrolled speaker's name may replace it

    def live_samples(self) -> np.ndarray:
        """The 16 kHz samples, for a stage that runs before they are let go of (`release`)."""
        if self.samples is None:
            raise RuntimeError(f"the audio of channel {self.index} ({self.speaker_name}) was released before a stage "
                               "that reads it")
        return self.samples

    def release(self, keep_samples: bool = False) -> None:
        """Let go of the audio (all of it, or all but the 16 kHz copy): no later stage reads it."""
        self.original = None
        if not keep_samples:
            self.samples = None


@dataclass
class PromisedAction:
    """Something promised in the call for after it: what, who promised it, and the turn that says so (ms)."""

    text: str
    speaker: str
    s: int
    e: int


@dataclass
class InsightAnswer:
    """The answer to one quality question: yes, no or unclear, and the turn that shows it (ms), if any."""

    name: str
    question: str
    answer: str
    s: int | None = None
    e: int | None = None


@dataclass
class CallInsights:
    """What happened in the call, as the language model read it; a part not asked for is None. `model` is
    None when no model read the call (action items and known quality checks alone are found by rule)."""

    model: ModelDescription | None = None
    summary: str | None = None
    reason: str | None = None
    outcome: str | None = None  # resolved | unresolved | followUp
    action_items: list[PromisedAction] | None = None
    answers: list[InsightAnswer] | None = None


@dataclass
class Conversation:
    """Everything known about one recording; each stage fills its own part."""

    media_id: str
    language: str = "en-US"
    length_ms: int = 0
    date_created: str = ""
    metadata: JsonObject = field(default_factory=dict)  # as given
    content_type: str = ""
    channels: list[Channel] = field(default_factory=list)
    diarized_speakers: list[str] = field(default_factory=list)  # set when one channel holds several speakers
    diarized_voices: dict[str, np.ndarray] = field(default_factory=dict)  # internal: their voices (CAM++ embeddings)
    diarized_pieces: dict[str, np.ndarray] = field(default_factory=dict)  # internal: the embeddings each voice is made of
    speaker_roles: dict[str, str] = field(default_factory=dict)  # an enrolled speaker's role, by name
    overlapped: list[tuple[int, int, str]] = field(default_factory=list)  # (s, e, speaker) talking over another
    recognized: list[RecognizedWord] = field(default_factory=list)
    words: list[Token] = field(default_factory=list)
    turns: list[SpeakerTurn] = field(default_factory=list)
    sentences: list[Sentence] = field(default_factory=list)
    parsed: list[Any] | None = None  # internal: the spaCy parse of the sentences (parsing.ParsedTurn)
    voice_activity: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    confidence: float = 0.0
    warnings: list[tuple[int, str]] = field(default_factory=list)
    # analytics results, filled by later stages; None means "not requested"
    knowledge: Discovery | None = None
    spotting: list[KeywordGroupResult] | None = None
    detectors: list[DetectorFindings] | None = None
    classifiers: list[ClassifierPrediction] | None = None
    metrics: list[MetricValues] | None = None
    categories: list[CategoryResult] | None = None
    verb_noun_pairs: dict[str, list[VerbNoun]] | None = None  # speaker -> pairs
    insights: CallInsights | None = None
    speaker_sentiments: bool = False  # whether the per-sentence sentiments are published
    streams: list[tuple[str, str, str]] | None = None  # (streamName, streamLocation, status)

    @property
    def multichannel(self) -> bool:
        """True when the recording has more than one channel: each speaker has a channel of their own
        (the precondition of per-party metrics)."""
        return len(self.channels) > 1

    @property
    def speakers(self) -> list[str]:
        """Speaker names: from diarization when it ran, else in channel order, without repeats."""
        if self.diarized_speakers:
            return list(self.diarized_speakers)
        return list(dict.fromkeys(ch.speaker_name for ch in self.channels))

    def channel_of(self, speaker: str) -> Channel:
        """The channel a speaker's words come from (the only channel when it was diarized)."""
        for ch in self.channels:
            if ch.speaker_name == speaker:
                return ch
        if len(self.channels) == 1:
            return self.channels[0]
        raise KeyError(f"no channel for speaker {speaker!r}")

    def warn(self, code: int, message: str) -> None:
        self.warnings.append((code, message))


@dataclass
class MediaFacts:
    """Media-level facts of one recording (the v3 media item without its results)."""

    media_id: str
    status: str
    date_created: str
    date_finished: str | None = None
    content_type: str | None = None
    length_ms: int | None = None
    metadata: JsonObject = field(default_factory=dict)  # as given
    errors: list[tuple[int, str]] = field(default_factory=list)
    warnings: list[tuple[int, str]] = field(default_factory=list)
