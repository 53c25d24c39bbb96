"""Categories: each configured category's query evaluated on the transcript (v3 `categories[]`)."""
from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from speechproc import errors as E
from speechproc.configuration import CategoryDefinition
from speechproc.conversation import CategoryResult, Conversation
from speechproc.query import QuerySyntaxError, Statement, documents, evaluate, parse_condition


@lru_cache(maxsize=1024)
def _statement(query: str) -> Statement:
    return parse_condition(query)


def _parsed(definition: CategoryDefinition) -> Statement:
    """The category's query; one stored before the query limits existed is a configuration error."""
    try:
        return _statement(definition["query"])
    except QuerySyntaxError as exc:
        raise E.ConfigurationError(E.INVALID_VALUE, f"category {definition['categoryName']!r} cannot be evaluated: "
                                   f"{exc.message} (position {exc.position + 1}); put it again") from None


def evaluate_all(conv: Conversation, definitions: Sequence[CategoryDefinition]) -> list[CategoryResult]:
    """The result of every category on the conversation, in the order given."""
    doc = documents.from_conversation(conv)
    out = []
    for definition in definitions:
        matched, hits = evaluate(_parsed(definition), doc)
        out.append(CategoryResult(definition["categoryName"], matched, documents.occurrences(hits)))
    return out


def run(conv: Conversation, definitions: Sequence[CategoryDefinition]) -> None:
    """Evaluate every category (definitions as stored) on the transcript."""
    conv.categories = evaluate_all(conv, definitions)
