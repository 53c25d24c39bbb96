"""Hostile configuration, metadata and definition files: a clear v3 error (exit 2), nothing processed, and cheaply:
the work each refusal takes (bytes read, tokens scanned, nodes composed, keys compared, stack depth) is bounded
by the documented limits, not by the size of what the file would expand to."""
from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from conftest import invoke, write_wav
from speechproc import api, errors
from speechproc.config import documents_io
from speechproc.config import v3 as config

MIB = 2**20  # the documented limits
MAX_DEPTH = 64
YAML_LOADER = documents_io._UniqueKeyLoader


def bomb(levels: int) -> str:
    """YAML metadata of a few hundred bytes whose aliases expand to 9 ** (levels + 1) strings."""
    lines = ["extended:", "  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"  l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def refused(load, path, code: int) -> str:
    """The message of the ConfigurationError that `load(path)` raises with `code`."""
    with pytest.raises(errors.ConfigurationError) as info:
        load(path)
    assert info.value.code == code, info.value.message
    return info.value.message


def refused_config(tmp_path: Path, name: str, text: str, code: int = errors.CONFIG_NOT_PARSEABLE) -> str:
    return refused(config.load, write(tmp_path, name, text), code)


def refused_metadata(tmp_path: Path, name: str, text: str) -> str:
    return refused(config.load_metadata, write(tmp_path, name, text), errors.METADATA_NOT_PARSEABLE)


@pytest.fixture
def yaml_work(monkeypatch) -> dict[str, int]:
    """How much the YAML loader does: tokens it scans and nodes it composes; constructing a document (the step
    that would expand aliases) fails the test."""
    work = {"tokens": 0, "nodes": 0}
    fetch, compose = YAML_LOADER.fetch_more_tokens, YAML_LOADER.compose_node

    def counted_fetch(loader):
        work["tokens"] += 1
        return fetch(loader)

    def counted_compose(loader, parent, index):
        work["nodes"] += 1
        return compose(loader, parent, index)

    def never(loader, node):
        __tracebackhide__ = True  # a failure report would show the node, expanding what the aliases repeat
        raise AssertionError("a refused document was constructed")

    monkeypatch.setattr(YAML_LOADER, "fetch_more_tokens", counted_fetch)
    monkeypatch.setattr(YAML_LOADER, "compose_node", counted_compose)
    monkeypatch.setattr(YAML_LOADER, "construct_document", never)
    return work


def stack_depth() -> int:
    frame, depth = sys._getframe(1), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


@contextmanager
def stack_of_at_most(frames: int) -> Iterator[None]:
    """Code in the block that goes more than `frames` calls deeper than the caller raises RecursionError."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(stack_depth() + frames)
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


class CountingFile:
    """A file that counts the bytes read from it and fails a read that could go past `budget` bytes."""

    def __init__(self, file, budget: int) -> None:
        self.file, self.budget, self.read_bytes = file, budget, 0

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0 or self.read_bytes + size > self.budget:
            raise AssertionError(f"a read of {size} bytes after {self.read_bytes}: more than {self.budget} in all")
        data = self.file.read(size)
        self.read_bytes += len(data)
        return data

    def __enter__(self) -> CountingFile:
        return self

    def __exit__(self, *exc) -> None:
        self.file.close()

    def __getattr__(self, name: str):
        return getattr(self.file, name)


# ---------------------------------------------------------------- aliases

def test_a_yaml_alias_bomb_in_metadata_is_refused_before_it_is_expanded(tmp_path, yaml_work):
    text = bomb(9)
    message = refused_metadata(tmp_path, "bomb.yaml", text)
    assert "aliases" in message and "line 2" in message
    # refused at its first anchor: never constructed, a few of its nodes composed (of the 9 ** 10 it expands to)
    assert 0 < yaml_work["nodes"] <= 16 and yaml_work["tokens"] <= 32 < text.count("*")


@pytest.mark.parametrize("text", ["speechModel: &m {language: en-US}\nadditionalSpeechModels: [*m]\n",
                                  "priority: &p low\n", "speechModel:\n  <<: *m\n"])
def test_yaml_anchors_and_aliases_are_refused_in_configurations(tmp_path, text):
    assert "anchors and aliases" in refused_config(tmp_path, "c.yaml", text)


def test_a_definition_with_aliases_is_refused(tmp_path):
    path = write(tmp_path, "cat.yaml", "query: &q SCOPE 'agent' SAYS 'hello'\nnotes: *q\n")
    assert "aliases" in refused(config.read_document, path, errors.CONFIG_NOT_PARSEABLE)


# ---------------------------------------------------------------- size

def test_a_file_over_one_mib_is_refused_and_one_of_exactly_one_mib_is_read(tmp_path):
    body = '{"priority": "low"}'
    write(tmp_path, "max.json", body + " " * (MIB - len(body)))
    assert config.load(tmp_path / "max.json").raw["priority"] == "low"
    message = refused_config(tmp_path, "big.json", body + " " * (MIB + 1 - len(body)))
    assert "larger than 1048576 bytes" in message
    meta = '{"title": "t"}'
    assert "1 MiB" in refused_metadata(tmp_path, "big-meta.json", meta + " " * MIB)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_an_endless_device_is_read_only_up_to_the_limit(monkeypatch):
    opened: list[CountingFile] = []
    real_fdopen = os.fdopen

    def counted_fdopen(*args, **kwargs) -> CountingFile:
        opened.append(CountingFile(real_fdopen(*args, **kwargs), budget=MIB + 1))
        return opened[-1]

    def never(*args, **kwargs):
        raise AssertionError("a document over the limit was parsed")

    monkeypatch.setattr(os, "fdopen", counted_fdopen)
    monkeypatch.setattr(documents_io, "parse_document", never)
    for load, code in ((config.load, errors.CONFIG_NOT_PARSEABLE), (config.load_metadata, errors.METADATA_NOT_PARSEABLE),
                       (config.read_document, errors.CONFIG_NOT_PARSEABLE)):
        before = len(opened)
        assert "larger than" in refused(load, "/dev/zero", code)
        [device] = opened[before:]
        assert MIB < device.read_bytes <= MIB + 1  # one byte past the limit tells it is over


# ---------------------------------------------------------------- duplicated keys

def test_the_duplicate_key_check_takes_linear_time(tmp_path, monkeypatch):
    keys = ",".join(f'"{i:x}":0' for i in range(100_000))
    path = write(tmp_path, "many.json", '{"extended": {' + keys + ',"7":1}}')
    assert path.stat().st_size < MIB
    operations = [0]
    budget = 4 * 100_002  # a few hashes and comparisons a key, where a check pair by pair makes billions

    class CountedKey(str):
        def __hash__(self) -> int:
            operations[0] += 1
            assert operations[0] <= budget, "the duplicate key check is not linear"  # fails at once, not in hours
            return str.__hash__(self)

        def __eq__(self, other: object) -> bool:
            operations[0] += 1
            assert operations[0] <= budget, "the duplicate key check is not linear"
            return str.__eq__(self, other)

    check = documents_io._no_duplicates  # the keys of each JSON object go through it

    def counted(pairs: list) -> dict:
        checked = check([(CountedKey(key), value) for key, value in pairs])
        return {str(key): value for key, value in checked.items()}  # what comes after is not counted

    monkeypatch.setattr(documents_io, "_no_duplicates", counted)
    message = refused(config.load_metadata, path, errors.DUPLICATED_PROPERTY)
    assert "duplicated property (7)" in message
    assert operations[0] >= 100_001  # every key was looked at
    write(tmp_path, "unique.json", '{"extended": {' + keys + "}}")
    operations[0] = 0
    assert len(config.load_metadata(tmp_path / "unique.json")["extended"]) == 100_000
    assert 100_000 <= operations[0] <= budget


# ---------------------------------------------------------------- NaN and infinity

@pytest.mark.parametrize("name, text", [
    ("nan.json", '{"speechproc": {"callbackTimeoutSeconds": NaN}}'),
    ("inf.json", '{"speechproc": {"callbackTimeoutSeconds": Infinity}}'),
    ("overflow.json", '{"speechproc": {"callbackTimeoutSeconds": 1e999}}'),
    ("nan.yaml", "speechproc:\n  callbackTimeoutSeconds: .nan\n"),
    ("inf.yaml", "speechproc:\n  callbackTimeoutSeconds: -.inf\n"),
])
def test_nan_and_infinity_are_invalid_values_in_a_configuration(tmp_path, name, text):
    message = refused_config(tmp_path, name, text, errors.INVALID_VALUE)
    assert message.startswith("speechproc.callbackTimeoutSeconds: must be a finite number")


@pytest.mark.parametrize("field", [
    {"prediction": {"detectors": [{"detectorName": "PCI", "redactor": {"audio": {"gain": math.nan}}}]}},
    {"prediction": {"detectors": [{"detectorName": "PCI", "redactor": {"audio": {"gain": math.inf}}}]}},
    {"speechproc": {"callbackTimeoutSeconds": -math.inf}},
])
def test_every_number_of_the_schema_refuses_non_finite_values(field):
    with pytest.raises(errors.ConfigurationError, match="finite") as info:
        config.validate(field)
    assert info.value.code == errors.INVALID_VALUE


@pytest.mark.parametrize("name, text, where", [
    ("nan.json", '{"extended": {"scores": [1, {"x": NaN}]}}', "metadata.extended.scores[1].x"),
    ("inf.json", '{"callDetails": {"x": -Infinity}}', "metadata.callDetails.x"),
    ("inf.yaml", "extended:\n  deep: {x: [.inf]}\n", "metadata.extended.deep.x[0]"),
])
def test_free_form_metadata_refuses_non_finite_numbers(tmp_path, name, text, where):
    assert refused_metadata(tmp_path, name, text).startswith(f"{where}: must be a finite number")


def test_free_form_metadata_holds_only_json_values(tmp_path):
    assert "bytes is not a JSON value" in refused_metadata(tmp_path, "b.yaml", "extended: {x: !!binary aGVsbG8=}\n")
    loaded = config.load_metadata(write(tmp_path, "d.yaml", "extended: {when: 2024-01-02, at: 2024-01-02 10:00}\n"))
    assert loaded["extended"] == {"when": "2024-01-02", "at": "2024-01-02 10:00"}
    json.dumps(loaded, allow_nan=False)


# ---------------------------------------------------------------- nesting, big integers, keys

@pytest.mark.parametrize("name, text", [
    ("deep.json", "[" * 100_000),
    ("deep-closed.json", '{"extended": ' + '{"a": ' * 2000 + "1" + "}" * 2001),
    ("deep.yaml", "extended:\n" + "".join(" " * (i + 1) + f"k{i}:\n" for i in range(1000)) + "  " * 1001 + "x\n"),
    ("deep-flow.yaml", "extended: " + "[" * 500_000),
])
def test_deep_nesting_is_refused_without_recursion(tmp_path, name, text, yaml_work):
    work_bound = 8 * MAX_DEPTH  # what the limit allows, far less than the file holds
    assert text.count("[") + text.count("{") + text.count(":") > work_bound  # collections it nests
    with stack_of_at_most(2 * work_bound):  # a parser that recursed into the file's depth would run out of stack
        assert f"nested more than {MAX_DEPTH} levels deep" in refused_metadata(tmp_path, name, text)
    assert yaml_work["tokens"] <= work_bound and yaml_work["nodes"] <= work_bound


def test_nesting_up_to_the_limit_is_accepted(tmp_path):
    def nested(levels: int) -> str:  # `levels` objects and arrays, the metadata object included
        return '{"extended": ' + '{"a": ' * (levels - 2) + "[1]" + "}" * (levels - 1)

    assert config.load_metadata(write(tmp_path, "ok.json", nested(MAX_DEPTH)))
    assert "nested more than" in refused_metadata(tmp_path, "no.json", nested(MAX_DEPTH + 1))
    brackets_in_text = "title: '" + "[" * 100 + "'\n"  # not nesting: YAML reads it
    assert config.load_metadata(write(tmp_path, "t.yaml", brackets_in_text))["title"] == "[" * 100


@pytest.mark.parametrize("name, text", [
    ("big.json", '{"timeToLiveInSeconds": ' + "9" * 5000 + "}"),
    ("big.yaml", "timeToLiveInSeconds: " + "9" * 5000 + "\n"),
    ("binary.yaml", "timeToLiveInSeconds: 0b" + "1" * 20_000 + "\n"),
])
def test_integers_of_more_than_100_digits_are_refused(tmp_path, name, text):
    assert "more than 100 digits" in refused_config(tmp_path, name, text)


def test_integers_of_100_digits_are_read(tmp_path):
    loaded = config.load_metadata(write(tmp_path, "ok.json", '{"extended": {"n": -' + "9" * 100 + "}}"))
    assert loaded["extended"]["n"] == -int("9" * 100)


@pytest.mark.parametrize("key", ["[a, b]", "{a: 1}", "? [a]\n  ", "1", "yes", "null"])
def test_yaml_keys_must_be_strings(tmp_path, key):
    message = refused_metadata(tmp_path, "k.yaml", f"extended:\n  {key}: value\n")
    assert "line 2: keys must be strings" in message


def test_quoted_yaml_keys_are_strings(tmp_path):
    loaded = config.load_metadata(write(tmp_path, "k.yaml", "extended:\n  '1': a\n  'yes': b\n"))
    assert loaded["extended"] == {"1": "a", "yes": "b"}


# ---------------------------------------------------------------- bounded integers of the schema

def test_time_to_live_is_at_most_ten_years(tmp_path):
    message = refused_config(tmp_path, "ttl.json", '{"timeToLiveInSeconds": 1000000000000}', errors.INVALID_VALUE)
    assert message == "timeToLiveInSeconds: must be at most 315360000"
    assert config.validate({"timeToLiveInSeconds": 315_360_000}).time_to_live == 315_360_000


def test_callback_body_limit_is_at_most_one_gib():
    with pytest.raises(errors.ConfigurationError, match="callbackMaxBodyBytes: must be at most 1073741824"):
        config.validate({"speechproc": {"callbackMaxBodyBytes": 2**40}})
    assert config.validate({"speechproc": {"callbackMaxBodyBytes": 2**30}}).local("callbackMaxBodyBytes") == 2**30


# ---------------------------------------------------------------- through the command line

@pytest.fixture()
def recording_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "in"
    folder.mkdir()
    write_wav(folder / "tone.wav", [0.0] * 1600, 16000)
    return folder


def media_ids() -> list[str]:
    return [m["mediaId"] for m in api.list_media(1000)["media"]]


def assert_refused_by_cli(args: list[str], code: int) -> None:
    before = media_ids()
    exit_code, body = invoke(*args)
    assert exit_code == 2, body
    assert body["status"] == 400 and body["warnings"][0]["code"] == code, body
    assert media_ids() == before


def test_cli_refuses_an_alias_bomb_in_metadata(tmp_path, recording_folder):
    path = write(tmp_path, "bomb.yaml", bomb(3))
    assert_refused_by_cli(["run", str(recording_folder), "--metadata", str(path)], errors.METADATA_NOT_PARSEABLE)
    assert not list(recording_folder.glob("*.v3.json"))


def test_cli_refuses_nan_in_a_configuration(tmp_path, recording_folder):
    bad = write(tmp_path, "nan.json", '{"speechproc": {"callbackTimeoutSeconds": NaN}}')
    assert_refused_by_cli(["run", str(recording_folder), "--config", str(bad)], errors.INVALID_VALUE)


def test_cli_refuses_deep_nesting_and_endless_files(tmp_path, recording_folder):
    deep = write(tmp_path, "deep.json", "[" * 100_000)
    assert_refused_by_cli(["run", str(recording_folder), "--config", str(deep)], errors.CONFIG_NOT_PARSEABLE)
    if Path("/dev/zero").exists():
        assert_refused_by_cli(["run", str(recording_folder), "--config", "/dev/zero"], errors.CONFIG_NOT_PARSEABLE)


def test_cli_refuses_a_huge_time_to_live(tmp_path, recording_folder):
    bad = write(tmp_path, "ttl.yaml", "timeToLiveInSeconds: 1000000000000\n")
    assert_refused_by_cli(["run", str(recording_folder), "--config", str(bad)], errors.INVALID_VALUE)


def test_metadata_given_as_data_is_checked_like_a_file():
    for extended, message in (({1: "a"}, "metadata.extended: keys must be strings"),
                              ({"a": {"b": {1, 2}}}, "metadata.extended.a.b: set is not a JSON value"),
                              ({"a": [float("nan")]}, "metadata.extended.a[0]: must be a finite number")):
        with pytest.raises(errors.ConfigurationError) as info:
            config.validate_metadata({"extended": extended})
        assert info.value.code == errors.METADATA_NOT_PARSEABLE
        assert info.value.message.startswith(message)


@pytest.mark.parametrize("parameters, says", [
    ([{"parameter": "strictness", "value": "paranoid"}], "strictness is one of balanced, strict"),
    ([{"parameter": "strictness", "value": "Strict"}], "strictness is one of balanced, strict"),
    ([{"parameter": "strictness", "value": ""}], "strictness is one of balanced, strict"),
    ([{"parameter": "strictness", "value": 1}], "expected a string"),
    ([{"parameter": "strictness", "value": "strict"}, {"parameter": "strictness", "value": "balanced"}],
     "given twice"),
])
def test_a_bad_pii_strictness_is_refused_before_any_audio(tmp_path, home, parameters, says):
    write_wav(tmp_path / "call.wav", [0.0] * 16000, 16000)
    (tmp_path / "cfg.json").write_text(json.dumps({"prediction": {"detectors": [
        {"detectorName": "PII", "parameters": parameters}]}}))
    code, out = invoke("run", str(tmp_path / "call.wav"), "--config", str(tmp_path / "cfg.json"), "--out",
                       str(tmp_path / "out"))
    assert code != 0 and says in json.dumps(out), out
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())  # nothing was processed
    for strictness in ("balanced", "strict"):
        assert config.validate({"prediction": {"detectors": [{"detectorName": "PII", "parameters": [
            {"parameter": "strictness", "value": strictness}]}]}})
    with pytest.raises(errors.ConfigurationError, match="unknown parameter 'strictness'"):
        config.validate({"prediction": {"detectors": [{"detectorName": "PCI", "parameters": [
            {"parameter": "strictness", "value": "strict"}]}]}})
