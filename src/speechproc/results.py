"""The shapes of what speechproc writes: the v3 media item (`*.v3.json`), its transcript and analytics, and the
v3 analytics callback body, as TypedDicts; `load` reads a `.v3.json` back, `words_frame` and `turns_frame`
lay its transcript out as pandas DataFrames.

The types describe JSON: keys are spelled as VoiceBase spells them, times are integer milliseconds. A key a
result has only when it was asked for (or only in some cases) is optional (`total=False`). Importing this
module is light: pandas is imported only when a frame is made.
"""
from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any, TypedDict, cast

if TYPE_CHECKING:
    from pandas import DataFrame

TURN_FLAG = "turn"  # `m` of a turn marker token
PUNCTUATION_FLAG = "punc"  # `m` of a punctuation token


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
    """One transcript token: a word (no `m`), a punctuation mark (m="punc") or a turn marker (m="turn",
    w = the speaker's name, s and e the turn's span)."""


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


class Detection(TypedDict):
    detectorClass: int
    detectorClassLabel: str
    detectedSegments: list[SpeakerSpans]


class DetectorResult(TypedDict):
    """One detector's result (`prediction.detectors`): what it found, by speaker."""

    detectorId: str
    detectorName: str
    detectorVersion: str
    detectorDisplayName: str
    detectorType: str  # "binary"
    detections: list[Detection]


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

    metadata: dict[str, Any]  # as given (title, externalId, extended, ...); speechproc always writes it
    dateFinished: str
    timeToLiveInSeconds: int | float  # the configuration's timeToLiveInSeconds (docs/state.md, retention)
    expiresOn: str  # dateFinished plus timeToLiveInSeconds: when the item is deleted
    mediaContentType: str
    length: int  # ms
    errors: list[ErrorMessage]
    warnings: list[WarningMessage]
    encryption: Encryption  # only on an item processed with encryption.publicKeyId


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
    """The v3 analytics callback body: the media-level fields, the callback account, the expiry when a time
    to live is configured, and the sections the callback's `include` names (all when it names none); a
    failed item's body always carries its errors."""

    accountId: str
    accountName: str
    dateFinished: str
    mediaContentType: str
    length: int
    timeToLiveInSeconds: int | float
    expiresOn: str
    metadata: dict[str, Any]
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


# ----------------------------------------------------------------------------- reading results

def load(path: str | os.PathLike[str]) -> MediaItem:
    """A `.v3.json` file as a media item. Raise OSError when it cannot be read, ValueError when it is not
    JSON or not a v3 media item (an object with a mediaId)."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if not isinstance(data, dict) or not isinstance(data.get("mediaId"), str):
        raise ValueError(f"{os.fspath(path)} is not a v3 media item (a JSON object with a mediaId)")
    return cast(MediaItem, data)


def _flags(word: Word) -> list[str]:
    return word.get("m", "").split("|") if word.get("m") else []


def is_turn_marker(word: Word) -> bool:
    return TURN_FLAG in _flags(word)


def text_of(tokens: list[Word]) -> str:
    """Tokens as readable text: words separated by spaces, punctuation attached to the word before."""
    return "".join(w["w"] if PUNCTUATION_FLAG in _flags(w) or not i else " " + w["w"] for i, w in enumerate(tokens))


def turns(item: MediaItem) -> list[Turn]:
    """The transcript's speaker turns in order (none when the item has no transcript). Tokens before the
    first turn marker, which speechproc never writes, form a turn of their own with no speaker."""
    out: list[Turn] = []
    for word in item.get("transcript", {}).get("words", []):
        if is_turn_marker(word):
            out.append({"turn": len(out), "speaker": word["w"], "s": word["s"], "e": word["e"], "words": []})
            continue
        if not out:
            out.append({"turn": 0, "speaker": "", "s": word["s"], "e": word["e"], "words": []})
        out[-1]["words"].append(word)
    return out


def _pandas() -> Any:
    try:
        import pandas
    except ImportError as exc:
        raise ImportError("speechproc.results needs pandas for DataFrames: pip install pandas "
                          "(it comes with speechproc's dev extra)") from exc
    return pandas


WORD_COLUMNS = ("p", "turn", "speaker", "s", "e", "w", "c", "m", "v")
TURN_COLUMNS = ("turn", "speaker", "s", "e", "words", "text")


def words_frame(item: MediaItem) -> DataFrame:
    """The transcript's tokens, one row each in transcript order, turn markers left out (see `turns_frame`):
    p, turn (its index), speaker, s, e (ms), w, c (confidence), m (None for a word, "punc" for punctuation)
    and v (relative volume, with voiceFeatures; else NaN). A word's `frq` is left out."""
    pandas = _pandas()
    rows = [{"p": w["p"], "turn": t["turn"], "speaker": t["speaker"], "s": w["s"], "e": w["e"], "w": w["w"],
             "c": w["c"], "m": w.get("m"), "v": w.get("v")} for t in turns(item) for w in t["words"]]
    return pandas.DataFrame(rows, columns=list(WORD_COLUMNS))


def turns_frame(item: MediaItem) -> DataFrame:
    """The transcript's speaker turns, one row each in order: turn (index), speaker, s, e (ms), words (how
    many words proper, punctuation left out) and text."""
    pandas = _pandas()
    rows = [{"turn": t["turn"], "speaker": t["speaker"], "s": t["s"], "e": t["e"],
             "words": sum(1 for w in t["words"] if not _flags(w)), "text": text_of(t["words"])} for t in turns(item)]
    return pandas.DataFrame(rows, columns=list(TURN_COLUMNS))
