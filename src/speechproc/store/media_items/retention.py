"""Retention: which media items are due for deletion, and deleting an item with everything speechproc
wrote for it. Policy only: the tables are read and changed through their owners (`catalog.media`, ...).

An item's `expiresOn` (`formats.expiry`: its `dateFinished` plus its `timeToLiveInSeconds`) is kept in the
indexed `media.expires_on` column, so that finding what is due is one indexed query. Deleting an item
removes, in one catalog transaction: the files speechproc wrote for it (only those whose content the
record of written files says is this item's: never the recording, never a person's file, never one of
ours changed since), its callbacks in the outbox, its analytic index entry, its record of written files
and the item itself. An item that a live process is working on (`accepted` or `running`) is never
deleted under it; an expired one is deleted once it has ended.

`CLOCK` is the time that decides what is due; tests replace it.
"""
from __future__ import annotations

import logging
import os
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

from speechproc import answers, results
from speechproc import errors as E
from speechproc.formats import v3json
from speechproc.paths import sha256_file, shown
from speechproc.store.database import Catalog, MediaRow
from speechproc.store.files import canonical


def _now() -> datetime:
    return datetime.now(timezone.utc)


CLOCK: Callable[[], datetime] = _now  # what "now" is when deciding what has expired

_log = logging.getLogger(__name__)


def record(catalog: Catalog, media_id: str, item: results.MediaItem, searchable: bool = True) -> None:
    """What the catalog keeps of a recorded item besides the item: when it expires, and, for an item that
    may not be searched (`searchability.searchable: false`), no analytic index entry (not even one of an
    earlier result of it, before an alignment)."""
    catalog.media.set_expiry(media_id, item.get("expiresOn"))
    if not searchable:
        catalog.index.remove(media_id)


def due(catalog: Catalog, now: datetime | None = None) -> list[str]:
    """The ids of the items whose expiresOn has passed, soonest first (one query over the expiry index)."""
    return catalog.media.expired(v3json.iso(now or CLOCK()))


def purge(catalog: Catalog, now: datetime | None = None) -> answers.Purge:
    """Delete every expired item (`speechproc media purge`): {deleted: [what `delete` tells of each],
    waiting: [{mediaId, status, expiresOn, reason}] for expired items a live process still works on}."""
    deleted: list[answers.Deletion] = []
    waiting: list[answers.Waiting] = []
    for media_id in due(catalog, now):
        try:
            done = _delete(catalog, media_id, expired_only=now or CLOCK())
        except DeleteWhileBusy as busy:
            if busy.waiting is not None:  # always, for an item that has expired
                waiting.append(busy.waiting)
            continue
        if done is not None:  # None: deleted meanwhile by an overlapping command
            deleted.append(done)
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


class DeleteWhileBusy(E.SpeechprocError):
    """The item is being processed by a live process: it is not deleted under it. `waiting`: an item with an
    expiry as `purge` lists it among those it leaves for later."""

    def __init__(self, media_id: str, status: str, owner: str, expires_on: str | None = None) -> None:
        super().__init__(E.INVALID_VALUE, f"media {media_id} is {status} ({owner}); it was not deleted: delete it "
                         "once it has finished", 409)
        self.waiting: answers.Waiting | None = None if expires_on is None else {
            "mediaId": media_id, "status": status, "expiresOn": expires_on, "reason": owner}


def delete(catalog: Catalog, media_id: str) -> answers.Deletion:
    """`DELETE /media/{id}` (`speechproc media delete`): the item and everything speechproc wrote for it,
    now, expired or not. NotFoundError for an unknown id; DeleteWhileBusy while a live process works on it."""
    done = _delete(catalog, media_id, expired_only=None)
    if done is None:
        raise E.NotFoundError(E.RESOURCE_NOT_FOUND, f"media {media_id} was not found in the catalog")
    return done


def _delete(catalog: Catalog, media_id: str, expired_only: datetime | None) -> answers.Deletion | None:
    """Delete one item in one transaction; None when it is not there (or, with `expired_only`, no longer
    expired by then); DeleteWhileBusy when a live process works on it."""
    with catalog.transaction():
        row = catalog.media.get(media_id)
        if row is None:
            return None
        expires_on = catalog.media.expires_on(media_id)
        if expired_only is not None and (expires_on is None or expires_on > v3json.iso(expired_only)):
            return None
        holder = catalog.media.live_holder(media_id)
        if holder is not None:
            raise DeleteWhileBusy(media_id, row["status"], f"being processed by pid {holder['pid']} on {holder['host']}",
                           expires_on)
        deleted, kept = _delete_files(catalog, row)
        dropped = catalog.outbox.drop(media_id)
        catalog.index.remove(media_id)
        catalog.written.forget_media(media_id)
        catalog.media.delete(media_id)
    if expires_on is None:
        return {"mediaId": media_id, "status": row["status"], "deletedFiles": deleted, "keptFiles": kept,
                "callbacksDropped": dropped}
    return {"mediaId": media_id, "status": row["status"], "expiresOn": expires_on, "deletedFiles": deleted,
            "keptFiles": kept, "callbacksDropped": dropped}


def _delete_files(catalog: Catalog, row: MediaRow) -> tuple[list[str], list[answers.KeptFile]]:
    """Remove the files speechproc wrote for this item: (the paths removed, the files left with why)."""
    media_id = row["media_id"]
    recording = row["input_path"]  # the exact path (`media.get`)
    places = [str(v) for v in row["outputs"].values() if isinstance(v, str)]
    places += catalog.written.paths_of(media_id)
    deleted: list[str] = []
    kept: list[answers.KeptFile] = []
    seen: set[Path] = set()
    for place in places:
        path = canonical(Path(place))
        if path in seen or not os.path.lexists(path):
            continue
        seen.add(path)
        if _is_recording(path, recording):
            kept.append({"path": shown(path), "reason": "the recording is never deleted"})
        elif not _written_for(catalog, path, media_id):
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


def _written_for(catalog: Catalog, path: Path, media_id: str) -> bool:
    """Whether `path` is a plain file holding exactly what speechproc recorded writing there for this item."""
    if path.is_symlink() or not path.is_file():
        return False
    try:
        digest = sha256_file(path)
    except OSError:
        return False
    return catalog.written.writer(str(path), digest) == media_id
