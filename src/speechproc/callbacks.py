"""Callbacks: what each configured callback delivers, where, the retry schedule, and the outbox.

Every callback of a finished or failed media item becomes a delivery in the catalog's outbox before
anything is sent, so deliveries survive the process. `deliver_due` sends what is due, several
receivers at once, each attempt with a timeout, and records every attempt as it happens.

v3 schedule: rounds of 3 attempts in a row; the rounds start immediately, then 15 min, 30 min, 1 h,
2 h, 4 h and 8 h after the previous round (21 attempts at most; then the delivery is dead).
v2-beta schedule: the first try and two immediate retries, then waits of 15 min doubling up to 16 h,
stopping 36 h after the first try.

Delivery is at least once: every attempt is recorded as started before anything is sent, and a
delivery whose lease ran out while its attempt was still under way may be sent again by another run.
Every HTTP attempt carries the delivery id as `Idempotency-Key` (the same on every retry) so that a
receiver can drop a repeat.

A URL is parsed once (`destination`): the configuration check and the sender use the same parts, and
the request is built from them, so what is checked is what is connected to or written.
"""
from __future__ import annotations

import errno
import hashlib
import http.client
import json
import os
import secrets
import ssl
import stat
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from .callback_destinations import (
    Destination,
    Refused,
    delivery_destination,
    inspect_folder,
)
from .catalog import Catalog
from .formats import v3json
from .formats.stored import stored_transcript
from .paths import atomic_write, state_home
from .settings import Settings

V3_ROUND_GAPS_MIN = (0, 15, 30, 60, 120, 240, 480)
ATTEMPTS_PER_ROUND = 3
MAX_ATTEMPTS = ATTEMPTS_PER_ROUND * len(V3_ROUND_GAPS_MIN)
V2_IMMEDIATE_TRIES = 3
V2_FIRST_WAIT_MIN, V2_LONGEST_WAIT_MIN, V2_GIVE_UP_MIN = 15, 960, 36 * 60
CONTENT_TYPES = {"json": "application/json", "text": "text/plain", "srt": "text/srt", "dfxp": "application/ttaf+xml",
                 "webvtt": "text/vtt"}
SUFFIXES = {"application/json": ".json", "text/plain": ".txt", "text/srt": ".srt", "application/ttaf+xml": ".dfxp",
            "text/vtt": ".vtt"}

Sender = Callable[[dict[str, Any], bytes, float], str | None]  # delivery, body, timeout -> error or None
ACCOUNT_FILE = "account.json"
INTERRUPTED = "interrupted: the attempt did not finish (the process stopped during it)"
LATEST = datetime.max.replace(tzinfo=timezone.utc)


# ---------------------------------------------------------------- bodies

def _expiry(item: dict[str, Any], ttl: int | None) -> dict[str, Any]:
    """`timeToLiveInSeconds` and `expiresOn`; an expiry past the year 9999 is the last moment of 9999,
    and one that cannot be computed (no or an unreadable dateFinished) is left out."""
    if isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or not item.get("dateFinished"):
        return {}
    try:
        finished = datetime.strptime(item["dateFinished"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    except (TypeError, ValueError):
        return {"timeToLiveInSeconds": ttl}
    try:
        expires = finished + timedelta(seconds=ttl)
    except (OverflowError, ValueError):
        expires = LATEST if ttl > 0 else finished
    return {"timeToLiveInSeconds": ttl, "expiresOn": v3json.iso(expires)}


def local_account_id(home: Path | None = None) -> str:
    """The local account's UUID: made once, kept in `account.json` in the state folder, read back later.

    When two runs make it at the same time, the file written first wins and both use it."""
    path = (home or state_home()) / ACCOUNT_FILE
    found = _read_account(path)
    if found is not None:
        return found
    made = str(uuid.uuid4())
    try:
        atomic_write(path, json.dumps({"accountId": made}) + "\n", replace=False)
    except FileExistsError:
        found = _read_account(path)
        if found is not None:
            return found
        atomic_write(path, json.dumps({"accountId": made}) + "\n")  # an unreadable file of ours: made again
    return made


def _read_account(path: Path) -> str | None:
    try:
        return str(uuid.UUID(json.loads(path.read_text(encoding="utf-8"))["accountId"]))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def account(settings: Settings) -> dict[str, str]:
    """`accountId` (speechproc.accountId, else the local account's) and `accountName` of the callbacks."""
    return {"accountId": (settings.account_id or local_account_id()).lower(), "accountName": settings.account_name}


def analytics_body(item: dict[str, Any], include: list[str] | None, ttl: int | None = None,
                   owner: dict[str, str] | None = None, language: str = "en-US") -> dict[str, Any]:
    """The v3 analytics callback: the media-level fields (with `owner`'s accountId and accountName)
    and the included sections (all when None); a failed item always carries its errors."""
    wanted = list(v3json.CALLBACK_SECTIONS) if include is None else include
    fields = {**item, **(owner or {})}
    body = {k: fields[k] for k in v3json.CALLBACK_ALWAYS if k in fields}
    body |= _expiry(item, ttl)
    for section in wanted:
        for key in v3json.CALLBACK_SECTIONS[section]:
            if key in item:
                body[key] = item[key]
    if "transcript" in body:
        body["transcript"] = stored_transcript(item, language).with_alternate_formats(
            body["transcript"], list(v3json.ALTERNATE_ORDER))
    if item.get("status") == "failed":
        body["errors"] = item.get("errors", [])
    return body


def v2_body(item: dict[str, Any], include: list[str] | None) -> dict[str, Any]:
    """The old v2-beta contract: a `callback` envelope and a `media` object with `latest` versions."""
    wanted = set(v3json.V2_SECTIONS) if include is None else set(include) & set(v3json.V2_SECTIONS)
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


def _transcript(item: dict[str, Any], fmt: str, language: str) -> bytes:
    if fmt == "json":
        return json.dumps({**v3json.summary(item), "transcript": item["transcript"]}).encode()
    return stored_transcript(item, language).render(fmt).encode("utf-8")


def plan(item: dict[str, Any], settings: Settings, streams: dict[str, str], now: float) -> list[dict[str, Any]]:
    """One delivery per configured callback (for a failed item: the analytics callbacks only).

    `streams` maps stream names (original, redacted-audio) to files."""
    out = []
    created = v3json.utc_now()
    owner: dict[str, str] = {}
    for position, cb in enumerate(settings.callbacks):
        kind = cb.get("type", "analytics")
        if item["status"] != "finished" and kind != "analytics":
            continue
        delivery: dict[str, Any] = {"id": str(uuid.uuid4()), "mediaId": item["mediaId"], "position": position,
                                    "url": cb["url"], "method": cb.get("method", "POST").upper(), "type": kind,
                                    "contract": settings.callback_contract, "nextDue": now, "created": created,
                                    "allowHttp": settings.allow_http_callbacks,
                                    "fileFolder": settings.callback_file_folder}
        if kind == "analytics":
            if settings.callback_contract != "v2-beta":
                owner = owner or account(settings)
            body = v2_body(item, cb.get("include")) if settings.callback_contract == "v2-beta" else \
                analytics_body(item, cb.get("include"), settings.time_to_live, owner,
                               settings.language)
            delivery |= {"contentType": "application/json", "body": json.dumps(body, ensure_ascii=False).encode()}
        elif kind == "transcript":
            delivery |= {"contentType": CONTENT_TYPES[cb["format"]], "body": _transcript(item, cb["format"], settings.language)}
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


_NO_HARD_LINKS = {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.ENOSYS}


# ---------------------------------------------------------------- sending

def send(delivery: dict[str, Any], body: bytes, timeout: float) -> str | None:
    """One attempt; None on success (a 2xx answer, or the file written), else what went wrong.

    The URL is checked again first; redirects are not followed (a 3xx is a failed attempt)."""
    try:
        dest = delivery_destination(delivery)
    except Refused as exc:
        return f"refused: {exc}"
    if dest.scheme == "file":
        return write_file(dest, delivery, body)
    return _request(dest, delivery, body, timeout)


def _request(dest: Destination, delivery: dict[str, Any], body: bytes, timeout: float) -> str | None:
    """One HTTP request to exactly the parsed host and port; no proxy, no redirect."""
    # the port always given: http.client would read one out of a bare IPv6 host such as ::1
    port = dest.port or (443 if dest.scheme == "https" else 80)
    if dest.scheme == "https":
        connection: http.client.HTTPConnection = http.client.HTTPSConnection(
            dest.host, port, timeout=timeout, context=ssl.create_default_context())
    else:
        connection = http.client.HTTPConnection(dest.host, port, timeout=timeout)
    headers = {"Content-Type": delivery["contentType"], "Content-Length": str(len(body)),
               "User-Agent": "speechproc-callbacks", "Idempotency-Key": delivery["id"],
               "X-Speechproc-Delivery": delivery["id"]}
    try:
        connection.request(delivery["method"], dest.target, body=body, headers=headers)
        status = connection.getresponse().status
    except (OSError, http.client.HTTPException, ValueError) as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        connection.close()
    if 300 <= status < 400:
        return f"HTTP {status}: redirect not followed"
    return None if 200 <= status < 300 else f"HTTP {status}"


def write_file(dest: Destination, delivery: dict[str, Any], body: bytes) -> str | None:
    """Write the body as a new file under the folder; None on success, else what went wrong.

    Every folder under the configured one is opened without following links; the file is written
    whole under a temporary name and then linked to its name, which fails when the name exists. An
    existing file is never replaced: when it holds exactly this body (this delivery's own earlier
    write, cut off before it was recorded) the attempt succeeds, otherwise it fails."""
    try:
        folder, name, shown = _open_target(dest, delivery)
    except Refused as exc:
        return f"refused: {exc}"
    except OSError as exc:
        return f"cannot write: {exc}"
    try:
        return _write_new(folder, name, shown, body, delivery["id"])
    except OSError as exc:
        return f"cannot write {shown}: {exc}"
    finally:
        os.close(folder)


def _kind(name: str, folder: int) -> str:
    try:
        mode = os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return "missing"
    return "link" if stat.S_ISLNK(mode) else "folder" if stat.S_ISDIR(mode) else "other"


def _enter(folder: int, name: str, shown: str) -> tuple[int, str]:
    """Open the folder `name` inside `folder` (made when missing) without following a link; close `folder`."""
    if _kind(name, folder) == "missing":
        with suppress(FileExistsError):
            os.mkdir(name, dir_fd=folder)
    kind = _kind(name, folder)
    if kind != "folder":
        raise Refused(f"{shown} is {'a symbolic link' if kind == 'link' else 'not a folder'}")
    inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
    os.close(folder)
    return inner, shown


def _open_target(dest: Destination, delivery: dict[str, Any]) -> tuple[int, str, str]:
    """The open folder the file goes into, the file's name, and its path for messages."""
    names = list(dest.names)
    last = None if dest.into_folder else names.pop()
    # the configured folder itself is opened as named (a link there is the local configuration's choice)
    folder = os.open(dest.folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    shown = dest.folder
    try:
        for name in names:
            folder, shown = _enter(folder, name, f"{shown}/{name}")
        if last is not None and _kind(last, folder) == "folder":  # file:///folder/sub naming a folder
            folder, shown = _enter(folder, last, f"{shown}/{last}")
            last = None
        name = last or _file_name(delivery)
        return folder, name, f"{shown}/{name}"
    except BaseException:
        os.close(folder)
        raise


def _file_name(delivery: dict[str, Any]) -> str:
    suffix = SUFFIXES.get(delivery["contentType"], Path(delivery.get("bodyPath") or "").suffix or ".bin")
    name = f"{delivery['mediaId']}-{delivery['type']}-{delivery['position']}{suffix}"
    if "/" in name or name.startswith("."):
        raise Refused(f"{name!r} is not a plain file name")
    return name


def _write_new(folder: int, name: str, shown: str, body: bytes, delivery_id: str) -> str | None:
    """Create `name` holding `body` (None), never over an existing file (then why not)."""
    prefix = f".speechproc-{hashlib.sha256(delivery_id.encode()).hexdigest()[:32]}"
    for left in os.listdir(folder):  # left by attempts of this delivery that were cut off
        if left.startswith(prefix) and left.endswith(".tmp"):
            with suppress(FileNotFoundError):
                os.unlink(left, dir_fd=folder)
    # a random part: two runs sending the same delivery (after its lease ran out) never share one
    temporary = f"{prefix}-{secrets.token_hex(4)}.tmp"
    _create(folder, temporary, body)
    try:
        try:
            os.link(temporary, name, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False)
        except OSError as exc:
            if exc.errno not in _NO_HARD_LINKS:
                raise
            _create(folder, name, body)  # no hard links here: written in place, still only as a new file
        os.fsync(folder)
        return None
    except FileExistsError:
        if _holds(folder, name, body):
            return None
        what = "a symbolic link" if _kind(name, folder) == "link" else "with other content"
        return f"refused: {shown} exists ({what}); file callbacks never replace a file"
    finally:
        with suppress(FileNotFoundError):
            os.unlink(temporary, dir_fd=folder)


def _create(folder: int, name: str, body: bytes) -> None:
    """A new file `name` in `folder` holding `body`, flushed to disk; FileExistsError if the name exists."""
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=folder)
    with os.fdopen(fd, "wb") as f:
        f.write(body)
        f.flush()
        os.fsync(f.fileno())


def _holds(folder: int, name: str, body: bytes) -> bool:
    """Whether `name` is a plain file (not a link) holding exactly `body`."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder)
    except OSError:
        return False
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        return stat.S_ISREG(info.st_mode) and info.st_size == len(body) and f.read(len(body) + 1) == body


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


def _refusal(delivery: dict[str, Any]) -> str | None:
    """Why the rules refuse the delivery's destination as it is now (then it is dead at once), or None."""
    try:
        found = delivery_destination(delivery)
        if found.scheme == "file":
            inspect_folder(found, must_exist=False)
    except Refused as exc:
        return f"refused: {exc}"
    return None


def _spent(contract: str, attempts: int) -> bool:
    """All v3 attempts used (the last one cut off by a kill: it was counted, never finished)."""
    return contract != "v2-beta" and attempts >= MAX_ATTEMPTS


def _work(catalog_path: Path, delivery: dict[str, Any], clock: Callable[[], float], sender: Sender,
          timeout: float, max_bytes: int) -> str:
    """Attempts until success, the end of the round, or death (a body that cannot be sent or a URL the
    rules refuse: dead at once). Every attempt is counted in the catalog before it is made, with the
    last error `interrupted` until its end is recorded, so an attempt cut off by a kill still counts."""
    with Catalog(catalog_path) as catalog:
        body, fatal = _body(delivery, max_bytes)
        fatal = fatal or _refusal(delivery)
        attempts, first = delivery["attempts"], delivery["firstTry"]
        if _spent(delivery["contract"], attempts):
            catalog.outbox_record(delivery["id"], attempts=attempts, state="dead", next_due=clock(),
                                  first_try=first if first is not None else clock(), last_error=delivery["lastError"])
            return "dead"
        while True:
            started = clock()
            first = first if first is not None else started
            attempts += 1
            catalog.outbox_start(delivery["id"], attempts=attempts, first_try=first, last_error=INTERRUPTED)
            error = fatal or sender(delivery, body, timeout)
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
    settings = settings or Settings()
    timeout, max_bytes = settings.callback_timeout, settings.callback_max_bytes
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
