"""An SQLite FTS5 expression that every media item satisfying a condition must match (a superset).

Terms become the AND of their words (order, slop, speaker and time windows are left to the
evaluator); AND and && intersect, OR and || unite; a negation or a field comparison cannot narrow.
"""
from __future__ import annotations

import re

from .parser import CallAnd, CallNot, CallOr, Comparison, Term, TurnAnd, TurnNot, TurnOr, reads_text

__all__ = ["reads_text", "text_filter"]

_PARTS = re.compile(r"[^\W_]+", re.UNICODE)


def _word(pattern: str) -> str | None:
    prefix = pattern.endswith("*")
    parts = _PARTS.findall(pattern.rstrip("*"))
    if not parts:
        return None
    phrase = '"' + " ".join(parts) + '"'
    return phrase + "*" if prefix else phrase


def _join(left: str | None, right: str | None, op: str) -> str | None:
    if op == "AND":
        if left is None or right is None:
            return left or right
        return f"({left}) AND ({right})"
    if left is None or right is None:
        return None
    return f"({left}) OR ({right})"


def text_filter(node: object) -> str | None:
    """The FTS5 MATCH expression for `node`, or None when any media item may satisfy it."""
    if isinstance(node, Term):
        words = [w for w in (_word(p) for p in node.words) if w]
        return " AND ".join(words) if words else None
    if isinstance(node, (TurnAnd, CallAnd)):
        return _join(text_filter(node.left), text_filter(node.right), "AND")
    if isinstance(node, (TurnOr, CallOr)):
        return _join(text_filter(node.left), text_filter(node.right), "OR")
    if isinstance(node, (TurnNot, CallNot, Comparison)) or node is None:
        return None
    raise TypeError(f"not a condition: {node!r}")
