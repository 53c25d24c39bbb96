"""Effective settings of a validated configuration: the values every stage reads, with their defaults."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from .models import BUNDLED_SENTENCE_ENCODER, BUNDLED_SPACY

# v3 language code -> Whisper language code
LANGUAGES = {
    "en-US": "en", "en-UK": "en", "en-AU": "en", "fr-FR": "fr", "de-DE": "de", "it-IT": "it",
    "pt-BR": "pt", "es-LA": "es", "es-ES": "es", "es-US": "es", "es-MX": "es", "nl-NL": "nl",
}
# The default of every setting a configuration may leave out, by its path in the configuration.
DEFAULTS: dict[str, Any] = {
    "speechModel.language": "en-US",
    "speechModel.features": (),
    "ingest": {},
    "speechproc.model": "tiny.en",
    "speechproc.device": "cpu",
    "speechproc.computeType": "int8",
    "speechproc.threads": 0,
    "speechproc.beamSize": 5,
    "speechproc.batched": True,
    "speechproc.batchSize": 8,
    "speechproc.vad": True,
    "speechproc.diarization": True,
    "speechproc.speakers": None,
    "speechproc.maxSpeakers": 8,
    "speechproc.speakerNames": (),
    "speechproc.speakerEmbedding": "campplus",
    "speechproc.speakerEncoder": None,
    "speechproc.sentimentEngine": "vader",
    "speechproc.sentenceEncoder": BUNDLED_SENTENCE_ENCODER,
    "speechproc.spacyModel": BUNDLED_SPACY,
    "speechproc.topicTaxonomy": None,
    "speechproc.callbackTimeoutSeconds": 10,
    "speechproc.callbackMaxBodyBytes": 64 * 2**20,
    "speechproc.callbackContract": "v3",
    "speechproc.allowHttpCallbacks": False,
    "speechproc.callbackFileFolder": None,
    "speechproc.accountId": None,
    "speechproc.accountName": "speechproc",
    "categories": (),
    "spotting.groups": (),
    "metrics": (),
    "vocabularies": (),
    "prediction.detectors": (),
    "prediction.classifiers": (),
    "publish.callbacks": (),
    "publish.audioTranscode.fileFormat": None,
    "publish.enableAnalyticIndexing": False,
    "knowledge.enableDiscovery": False,
    "speakerSentiments": False,
    "conversation.verbNounPairsEnabled": False,
    "transcript.formatting.enableNumberFormatting": True,
    "transcript.contentFiltering.enableProfanityFiltering": False,
    "timeToLiveInSeconds": None,
    # inside a detector's redactor
    "redactor.transcript.replacement": "[redacted]",
    "redactor.audio.tone": 270,
    "redactor.audio.gain": 0.5,
}
DEFAULT_MAX_SPEAKERS = DEFAULTS["speechproc.maxSpeakers"]


@dataclass(frozen=True)
class Settings:
    """A validated configuration with its effective values."""

    raw: dict[str, Any] = field(default_factory=dict)
    # definitions from the catalog that the configuration names, resolved before processing (api.resolve)
    categories: tuple[dict[str, Any], ...] = ()
    groups: tuple[dict[str, Any], ...] = ()
    classifiers: tuple[dict[str, Any], ...] = ()

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
    def ingest(self) -> dict[str, Any]:
        return self.value("ingest")

    @property
    def model(self) -> str:
        return self.value("speechproc.model")

    @property
    def device(self) -> str:
        return self.value("speechproc.device")

    @property
    def compute_type(self) -> str:
        return self.value("speechproc.computeType")

    @property
    def threads(self) -> int:
        return self.value("speechproc.threads")

    @property
    def beam_size(self) -> int:
        return self.value("speechproc.beamSize")

    @property
    def batched(self) -> bool:
        """Recognise the speech of all channels in shared batches of 30 s chunks (`batching`); False: sequentially."""
        return self.value("speechproc.batched")

    @property
    def batch_size(self) -> int:
        return self.value("speechproc.batchSize")

    @property
    def vad(self) -> bool:
        return self.value("speechproc.vad")

    @property
    def diarization(self) -> bool:
        return self.value("speechproc.diarization")

    @property
    def speakers(self) -> int | None:
        """The configured speaker count of a diarized recording; None means estimate it."""
        return self.value("speechproc.speakers")

    @property
    def max_speakers(self) -> int:
        return self.value("speechproc.maxSpeakers")

    @property
    def speaker_names(self) -> list[str]:
        return list(self.value("speechproc.speakerNames"))

    @property
    def speaker_embedding(self) -> str:
        """The speaker embedding backend of diarization: campplus or resemblyzer."""
        return self.value("speechproc.speakerEmbedding")

    @property
    def speaker_encoder(self) -> str | None:
        """A weights file for the speaker embedding backend; None is the bundled one."""
        return self.value("speechproc.speakerEncoder")

    @property
    def sentiment_engine(self) -> str:
        return self.value("speechproc.sentimentEngine")

    @property
    def sentence_encoder(self) -> str:
        return self.value("speechproc.sentenceEncoder")

    @property
    def spacy_model(self) -> str:
        return self.value("speechproc.spacyModel")

    @property
    def topic_taxonomy(self) -> str | None:
        """A topic taxonomy file of the user's; None is the bundled contact-centre taxonomy."""
        return self.value("speechproc.topicTaxonomy")

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
    def callback_timeout(self) -> float:
        return float(self.value("speechproc.callbackTimeoutSeconds"))

    @property
    def callback_max_bytes(self) -> int:
        return self.value("speechproc.callbackMaxBodyBytes")

    @property
    def callback_contract(self) -> str:
        """`v3`, or `v2-beta` for receivers that still expect the old callback contract."""
        return self.value("speechproc.callbackContract")

    @property
    def allow_http_callbacks(self) -> bool:
        """Plain http:// callbacks to hosts other than loopback are allowed."""
        return self.value("speechproc.allowHttpCallbacks")

    @property
    def callback_file_folder(self) -> str | None:
        """The folder file:// callbacks may write under; None: file callbacks are refused."""
        return self.value("speechproc.callbackFileFolder")

    @property
    def account_id(self) -> str | None:
        """The accountId of the callbacks; None is the local account's (made once in the state folder)."""
        return self.value("speechproc.accountId")

    @property
    def account_name(self) -> str:
        return self.value("speechproc.accountName")

    @property
    def redacted_audio_format(self) -> str | None:
        """`publish.audioTranscode.fileFormat`; None means the format of the recording (FLAC or WAV)."""
        return self.value("publish.audioTranscode.fileFormat")

    @property
    def analytic_indexing(self) -> bool:
        return self.value("publish.enableAnalyticIndexing")

    @property
    def metric_groups(self) -> list[str]:
        return [g["metricGroupName"] for g in self.value("metrics")]

    @property
    def discovery(self) -> bool:
        """Keywords and topics (v3 `knowledge.enableDiscovery`, off unless asked for)."""
        return self.value("knowledge.enableDiscovery")

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
    def hotwords(self) -> str | None:
        """Custom vocabulary terms and scripts as one hint string for the recogniser."""
        parts: list[str] = []
        for item in self.value("vocabularies"):
            parts += [t["term"] for t in item.get("terms", [])]
            parts += [s["script"] for s in item.get("scripts", [])]
        return " ".join(parts) or None

    @property
    def categories_requested(self) -> bool:
        """The configuration asks for categories (by name, or all of them)."""
        return bool(self.value("categories"))

    @property
    def detectors(self) -> list[dict[str, Any]]:
        """The `prediction.detectors` entries as configured."""
        return list(self.value("prediction.detectors"))

    @property
    def classifier_refs(self) -> list[dict[str, Any]]:
        """The `prediction.classifiers` entries as configured (a classifierName or a classifierId each)."""
        return list(self.value("prediction.classifiers"))

    @property
    def callbacks(self) -> list[dict[str, Any]]:
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
        canonical = json.dumps(self.raw, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]
