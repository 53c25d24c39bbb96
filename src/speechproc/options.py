"""Each stage's options, built once from a validated configuration by `build`.

A stage receives only its own options and never reads the configuration (the pattern of faster-whisper's
VadOptions). The defaults are those of `settings.DEFAULTS`; the `enabled`-style fields are what the stage
table in `pipeline.py` reads to decide whether a stage runs. Everything here is plain, picklable data.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from .config import DETECTOR_NAME_BY_ID, detector_id
from .settings import DEFAULTS, LANGUAGES, Settings

ENGLISH = ("en-US", "en-UK", "en-AU")  # the languages detectors, discovery, verb-noun pairs and sentiment need
DEFAULT_MAX_SPEAKERS = DEFAULTS["speechproc.maxSpeakers"]


def english(language: str) -> bool:
    """Whether `language` (a v3 code) is one of the English variants: the one English check."""
    return language in ENGLISH


@dataclass(frozen=True)
class LanguageOptions:
    """The recording's language (a v3 code), for stages whose result depends on it."""

    language: str = DEFAULTS["speechModel.language"]

    @property
    def english(self) -> bool:
        return english(self.language)


@dataclass(frozen=True)
class IngestOptions:
    """How the recording's channels and tracks map to speakers (v3 `ingest`)."""

    layout: dict[str, Any] = field(default_factory=dict)
    original_rate: bool = False  # also keep each channel at the recording's own rate (voice features)


@dataclass(frozen=True)
class RecognitionOptions(LanguageOptions):
    model: str = DEFAULTS["speechproc.model"]
    device: str = DEFAULTS["speechproc.device"]
    compute_type: str = DEFAULTS["speechproc.computeType"]
    threads: int = DEFAULTS["speechproc.threads"]
    beam_size: int = DEFAULTS["speechproc.beamSize"]
    vad: bool = DEFAULTS["speechproc.vad"]
    batched: bool = DEFAULTS["speechproc.batched"]  # True: shared batches of 30 s chunks (batching.py)
    batch_size: int = DEFAULTS["speechproc.batchSize"]
    hotwords: str | None = None  # custom vocabulary terms and scripts as one hint string

    @property
    def whisper_language(self) -> str:
        return LANGUAGES[self.language]


@dataclass(frozen=True)
class DiarizationOptions:
    enabled: bool = DEFAULTS["speechproc.diarization"]
    speakers: int | None = DEFAULTS["speechproc.speakers"]  # None: estimate the count
    max_speakers: int = DEFAULT_MAX_SPEAKERS
    speaker_names: tuple[str, ...] = ()
    embedding: str = DEFAULTS["speechproc.speakerEmbedding"]  # campplus or resemblyzer
    encoder: str | None = DEFAULTS["speechproc.speakerEncoder"]  # None: the backend's bundled weights
    threads: int = DEFAULTS["speechproc.threads"]  # pieces of the embedding network's work at once; 0: one per core


@dataclass(frozen=True)
class DetectorOptions:
    """One configured detector and what it redacts."""

    name: str
    detector_id: str
    parameters: dict[str, Any] = field(default_factory=dict)
    replacement: str | None = None  # redact the transcript's words with this
    tone: tuple[int, float] | None = None  # redact the audio with this tone (Hz) and gain


@dataclass(frozen=True)
class DetectOptions(LanguageOptions):
    detectors: tuple[DetectorOptions, ...] = ()

    @property
    def redacts_audio(self) -> bool:
        return any(d.tone is not None for d in self.detectors)


@dataclass(frozen=True)
class SentimentOptions(LanguageOptions):
    engine: str = DEFAULTS["speechproc.sentimentEngine"]
    sentence_encoder: str = DEFAULTS["speechproc.sentenceEncoder"]
    per_speaker: bool = DEFAULTS["speakerSentiments"]  # v3 speakerSentiments
    for_metrics: bool = False  # the sentiment metric group is asked for


@dataclass(frozen=True)
class TextOptions(LanguageOptions):
    """Verb-noun pairs, keywords and topics: the spaCy parser and the sentence encoder."""

    enabled: bool = False
    spacy_model: str = DEFAULTS["speechproc.spacyModel"]
    sentence_encoder: str = DEFAULTS["speechproc.sentenceEncoder"]
    topic_taxonomy: str | None = DEFAULTS["speechproc.topicTaxonomy"]  # None: the bundled taxonomy


@dataclass(frozen=True)
class MetricsOptions(LanguageOptions):
    groups: tuple[str, ...] = ()
    voice_features: bool = False


@dataclass(frozen=True)
class Options:
    """Every stage's options for one recording."""

    language: str = DEFAULTS["speechModel.language"]
    ingest: IngestOptions = IngestOptions()
    recognition: RecognitionOptions = RecognitionOptions()
    diarization: DiarizationOptions = DiarizationOptions()
    advanced_punctuation: bool = False
    detect: DetectOptions = DetectOptions()
    voice_features: bool = False
    sentiment: SentimentOptions = SentimentOptions()
    verb_noun_pairs: TextOptions = TextOptions()
    discovery: TextOptions = TextOptions()
    metrics: MetricsOptions = MetricsOptions()
    keyword_groups: tuple[dict[str, Any], ...] = ()  # resolved definitions (runner.resolve)
    categories_requested: bool = False
    categories: tuple[dict[str, Any], ...] = ()
    classifiers: tuple[dict[str, Any], ...] = ()
    number_formatting: bool = True
    profanity_filtering: bool = False


def detector_options(item: dict[str, Any]) -> DetectorOptions:
    """A validated `prediction.detectors` entry (by name or by id), with its redactor's defaults."""
    name = item.get("detectorName") or DETECTOR_NAME_BY_ID[item["detectorId"]]
    redactor = item.get("redactor") or {}
    replacement = tone = None
    if "transcript" in redactor:
        replacement = redactor["transcript"].get("replacement", DEFAULTS["redactor.transcript.replacement"])
    if "audio" in redactor:
        audio = redactor["audio"]
        tone = (int(audio.get("tone", DEFAULTS["redactor.audio.tone"])),
                float(audio.get("gain", DEFAULTS["redactor.audio.gain"])))
    parameters = {p["parameter"]: p.get("value") for p in item.get("parameters", [])}
    return DetectorOptions(name, detector_id(name), parameters, replacement, tone)


def with_threads(options: Options, threads: int) -> Options:
    """The options with `threads` for every stage that shares work out over threads (a worker's share of the
    cores). The results do not depend on it."""
    return replace(options, recognition=replace(options.recognition, threads=threads),
                   diarization=replace(options.diarization, threads=threads))


def build(settings: Settings) -> Options:
    """The options of every stage from validated settings (definitions resolved by runner.resolve)."""
    language = settings.language
    text = dict(language=language, spacy_model=settings.spacy_model, sentence_encoder=settings.sentence_encoder,
                topic_taxonomy=settings.topic_taxonomy)
    return Options(
        language=language,
        ingest=IngestOptions(dict(settings.ingest), settings.voice_features),
        recognition=RecognitionOptions(language, settings.model, settings.device, settings.compute_type,
                                       settings.threads, settings.beam_size, settings.vad, settings.batched,
                                       settings.batch_size, settings.hotwords),
        diarization=DiarizationOptions(settings.diarization, settings.speakers, settings.max_speakers,
                                       tuple(settings.speaker_names), settings.speaker_embedding,
                                       settings.speaker_encoder, settings.threads),
        advanced_punctuation=settings.advanced_punctuation,
        detect=DetectOptions(language, tuple(detector_options(d) for d in settings.detectors)),
        voice_features=settings.voice_features,
        sentiment=SentimentOptions(language, settings.sentiment_engine, settings.sentence_encoder,
                                   settings.speaker_sentiments, "sentiment" in settings.metric_groups),
        verb_noun_pairs=TextOptions(enabled=settings.verb_noun_pairs, **text),
        discovery=TextOptions(enabled=settings.discovery, **text),
        metrics=MetricsOptions(language, tuple(settings.metric_groups), settings.voice_features),
        keyword_groups=settings.groups,
        categories_requested=settings.categories_requested,
        categories=settings.categories,
        classifiers=settings.classifiers,
        number_formatting=settings.number_formatting,
        profanity_filtering=settings.profanity_filtering,
    )
