"""The media table: one row per media item, with its status, progress, outputs and results, the process
that holds it while it is unfinished, and when it expires. The only module that speaks the media table's SQL.

`input_path` is kept twice: as text (see `path_columns`) for people and queries, and as the exact bytes
(`input_raw`), which lookups match, so a name that is not valid UTF-8 is neither lost nor mistaken for
another. An item being processed records its process (owner_*) so that a later run can tell a live run's
item from one whose process was killed.
"""
from __future__ import annotations

import builtins
import json
import os
import socket
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypedDict

from speechproc import results
from speechproc.paths import path_text, process_mark
from speechproc.store.database.listing import MediaFilter
from speechproc.store.database.tables import immediate

Source = tuple[str | None, str | None, str]  # a URL item's ETag, Last-Modified and whole-URL key
UNFINISHED = ("accepted", "running")
_NEWEST = "ORDER BY date_created DESC, rowid DESC"


class Holder(TypedDict):
    """The process working on an unfinished item."""

    host: str
    pid: int


class _MediaRowRequired(TypedDict):
    media_id: str
    input_path: str  # as text (`path_columns`); the exact path where the docstring of the reader says so
    status: str
    content_hash: str | None  # SHA-256 of the input's content (None: it could not be read)
    config_hash: str | None  # of everything else that decides whether an earlier result is reused
    item: results.MediaItem
    tasks: list[dict[str, Any]]  # the progress tasks, as `pipeline.new_tasks` makes them
    outputs: dict[str, str]  # output name -> path
    configuration: dict[str, Any]  # the item's v3 configuration


class MediaRow(_MediaRowRequired, total=False):
    """A media item as the catalog keeps it, its JSON columns read."""

    owner: Holder  # only in the answer of `claim` for an item a live process is working on


class FetchedRow(MediaRow):
    """A finished item of a URL with the validators its download left."""

    etag: str | None
    lastModified: str | None
    contentHash: str


def path_columns(input_path: str) -> tuple[str, bytes]:
    """The text and the exact bytes stored for an input path (a str from os.fsdecode, surrogates and all).

    The text is valid UTF-8, unambiguous and safe on a terminal: a byte that is not UTF-8 and a control
    character (a line break, an escape) are written `\\xNN`, a backslash `\\\\`."""
    raw = os.fsencode(input_path)
    return path_text(raw), raw


start_mark = process_mark


def this_process() -> tuple[str, int, str]:
    """(host name, pid, start mark) of this process."""
    return socket.gethostname(), os.getpid(), start_mark(os.getpid()) or ""


def owner_alive(row: sqlite3.Row) -> bool:
    """Whether the process that holds an unfinished item may still be working on it.

    Unknown (another host) counts as alive; an item with no recorded process (left by a version that did
    not record it) counts as abandoned."""
    if row["owner_pid"] is None:
        return False
    if row["owner_host"] != this_process()[0]:
        return True
    mark = start_mark(row["owner_pid"])
    return mark is not None and (mark == row["owner_start"] or "" in (mark, row["owner_start"]))


def _exact_path(row: sqlite3.Row) -> str:
    return os.fsdecode(row["input_raw"] or row["input_path"].encode())


def _read(row: sqlite3.Row) -> MediaRow:
    """A media row with its JSON columns read."""
    return {"media_id": row["media_id"], "input_path": row["input_path"], "status": row["status"],
            "content_hash": row["content_hash"], "config_hash": row["config_hash"],
            "item": json.loads(row["item_json"]), "tasks": json.loads(row["progress_json"]),
            "outputs": json.loads(row["outputs_json"]), "configuration": json.loads(row["config_json"])}


def _read_exact(row: sqlite3.Row) -> MediaRow:
    """A media row whose `input_path` is the exact path (os.fsdecode of the stored bytes)."""
    return {**_read(row), "input_path": _exact_path(row)}


class MediaTable:
    """The media items of one catalog connection."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def _row(self, media_id: str) -> sqlite3.Row | None:
        return self.db.execute("SELECT * FROM media WHERE media_id = ?", (media_id,)).fetchone()

    def add(self, item: results.MediaItem, input_path: str, content_hash: str | None, config_hash: str,
            tasks: Sequence[Mapping[str, Any]], configuration: Mapping[str, Any] | None = None,
            source: Source | None = None) -> None:
        """Insert a media item, owned by this process; `source`: a URL's (ETag, Last-Modified, key)."""
        text, raw = path_columns(input_path)
        self.db.execute(
            "INSERT INTO media (media_id, input_path, input_raw, content_hash, config_hash, status, date_created, "
            "item_json, progress_json, config_json, owner_host, owner_pid, owner_start, source_etag, "
            "source_modified, source_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (item["mediaId"], text, raw, content_hash, config_hash, item["status"], item["dateCreated"],
             json.dumps(item), json.dumps(tasks), json.dumps(configuration or {}), *this_process(),
             *(source or (None, None, None))))

    def claim(self, item: results.MediaItem, input_path: str, content_hash: str | None, config_hash: str,
              tasks: Sequence[Mapping[str, Any]], configuration: Mapping[str, Any],
              reusable: Callable[[MediaRow], bool] | None,
              source: Source | None = None) -> tuple[str, MediaRow | None]:
        """Take an input for processing, atomically with respect to overlapping runs.

        ("finished", row): a finished item for the same input, content and configuration that `reusable`
        accepts (None: never reuse). ("busy", row with "owner": {host, pid}): a live process is processing it
        now. ("claimed", None): `item` was inserted, owned by this process."""
        raw = path_columns(input_path)[1]
        with immediate(self.db):
            if content_hash is not None:
                same = "SELECT * FROM media WHERE input_raw = ? AND content_hash = ? AND config_hash = ? AND status "
                key = (raw, content_hash, config_hash)
                done = self.db.execute(same + f"= 'finished' {_NEWEST} LIMIT 1", key).fetchone()
                if reusable is not None and done is not None and reusable(_read(done)):
                    return "finished", _read(done)
                for row in self.db.execute(same + "IN ('accepted', 'running')", key).fetchall():
                    if owner_alive(row):
                        return "busy", {**_read(row), "owner": {"host": row["owner_host"], "pid": row["owner_pid"]}}
            self.add(item, input_path, content_hash, config_hash, tasks, configuration, source)
        return "claimed", None

    def abandoned(self) -> list[MediaRow]:
        """Unfinished (`accepted`, `running`) items whose process is gone: killed, or the machine restarted."""
        rows = self.db.execute("SELECT * FROM media WHERE status IN ('accepted', 'running')").fetchall()
        return [_read(r) for r in rows if not owner_alive(r)]

    def live_holder(self, media_id: str) -> Holder | None:
        """The live process working on an unfinished item; None when it is finished, failed or abandoned."""
        row = self._row(media_id)
        if row is None or row["status"] not in UNFINISHED or not owner_alive(row):
            return None
        return {"host": row["owner_host"], "pid": row["owner_pid"]}

    def update(self, media_id: str, *, item: results.MediaItem | None = None,
               tasks: Sequence[Mapping[str, Any]] | None = None, outputs: Mapping[str, str] | None = None,
               only_if_status: str | None = None) -> bool:
        """Change a media item; an item set `running` becomes owned by this process. Whether it was changed.

        `only_if_status`: change it only while its status is still this one."""
        sets: list[str] = []
        args: list[object] = []
        if item is not None:
            sets += ["status = ?", "date_finished = ?", "item_json = ?"]
            args += [item["status"], item.get("dateFinished"), json.dumps(item)]
            if item["status"] == "running":
                sets += ["owner_host = ?", "owner_pid = ?", "owner_start = ?"]
                args += this_process()
        if tasks is not None:
            sets.append("progress_json = ?")
            args.append(json.dumps(tasks))
        if outputs is not None:
            sets.append("outputs_json = ?")
            args.append(json.dumps(outputs))
        if not sets:
            return False
        where = "media_id = ?" + (" AND status = ?" if only_if_status else "")
        condition = (media_id, only_if_status) if only_if_status else (media_id,)
        return self.db.execute(f"UPDATE media SET {', '.join(sets)} WHERE {where}", (*args, *condition)).rowcount > 0

    def replace_item(self, media_id: str, item: results.MediaItem, unless_changed_from: results.MediaItem) -> bool:
        """Put `item` in place of the stored one only while that is still `unless_changed_from` (as `get`
        read it); whether it was replaced."""
        return self.db.execute("UPDATE media SET item_json = ? WHERE media_id = ? AND item_json = ?",
                               (json.dumps(item), media_id, json.dumps(unless_changed_from))).rowcount > 0

    def get(self, media_id: str) -> MediaRow | None:
        """One media item; its `input_path` is the exact path (os.fsdecode of the stored bytes)."""
        row = self._row(media_id)
        return None if row is None else _read_exact(row)

    def list(self, limit: int = 100) -> list[MediaRow]:
        """The newest media items, newest first."""
        rows = self.db.execute(f"SELECT * FROM media {_NEWEST} LIMIT ?", (limit,))
        return [_read(r) for r in rows]

    def all(self) -> builtins.list[MediaRow]:
        """Every media item, oldest first, each with its exact `input_path`."""
        rows = self.db.execute("SELECT * FROM media ORDER BY date_created, rowid")
        return [_read_exact(r) for r in rows]

    def find(self, selection: MediaFilter) -> builtins.list[MediaRow] | None:
        """Media items that pass a listing filter, in its order; None when a cursor item does not exist."""
        where: builtins.list[str] = []
        args: builtins.list[object] = []
        if selection.terms:  # a full-text search never finds an item kept out of search (searchability)
            where.append("json_extract(config_json, '$.searchability.searchable') IS NOT 0")
        if selection.external_id is not None:
            where.append("json_extract(item_json, '$.metadata.externalId') = ?")
            args.append(selection.external_id)
        if selection.created_from is not None:
            where.append("date_created >= ?")
            args.append(selection.created_from)
        if selection.created_to is not None:
            where.append("date_created <= ?")
            args.append(selection.created_to)
        for media_id, op in ((selection.after, ">"), (selection.before, "<")):
            if media_id is None:
                continue
            cursor = self.db.execute("SELECT date_created, rowid FROM media WHERE media_id = ?", (media_id,)).fetchone()
            if cursor is None:
                return None
            where.append(f"(date_created, rowid) {op} (?, ?)")
            args += [cursor[0], cursor[1]]
        direction = "ASC" if selection.ascending else "DESC"
        sql = (f"SELECT * FROM media {'WHERE ' + ' AND '.join(where) if where else ''} "
               f"ORDER BY date_created {direction}, rowid {direction}")
        if not selection.needs_items():
            return [_read(r) for r in self.db.execute(sql + " LIMIT ?", (*args, selection.limit))]
        found = []
        for row in self.db.execute(sql, args):
            decoded = _read(row)
            if selection.accepts(decoded["item"]):
                found.append(decoded)
                if len(found) == selection.limit:
                    break
        return found

    def find_finished(self, input_path: str, content_hash: str, config_hash: str) -> MediaRow | None:
        """The newest finished item for this exact input path, content and configuration."""
        raw = path_columns(input_path)[1]
        row = self.db.execute(
            "SELECT * FROM media WHERE input_raw = ? AND content_hash = ? AND config_hash = ? AND "
            f"status = 'finished' {_NEWEST} LIMIT 1", (raw, content_hash, config_hash)).fetchone()
        return _read(row) if row else None

    def find_fetched(self, input_path: str, config_hash: str, source_key: str) -> FetchedRow | None:
        """The newest finished item of this URL (`source_key`: its whole URL's, query included) and
        configuration whose download left validators, with them: {"etag", "lastModified", "contentHash"}."""
        row = self.db.execute(
            "SELECT * FROM media WHERE input_raw = ? AND config_hash = ? AND source_key = ? AND status = 'finished' "
            "AND content_hash IS NOT NULL AND coalesce(source_etag, source_modified) IS NOT NULL "
            f"{_NEWEST} LIMIT 1", (path_columns(input_path)[1], config_hash, source_key)).fetchone()
        return {**_read(row), "etag": row["source_etag"], "lastModified": row["source_modified"],
                "contentHash": row["content_hash"]} if row else None

    def with_output_named(self, name: str) -> builtins.list[tuple[str, dict[str, str]]]:
        """(media id, outputs) of the media items listing an output whose file name is `name`."""
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:  # versions that kept outputs_json could not process such a name
            return []
        pattern = "%" + name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self.db.execute(
            "SELECT DISTINCT m.media_id, m.outputs_json FROM media m, json_each(m.outputs_json) j "
            "WHERE j.value = ? OR j.value LIKE ? ESCAPE '\\'", (name, pattern))
        return [(r[0], json.loads(r[1])) for r in rows]

    # ------------------------------------------------------------ retention: the expiry column

    def set_expiry(self, media_id: str, expires_on: str | None) -> None:
        """Remember when an item expires (None: never)."""
        self.db.execute("UPDATE media SET expires_on = ? WHERE media_id = ?", (expires_on, media_id))

    def expires_on(self, media_id: str) -> str | None:
        """When an item expires (None: never, or no such item)."""
        row = self.db.execute("SELECT expires_on FROM media WHERE media_id = ?", (media_id,)).fetchone()
        return row[0] if row else None

    def expired(self, moment: str) -> builtins.list[str]:
        """The ids of the items whose expiry is `moment` or earlier, soonest first (one query over the
        expiry index)."""
        rows = self.db.execute("SELECT media_id FROM media WHERE expires_on IS NOT NULL AND expires_on <= ? "
                               "ORDER BY expires_on, media_id", (moment,))
        return [r[0] for r in rows]

    def delete(self, media_id: str) -> None:
        """Remove one media item's row (what else it has is its owners' to remove)."""
        self.db.execute("DELETE FROM media WHERE media_id = ?", (media_id,))
