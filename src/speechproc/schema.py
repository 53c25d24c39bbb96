"""A small declarative validator for JSON-like data; every error names the key path."""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from speechproc.errors import INVALID_VALUE, UNKNOWN_PROPERTY, ConfigurationError


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _type_name(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer",
            float: "number", type(None): "null"}.get(type(value), type(value).__name__)


def invalid(path: str, message: str, code: int = INVALID_VALUE) -> ConfigurationError:
    """A ConfigurationError whose message starts with the key path."""
    return ConfigurationError(code, f"{path or 'configuration'}: {message}")


def _not_finite(value: Any) -> bool:
    return isinstance(value, float) and not math.isfinite(value)


_NOT_FINITE = "must be a finite number (NaN and infinity have no JSON form)"


class Node:
    """Base of all schema nodes."""

    def check(self, value: Any, path: str) -> None:
        raise NotImplementedError


@dataclass
class Str(Node):
    enum: tuple[str, ...] | None = None
    case_insensitive: bool = False
    max_len: int | None = None
    non_empty: bool = False

    def check(self, value: Any, path: str) -> None:
        if not isinstance(value, str):
            raise invalid(path, f"expected a string, got {_type_name(value)}")
        if self.non_empty and not value.strip():
            raise invalid(path, "must not be empty")
        if self.max_len is not None and len(value) > self.max_len:
            raise invalid(path, f"longer than {self.max_len} characters")
        if self.enum is not None:
            probe = value.lower() if self.case_insensitive else value
            allowed = [e.lower() for e in self.enum] if self.case_insensitive else list(self.enum)
            if probe not in allowed:
                raise invalid(path, f"'{value}' is not one of {', '.join(self.enum)}")


@dataclass
class Bool(Node):
    def check(self, value: Any, path: str) -> None:
        if not isinstance(value, bool):
            raise invalid(path, f"expected true or false, got {_type_name(value)}")


@dataclass
class Num(Node):
    minimum: float | None = None
    maximum: float | None = None
    integer: bool = False

    def check(self, value: Any, path: str) -> None:
        allowed = int if self.integer else (int, float)
        if isinstance(value, bool) or not isinstance(value, allowed):
            raise invalid(path, f"expected {'an integer' if self.integer else 'a number'}, got {_type_name(value)}")
        if _not_finite(value):
            raise invalid(path, _NOT_FINITE)
        if self.minimum is not None and value < self.minimum:
            raise invalid(path, f"must be at least {self.minimum}")
        if self.maximum is not None and value > self.maximum:
            raise invalid(path, f"must be at most {self.maximum}")


def Int(minimum: int | None = None, maximum: int | None = None) -> Num:  # noqa: N802 - reads like the other nodes
    return Num(minimum, maximum, integer=True)


_JSON_SCALARS = (str, int, float, bool, type(None))


@dataclass
class FreeObject(Node):
    """Any JSON object (free-form, e.g. metadata.extended): string keys, finite numbers, JSON values only."""

    def check(self, value: Any, path: str) -> None:
        if not isinstance(value, dict):
            raise invalid(path, f"expected an object, got {_type_name(value)}")
        stack = [(value, path)]  # iterative: the nesting depth of free-form data is not bounded here
        while stack:
            item, where = stack.pop()
            if isinstance(item, dict):
                for key, child in item.items():
                    if not isinstance(key, str):
                        raise invalid(where, f"keys must be strings, got {_type_name(key)}")
                    stack.append((child, _join(where, key)))
            elif isinstance(item, list):
                stack.extend((child, f"{where}[{i}]") for i, child in enumerate(item))
            elif not isinstance(item, _JSON_SCALARS):
                raise invalid(where, f"{_type_name(item)} is not a JSON value")
            elif _not_finite(item):
                raise invalid(where, _NOT_FINITE)


@dataclass
class Arr(Node):
    item: Node
    min_items: int = 0
    max_items: int | None = None
    unique: bool = False
    extra_check: Callable[[list, str], None] | None = None

    def check(self, value: Any, path: str) -> None:
        if not isinstance(value, list):
            raise invalid(path, f"expected an array, got {_type_name(value)}")
        if len(value) < self.min_items:
            raise invalid(path, f"needs at least {self.min_items} item(s)")
        if self.max_items is not None and len(value) > self.max_items:
            raise invalid(path, f"allows at most {self.max_items} items")
        for i, item in enumerate(value):
            self.item.check(item, f"{path}[{i}]")
        if self.unique:
            seen = [repr(v) for v in value]
            if len(set(seen)) != len(seen):
                raise invalid(path, "items must be unique")
        if self.extra_check is not None:
            self.extra_check(value, path)


@dataclass
class Obj(Node):
    """An object with known keys only; `section` names it in unknown-key messages."""

    fields: dict[str, Node]
    required: tuple[str, ...] = ()
    section: str = ""
    extra_check: Callable[[dict, str], None] | None = None
    required_code: int = INVALID_VALUE

    def check(self, value: Any, path: str) -> None:
        if not isinstance(value, dict):
            raise invalid(path, f"expected an object, got {_type_name(value)}")
        for key in value:
            if key not in self.fields:
                where = self.section or path or "root"
                known = ", ".join(sorted(self.fields))
                raise invalid(_join(path, key),
                              f"property ({key}) is not part of the {where} configuration (known: {known})",
                              UNKNOWN_PROPERTY)
        for key in self.required:
            if key not in value:
                raise invalid(_join(path, key), "is required", self.required_code)
        for key, node in self.fields.items():
            if key in value:
                node.check(value[key], _join(path, key))
        if self.extra_check is not None:
            self.extra_check(value, path)


SETTING = "speechproc.setting"  # the key of a declared setting in a dataclass field's metadata


@dataclass(frozen=True)
class Setting:
    """One local setting (`speechproc.KEY` of a configuration): its validation, default and documentation.

    An options dataclass declares the setting as a field, `name: int = Setting(...).field()`; the configuration's
    `speechproc` section, its defaults and the options built from a configuration all come from these fields."""

    key: str
    default: Any
    node: Node
    doc: str

    def field(self) -> Any:
        """A dataclass field that holds this setting's value (its default until a configuration sets it)."""
        return dataclasses.field(default=self.default, metadata={SETTING: self})


def declared(options_type: type) -> list[tuple[str, Setting]]:
    """The (field name, setting) pairs an options dataclass declares."""
    return [(f.name, f.metadata[SETTING]) for f in dataclasses.fields(options_type) if SETTING in f.metadata]
