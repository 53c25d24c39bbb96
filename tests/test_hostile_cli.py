"""What a careless or hostile user gives the command line: never a traceback, a hang, invalid JSON or a lost file."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from conftest import invoke, write_wav
from speechproc import api
from speechproc.cli.commands import main

NOT_UTF8 = os.fsdecode(b"\xff")  # how Python hands over an argument byte that is not UTF-8


def _run(*args: str) -> tuple[int, dict, str]:
    """The CLI in-process: exit code, stdout parsed as strict UTF-8 JSON, stderr."""
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, json.loads(result.stdout_bytes.decode("utf-8")), result.stderr


def _tone(path: Path, seconds: float = 1.0) -> Path:
    rate = 16000
    return write_wav(path, 0.1 * np.sin(2 * np.pi * 220 * np.arange(int(rate * seconds)) / rate), rate)


# ---------------------------------------------------------------- text that is not text

@pytest.mark.parametrize("document, option", [
    ('{"title": "\\ud800"}', "--metadata"),
    ('{"ingest": {"speakerName": "\\udfff x"}}', "--config"),
    ('title: "\\ud800"', "--metadata"),  # YAML spells it the same way
])
def test_a_lone_surrogate_escape_is_refused_before_anything_is_stored(tmp_path, document, option):
    bad = tmp_path / "bad.json"
    bad.write_text(document)
    before = api.list_media(limit=1000)["media"]
    code, out, _ = _run("run", str(_tone(tmp_path / "t.wav")), option, str(bad))
    assert code == 2 and "surrogate" in out["warnings"][0]["message"]
    assert out["warnings"][0]["code"] == (10107 if option == "--metadata" else 10007)
    assert api.list_media(limit=1000)["media"] == before


def test_a_category_with_a_lone_surrogate_is_not_stored(tmp_path):
    body = tmp_path / "cat.json"
    body.write_text('{"query": "* SAYS \\"refund\\"", "notes": "\\ud800"}')
    code, out, _ = _run("categories", "put", "surrogate", str(body))
    assert code == 2 and "surrogate" in out["warnings"][0]["message"]
    assert _run("categories", "get", "surrogate")[0] == 1
    assert _run("categories", "list")[0] == 0


@pytest.mark.parametrize("args", [
    ("media", "get", NOT_UTF8), ("media", "progress", NOT_UTF8), ("transcript", NOT_UTF8),
    ("categories", "get", NOT_UTF8), ("categories", "delete", "a" + NOT_UTF8), ("query", NOT_UTF8),
    ("media", "list", "--external-id", NOT_UTF8), ("media", "list", "--extended-filter", "a;" + NOT_UTF8),
    ("media", "list", "--after", NOT_UTF8),
])
def test_arguments_that_are_not_utf8_text_are_usage_errors(args):
    code, out, stderr = _run(*args)
    assert code == 2 and out["warnings"][0]["code"] == 10009
    assert "\\xff" in out["warnings"][0]["message"] and "not valid UTF-8" in stderr


def test_a_missing_file_named_with_a_byte_that_is_not_utf8_gives_valid_json(tmp_path):
    missing = os.fsdecode(os.fsencode(str(tmp_path)) + b"/nox\xff.yaml")
    code, out, _ = _run("run", str(tmp_path), "--config", missing)
    assert code == 2 and "nox\\xff.yaml" in out["warnings"][0]["message"]


# ---------------------------------------------------------------- files that are not files

def test_a_named_pipe_as_configuration_is_refused_at_once(tmp_path):
    pipe = tmp_path / "config.json"
    os.mkfifo(pipe)
    done = subprocess.run([sys.executable, "-m", "speechproc.cli", "run", str(tmp_path), "--config", str(pipe)],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "SPEECHPROC_HOME": str(tmp_path / "home")})
    assert done.returncode == 2 and "pipe" in json.loads(done.stdout)["warnings"][0]["message"]


def test_configuration_can_come_from_a_pipe_that_is_written(tmp_path):
    done = subprocess.run([sys.executable, "-m", "speechproc.cli", "run", str(tmp_path / "missing.wav"),
                           "--config", "/dev/stdin", "--quiet"], input='{"speechModel": {"language": "xx"}}',
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "SPEECHPROC_HOME": str(tmp_path / "home")})
    assert done.returncode == 2 and "speechModel.language" in json.loads(done.stdout)["warnings"][0]["message"]


def test_a_pipe_given_as_a_recording_is_a_clear_failed_item(tmp_path):
    pipe = tmp_path / "call.wav"
    os.mkfifo(pipe)
    code, out, _ = _run("run", str(pipe), "--quiet")
    [item] = out["media"]
    assert code == 1 and item["status"] == "failed" and item["error"]["warnings"][0]["code"] == 10201
    assert "not a regular file" in item["error"]["warnings"][0]["message"]


@pytest.mark.parametrize("out_dir", ["/dev/null", ""])
def test_out_must_be_a_folder(tmp_path, out_dir):
    code, out, _ = _run("run", str(_tone(tmp_path / "t.wav")), "--out", out_dir)
    assert code == 2 and out["warnings"][0]["message"].startswith("--out:")


# ---------------------------------------------------------------- names

def test_an_output_name_too_long_fails_before_any_work_and_leaves_nothing(tmp_path):
    long_name = tmp_path / ("b" * 250 + ".wav")  # the .wav fits the file system, the .v3.json cannot
    _tone(long_name)
    code, out, _ = _run("run", str(long_name), "--quiet")
    [item] = out["media"]
    assert code == 1 and item["status"] == "failed" and "bytes long" in item["error"]["warnings"][0]["message"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [long_name.name]


def test_control_characters_in_names_are_escaped_in_notes_and_summary(tmp_path):
    folder = tmp_path / "calls"
    folder.mkdir()
    (folder / "a\nFAKE: done OK.wav").symlink_to(tmp_path / "elsewhere.wav")
    result = CliRunner().invoke(main, ["run", str(folder)])  # nothing else there: no media, exit 1
    assert "a\\x0aFAKE: done OK.wav: symbolic link, skipped" in result.stderr
    assert "\nFAKE" not in result.stderr


@pytest.mark.slow  # recognises a second of tone
def test_one_file_named_twice_through_a_linked_folder_is_processed_once(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    _tone(real / "a.wav")
    (tmp_path / "link").symlink_to(real)
    code, out, stderr = _run("run", str(real / "a.wav"), str(tmp_path / "link" / "a.wav"))
    assert code == 0 and [m["status"] for m in out["media"]] == ["finished", "skipped"]
    assert "the same file as" in stderr
    written = json.loads((real / "a.v3.json").read_text())
    assert written["mediaId"] == out["media"][0]["mediaId"]
    assert invoke("media", "get", written["mediaId"])[1]["status"] == "finished"


@pytest.mark.parametrize("workers", ["0", "-1", "257", "2.5", "", "+2", "2_0", "\u0661", "0x2", "9" * 30, "many"])
def test_a_worker_count_that_is_not_one_is_refused_before_anything_is_processed(tmp_path, workers):
    before = api.list_media(limit=1000)["media"]
    code, out, err = _run("run", str(_tone(tmp_path / "t.wav")), "--workers", workers, "--out", str(tmp_path / "o"))
    assert code == 2 and out["warnings"][0]["code"] == 10009 and "number of workers" in out["warnings"][0]["message"]
    assert api.list_media(limit=1000)["media"] == before and not (tmp_path / "o").exists()


@pytest.mark.parametrize("workers, expected", [(" 2 ", 2), ("AUTO", 0), ("auto", 0), ("256", 256)])
def test_a_worker_count_may_be_spaced_or_any_case(workers, expected):
    from speechproc.cli.commands import WorkerCount

    assert WorkerCount().convert(workers, None, None) == expected
