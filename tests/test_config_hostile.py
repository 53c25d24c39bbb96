"""Hostile configuration, metadata and definition files: a clear v3 error (exit 2), quickly, nothing processed."""
from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest

from conftest import invoke, write_wav
from speechproc import api, config, errors

MIB = 2**20  # the documented limits
MAX_DEPTH = 64


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


# ---------------------------------------------------------------- aliases

def test_a_yaml_alias_bomb_in_metadata_is_refused_before_it_is_expanded(tmp_path):
    started = time.perf_counter()
    message = refused_metadata(tmp_path, "bomb.yaml", bomb(9))
    assert "aliases" in message and "line 2" in message
    assert time.perf_counter() - started < 1


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
def test_an_endless_device_is_read_only_up_to_the_limit():
    started = time.perf_counter()
    assert "larger than" in refused(config.load, "/dev/zero", errors.CONFIG_NOT_PARSEABLE)
    assert "larger than" in refused(config.load_metadata, "/dev/zero", errors.METADATA_NOT_PARSEABLE)
    assert "larger than" in refused(config.read_document, "/dev/zero", errors.CONFIG_NOT_PARSEABLE)
    assert time.perf_counter() - started < 1


# ---------------------------------------------------------------- duplicated keys

def test_the_duplicate_key_check_takes_linear_time(tmp_path):
    keys = ",".join(f'"{i:x}":0' for i in range(100_000))
    path = write(tmp_path, "many.json", '{"extended": {' + keys + ',"7":1}}')
    assert path.stat().st_size < MIB
    started = time.perf_counter()
    message = refused(config.load_metadata, path, errors.DUPLICATED_PROPERTY)
    assert "duplicated property (7)" in message
    assert time.perf_counter() - started < 2
    write(tmp_path, "unique.json", '{"extended": {' + keys + "}}")
    assert len(config.load_metadata(tmp_path / "unique.json")["extended"]) == 100_000


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
def test_deep_nesting_is_refused_without_recursion(tmp_path, name, text):
    started = time.perf_counter()
    assert f"nested more than {MAX_DEPTH} levels deep" in refused_metadata(tmp_path, name, text)
    assert time.perf_counter() - started < 1


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
    assert config.validate({"speechproc": {"callbackMaxBodyBytes": 2**30}}).callback_max_bytes == 2**30


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
