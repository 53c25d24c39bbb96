"""The analytic index: what corpus queries read of each indexed media item (`indexed`: its fields,
metadata, metrics, insights and turns) and its text for full-text search (`indexed_text`, FTS5). The only
module that speaks their SQL; `corpus.py` decides what goes in and evaluates queries over it.
"""
from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from typing import Any, TypedDict

from speechproc import results
from speechproc.store.database.tables import immediate

_SUMMARY_COLUMNS = ("i.media_id, i.date_created, i.status, i.length_ms, i.word_count, i.metadata_json, "
                    "i.metrics_json, i.insights_json")


class IndexFields(TypedDict):
    """The fields of an index entry that are columns of their own."""

    dateCreated: str
    status: str
    length: int  # ms
    wordCount: int


class IndexSummary(IndexFields):
    """An indexed item without its turns: what a query reads first."""

    mediaId: str
    metadata: dict[str, Any]  # as given (title, externalId, extended, ...)
    metrics: dict[str, float]
    insights: results.Insights


class IndexTable:
    """The analytic index of one catalog connection."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def put(self, media_id: str, fields: IndexFields, metadata: Mapping[str, Any], metrics: dict[str, float],
            turns: list[list[Any]], text: str, insights: results.Insights | None = None) -> None:
        """Add or replace one media item in the analytic index (insights: its reason, outcome, summary and
        answers)."""
        with immediate(self.db):
            self.db.execute("DELETE FROM indexed_text WHERE media_id = ?", (media_id,))
            self.db.execute("INSERT OR REPLACE INTO indexed (media_id, date_created, status, length_ms, word_count, "
                            "metadata_json, metrics_json, turns_json, insights_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            (media_id, fields["dateCreated"], fields["status"], fields["length"], fields["wordCount"],
                             json.dumps(metadata), json.dumps(metrics), json.dumps(turns, separators=(",", ":")),
                             json.dumps(insights or {})))
            self.db.execute("INSERT INTO indexed_text (media_id, text) VALUES (?, ?)", (media_id, text))

    def remove(self, media_id: str) -> None:
        """Take an item out of the analytic index."""
        with immediate(self.db):
            self.db.execute("DELETE FROM indexed WHERE media_id = ?", (media_id,))
            self.db.execute("DELETE FROM indexed_text WHERE media_id = ?", (media_id,))

    def set_metadata(self, media_id: str, metadata: Mapping[str, Any]) -> None:
        """Replace the metadata of an indexed item (nothing when it is not indexed)."""
        self.db.execute("UPDATE indexed SET metadata_json = ? WHERE media_id = ?", (json.dumps(metadata), media_id))

    def summaries(self, text_query: str | None) -> list[IndexSummary]:
        """Indexed items (without their turns) whose text may match `text_query` (FTS5); all when None.

        The expression only narrows the candidates, so one that FTS5 cannot read (`fts5: ...`, such as
        its parser stack overflowing) gives every item rather than an error."""
        if text_query is None:
            rows = self.db.execute(f"SELECT {_SUMMARY_COLUMNS} FROM indexed i").fetchall()
        else:
            try:
                rows = self.db.execute(f"SELECT {_SUMMARY_COLUMNS} FROM indexed i JOIN (SELECT DISTINCT media_id FROM "
                                       f"indexed_text WHERE indexed_text MATCH ?) t ON t.media_id = i.media_id",
                                       (text_query,)).fetchall()
            except sqlite3.OperationalError as exc:
                if "fts5" not in str(exc).lower():
                    raise
                return self.summaries(None)
        return [{"mediaId": r["media_id"], "dateCreated": r["date_created"], "status": r["status"],
                 "length": r["length_ms"], "wordCount": r["word_count"], "metadata": json.loads(r["metadata_json"]),
                 "metrics": json.loads(r["metrics_json"]), "insights": json.loads(r["insights_json"])} for r in rows]

    def turns(self, media_id: str) -> list[list[Any]]:
        """The turns of an indexed item, as `query.documents` keeps them; [] when it is not indexed."""
        row = self.db.execute("SELECT turns_json FROM indexed WHERE media_id = ?", (media_id,)).fetchone()
        return json.loads(row["turns_json"]) if row else []

    def count(self) -> int:
        """How many items are indexed."""
        return self.db.execute("SELECT count(*) FROM indexed").fetchone()[0]
