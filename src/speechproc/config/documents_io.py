"""JSON and YAML documents (configurations, metadata, definitions) read so that hostile files are cheap to
refuse: bounded reads, no YAML aliases, no duplicate keys, bounded depth and integer digits, no lone
surrogates; a pipe nobody writes to or a folder is refused at once."""
from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any

import yaml

from speechproc import errors as E

# Limits on every configuration, metadata and definition file: they keep hostile files cheap to refuse.
MAX_DOCUMENT_BYTES = 2**20
MAX_DEPTH = 64
MAX_INTEGER_DIGITS = 100


class _Refused(yaml.YAMLError):
    """A document refused while it is parsed; the message says why."""


def _bounded_int(text: str) -> int:
    if len(text.lstrip("+-").replace("_", "")) > MAX_INTEGER_DIGITS:
        raise _Refused(f"an integer has more than {MAX_INTEGER_DIGITS} digits ({text[:20]}...)")
    return int(text)


def _too_deep(where: str) -> _Refused:
    return _Refused(f"{where}nested more than {MAX_DEPTH} levels deep")


class _UniqueKeyLoader(yaml.SafeLoader):
    """A YAML safe loader for JSON-like data: no anchors or aliases, string keys only, no duplicated keys,
    nesting at most MAX_DEPTH deep."""

    _depth = 0

    def fetch_flow_collection_start(self, token_class: type) -> None:
        # Refused while scanning: the scanner looks far ahead inside deep `[[[...`, which is slow.
        if self.flow_level >= MAX_DEPTH:
            raise _too_deep(f"line {self.line + 1}: ")
        super().fetch_flow_collection_start(token_class)

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        event = self.peek_event()
        where = f"line {event.start_mark.line + 1}: "
        if isinstance(event, yaml.AliasEvent) or event.anchor is not None:
            # an alias can repeat a subtree exponentially often (the "billion laughs")
            raise _Refused(f"{where}YAML anchors and aliases (&{event.anchor}, *{event.anchor}) are not allowed")
        if not isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            return super().compose_node(parent, index)
        if self._depth >= MAX_DEPTH:
            raise _too_deep(where)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _mapping_without_duplicates(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep) if isinstance(key_node, yaml.ScalarNode) else None
        if not isinstance(key, str):
            raise _Refused(f"line {key_node.start_mark.line + 1}: keys must be strings "
                           "(quote a key such as '1', 'yes' or 'null')")
        if key in seen:
            raise E.ConfigurationError(E.DUPLICATED_PROPERTY, f"duplicated property ({key})")
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


def _bounded_yaml_int(loader: _UniqueKeyLoader, node: yaml.ScalarNode) -> int:
    _bounded_int(node.value)
    return loader.construct_yaml_int(node)


def _text(loader: _UniqueKeyLoader, node: yaml.ScalarNode) -> str:
    return yaml.SafeLoader.construct_yaml_str(loader, node)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_duplicates)
_UniqueKeyLoader.add_constructor("tag:yaml.org,2002:int", _bounded_yaml_int)
# v3 JSON has no date type: an unquoted date stays the text it is
_UniqueKeyLoader.add_constructor("tag:yaml.org,2002:timestamp", _text)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise E.ConfigurationError(E.DUPLICATED_PROPERTY, f"duplicated property ({key})")
            seen.add(key)
    return result


_JSON_TOKENS = re.compile(r'\\.|["\[\]{}]', re.DOTALL)


def _nested_deeper_than(text: str, limit: int) -> bool:
    """Whether JSON text opens more than `limit` nested arrays or objects (one pass, no recursion)."""
    depth, in_string = 0, False
    for match in _JSON_TOKENS.finditer(text):
        token = match.group()
        if token == '"':
            in_string = not in_string
        elif in_string or token[0] == "\\":
            continue
        elif token in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def _parse(text: str) -> Any:
    # Deeply nested JSON is left to the YAML loader, which refuses it without recursing (JSON is YAML).
    if not _nested_deeper_than(text, MAX_DEPTH):
        try:
            return json.loads(text, object_pairs_hook=_no_duplicates, parse_int=_bounded_int)
        except json.JSONDecodeError:
            pass
    loader = _UniqueKeyLoader(text)  # a SafeLoader: plain data only, never Python objects
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def parse_document(text: str, source: str, code: int = E.CONFIG_NOT_PARSEABLE) -> Any:
    """Parse JSON or YAML text (YAML is a superset, JSON is tried first for exact errors).

    Refused with `code`: YAML anchors and aliases, keys that are not strings, nesting deeper than
    MAX_DEPTH, integers of more than MAX_INTEGER_DIGITS digits; duplicated keys are refused with 10010."""
    try:
        data = _parse(text)
        _refuse_lone_surrogates(data)
        return data
    except _Refused as exc:
        raise E.ConfigurationError(code, f"{source}: {exc}") from None
    except yaml.YAMLError as exc:
        raise E.ConfigurationError(code, f"{source}: not valid JSON or YAML ({exc})") from None


def _refuse_lone_surrogates(data: Any) -> None:
    """Raise _Refused for a string holding a lone surrogate (`"\\ud800"` in JSON): it is no character, and
    no UTF-8 output (the catalog, a .v3.json) could hold it."""
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack += list(node.keys()) + list(node.values())
        elif isinstance(node, list):
            stack += node
        elif isinstance(node, str):
            try:
                node.encode("utf-8")
            except UnicodeEncodeError:
                raise _Refused(f"the text {ascii(node[:40])} holds a lone surrogate (an escape such as \\ud800 "
                               "that is not a character)") from None


def read_bounded(path: str | Path, code: int, limit: int = MAX_DOCUMENT_BYTES) -> bytes:
    """At most `limit` + 1 bytes of a file; a folder, a socket or a pipe nobody writes to is refused at
    once (opening a named pipe would otherwise wait for a writer for ever)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    mode = os.fstat(fd).st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)):
        os.close(fd)
        kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
        raise E.ConfigurationError(code, f"{path}: cannot be read ({kind})")
    os.set_blocking(fd, True)
    with os.fdopen(fd, "rb") as file:
        data = file.read(limit + 1)  # bounded: st_size says nothing of /dev/zero or a pipe
    if stat.S_ISFIFO(mode) and not data:
        raise E.ConfigurationError(code, f"{path}: a pipe with nothing written to it")
    return data


def read_file(path: str | Path, code: int) -> Any:
    """A bounded JSON or YAML file as plain data; ConfigurationError with `code` when it cannot be."""
    try:
        data = read_bounded(path, code)
        if len(data) > MAX_DOCUMENT_BYTES:
            raise E.ConfigurationError(code, f"{path}: larger than {MAX_DOCUMENT_BYTES} bytes (1 MiB), the limit "
                                       "for configuration, metadata and definition files")
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise E.ConfigurationError(code, f"{path}: cannot be read ({exc})") from None
    return parse_document(text, str(path), code)
