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
    # the fork server, where this run started it, preloads (and traces that), and runs no job
    workers = [pid for pid in processes if pid != parent and "preload models" not in names[pid]]
    assert len(workers) == 2
    assert names[parent].count("start-up") <= 1 and names[parent].count("prepare a job") == 2
    assert "waiting for the workers" in names[parent] and "record a job" in names[parent]
    for pid in workers:
        assert names[pid].count("start-up") == 1 and names[pid].count("job") == 1
        assert {"decode", "asr", "vad", "load whisper", "publish"} <= set(names[pid])
        job = next(e for e in processes[pid] if e["name"] == "job")
        inside = [e for e in processes[pid] if e["name"] in ("decode", "asr", "publish")]
        assert all(job["ts"] <= e["ts"] and e["ts"] + e["dur"] <= job["ts"] + job["dur"] for e in inside)


@pytest.mark.slow
def test_with_two_workers_the_analytic_models_are_loaded_once_by_the_process_that_forks_them(tmp_path):
    """Every analytic on two calls, `--workers 2`: the parser, the sentence encoder and the taxonomy's
    embeddings are loaded by one process, which runs no job and forks both workers; neither worker loads them."""
    import subprocess
    import sys

    trace = tmp_path / "trace"
    trace.mkdir()
    configs = Path(__file__).resolve().parents[1] / "configs"
    env = {**os.environ, TRACE_ENV: str(trace), "SPEECHPROC_HOME": str(tmp_path / "home")}
    result = subprocess.run([str(Path(sys.executable).parent / "speechproc"), "run", str(SAMPLES / "call.flac"),
                             str(SAMPLES / "payment.flac"), "--config", str(configs / "callcenter.yaml"),
                             "--workers", "2", "--quiet", "--out", str(tmp_path / "out")],
                            capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    processes = spans_in(trace)
    names = {pid: {e["name"] for e in events} for pid, events in processes.items()}
    analytic_loads = {"load spacy", "load sentence_encoder", "load taxonomy_vectors"}
    [server] = [pid for pid in processes if "preload models" in names[pid]]
    workers = [pid for pid in processes if "job" in names[pid] and "waiting for a job" in names[pid]]
    assert len(workers) == 2 and server not in workers
    assert analytic_loads <= names[server] and "job" not in names[server]
    for pid in workers:
        assert {"verbnoun", "knowledge", "load whisper"} <= names[pid]
        assert not analytic_loads & names[pid]
    outputs = list((tmp_path / "out").glob("*.v3.json"))
    assert len(outputs) == 2 and all("keywords" in json.loads(p.read_text())["knowledge"] for p in outputs)


@pytest.mark.slow
def test_the_later_stages_models_load_once_voice_activity_detection_is_done(tmp_path):
    """One call, every analytic, in one process: the recogniser loads while the call is decoded, and the
    parser, the sentence encoder and the taxonomy's embeddings only after the VAD (whose Python loop a load
    beside it would slow), while the speech is decoded, and before the stages that read them."""
    import subprocess
    import sys

    trace = tmp_path / "trace"
    trace.mkdir()
    configs = Path(__file__).resolve().parents[1] / "configs"
    env = {**os.environ, TRACE_ENV: str(trace), "SPEECHPROC_HOME": str(tmp_path / "home")}
    result = subprocess.run([str(Path(sys.executable).parent / "speechproc"), "run", str(SAMPLES / "call.flac"),
                             "--config", str(configs / "callcenter.yaml"), "--quiet", "--out", str(tmp_path / "out")],
                            capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    [events] = spans_in(trace).values()
    span = {e["name"]: (e["ts"], e["ts"] + e["dur"]) for e in events}
    loads = ("load spacy", "load sentence_encoder", "load taxonomy_vectors")
    assert set(loads) <= set(span)
    for name in loads:
        assert span["vad"][1] <= span[name][0] and span[name][1] <= span["knowledge"][1]
    assert span["load whisper"][0] < span["vad"][0]
