"""The SQLite catalog: media items with status, progress, outputs and results. The only module that speaks SQL."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from .paths import state_home

SCHEMA_VERSION = 1
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
    outputs_json  TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS media_by_date ON media (date_created);
CREATE INDEX IF NOT EXISTS media_by_input ON media (input_path, content_hash, config_hash, status);
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
        if self.db.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
            self.db.executescript(_SCHEMA)
            self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Catalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add(self, item: dict[str, Any], input_path: str, content_hash: str | None, config_hash: str,
            tasks: list[dict[str, Any]]) -> None:
        self.db.execute(
            "INSERT INTO media (media_id, input_path, content_hash, config_hash, status, date_created, "
            "item_json, progress_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (item["mediaId"], input_path, content_hash, config_hash, item["status"], item["dateCreated"],
             json.dumps(item), json.dumps(tasks)))

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


def _decode(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "media_id": row["media_id"], "input_path": row["input_path"], "status": row["status"],
        "item": json.loads(row["item_json"]), "tasks": json.loads(row["progress_json"]),
        "outputs": json.loads(row["outputs_json"]),
    }
