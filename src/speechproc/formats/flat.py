"""The flat form of nested data: one column per leaf, for tables (export) and the reports' fact lists."""
from __future__ import annotations

import json
from typing import Any

Cell = str | int | float | bool | None  # a leaf of JSON; a list or an object goes in as JSON text


def flatten(prefix: str, value: Any, into: dict[str, Cell]) -> None:
    """Nested keys joined by dots; a list as JSON text. Two keys that join to one name ({"a.b": 1} and
    {"a": {"b": 2}}) keep both values: the later one's column gets a "#2" (then "#3"...)."""
    if isinstance(value, dict) and value:
        for key, inner in value.items():
            flatten(f"{prefix}.{key}", inner, into)
        return
    if isinstance(value, (list, dict)):
        value = json.dumps(value, ensure_ascii=False)
    name, n = prefix, 1
    while name in into:
        n += 1
        name = f"{prefix}#{n}"
    into[name] = value
