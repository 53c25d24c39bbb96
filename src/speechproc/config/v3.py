"""The v3 configuration: load JSON or YAML, validate strictly, expose effective settings."""
from __future__ import annotations

import re
import uuid
from pathlib import Path
from typing import Any

from speechproc import errors as E
from speechproc.config.documents_io import read_file
from speechproc.config.settings import LOCAL_SETTINGS, Settings
from speechproc.delivery import destinations as callback_destinations
from speechproc.formats import v3json
from speechproc.results import JsonObject
from speechproc.schema import Arr, Bool, FreeObject, Int, Num, Obj, Str, invalid
from speechproc.stages.analytics import load_taxonomy
from speechproc.stages.options import DEFAULT_MAX_SPEAKERS, LANGUAGES, QUESTION_ANSWERERS
from speechproc.stages.personal_data import KINDS as PII_KINDS
from speechproc.stages.personal_data import STRICTNESS
from speechproc.store.registered import vocabularies

__all__ = ["DEFAULT_MAX_SPEAKERS", "LANGUAGES", "Settings", "load", "validate"]

FEATURES = ("advancedPunctuation", "voiceFeatures")
METRIC_GROUPS = ("overtalk", "sentiment", "talk-style-tone-and-volume", "talk-time-and-rate")
CALLBACK_TYPES = ("analytics", "transcript", "media")
CALLBACK_FORMATS = ("json", "text", "webvtt", "srt", "dfxp")
CALLBACK_STREAMS = ("original", "redacted-audio")
CALLBACK_INCLUDES = tuple(v3json.CALLBACK_SECTIONS)
AUDIO_FORMATS = ("wav", "mp3", "flac", "opus", "ogg")
DETECTOR_NAMES = ("PCI", "SSN", "Number", "PII")
DETECTION_LEVELS = ("entireRegion", "probableNumbers", "numbersOnly")
_DETECTOR_NAMESPACE = uuid.UUID("6c1d1a36-0b6e-4b8e-9d1f-3f7e5a0c2b10")


def detector_id(name: str) -> str:
    """The stable UUID of a built-in detector."""
    return str(uuid.uuid5(_DETECTOR_NAMESPACE, name))


DETECTOR_NAME_BY_ID = {detector_id(name): name for name in DETECTOR_NAMES}


# ---------------------------------------------------------------- semantic checks

def _check_ingest(ingest: dict, path: str) -> None:
    forms = [k for k in ("speakerName", "channels", "stereo", "tracks") if k in ingest]
    if len(forms) > 1:
        raise invalid(path, f"{' and '.join(forms)} are mutually exclusive", E.INGEST_FORMS_EXCLUSIVE)
    stereo = ingest.get("stereo")
    if stereo is not None:
        for side in ("left", "right"):
            if side not in stereo or not stereo[side].get("speakerName"):
                raise invalid(f"{path}.stereo.{side}.speakerName", "is required for stereo",
                              E.INGEST_STEREO_INCOMPLETE)
    channels = ingest.get("channels")
    if channels is not None and channels and all(c.get("ignore") for c in channels):
        raise invalid(f"{path}.channels", "every channel is ignored", E.INGEST_ALL_IGNORED)


def _check_metrics(groups: list, path: str) -> None:
    names = [g["metricGroupName"] for g in groups]
    if len(set(names)) != len(names):
        raise invalid(path, "a metric group is listed twice")


def _check_local_choices(local: dict, path: str) -> None:
    least, most = local.get("minSpeakers", 1), local.get("maxSpeakers", DEFAULT_MAX_SPEAKERS)
    if least > most:
        raise invalid(f"{path}.minSpeakers", f"{least} is more than maxSpeakers ({most})")
    if local.get("speakers") not in (None, 1) and local.get("diarization", True) and local["speakers"] < least:
        raise invalid(f"{path}.minSpeakers", f"{least} is more than speakers ({local['speakers']}), which fixes "
                      "the count")
    if local.get("diarizer") in ("segmentation", "hybrid") and local.get("speakerEmbedding") == "resemblyzer":
        raise invalid(f"{path}.diarizer", f"the {local['diarizer']} diarizer uses CAM++ embeddings: set "
                      "speakerEmbedding: campplus, or diarizer: windows for resemblyzer")
    if "topicTaxonomy" in local:
        try:
            load_taxonomy(local["topicTaxonomy"])
        except ValueError as exc:
            raise invalid(f"{path}.topicTaxonomy", str(exc)) from None


def _check_categories(items: list, path: str) -> None:
    for i, item in enumerate(items):
        keys = set(item)
        if keys not in ({"allCategories"}, {"categoryName"}):
            raise invalid(f"{path}[{i}]", "give either {allCategories: true} or {categoryName: NAME}")
        if "allCategories" in item:
            if item["allCategories"] is not True:
                raise invalid(f"{path}[{i}].allCategories", "must be true (omit categories to compute none)")
            if len(items) != 1:
                raise invalid(path, "{allCategories: true} must be the only element")


INSIGHT_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")
MAX_INSIGHT_QUESTIONS = 20


def _check_insights(section: dict, path: str) -> None:
    """At least one insight asked for; question names that can be column and query names, each once."""
    if not any(section.get(k) for k in ("summary", "reason", "outcome", "actionItems")) and not section.get("questions"):
        raise invalid(path, "asks for nothing: set summary, reason, outcome or actionItems to true, or give questions "
                      "(or leave the section out)")
    names = [q["name"] for q in section.get("questions", [])]
    for i, name in enumerate(names):
        if not INSIGHT_NAME.fullmatch(name):
            raise invalid(f"{path}.questions[{i}].name", "1-64 letters, digits, '_' or '-', starting with a letter "
                          "(it names the answer's column in exports and in queries)")
        if name in names[:i]:
            raise invalid(f"{path}.questions[{i}].name", f"{name!r} is the name of an earlier question")
    for i, question in enumerate(section.get("questions", [])):
        text = question["question"]
        if any(not ch.isprintable() for ch in text):
            raise invalid(f"{path}.questions[{i}].question", "holds a control or format character")


def _check_vocabulary(item: dict, path: str) -> None:
    if "vocabularyName" in item and ("terms" in item or "scripts" in item):
        raise invalid(path, "vocabularyName and terms/scripts cannot be in one item", E.VOCABULARY_NAME_AND_TERMS)
    if not item:
        raise invalid(path, "needs vocabularyName, terms or scripts")


def _check_detector(item: dict, path: str) -> None:
    if "detectorId" not in item and "detectorName" not in item:
        raise invalid(path, "needs detectorId or detectorName", E.DETECTOR_WITHOUT_ID)
    name = item.get("detectorName")
    if name is not None and name not in DETECTOR_NAMES:
        raise invalid(f"{path}.detectorName", f"unknown detector {name!r}: the detectors are {', '.join(DETECTOR_NAMES)}")
    by_id = DETECTOR_NAME_BY_ID.get(item.get("detectorId", ""))
    if "detectorId" in item and by_id is None:
        raise invalid(f"{path}.detectorId", "unknown detector id (the ids are in the detector results)")
    if name is not None and by_id is not None and by_id != name:
        raise invalid(path, f"detectorId is the id of {by_id}, not of {name}")
    seen: set[str] = set()
    for j, param in enumerate(item.get("parameters", [])):
        where = f"{path}.parameters[{j}]"
        _check_parameter(name or by_id, param, where)
        if param["parameter"] in seen:
            raise invalid(f"{where}.parameter", f"{param['parameter']} is given twice")
        seen.add(param["parameter"])
    redactor = item.get("redactor")
    if redactor is not None and not redactor:
        raise invalid(f"{path}.redactor", "needs audio or transcript", E.REDACTOR_EMPTY)


def _check_parameter(detector: str | None, param: dict, where: str) -> None:
    """One detector parameter: PCI's detectionLevel, PII's entityTypes and strictness."""
    value = param.get("value")
    if (detector, param["parameter"]) == ("PII", "entityTypes"):
        kinds = [part.strip() for part in str(value or "").split(",")]
        unknown = [kind for kind in kinds if kind not in PII_KINDS]
        if unknown or not kinds:
            raise invalid(f"{where}.value", f"entityTypes is a comma-separated list of {', '.join(PII_KINDS)}; "
                          f"{unknown[0] if unknown else 'nothing'!r} is not one of them")
    elif (detector, param["parameter"]) == ("PII", "strictness"):
        if value not in STRICTNESS:
            raise invalid(f"{where}.value", f"strictness is one of {', '.join(STRICTNESS)} ({value!r} is not)")
    elif (detector, param["parameter"]) == ("PCI", "detectionLevel"):
        if value not in DETECTION_LEVELS:
            raise invalid(f"{where}.value", f"detectionLevel is one of {', '.join(DETECTION_LEVELS)}")
    else:
        raise invalid(where, f"unknown parameter {param['parameter']!r} (PCI takes detectionLevel, PII "
                      "entityTypes and strictness)")


def _check_classifier(item: dict, path: str) -> None:
    if "classifierId" not in item and "classifierName" not in item:
        raise invalid(path, "needs classifierId or classifierName")


def _check_callback(cb: dict, path: str) -> None:
    """The fields of one callback; its URL is checked against the local rules after the schema
    (`_check_callback_destinations`), when the speechproc section is known."""
    url = cb.get("url")
    if not url:
        raise invalid(f"{path}.url", "is required", E.CALLBACK_NO_URL)
    kind = cb.get("type", "analytics")
    rules = {"analytics": ("include",), "transcript": ("format",), "media": ("stream",)}
    for key in ("include", "format", "stream"):
        if key in cb and key not in rules[kind]:
            raise invalid(f"{path}.{key}", f"is not allowed for callback type {kind}", E.CALLBACK_PROPERTY_NOT_ALLOWED)
    for key in rules[kind]:
        if key != "include" and key not in cb:
            raise invalid(f"{path}.{key}", f"is required for callback type {kind}", E.CALLBACK_PROPERTY_MISSING)


def _check_callback_destinations(raw: dict) -> None:
    """Every callback URL, parsed as the sender parses it, against speechproc.allowHttpCallbacks and
    speechproc.callbackFileFolder; what exists of a file destination is checked on disk as it is now."""
    local = raw.get("speechproc", {})
    folder = local.get("callbackFileFolder")
    try:
        if folder is not None:
            callback_destinations.check_file_folder(folder)
    except callback_destinations.Refused as exc:
        raise invalid("speechproc.callbackFileFolder", str(exc)) from None
    for i, cb in enumerate(raw.get("publish", {}).get("callbacks", [])):
        try:
            found = callback_destinations.destination(cb["url"], allow_http=local.get("allowHttpCallbacks") is True,
                                          file_folder=folder)
            if found.scheme == "file":
                callback_destinations.inspect_folder(found)
        except callback_destinations.Refused as exc:
            raise invalid(f"publish.callbacks[{i}].url", str(exc), E.CALLBACK_BAD_PROTOCOL) from None


_UUID = re.compile(r"[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")


def _check_encrypted_original(raw: dict) -> None:
    """An encrypted copy of the recording needs the key it is encrypted to."""
    if raw.get("speechproc", {}).get("encryptOriginal") and "encryption" not in raw:
        raise invalid("speechproc.encryptOriginal", "needs encryption.publicKeyId (the key the copy is encrypted to)")


def _check_account(local: dict) -> None:
    """speechproc.accountId is a UUID (any version: the hosted service's ids were not all RFC 4122)."""
    account_id = local.get("accountId")
    if account_id is not None and not _UUID.fullmatch(account_id):
        raise invalid("speechproc.accountId", "must be a UUID (8-4-4-4-12 hexadecimal digits)")


MAX_TIME_TO_LIVE = 10 * 365 * 24 * 3600  # ten years: far from the limits of dates

_PARAMS = Arr(Obj({"parameter": Str(non_empty=True), "value": Str()}, required=("parameter",)))
_SPEECH_MODEL = Obj({
    "language": Str(enum=tuple(LANGUAGES)),
    "features": Arr(Str(enum=FEATURES), unique=True),
    "extensions": Arr(Str(non_empty=True), unique=True),
    "model": Str(enum=("Titan", "Europa", "Proteus")),
}, section="speechModel")
_CHANNEL = Obj({"speakerName": Str(non_empty=True), "speakerRole": Str(), "ignore": Bool()}, section="channel")

SCHEMA = Obj(section="root", fields={
    "speechModel": _SPEECH_MODEL,
    "additionalSpeechModels": Arr(_SPEECH_MODEL),
    "priority": Str(enum=("low", "normal", "high")),
    "ingest": Obj({
        "allowDeferredProcessing": Bool(),
        "speakerName": Str(non_empty=True),
        "speakerRole": Str(),
        "channels": Arr(_CHANNEL, min_items=1),
        "stereo": Obj({"left": _CHANNEL, "right": _CHANNEL}, section="stereo"),
        "tracks": Arr(Obj({"trackIndex": Int(minimum=0), "speakerName": Str(non_empty=True), "speakerRole": Str(),
                           "channels": Arr(_CHANNEL, min_items=1)}, required=("trackIndex",), section="track"),
                      min_items=1),
    }, section="ingest", extra_check=_check_ingest),
    "prediction": Obj({
        "classifiers": Arr(Obj({"classifierId": Str(non_empty=True), "classifierName": Str(non_empty=True),
                                "version": Str(), "parameters": _PARAMS},
                               section="classifier", extra_check=_check_classifier)),
        "detectors": Arr(Obj({
            "detectorId": Str(non_empty=True), "detectorName": Str(non_empty=True), "version": Str(),
            "parameters": _PARAMS,
            "redactor": Obj({"transcript": Obj({"replacement": Str()}, section="redactor.transcript"),
                             "audio": Obj({"tone": Int(minimum=1, maximum=20000), "gain": Num(minimum=0, maximum=1)},
                                          section="redactor.audio")}, section="redactor"),
        }, section="detector", extra_check=_check_detector)),
    }, section="prediction"),
    "metrics": Arr(Obj({"metricGroupName": Str(enum=METRIC_GROUPS)}, required=("metricGroupName",),
                       section="metrics"), min_items=1, max_items=4,
                   extra_check=_check_metrics),
    "spotting": Obj({"groups": Arr(Obj({"groupName": Str(non_empty=True)}, required=("groupName",),
                                       section="spotting group"), max_items=100, unique=True)},
                    section="spotting"),
    "knowledge": Obj({"enableDiscovery": Bool(), "enableExternalDataSources": Bool()}, section="knowledge"),
    # speechproc's own (no v3 section): what happened in the call, read by a language model
    "insights": Obj({
        "summary": Bool(), "reason": Bool(), "outcome": Bool(), "actionItems": Bool(),
        "questions": Arr(Obj({"name": Str(non_empty=True, max_len=64), "question": Str(non_empty=True, max_len=500),
                              "check": Str(enum=QUESTION_ANSWERERS, max_len=32)},
                             required=("name", "question"), section="insights question"),
                         max_items=MAX_INSIGHT_QUESTIONS),
    }, section="insights", extra_check=_check_insights),
    "transcript": Obj({
        "formatting": Obj({"enableNumberFormatting": Bool()}, section="transcript.formatting"),
        "contentFiltering": Obj({"enableProfanityFiltering": Bool()}, section="transcript.contentFiltering"),
    }, section="transcript"),
    "vocabularies": Arr(Obj({
        "vocabularyName": Str(non_empty=True),
        "terms": vocabularies.Terms(),  # the v3 term rules and codes (20009-20017)
        "scripts": Arr(Obj({"script": Str(non_empty=True)}, required=("script",), section="vocabulary script"),
                       min_items=1),
    }, section="vocabulary", extra_check=_check_vocabulary)),
    "categories": Arr(Obj({"allCategories": Bool(), "categoryName": Str(non_empty=True)}, section="categories"),
                      min_items=1, extra_check=_check_categories),
    "publish": Obj({
        "callbacks": Arr(Obj({
            "url": Str(), "method": Str(enum=("POST", "PUT"), case_insensitive=True),
            "type": Str(enum=CALLBACK_TYPES), "format": Str(enum=CALLBACK_FORMATS),
            "include": Arr(Str(enum=CALLBACK_INCLUDES), unique=True), "stream": Str(enum=CALLBACK_STREAMS),
        }, section="callback", extra_check=_check_callback)),
        "enableAnalyticIndexing": Bool(),
        "audioTranscode": Obj({"onlyIfRedacted": Bool(), "fileFormat": Str(enum=AUDIO_FORMATS), "codec": Str()},
                              section="publish.audioTranscode"),
    }, section="publish"),
    "searchability": Obj({"searchable": Bool()}, section="searchability"),
    "encryption": Obj({"publicKeyId": Str(non_empty=True)}, section="encryption"),
    "timeToLiveInSeconds": Int(minimum=0, maximum=MAX_TIME_TO_LIVE),
    "speakerSentiments": Bool(),
    "conversation": Obj({"verbNounPairsEnabled": Bool()}, section="conversation"),
    "entity": Obj({"enableEntityExtraction": Bool()}, section="entity"),
    # the local settings, each declared once with its options field (speechproc.stages.options and
    # speechproc.delivery.options)
    "speechproc": Obj({key: setting.node for key, setting in LOCAL_SETTINGS.items()},
                      section="speechproc", extra_check=_check_local_choices),
})

# Error codes for enum violations that VoiceBase documents with their own code.
_CODE_BY_PATH_SUFFIX = {
    ".url": E.CALLBACK_NO_URL, ".method": E.CALLBACK_BAD_METHOD, ".type": E.CALLBACK_BAD_TYPE,
    ".format": E.CALLBACK_BAD_FORMAT, ".include": E.CALLBACK_BAD_INCLUDE, ".stream": E.CALLBACK_BAD_STREAM,
    "speechModel.language": E.UNSUPPORTED_LANGUAGE,
}

METADATA_SCHEMA = Obj({
    "title": Str(), "description": Str(), "externalId": Str(), "externalVersion": Str(),
    "extended": FreeObject(), "callDetails": FreeObject(),
}, section="metadata")


def validate(raw: Any) -> Settings:
    """Validate a configuration object; raise ConfigurationError naming the key path."""
    if raw is None:
        raw = {}
    try:
        SCHEMA.check(raw, "")
    except E.ConfigurationError as exc:
        raise _with_documented_code(exc) from None
    _check_account(raw.get("speechproc", {}))
    _check_encrypted_original(raw)
    _check_callback_destinations(raw)
    _check_inline_vocabularies(raw)
    return Settings(raw)


def _with_documented_code(exc: E.ConfigurationError) -> E.ConfigurationError:
    if exc.code != E.INVALID_VALUE:
        return exc
    path = re.sub(r"\[\d+\]$", "", exc.message.split(":", 1)[0])
    for suffix, code in _CODE_BY_PATH_SUFFIX.items():
        if path.endswith(suffix) and ("callbacks" in path or not suffix.startswith(".")):
            return E.ConfigurationError(code, exc.message)
    return exc


def _check_inline_vocabularies(raw: dict) -> None:
    """A term twice across the inline lists is 20017 here; named lists are read and checked before any audio is
    (`speechproc.config.resolving.resolve`)."""
    vocabularies.resolve([item for item in raw.get("vocabularies", []) if "vocabularyName" not in item],
                         lambda name: None)


def validate_metadata(raw: Any) -> JsonObject:
    """Validate upload metadata (title, description, externalId, extended, ...)."""
    try:
        METADATA_SCHEMA.check(raw, "metadata")
    except E.ConfigurationError as exc:
        raise E.ConfigurationError(E.METADATA_NOT_PARSEABLE, exc.message) from None
    external = raw.get("externalId")
    if external is not None and not external.strip():
        raise E.ConfigurationError(E.EXTERNAL_ID_EMPTY, "metadata.externalId: must not be empty")
    if external is not None and len(external) > 256:
        raise E.ConfigurationError(E.EXTERNAL_ID_TOO_LONG, "metadata.externalId: longer than 256 characters")
    return raw


def read_document(path: str | Path) -> Any:
    """A JSON or YAML file (a definition, for example) as plain data; ConfigurationError if unreadable."""
    return read_file(path, E.CONFIG_NOT_PARSEABLE)


def load(path: str | Path | None) -> Settings:
    """Load and validate a configuration file; None gives the defaults."""
    if path is None:
        return validate({})
    raw = read_file(path, E.CONFIG_NOT_PARSEABLE)
    if raw is None:
        raw = {}
    if isinstance(raw, dict) and set(raw) == {"configuration"}:
        raise E.ConfigurationError(E.UNKNOWN_PROPERTY, "configuration: v3 configurations are not wrapped in a "
                                   "'configuration' key (that is the v2-beta form); move its content to the top")
    return validate(raw)


def read_metadata_document(path: str | Path) -> Any:
    """A metadata file (JSON or YAML) as plain data, not validated yet; ConfigurationError if unreadable."""
    return read_file(path, E.METADATA_NOT_PARSEABLE)


def load_metadata(path: str | Path | None) -> JsonObject:
    if path is None:
        return {}
    return validate_metadata(read_file(path, E.METADATA_NOT_PARSEABLE) or {})
