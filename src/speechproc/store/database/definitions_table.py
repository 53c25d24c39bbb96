"""The definitions table: what is stored by kind and name (categories, keyword groups, classifiers,
vocabularies, enrolled speakers, public keys), each a JSON body with its dates. The only module that speaks
its SQL; what a body holds is checked by the module of its kind (`definitions`, `vocabularies`, `speakers`,
`keys`, `registry`).
"""
from __future__ import annotations

import json
import sqlite3
from typing import Any, TypedDict

from speechproc.store.database.tables import immediate


class Dates(TypedDict):
    """When a definition was first stored and last replaced (v3 timestamps)."""

    dateCreated: str
    dateModified: str


class DefinitionsTable:
    """The stored definitions of one catalog connection. A definition reads back as its body with its
    `dateCreated` and `dateModified`."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def put(self, kind: str, name: str, body: Any, now: str) -> Dates:
        """Create or replace a definition (any JSON object); its creation date survives updates."""
        with immediate(self.db):
            row = self.db.execute("SELECT date_created FROM definitions WHERE kind = ? AND name = ?",
                                  (kind, name)).fetchone()
            created = row["date_created"] if row else now
            self.db.execute("INSERT OR REPLACE INTO definitions VALUES (?, ?, ?, ?, ?)",
                            (kind, name, json.dumps(body), created, now))
        return {"dateCreated": created, "dateModified": now}

    def get(self, kind: str, name: str) -> dict[str, Any] | None:
        """One definition with its dates; None when there is none of that kind and name."""
        row = self.db.execute("SELECT * FROM definitions WHERE kind = ? AND name = ?", (kind, name)).fetchone()
        return _read(row) if row else None

    def list(self, kind: str) -> list[dict[str, Any]]:
        """Every definition of a kind, with its dates, by name."""
        rows = self.db.execute("SELECT * FROM definitions WHERE kind = ? ORDER BY name", (kind,))
        return [_read(r) for r in rows]

    def delete(self, kind: str, name: str) -> bool:
        """Remove a definition; whether there was one."""
        return self.db.execute("DELETE FROM definitions WHERE kind = ? AND name = ?", (kind, name)).rowcount > 0


def _read(row: sqlite3.Row) -> dict[str, Any]:
    """A stored definition with its dates."""
    return {**json.loads(row["body_json"]), "dateCreated": row["date_created"], "dateModified": row["date_modified"]}
