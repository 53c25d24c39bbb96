"""The SQLite catalog: media items with status, progress, outputs and results. The only module that speaks SQL."""
from __future__ import annotations

import builtins
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from speechproc.paths import path_text, process_mark, state_home
from speechproc.results import MediaItem
from speechproc.store import retention
from speechproc.store.listing import MediaFilter
from speechproc.store.tables import (
    ADDED_INDEXED_COLUMNS,
    ADDED_MEDIA_COLUMNS,
    SCHEMA_VERSION,
    TABLES,
    definition_row,
    delivery_row,
    media_row,
    path_key,
)


@contextmanager
def using(catalog: Catalog | None, purge_expired: bool = True) -> Iterator[Catalog]:
    """The caller's catalog (left open), or the default one, closed afterwards. Opening the default one
    first deletes the media items whose time to live has passed (`retention`: one indexed query when
    nothing is due), unless `purge_expired` is False (the commands that delete items themselves)."""
    if catalog is not None:
        yield catalog
        return
    with Catalog() as own:
        if purge_expired:
            retention.purge_quietly(own)
        yield own


EXPORT_OWNER = "(export)"  # the `written` record's owner of a file `speechproc export` wrote
Source = tuple[str | None, str | None, str]  # a URL item's ETag, Last-Modified and whole-URL key


class Catalog:
    """Media items in `$SPEECHPROC_HOME/catalog.sqlite3` (WAL mode, safe for overlapping runs)."""

    durable = True  # as an output record: each change is committed as it is made

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else state_home() / "catalog.sqlite3"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.exists():  # private from the start (sqlite gives its -wal and -shm files the same mode)
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600))
        self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA busy_timeout=30000")
        self.db.execute("PRAGMA secure_delete=ON")  # what is deleted (a voiceprint, an expired item) is overwritten
        self._use_wal()
        self._migrate()

    def _use_wal(self, patience: float = 30.0) -> None:
        """Switch the file to WAL mode (it stays so). The switch needs the file to itself and SQLite does not
        wait for that on its own: runs opening a catalog at once retry until the first one has switched it."""
        deadline = time.monotonic() + patience
        while self.db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            try:
                self.db.execute("PRAGMA journal_mode=WAL")
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Catalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ media items
    #
    # `input_path` is kept twice: as text (see path_columns) for people and queries, and as
    # the exact bytes (`input_raw`), which lookups match, so a name that is not valid UTF-8 is neither lost nor
    # mistaken for another. An item being processed records its process (owner_*) so that a later run can tell
    # a live run's item from one whose process was killed.

    def _migrate(self) -> None:
        """Bring a catalog made by an earlier version (or a new, empty one) to SCHEMA_VERSION.

        In one transaction that takes the write lock first, so that overlapping runs opening an old
        catalog at once upgrade it once."""
        if self.db.execute("PRAGMA user_version").fetchone()[0] >= SCHEMA_VERSION:
            return
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            if self.db.execute("PRAGMA user_version").fetchone()[0] >= SCHEMA_VERSION:
                return  # an overlapping run upgraded it meanwhile
            for statement in TABLES.split(";"):  # executescript would commit: one statement at a time
                if statement.strip():
                    self.db.execute(statement)
            self._add_columns("media", ADDED_MEDIA_COLUMNS)
            self._add_columns("indexed", ADDED_INDEXED_COLUMNS)
            self._add_columns("outbox", {"rules_json": "TEXT"})  # NULL: the strict destination rules
            # rows of version 4 and before: their paths were valid UTF-8 text, which are their exact bytes;
            # the text column now doubles a backslash so that it reads unambiguously
            self.db.execute("UPDATE media SET input_raw = CAST(input_path AS BLOB), "
                            "input_path = replace(input_path, '\\', '\\\\') WHERE input_raw IS NULL")
            self.db.execute("CREATE INDEX IF NOT EXISTS media_by_raw_input ON media "
                            "(input_raw, content_hash, config_hash, status)")
            self.db.execute("CREATE INDEX IF NOT EXISTS media_by_expiry ON media (expires_on) "
                            "WHERE expires_on IS NOT NULL")  # retention: what is due, in one indexed query
            self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def _add_columns(self, table: str, wanted: dict[str, str]) -> None:
        present = {r["name"] for r in self.db.execute(f"PRAGMA table_info({table})")}
        for column, kind in wanted.items():
            if column not in present:
                self.db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")

    @staticmethod
    def path_columns(input_path: str) -> tuple[str, bytes]:
        """The text and the exact bytes stored for an input path (a str from os.fsdecode, surrogates and all).

        The text is valid UTF-8, unambiguous and safe on a terminal: a byte that is not UTF-8 and a control
        character (a line break, an escape) are written `\\xNN`, a backslash `\\\\`."""
        raw = os.fsencode(input_path)
        return path_text(raw), raw

    @staticmethod
    def this_process() -> tuple[str, int, str]:
        """(host name, pid, start mark) of this process."""
        import socket

        return socket.gethostname(), os.getpid(), Catalog.start_mark(os.getpid()) or ""

    start_mark = staticmethod(process_mark)

    def owner_alive(self, row: sqlite3.Row) -> bool:
        """Whether the process that holds an unfinished item may still be working on it.

        Unknown (another host) counts as alive; an item with no recorded process (left by a version that did
        not record it) counts as abandoned."""
        if row["owner_pid"] is None:
            return False
        if row["owner_host"] != self.this_process()[0]:
            return True
        mark = self.start_mark(row["owner_pid"])
        return mark is not None and (mark == row["owner_start"] or "" in (mark, row["owner_start"]))

    def add(self, item: MediaItem, input_path: str, content_hash: str | None, config_hash: str,
            tasks: list[dict[str, Any]], configuration: dict[str, Any] | None = None,
            source: Source | None = None) -> None:
        """Insert a media item, owned by this process; `source`: a URL's (ETag, Last-Modified, key)."""
        text, raw = self.path_columns(input_path)
        self.db.execute(
            "INSERT INTO media (media_id, input_path, input_raw, content_hash, config_hash, status, date_created, "
            "item_json, progress_json, config_json, owner_host, owner_pid, owner_start, source_etag, "
            "source_modified, source_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (item["mediaId"], text, raw, content_hash, config_hash, item["status"], item["dateCreated"],
             json.dumps(item), json.dumps(tasks), json.dumps(configuration or {}), *self.this_process(),
             *(source or (None, None, None))))

    def claim(self, item: MediaItem, input_path: str, content_hash: str | None, config_hash: str,
              tasks: list[dict[str, Any]], configuration: dict[str, Any],
              reusable: Callable[[dict[str, Any]], bool] | None,
              source: Source | None = None) -> tuple[str, dict[str, Any] | None]:
        """Take an input for processing, atomically with respect to overlapping runs.

        ("finished", row): a finished item for the same input, content and configuration that `reusable`
        accepts (None: never reuse). ("busy", row with "owner": {host, pid}): a live process is processing it
        now. ("claimed", None): `item` was inserted, owned by this process."""
        raw = self.path_columns(input_path)[1]
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            if content_hash is not None:
                same = "SELECT * FROM media WHERE input_raw = ? AND content_hash = ? AND config_hash = ? AND status "
                key = (raw, content_hash, config_hash)
                done = self.db.execute(same + "= 'finished' ORDER BY date_created DESC, rowid DESC LIMIT 1",
                                       key).fetchone()
                if reusable is not None and done is not None and reusable(media_row(done)):
                    return "finished", media_row(done)
                for row in self.db.execute(same + "IN ('accepted', 'running')", key).fetchall():
                    if self.owner_alive(row):
                        return "busy", {**media_row(row), "owner": {"host": row["owner_host"], "pid": row["owner_pid"]}}
            self.add(item, input_path, content_hash, config_hash, tasks, configuration, source)
        return "claimed", None

    def abandoned(self) -> list[dict[str, Any]]:
        """Unfinished (`accepted`, `running`) items whose process is gone: killed, or the machine restarted."""
        rows = self.db.execute("SELECT * FROM media WHERE status IN ('accepted', 'running')").fetchall()
        return [media_row(r) for r in rows if not self.owner_alive(r)]

    def update(self, media_id: str, *, item: MediaItem | None = None, tasks: list[dict[str, Any]] | None = None,
               outputs: dict[str, str] | None = None,
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
                args += self.this_process()
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

    def get(self, media_id: str) -> dict[str, Any] | None:
        """One media item; its `input_path` is the exact path (os.fsdecode of the stored bytes)."""
        row = self.db.execute("SELECT * FROM media WHERE media_id = ?", (media_id,)).fetchone()
        if row is None:
            return None
        return {**media_row(row), "input_path": os.fsdecode(row["input_raw"] or row["input_path"].encode())}

    def list(self, limit: int = 100) -> list[dict[str, Any]]:
        rows = self.db.execute("SELECT * FROM media ORDER BY date_created DESC, rowid DESC LIMIT ?", (limit,))
        return [media_row(r) for r in rows]

    def all_media(self) -> builtins.list[dict[str, Any]]:
        """Every media item, oldest first, each with its exact `input_path`."""
        rows = self.db.execute("SELECT * FROM media ORDER BY date_created, rowid")
        return [{**media_row(r), "input_path": os.fsdecode(r["input_raw"] or r["input_path"].encode())} for r in rows]

    def find_media(self, selection: MediaFilter) -> builtins.list[dict[str, Any]] | None:
        """Media items that pass a listing filter, in its order; None when a cursor item does not exist."""
        where, args = [], []
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
            return [media_row(r) for r in self.db.execute(sql + " LIMIT ?", (*args, selection.limit))]
        found = []
        for row in self.db.execute(sql, args):
            decoded = media_row(row)
            if selection.accepts(decoded["item"]):
                found.append(decoded)
                if len(found) == selection.limit:
                    break
        return found

    def find_finished(self, input_path: str, content_hash: str, config_hash: str) -> dict[str, Any] | None:
        """The newest finished item for this exact input path, content and configuration."""
        raw = self.path_columns(input_path)[1]
        row = self.db.execute(
            "SELECT * FROM media WHERE input_raw = ? AND content_hash = ? AND config_hash = ? AND "
            "status = 'finished' ORDER BY date_created DESC, rowid DESC LIMIT 1",
            (raw, content_hash, config_hash)).fetchone()
        return media_row(row) if row else None

    def find_fetched(self, input_path: str, config_hash: str, source_key: str) -> dict[str, Any] | None:
        """The newest finished item of this URL (`source_key`: its whole URL's, query included) and
        configuration whose download left validators, with them: {"etag", "lastModified", "contentHash"}."""
        row = self.db.execute(
            "SELECT * FROM media WHERE input_raw = ? AND config_hash = ? AND source_key = ? AND status = 'finished' "
            "AND content_hash IS NOT NULL AND coalesce(source_etag, source_modified) IS NOT NULL "
            "ORDER BY date_created DESC, rowid DESC LIMIT 1",
            (self.path_columns(input_path)[1], config_hash, source_key)).fetchone()
        return {**media_row(row), "etag": row["source_etag"], "lastModified": row["source_modified"],
                "contentHash": row["content_hash"]} if row else None

    # ------------------------------------------------------------ definitions (categories, keyword groups)

    def put_definition(self, kind: str, name: str, body: dict[str, Any], now: str) -> dict[str, str]:
        """Create or replace a definition; its creation date survives updates. Returns both dates."""
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            row = self.db.execute("SELECT date_created FROM definitions WHERE kind = ? AND name = ?",
                                  (kind, name)).fetchone()
            created = row["date_created"] if row else now
            self.db.execute("INSERT OR REPLACE INTO definitions VALUES (?, ?, ?, ?, ?)",
                            (kind, name, json.dumps(body), created, now))
        return {"dateCreated": created, "dateModified": now}

    def get_definition(self, kind: str, name: str) -> dict[str, Any] | None:
        row = self.db.execute("SELECT * FROM definitions WHERE kind = ? AND name = ?", (kind, name)).fetchone()
        return definition_row(row) if row else None

    def list_definitions(self, kind: str) -> builtins.list[dict[str, Any]]:
        rows = self.db.execute("SELECT * FROM definitions WHERE kind = ? ORDER BY name", (kind,))
        return [definition_row(r) for r in rows]

    def delete_definition(self, kind: str, name: str) -> bool:
        return self.db.execute("DELETE FROM definitions WHERE kind = ? AND name = ?", (kind, name)).rowcount > 0

    # ------------------------------------------------------------ the analytic index (corpus queries)

    def index(self, media_id: str, fields: dict[str, Any], metadata: dict[str, Any], metrics: dict[str, float],
              turns: builtins.list[builtins.list[Any]], text: str, insights: dict[str, Any] | None = None) -> None:
        """Add or replace one media item in the analytic index (fields: dateCreated, status, length, wordCount;
        insights: its reason, outcome, summary and answers)."""
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("DELETE FROM indexed_text WHERE media_id = ?", (media_id,))
            self.db.execute("INSERT OR REPLACE INTO indexed (media_id, date_created, status, length_ms, word_count, "
                            "metadata_json, metrics_json, turns_json, insights_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            (media_id, fields["dateCreated"], fields["status"], fields["length"], fields["wordCount"],
                             json.dumps(metadata), json.dumps(metrics), json.dumps(turns, separators=(",", ":")),
                             json.dumps(insights or {})))
            self.db.execute("INSERT INTO indexed_text (media_id, text) VALUES (?, ?)", (media_id, text))

    def indexed_summaries(self, text_query: str | None) -> builtins.list[dict[str, Any]]:
        """Indexed items (without their turns) whose text may match `text_query` (FTS5); all when None.

        The expression only narrows the candidates, so one that FTS5 cannot read (`fts5: ...`, such as
        its parser stack overflowing) gives every item rather than an error."""
        columns = ("i.media_id, i.date_created, i.status, i.length_ms, i.word_count, i.metadata_json, i.metrics_json, "
                   "i.insights_json")
        if text_query is None:
            rows = self.db.execute(f"SELECT {columns} FROM indexed i").fetchall()
        else:
            try:
                rows = self.db.execute(f"SELECT {columns} FROM indexed i JOIN (SELECT DISTINCT media_id FROM "
                                       f"indexed_text WHERE indexed_text MATCH ?) t ON t.media_id = i.media_id",
                                       (text_query,)).fetchall()
            except sqlite3.OperationalError as exc:
                if "fts5" not in str(exc).lower():
                    raise
                return self.indexed_summaries(None)
        return [{"mediaId": r["media_id"], "dateCreated": r["date_created"], "status": r["status"],
                 "length": r["length_ms"], "wordCount": r["word_count"], "metadata": json.loads(r["metadata_json"]),
                 "metrics": json.loads(r["metrics_json"]), "insights": json.loads(r["insights_json"])} for r in rows]

    def indexed_turns(self, media_id: str) -> builtins.list[builtins.list[Any]]:
        row = self.db.execute("SELECT turns_json FROM indexed WHERE media_id = ?", (media_id,)).fetchone()
        return json.loads(row["turns_json"]) if row else []

    def indexed_count(self) -> int:
        return self.db.execute("SELECT count(*) FROM indexed").fetchone()[0]


    # ------------------------------------------------------------ the callback outbox

    def outbox_add(self, deliveries: builtins.list[dict[str, Any]]) -> None:
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            for d in deliveries:
                self.db.execute(
                    "INSERT INTO outbox (delivery_id, media_id, position, url, method, kind, content_type, body, "
                    "body_path, contract, state, attempts, next_due, created, rules_json) VALUES (?, ?, ?, ?, ?, ?, "
                    "?, ?, ?, ?, 'pending', 0, ?, ?, ?)",
                    (d["id"], d["mediaId"], d["position"], d["url"], d["method"], d["type"], d["contentType"],
                     d.get("body"), path_key(d.get("bodyPath")), d["contract"], d["nextDue"], d["created"],
                     json.dumps({"allowHttp": bool(d.get("allowHttp")), "fileFolder": d.get("fileFolder")})))

    def outbox_claim(self, now: float, lease: float) -> builtins.list[dict[str, Any]]:
        """Pending deliveries due by `now`, leased for `lease` seconds so that an overlapping run skips them."""
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            rows = self.db.execute("SELECT * FROM outbox WHERE state = 'pending' AND next_due <= ? ORDER BY next_due, "
                                   "created, position", (now,)).fetchall()
            for row in rows:
                self.db.execute("UPDATE outbox SET next_due = ? WHERE delivery_id = ?", (now + lease, row["delivery_id"]))
        return [delivery_row(r) for r in rows]

    def outbox_record(self, delivery_id: str, *, attempts: int, state: str, next_due: float, first_try: float,
                      last_error: str | None) -> None:
        self.db.execute("UPDATE outbox SET attempts = ?, state = ?, next_due = ?, first_try = coalesce(first_try, ?), "
                        "last_error = ? WHERE delivery_id = ?",
                        (attempts, state, next_due, first_try, last_error, delivery_id))

    def outbox_start(self, delivery_id: str, *, attempts: int, first_try: float, last_error: str) -> None:
        """Count an attempt before it is made; `last_error` stands until its end is recorded."""
        self.db.execute("UPDATE outbox SET attempts = ?, first_try = coalesce(first_try, ?), last_error = ? "
                        "WHERE delivery_id = ?", (attempts, first_try, last_error, delivery_id))

    def outbox_list(self, states: tuple[str, ...]) -> builtins.list[dict[str, Any]]:
        marks = ", ".join("?" * len(states))
        rows = self.db.execute(f"SELECT * FROM outbox WHERE state IN ({marks}) ORDER BY created, position", states)
        return [delivery_row(r, with_body=False) for r in rows]

    # ------------------------------------------------------------ the record of the files speechproc wrote

    def record_output(self, path: str, sha256: str, media_id: str | None) -> None:
        """Remember that speechproc writes `sha256` content to the absolute `path`."""
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.db.execute("INSERT OR REPLACE INTO written (path, sha256, media_id, date_written) VALUES (?, ?, ?, ?)",
                        (path_key(path), sha256, media_id, now))

    def forget_other_outputs(self, path: str, sha256: str) -> None:
        """Keep only the latest content written to `path`."""
        self.db.execute("DELETE FROM written WHERE path = ? AND sha256 != ?", (path_key(path), sha256))

    def output_hashes(self, path: str) -> set[str]:
        """The SHA-256 of every content speechproc wrote to `path` that it still remembers (an export's
        file is not among them: only another export replaces it, see `export_hashes`)."""
        return {r[0] for r in self.db.execute("SELECT sha256 FROM written WHERE path = ? AND media_id IS NOT ?",
                                              (path_key(path), EXPORT_OWNER))}

    def export_hashes(self, path: str) -> set[str]:
        """The SHA-256 of what `speechproc export` wrote to `path`."""
        return {r[0] for r in self.db.execute("SELECT sha256 FROM written WHERE path = ? AND media_id IS ?",
                                              (path_key(path), EXPORT_OWNER))}

    def output_media(self, path: str) -> str | None:
        """The media item whose output speechproc wrote to `path`, if it wrote one there."""
        row = self.db.execute("SELECT media_id FROM written WHERE path = ? AND media_id IS NOT NULL "
                              "AND media_id IS NOT ? LIMIT 1", (path_key(path), EXPORT_OWNER)).fetchone()
        return row[0] if row else None

    def media_with_output_named(self, name: str) -> builtins.list[tuple[str, dict[str, str]]]:
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
