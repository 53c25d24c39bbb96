"""Hostile queries and definitions: each is a clear error with its position (10009, exit 2), and what the
limits accept parses, evaluates and runs over the index, without deep recursion or an FTS5 failure."""
from __future__ import annotations

import json
import re
import sqlite3
import sys
from pathlib import Path

import pytest

from conftest import invoke
from speechproc import api
from speechproc.errors import ConfigurationError
from speechproc.query import QuerySyntaxError, documents, evaluate, parse, parse_condition
from speechproc.query.narrow import MAX_NESTING, MAX_WORDS, text_filter
from speechproc.query.tree import MAX_DEPTH, MAX_QUERY_LENGTH, MAX_TERMS, CallNot, Phrase, TurnOr
from speechproc.stages.matching import categories
from speechproc.store.collection import corpus
from speechproc.store.database.catalog import Catalog
from speechproc.store.registered import definitions
from text_helpers import conversation

DIGITS = "9" * 400
CALL = conversation(
    ("Agent", "Thank you for calling. How can I help?"),
    ("Caller", "I want a refund for my order."),
    ("Agent", "The refund is on its way."),
)
DOC = documents.from_conversation(CALL)


def error_of(query: str, parser=parse_condition) -> QuerySyntaxError:
    with pytest.raises(QuerySyntaxError) as caught:
        parser(query)
    return caught.value


def holds(query: str) -> tuple[bool, list[str]]:
    matched, hits = evaluate(parse_condition(query), DOC)
    return matched, [h.exact for h in hits]


def alternatives(n: int, last: str = "refund") -> str:
    """`* SAYS "zz0" || "zz1" || ... || "<last>"`: n terms, only the last one said."""
    return "* SAYS " + " || ".join([f'"zz{i}"' for i in range(n - 1)] + [f'"{last}"'])


def nested(levels: int) -> str:
    """Parentheses and SAYS `levels` deep, alternating AND and OR, true on CALL through its innermost term."""
    query = '* SAYS "refund"'
    for i in range(levels - 1):
        query = f'* SAYS "zz{i}" OR ({query})' if i % 2 else f'* SAYS "refund" AND ({query})'
    return query


def fts5_depth(expression: str) -> int:
    depth = deepest = 0
    for char in re.sub(r'"[^"]*"', "", expression):
        depth += char == "("
        depth -= char == ")"
        deepest = max(deepest, depth)
    return deepest


def with_recursion_limit(frames: int, func):
    """Run func with at most `frames` Python frames above the current one."""
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + frames)
    try:
        return func()
    finally:
        sys.setrecursionlimit(before)


# ------------------------------------------------------------------ the parser's limits


@pytest.mark.parametrize("query, position", [
    (f'* SAYS "refund" [{DIGITS}s,]', 17),
    (f'* SAYS "refund" [0s, -{DIGITS}]', 21),
    (f"SELECT * FROM media LIMIT {DIGITS}", 26),
    (f"SELECT * FROM media LIMIT 5 OFFSET {DIGITS}", 35),
    (f'* SAYS "refund order"/{DIGITS}', 22),
    (f"wordCount > {DIGITS}", 12),
    (f"SELECT * FROM media LIMIT {'9' * 5000}", 26),  # beyond what int() reads from text
    ('* SAYS "refund" [0s, 0.0000000000000001s]', 21),
])
def test_numbers_with_too_many_digits_are_refused_where_they_are(query, position):
    error = error_of(query)
    assert error.position == position and "at most 15 digits" in error.message


def test_a_window_bound_is_at_most_a_day_either_way():
    assert parse_condition('* SAYS "refund" [-1440m, 86400s]').condition.windows[0].end == 86_400_000
    for bound in ("1441m", "-86401s", "86400001ms"):
        error = error_of(f'* SAYS "refund" [0s, {bound}]' if "-" not in bound else f'* SAYS "refund" [{bound},]')
        assert "at most 24 hours" in error.message and error.position in (17, 21)


def test_one_hundred_and_twenty_two_parentheses_are_refused_at_the_first_too_deep():
    query = "(" * 122 + '* SAYS "refund"' + ")" * 122
    error = error_of(query)
    assert error.position == MAX_DEPTH and f"more than {MAX_DEPTH} levels" in error.message


def test_says_inside_says_counts_as_nesting():
    error = error_of("* SAYS " * 2000 + '"refund"')
    assert error.position == 7 * MAX_DEPTH and "levels deep" in error.message


def test_nesting_up_to_the_limit_parses_and_evaluates():
    assert holds(nested(MAX_DEPTH)) == (True, ["refund"] * 2)
    assert "levels deep" in error_of(nested(MAX_DEPTH + 1)).message


def test_two_thousand_nots_keep_their_meaning():
    assert holds("NOT " * 2000 + '* SAYS "refund"')[0] is True
    assert holds("NOT " * 2001 + '* SAYS "refund"')[0] is False
    assert parse_condition("NOT " * 2001 + '* SAYS "refund"').condition == CallNot(Phrase(("refund",), text="refund"))
    assert holds('"Caller" SAYS ' + "! " * 2000 + '"refund"')[0] is True
    assert holds('"Caller" SAYS ' + "! " * 2001 + '"refund"')[0] is False


def test_more_terms_than_allowed_are_refused_at_the_first_one_too_many():
    query = alternatives(MAX_TERMS + 1)
    error = error_of(query)
    assert error.position == query.index('"refund"') and f"more than {MAX_TERMS} terms" in error.message
    comparisons = " AND ".join(["wordCount > 1"] * (MAX_TERMS + 1))
    assert error_of(comparisons).position == comparisons.rindex("wordCount")


def test_a_query_longer_than_allowed_is_refused():
    query = '* SAYS "refund"' + " " * MAX_QUERY_LENGTH
    error = error_of(query, parse)
    assert error.position == MAX_QUERY_LENGTH and f"at most {MAX_QUERY_LENGTH}" in error.message


def test_long_chains_are_flat_and_need_no_deep_recursion():
    chain = parse_condition(alternatives(MAX_TERMS)).condition
    assert isinstance(chain, TurnOr) and len(chain.operands) == MAX_TERMS

    def run_all() -> list:
        out = []
        for query in (alternatives(MAX_TERMS), " AND ".join(['* SAYS "refund"'] * MAX_TERMS),
                      " OR ".join(['* SAYS "zz"'] * (MAX_TERMS - 1) + ['* SAYS "refund"']),
                      nested(MAX_DEPTH), "NOT " * 4000 + '* SAYS "refund"'):
            statement = parse_condition(query)
            out.append((evaluate(statement, DOC)[0], text_filter(statement.condition) is not None))
        return out

    assert with_recursion_limit(600, run_all) == [(True, True)] * 4 + [(True, False)]


def test_a_category_with_the_most_alternatives_evaluates():
    matched, hits = evaluate(parse_condition(alternatives(MAX_TERMS)), DOC)
    assert matched and [(h.speaker, h.exact) for h in hits] == [("Caller", "refund"), ("Agent", "refund")]


# ------------------------------------------------------------------ narrowing and the index


@pytest.mark.parametrize("query", [
    " AND ".join(f'* SAYS "w{i}"' for i in range(96)),
    "* SAYS " + " || ".join(f'"w{i}"' for i in range(96)),
    "* SAYS " + " && ".join(f'"w{i}"' for i in range(200)),
    alternatives(MAX_TERMS),
    nested(MAX_DEPTH),
    '* SAYS "' + " ".join(f"w{i}" for i in range(3000)) + '"',
])
def test_the_narrowing_expression_is_one_fts5_reads(query):
    expression = text_filter(parse_condition(query).condition)
    assert expression and fts5_depth(expression) <= MAX_NESTING
    assert expression.count('"') // 2 <= MAX_WORDS
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(text)")
    db.execute("INSERT INTO t VALUES ('w1 w2 refund')")
    db.execute("SELECT * FROM t WHERE t MATCH ?", (expression,)).fetchall()


def test_an_or_with_too_many_words_does_not_narrow_and_an_and_keeps_what_fits():
    phrases = "* SAYS " + " || ".join(f'"a{i} b{i} c{i}"' for i in range(MAX_WORDS // 3 + 1))
    assert text_filter(parse_condition(phrases).condition) is None
    assert text_filter(parse_condition(phrases + ' AND * SAYS "refund"').condition) == '"refund"'
    long_phrase = '* SAYS "' + " ".join(f"w{i}" for i in range(MAX_WORDS + 10)) + '"'
    assert text_filter(parse_condition(long_phrase).condition).count(" AND ") == MAX_WORDS - 1


ITEMS = [
    ("1", [("Agent", "Thank you for calling hostilequery."), ("Caller", "I want a refund for my order.")]),
    ("2", [("Agent", "Hello hostilequery."), ("Caller", "Please cancel my subscription.")]),
]


def index_items(catalog: Catalog) -> None:
    for suffix, turns in ITEMS:
        conv = conversation(*turns)
        conv.media_id = f"00000000-0000-4000-8000-0000000000f{suffix}"
        conv.date_created = f"2026-02-0{suffix}T00:00:00.000Z"
        corpus.index(catalog, conv)


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    with Catalog(tmp_path_factory.mktemp("hostile") / "catalog.sqlite3") as cat:
        index_items(cat)
        yield cat


def found(result: dict) -> list[str]:
    return [row["mediaId"][-1] for row in result["rows"]]


@pytest.mark.parametrize("condition, expected", [
    (" AND ".join(['* SAYS "hostilequery"'] * 119 + ['* SAYS "refund"']), ["1"]),
    ("* SAYS " + " || ".join([f'"w{i}"' for i in range(119)] + ['"cancel*"']), ["2"]),
    (alternatives(MAX_TERMS, "subscription"), ["2"]),
    (nested(MAX_DEPTH), ["1"]),
    ("NOT " * 2001 + '* SAYS "refund"', ["2"]),
])
def test_queries_at_the_limits_run_and_agree_with_evaluating_every_item(catalog, condition, expected, monkeypatch):
    statement = f"SELECT mediaId FROM media WHERE {condition}"
    narrowed = found(api.query(statement, catalog))
    monkeypatch.setattr(corpus, "text_filter", lambda condition: None)
    assert found(api.query(statement, catalog)) == narrowed == expected


def test_an_expression_fts5_cannot_read_gives_every_item(catalog):
    too_deep = "(" * 200 + '"refund"' + ")" * 200
    assert sorted(s["mediaId"][-1] for s in catalog.index.summaries(too_deep)) == ["1", "2"]


# ------------------------------------------------------------------ the CLI


def refused(code: int, body: object) -> str:
    assert code == 2, body
    assert body["status"] == 400 and body["warnings"][0]["code"] == 10009, body
    return body["warnings"][0]["message"]


@pytest.mark.parametrize("query, message", [
    (f'SELECT * FROM media WHERE * SAYS "a" [{DIGITS}s,]', "at most 15 digits"),
    (f"SELECT * FROM media LIMIT {DIGITS}", "at most 15 digits"),
    (f"SELECT * FROM media LIMIT 10 OFFSET {DIGITS}", "at most 15 digits"),
    (f'SELECT * FROM media WHERE * SAYS "a b"/{DIGITS}', "at most 15 digits"),
    ("SELECT * FROM media WHERE " + "(" * 122 + '* SAYS "a"' + ")" * 122, "levels deep"),
    ("SELECT * FROM media WHERE " + "* SAYS " * 2000 + '"a"', "levels deep"),
    ("SELECT * FROM media WHERE " + alternatives(3000), "terms"),
    ("SELECT * FROM media WHERE " + alternatives(5000), "characters; at most"),
    ("SELECT * FROM media WHERE " + alternatives(MAX_TERMS + 1), "terms"),
    ('SELECT * FROM media WHERE * SAYS "a" [0s, 1441m]', "24 hours"),
])
def test_cli_query_refuses_hostile_queries_with_the_position(query, message):
    text = refused(*invoke("query", query))
    assert message in text and "position" in text


def test_cli_query_with_many_terms_runs():
    with Catalog() as cat:
        index_items(cat)
    many_and = " AND ".join(['* SAYS "hostilequery"'] * 99 + ['* SAYS "refund"'])
    code, body = invoke("query", f"SELECT mediaId FROM media WHERE {many_and}")
    assert code == 0 and found(body) == ["1"]
    many_or = "* SAYS " + " || ".join([f'"w{i}"' for i in range(120)] + ['"subscription"'])
    code, body = invoke("query", f"SELECT mediaId FROM media WHERE * SAYS \"hostilequery\" AND {many_or}")
    assert code == 0 and found(body) == ["2"]
    code, body = invoke("query", "SELECT mediaId FROM media WHERE " + "NOT " * 2000 + '* SAYS "hostilequery"')
    assert code == 0 and sorted(found(body)) == ["1", "2"]


def put(tmp_path: Path, kind: str, name: str, body: dict) -> tuple[int, object]:
    path = tmp_path / "definition.json"
    path.write_text(json.dumps(body))
    return invoke(kind, "put", name, str(path))


def test_cli_put_refuses_a_category_beyond_the_limits_and_stores_nothing(tmp_path):
    for query in (alternatives(MAX_TERMS + 1), alternatives(3000), "NOT (" * 40 + '* SAYS "a"' + ")" * 40,
                  f'* SAYS "a" [{DIGITS}s,]'):
        refused(*put(tmp_path, "categories", "hostile-over", {"query": query}))
        assert invoke("categories", "get", "hostile-over")[0] == 1


def test_cli_put_stores_a_category_at_the_limit_and_it_evaluates(tmp_path):
    code, stored = put(tmp_path, "categories", "hostile-at", {"query": alternatives(MAX_TERMS)})
    assert code == 0 and stored["query"] == alternatives(MAX_TERMS)
    [result] = categories.evaluate_all(CALL, (api.get_definition("category", "hostile-at"),))
    assert result.matched and sum(len(o) for o in result.matches.values()) == 2


def test_a_category_stored_before_the_limits_is_a_configuration_error_naming_it(tmp_path):
    with Catalog(tmp_path / "catalog.sqlite3") as cat:
        cat.definitions.put("category", "legacy", {"categoryName": "legacy", "query": alternatives(3000)}, "now")
        definition = cat.definitions.get("category", "legacy")
    with pytest.raises(ConfigurationError, match="category 'legacy' cannot be evaluated"):
        categories.evaluate_all(CALL, (definition,))


@pytest.mark.parametrize("name", ["trail\n", "trail\r\n", "\ntrail", "tr\nail"])
def test_names_with_a_line_break_are_refused(name, tmp_path):
    for what in ("category", "keyword group", "classifier"):
        with pytest.raises(ConfigurationError, match="not allowed"):
            definitions.check_name(name, what)
    assert "not allowed" in refused(*put(tmp_path, "categories", name, {"query": '* SAYS "a"'}))
    assert "not allowed" in refused(*put(tmp_path, "groups", name, {"keywords": ["refund"]}))
    assert "not allowed" in refused(*invoke("classifiers", "put", name, str(tmp_path / "model.skops")))
    assert all(d["categoryName"].strip() != "trail" for d in invoke("categories", "list")[1]["categories"])
    assert all(g["groupName"].strip() != "trail" for g in invoke("groups", "list")[1]["groups"])
