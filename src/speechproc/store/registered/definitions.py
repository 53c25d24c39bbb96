"""Category and keyword-group definitions: validation of what `put` stores (no storage here)."""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, cast

from speechproc import errors as E
from speechproc.configuration import CategoryDefinition, KeywordGroupDefinition
from speechproc.query import QuerySyntaxError, parse_condition

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")
MAX_NOTES = 4000
MAX_TAGS = 32
MAX_TAG = 64
MAX_KEYWORD = 64
MAX_KEYWORDS = 1000
CATEGORY_FIELDS = ("categoryName", "categoryDescription", "query", "notes", "tags", "version")
KEYWORD = re.compile(r"^[\w][\w '&.$%/-]*$", re.UNICODE)


def _invalid(message: str, code: int = E.INVALID_VALUE) -> E.ConfigurationError:
    return E.ConfigurationError(code, message)


def check_name(name: str, what: str) -> str:
    """A definition name that is safe as a key and a path part: letters, digits, `_`, `.`, `-`; no spaces."""
    if not isinstance(name, str) or not NAME.fullmatch(name) or ".." in name:
        raise _invalid(f"{what} name {name!r} is not allowed: use 1-128 letters, digits, '_', '.' or '-', "
                       "starting with a letter or digit, without spaces or '..'")
    return name


def _string(body: Mapping[str, Any], key: str) -> str | None:
    value = body.get(key)
    if value is not None and not isinstance(value, str):
        raise _invalid(f"{key} must be a string")
    return value


def category(name: str, body: Any) -> CategoryDefinition:
    """The category to store under `name`: fields checked, the query parsed (errors say where)."""
    check_name(name, "category")
    if not isinstance(body, dict) or not body:
        raise _invalid("the category definition is empty: it needs at least a query")
    unknown = sorted(set(body) - set(CATEGORY_FIELDS) - {"dateCreated", "dateModified"})
    if unknown:
        raise E.ConfigurationError(E.UNKNOWN_PROPERTY, f"{', '.join(unknown)} not part of a category definition "
                                f"(allowed: {', '.join(CATEGORY_FIELDS)})")
    if body.get("categoryName") not in (None, name):
        raise _invalid(f"categoryName {body['categoryName']!r} differs from the name {name!r}")
    query = _string(body, "query")
    if not query or not query.strip():
        raise _invalid("query is required")
    try:
        parse_condition(query)
    except QuerySyntaxError as exc:
        raise _invalid(str(exc)) from None
    notes = _string(body, "notes")
    if notes is not None and len(notes) > MAX_NOTES:
        raise _invalid(f"notes has {len(notes)} characters; at most {MAX_NOTES} are allowed")
    tags = body.get("tags")
    if tags is not None:
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise _invalid("tags must be a list of strings")
        if len(tags) > MAX_TAGS:
            raise _invalid(f"{len(tags)} tags; at most {MAX_TAGS} are allowed")
        long = [t for t in tags if len(t) > MAX_TAG]
        if long:
            raise _invalid(f"tag {long[0][:20]!r}... has {len(long[0])} characters; at most {MAX_TAG} are allowed")
    out = cast(CategoryDefinition, {"categoryName": name})  # its keys in the order stored; `query` below
    description, version = _string(body, "categoryDescription"), _string(body, "version")
    if description is not None:
        out["categoryDescription"] = description
    out["query"] = query
    if notes is not None:
        out["notes"] = notes
    if version is not None:
        out["version"] = version
    if tags is not None:
        out["tags"] = list(tags)
    return out


def group(name: str, body: Any) -> KeywordGroupDefinition:
    """The keyword group to store under `name`, checked as VoiceBase documents (80100-80103)."""
    check_name(name, "keyword group")
    if not isinstance(body, dict) or not body:
        raise _invalid("the keyword group definition is missing or empty", E.GROUP_BODY_EMPTY)
    unknown = sorted(set(body) - {"groupName", "keywords", "dateCreated", "dateModified"})
    if unknown:
        raise E.ConfigurationError(E.UNKNOWN_PROPERTY, f"{', '.join(unknown)} not part of a keyword group "
                                "(allowed: groupName, keywords)")
    if body.get("groupName") not in (None, name):
        raise _invalid(f"groupName {body['groupName']!r} differs from the name {name!r}", E.GROUP_NAME_MISMATCH)
    keywords = body.get("keywords")
    if not isinstance(keywords, list) or not keywords:
        raise _invalid("the keyword group has no keywords", E.GROUP_NO_KEYWORDS)
    if len(keywords) > MAX_KEYWORDS:
        raise _invalid(f"{len(keywords)} keywords; at most {MAX_KEYWORDS} are allowed", E.GROUP_BAD_KEYWORD)
    cleaned: list[str] = []
    for keyword in keywords:
        text = " ".join(keyword.split()) if isinstance(keyword, str) else None
        if not text or len(text) > MAX_KEYWORD or not KEYWORD.fullmatch(text):
            raise _invalid(f"invalid keyword {keyword!r}: a word or phrase of at most {MAX_KEYWORD} characters "
                           "(letters, digits, spaces, ' & . $ % / -)", E.GROUP_BAD_KEYWORD)
        if text.casefold() not in {k.casefold() for k in cleaned}:
            cleaned.append(text)
    return {"groupName": name, "keywords": cleaned}
