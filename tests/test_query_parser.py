"""The query language's parser: every construct, precedence, and errors with their position."""
from __future__ import annotations

import pytest

from speechproc.query import QuerySyntaxError, parse, parse_condition
from speechproc.query.tree import CallAnd, CallNot, CallOr, Comparison, Order, Phrase, TurnAnd, TurnNot, TurnOr, Window


def where(condition: str):
    return parse(f"SELECT * FROM media WHERE {condition}").condition


def test_statement_parts():
    s = parse('select mediaId, hits() from media where "Agent" says "hello" order by dateCreated desc limit 50 offset 5')
    assert s.items == ("mediaId", "hits()") and s.wants_hits
    assert s.condition == Phrase(("hello",), "Agent", text="hello")
    assert s.order == Order("dateCreated", True) and (s.limit, s.offset) == (50, 5)
    assert parse("SELECT * FROM media").condition is None and parse("SELECT * FROM media").limit == 10
    assert parse("SELECT * FROM media WHERE * LIMIT 3").condition is None


def test_match_is_anyone_says():
    assert parse("SELECT * FROM media MATCH 'hello there'").condition == Phrase(("hello", "there"), "*",
                                                                              text="hello there")


def test_terms_are_lower_case_without_punctuation_and_keep_wildcards_and_slop():
    assert where('* SAYS "Thank* for Calling!"/2') == Phrase(("thank*", "for", "calling"), "*", 2,
                                                           text="Thank* for Calling!")
    assert where("* SAYS 'don''t'") == Phrase(("don't",), "*", text="don't")


def test_turn_operators_bind_tighter_than_call_operators():
    a, b, c = (Phrase((x,), "Agent", text=x) for x in "abc")
    assert where('"Agent" SAYS "a" && "b" || "c"') == TurnOr(TurnAnd(a, b), c)
    assert where('"Agent" SAYS "a" && ! "b"') == TurnAnd(a, TurnNot(b, "Agent"))
    assert where('"Agent" SAYS "a" AND "b" OR "c"') == CallOr(CallAnd(a, b), c)
    assert where('"Agent" SAYS "a" AND NOT "b"') == CallAnd(a, CallNot(b))
    assert where('"Agent" SAYS ("a" || "b") && "c"') == TurnAnd(TurnOr(a, b), c)


def test_a_bare_term_takes_the_speaker_of_the_last_says():
    condition = where('"Caller" SAYS "cancel*" AND NOT "renew*" OR "Agent" SAYS "sorry" AND "help"')
    assert condition == CallOr(CallAnd(Phrase(("cancel*",), "Caller", text="cancel*"),
                                       CallNot(Phrase(("renew*",), "Caller", text="renew*"))),
                               CallAnd(Phrase(("sorry",), "Agent", text="sorry"), Phrase(("help",), "Agent", text="help")))


def test_time_windows_in_seconds_negative_from_the_end_open_bounds():
    assert where('* SAYS "bye" [-30s,]').windows == (Window(-30000, None),)
    assert where('* SAYS "hi" [0s, 30s]').windows == (Window(0, 30000),)
    assert where('* SAYS "hi" [,1.5s]').windows == (Window(None, 1500),)
    assert where('* SAYS "hi" [500ms, 2m]').windows == (Window(500, 120000),)
    grouped = where('"Agent" SAYS ("a" || "b") [-10s,]')
    assert [t.windows for t in grouped.operands] == [(Window(-10000, None),)] * 2


def test_field_metadata_and_metric_comparisons():
    assert where("wordCount > 3000") == Comparison("wordCount", ">", 3000.0, 26)
    assert where("length >= 60s").value == 60000.0
    assert where("dateCreated > '2022-06-06T00:00:00.000Z'").value == "2022-06-06T00:00:00.000Z"
    assert where("metadata.extended.team.id = 7").field == "metadata.extended.team.id"
    assert where("metadata:datasetID = 'Company_X'").field == "metadata.datasetID"
    assert where('metrics:"agent-talk-ratio" > 0.6') == Comparison("metrics:agent-talk-ratio", ">", 0.6, 26)
    assert where("mediaId <> 'x'").op == "!="


def test_a_bare_condition_reads_as_a_full_statement():
    assert parse_condition('"Agent" SAYS "refund*"').condition == Phrase(("refund*",), "Agent", text="refund*")
    assert parse_condition("SELECT * FROM media MATCH 'x'").condition == Phrase(("x",), "*", text="x")


@pytest.mark.parametrize("query, position, message", [
    ("", 0, "empty"),
    ("SELECT * FROM calls", 14, "unknown library"),
    ("SELECT * FROM media WHERE", 25, "expected a condition"),
    ('SELECT * FROM media WHERE "refund"', 26, "needs a speaker"),
    ('SELECT * FROM media WHERE * SAYS "refund', 33, "unterminated string"),
    ('SELECT * FROM media WHERE * SAYS ("a" || "b"', 44, "expected ')'"),
    ('SELECT * FROM media WHERE * SAYS "a" [0s 30s]', 41, "','"),
    ('SELECT * FROM media WHERE * SAYS "a" [30s, 10s]', 37, "ends before it starts"),
    ('SELECT * FROM media WHERE * SAYS "a" && wordCount > 3', 37, "within one turn"),
    ('SELECT * FROM media WHERE * SAYS "*ab"', 33, "wildcard"),
    ('SELECT * FROM media WHERE * SAYS "a"/x', 37, "a number"),
    ("SELECT * FROM media WHERE colour = 'red'", 26, "unknown field"),
    ("SELECT * FROM media WHERE wordCount ~ 3", 36, "unexpected character"),
    ("SELECT * FROM media WHERE wordCount > 3 LIMIT 0", 46, "LIMIT"),
    ("SELECT count() FROM media", 7, "unknown function"),
    ('SELECT * FROM media WHERE * SAYS "a" "b"', 37, "unexpected"),
])
def test_bad_queries_say_what_and_where(query, position, message):
    with pytest.raises(QuerySyntaxError) as caught:
        parse(query)
    assert caught.value.position == position, str(caught.value)
    assert message in caught.value.message
    assert f"position {position + 1}" in str(caught.value)
