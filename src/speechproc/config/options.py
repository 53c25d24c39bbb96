"""Each stage's options, the callbacks' and the downloads' options, built once from a validated configuration.

A field that declares a local setting (`Setting.field()`) is filled from the configuration's `speechproc`
section by `declared_values`; the rest come from the v3 sections here.
"""
from __future__ import annotations

from typing import Any

from speechproc.config.settings import REDACTION_GAIN, REDACTION_REPLACEMENT, REDACTION_TONE_HZ, Settings
from speechproc.config.v3 import DETECTOR_NAME_BY_ID, detector_id
from speechproc.configuration import DetectorEntry
from speechproc.delivery.options import CallbackOptions
from speechproc.download import DownloadOptions
from speechproc.formats.openpgp import EncryptionOptions
from speechproc.schema import declared
from speechproc.stages.options import (
    DetectOptions,
    DetectorOptions,
    DiarizationOptions,
    IdentifyOptions,
    IngestOptions,
    InsightQuestion,
    InsightsOptions,
    MetricsOptions,
    Options,
    RecognitionOptions,
    SentimentOptions,
    TextOptions,
    VocabularyOptions,
    VocabularyTerm,
)


def declared_values(options_type: type, settings: Settings) -> dict[str, Any]:
    """The value of every local setting that `options_type` declares, by field name."""
    values = {name: settings.local(setting.key) for name, setting in declared(options_type)}
    return {name: tuple(v) if isinstance(v, list) else v for name, v in values.items()}


def detector_options(item: DetectorEntry) -> DetectorOptions:
    """A validated `prediction.detectors` entry (by name or by id), with its redactor's defaults."""
    name = item.get("detectorName") or DETECTOR_NAME_BY_ID[item["detectorId"]]
    redactor = item.get("redactor") or {}
    replacement = tone = None
    if "transcript" in redactor:
        replacement = redactor["transcript"].get("replacement", REDACTION_REPLACEMENT)
    if "audio" in redactor:
        audio = redactor["audio"]
        tone = (int(audio.get("tone", REDACTION_TONE_HZ)), float(audio.get("gain", REDACTION_GAIN)))
    parameters = {p["parameter"]: p.get("value") for p in item.get("parameters", [])}
    return DetectorOptions(name=name, detector_id=detector_id(name), parameters=parameters,
                           replacement=replacement, tone=tone)


def build(settings: Settings) -> Options:
    """The options of every stage from validated settings (definitions resolved by resolving.resolve)."""
    language = settings.language
    text = dict(language=language, **declared_values(TextOptions, settings))
    return Options(
        language=language,
        ingest=IngestOptions(layout=settings.ingest.copy(), original_rate=settings.voice_features),
        recognition=RecognitionOptions(language=language, **declared_values(RecognitionOptions, settings)),
        diarization=DiarizationOptions(**declared_values(DiarizationOptions, settings)),
        identify=IdentifyOptions(people=settings.speakers, **declared_values(IdentifyOptions, settings)),
        advanced_punctuation=settings.advanced_punctuation,
        detect=DetectOptions(language=language, detectors=tuple(detector_options(d) for d in settings.detectors)),
        voice_features=settings.voice_features,
        sentiment=SentimentOptions(language=language, per_speaker=settings.speaker_sentiments,
                                   for_metrics="sentiment" in settings.metric_groups,
                                   **declared_values(SentimentOptions, settings)),
        verb_noun_pairs=TextOptions(enabled=settings.verb_noun_pairs, **text),
        discovery=TextOptions(enabled=settings.discovery, **text),
        metrics=MetricsOptions(language=language, groups=tuple(settings.metric_groups),
                               voice_features=settings.voice_features),
        insights=insights_options(settings),
        vocabulary=vocabulary_options(settings),
        keyword_groups=settings.groups,
        categories_requested=settings.categories_requested,
        categories=settings.categories,
        classifiers=settings.classifiers,
        number_formatting=settings.number_formatting,
        profanity_filtering=settings.profanity_filtering,
    )


def insights_options(settings: Settings) -> InsightsOptions:
    """What the `insights` section asks of the language model, and its local settings."""
    section = settings.insights
    return InsightsOptions(language=settings.language, summary=bool(section.get("summary")),
                           reason=bool(section.get("reason")), outcome=bool(section.get("outcome")),
                           action_items=bool(section.get("actionItems")),
                           questions=tuple(InsightQuestion(q["name"], q["question"], q.get("check", "auto"))
                                           for q in section.get("questions", [])),
                           **declared_values(InsightsOptions, settings))


def vocabulary_options(settings: Settings) -> VocabularyOptions:
    """The custom vocabulary's terms (named lists resolved by config.resolving.resolve) and scripts, and its settings."""
    terms = tuple(VocabularyTerm(t["term"], tuple(t.get("soundsLike", ())), t.get("weight", 0))
                  for t in settings.vocabulary_terms)
    return VocabularyOptions(terms=terms, scripts=settings.vocabulary_scripts,
                             **declared_values(VocabularyOptions, settings))


def callback_options(settings: Settings) -> CallbackOptions:
    """What the callbacks of a configuration need: the configured ones and the local rules for sending."""
    return CallbackOptions(callbacks=tuple(settings.callbacks), time_to_live=settings.time_to_live,
                           language=settings.language, encryption=settings.public_key,
                           **declared_values(CallbackOptions, settings))


def encryption_options(settings: Settings) -> EncryptionOptions:
    """The local settings of client-supplied encryption (`formats.openpgp.EncryptionOptions`)."""
    return EncryptionOptions(**declared_values(EncryptionOptions, settings))


def download_options(settings: Settings) -> DownloadOptions:
    """How recordings named by URL are fetched: the local settings of `download.DownloadOptions`."""
    return DownloadOptions(**declared_values(DownloadOptions, settings))
