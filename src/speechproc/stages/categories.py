"""Categories: each configured category's query evaluated on the transcript (v3 `categories[]`)."""
from __future__ import annotations

from functools import lru_cache

from .. import documents
from ..config import Settings
from ..conversation import CategoryResult, Conversation
from ..query import Statement, evaluate, parse_condition


@lru_cache(maxsize=1024)
def _statement(query: str) -> Statement:
    return parse_condition(query)


def evaluate_all(conv: Conversation, definitions: tuple[dict, ...]) -> list[CategoryResult]:
    doc = documents.from_conversation(conv)
    out = []
    for definition in definitions:
        matched, hits = evaluate(_statement(definition["query"]), doc)
        out.append(CategoryResult(definition["categoryName"], matched, documents.occurrences(hits)))
    return out


def run(conv: Conversation, settings: Settings) -> None:
    if settings.section("categories"):
        conv.categories = evaluate_all(conv, settings.categories)
