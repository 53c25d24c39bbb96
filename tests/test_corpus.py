"""Corpus-wide queries over the analytic index: rows, hits, order, paging, and narrowing that never loses a match."""
from __future__ import annotations

import pytest

from speechproc import api
from speechproc.conversation import MetricValues
from speechproc.errors import ConfigurationError
from speechproc.query import parse
from speechproc.store.collection import corpus
from speechproc.store.database.catalog import Catalog
from text_helpers import conversation

CALLS = [
    ("a", "2026-01-01T00:00:00.000Z", {"title": "one", "extended": {"team": "red"}}, 0.7,
     [("Agent", "Thank you for calling. How can I help?"), ("Caller", "I want a refund for my order.")]),
    ("b", "2026-01-02T00:00:00.000Z", {"title": "two", "extended": {"team": "blue"}}, 0.4,
     [("Agent", "Hello. We refunded the payment yesterday."), ("Caller", "Thanks, goodbye.")]),
    ("c", "2026-01-03T00:00:00.000Z", {"title": "three"}, 0.5,
     [("Agent", "Good morning."), ("Caller", "Please cancel my subscription, do not renew it.")]),
]


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    with Catalog(tmp_path_factory.mktemp("corpus") / "catalog.sqlite3") as cat:
        for suffix, created, metadata, ratio, turns in CALLS:
            conv = conversation(*turns)
            conv.media_id = f"00000000-0000-4000-8000-00000000000{suffix}"
            conv.date_created, conv.metadata = created, metadata
            conv.metrics = [MetricValues("talk-time-and-rate", {"agent-talk-ratio": ratio})]
            corpus.index(cat, conv)
        yield cat


def ids(result: dict) -> list[str]:
    return [row["mediaId"][-1] for row in result["rows"]]


def test_rows_hits_and_counts(catalog):
    result = api.query('SELECT mediaId, metadata.title, hits() FROM media WHERE * SAYS "refund*"', catalog)
    assert result["totalResults"] == 2 and isinstance(result["queryTimeMillis"], int)
    assert ids(result) == ["b", "a"]  # newest first by default
    assert result["rows"][0] == {"mediaId": "00000000-0000-4000-8000-00000000000b", "metadata.title": "two"}
    hit = result["hits"][1][0]
    assert hit["speaker"] == "Caller" and hit["text"] == "refund" and hit["line"] == 1
    assert 0 < hit["startMs"] < hit["endMs"] and 0 < hit["startRatio"] < 1


def test_select_star_order_limit_offset(catalog):
    everything = api.query("SELECT * FROM media ORDER BY metrics:\"agent-talk-ratio\" DESC", catalog)
    assert ids(everything) == ["a", "c", "b"] and everything["totalResults"] == 3
    assert set(everything["rows"][0]) == {"mediaId", "dateCreated", "status", "length", "wordCount", "metadata"}
    assert everything["hits"] == [[], [], []]
    page = api.query("SELECT mediaId FROM media ORDER BY dateCreated ASC LIMIT 1 OFFSET 1", catalog)
    assert ids(page) == ["b"] and page["totalResults"] == 3 and page["limit"] == 1


@pytest.mark.parametrize("query, expected", [
    ('* SAYS "refund*" AND metadata.extended.team = "red"', ["a"]),
    ('"Caller" SAYS "cancel*" AND NOT "renew*"', []),
    ('"Caller" SAYS "cancel*" && ! "renew*"', []),
    ('* SAYS "goodbye" OR "good morning"', ["c", "b"]),
    ('NOT * SAYS "refund*"', ["c"]),
    ('metrics:"agent-talk-ratio" >= 0.5', ["c", "a"]),
    ("wordCount < 11", ["c", "b"]),
    ('"Agent" SAYS "thank* calling"/2 [0s, 5s]', ["a"]),
    ('"Agent" SAYS "thank* calling"/1', []),
])
def test_queries_agree_with_evaluating_every_item(catalog, query, expected, monkeypatch):
    statement = f"SELECT mediaId FROM media WHERE {query}"
    narrowed = ids(api.query(statement, catalog))
    monkeypatch.setattr(corpus, "text_filter", lambda condition: None)  # no FTS narrowing: evaluate all
    assert ids(api.query(statement, catalog)) == narrowed == expected


def test_reindexing_replaces_an_item(catalog):
    conv = conversation(("Agent", "Completely different words now."))
    conv.media_id, conv.date_created = "00000000-0000-4000-8000-00000000000c", "2026-01-03T00:00:00.000Z"
    corpus.index(catalog, conv)
    assert ids(api.query('SELECT mediaId FROM media WHERE * SAYS "cancel*"', catalog)) == []
    assert ids(api.query('SELECT mediaId FROM media WHERE * SAYS "different"', catalog)) == ["c"]
    assert catalog.index.count() == 3


def test_a_syntax_error_is_a_usage_error_with_the_position(catalog):
    with pytest.raises(ConfigurationError, match="position 27"):
        api.query('SELECT * FROM media WHERE "refund"', catalog)


def test_narrowing_expression():
    from speechproc.query.narrow import text_filter

    condition = parse('SELECT * FROM media WHERE * SAYS ("can\'t pay"/2 || "refund*") AND NOT "renew"').condition
    assert text_filter(condition) == '("can t" AND "pay") OR "refund"*'
