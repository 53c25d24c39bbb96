"""Category and keyword-group definitions: put, list, get, delete, and every validation rule."""
from __future__ import annotations

import pytest

from speechproc import api
from speechproc.errors import ConfigurationError, NotFoundError
from speechproc.store.database.catalog import Catalog


@pytest.fixture
def catalog(tmp_path):
    with Catalog(tmp_path / "catalog.sqlite3") as cat:
        yield cat


GOOD = {"categoryDescription": "Refund talk", "query": 'SELECT * FROM media WHERE * SAYS "refund*"',
        "notes": "n", "tags": ["billing"], "version": "1"}


def test_put_returns_the_stored_category_with_dates_and_update_keeps_the_creation_date(catalog):
    first = api.put_definition("category", "refunds", GOOD, catalog)
    assert first["categoryName"] == "refunds" and first["dateCreated"] == first["dateModified"]
    assert {k: first[k] for k in GOOD} == GOOD
    second = api.put_definition("category", "refunds", {**GOOD, "notes": "changed"}, catalog)
    assert second["dateCreated"] == first["dateCreated"] and second["dateModified"] >= first["dateModified"]
    assert api.get_definition("category", "refunds", catalog)["notes"] == "changed"
    assert api.list_definitions("category", catalog) == {"categories": [second]}
    api.delete_definition("category", "refunds", catalog)
    assert api.list_definitions("category", catalog) == {"categories": []}
    with pytest.raises(NotFoundError):
        api.get_definition("category", "refunds", catalog)
    with pytest.raises(NotFoundError):
        api.delete_definition("category", "refunds", catalog)


@pytest.mark.parametrize("name, body, message", [
    ("has space", GOOD, "not allowed"),
    ("../etc", GOOD, "not allowed"),
    ("a/b", GOOD, "not allowed"),
    ("a..b", GOOD, "not allowed"),
    ("x" * 129, GOOD, "not allowed"),
    ("ok", {}, "empty"),
    ("ok", {"categoryDescription": "no query"}, "query is required"),
    ("ok", {**GOOD, "query": 'SELECT * FROM media WHERE * SAYS "refund'}, "position 34"),
    ("ok", {**GOOD, "notes": "n" * 4001}, "at most 4000"),
    ("ok", {**GOOD, "tags": [f"t{i}" for i in range(33)]}, "at most 32"),
    ("ok", {**GOOD, "tags": ["t" * 65]}, "at most 64"),
    ("ok", {**GOOD, "tags": "billing"}, "list of strings"),
    ("ok", {**GOOD, "colour": "red"}, "colour not part of a category"),
    ("ok", {**GOOD, "categoryName": "other"}, "differs"),
])
def test_invalid_categories_are_refused_and_nothing_is_stored(catalog, name, body, message):
    with pytest.raises(ConfigurationError, match=message):
        api.put_definition("category", name, body, catalog)
    assert api.list_definitions("category", catalog) == {"categories": []}


def test_limits_themselves_are_allowed(catalog):
    body = {**GOOD, "notes": "n" * 4000, "tags": ["t" * 64] * 32}
    assert api.put_definition("category", "x" * 128, body, catalog)["tags"] == ["t" * 64] * 32


def test_a_bare_condition_is_a_valid_category_query(catalog):
    assert api.put_definition("category", "short", {"query": '"Agent" SAYS "sorry"'}, catalog)["query"]


def test_keyword_groups(catalog):
    stored = api.put_definition("group", "billing", {"groupName": "billing", "keywords": ["Refund", " charged  twice ",
                                                                                          "refund"]}, catalog)
    assert stored["keywords"] == ["Refund", "charged twice"]  # spaces tidied, repeats dropped
    assert api.list_definitions("group", catalog)["groups"][0]["groupName"] == "billing"


@pytest.mark.parametrize("body, code", [
    (None, 80100), ({}, 80100),
    ({"keywords": []}, 80101), ({"groupName": "billing"}, 80101),
    ({"groupName": "other", "keywords": ["a"]}, 80102),
    ({"keywords": [""]}, 80103), ({"keywords": ["!!!"]}, 80103), ({"keywords": ["a" * 65]}, 80103),
    ({"keywords": [7]}, 80103), ({"keywords": ["refund*"]}, 80103),
])
def test_keyword_group_errors_have_the_documented_codes(catalog, body, code):
    with pytest.raises(ConfigurationError) as caught:
        api.put_definition("group", "billing", body, catalog)
    assert caught.value.code == code
    assert api.list_definitions("group", catalog) == {"groups": []}
