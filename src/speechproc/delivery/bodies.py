"""What each configured callback delivers: the v3 analytics body (or the v2-beta one), a transcript in a
text format, or a media stream, as deliveries for the outbox (`plan`)."""
from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypedDict, cast

from speechproc.delivery.account import account
from speechproc.delivery.deliveries import PlannedDelivery
from speechproc.delivery.options import CallbackOptions
from speechproc.formats import expiry, openpgp, v3json
from speechproc.formats.stored import stored_transcript
from speechproc.results import (
    CallbackBody,
    ErrorMessage,
    JsonObject,
    Keyword,
    MediaItem,
    Prediction,
    Topic,
    Transcript,
    WarningMessage,
)

CONTENT_TYPES = {"json": "application/json", "text": "text/plain", "srt": "text/srt", "dfxp": "application/ttaf+xml",
                 "webvtt": "text/vtt"}
LATEST = expiry.LATEST


def _expiry(item: MediaItem, ttl: int | None) -> dict[str, Any]:
    """`timeToLiveInSeconds` and `expiresOn` (`expiry.expiry`: the same values the media item shows)."""
    return expiry.expiry(item, ttl)


def analytics_body(item: MediaItem, include: list[str] | None, ttl: int | None = None,
                   owner: dict[str, str] | None = None, language: str = "en-US") -> CallbackBody:
    """The v3 analytics callback: the media-level fields (with `owner`'s accountId and accountName)
    and the included sections (all when None); a failed item always carries its errors."""
    wanted = list(v3json.CALLBACK_SECTIONS) if include is None else include
    stored: Mapping[str, Any] = item
    fields = {**stored, **(owner or {})}
    body = {k: fields[k] for k in v3json.CALLBACK_ALWAYS if k in fields}
    body |= _expiry(item, ttl)
    for section in wanted:
        for key in v3json.CALLBACK_SECTIONS[section]:
            if key in stored:
                body[key] = stored[key]
    if "transcript" in body:
        body["transcript"] = stored_transcript(item, language).with_alternate_formats(
            body["transcript"], list(v3json.ALTERNATE_ORDER))
    if item.get("status") == "failed":
        body["errors"] = item.get("errors", [])
    return cast(CallbackBody, body)  # the keys chosen above are the callback's


class BetaEvent(TypedDict):
    status: str


class BetaEnvelope(TypedDict):
    success: bool
    errors: list[ErrorMessage]
    warnings: list[WarningMessage]
    event: BetaEvent


class _BetaMediaRequired(TypedDict):
    mediaId: str
    status: str


class BetaMedia(_BetaMediaRequired, total=False):
    """The media of a v2-beta callback: each section as {"latest": its value} (predictions as they are)."""

    metadata: dict[str, JsonObject]
    transcripts: dict[str, Transcript]
    keywords: dict[str, list[Keyword]]
    topics: dict[str, list[Topic]]
    predictions: Prediction


class BetaBody(TypedDict):
    """The old v2-beta callback body: a `callback` envelope and a `media` object."""

    callback: BetaEnvelope
    media: BetaMedia


def v2_body(item: MediaItem, include: list[str] | None) -> BetaBody:
    """The old v2-beta contract: a `callback` envelope and a `media` object with `latest` versions."""
    wanted = set(v3json.V2_SECTIONS) if include is None else set(include) & set(v3json.V2_SECTIONS)
    media: BetaMedia = {"mediaId": item["mediaId"], "status": item["status"]}
    if "metadata" in wanted:
        media["metadata"] = {"latest": item.get("metadata", {})}
    if "transcript" in wanted and "transcript" in item:
        media["transcripts"] = {"latest": item["transcript"]}
    if "knowledge" in wanted and "knowledge" in item:
        media["keywords"] = {"latest": item["knowledge"].get("keywords", [])}
        media["topics"] = {"latest": item["knowledge"].get("topics", [])}
    if "prediction" in wanted and "prediction" in item:
        media["predictions"] = item["prediction"]
    return {"callback": {"success": item["status"] == "finished", "errors": item.get("errors", []),
                         "warnings": item.get("warnings", []), "event": {"status": item["status"]}},
            "media": media}


def _transcript(item: MediaItem, fmt: str, language: str) -> bytes:
    if fmt == "json":
        return json.dumps({**v3json.summary(item), "transcript": item["transcript"]}).encode()
    return stored_transcript(item, language).render(fmt).encode("utf-8")


class _ContentRequired(TypedDict):
    contentType: str


class _Content(_ContentRequired, total=False):
    """What a delivery sends: its content type, and its body or the file it reads the body from."""

    body: bytes
    bodyPath: str
    stream: str


def plan(item: MediaItem, options: CallbackOptions, streams: dict[str, str], now: float) -> list[PlannedDelivery]:
    """One delivery per configured callback (for a failed item: the analytics callbacks only).

    `streams` maps stream names (original, redacted-audio) to files."""
    out = []
    created = v3json.utc_now()
    owner: dict[str, str] = {}
    for position, cb in enumerate(options.callbacks):
        kind = cb.get("type", "analytics")
        if item["status"] != "finished" and kind != "analytics":
            continue
        delivery_id = str(uuid.uuid4())
        content: _Content
        if kind == "analytics":
            if options.contract != "v2-beta":
                owner = owner or account(options)
            body = v2_body(item, cb.get("include")) if options.contract == "v2-beta" else \
                analytics_body(item, cb.get("include"), options.time_to_live, owner,
                               options.language)
            content = {"contentType": "application/json", "body": json.dumps(body, ensure_ascii=False).encode()}
        elif kind == "transcript":
            content = {"contentType": CONTENT_TYPES[cb["format"]], "body": _transcript(item, cb["format"], options.language)}
        else:
            content = {"contentType": "application/octet-stream", "bodyPath": streams.get(cb["stream"], ""),
                       "stream": cb["stream"]}
        delivery: PlannedDelivery = {"id": delivery_id, "mediaId": item["mediaId"], "position": position,
                                     "url": cb["url"], "method": cb.get("method", "POST").upper(), "type": kind,
                                     "contract": options.contract, "nextDue": now, "created": created,
                                     "allowHttp": options.allow_http, "fileFolder": options.file_folder,
                                     **content}
        out.append(delivery if options.encryption is None else _sealed(delivery, options.encryption, options.max_bytes))
    return out


def _sealed(delivery: PlannedDelivery, key: openpgp.PublicKey, max_bytes: int) -> PlannedDelivery:
    """The delivery of an encrypted item: its body encrypted to `key` before it is queued. A redacted-audio
    stream is its `.gpg` file as written; the original recording is encrypted into the body (one larger than
    `max_bytes` is not read, and the delivery dies: nothing is ever sent in the clear)."""
    sealed: PlannedDelivery = {**delivery, "contentType": openpgp.CONTENT_TYPE}
    body = delivery.get("body")
    if body is not None:
        sealed["body"] = openpgp.encrypt(body, key)
        return sealed
    path = Path(delivery.get("bodyPath") or "")
    if path.name.endswith(openpgp.SUFFIX):
        return sealed
    try:
        if path.is_file() and path.stat().st_size <= max_bytes:
            sealed["body"], sealed["bodyPath"] = openpgp.encrypt(path.read_bytes(), key), None
        else:
            sealed["bodyPath"] = ""
    except OSError:
        sealed["bodyPath"] = ""
    return sealed
