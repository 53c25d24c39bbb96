"""Tokens of the query language, each with its character position."""
from __future__ import annotations

import re
from dataclasses import dataclass

from speechproc.query.errors import QuerySyntaxError

MAX_NUMBER_DIGITS = 15  # digits in one number, before and after the point together

KEYWORDS = frozenset({"SELECT", "FROM", "WHERE", "ORDER", "BY", "ASC", "DESC", "LIMIT", "OFFSET", "MATCH",
                      "SAYS", "AND", "OR", "NOT"})


@dataclass(frozen=True)
class Lexeme:
    kind: str  # KEYWORD, NAME, STRING, NUMBER, OP, END
    text: str  # for STRING the unquoted text; for KEYWORD upper case
    position: int
    unit: str = ""  # for NUMBER: "s", "ms", "m" or ""


_PATTERNS = [
    ("SPACE", r"\s+"),
    ("STRING", r"'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.)*\""),
    ("NUMBER", r"-?\d+(?:\.\d+)?(?:ms|s|m)?(?![\w])"),
    ("OP", r"&&|\|\||<=|>=|!=|<>|[()\[\],*/=<>!]"),
    ("NAME", r"[A-Za-z_][\w]*(?:[.:][A-Za-z_][\w-]*)*[.:]?"),
]
_MASTER = re.compile("|".join(f"(?P<{name}>{pattern})" for name, pattern in _PATTERNS))
_NUMBER = re.compile(r"(-?\d+(?:\.\d+)?)(ms|s|m)?$")


def _unquote(raw: str) -> str:
    body = raw[1:-1]
    if raw[0] == "'":
        body = body.replace("''", "'")
    return re.sub(r"\\(.)", r"\1", body)


def tokenize(query: str) -> list[Lexeme]:
    """The tokens of `query`, ending with an END token; raise QuerySyntaxError on a stray character."""
    tokens: list[Lexeme] = []
    pos = 0
    while pos < len(query):
        match = _MASTER.match(query, pos)
        if match is None:
            if query[pos] in "'\"":
                raise QuerySyntaxError("unterminated string", pos, query)
            raise QuerySyntaxError(f"unexpected character {query[pos]!r}", pos, query)
        kind, text = match.lastgroup, match.group()
        assert kind is not None  # each alternative of the master pattern is a named group
        if kind == "STRING":
            tokens.append(Lexeme("STRING", _unquote(text), pos))
        elif kind == "NUMBER":
            parts = _NUMBER.match(text)
            assert parts is not None  # what the master pattern calls a NUMBER
            number, unit = parts.groups()
            if sum(c.isdigit() for c in number) > MAX_NUMBER_DIGITS:
                raise QuerySyntaxError(f"a number may have at most {MAX_NUMBER_DIGITS} digits", pos, query)
            tokens.append(Lexeme("NUMBER", number, pos, unit or ""))
        elif kind == "NAME" and text.upper() in KEYWORDS:
            tokens.append(Lexeme("KEYWORD", text.upper(), pos))
        elif kind != "SPACE":
            tokens.append(Lexeme(kind, text, pos))
        pos = match.end()
    tokens.append(Lexeme("END", "", len(query)))
    return tokens
