"""The parsed query: a small tree of frozen dataclasses, the limits that keep it small, and how words
are normalised for matching."""
from __future__ import annotations

from dataclasses import dataclass

ANYONE = "*"
COMPARISONS = ("=", "!=", "<>", "<", "<=", ">", ">=")
FIELDS = ("mediaId", "wordCount", "length", "dateCreated", "status")
INSIGHT_FIELDS = ("outcome", "reason", "summary")  # and answer.NAME: a quality question's yes, no or unclear
MAX_LIMIT = 10000
MAX_OFFSET = 10**9
DEFAULT_LIMIT = 10
MAX_QUERY_LENGTH = 50000  # characters
MAX_DEPTH = 32  # parentheses and SAYS inside one another
MAX_TERMS = 1000  # quoted terms and comparisons
MAX_SLOP = 50
MAX_WINDOW_MS = 24 * 3600 * 1000  # a time window bound: at most 24 hours either way


@dataclass(frozen=True)
class Window:
    """A time window in ms; negative values count back from the end of the call; None is open."""

    start: int | None = None
    end: int | None = None


@dataclass(frozen=True)
class Phrase:
    """A quoted word or phrase said by `speaker` (or anyone), `slop` extra words allowed around it."""

    words: tuple[str, ...]
    speaker: str = ANYONE
    slop: int = 0
    windows: tuple[Window, ...] = ()
    text: str = ""


@dataclass(frozen=True, init=False)
class _Chain:
    """Operands joined by one operator, in a flat tuple: `TurnOr(a, b, c)` is a || b || c."""

    operands: tuple

    def __init__(self, *operands: object) -> None:
        object.__setattr__(self, "operands", tuple(operands))


@dataclass(frozen=True, init=False)
class TurnAnd(_Chain):
    """Said within one turn, all of them."""


@dataclass(frozen=True, init=False)
class TurnOr(_Chain):
    """Said within one turn, any of them."""


@dataclass(frozen=True)
class TurnNot:
    operand: object
    speaker: str = ANYONE


@dataclass(frozen=True, init=False)
class CallAnd(_Chain):
    """All hold over the whole call; the parser puts operands that need no transcript first."""


@dataclass(frozen=True, init=False)
class CallOr(_Chain):
    """Any holds over the whole call."""


@dataclass(frozen=True)
class CallNot:
    operand: object


@dataclass(frozen=True)
class Comparison:
    """`field op value`: field is a name (wordCount, metadata.title, ...) or ("metrics", name)."""

    field: str
    op: str
    value: str | float
    position: int = 0


@dataclass(frozen=True)
class Order:
    field: str
    descending: bool = False


@dataclass(frozen=True)
class Statement:
    items: tuple[str, ...]  # "*", field names, "hits()"
    condition: object | None
    order: Order | None = None
    limit: int = DEFAULT_LIMIT
    offset: int = 0
    text: str = ""
    limited: bool = False  # whether the statement said LIMIT (else `limit` is the default)

    @property
    def wants_hits(self) -> bool:
        return "hits()" in self.items


TURN_NODES = (Phrase, TurnAnd, TurnOr, TurnNot)
CHAINS = (TurnAnd, TurnOr, CallAnd, CallOr)


def reads_text(node: object) -> bool:
    """Whether evaluating `node` needs the transcript (it has a term somewhere)."""
    if isinstance(node, Phrase):
        return True
    if isinstance(node, CHAINS):
        return any(reads_text(operand) for operand in node.operands)
    if isinstance(node, (TurnNot, CallNot)):
        return reads_text(node.operand)
    return False


def normalise_pattern(word: str) -> str:
    """A query word as the evaluator compares it: lower case, edge punctuation gone (a trailing * kept)."""
    star = word.endswith("*")
    core = normalise_word(word.rstrip("*"))
    return core + "*" if star and core else ("*" if star else core)


def normalise_word(word: str) -> str:
    """A transcript word as matching sees it: lower case, without punctuation at either end."""
    return word.lower().strip(".,?!;:\"“”‘’()[]{}<>$%&#@-'")
