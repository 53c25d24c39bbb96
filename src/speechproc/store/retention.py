"""Retention: the expiry that `timeToLiveInSeconds` gives a media item, and deleting an item with
everything speechproc wrote for it.

An item's `expiresOn` is its `dateFinished` plus its `timeToLiveInSeconds`; the catalog keeps it in the
indexed `media.expires_on` column, so that finding what is due is one indexed query. Deleting an item
removes, in one catalog transaction: the files speechproc wrote for it (only those whose content the
record of written files says is this item's: never the recording, never a person's file, never one of
ours changed since), its callbacks in the outbox, its analytic index entry, its record of written files
and the item itself. An item that a live process is working on (`accepted` or `running`) is never
deleted under it; an expired one is deleted once it has ended.

`CLOCK` is the time that decides what is due; tests replace it.
"""
from __future__ import annotations

import json
import logging
import os
import sqlite3
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from speechproc import errors as E
from speechproc.formats import v3json
from speechproc.paths import sha256_file, shown
from speechproc.store.ownership import canonical
from speechproc.store.tables import path_key, path_of

if TYPE_CHECKING:
    from speechproc.store.catalog import Catalog

LATEST = datetime.max.replace(tzinfo=timezone.utc)


def _now() -> datetime:
    return datetime.now(timezone.utc)


CLOCK: Callable[[], datetime] = _now  # what "now" is when deciding what has expired

_log = logging.getLogger(__name__)


def expiry(item: Mapping[str, Any], ttl: int | None) -> dict[str, Any]:
    """`timeToLiveInSeconds` and `expiresOn` of an item with this time to live; an expiry past the year
    9999 is the last moment of 9999, and one that cannot be computed (no or an unreadable dateFinished)
    is left out. {} when there is no time to live."""
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


def with_expiry(item: Mapping[str, Any], ttl: int | None) -> dict[str, Any]:
    """The item with its `timeToLiveInSeconds` and `expiresOn` right after `dateFinished` (as a v3 media
    summary lists them); the item as it is when there is no time to live."""
    fields = expiry(item, ttl)
    if not fields:
        return dict(item)
    out: dict[str, Any] = {}
    for key, value in item.items():
        if key not in fields:
            out[key] = value
        if key == "dateFinished":
            out |= fields
    return out


def set_expiry(catalog: Catalog, media_id: str, expires_on: str | None) -> None:
    """Remember when an item expires (None: never)."""
    catalog.db.execute("UPDATE media SET expires_on = ? WHERE media_id = ?", (expires_on, media_id))


def record(catalog: Catalog, media_id: str, item: Mapping[str, Any], searchable: bool = True) -> None:
    """What the catalog keeps of a recorded item besides the item: when it expires, and, for an item that
    may not be searched (`searchability.searchable: false`), no analytic index entry (not even one of an
    earlier result of it, before an alignment)."""
    set_expiry(catalog, media_id, item.get("expiresOn"))
    if not searchable:
        unindex(catalog, media_id)


def unindex(catalog: Catalog, media_id: str) -> None:
    """Take an item out of the analytic index."""
    with catalog.db:
        catalog.db.execute("BEGIN IMMEDIATE")
        catalog.db.execute("DELETE FROM indexed WHERE media_id = ?", (media_id,))
        catalog.db.execute("DELETE FROM indexed_text WHERE media_id = ?", (media_id,))


def due(catalog: Catalog, now: datetime | None = None) -> list[str]:
    """The ids of the items whose expiresOn has passed, soonest first (one query over the expiry index)."""
    moment = v3json.iso(now or CLOCK())
    rows = catalog.db.execute("SELECT media_id FROM media WHERE expires_on IS NOT NULL AND expires_on <= ? "
                              "ORDER BY expires_on, media_id", (moment,))
    return [r[0] for r in rows]


def purge(catalog: Catalog, now: datetime | None = None) -> dict[str, Any]:
    """Delete every expired item (`speechproc media purge`): {deleted: [what `delete` tells of each],
    waiting: [{mediaId, expiresOn, reason}] for expired items a live process still works on}."""
    deleted: list[dict[str, Any]] = []
    waiting: list[dict[str, Any]] = []
    for media_id in due(catalog, now):
        done = _delete(catalog, media_id, expired_only=now or CLOCK())
        if done is None:
            continue  # deleted meanwhile by an overlapping command
        (waiting if "reason" in done else deleted).append(done)
    return {"deleted": deleted, "waiting": waiting}


def purge_quietly(catalog: Catalog) -> None:
    """Purge as any command opens the catalog: nothing due is one indexed query; a failure is logged and
    never stops the command (`speechproc media purge` says what went wrong)."""
    try:
        if due(catalog):
            purge(catalog)
    except Exception as exc:  # retention never costs a command its own work
        _log.warning("expired media items were not deleted this time (%s: %s); speechproc media purge retries",
                     type(exc).__name__, exc)


class ItemBusy(E.SpeechprocError):
    """The item is being processed by a live process: it is not deleted under it."""

    def __init__(self, media_id: str, status: str, owner: str) -> None:
        super().__init__(E.INVALID_VALUE, f"media {media_id} is {status} ({owner}); it was not deleted: delete it "
                         "once it has finished", 409)


def delete(catalog: Catalog, media_id: str) -> dict[str, Any]:
    """`DELETE /media/{id}` (`speechproc media delete`): the item and everything speechproc wrote for it,
    now, expired or not. NotFoundError for an unknown id; ItemBusy while a live process works on it."""
    done = _delete(catalog, media_id, expired_only=None)
    if done is None:
        raise E.NotFoundError(E.RESOURCE_NOT_FOUND, f"media {media_id} was not found in the catalog")
    if "reason" in done:
        raise ItemBusy(media_id, done["status"], done["reason"])
    return done


def _delete(catalog: Catalog, media_id: str, expired_only: datetime | None) -> dict[str, Any] | None:
    """Delete one item in one transaction; None when it is not there (or, with `expired_only`, no longer
    expired by then); {mediaId, status, reason} when a live process works on it."""
    db = catalog.db
    with db:
        db.execute("BEGIN IMMEDIATE")
        row = db.execute("SELECT * FROM media WHERE media_id = ?", (media_id,)).fetchone()
        if row is None:
            return None
        if expired_only is not None and (row["expires_on"] is None or row["expires_on"] > v3json.iso(expired_only)):
            return None
        if row["status"] in ("accepted", "running") and catalog.owner_alive(row):
            return {"mediaId": media_id, "status": row["status"], "expiresOn": row["expires_on"],
                    "reason": f"being processed by pid {row['owner_pid']} on {row['owner_host']}"}
        deleted, kept = _delete_files(db, row)
        dropped = db.execute("DELETE FROM outbox WHERE media_id = ?", (media_id,)).rowcount
        db.execute("DELETE FROM indexed WHERE media_id = ?", (media_id,))
        db.execute("DELETE FROM indexed_text WHERE media_id = ?", (media_id,))
        db.execute("DELETE FROM written WHERE media_id = ?", (media_id,))
        db.execute("DELETE FROM media WHERE media_id = ?", (media_id,))
    done: dict[str, Any] = {"mediaId": media_id, "status": row["status"]}
    if row["expires_on"] is not None:
        done["expiresOn"] = row["expires_on"]
    return done | {"deletedFiles": deleted, "keptFiles": kept, "callbacksDropped": dropped}


def _delete_files(db: sqlite3.Connection, row: sqlite3.Row) -> tuple[list[str], list[dict[str, str]]]:
    """Remove the files speechproc wrote for this item: (the paths removed, the files left with why)."""
    media_id = row["media_id"]
    recording = os.fsdecode(row["input_raw"] or row["input_path"].encode())
    places = [str(v) for v in json.loads(row["outputs_json"] or "{}").values() if isinstance(v, str)]
    places += [p for r in db.execute("SELECT DISTINCT path FROM written WHERE media_id = ?", (media_id,))
               if (p := path_of(r[0])) is not None]
    deleted: list[str] = []
    kept: list[dict[str, str]] = []
    seen: set[Path] = set()
    for place in places:
        path = canonical(Path(place))
        if path in seen or not os.path.lexists(path):
            continue
        seen.add(path)
        if _is_recording(path, recording):
            kept.append({"path": shown(path), "reason": "the recording is never deleted"})
        elif not _written_for(db, path, media_id):
            kept.append({"path": shown(path), "reason": "not this item's output as speechproc wrote it (a file of "
                                                        "someone else, or changed since)"})
        else:
            try:
                path.unlink()
                deleted.append(shown(path))
            except OSError as exc:
                kept.append({"path": shown(path), "reason": f"could not be removed ({exc.strerror or exc})"})
    return deleted, kept


def _is_recording(path: Path, recording: str) -> bool:
    try:
        return os.path.realpath(path) == os.path.realpath(recording) or os.path.samefile(path, recording)
    except OSError:
        return False


def _written_for(db: sqlite3.Connection, path: Path, media_id: str) -> bool:
    """Whether `path` is a plain file holding exactly what speechproc recorded writing there for this item."""
    if path.is_symlink() or not path.is_file():
        return False
    try:
        digest = sha256_file(path)
    except OSError:
        return False
    row = db.execute("SELECT media_id FROM written WHERE path = ? AND sha256 = ?",
                     (path_key(str(path)), digest)).fetchone()
    return row is not None and row[0] == media_id
