"""Definitions stored in the catalog (categories, keyword groups, classifiers) and corpus queries."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from speechproc import errors as E
from speechproc.engines import classifiers
from speechproc.formats import v3json
from speechproc.query import QuerySyntaxError, Statement, parse
from speechproc.store.collection import corpus
from speechproc.store.database import Catalog
from speechproc.store.media_items import using
from speechproc.store.registered import definitions, vocabularies

_DEFINITIONS = {"category": ("categories", definitions.category), "group": ("groups", definitions.group),
                "classifier": ("classifiers", None),  # a classifier is put with put_classifier
                "vocabulary": ("vocabularies", lambda name, body: vocabularies.stored(name, body, definitions.check_name))}


def _kind(kind: str) -> tuple[str, Any]:
    if kind not in _DEFINITIONS:
        raise ValueError(f"unknown definition kind {kind!r}")
    return _DEFINITIONS[kind]


def put_definition(kind: str, name: str, body: Any, catalog: Catalog | None = None) -> dict[str, Any]:
    """`PUT /definition/categories/{name}` or `.../spotting/groups/{name}`: validate, store, return it with dates."""
    _, check = _kind(kind)
    if check is None:
        raise ValueError(f"a {kind} is put with its own function")
    stored = check(name, body)
    with using(catalog) as cat:
        dates = cat.definitions.put(kind, name, stored, v3json.utc_now())
    return {**stored, **dates}


def get_definition(kind: str, name: str, catalog: Catalog | None = None) -> dict[str, Any]:
    _kind(kind)
    with using(catalog) as cat:
        found = cat.definitions.get(kind, name)
    if found is None:
        raise E.NotFoundError(E.RESOURCE_NOT_FOUND, f"{kind} {name!r} is not defined")
    return found


def list_definitions(kind: str, catalog: Catalog | None = None) -> dict[str, Any]:
    """`{categories: [...]}` or `{groups: [...]}`, by name."""
    key, _ = _kind(kind)
    with using(catalog) as cat:
        return {key: cat.definitions.list(kind)}


def delete_definition(kind: str, name: str, catalog: Catalog | None = None) -> None:
    _kind(kind)
    with using(catalog) as cat:
        if not cat.definitions.delete(kind, name):
            raise E.NotFoundError(E.RESOURCE_NOT_FOUND, f"{kind} {name!r} is not defined")
    if kind == "classifier":
        classifiers.stored_path(name).unlink(missing_ok=True)


def put_classifier(name: str, model_file: str | Path, display_name: str | None = None,
                   catalog: Catalog | None = None) -> dict[str, Any]:
    """Register (or replace) a text classifier from a skops model file; print-ready definition with dates.

    The file is checked (trusted types only, a binary classifier of texts) before anything is stored."""
    definitions.check_name(name, "classifier")
    with using(catalog) as cat:
        previous = cat.definitions.get("classifier", name)
        stored = classifiers.install(name, Path(model_file), previous, display_name)
        dates = cat.definitions.put("classifier", name, stored, v3json.utc_now())
    return {**stored, **dates}


def parse_statement(text: str) -> Statement:
    """A query statement, or ConfigurationError saying where its syntax is wrong."""
    try:
        return parse(text)
    except QuerySyntaxError as exc:
        raise E.ConfigurationError(E.INVALID_VALUE, str(exc)) from None


def query(text: str, catalog: Catalog | None = None) -> corpus.QueryResult:
    """`POST /analytics/vbql`: run a query over every media item processed with analytic indexing."""
    statement = parse_statement(text)
    with using(catalog) as cat:
        return corpus.run(statement, cat)
