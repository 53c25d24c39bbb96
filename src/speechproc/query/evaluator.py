"""Evaluate a parsed query on one transcript: does it hold, and which words made it hold (the hits).

A `Document` is a transcript cut into turns of normalised words, with an index from each word to where
it was said, plus the media item's fields, metadata and metrics. Matching is case-insensitive and
ignores punctuation; a wildcard `word*` matches any ending; a phrase with slop N matches its words in
order with at most N other words among them; a hit counts for a time window when it starts inside it.
Chains (AND, OR, &&, ||) are flat nodes evaluated in loops, so recursion goes only as deep as the
query's parentheses and SAYS, which the parser bounds.
"""
from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict, TypeVar

from speechproc.query.tree import (
    ANYONE,
    CallAnd,
    CallNot,
    CallOr,
    Comparison,
    Phrase,
    Statement,
    TurnAnd,
    TurnNot,
    TurnOr,
    Window,
    normalise_word,
)
from speechproc.results import JsonObject


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


class DocTurn:
    """One turn: normalised words, the words as said, and their times.

    `exact`, `starts` and `ends` may also be given in the index's packed form (words joined by spaces,
    times joined by commas; `exact` None when it equals `words`) and are unpacked on first use, since
    a corpus query reads times only for the few turns that hold a hit."""

    __slots__ = ("speaker", "words", "_exact", "_starts", "_ends", "_text")

    def __init__(self, speaker: str, words: list[str] | str, exact: list[str] | str | None,
                 starts: list[int] | str, ends: list[int] | str) -> None:
        self.speaker = speaker
        self._text = " " + words if isinstance(words, str) else None
        self.words = words.split(" ") if isinstance(words, str) else words
        self._exact, self._starts, self._ends = exact, starts, ends

    def may_hold(self, prefix: str) -> bool:
        """False when no word of the turn starts with `prefix` (a fast test on the joined words)."""
        if self._text is None:
            self._text = " " + " ".join(self.words)
        return " " + prefix in self._text

    @property
    def exact(self) -> list[str]:
        if self._exact is None:
            self._exact = self.words
        elif isinstance(self._exact, str):
            self._exact = self._exact.split(" ")
        return self._exact

    @property
    def starts(self) -> list[int]:
        if isinstance(self._starts, str):
            self._starts = [int(x) for x in self._starts.split(",")]
        return self._starts

    @property
    def ends(self) -> list[int]:
        if isinstance(self._ends, str):
            self._ends = [int(x) for x in self._ends.split(",")]
        return self._ends

    def packed(self) -> list:
        """[speaker, words, exact or None, starts, ends], strings joined, as the index keeps a turn."""
        exact: list[str] | str | None = None if self.exact == self.words else " ".join(self.exact)
        if exact is not None and any(" " in w for w in self.exact):
            exact = self.exact  # a word with a space inside stays a list
        words = " ".join(self.words) if not any(" " in w for w in self.words) else self.words
        return [self.speaker, words, exact, ",".join(map(str, self.starts)),
                ",".join(map(str, self.ends))]


class DocumentFields(TypedDict, total=False):
    """The media fields a query compares (`WHERE length > 60000`); a document always has wordCount and length."""

    mediaId: str
    dateCreated: str
    status: str
    length: int  # ms
    wordCount: int


class Document:
    """One media item as the evaluator reads it. `turns` may come from a loader, called on first use,
    so that a corpus query reads a transcript only when its field conditions pass."""

    def __init__(self, turns: list[DocTurn] | None = None, length_ms: int = 0, fields: DocumentFields | None = None,
                 metadata: JsonObject | None = None, metrics: dict[str, float] | None = None,
                 loader: Callable[[], list[DocTurn]] | None = None, insights: dict[str, str] | None = None) -> None:
        self._turns, self._loader = turns, loader
        self.length_ms = length_ms
        self.fields: DocumentFields = fields.copy() if fields else {}
        self.metadata = metadata or {}  # as given
        self.metrics = metrics or {}
        self.insights = insights or {}  # `documents.insights_fields`: reason, outcome, summary, answer.NAME
        if "wordCount" not in self.fields:
            self.fields["wordCount"] = sum(len(t.words) for t in self.turns)
        self.fields.setdefault("length", length_ms)
        self._index: dict[str, list[tuple[int, int]]] | None = None
        self._lookups = 0

    @property
    def turns(self) -> list[DocTurn]:
        if self._turns is None:
            self._turns = self._loader() if self._loader else []
        return self._turns

    def _build_index(self) -> None:
        self._index = {}
        for t, turn in enumerate(self.turns):
            for p, word in enumerate(turn.words):
                self._index.setdefault(word, []).append((t, p))
        self.vocabulary = sorted(self._index)

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

    def positions(self, pattern: str) -> list[tuple[int, int]]:
        """(turn, word) positions of words matching a pattern (`word` or `prefix*`), in order.

        The first lookups scan the words (a corpus query looks up a few words in many documents);
        from the third on, an inverted index is built once (categories look up many words in one)."""
        self._lookups += 1
        if self._index is None and self._lookups > 2:
            self._build_index()
        if self._index is None:
            return self._scan(pattern)
        if not pattern.endswith("*"):
            return self._index.get(pattern, [])
        prefix = pattern[:-1]
        out: list[tuple[int, int]] = []
        for i in range(bisect.bisect_left(self.vocabulary, prefix), len(self.vocabulary)):
            word = self.vocabulary[i]
            if not word.startswith(prefix):
                break
            out += self._index[word]
        return sorted(out)

    def _scan(self, pattern: str) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        if pattern.endswith("*"):
            prefix = pattern[:-1]
            for t, turn in enumerate(self.turns):
                if turn.may_hold(prefix):
                    out += [(t, p) for p, w in enumerate(turn.words) if w.startswith(prefix)]
            return out
        for t, turn in enumerate(self.turns):
            if pattern in turn.words:
                out += [(t, p) for p, w in enumerate(turn.words) if w == pattern]
        return out

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


def term_hits(term: Phrase, doc: Document) -> dict[int, list[Hit]]:
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
    if isinstance(node, Phrase):
        return term_hits(node, doc)
    if isinstance(node, TurnAnd):
        found = turn_hits(node.operands[0], doc)
        for operand in node.operands[1:]:
            if not found:
                return {}
            more = turn_hits(operand, doc)
            found = {t: found[t] + more[t] for t in found if t in more}
        return found
    if isinstance(node, TurnOr):
        united: dict[int, list[Hit]] = {}
        for operand in node.operands:
            for t, hits in turn_hits(operand, doc).items():
                united.setdefault(t, []).extend(hits)
        return {t: united[t] for t in sorted(united)}
    if isinstance(node, TurnNot):
        inner = turn_hits(node.operand, doc)
        return {t: [] for t, turn in enumerate(doc.turns)
                if t not in inner and _same_speaker(node.speaker, turn.speaker)}
    raise TypeError(f"not a within-turn expression: {node!r}")


def field_value(name: str, doc: Document) -> Any:
    if name.startswith("insights."):
        return doc.insights.get(name[len("insights."):])
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
            number = float(actual)
        except (TypeError, ValueError):
            return False
        return _compared(node.op, number, wanted)
    return _compared(node.op, str(actual).casefold(), wanted.casefold())


_Ordered = TypeVar("_Ordered", float, str)


def _compared(op: str, left: _Ordered, right: _Ordered) -> bool:
    return {"=": left == right, "!=": left != right, "<": left < right, "<=": left <= right,
            ">": left > right, ">=": left >= right}[op]


def holds(node: object, doc: Document) -> tuple[bool, list[Hit]]:
    """Whether a condition holds on the whole call, and its hits."""
    if isinstance(node, (Phrase, TurnAnd, TurnOr, TurnNot)):
        found = turn_hits(node, doc)
        return bool(found), [h for t in sorted(found) for h in found[t]]
    if isinstance(node, CallAnd):
        every: list[Hit] = []
        for operand in node.operands:  # conditions that need no transcript come first (see the parser)
            ok, hits = holds(operand, doc)
            if not ok:
                return False, []
            every += hits
        return True, every
    if isinstance(node, CallOr):
        any_ok, some = False, []
        for operand in node.operands:
            ok, hits = holds(operand, doc)
            if ok:
                any_ok = True
                some += hits
        return any_ok, some
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
