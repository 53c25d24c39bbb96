"""The SQLite catalog: media items with status, progress, outputs and results. The only module that speaks SQL."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from .paths import state_home

SCHEMA_VERSION = 4
_SCHEMA = """
CREATE TABLE IF NOT EXISTS media (
    media_id      TEXT PRIMARY KEY,
    input_path    TEXT NOT NULL,
    content_hash  TEXT,
    config_hash   TEXT,
    status        TEXT NOT NULL,
    date_created  TEXT NOT NULL,
    date_finished TEXT,
    item_json     TEXT NOT NULL,
    progress_json TEXT NOT NULL DEFAULT '[]',
    outputs_json  TEXT NOT NULL DEFAULT '{}',
    config_json   TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS media_by_date ON media (date_created);
CREATE INDEX IF NOT EXISTS media_by_input ON media (input_path, content_hash, config_hash, status);
CREATE TABLE IF NOT EXISTS definitions (
    kind          TEXT NOT NULL,
    name          TEXT NOT NULL,
    body_json     TEXT NOT NULL,
    date_created  TEXT NOT NULL,
    date_modified TEXT NOT NULL,
    PRIMARY KEY (kind, name)
);
CREATE TABLE IF NOT EXISTS indexed (
    media_id      TEXT PRIMARY KEY,
    date_created  TEXT NOT NULL,
    status        TEXT NOT NULL,
    length_ms     INTEGER NOT NULL,
    word_count    INTEGER NOT NULL,
    metadata_json TEXT NOT NULL,
    metrics_json  TEXT NOT NULL,
    turns_json    TEXT NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS indexed_text USING fts5(media_id UNINDEXED, text);
CREATE TABLE IF NOT EXISTS outbox (
    delivery_id   TEXT PRIMARY KEY,
    media_id      TEXT NOT NULL,
    position      INTEGER NOT NULL,
    url           TEXT NOT NULL,
    method        TEXT NOT NULL,
    kind          TEXT NOT NULL,
    content_type  TEXT NOT NULL,
    body          BLOB,
    body_path     TEXT,
    contract      TEXT NOT NULL,
    state         TEXT NOT NULL,
    attempts      INTEGER NOT NULL DEFAULT 0,
    next_due      REAL NOT NULL,
    first_try     REAL,
    last_error    TEXT,
    created       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS outbox_due ON outbox (state, next_due);
"""


class Catalog:
    """Media items in `$SPEECHPROC_HOME/catalog.sqlite3` (WAL mode, safe for overlapping runs)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else state_home() / "catalog.sqlite3"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA busy_timeout=30000")
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version < SCHEMA_VERSION:
            self.db.executescript(_SCHEMA)
            columns = {r["name"] for r in self.db.execute("PRAGMA table_info(media)")}
            if "config_json" not in columns:  # catalogs made before configurations were kept
                self.db.execute("ALTER TABLE media ADD COLUMN config_json TEXT NOT NULL DEFAULT '{}'")
            self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Catalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add(self, item: dict[str, Any], input_path: str, content_hash: str | None, config_hash: str,
            tasks: list[dict[str, Any]], configuration: dict[str, Any] | None = None) -> None:
        self.db.execute(
            "INSERT INTO media (media_id, input_path, content_hash, config_hash, status, date_created, "
            "item_json, progress_json, config_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (item["mediaId"], input_path, content_hash, config_hash, item["status"], item["dateCreated"],
             json.dumps(item), json.dumps(tasks), json.dumps(configuration or {})))

    def update(self, media_id: str, *, item: dict[str, Any] | None = None, tasks: list[dict[str, Any]] | None = None,
               outputs: dict[str, str] | None = None, content_hash: str | None = None) -> None:
        sets, args = [], []
        if item is not None:
            sets += ["status = ?", "date_finished = ?", "item_json = ?"]
            args += [item["status"], item.get("dateFinished"), json.dumps(item)]
        if tasks is not None:
            sets.append("progress_json = ?")
            args.append(json.dumps(tasks))
        if outputs is not None:
            sets.append("outputs_json = ?")
            args.append(json.dumps(outputs))
        if content_hash is not None:
            sets.append("content_hash = ?")
            args.append(content_hash)
        if sets:
            self.db.execute(f"UPDATE media SET {', '.join(sets)} WHERE media_id = ?", (*args, media_id))

    def get(self, media_id: str) -> dict[str, Any] | None:
        row = self.db.execute("SELECT * FROM media WHERE media_id = ?", (media_id,)).fetchone()
        return _decode(row) if row else None

    def list(self, limit: int = 100) -> list[dict[str, Any]]:
        rows = self.db.execute("SELECT * FROM media ORDER BY date_created DESC, rowid DESC LIMIT ?", (limit,))
        return [_decode(r) for r in rows]

    def find_finished(self, input_path: str, content_hash: str, config_hash: str) -> dict[str, Any] | None:
        row = self.db.execute(
            "SELECT * FROM media WHERE input_path = ? AND content_hash = ? AND config_hash = ? AND status = 'finished' "
            "ORDER BY date_created DESC, rowid DESC LIMIT 1", (input_path, content_hash, config_hash)).fetchone()
        return _decode(row) if row else None


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
        return _definition(row) if row else None

    def list_definitions(self, kind: str) -> list[dict[str, Any]]:
        rows = self.db.execute("SELECT * FROM definitions WHERE kind = ? ORDER BY name", (kind,))
        return [_definition(r) for r in rows]

    def delete_definition(self, kind: str, name: str) -> bool:
        return self.db.execute("DELETE FROM definitions WHERE kind = ? AND name = ?", (kind, name)).rowcount > 0

    # ------------------------------------------------------------ the analytic index (corpus queries)

    def index(self, media_id: str, fields: dict[str, Any], metadata: dict[str, Any], metrics: dict[str, float],
              turns: list[list[Any]], text: str) -> None:
        """Add or replace one media item in the analytic index (fields: dateCreated, status, length, wordCount)."""
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("DELETE FROM indexed_text WHERE media_id = ?", (media_id,))
            self.db.execute("INSERT OR REPLACE INTO indexed VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                            (media_id, fields["dateCreated"], fields["status"], fields["length"], fields["wordCount"],
                             json.dumps(metadata), json.dumps(metrics), json.dumps(turns, separators=(",", ":"))))
            self.db.execute("INSERT INTO indexed_text (media_id, text) VALUES (?, ?)", (media_id, text))

    def unindex(self, media_id: str) -> None:
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("DELETE FROM indexed_text WHERE media_id = ?", (media_id,))
            self.db.execute("DELETE FROM indexed WHERE media_id = ?", (media_id,))

    def indexed_summaries(self, text_query: str | None) -> list[dict[str, Any]]:
        """Indexed items (without their turns) whose text may match `text_query` (FTS5); all when None."""
        columns = "i.media_id, i.date_created, i.status, i.length_ms, i.word_count, i.metadata_json, i.metrics_json"
        if text_query is None:
            rows = self.db.execute(f"SELECT {columns} FROM indexed i")
        else:
            rows = self.db.execute(f"SELECT {columns} FROM indexed i JOIN (SELECT DISTINCT media_id FROM indexed_text "
                                   f"WHERE indexed_text MATCH ?) t ON t.media_id = i.media_id", (text_query,))
        return [{"mediaId": r["media_id"], "dateCreated": r["date_created"], "status": r["status"],
                 "length": r["length_ms"], "wordCount": r["word_count"], "metadata": json.loads(r["metadata_json"]),
                 "metrics": json.loads(r["metrics_json"])} for r in rows]

    def indexed_turns(self, media_id: str) -> list[list[Any]]:
        row = self.db.execute("SELECT turns_json FROM indexed WHERE media_id = ?", (media_id,)).fetchone()
        return json.loads(row["turns_json"]) if row else []

    def indexed_count(self) -> int:
        return self.db.execute("SELECT count(*) FROM indexed").fetchone()[0]


    # ------------------------------------------------------------ the callback outbox

    def outbox_add(self, deliveries: list[dict[str, Any]]) -> None:
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            for d in deliveries:
                self.db.execute(
                    "INSERT INTO outbox (delivery_id, media_id, position, url, method, kind, content_type, body, "
                    "body_path, contract, state, attempts, next_due, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                    "'pending', 0, ?, ?)",
                    (d["id"], d["mediaId"], d["position"], d["url"], d["method"], d["type"], d["contentType"],
                     d.get("body"), d.get("bodyPath"), d["contract"], d["nextDue"], d["created"]))

    def outbox_claim(self, now: float, lease: float) -> list[dict[str, Any]]:
        """Pending deliveries due by `now`, leased for `lease` seconds so that an overlapping run skips them."""
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            rows = self.db.execute("SELECT * FROM outbox WHERE state = 'pending' AND next_due <= ? ORDER BY next_due, "
                                   "created, position", (now,)).fetchall()
            for row in rows:
                self.db.execute("UPDATE outbox SET next_due = ? WHERE delivery_id = ?", (now + lease, row["delivery_id"]))
        return [_delivery(r) for r in rows]

    def outbox_record(self, delivery_id: str, *, attempts: int, state: str, next_due: float, first_try: float,
                      last_error: str | None) -> None:
        self.db.execute("UPDATE outbox SET attempts = ?, state = ?, next_due = ?, first_try = coalesce(first_try, ?), "
                        "last_error = ? WHERE delivery_id = ?",
                        (attempts, state, next_due, first_try, last_error, delivery_id))

    def outbox_list(self, states: tuple[str, ...]) -> list[dict[str, Any]]:
        marks = ", ".join("?" * len(states))
        rows = self.db.execute(f"SELECT * FROM outbox WHERE state IN ({marks}) ORDER BY created, position", states)
        return [_delivery(r, with_body=False) for r in rows]


def _delivery(row: sqlite3.Row, with_body: bool = True) -> dict[str, Any]:
    out = {"id": row["delivery_id"], "mediaId": row["media_id"], "position": row["position"], "url": row["url"],
           "method": row["method"], "type": row["kind"], "contentType": row["content_type"],
           "contract": row["contract"], "state": row["state"], "attempts": row["attempts"],
           "nextDue": row["next_due"], "firstTry": row["first_try"], "lastError": row["last_error"],
           "created": row["created"], "bodyPath": row["body_path"]}
    if with_body:
        out["body"] = row["body"]
    return out


def _definition(row: sqlite3.Row) -> dict[str, Any]:
    return {**json.loads(row["body_json"]), "dateCreated": row["date_created"], "dateModified": row["date_modified"]}


def _decode(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "media_id": row["media_id"], "input_path": row["input_path"], "status": row["status"],
        "item": json.loads(row["item_json"]), "tasks": json.loads(row["progress_json"]),
        "outputs": json.loads(row["outputs_json"]), "configuration": json.loads(row["config_json"]),
    }
