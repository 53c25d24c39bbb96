"""Evaluate a parsed query on one transcript: does it hold, and which words made it hold (the hits).

A `Document` is a transcript cut into turns of normalised words, with an index from each word to where
it was said, plus the media item's fields, metadata and metrics. Matching is case-insensitive and
ignores punctuation; a wildcard `word*` matches any ending; a phrase with slop N matches its words in
order with at most N other words among them; a hit counts for a time window when it starts inside it.
"""
from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .parser import (
    ANYONE,
    CallAnd,
    CallNot,
    CallOr,
    Comparison,
    Statement,
    Term,
    TurnAnd,
    TurnNot,
    TurnOr,
    Window,
    normalise_word,
)


@dataclass(frozen=True, order=True)
class Hit:
    """Words first..last (inclusive) of one turn that satisfied a term."""

    s: int
    e: int
    turn: int
    first: int
    last: int
    speaker: str = field(compare=False)
    exact: str = field(compare=False)


@dataclass
class DocTurn:
    speaker: str
    words: list[str]  # normalised
    exact: list[str]  # as said
    starts: list[int]
    ends: list[int]


@dataclass
class Document:
    """One media item as the evaluator reads it."""

    turns: list[DocTurn]
    length_ms: int = 0
    fields: dict[str, Any] = field(default_factory=dict)  # mediaId, wordCount, length, dateCreated, status
    metadata: dict[str, Any] = field(default_factory=dict)
    metrics: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.index: dict[str, list[tuple[int, int]]] = {}
        for t, turn in enumerate(self.turns):
            for p, word in enumerate(turn.words):
                self.index.setdefault(word, []).append((t, p))
        self.vocabulary = sorted(self.index)
        self.fields.setdefault("wordCount", sum(len(t.words) for t in self.turns))
        self.fields.setdefault("length", self.length_ms)

    @classmethod
    def from_tokens(cls, tokens: Iterable[tuple[str, str, int, int, bool]], **kwargs: Any) -> Document:
        """From (speaker, word, s, e, starts_turn) in transcript order; punctuation-only words are skipped."""
        turns: list[DocTurn] = []
        for speaker, word, s, e, new_turn in tokens:
            norm = normalise_word(word)
            if not norm:
                continue
            if new_turn or not turns or turns[-1].speaker != speaker:
                turns.append(DocTurn(speaker, [], [], [], []))
            turn = turns[-1]
            turn.words.append(norm)
            turn.exact.append(word)
            turn.starts.append(s)
            turn.ends.append(e)
        return cls([t for t in turns if t.words], **kwargs)

    @classmethod
    def from_v3_words(cls, words: Sequence[dict[str, Any]], **kwargs: Any) -> Document:
        """From the `transcript.words` of a v3 media item (turn markers start turns; punctuation is skipped)."""
        def tokens() -> Iterable[tuple[str, str, int, int, bool]]:
            speaker, new_turn = "", True
            for w in words:
                flags = (w.get("m") or "").split("|")
                if "turn" in flags:
                    speaker, new_turn = w["w"], True
                elif "punc" not in flags:
                    yield speaker, w["w"], w["s"], w["e"], new_turn
                    new_turn = False
        return cls.from_tokens(tokens(), **kwargs)

    def positions(self, pattern: str) -> list[tuple[int, int]]:
        """(turn, word) positions of words matching a pattern (`word` or `prefix*`)."""
        if not pattern.endswith("*"):
            return self.index.get(pattern, [])
        prefix = pattern[:-1]
        out: list[tuple[int, int]] = []
        for i in range(bisect.bisect_left(self.vocabulary, prefix), len(self.vocabulary)):
            word = self.vocabulary[i]
            if not word.startswith(prefix):
                break
            out += self.index[word]
        return sorted(out)

    def hit(self, t: int, first: int, last: int) -> Hit:
        turn = self.turns[t]
        return Hit(turn.starts[first], turn.ends[last], t, first, last, turn.speaker,
                   " ".join(turn.exact[first: last + 1]))


def _matches(word: str, pattern: str) -> bool:
    return word.startswith(pattern[:-1]) if pattern.endswith("*") else word == pattern


def _same_speaker(wanted: str, speaker: str) -> bool:
    return wanted == ANYONE or wanted.casefold() == speaker.casefold()


def _in_windows(hit: Hit, windows: Sequence[Window], length_ms: int) -> bool:
    for w in windows:
        start = None if w.start is None else (w.start if w.start >= 0 else length_ms + w.start)
        end = None if w.end is None else (w.end if w.end >= 0 else length_ms + w.end)
        if (start is not None and hit.s < start) or (end is not None and hit.s > end):
            return False
    return True


def term_hits(term: Term, doc: Document) -> dict[int, list[Hit]]:
    """Turns in which the term is said, with each occurrence."""
    out: dict[int, list[Hit]] = {}
    span = len(term.words) + term.slop
    for t, p in doc.positions(term.words[0]):
        turn = doc.turns[t]
        if not _same_speaker(term.speaker, turn.speaker):
            continue
        last, ok = p, True
        for pattern in term.words[1:]:
            j = last + 1
            limit = min(len(turn.words), p + span)
            while j < limit and not _matches(turn.words[j], pattern):
                j += 1
            if j >= limit:
                ok = False
                break
            last = j
        if ok:
            hit = doc.hit(t, p, last)
            if _in_windows(hit, term.windows, doc.length_ms):
                out.setdefault(t, []).append(hit)
    return out


def turn_hits(node: object, doc: Document) -> dict[int, list[Hit]]:
    """Turns where a within-turn expression holds, with the hits that made it hold."""
    if isinstance(node, Term):
        return term_hits(node, doc)
    if isinstance(node, TurnAnd):
        left = turn_hits(node.left, doc)
        if not left:
            return {}
        right = turn_hits(node.right, doc)
        return {t: left[t] + right[t] for t in left if t in right}
    if isinstance(node, TurnOr):
        left, right = turn_hits(node.left, doc), turn_hits(node.right, doc)
        return {t: left.get(t, []) + right.get(t, []) for t in sorted(set(left) | set(right))}
    if isinstance(node, TurnNot):
        inner = turn_hits(node.operand, doc)
        return {t: [] for t, turn in enumerate(doc.turns)
                if t not in inner and _same_speaker(node.speaker, turn.speaker)}
    raise TypeError(f"not a within-turn expression: {node!r}")


def field_value(name: str, doc: Document) -> Any:
    if name.startswith("metrics:"):
        return doc.metrics.get(name[len("metrics:"):])
    if name.startswith("metadata."):
        node: Any = doc.metadata
        for key in name[len("metadata."):].split("."):
            if not isinstance(node, dict):
                return None
            if key in node:
                node = node[key]
            else:
                folded = {k.casefold(): v for k, v in node.items()}
                if key.casefold() not in folded:
                    return None
                node = folded[key.casefold()]
        return node
    return doc.fields.get(name)


def compare(node: Comparison, doc: Document) -> bool:
    actual = field_value(node.field, doc)
    if actual is None or isinstance(actual, (dict, list)):
        return False
    wanted = node.value
    if isinstance(wanted, float):
        try:
            left, right = float(actual), wanted
        except (TypeError, ValueError):
            return False
    else:
        left, right = str(actual).casefold(), wanted.casefold()
    return {"=": left == right, "!=": left != right, "<": left < right, "<=": left <= right,
            ">": left > right, ">=": left >= right}[node.op]


def holds(node: object, doc: Document) -> tuple[bool, list[Hit]]:
    """Whether a condition holds on the whole call, and its hits."""
    if isinstance(node, (Term, TurnAnd, TurnOr, TurnNot)):
        found = turn_hits(node, doc)
        return bool(found), [h for t in sorted(found) for h in found[t]]
    if isinstance(node, CallAnd):
        ok, left = holds(node.left, doc)
        if not ok:
            return False, []
        ok, right = holds(node.right, doc)
        return (True, left + right) if ok else (False, [])
    if isinstance(node, CallOr):
        (lok, left), (rok, right) = holds(node.left, doc), holds(node.right, doc)
        return lok or rok, (left if lok else []) + (right if rok else [])
    if isinstance(node, CallNot):
        ok, _ = holds(node.operand, doc)
        return not ok, []
    if isinstance(node, Comparison):
        return compare(node, doc), []
    raise TypeError(f"not a condition: {node!r}")


def evaluate(statement: Statement, doc: Document) -> tuple[bool, list[Hit]]:
    """Whether the statement's condition holds on the document, and its distinct hits in time order."""
    if statement.condition is None:
        return True, []
    ok, hits = holds(statement.condition, doc)
    return ok, sorted(set(hits)) if ok else []
