"""Effective settings of a validated configuration: the values every stage reads, with their defaults.

The local settings (the `speechproc` section) are declared once, as fields of the options dataclasses
(`speechproc.stages.options`, `speechproc.delivery.options`, `speechproc.download`,
`speechproc.formats.openpgp`); `LOCAL_SETTINGS`
collects them, and their defaults join the v3 ones here.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, cast

from speechproc.configuration import (
    CallbackEntry,
    CategoryDefinition,
    ClassifierDefinition,
    ClassifierEntry,
    DetectorEntry,
    IngestSection,
    InsightsSection,
    KeywordGroupDefinition,
    VocabularyTermEntry,
)
from speechproc.delivery.options import CallbackOptions
from speechproc.download import DownloadOptions
from speechproc.formats.openpgp import EncryptionOptions, PublicKey
from speechproc.results import JsonObject
from speechproc.schema import Setting, declared
from speechproc.stages.options import DEFAULT_LANGUAGE, LANGUAGES, EnrolledSpeaker, Options


def _local_settings(*roots: type) -> dict[str, Setting]:
    """Every setting the options dataclasses under `roots` declare, by key, in declaration order."""
    found: dict[str, Setting] = {}
    todo = list(roots)
    while todo:
        options_type = todo.pop(0)
        for _, setting in declared(options_type):
            found.setdefault(setting.key, setting)
        todo += [f.default.__class__ for f in dataclasses.fields(options_type)
                 if dataclasses.is_dataclass(f.default) and not isinstance(f.default, type)]
    return found


LOCAL_SETTINGS = _local_settings(Options, CallbackOptions, DownloadOptions, EncryptionOptions)
# settings that change how a recording is fetched, never the outputs: left out of `Settings.fingerprint`
FETCHING_ONLY = frozenset(setting.key for _, setting in declared(DownloadOptions))
# what a detector's redactor does when it leaves these out
REDACTION_REPLACEMENT = "[redacted]"
REDACTION_TONE_HZ = 270
REDACTION_GAIN = 0.5
# The default of every setting a configuration may leave out, by its path in the configuration.
DEFAULTS: dict[str, object] = {
    "speechModel.language": DEFAULT_LANGUAGE,
    "speechModel.features": (),
    "ingest": {},
    **{f"speechproc.{key}": setting.default for key, setting in LOCAL_SETTINGS.items()},
    "categories": (),
    "spotting.groups": (),
    "metrics": (),
    "vocabularies": (),
    "prediction.detectors": (),
    "prediction.classifiers": (),
    "publish.callbacks": (),
    "publish.audioTranscode.fileFormat": None,
    "publish.enableAnalyticIndexing": False,
    "searchability.searchable": True,
    "priority": "normal",
    "knowledge.enableDiscovery": False,
    "insights": {},
    "speakerSentiments": False,
    "conversation.verbNounPairsEnabled": False,
    "transcript.formatting.enableNumberFormatting": True,
    "transcript.contentFiltering.enableProfanityFiltering": False,
    "timeToLiveInSeconds": None,
    # inside a detector's redactor
    "redactor.transcript.replacement": REDACTION_REPLACEMENT,
    "redactor.audio.tone": REDACTION_TONE_HZ,
    "redactor.audio.gain": REDACTION_GAIN,
}


@dataclass(frozen=True)
class Settings:
    """A validated configuration with its effective values."""

    raw: JsonObject = field(default_factory=dict)  # the configuration as given (validated)
    # definitions from the catalog that the configuration names, resolved before processing (config.resolving.resolve)
    categories: tuple[CategoryDefinition, ...] = ()
    groups: tuple[KeywordGroupDefinition, ...] = ()
    classifiers: tuple[ClassifierDefinition, ...] = ()
    # every vocabulary term, named lists read from the catalog (config.resolving.resolve); None: only the inline terms
    vocabulary: tuple[VocabularyTermEntry, ...] | None = None
    public_key: PublicKey | None = None  # encryption.publicKeyId's stored key
    speakers: tuple[EnrolledSpeaker, ...] = ()  # the people enrolled, when speakers are named (config.resolving)
    speakers_digest: str = ""  # a hash of them, computed once with them

    def local(self, key: str) -> Any:
        """A local setting (`speechproc.KEY`), else its declared default."""
        return self.value(f"speechproc.{key}")

    def value(self, path: str) -> Any:
        """The configured value at a dotted path (`speechproc.model`), else its default from DEFAULTS."""
        node: Any = self.raw
        for key in path.split("."):
            if not isinstance(node, dict) or key not in node:
                return DEFAULTS[path]
            node = node[key]
        return node

    @property
    def language(self) -> str:
        return self.value("speechModel.language")

    @property
    def whisper_language(self) -> str:
        return LANGUAGES[self.language]

    @property
    def features(self) -> frozenset[str]:
        return frozenset(self.value("speechModel.features"))

    @property
    def advanced_punctuation(self) -> bool:
        return "advancedPunctuation" in self.features

    @property
    def voice_features(self) -> bool:
        return "voiceFeatures" in self.features

    @property
    def ingest(self) -> IngestSection:
        return self.value("ingest")

    @property
    def all_categories(self) -> bool:
        return any(item.get("allCategories") for item in self.value("categories"))

    @property
    def category_names(self) -> list[str]:
        return [item["categoryName"] for item in self.value("categories") if "categoryName" in item]

    @property
    def spotting_group_names(self) -> list[str]:
        return [g["groupName"] for g in self.value("spotting.groups")]

    @property
    def redacted_audio_format(self) -> str | None:
        """`publish.audioTranscode.fileFormat`; None means the format of the recording (FLAC or WAV)."""
        return self.value("publish.audioTranscode.fileFormat")

    @property
    def analytic_indexing(self) -> bool:
        """Whether items go into the analytic index: asked for, and not kept out of search."""
        return self.value("publish.enableAnalyticIndexing") and self.searchable

    @property
    def searchable(self) -> bool:
        """`searchability.searchable`: false keeps the items out of every corpus-wide search."""
        return self.value("searchability.searchable")

    @property
    def priority(self) -> str:
        """`priority`: low, normal or high (the order a batch starts its items in)."""
        return self.value("priority")

    @property
    def metric_groups(self) -> list[str]:
        return [g["metricGroupName"] for g in self.value("metrics")]

    @property
    def discovery(self) -> bool:
        """Keywords and topics (v3 `knowledge.enableDiscovery`, off unless asked for)."""
        return self.value("knowledge.enableDiscovery")

    @property
    def insights(self) -> InsightsSection:
        """speechproc's `insights` section as configured ({} when it is left out)."""
        section: InsightsSection = self.value("insights")
        return section.copy()

    @property
    def speaker_sentiments(self) -> bool:
        return self.value("speakerSentiments")

    @property
    def verb_noun_pairs(self) -> bool:
        return self.value("conversation.verbNounPairsEnabled")

    @property
    def number_formatting(self) -> bool:
        return self.value("transcript.formatting.enableNumberFormatting")

    @property
    def vocabulary_terms(self) -> tuple[VocabularyTermEntry, ...]:
        """Every custom vocabulary term ({term, soundsLike, weight}) in the order given; before the named lists
        are resolved, the inline ones only."""
        if self.vocabulary is not None:
            return self.vocabulary
        return tuple(cast(VocabularyTermEntry, {"soundsLike": [], "weight": 0, **t})
                     for item in self.value("vocabularies") for t in item.get("terms", []))

    @property
    def vocabulary_scripts(self) -> tuple[str, ...]:
        return tuple(s["script"] for item in self.value("vocabularies") for s in item.get("scripts", []))

    @property
    def named_vocabularies(self) -> bool:
        return any("vocabularyName" in item for item in self.value("vocabularies"))

    @property
    def categories_requested(self) -> bool:
        """The configuration asks for categories (by name, or all of them)."""
        return bool(self.value("categories"))

    @property
    def detectors(self) -> list[DetectorEntry]:
        """The `prediction.detectors` entries as configured."""
        return list(self.value("prediction.detectors"))

    @property
    def classifier_refs(self) -> list[ClassifierEntry]:
        """The `prediction.classifiers` entries as configured (a classifierName or a classifierId each)."""
        return list(self.value("prediction.classifiers"))

    @property
    def callbacks(self) -> list[CallbackEntry]:
        """The `publish.callbacks` entries as configured."""
        return list(self.value("publish.callbacks"))

    @property
    def time_to_live(self) -> int | None:
        return self.value("timeToLiveInSeconds")

    @property
    def profanity_filtering(self) -> bool:
        return bool(self.value("transcript.contentFiltering.enableProfanityFiltering"))

    def fingerprint(self) -> str:
        """Hash of everything that changes the outputs (used to skip unchanged work)."""
        raw, local = self.raw, self.raw.get("speechproc")
        if isinstance(local, dict) and FETCHING_ONLY & local.keys():
            kept = {k: v for k, v in local.items() if k not in FETCHING_ONLY}
            raw = {k: v for k, v in raw.items() if k != "speechproc"} | ({"speechproc": kept} if kept else {})
        canonical = json.dumps(raw, sort_keys=True, separators=(",", ":"))
        canonical += self.speakers_digest  # enrolling someone changes the names a recording's speakers take
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]
