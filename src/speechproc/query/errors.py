"""The one error of the query language: what is wrong, and where."""
from __future__ import annotations


class QuerySyntaxError(ValueError):
    """A query that cannot be read; `position` is the 0-based character offset of the problem."""

    def __init__(self, message: str, position: int, query: str) -> None:
        self.message, self.position, self.query = message, position, query
        pointer = f"\n  {query}\n  {' ' * position}^" if len(query) <= 200 else ""
        super().__init__(f"query syntax error at position {position + 1}: {message}{pointer}")
