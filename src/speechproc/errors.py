"""Error codes and the v3 error body."""
from __future__ import annotations

import uuid
from typing import Any, TypedDict, cast

from speechproc.results import ErrorMessage, WarningMessage

# Codes follow the VoiceBase v3 error table where one exists.
CONFIG_NOT_PARSEABLE = 10007
UNKNOWN_PROPERTY = 10008
INVALID_VALUE = 10009
DUPLICATED_PROPERTY = 10010
METADATA_NOT_PARSEABLE = 10107
EXTERNAL_ID_EMPTY = 10108
EXTERNAL_ID_TOO_LONG = 10109
MEDIA_UNREADABLE = 10201
NO_MEDIA = 10202
MEDIA_URL_UNREACHABLE = 10203
MEDIA_URL_MALFORMED = 10204
RESOURCE_NOT_FOUND = 10205
MEDIA_URL_STATUS = 10207
TRANSCRIPT_NOT_READY = 10301
PAYLOAD_TOO_LARGE = 10800
UNSUPPORTED_LANGUAGE = 10601
FEATURE_NOT_AVAILABLE = 10603
INGEST_FORMS_EXCLUSIVE = 15000
INGEST_STEREO_INCOMPLETE = 15001
INGEST_INVALID_SPEAKER = 15002
INGEST_ONE_CHANNEL_ONLY = 15003
INGEST_CHANNEL_MISMATCH = 15004
INGEST_ALL_IGNORED = 15005
VOCABULARY_NAME_AND_TERMS = 20007
VOCABULARY_NOT_FOUND = 20008
VOCABULARY_EMPTY = 20009
VOCABULARY_TOO_MANY_TERMS = 20010
VOCABULARY_EMPTY_TERM = 20014
VOCABULARY_BAD_WEIGHT = 20015
VOCABULARY_DUPLICATE_TERMS = 20017
DISCOVERY_NOT_SUPPORTED = 40004
SPOTTING_GROUP_UNKNOWN = 40005
SPOTTING_GROUP_EMPTY = 40006
DETECTOR_WITHOUT_ID = 50004
REDACTOR_EMPTY = 50007
CALLBACK_NO_URL = 60001
CALLBACK_BAD_PROTOCOL = 60002
CALLBACK_BAD_INCLUDE = 60003
CALLBACK_BAD_TYPE = 60004
CALLBACK_PROPERTY_NOT_ALLOWED = 60005
CALLBACK_PROPERTY_MISSING = 60006
CALLBACK_BAD_FORMAT = 60007
CALLBACK_BAD_METHOD = 60008
CALLBACK_BAD_STREAM = 60009
GROUP_BODY_EMPTY = 80100
GROUP_NO_KEYWORDS = 80101
GROUP_NAME_MISMATCH = 80102
GROUP_BAD_KEYWORD = 80103
VOCABULARY_BODY_EMPTY = 80200
VOCABULARY_NO_TERMS = 80201
VOCABULARY_NAME_MISMATCH = 80202
VOCABULARY_BAD_TERM = 80203
MODEL_UNAVAILABLE = 90001
STAGE_FAILED = 90002
OUTPUT_NOT_WRITTEN = 90003  # no space (or quota) left where the outputs go
INTERNAL = 90000

TRANSCRIPT_NOT_READY_MESSAGE = "Transcripts only become available when a media item has status finished."


class SpeechprocError(Exception):
    """An error with a v3 code, an HTTP-like status and a message for the user."""

    def __init__(self, code: int, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status

    def body(self) -> dict[str, Any]:
        """The v3 error body for this error."""
        return error_body(self.status, [(self.code, self.message)])


class ConfigurationError(SpeechprocError):
    """Invalid input (a configuration, metadata, a definition or a query): nothing is done (exit 2)."""


class NotFoundError(SpeechprocError):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(code, message, status=404)


def error_body(status: int, messages: list[tuple[int, str]]) -> dict[str, Any]:
    """v3 error body: 4xx conditions go in `warnings` ({code, message}), 5xx in `errors` ({code, error})."""
    body: dict[str, Any] = {"status": status}
    if status >= 500:
        body["errors"] = [{"code": code, "error": msg} for code, msg in messages]
    else:
        body["warnings"] = [{"code": code, "message": msg} for code, msg in messages]
    body["reference"] = str(uuid.uuid4())
    return body


def transcript_not_ready_body() -> dict[str, Any]:
    """The documented 404 body for a transcript requested before `finished` (object form, as VoiceBase sends it)."""
    return {
        "status": 404,
        "warnings": {"code": TRANSCRIPT_NOT_READY, "message": TRANSCRIPT_NOT_READY_MESSAGE},
        "reference": str(uuid.uuid4()),
    }


class _ErrorBodyRequired(TypedDict):
    status: int
    reference: str


class ErrorBody(_ErrorBodyRequired, total=False):
    """The v3 error body (`errors.error_body`): a 4xx condition's `warnings`, a 5xx one's `errors`."""

    warnings: list[WarningMessage]
    errors: list[ErrorMessage]


def body_of(error: SpeechprocError) -> ErrorBody:
    """`error.body()`, as the type it is."""
    return cast(ErrorBody, error.body())  # every body but the transcript's 404 object form


def printable(text: str) -> str:
    """A message that may quote a path, as valid UTF-8 text: a byte of a path that is not UTF-8 (a surrogate
    that stands for it) is written `\\xNN`."""
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that does not stand for a byte
        raw = text.encode("utf-8", "backslashreplace")
    return raw.decode("utf-8", "backslashreplace")
