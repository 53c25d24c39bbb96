"""The shapes of what a v3 configuration holds and of the stored definitions it names, as TypedDicts.

`config/v3.py` validates a configuration and `store/registered/definitions.py` a definition; what they let through
has these shapes, which the stages, the callbacks and the engines read. A key a configuration may leave
out is optional (`total=False`); what speechproc writes back is in `speechproc.results`.
"""
from __future__ import annotations

from typing import TypedDict

# ----------------------------------------------------------------------------- configuration entries


class _ParameterRequired(TypedDict):
    parameter: str


class Parameter(_ParameterRequired, total=False):
    """A detector's or a classifier's parameter (`parameters[]`): its name and value."""

    value: str


class TranscriptRedaction(TypedDict, total=False):
    replacement: str  # the text a redacted word becomes


class AudioRedaction(TypedDict, total=False):
    tone: int  # Hz
    gain: float  # 0-1


class Redactor(TypedDict, total=False):
    """What a detector redacts: the transcript's words, the audio, or both."""

    transcript: TranscriptRedaction
    audio: AudioRedaction


class DetectorEntry(TypedDict, total=False):
    """A `prediction.detectors` entry: a built-in detector by id or by name (one of them is there)."""

    detectorId: str
    detectorName: str
    version: str
    parameters: list[Parameter]
    redactor: Redactor


class ClassifierEntry(TypedDict, total=False):
    """A `prediction.classifiers` entry: a registered classifier by id or by name (one of them is there)."""

    classifierId: str
    classifierName: str
    version: str
    parameters: list[Parameter]


class _CallbackEntryRequired(TypedDict):
    url: str


class CallbackEntry(_CallbackEntryRequired, total=False):
    """A `publish.callbacks` entry: where to send what."""

    method: str  # POST (the default) or PUT, in any case
    type: str  # analytics (the default), transcript or media
    format: str  # a transcript callback's text format
    include: list[str]  # the sections an analytics callback sends (all when left out)
    stream: str  # a media callback's stream: original or redacted-audio


class _InsightQuestionRequired(TypedDict):
    name: str
    question: str


class InsightQuestionEntry(_InsightQuestionRequired, total=False):
    """A quality question of the `insights` section: the name its answer goes by, the question, and what
    answers it (`auto`, the default: a known check when the wording asks for one, else the model; `model`; or
    a known check by name)."""

    check: str


class InsightsSection(TypedDict, total=False):
    """speechproc's `insights` section: what the language model is asked."""

    summary: bool
    reason: bool
    outcome: bool
    actionItems: bool
    questions: list[InsightQuestionEntry]


class ChannelEntry(TypedDict, total=False):
    """A channel of `ingest`: who speaks on it, or that it is ignored."""

    speakerName: str
    speakerRole: str
    ignore: bool


class StereoEntry(TypedDict):
    left: ChannelEntry
    right: ChannelEntry


class _TrackEntryRequired(TypedDict):
    trackIndex: int


class TrackEntry(_TrackEntryRequired, total=False):
    """An audio track of `ingest.tracks`: one speaker, or its channels one by one."""

    speakerName: str
    speakerRole: str
    channels: list[ChannelEntry]


class IngestSection(TypedDict, total=False):
    """The `ingest` section: how the recording's channels and tracks map to speakers (one form of them)."""

    allowDeferredProcessing: bool
    speakerName: str
    speakerRole: str
    channels: list[ChannelEntry]
    stereo: StereoEntry
    tracks: list[TrackEntry]


class VocabularyTermEntry(TypedDict):
    """A custom vocabulary term, checked and completed (`store.registered.vocabularies`): the term, the forms it may
    be heard as, and its weight."""

    term: str
    soundsLike: list[str]
    weight: int  # 0-5


# ----------------------------------------------------------------------------- stored definitions
# (as the catalog gives them back they also have its dateCreated and dateModified)


class _CategoryDefinitionRequired(TypedDict):
    categoryName: str
    query: str  # a query condition, evaluated on the transcript


class CategoryDefinition(_CategoryDefinitionRequired, total=False):
    """A stored category."""

    categoryDescription: str
    notes: str
    version: str
    tags: list[str]


class KeywordGroupDefinition(TypedDict):
    """A stored keyword group: its name and its keywords (words or phrases)."""

    groupName: str
    keywords: list[str]


class _ClassifierDefinitionRequired(TypedDict):
    classifierId: str
    classifierName: str
    classifierDisplayName: str
    classifierVersion: str
    classifierType: str  # binary


class ClassifierDefinition(_ClassifierDefinitionRequired, total=False):
    """A registered text classifier: its ids and version, and the classes its model predicts."""

    classes: list[str]
