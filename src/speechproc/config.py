"""The v3 configuration: load JSON or YAML, validate strictly, expose effective settings."""
from __future__ import annotations

import json
import os
import re
import stat
import uuid
from pathlib import Path
from typing import Any

import yaml

from . import callbacks, taxonomy
from . import errors as E
from .formats import v3json
from .schema import Arr, Bool, FreeObject, Int, Num, Obj, Str, invalid
from .settings import DEFAULT_MAX_SPEAKERS, LANGUAGES, Settings

__all__ = ["DEFAULT_MAX_SPEAKERS", "LANGUAGES", "Settings", "load", "validate"]

FEATURES = ("advancedPunctuation", "voiceFeatures")
METRIC_GROUPS = ("overtalk", "sentiment", "talk-style-tone-and-volume", "talk-time-and-rate")
CALLBACK_TYPES = ("analytics", "transcript", "media")
CALLBACK_FORMATS = ("json", "text", "webvtt", "srt", "dfxp")
CALLBACK_STREAMS = ("original", "redacted-audio")
CALLBACK_INCLUDES = tuple(v3json.CALLBACK_SECTIONS)
AUDIO_FORMATS = ("wav", "mp3", "flac", "opus", "ogg")
DEVICES = ("cpu", "cuda", "auto")
SENTIMENT_ENGINES = ("vader", "minilm")
SPEAKER_EMBEDDINGS = ("campplus", "resemblyzer")
DETECTOR_NAMES = ("PCI", "SSN", "Number")
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
    if "topicTaxonomy" in local:
        try:
            taxonomy.load(local["topicTaxonomy"])
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


def _check_vocabulary(item: dict, path: str) -> None:
    if "vocabularyName" in item and ("terms" in item or "scripts" in item):
        raise invalid(path, "vocabularyName and terms/scripts cannot be in one item", E.VOCABULARY_NAME_AND_TERMS)
    if not item:
        raise invalid(path, "needs vocabularyName, terms or scripts")
    terms = [t["term"].lower() for t in item.get("terms", [])]
    if len(set(terms)) != len(terms):
        raise invalid(f"{path}.terms", "duplicate terms", E.VOCABULARY_DUPLICATE_TERMS)


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
    for j, param in enumerate(item.get("parameters", [])):
        where = f"{path}.parameters[{j}]"
        if (name or by_id) != "PCI" or param["parameter"] != "detectionLevel":
            raise invalid(where, f"unknown parameter {param['parameter']!r} (PCI takes detectionLevel)")
        if param.get("value") not in DETECTION_LEVELS:
            raise invalid(f"{where}.value", f"detectionLevel is one of {', '.join(DETECTION_LEVELS)}")
    redactor = item.get("redactor")
    if redactor is not None and not redactor:
        raise invalid(f"{path}.redactor", "needs audio or transcript", E.REDACTOR_EMPTY)


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
            callbacks.check_file_folder(folder)
    except callbacks.Refused as exc:
        raise invalid("speechproc.callbackFileFolder", str(exc)) from None
    for i, cb in enumerate(raw.get("publish", {}).get("callbacks", [])):
        try:
            found = callbacks.destination(cb["url"], allow_http=local.get("allowHttpCallbacks") is True,
                                          file_folder=folder)
            if found.scheme == "file":
                callbacks.inspect_folder(found)
        except callbacks.Refused as exc:
            raise invalid(f"publish.callbacks[{i}].url", str(exc), E.CALLBACK_BAD_PROTOCOL) from None


_UUID = re.compile(r"[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")


def _check_account(local: dict) -> None:
    """speechproc.accountId is a UUID (any version: the hosted service's ids were not all RFC 4122)."""
    account_id = local.get("accountId")
    if account_id is not None and not _UUID.fullmatch(account_id):
        raise invalid("speechproc.accountId", "must be a UUID (8-4-4-4-12 hexadecimal digits)")


MAX_SPEAKERS = 20
MAX_TIME_TO_LIVE = 10 * 365 * 24 * 3600  # ten years: far from the limits of dates
MAX_CALLBACK_BODY_BYTES = 2**30

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
    "transcript": Obj({
        "formatting": Obj({"enableNumberFormatting": Bool()}, section="transcript.formatting"),
        "contentFiltering": Obj({"enableProfanityFiltering": Bool()}, section="transcript.contentFiltering"),
    }, section="transcript"),
    "vocabularies": Arr(Obj({
        "vocabularyName": Str(non_empty=True),
        "terms": Arr(Obj({"term": Str(non_empty=True, max_len=64),
                          "soundsLike": Arr(Str(non_empty=True), max_items=100),
                          "weight": Int(minimum=0, maximum=5)}, required=("term",), section="vocabulary term"),
                     min_items=1, max_items=1000),
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
    "speechproc": Obj({
        "model": Str(non_empty=True),
        "device": Str(enum=DEVICES),
        "computeType": Str(non_empty=True),
        "threads": Int(minimum=0, maximum=256),
        "beamSize": Int(minimum=1, maximum=20),
        "batched": Bool(),
        "batchSize": Int(minimum=1, maximum=64),
        "vad": Bool(),
        "allowHttpCallbacks": Bool(),
        "diarization": Bool(),
        "speakers": Int(minimum=1, maximum=MAX_SPEAKERS),
        "maxSpeakers": Int(minimum=1, maximum=MAX_SPEAKERS),
        "speakerNames": Arr(Str(non_empty=True, max_len=64), min_items=1, max_items=MAX_SPEAKERS, unique=True),
        "speakerEmbedding": Str(enum=SPEAKER_EMBEDDINGS),
        "speakerEncoder": Str(non_empty=True),
        "sentimentEngine": Str(enum=SENTIMENT_ENGINES),
        "sentenceEncoder": Str(non_empty=True),
        "spacyModel": Str(non_empty=True),
        "topicTaxonomy": Str(non_empty=True),
        "callbackTimeoutSeconds": Num(minimum=0.1, maximum=600),
        "callbackMaxBodyBytes": Int(minimum=1, maximum=MAX_CALLBACK_BODY_BYTES),
        "callbackContract": Str(enum=("v3", "v2-beta")),
        "callbackFileFolder": Str(non_empty=True),
        "accountId": Str(non_empty=True),
        "accountName": Str(non_empty=True, max_len=256),
    }, section="speechproc", extra_check=_check_local_choices),
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
    _check_callback_destinations(raw)
    _check_vocabulary_names(raw)
    return Settings(raw)


def _with_documented_code(exc: E.ConfigurationError) -> E.ConfigurationError:
    if exc.code != E.INVALID_VALUE:
        return exc
    path = re.sub(r"\[\d+\]$", "", exc.message.split(":", 1)[0])
    for suffix, code in _CODE_BY_PATH_SUFFIX.items():
        if path.endswith(suffix) and ("callbacks" in path or not suffix.startswith(".")):
            return E.ConfigurationError(code, exc.message)
    return exc


def _check_vocabulary_names(raw: dict) -> None:
    for i, item in enumerate(raw.get("vocabularies", [])):
        if "vocabularyName" in item:
            raise invalid(f"vocabularies[{i}].vocabularyName",
                          "named vocabularies are not stored locally; give the terms inline")


def validate_metadata(raw: Any) -> dict[str, Any]:
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


# Limits on every configuration, metadata and definition file: they keep hostile files cheap to refuse.
MAX_DOCUMENT_BYTES = 2**20
MAX_DEPTH = 64
MAX_INTEGER_DIGITS = 100


class _Refused(yaml.YAMLError):
    """A document refused while it is parsed; the message says why."""


def _bounded_int(text: str) -> int:
    if len(text.lstrip("+-").replace("_", "")) > MAX_INTEGER_DIGITS:
        raise _Refused(f"an integer has more than {MAX_INTEGER_DIGITS} digits ({text[:20]}...)")
    return int(text)


def _too_deep(where: str) -> _Refused:
    return _Refused(f"{where}nested more than {MAX_DEPTH} levels deep")


class _UniqueKeyLoader(yaml.SafeLoader):
    """A YAML safe loader for JSON-like data: no anchors or aliases, string keys only, no duplicated keys,
    nesting at most MAX_DEPTH deep."""

    _depth = 0

    def fetch_flow_collection_start(self, token_class: type) -> None:
        # Refused while scanning: the scanner looks far ahead inside deep `[[[...`, which is slow.
        if self.flow_level >= MAX_DEPTH:
            raise _too_deep(f"line {self.line + 1}: ")
        super().fetch_flow_collection_start(token_class)

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        event = self.peek_event()
        where = f"line {event.start_mark.line + 1}: "
        if isinstance(event, yaml.AliasEvent) or event.anchor is not None:
            # an alias can repeat a subtree exponentially often (the "billion laughs")
            raise _Refused(f"{where}YAML anchors and aliases (&{event.anchor}, *{event.anchor}) are not allowed")
        if not isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            return super().compose_node(parent, index)
        if self._depth >= MAX_DEPTH:
            raise _too_deep(where)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _mapping_without_duplicates(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep) if isinstance(key_node, yaml.ScalarNode) else None
        if not isinstance(key, str):
            raise _Refused(f"line {key_node.start_mark.line + 1}: keys must be strings "
                           "(quote a key such as '1', 'yes' or 'null')")
        if key in seen:
            raise E.ConfigurationError(E.DUPLICATED_PROPERTY, f"duplicated property ({key})")
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


def _bounded_yaml_int(loader: _UniqueKeyLoader, node: yaml.ScalarNode) -> int:
    _bounded_int(node.value)
    return loader.construct_yaml_int(node)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_duplicates)
_UniqueKeyLoader.add_constructor("tag:yaml.org,2002:int", _bounded_yaml_int)
# v3 JSON has no date type: an unquoted date stays the text it is
_UniqueKeyLoader.add_constructor("tag:yaml.org,2002:timestamp", yaml.SafeLoader.construct_yaml_str)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise E.ConfigurationError(E.DUPLICATED_PROPERTY, f"duplicated property ({key})")
            seen.add(key)
    return result


_JSON_TOKENS = re.compile(r'\\.|["\[\]{}]', re.DOTALL)


def _nested_deeper_than(text: str, limit: int) -> bool:
    """Whether JSON text opens more than `limit` nested arrays or objects (one pass, no recursion)."""
    depth, in_string = 0, False
    for match in _JSON_TOKENS.finditer(text):
        token = match.group()
        if token == '"':
            in_string = not in_string
        elif in_string or token[0] == "\\":
            continue
        elif token in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def _parse(text: str) -> Any:
    # Deeply nested JSON is left to the YAML loader, which refuses it without recursing (JSON is YAML).
    if not _nested_deeper_than(text, MAX_DEPTH):
        try:
            return json.loads(text, object_pairs_hook=_no_duplicates, parse_int=_bounded_int)
        except json.JSONDecodeError:
            pass
    loader = _UniqueKeyLoader(text)  # a SafeLoader: plain data only, never Python objects
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def parse_document(text: str, source: str, code: int = E.CONFIG_NOT_PARSEABLE) -> Any:
    """Parse JSON or YAML text (YAML is a superset, JSON is tried first for exact errors).

    Refused with `code`: YAML anchors and aliases, keys that are not strings, nesting deeper than
    MAX_DEPTH, integers of more than MAX_INTEGER_DIGITS digits; duplicated keys are refused with 10010."""
    try:
        data = _parse(text)
        _refuse_lone_surrogates(data)
        return data
    except _Refused as exc:
        raise E.ConfigurationError(code, f"{source}: {exc}") from None
    except yaml.YAMLError as exc:
        raise E.ConfigurationError(code, f"{source}: not valid JSON or YAML ({exc})") from None


def _refuse_lone_surrogates(data: Any) -> None:
    """Raise _Refused for a string holding a lone surrogate (`"\\ud800"` in JSON): it is no character, and
    no UTF-8 output (the catalog, a .v3.json) could hold it."""
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack += list(node.keys()) + list(node.values())
        elif isinstance(node, list):
            stack += node
        elif isinstance(node, str):
            try:
                node.encode("utf-8")
            except UnicodeEncodeError:
                raise _Refused(f"the text {ascii(node[:40])} holds a lone surrogate (an escape such as \\ud800 "
                               "that is not a character)") from None


def read_bounded(path: str | Path, code: int, limit: int = MAX_DOCUMENT_BYTES) -> bytes:
    """At most `limit` + 1 bytes of a file; a folder, a socket or a pipe nobody writes to is refused at
    once (opening a named pipe would otherwise wait for a writer for ever)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    mode = os.fstat(fd).st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)):
        os.close(fd)
        kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
        raise E.ConfigurationError(code, f"{path}: cannot be read ({kind})")
    os.set_blocking(fd, True)
    with os.fdopen(fd, "rb") as file:
        data = file.read(limit + 1)  # bounded: st_size says nothing of /dev/zero or a pipe
    if stat.S_ISFIFO(mode) and not data:
        raise E.ConfigurationError(code, f"{path}: a pipe with nothing written to it")
    return data


def _read(path: str | Path, code: int) -> Any:
    try:
        data = read_bounded(path, code)
        if len(data) > MAX_DOCUMENT_BYTES:
            raise E.ConfigurationError(code, f"{path}: larger than {MAX_DOCUMENT_BYTES} bytes (1 MiB), the limit "
                                       "for configuration, metadata and definition files")
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise E.ConfigurationError(code, f"{path}: cannot be read ({exc})") from None
    return parse_document(text, str(path), code)


def read_document(path: str | Path) -> Any:
    """A JSON or YAML file (a definition, for example) as plain data; ConfigurationError if unreadable."""
    return _read(path, E.CONFIG_NOT_PARSEABLE)


def load(path: str | Path | None) -> Settings:
    """Load and validate a configuration file; None gives the defaults."""
    if path is None:
        return validate({})
    raw = _read(path, E.CONFIG_NOT_PARSEABLE)
    if raw is None:
        raw = {}
    if isinstance(raw, dict) and set(raw) == {"configuration"}:
        raise E.ConfigurationError(E.UNKNOWN_PROPERTY, "configuration: v3 configurations are not wrapped in a "
                                   "'configuration' key (that is the v2-beta form); move its content to the top")
    return validate(raw)


def read_metadata_document(path: str | Path) -> Any:
    """A metadata file (JSON or YAML) as plain data, not validated yet; ConfigurationError if unreadable."""
    return _read(path, E.METADATA_NOT_PARSEABLE)


def load_metadata(path: str | Path | None) -> dict[str, Any]:
    if path is None:
        return {}
    return validate_metadata(_read(path, E.METADATA_NOT_PARSEABLE) or {})
