"""Models loaded once per machine: what the process that forks the workers loads, and what it never does."""
from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml

from speechproc.batch import preload
from speechproc.config import v3 as config
from speechproc.config.options import build

CONFIGS = Path(__file__).resolve().parents[1] / "configs"

# What the fork server holds after it read its file: which modules, which models, and whether the file is gone.
PROBE = r"""
import json, os, sys
name = os.environ["SPEECHPROC_PRELOAD"]
import speechproc.batch.preload as preload
print(json.dumps({
    "modules": sorted(m for m in ("torch", "spacy", "ctranslate2", "faster_whisper", "xllamacpp", "onnxruntime")
                      if m in sys.modules),
    "file_left": os.path.exists(name),
    "variable_left": "SPEECHPROC_PRELOAD" in os.environ,
    "threads": {v: os.environ.get(v) for v in preload.THREAD_ENVS},
}))
"""


def options_of(config_file: Path):
    settings = config.validate(yaml.safe_load(config_file.read_text()))
    return build(settings)


def probe(request: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in preload.THREAD_ENVS}
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=300,
                            env={**env, preload.PRELOAD_ENV: str(request)})
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_the_server_loads_the_parser_and_encoder_of_every_analytic_and_nothing_that_starts_threads(tmp_path):
    request = preload.preload_file(options_of(CONFIGS / "callcenter.yaml"))
    assert request.stat().st_mode & 0o777 == 0o600  # it holds the run's configuration
    found = probe(request)
    assert {"torch", "spacy"} <= set(found["modules"])
    assert not {"ctranslate2", "faster_whisper", "xllamacpp", "onnxruntime"} & set(found["modules"])
    assert not found["file_left"] and not found["variable_left"]
    assert found["threads"] == {v: "1" for v in preload.THREAD_ENVS}  # no native thread pool to fork


def test_a_transcript_alone_loads_no_analytic_model(tmp_path):
    request = preload.preload_file(options_of(CONFIGS / "stereo-call.yaml"))
    found = probe(request)
    assert not {"torch", "spacy"} & set(found["modules"])
    assert not found["file_left"]


def a_request(content: bytes) -> Path:
    """A file named and placed as `preload_file` makes them."""
    handle, name = tempfile.mkstemp(prefix=preload.REQUEST_PREFIX, suffix=preload.REQUEST_SUFFIX)
    with os.fdopen(handle, "wb") as f:
        f.write(content)
    return Path(name)


@pytest.mark.parametrize("content", [b"", b"not a pickle", pickle.dumps({"not": "options"})])
def test_a_damaged_request_loads_nothing_and_raises_nothing(tmp_path, monkeypatch, content):
    request = a_request(content)
    monkeypatch.setenv(preload.PRELOAD_ENV, str(request))
    for variable in preload.THREAD_ENVS:
        monkeypatch.setenv(variable, os.environ.get(variable, "2"))
    assert preload.load_named() is False
    assert preload.PRELOAD_ENV not in os.environ and not request.exists()


@pytest.mark.parametrize("where", ["elsewhere", "another name", "readable by others", "a link"])
def test_a_file_the_variable_names_that_no_run_made_is_neither_read_nor_removed(tmp_path, monkeypatch, where):
    """A leftover or mistaken SPEECHPROC_PRELOAD never costs the user a file, nor runs a pickle of theirs."""
    options = pickle.dumps(options_of(CONFIGS / "callcenter.yaml"))
    if where == "elsewhere":
        named = tmp_path / f"{preload.REQUEST_PREFIX}x{preload.REQUEST_SUFFIX}"
        named.write_bytes(options)
    elif where == "another name":
        named = Path(tempfile.gettempdir()) / f"precious-{os.getpid()}.pickle"
        named.write_bytes(options)
    elif where == "readable by others":
        named = a_request(options)
        named.chmod(0o644)
    else:
        target = tmp_path / "precious.pickle"
        target.write_bytes(options)
        named = Path(tempfile.gettempdir()) / f"{preload.REQUEST_PREFIX}link-{os.getpid()}{preload.REQUEST_SUFFIX}"
        named.symlink_to(target)
    try:
        monkeypatch.setenv(preload.PRELOAD_ENV, str(named))
        assert preload.load_named() is False
        assert named.exists() and named.read_bytes() == options
        assert preload.PRELOAD_ENV not in os.environ
    finally:
        named.unlink()


def test_a_request_that_is_gone_or_absent_loads_nothing(tmp_path, monkeypatch):
    assert preload.load_named() is False
    gone = a_request(b"")
    gone.unlink()
    monkeypatch.setenv(preload.PRELOAD_ENV, str(gone))
    for variable in preload.THREAD_ENVS:
        monkeypatch.setenv(variable, os.environ.get(variable, "2"))
    assert preload.load_named() is False
    assert preload.PRELOAD_ENV not in os.environ
