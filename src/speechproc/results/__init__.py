"""The shapes of what speechproc writes: the v3 media item (`*.v3.json`), its transcript and analytics, and the
v3 analytics callback body, as TypedDicts; `load` reads a `.v3.json` back, `words_frame` and `turns_frame`
lay its transcript out as pandas DataFrames.

The types describe JSON: keys are spelled as VoiceBase spells them, times are integer milliseconds. A key a
result has only when it was asked for (or only in some cases) is optional (`total=False`). Importing this
module is light: pandas is imported only when a frame is made.

These TypedDicts keep the names the v3 specification gives its shapes (`Word`, `Keyword`, `MediaItem`, ...):
they are the public face of the results. The pipeline's own dataclasses (`speechproc.conversation`) are named
apart (`Token`, `KeyTerm`, `MediaFacts`, ...), so that a name means one thing wherever it is read.
"""
from __future__ import annotations

from typing import Any, TypedDict

TURN_FLAG = "turn"  # `m` of a turn marker token
PUNCTUATION_FLAG = "punc"  # `m` of a punctuation token

JsonObject = dict[str, Any]
"""A JSON object whose shape is open, kept as given: an item's metadata (whose `extended` and `callDetails`
are the user's own), a configuration document, a JSON schema, what a language model or a server answers."""


# ----------------------------------------------------------------------------- shared pieces

class Link(TypedDict):
    href: str


class SelfLink(TypedDict):
    self: Link


class MediaLinks(TypedDict):
    """`_links` of a media item: the item, its progress and its metadata."""

    self: Link
    progress: Link
    metadata: Link


class Span(TypedDict):  # a stretch of time, ms
    s: int
    e: int


class Occurrence(Span):  # where a term was said: its span and the words as said
    exact: str


class SpeakerSpans(TypedDict):  # one speaker's stretches: a `voiceActivity` entry, a detection's `detectedSegments` entry
    speakerName: str
    occurrences: list[Span]


class SpeakerMentions(TypedDict):  # one speaker's occurrences of a term: a keyword's `mentions`, a category's `categoryMatches`
    speakerName: str
    occurrences: list[Occurrence]


class ErrorMessage(TypedDict):  # an entry of `errors` (a failed item)
    code: int
    error: str


class WarningMessage(TypedDict):  # an entry of `warnings`
    code: int
    message: str


# ----------------------------------------------------------------------------- the transcript

class Frequency(TypedDict):  # one of a word's `frq` entries (voiceFeatures): a frequency (Hz) and its share of the energy
    e: float
    f: float


class _WordRequired(TypedDict):
    p: int  # position in the transcript, consecutive from 0 (turn markers and punctuation included)
    c: float  # confidence, 0-1
    s: int  # start, ms
    e: int  # end, ms
    w: str  # the word; the speaker's name for a turn marker


class WordDetails(TypedDict, total=False):
    """The keys a transcript token has only in some cases."""

    m: str  # "turn" or "punc" (flags, `|`-separated); none for a word
    frq: list[Frequency]  # voiceFeatures: the strongest frequencies
    v: float  # voiceFeatures: relative volume


class Word(_WordRequired, WordDetails):
    """A transcript token: a word (no `m`), punctuation (m="punc") or a turn marker (m="turn", w its speaker)."""


class AlternateFormat(TypedDict):
    """A transcript in a text format (callbacks and `GET .../transcript`), Base64 encoded."""

    format: str  # text, srt, webvtt or dfxp
    contentType: str
    contentEncoding: str
    charset: str
    data: str


class _TranscriptRequired(TypedDict):
    confidence: float  # the mean confidence of the words proper
    words: list[Word]  # each turn: its marker, then its words and punctuation
    voiceActivity: list[SpeakerSpans]  # each speaker's speech


class Transcript(_TranscriptRequired, total=False):
    alternateFormats: list[AlternateFormat]  # only in callbacks and transcripts served with `include`


class Turn(TypedDict):
    """One speaker turn, as `turns` gathers it from a transcript: in the v3 JSON a turn is a marker token in
    `transcript.words` (m="turn", w = the speaker's name) followed by the turn's tokens."""

    turn: int  # the turn's index, from 0
    speaker: str
    s: int
    e: int
    words: list[Word]  # the turn's tokens (words and punctuation), its marker left out


# ----------------------------------------------------------------------------- analytics

class _KeywordRequired(TypedDict):
    keyword: str
    mentions: list[SpeakerMentions]


class Keyword(_KeywordRequired, total=False):
    """A salient term (knowledge) or a spotted group keyword (which has no relevance)."""

    relevance: float


class Subtopic(TypedDict):
    name: str
    score: float


class Topic(TypedDict):
    topicName: str
    relevance: float
    subtopics: list[Subtopic]
    keywords: list[Keyword]


class Knowledge(TypedDict):  # `knowledge`: keywords and topics (knowledge.enableDiscovery)
    keywords: list[Keyword]
    topics: list[Topic]


class SpottedGroup(TypedDict):
    groupName: str
    spotted: bool
    score: str  # the share of the group's keywords said, as a string ("0.5714"), as the specification has it
    spottedKeywords: list[Keyword]


class Spotting(TypedDict):  # `spotting`: the configured keyword groups
    groups: list[SpottedGroup]


class _DetectionRequired(TypedDict):
    detectorClass: int
    detectorClassLabel: str
    detectedSegments: list[SpeakerSpans]


class Detection(_DetectionRequired, total=False):  # speechproc's `strictOnly`: found by strict mode alone
    strictOnly: bool


class _DetectorRequired(TypedDict):
    detectorId: str
    detectorName: str
    detectorVersion: str
    detectorDisplayName: str
    detectorType: str  # "binary"
    detections: list[Detection]


class DetectorResult(_DetectorRequired, total=False):
    """One detector's result (`prediction.detectors`); speechproc's `strictness`: the PII detector's mode."""
    strictness: str


class ClassifierResult(TypedDict):
    """One registered classifier's prediction (`prediction.classifiers`)."""

    classifierId: str
    classifierName: str
    classifierVersion: str
    classifierDisplayName: str
    classifierType: str
    predictedClassLabel: str
    predictionScore: float
    predictedClass: int


class Prediction(TypedDict):  # `prediction`: detectors and classifiers
    classifiers: list[ClassifierResult]
    detectors: list[DetectorResult]


class Metric(TypedDict):
    metricName: str
    metricValue: float  # always a double, counts included


class MetricGroup(TypedDict):
    """One configured metric group (`metrics`)."""

    metricGroupName: str
    metricValues: list[Metric]


class _CategoryRequired(TypedDict):
    categoryName: str
    categoryValue: int  # 1 when the category's query matched, else 0


class Category(_CategoryRequired, total=False):
    """One category's result (`categories`)."""

    categoryMatches: list[SpeakerMentions]  # the words that satisfied the query (a matched category)


class _VerbNounPairRequired(TypedDict):
    s: int
    e: int
    verb: str
    noun: str


class VerbNounPair(_VerbNounPairRequired, total=False):
    verbNeg: str
    nounNeg: str
    question: bool  # present (true) for a question only


class SpeakerVerbNounPairs(TypedDict):
    speakerName: str
    verbNounPairs: list[VerbNounPair]


class ConversationResult(TypedDict):  # `conversation`: verb-noun pairs by speaker (conversation.verbNounPairsEnabled)
    speakerVerbNounPairs: list[SpeakerVerbNounPairs]


class SentimentValue(Span):
    v: float  # the sentence's sentiment, -1 to 1


class SpeakerSentiment(TypedDict):  # one speaker's sentence sentiments (`speakerSentiments`)
    speakerName: str
    sentimentValues: list[SentimentValue]


class Stream(TypedDict):  # a media stream of the item (`streams`): the original, the redacted audio
    streamName: str
    streamLocation: str  # a file: URI
    status: str


class Encryption(TypedDict):  # the key an encrypted item's results were encrypted to (docs/output.md)
    publicKeyId: str
    publicKeyHash: str  # SHA-256 of the key's binary OpenPGP encoding


# ----------------------------------------------------------------------------- the media item

class _MediaSummaryRequired(TypedDict):
    _links: MediaLinks
    formatVersion: str
    mediaId: str
    status: str  # running, finished or failed
    dateCreated: str  # ISO 8601 UTC with milliseconds


class MediaSummary(_MediaSummaryRequired, total=False):
    """A media item without its results, as `GET /media` lists it."""

    metadata: JsonObject  # as given (title, externalId, extended, ...); speechproc always writes it
    dateFinished: str
    timeToLiveInSeconds: int | float  # the configuration's timeToLiveInSeconds (docs/state.md, retention)
    expiresOn: str  # dateFinished plus timeToLiveInSeconds: when the item is deleted
    mediaContentType: str
    length: int  # ms
    errors: list[ErrorMessage]
    warnings: list[WarningMessage]
    encryption: Encryption  # only on an item processed with encryption.publicKeyId


class _ActionItemRequired(TypedDict):
    text: str
    speaker: str
    s: int
    e: int


class ActionItem(_ActionItemRequired):
    """Something promised in the call for after it (`insights.actionItems`): the turn that promises it."""


class _AnswerRequired(TypedDict):
    name: str
    question: str
    answer: str  # yes | no | unclear


class Answer(_AnswerRequired, total=False):
    """A quality question's answer (`insights.answers`); `s`/`e`: the turn that shows a yes."""

    s: int
    e: int


class _ModelDescriptionRequired(TypedDict):
    name: str
    runtime: str  # llama.cpp (in this process) or server
    context: int  # the tokens one request may hold


class ModelDescription(_ModelDescriptionRequired, total=False):
    """The language model that read the call (`insights.model`)."""

    sha256: str  # of the bundled model's file
    url: str  # a server's base URL, without user information, query or fragment
    pieces: int  # the pieces a long call was read in
    read: str  # ends (a long call's opening and close) | whole (speechproc.insightsRead)


class Insights(TypedDict, total=False):
    """What happened in the call (speechproc's `insights`): each part present when the configuration asked
    for it and could be said; `model`, the model that read it (absent when only rules did)."""

    summary: str
    reason: str
    outcome: str  # resolved | unresolved | followUp
    actionItems: list[ActionItem]
    answers: list[Answer]
    model: ModelDescription


class Results(TypedDict, total=False):
    """A media item's results: each section present only when it was asked for."""

    transcript: Transcript
    knowledge: Knowledge
    spotting: Spotting
    prediction: Prediction
    metrics: list[MetricGroup]
    categories: list[Category]
    conversation: ConversationResult
    speakerSentiments: list[SpeakerSentiment]
    streams: list[Stream]
    insights: Insights


class MediaItem(MediaSummary, Results):
    """The v3 media item (`*.v3.json`, `GET /media/{id}`): the media-level fields, then every result asked
    for; a failed item has `errors` and no results."""


class Alignment(TypedDict):
    words: int  # the words of the human transcript
    matched: int  # those matched to a machine word


class AlignedMediaItem(MediaItem):
    """What aligning a transcript returns: the media item, recomputed, and how the alignment went."""

    alignment: Alignment


class TranscriptResponse(MediaSummary):
    """`GET /media/{id}/transcript` as JSON: the item's media-level fields and its transcript."""

    transcript: Transcript


class SortOrder(TypedDict):
    field: str
    direction: str  # asc or desc


class Pagination(TypedDict):
    limit: int
    sortOrder: list[SortOrder]


class MediaListing(TypedDict):  # `GET /media`: a page of media items without their results
    _links: SelfLink
    media: list[MediaSummary]
    pagination: Pagination


class _CallbackBodyRequired(TypedDict):
    _links: MediaLinks
    formatVersion: str
    mediaId: str
    status: str
    dateCreated: str


class CallbackBody(_CallbackBodyRequired, total=False):
    """The v3 analytics callback body: the media-level fields, the callback account, the expiry when a time to
    live is configured, the sections its `include` names (all when it names none); a failed item's has its errors."""

    accountId: str
    accountName: str
    dateFinished: str
    mediaContentType: str
    length: int
    timeToLiveInSeconds: int | float
    expiresOn: str
    metadata: JsonObject
    encryption: Encryption  # an encrypted item's key (the body itself is then encrypted to it)
    transcript: Transcript  # with alternateFormats (dfxp, webvtt, srt, text)
    knowledge: Knowledge
    prediction: Prediction
    spotting: Spotting
    streams: list[Stream]
    metrics: list[MetricGroup]
    speakerSentiments: list[SpeakerSentiment]
    conversation: ConversationResult
    categories: list[Category]
    warnings: list[WarningMessage]
    errors: list[ErrorMessage]


# reading results back: in a module of their own, named here
from speechproc.results.reading import (  # noqa: E402, F401 (the public names of reading results)
    TURN_COLUMNS,
    WORD_COLUMNS,
    is_turn_marker,
    load,
    text_of,
    turns,
    turns_frame,
    words_frame,
)
