"""Where a run's time goes: with SPEECHPROC_TRACE every process records its spans (start-up, model loads,
each stage, writing, waiting) in a file of its own; without it nothing is written."""
from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from conftest import SAMPLES
from speechproc import concurrency
from speechproc.concurrency import TRACE_ENV, record_span, traced


def spans_in(folder: Path) -> dict[int, list[dict]]:
    """{pid: its events} of every trace file in `folder`; each line must be one whole JSON event."""
    found = {}
    for path in folder.glob("trace-*.jsonl"):
        events = [json.loads(line) for line in path.read_text().splitlines()]
        assert all(e["ph"] == "X" and e["dur"] >= 0 and e["pid"] == int(path.stem.removeprefix("trace-"))
                   for e in events), events
        found[int(path.stem.removeprefix("trace-"))] = events
    return found


def test_a_span_is_its_threads_and_lasts_what_the_block_lasts(tmp_path, monkeypatch):
    monkeypatch.setenv(TRACE_ENV, str(tmp_path))
    started = time.time()
    with traced("outer"):
        time.sleep(0.05)
        thread = threading.Thread(target=lambda: record_span("beside", started, started + 1), name="helper")
        thread.start()
        thread.join()
    [events] = spans_in(tmp_path).values()
    by_name = {e["name"]: e for e in events}
    assert set(by_name) == {"outer", "beside"}
    assert by_name["outer"]["tid"] == "MainThread" and by_name["beside"]["tid"] == "helper"
    assert 0.05e6 <= by_name["outer"]["dur"] < 5e6
    assert abs(by_name["outer"]["ts"] - started * 1e6) < 1e6 and by_name["beside"]["dur"] == 1_000_000


def test_nothing_is_written_without_the_variable(tmp_path, monkeypatch):
    monkeypatch.delenv(TRACE_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    with traced("x"):
        pass
    record_span("y", 0.0, 1.0)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("where", ["a-file", "missing/deeper"])
def test_a_folder_that_cannot_be_written_loses_the_spans_and_nothing_else(tmp_path, monkeypatch, where):
    target = tmp_path / where
    if where == "a-file":
        target.write_text("not a folder")
    monkeypatch.setenv(TRACE_ENV, str(target))
    with traced("x"):
        value = 42
    assert value == 42
    assert not (tmp_path / "missing").exists() and target.is_file() == (where == "a-file")


def test_the_start_up_is_recorded_once_per_process(tmp_path, monkeypatch):
    monkeypatch.setenv(TRACE_ENV, str(tmp_path))
    monkeypatch.setattr(concurrency, "_started_up", [])
    concurrency.started_up()
    concurrency.started_up()
    [events] = spans_in(tmp_path).values()
    assert [e["name"] for e in events] == ["start-up"]
    assert events[0]["ts"] / 1e6 <= time.time() and events[0]["ts"] / 1e6 == pytest.approx(
        concurrency.process_started_at(), abs=0.05)


def test_a_run_with_two_workers_traces_each_process(tmp_path, monkeypatch):
    """The main process plans and waits; each worker starts once, loads its recogniser once, and for each
    of its jobs decodes, recognises (its VAD inside) and writes."""
    from click.testing import CliRunner

    from speechproc.cli import main

    trace = tmp_path / "trace"
    trace.mkdir()
    monkeypatch.setenv(TRACE_ENV, str(trace))
    monkeypatch.setenv("SPEECHPROC_HOME", str(tmp_path / "home"))
    result = CliRunner().invoke(main, ["run", str(SAMPLES / "call.flac"), str(SAMPLES / "voicemail.wav"),
                                       "--workers", "2", "--quiet", "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    processes = spans_in(trace)
    names = {pid: [e["name"] for e in events] for pid, events in processes.items()}
    [parent] = [pid for pid in processes if pid == os.getpid()]
    workers = [pid for pid in processes if pid != parent]
    assert len(workers) == 2
    assert names[parent].count("start-up") <= 1 and names[parent].count("prepare a job") == 2
    assert "waiting for the workers" in names[parent] and "record a job" in names[parent]
    for pid in workers:
        assert names[pid].count("start-up") == 1 and names[pid].count("job") == 1
        assert {"decode", "asr", "vad", "load whisper", "publish"} <= set(names[pid])
        job = next(e for e in processes[pid] if e["name"] == "job")
        inside = [e for e in processes[pid] if e["name"] in ("decode", "asr", "publish")]
        assert all(job["ts"] <= e["ts"] and e["ts"] + e["dur"] <= job["ts"] + job["dur"] for e in inside)
