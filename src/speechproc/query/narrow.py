"""An SQLite FTS5 expression that every media item satisfying a condition must match (a superset).

Terms become the AND of their words (order, slop, speaker and time windows are left to the
evaluator); AND and && intersect, OR and || unite; a negation or a field comparison cannot narrow.

FTS5 reads long flat chains (`a OR b OR c ...`) but overflows its parser stack on deep parentheses,
so the expression is built flat and kept small: at most MAX_WORDS words and MAX_NESTING levels of
parentheses. Where a part would go beyond, it is left out of an AND (fewer conditions still give a
superset) and an OR that holds it cannot narrow at all. Narrowing is only a prefilter: the
evaluator decides, so a coarser expression costs time, never a match.
"""
from __future__ import annotations

import re

from speechproc.query.tree import CallAnd, CallNot, CallOr, Comparison, Phrase, TurnAnd, TurnNot, TurnOr, reads_text

__all__ = ["MAX_NESTING", "MAX_WORDS", "reads_text", "text_filter"]

MAX_WORDS = 2000
MAX_NESTING = 8

_PARTS = re.compile(r"[^\W_]+", re.UNICODE)

# a filter is a quoted FTS5 phrase (str) or (operator, [filters]) with operator "AND" or "OR"
Filter = str | tuple[str, list]


def _word(pattern: str) -> str | None:
    prefix = pattern.endswith("*")
    parts = _PARTS.findall(pattern.rstrip("*"))
    if not parts:
        return None
    phrase = '"' + " ".join(parts) + '"'
    return phrase + "*" if prefix else phrase


def _size(item: Filter) -> int:
    """The number of phrases in a filter."""
    return 1 if isinstance(item, str) else sum(_size(x) for x in item[1])


def _flat(op: str, items: list[Filter]) -> list[Filter]:
    """`items` with those joined by the same operator spliced in: a AND (b AND c) is a AND b AND c."""
    out: list[Filter] = []
    for item in items:
        out += item[1] if isinstance(item, tuple) and item[0] == op else [item]
    return out


def _all(items: list[Filter | None]) -> Filter | None:
    """The AND of the parts that can narrow, as many as fit in MAX_WORDS (dropping one only widens)."""
    kept: list[Filter] = []
    words = 0
    for item in _flat("AND", [x for x in items if x is not None]):
        if words + _size(item) <= MAX_WORDS:
            kept.append(item)
            words += _size(item)
    if not kept:
        return None
    return kept[0] if len(kept) == 1 else ("AND", kept)


def _any(items: list[Filter | None]) -> Filter | None:
    """The OR of the parts; None when one of them cannot narrow or they hold too many words."""
    if any(x is None for x in items):
        return None
    flat = _flat("OR", [x for x in items if x is not None])  # all of them
    if sum(_size(x) for x in flat) > MAX_WORDS:
        return None
    return flat[0] if len(flat) == 1 else ("OR", flat)


def _build(node: object) -> Filter | None:
    if isinstance(node, Phrase):
        return _all([_word(p) for p in node.words])
    if isinstance(node, (TurnAnd, CallAnd)):
        return _all([_build(x) for x in node.operands])
    if isinstance(node, (TurnOr, CallOr)):
        return _any([_build(x) for x in node.operands])
    if isinstance(node, (TurnNot, CallNot, Comparison)) or node is None:
        return None
    raise TypeError(f"not a condition: {node!r}")


def _shallow(item: Filter | None, level: int = 0) -> Filter | None:
    """`item` cut to MAX_NESTING levels of parentheses: an AND keeps what fits, an OR too deep is None."""
    if item is None or isinstance(item, str):
        return item
    op, parts = item
    if level >= MAX_NESTING:
        return _all([x for x in parts if isinstance(x, str)]) if op == "AND" else None
    inner = [_shallow(x, level + 1) if isinstance(x, tuple) else x for x in parts]
    return _all(inner) if op == "AND" else _any(inner)


def _render(item: Filter) -> str:
    if isinstance(item, str):
        return item
    op, parts = item
    return f" {op} ".join(x if isinstance(x, str) else f"({_render(x)})" for x in parts)


def text_filter(node: object) -> str | None:
    """The FTS5 MATCH expression for `node`, or None when any media item may satisfy it."""
    item = _shallow(_build(node))
    return None if item is None else _render(item)
