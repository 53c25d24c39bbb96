"""The v3 query language (VBQL): lexer, parser and evaluator, shared by categories and corpus queries."""
from speechproc.query.errors import QuerySyntaxError
from speechproc.query.evaluator import Document, Hit, evaluate
from speechproc.query.parser import parse, parse_condition
from speechproc.query.tree import Statement

__all__ = ["Document", "Hit", "QuerySyntaxError", "Statement", "evaluate", "parse", "parse_condition"]
