"""Callbacks: what each configured callback delivers, where, the retry schedule, and the outbox.

Every callback of a finished or failed media item becomes a delivery in the catalog's outbox before
anything is sent, so deliveries survive the process. `deliver_due` sends what is due, several
receivers at once, each attempt with a timeout, and records every attempt as it happens.

v3 schedule: rounds of 3 attempts in a row; the rounds start immediately, then 15 min, 30 min, 1 h,
2 h, 4 h and 8 h after the previous round (21 attempts at most; then the delivery is dead).
v2-beta schedule: the first try and two immediate retries, then waits of 15 min doubling up to 16 h,
stopping 36 h after the first try.
"""
from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from urllib.parse import urlparse
from urllib.request import url2pathname

from .catalog import Catalog
from .config import Settings
from .formats import get_writer, v3json
from .paths import atomic_write

V3_ROUND_GAPS_MIN = (0, 15, 30, 60, 120, 240, 480)
ATTEMPTS_PER_ROUND = 3
MAX_ATTEMPTS = ATTEMPTS_PER_ROUND * len(V3_ROUND_GAPS_MIN)
V2_IMMEDIATE_TRIES = 3
V2_FIRST_WAIT_MIN, V2_LONGEST_WAIT_MIN, V2_GIVE_UP_MIN = 15, 960, 36 * 60
CONTENT_TYPES = {"json": "application/json", "text": "text/plain", "srt": "text/srt", "dfxp": "application/ttaf+xml",
                 "webvtt": "text/vtt"}
SUFFIXES = {"application/json": ".json", "text/plain": ".txt", "text/srt": ".srt", "application/ttaf+xml": ".dfxp",
            "text/vtt": ".vtt"}
ALWAYS = ("_links", "formatVersion", "mediaId", "status", "dateCreated", "dateFinished", "mediaContentType", "length")
SECTIONS = {"metadata": ("metadata",), "transcript": ("transcript",), "knowledge": ("knowledge",),
            "prediction": ("prediction",), "spotting": ("spotting",), "streams": ("streams",),
            "metrics": ("metrics",), "speakerSentiments": ("speakerSentiments",), "conversation": ("conversation",),
            "categories": ("categories",), "messages": ("warnings", "errors")}
V2_SECTIONS = {"metadata": "metadata", "transcript": "transcripts", "knowledge": "keywords",
               "prediction": "predictions"}

Sender = Callable[[dict[str, Any], bytes, float], str | None]  # delivery, body, timeout -> error or None


# ---------------------------------------------------------------- bodies

def _expiry(item: dict[str, Any], ttl: int | None) -> dict[str, Any]:
    if ttl is None or not item.get("dateFinished"):
        return {}
    finished = datetime.strptime(item["dateFinished"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    return {"timeToLiveInSeconds": ttl, "expiresOn": v3json.iso(finished + timedelta(seconds=ttl))}


def analytics_body(item: dict[str, Any], include: list[str] | None, ttl: int | None = None) -> dict[str, Any]:
    """The v3 analytics callback: the media-level fields and the included sections (all when None);
    a failed item always carries its errors."""
    wanted = list(SECTIONS) if include is None else include
    body = {k: item[k] for k in ALWAYS if k in item}
    body |= _expiry(item, ttl)
    for section in wanted:
        for key in SECTIONS[section]:
            if key in item:
                body[key] = item[key]
    if "transcript" in body:
        body["transcript"] = v3json.with_alternate_formats(body["transcript"], list(v3json.ALTERNATE_ORDER))
    if item.get("status") == "failed":
        body["errors"] = item.get("errors", [])
    return body


def v2_body(item: dict[str, Any], include: list[str] | None) -> dict[str, Any]:
    """The old v2-beta contract: a `callback` envelope and a `media` object with `latest` versions."""
    wanted = set(V2_SECTIONS) if include is None else set(include) & set(V2_SECTIONS)
    media: dict[str, Any] = {"mediaId": item["mediaId"], "status": item["status"]}
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


def _transcript(item: dict[str, Any], fmt: str) -> bytes:
    if fmt == "json":
        return json.dumps({**v3json.summary(item), "transcript": item["transcript"]}).encode()
    words = v3json.words_from_json(item["transcript"]["words"])
    return get_writer(fmt).render(words).encode("utf-8")


def plan(item: dict[str, Any], settings: Settings, streams: dict[str, str], now: float) -> list[dict[str, Any]]:
    """One delivery per configured callback (for a failed item: the analytics callbacks only).

    `streams` maps stream names (original, redacted-audio) to files."""
    out = []
    created = v3json.utc_now()
    for position, cb in enumerate((settings.section("publish") or {}).get("callbacks", [])):
        kind = cb.get("type", "analytics")
        if item["status"] != "finished" and kind != "analytics":
            continue
        delivery: dict[str, Any] = {"id": str(uuid.uuid4()), "mediaId": item["mediaId"], "position": position,
                                    "url": cb["url"], "method": cb.get("method", "POST").upper(), "type": kind,
                                    "contract": settings.callback_contract, "nextDue": now, "created": created}
        if kind == "analytics":
            body = v2_body(item, cb.get("include")) if settings.callback_contract == "v2-beta" else \
                analytics_body(item, cb.get("include"), settings.section("timeToLiveInSeconds"))
            delivery |= {"contentType": "application/json", "body": json.dumps(body, ensure_ascii=False).encode()}
        elif kind == "transcript":
            delivery |= {"contentType": CONTENT_TYPES[cb["format"]], "body": _transcript(item, cb["format"])}
        else:
            delivery |= {"contentType": "application/octet-stream", "bodyPath": streams.get(cb["stream"], ""),
                         "stream": cb["stream"]}
        out.append(delivery)
    return out


# ---------------------------------------------------------------- schedule

def next_due(contract: str, attempts: int, first_try: float, last_try: float) -> float | None:
    """When the next attempt is due after `attempts` failed ones (epoch seconds), or None: give up."""
    if contract == "v2-beta":
        if attempts < V2_IMMEDIATE_TRIES:
            return last_try
        wait = min(V2_FIRST_WAIT_MIN * 2 ** (attempts - V2_IMMEDIATE_TRIES), V2_LONGEST_WAIT_MIN) * 60
        due = last_try + wait
        return due if due - first_try <= V2_GIVE_UP_MIN * 60 else None
    if attempts >= MAX_ATTEMPTS:
        return None
    if attempts % ATTEMPTS_PER_ROUND:
        return last_try  # the rest of the round, right away
    return last_try + V3_ROUND_GAPS_MIN[attempts // ATTEMPTS_PER_ROUND] * 60


# ---------------------------------------------------------------- sending

def _file_target(delivery: dict[str, Any]) -> Path:
    path = Path(url2pathname(urlparse(delivery["url"]).path))
    if delivery["url"].endswith("/") or path.is_dir():
        suffix = SUFFIXES.get(delivery["contentType"], Path(delivery.get("bodyPath") or "").suffix or ".bin")
        path = path / f"{delivery['mediaId']}-{delivery['type']}-{delivery['position']}{suffix}"
    return path


def send(delivery: dict[str, Any], body: bytes, timeout: float) -> str | None:
    """One attempt; None on success (a 2xx answer, or the file written), else what went wrong."""
    if delivery["url"].startswith("file:"):
        try:
            atomic_write(_file_target(delivery), body)
        except OSError as exc:
            return f"cannot write: {exc}"
        return None
    request = urllib.request.Request(delivery["url"], data=body, method=delivery["method"],
                                     headers={"Content-Type": delivery["contentType"],
                                              "Content-Length": str(len(body)),
                                              "User-Agent": "speechproc-callbacks"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status = response.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    except (urllib.error.URLError, OSError, ValueError) as exc:
        return f"{type(exc).__name__}: {getattr(exc, 'reason', exc)}"
    return None if 200 <= status < 300 else f"HTTP {status}"


def _body(delivery: dict[str, Any], max_bytes: int) -> tuple[bytes | None, str | None]:
    """The body to send, or why it cannot be sent at all (then the delivery is dead)."""
    if delivery["body"] is not None:
        body = bytes(delivery["body"])
    else:
        path = Path(delivery["bodyPath"] or "")
        if not delivery["bodyPath"] or not path.is_file():
            return None, "the stream to send does not exist (no redacted audio was written?)"
        if path.stat().st_size > max_bytes:
            return None, f"the body is {path.stat().st_size} bytes, more than the limit of {max_bytes}"
        body = path.read_bytes()
    if len(body) > max_bytes:
        return None, f"the body is {len(body)} bytes, more than the limit of {max_bytes}"
    return body, None


def _work(catalog_path: Path, delivery: dict[str, Any], clock: Callable[[], float], sender: Sender,
          timeout: float, max_bytes: int) -> str:
    """Attempts until success, the end of the round, or death; every attempt is recorded at once."""
    with Catalog(catalog_path) as catalog:
        body, fatal = _body(delivery, max_bytes)
        attempts, first = delivery["attempts"], delivery["firstTry"]
        while True:
            started = clock()
            first = first if first is not None else started
            error = fatal or sender(delivery, body, timeout)
            attempts += 1
            if error is None:
                catalog.outbox_record(delivery["id"], attempts=attempts, state="delivered", next_due=started,
                                      first_try=first, last_error=None)
                return "delivered"
            due = None if fatal else next_due(delivery["contract"], attempts, first, clock())
            state = "dead" if due is None else "pending"
            catalog.outbox_record(delivery["id"], attempts=attempts, state=state, next_due=due or clock(),
                                  first_try=first, last_error=error)
            if state == "dead" or due > clock():
                return state


def deliver_due(catalog: Catalog, settings: Settings | None = None, clock: Callable[[], float] = time.time,
                sender: Sender = send, workers: int = 8) -> dict[str, int]:
    """Send every delivery that is due; return how many were delivered, are still pending, or died."""
    timeout = settings.callback_timeout if settings else 10.0
    max_bytes = settings.callback_max_bytes if settings else 64 * 2**20
    due = catalog.outbox_claim(clock(), lease=ATTEMPTS_PER_ROUND * timeout + 60)
    counts = {"delivered": 0, "pending": 0, "dead": 0}
    if not due:
        return counts
    with ThreadPoolExecutor(max_workers=min(workers, len(due))) as pool:
        for state in pool.map(lambda d: _work(catalog.path, d, clock, sender, timeout, max_bytes), due):
            counts[state] += 1
    return counts


def listing(catalog: Catalog, states: tuple[str, ...] = ("pending", "dead")) -> dict[str, Any]:
    """The outbox as `speechproc callbacks list` prints it."""
    def when(epoch: float | None) -> str | None:
        return None if epoch is None else v3json.iso(datetime.fromtimestamp(epoch, timezone.utc))

    return {"callbacks": [{"deliveryId": d["id"], "mediaId": d["mediaId"], "url": d["url"], "method": d["method"],
                           "type": d["type"], "contentType": d["contentType"], "contract": d["contract"],
                           "state": d["state"], "attempts": d["attempts"],
                           "nextAttempt": when(d["nextDue"]) if d["state"] == "pending" else None,
                           "lastError": d["lastError"], "dateCreated": d["created"]}
                          for d in catalog.outbox_list(states)]}
