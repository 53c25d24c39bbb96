"""The filters of the v3 media listing (`GET /media`): parsed and checked here, applied by the catalog.

`query` is a full-text search: every term must be found, as a whole word, in the item's metadata or
transcript; `field:term` looks in one metadata field only (`title:Frost`, `extended.queue:billing`);
a term ending in `*` matches words that start with it. `extendedFilter` takes `Name;Value` (or
`Name:Value`): the value of `metadata.extended.Name` (dots go deeper) equals Value, compared as text.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timezone
from typing import Any

from speechproc import errors as E
from speechproc import results

MAX_LIMIT = 1000
DEFAULT_LIMIT = 100
MAX_QUERY_CHARS = 1000
MAX_QUERY_TERMS = 32
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


@dataclass(frozen=True)
class Term:
    """One full-text term: lower-case words in order; `field` None searches everywhere."""

    words: tuple[str, ...]
    field: str | None = None
    prefix: bool = False


@dataclass(frozen=True)
class MediaFilter:
    """What `speechproc media list` selects; dates are v3 timestamps (UTC, milliseconds, `Z`)."""

    limit: int = DEFAULT_LIMIT
    ascending: bool = False
    external_id: str | None = None
    created_from: str | None = None  # inclusive
    created_to: str | None = None  # inclusive
    after: str | None = None  # a mediaId: items created after it
    before: str | None = None  # a mediaId: items created before it
    terms: tuple[Term, ...] = ()
    extended: tuple[tuple[tuple[str, ...], str], ...] = ()

    def needs_items(self) -> bool:
        """Whether rows must be read and checked one by one (full text or extended metadata)."""
        return bool(self.terms or self.extended)

    def accepts(self, item: results.MediaItem) -> bool:
        """Whether a stored media item passes the full-text and extended-metadata filters."""
        metadata = item.get("metadata") or {}
        for path, value in self.extended:
            found = _lookup(metadata.get("extended"), path)
            if found is None or _text(found) != value:
                return False
        return all(_term_found(term, item, metadata) for term in self.terms)


def _bad(name: str, message: str) -> E.ConfigurationError:
    return E.ConfigurationError(E.INVALID_VALUE, f"{name}: {message}")


def _check_text(name: str, value: str, longest: int = 256) -> str:
    if not value.strip():
        raise _bad(name, "must not be empty")
    if len(value) > longest:
        raise _bad(name, f"longer than {longest} characters")
    if any(ord(c) < 32 for c in value):
        raise _bad(name, "must not contain control characters")
    return value


def parse_date(name: str, value: str, end_of_day: bool) -> str:
    """`YYYY-MM-DD` or an ISO 8601 date and time (UTC when no offset) as a v3 timestamp.

    A bare date is the start of that day, or with `end_of_day` its last millisecond."""
    value = _check_text(name, value, 64).strip()
    try:
        if len(value) == 10:
            day = date.fromisoformat(value)
            moment = datetime(day.year, day.month, day.day, tzinfo=timezone.utc)
            if end_of_day:
                moment = moment.replace(hour=23, minute=59, second=59, microsecond=999000)
        else:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=timezone.utc)
            moment = moment.astimezone(timezone.utc)
    except (ValueError, OverflowError):
        raise _bad(name, f"{value!r} is not a date (YYYY-MM-DD) or an ISO 8601 date and time") from None
    return stamp(moment)


def stamp(moment: datetime) -> str:
    """A v3 timestamp; the year always four digits, so that timestamps compare as text."""
    return f"{moment.year:04d}-{moment:%m-%dT%H:%M:%S}.{moment.microsecond // 1000:03d}Z"


def parse_query(text: str) -> tuple[Term, ...]:
    """Full-text terms of `query`: words, `field:word`, `word*`; quotes keep a phrase together."""
    _check_text("query", text, MAX_QUERY_CHARS)
    terms = []
    for match in re.finditer(r'(?:([A-Za-z][\w.]*):)?("[^"]*"|\S+)', text):
        field, raw = match.group(1), match.group(2).strip('"')
        prefix = raw.endswith("*")
        words = tuple(w.lower() for w in _WORD.findall(raw))
        if not words:
            continue
        terms.append(Term(words, field, prefix))
    if not terms:
        raise _bad("query", "has no word to search for")
    if len(terms) > MAX_QUERY_TERMS:
        raise _bad("query", f"has more than {MAX_QUERY_TERMS} terms")
    return tuple(terms)


def parse_extended(filters: list[str] | tuple[str, ...]) -> tuple[tuple[tuple[str, ...], str], ...]:
    """`Name;Value` (or `Name:Value`) pairs; Name may be dotted (`team.id`)."""
    parsed = []
    for raw in filters:
        _check_text("extendedFilter", raw)
        sep = ";" if ";" in raw else ":"
        name, found, value = raw.partition(sep)
        if not found or not name.strip():
            raise _bad("extendedFilter", f"{raw!r} is not of the form Name;Value")
        path = tuple(part.strip() for part in name.split("."))
        if not all(path):
            raise _bad("extendedFilter", f"{raw!r} has an empty name part")
        parsed.append((path, value))
    return tuple(parsed)


def media_filter(limit: int = DEFAULT_LIMIT, sort_order: str = "desc", query: str | None = None,
                 external_id: str | None = None, after: str | None = None, before: str | None = None,
                 on_or_after: str | None = None, on_or_before: str | None = None,
                 extended: list[str] | tuple[str, ...] = ()) -> MediaFilter:
    """Check the listing parameters; raise ConfigurationError (10009) naming the bad one."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise _bad("limit", f"must be a whole number from 1 to {MAX_LIMIT}")
    if sort_order not in ("asc", "desc"):
        raise _bad("sortOrder", "must be asc or desc")
    created_from = parse_date("onOrAfterDate", on_or_after, end_of_day=False) if on_or_after is not None else None
    created_to = parse_date("onOrBeforeDate", on_or_before, end_of_day=True) if on_or_before is not None else None
    return MediaFilter(
        limit=limit, ascending=sort_order == "asc",
        external_id=_check_text("externalId", external_id) if external_id is not None else None,
        created_from=created_from, created_to=created_to,
        after=_check_text("after", after, 64) if after is not None else None,
        before=_check_text("before", before, 64) if before is not None else None,
        terms=parse_query(query) if query is not None else (),
        extended=parse_extended(extended))


def query_string(f: MediaFilter, raw: Mapping[str, Any]) -> str:
    """The `_links.self` query string of a listing, from the parameters given."""
    from urllib.parse import urlencode

    pairs = [(k, v) for k, v in raw.items() if v not in (None, (), []) and k != "extendedFilter"]
    pairs += [("extendedFilter", v) for v in raw.get("extendedFilter") or ()]
    return urlencode([("limit", f.limit), *pairs])


# ---------------------------------------------------------------- full text

def _lookup(node: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(node, dict):
            return None
        if key in node:
            node = node[key]
            continue
        folded = {str(k).lower(): v for k, v in node.items()}
        if key.lower() not in folded:
            return None
        node = folded[key.lower()]
    return node


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _strings(value: Any) -> list[str]:
    """Every string and number inside a metadata value."""
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [] if value is None else [_text(value)]


def _words(texts: list[str]) -> list[str]:
    return [w.lower() for text in texts for w in _WORD.findall(text)]


def _contains(haystack: list[str], term: Term) -> bool:
    n = len(term.words)
    for i in range(len(haystack) - n + 1):
        window = haystack[i : i + n]
        if window[:-1] == list(term.words[:-1]) and (
                window[-1].startswith(term.words[-1]) if term.prefix else window[-1] == term.words[-1]):
            return True
    return False


def _term_found(term: Term, item: results.MediaItem, metadata: Mapping[str, Any]) -> bool:
    if term.field is not None:
        path = tuple(term.field.split("."))
        return _contains(_words(_strings(_lookup(metadata, path))), term)
    transcript = item.get("transcript")
    words = (transcript.get("words") if transcript else None) or []
    spoken = _words([w.get("w", "") for w in words if w.get("m") not in ("turn", "punc")])
    return _contains(_words(_strings(metadata)), term) or _contains(spoken, term)
