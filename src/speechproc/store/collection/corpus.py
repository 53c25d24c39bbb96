"""Corpus-wide queries over the analytic index (the v3 analytics workbench), and indexing one item.

The FTS5 index narrows the candidates to media whose text may match; the same evaluator that
computes categories decides, so a corpus query and a category agree on every media item.
"""
from __future__ import annotations

import time
from collections.abc import Mapping
from functools import partial
from typing import Any, TypedDict

from speechproc.conversation import Conversation
from speechproc.query import Document, Hit, Statement, documents, evaluate
from speechproc.query.evaluator import field_value
from speechproc.query.narrow import text_filter
from speechproc.store.database import Catalog, IndexSummary

DEFAULT_ORDER = ("dateCreated", True)


class QueryHit(TypedDict):
    """Where a query's condition matched in an item: the span, its place in the call, the turn and speaker."""

    startMs: int
    endMs: int
    startRatio: float
    line: int
    speaker: str
    text: str


class QueryResult(TypedDict):
    """The v3 statement result (`POST /analytics/vbql`): the selected fields of each row, and its hits."""

    totalResults: int
    queryTimeMillis: int
    limit: int
    offset: int
    rows: list[dict[str, object]]
    hits: list[list[QueryHit]]


def index(catalog: Catalog, conv: Conversation, status: str = "finished") -> None:
    """Put a processed conversation into the analytic index (replacing an earlier version of it)."""
    catalog.index.put(conv.media_id, **documents.index_entry(conv, status))


def searchable(configuration: Mapping[str, Any]) -> bool:
    """Whether the items of this configuration may be found by corpus-wide searches (the analytic index,
    `media list --query`, the corpus report): not when `searchability.searchable` is false."""
    section = configuration.get("searchability") if isinstance(configuration, dict) else None
    return not (isinstance(section, dict) and section.get("searchable") is False)


def _sort_key(value: Any) -> tuple[int, Any]:
    return (0, value) if isinstance(value, (int, float)) else (1, str(value).casefold())


def _row(statement: Statement, summary: IndexSummary, doc: Document) -> dict[str, object]:
    row: dict[str, object] = {}
    if "*" in statement.items:
        row = {k: summary[k] for k in ("mediaId", "dateCreated", "status", "length", "wordCount", "metadata")}
    for item in statement.items:
        if item not in ("*", "hits()"):
            row[item] = field_value(item, doc)
    return row


def _hit(hit: Hit, length_ms: int) -> QueryHit:
    return {"startMs": hit.s, "endMs": hit.e, "startRatio": round(hit.s / length_ms, 4) if length_ms else 0.0,
            "line": hit.turn, "speaker": hit.speaker, "text": hit.exact}


def _page(statement: Statement, catalog: Catalog) -> tuple[int, list[tuple[IndexSummary, Document, list[Hit]]]]:
    """How many media items match, and the page of them the statement asks for, in its order."""
    matches: list[tuple[IndexSummary, Document, list[Hit]]] = []
    for summary in catalog.index.summaries(text_filter(statement.condition)):
        doc = documents.from_index(summary, partial(catalog.index.turns, summary["mediaId"]))
        ok, hits = evaluate(statement, doc)
        if ok:
            matches.append((summary, doc, hits))
    field_name, descending = (statement.order.field, statement.order.descending) if statement.order else DEFAULT_ORDER
    valued = [m for m in matches if field_value(field_name, m[1]) is not None]
    unvalued = [m for m in matches if field_value(field_name, m[1]) is None]
    valued.sort(key=lambda m: (_sort_key(field_value(field_name, m[1])), m[0]["mediaId"]), reverse=descending)
    return len(matches), (valued + unvalued)[statement.offset: statement.offset + statement.limit]  # unvalued last


def run(statement: Statement, catalog: Catalog) -> QueryResult:
    """The v3 statement result: {totalResults, queryTimeMillis, limit, offset, rows, hits}."""
    started = time.perf_counter()
    total, page = _page(statement, catalog)
    return {
        "totalResults": total,
        "queryTimeMillis": round((time.perf_counter() - started) * 1000),
        "limit": statement.limit,
        "offset": statement.offset,
        "rows": [_row(statement, summary, doc) for summary, doc, _ in page],
        "hits": [[_hit(h, summary["length"]) for h in hits] if statement.wants_hits else []
                 for summary, _, hits in page],
    }


def selected(statement: Statement, catalog: Catalog) -> list[str]:
    """The media ids a statement selects (its WHERE, ORDER BY, LIMIT and OFFSET), in its order."""
    return [summary["mediaId"] for summary, _, _ in _page(statement, catalog)[1]]
