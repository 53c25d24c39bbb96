"""Custom vocabularies: the v3 rules for a list of terms, a stored vocabulary (`vocabularies put`), and a
configuration's `vocabularies` resolved to the terms of every list (named ones read from the catalog).

A term is `{term, soundsLike?, weight?}`: `term` 1-64 characters, `soundsLike` up to 100 spoken forms (each
1-64 characters, one or more words), `weight` an integer 0-5 (default 0). A list holds 1-1,000 terms, and
a term (compared case-insensitively, spaces collapsed) appears once across all the lists of a configuration.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypedDict

from speechproc import errors as E
from speechproc.configuration import VocabularyTermEntry
from speechproc.schema import Node, invalid

MAX_TERMS = 1000
MAX_TERM = 64
MAX_SOUNDS_LIKE = 100
MAX_WEIGHT = 5
TERM_FIELDS = ("term", "soundsLike", "weight")
STORED_FIELDS = ("vocabularyName", "terms")


class Vocabulary(TypedDict):
    """A vocabulary as it is stored (its dates are the catalog's)."""

    vocabularyName: str
    terms: list[VocabularyTermEntry]


def term_key(term: str) -> str:
    """How two terms are compared for duplicates: case-insensitive, spaces collapsed."""
    return " ".join(term.split()).casefold()


def _term(value: Any, path: str, bad: int) -> VocabularyTermEntry:
    """One term checked and cleaned: `{term, soundsLike, weight}` with the defaults filled in."""
    if not isinstance(value, dict):
        raise invalid(path, "a term is an object {term, soundsLike, weight}", bad)
    unknown = sorted(set(value) - set(TERM_FIELDS))
    if unknown:
        raise invalid(f"{path}.{unknown[0]}", f"property ({unknown[0]}) is not part of a vocabulary term "
                      f"(known: {', '.join(TERM_FIELDS)})", E.UNKNOWN_PROPERTY)
    term = value.get("term")
    if term is None or (isinstance(term, str) and not term.strip()):
        raise invalid(f"{path}.term", "the term is empty", E.VOCABULARY_EMPTY_TERM)
    if not isinstance(term, str):
        raise invalid(f"{path}.term", "the term must be a string", bad)
    text = " ".join(term.split())
    if any(ch < " " or "\x7f" <= ch <= "\x9f" for ch in text):
        raise invalid(f"{path}.term", "the term holds a control character", bad)
    if len(text) > MAX_TERM:
        raise invalid(f"{path}.term", f"the term has {len(text)} characters; at most {MAX_TERM} are allowed", bad)
    weight = value.get("weight", 0)
    if isinstance(weight, bool) or not isinstance(weight, int) or not 0 <= weight <= MAX_WEIGHT:
        raise invalid(f"{path}.weight", f"weight must be an integer from 0 to {MAX_WEIGHT}, got {weight!r}",
                      E.VOCABULARY_BAD_WEIGHT)
    sounds = value.get("soundsLike", [])
    if not isinstance(sounds, list):
        raise invalid(f"{path}.soundsLike", "soundsLike must be a list of strings", bad)
    if len(sounds) > MAX_SOUNDS_LIKE:
        raise invalid(f"{path}.soundsLike", f"{len(sounds)} spoken forms; at most {MAX_SOUNDS_LIKE} are allowed", bad)
    forms: list[str] = []
    for i, form in enumerate(sounds):
        if not isinstance(form, str) or not form.strip() or len(form) > MAX_TERM or \
                any(ch < " " and not ch.isspace() or "\x7f" <= ch <= "\x9f" for ch in form):
            raise invalid(f"{path}.soundsLike[{i}]", f"a spoken form is a non-empty string of at most {MAX_TERM} "
                          "characters", bad)
        forms.append(" ".join(form.split()))
    return {"term": text, "soundsLike": forms, "weight": weight}


def check_terms(value: Any, path: str, bad: int = E.INVALID_VALUE) -> list[VocabularyTermEntry]:
    """A list of terms checked (20010, 20014, 20015, 20017, `bad` for any other fault) and cleaned."""
    if not isinstance(value, list):
        raise invalid(path, "terms must be a list of {term, soundsLike, weight} objects", bad)
    if len(value) > MAX_TERMS:
        raise invalid(path, f"{len(value)} terms; at most {MAX_TERMS} are allowed", E.VOCABULARY_TOO_MANY_TERMS)
    terms = [_term(item, f"{path}[{i}]", bad) for i, item in enumerate(value)]
    _no_duplicates(terms, path)
    return terms


def _no_duplicates(terms: Sequence[VocabularyTermEntry], path: str) -> None:
    seen: set[str] = set()
    for term in terms:
        key = term_key(term["term"])
        if key in seen:
            raise invalid(path, f"the term {term['term']!r} is listed twice", E.VOCABULARY_DUPLICATE_TERMS)
        seen.add(key)


class Terms(Node):
    """The schema node of a configuration's inline `terms`, with the v3 vocabulary codes."""

    def check(self, value: Any, path: str) -> None:
        if isinstance(value, list) and not value:
            raise invalid(path, "needs at least 1 term", E.VOCABULARY_EMPTY)
        check_terms(value, path)


def stored(name: str, body: Any, check_name: Callable[[str, str], str]) -> Vocabulary:
    """The vocabulary to store under `name` (`PUT /definition/vocabularies/{name}`): 80200-80203 and the term
    codes; `{vocabularyName, terms}` with every term's defaults filled in."""
    check_name(name, "vocabulary")
    if not isinstance(body, dict) or not body:
        raise E.ConfigurationError(E.VOCABULARY_BODY_EMPTY, "the vocabulary definition is missing or empty")
    unknown = sorted(set(body) - set(STORED_FIELDS) - {"dateCreated", "dateModified"})
    if unknown:
        raise E.ConfigurationError(E.UNKNOWN_PROPERTY, f"{', '.join(unknown)} not part of a vocabulary "
                                   f"(allowed: {', '.join(STORED_FIELDS)})")
    if body.get("vocabularyName") not in (None, name):
        raise E.ConfigurationError(E.VOCABULARY_NAME_MISMATCH, f"vocabularyName {body['vocabularyName']!r} differs "
                                   f"from the name {name!r}")
    if not isinstance(body.get("terms"), list) or not body["terms"]:
        raise E.ConfigurationError(E.VOCABULARY_NO_TERMS, "the vocabulary has no terms")
    return {"vocabularyName": name, "terms": check_terms(body["terms"], "terms", E.VOCABULARY_BAD_TERM)}


def resolve(items: Any, lookup: Callable[[str], Mapping[str, Any] | None]) -> tuple[VocabularyTermEntry, ...]:
    """Every term of a configuration's `vocabularies`, in order: inline terms as given, a named list read with
    `lookup` (20008 not stored, 20009 empty); a term in two lists is 20017."""
    terms: list[VocabularyTermEntry] = []
    for i, item in enumerate(items):
        if "vocabularyName" in item:
            name = item["vocabularyName"]
            found = lookup(name)
            if found is None:
                raise invalid(f"vocabularies[{i}].vocabularyName", f"vocabulary {name!r} is not defined "
                              "(speechproc vocabularies put NAME FILE)", E.VOCABULARY_NOT_FOUND)
            if not found.get("terms"):
                raise invalid(f"vocabularies[{i}].vocabularyName", f"vocabulary {name!r} has no terms",
                              E.VOCABULARY_EMPTY)
            terms += check_terms(found["terms"], f"vocabularies[{i}] ({name})")
        else:
            terms += check_terms(item.get("terms", []), f"vocabularies[{i}].terms")
    _no_duplicates(terms, "vocabularies")
    return tuple(terms)
