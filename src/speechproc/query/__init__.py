"""The v3 query language (VBQL): lexer, parser and evaluator, shared by categories and corpus queries."""
from .errors import QuerySyntaxError
from .evaluator import Document, Hit, evaluate
from .parser import Statement, parse, parse_condition

__all__ = ["Document", "Hit", "QuerySyntaxError", "Statement", "evaluate", "parse", "parse_condition"]
