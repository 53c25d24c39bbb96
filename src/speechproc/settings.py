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
DEFAULT_MAX_SPEAKERS = 8
SENTIMENT_LANGUAGES = ("en-US", "en-AU", "en-UK")  # the languages sentence sentiment is defined for


@dataclass(frozen=True)
class Settings:
    """A validated configuration with its effective values."""

    raw: dict[str, Any] = field(default_factory=dict)
    # definitions from the catalog that the configuration names, resolved before processing (api.resolve)
    categories: tuple[dict[str, Any], ...] = ()
    groups: tuple[dict[str, Any], ...] = ()
    classifiers: tuple[dict[str, Any], ...] = ()

    def _get(self, *keys: str, default: Any = None) -> Any:
        node: Any = self.raw
        for key in keys:
            if not isinstance(node, dict) or key not in node:
                return default
            node = node[key]
        return node

    @property
    def language(self) -> str:
        return self._get("speechModel", "language", default="en-US")

    @property
    def whisper_language(self) -> str:
        return LANGUAGES[self.language]

    @property
    def features(self) -> frozenset[str]:
        return frozenset(self._get("speechModel", "features", default=[]))

    @property
    def advanced_punctuation(self) -> bool:
        return "advancedPunctuation" in self.features

    @property
    def voice_features(self) -> bool:
        return "voiceFeatures" in self.features

    @property
    def ingest(self) -> dict[str, Any]:
        return self._get("ingest", default={})

    @property
    def model(self) -> str:
        return self._get("speechproc", "model", default="tiny.en")

    @property
    def device(self) -> str:
        return self._get("speechproc", "device", default="cpu")

    @property
    def compute_type(self) -> str:
        return self._get("speechproc", "computeType", default="int8")

    @property
    def threads(self) -> int:
        return self._get("speechproc", "threads", default=0)

    @property
    def beam_size(self) -> int:
        return self._get("speechproc", "beamSize", default=5)

    @property
    def vad(self) -> bool:
        return self._get("speechproc", "vad", default=True)

    @property
    def diarization(self) -> bool:
        return self._get("speechproc", "diarization", default=True)

    @property
    def speakers(self) -> int | None:
        """The configured speaker count of a diarized recording; None means estimate it."""
        return self._get("speechproc", "speakers")

    @property
    def max_speakers(self) -> int:
        return self._get("speechproc", "maxSpeakers", default=DEFAULT_MAX_SPEAKERS)

    @property
    def speaker_names(self) -> list[str]:
        return list(self._get("speechproc", "speakerNames", default=[]))

    @property
    def speaker_encoder(self) -> str | None:
        """A Resemblyzer-compatible weights file; None is the encoder bundled with resemblyzer."""
        return self._get("speechproc", "speakerEncoder")

    @property
    def sentiment_engine(self) -> str:
        return self._get("speechproc", "sentimentEngine", default="vader")

    @property
    def sentence_encoder(self) -> str:
        return self._get("speechproc", "sentenceEncoder", default=BUNDLED_SENTENCE_ENCODER)

    @property
    def spacy_model(self) -> str:
        return self._get("speechproc", "spacyModel", default=BUNDLED_SPACY)

    @property
    def topic_taxonomy(self) -> str | None:
        """A topic taxonomy file of the user's; None is the bundled contact-centre taxonomy."""
        return self._get("speechproc", "topicTaxonomy")

    @property
    def all_categories(self) -> bool:
        return any(item.get("allCategories") for item in self._get("categories", default=[]))

    @property
    def category_names(self) -> list[str]:
        return [item["categoryName"] for item in self._get("categories", default=[]) if "categoryName" in item]

    @property
    def spotting_group_names(self) -> list[str]:
        return [g["groupName"] for g in self._get("spotting", "groups", default=[])]

    @property
    def callback_timeout(self) -> float:
        return float(self._get("speechproc", "callbackTimeoutSeconds", default=10))

    @property
    def callback_max_bytes(self) -> int:
        return self._get("speechproc", "callbackMaxBodyBytes", default=64 * 2**20)

    @property
    def callback_contract(self) -> str:
        """`v3`, or `v2-beta` for receivers that still expect the old callback contract."""
        return self._get("speechproc", "callbackContract", default="v3")

    @property
    def allow_http_callbacks(self) -> bool:
        """Plain http:// callbacks to hosts other than loopback are allowed."""
        return self._get("speechproc", "allowHttpCallbacks", default=False)

    @property
    def callback_file_folder(self) -> str | None:
        """The folder file:// callbacks may write under; None: file callbacks are refused."""
        return self._get("speechproc", "callbackFileFolder")

    @property
    def account_id(self) -> str | None:
        """The accountId of the callbacks; None is the local account's (made once in the state folder)."""
        return self._get("speechproc", "accountId")

    @property
    def account_name(self) -> str:
        return self._get("speechproc", "accountName", default="speechproc")

    @property
    def redacted_audio_format(self) -> str | None:
        """`publish.audioTranscode.fileFormat`; None means the format of the recording (FLAC or WAV)."""
        return self._get("publish", "audioTranscode", "fileFormat")

    @property
    def analytic_indexing(self) -> bool:
        return self._get("publish", "enableAnalyticIndexing", default=False)

    @property
    def metric_groups(self) -> list[str]:
        return [g["metricGroupName"] for g in self._get("metrics", default=[])]

    @property
    def discovery(self) -> bool:
        """Keywords and topics (v3 `knowledge.enableDiscovery`, off unless asked for)."""
        return self._get("knowledge", "enableDiscovery", default=False)

    @property
    def speaker_sentiments(self) -> bool:
        return self._get("speakerSentiments", default=False)

    @property
    def verb_noun_pairs(self) -> bool:
        return self._get("conversation", "verbNounPairsEnabled", default=False)

    @property
    def number_formatting(self) -> bool:
        return self._get("transcript", "formatting", "enableNumberFormatting", default=True)

    @property
    def hotwords(self) -> str | None:
        """Custom vocabulary terms and scripts as one hint string for the recogniser."""
        parts: list[str] = []
        for item in self._get("vocabularies", default=[]):
            parts += [t["term"] for t in item.get("terms", [])]
            parts += [s["script"] for s in item.get("scripts", [])]
        return " ".join(parts) or None

    def section(self, name: str) -> Any:
        return self.raw.get(name)

    def fingerprint(self) -> str:
        """Hash of everything that changes the outputs (used to skip unchanged work)."""
        canonical = json.dumps(self.raw, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]
