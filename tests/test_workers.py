"""Jobs in worker processes: how many, the same results as one process, a dying worker, Ctrl-C."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from conftest import SAMPLES, write_wav
from speechproc.api import process
from speechproc.batch.jobs import JobEvents
from speechproc.batch.workers import MEMORY_PER_WORKER, Finished, LocalPool, plan_workers
from speechproc.config import v3 as config
from speechproc.config.options import build
from speechproc.store.database.catalog import Catalog

GIB = 2**30
ONE_THREAD = {"speechproc": {"threads": 1}}
# Recognition reports progress after every 30 s chunk, so a job can be stopped while it recognises.
CHUNK_BY_CHUNK = {"speechproc": {"threads": 1, "batchSize": 1}}


@pytest.mark.parametrize("requested, jobs, threads, cores, memory, expected", [
    (None, 10, 0, 2, 16 * GIB, (2, 1)),  # auto: one worker per core
    (None, 10, 0, 8, 5 * GIB, (2, 4)),  # ... as many as the memory holds
    (None, 1, 0, 4, 16 * GIB, (1, 4)),  # ... no more than there are recordings
    (None, 10, 0, 2, 1 * GIB, (1, 2)),  # at least one
    (1, 10, 0, 2, 16 * GIB, (1, 2)),
    (2, 10, 3, 2, 16 * GIB, (2, 3)),  # configured threads are kept
    (4, 10, 0, 2, 16 * GIB, (4, 1)),
    (8, 2, 0, 2, 16 * GIB, (2, 1)),  # a number asked for: no more workers than recordings either
    (256, 1, 0, 2, 16 * GIB, (1, 2)),  # ... one recording: this process, with every core
    (2, 0, 0, 2, 16 * GIB, (1, 2)),
])
def test_workers_and_threads_share_out_the_cores(requested, jobs, threads, cores, memory, expected):
    assert plan_workers(requested, jobs, threads, cores, memory) == expected
    assert MEMORY_PER_WORKER == 2 * GIB  # what docs/scaling.md and --help say


def _worker_limits(queue) -> None:
    from threadpoolctl import threadpool_info
    from tqdm import tqdm

    from speechproc.batch.workers import prepare_worker

    prepare_worker(1)
    queue.put(([info["num_threads"] for info in threadpool_info()], type(tqdm.get_lock()).__module__))


def test_a_worker_keeps_to_its_threads_and_holds_no_named_semaphore():
    """numpy's BLAS, loaded before the worker's first line, is told its thread count; tqdm's bars (which
    faster-whisper makes) lock with a thread lock, not a semaphore a killed worker would leave behind."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=_worker_limits, args=(queue,))
    process.start()
    blas_threads, lock_module = queue.get(timeout=60)
    process.join(timeout=60)
    assert blas_threads and set(blas_threads) == {1}
    assert lock_module != "tqdm.std"  # tqdm's own TqdmDefaultWriteLock holds a multiprocessing RLock


def inputs(folder: Path) -> Path:
    """The sample call and voicemail, the call three times over (recognised in several batches), and the call
    twice over mixed down to one channel (diarized, its speaker embeddings computed in several pieces)."""
    from speechproc.media import decode

    folder.mkdir(parents=True)
    for name in ("call.flac", "voicemail.wav"):
        shutil.copy(SAMPLES / name, folder / name)
    long_call(folder / "call-long.wav", 3)
    track = decode(SAMPLES / "call.flac")
    write_wav(folder / "call-mono.wav", np.tile(track.samples.mean(axis=0), 2), track.sample_rate)
    return folder


def without_ids(item: dict) -> dict:
    return {k: v for k, v in item.items() if k not in ("mediaId", "_links", "dateCreated", "dateFinished")}


EVERY_ANALYTIC = {"speechModel": {"features": ["voiceFeatures", "advancedPunctuation"]},
                  "metrics": [{"metricGroupName": "overtalk"}, {"metricGroupName": "sentiment"}],
                  "speakerSentiments": True, "conversation": {"verbNounPairsEnabled": True},
                  "knowledge": {"enableDiscovery": True}}


@pytest.mark.slow
def test_two_workers_and_any_threads_give_the_results_of_one(tmp_path):
    """One worker with every core (several decoders, speaker embeddings in pieces side by side), two that share
    the cores, and one with three threads, with every analytic: neither the recogniser, the speaker encoder nor
    the sentence encoder may depend on the threads."""
    folder = inputs(tmp_path / "in")
    runs = {}
    for name, workers, threads in (("one", 1, 0), ("two", 2, 0), ("three threads", 1, 3)):
        settings = config.validate({**EVERY_ANALYTIC, "speechproc": {"threads": threads}})
        with Catalog(tmp_path / f"catalog-{name}.sqlite3") as catalog:
            batch = process([folder], settings, out_dir=tmp_path / name, catalog=catalog, workers=workers,
                            deliver=False)
            assert [i.status for i in batch.items] == ["finished"] * 4
            assert {row["status"] for row in catalog.media.list(10)} == {"finished"}
        runs[name] = batch
    mono = json.loads(Path(next(i for i in runs["one"].items if "mono" in i.path).outputs["json"]).read_text())
    assert len({w["w"] for w in mono["transcript"]["words"] if w.get("m") == "turn"}) >= 2  # diarized
    assert_same_outputs(runs["one"].items, runs["two"].items)
    assert_same_outputs(runs["one"].items, runs["three threads"].items)


def assert_same_outputs(ones: list, twos: list) -> None:
    """Two runs' items in the same input order, with byte-identical text outputs and equal JSON apart from
    ids and dates."""
    assert [one.path for one in ones] == [two.path for two in twos]
    for one, two in zip(ones, twos):
        assert one.outputs.keys() == two.outputs.keys()
        for name, path in one.outputs.items():
            if name == "json":
                first, second = (json.loads(Path(p).read_text()) for p in (path, two.outputs[name]))
                assert without_ids(first) == without_ids(second)
            else:
                assert Path(path).read_bytes() == Path(two.outputs[name]).read_bytes()


class KillOnFirstSecond(JobEvents):
    """Kills the worker the first time recognition reports progress."""

    def __init__(self, pool: LocalPool) -> None:
        self.pool, self.killed = pool, False
        self.tasks: list[dict] = []

    def stage(self, media_id, tasks):
        self.tasks = tasks

    def seconds(self, media_id, seconds):
        if not self.killed:
            os.kill(self.pool._slots[0].process.pid, signal.SIGKILL)
            self.killed = True


@pytest.mark.slow
def test_a_worker_killed_fails_its_own_job_and_a_new_worker_takes_the_next(tmp_path):
    from test_jobs import sample_job

    options = build(config.validate(CHUNK_BY_CHUNK))
    pool = LocalPool(1, 1)
    try:
        events = KillOnFirstSecond(pool)
        recognised = replace(sample_job(tmp_path / "a"), options=options, words=None, redacted_audio=None)
        (tmp_path / "a").mkdir()
        pool.submit(0, recognised)
        finished: list[Finished] = []
        while not finished:
            finished = pool.wait(events)
        [dead] = finished
        assert dead.result is None and "killed by SIGKILL (out of memory" in dead.died
        assert dict((t["name"], t["status"]) for t in events.tasks)["asr"] == "started"

        (tmp_path / "b").mkdir()
        pool.submit(1, sample_job(tmp_path / "b"))  # known words: no recognition, no kill
        ended: list[Finished] = []
        while not ended:  # wait returns the jobs that ended, none when only their events came
            ended = pool.wait(JobEvents())
        [done] = ended
        assert done.index == 1 and done.result.status == "finished"
    finally:
        pool.close()


@pytest.mark.slow
def test_a_worker_that_died_while_idle_is_replaced_before_it_gets_a_job(tmp_path):
    from test_jobs import sample_job

    pool = LocalPool(1, 1)
    try:
        idle = pool._slots[0].process
        idle.kill()
        idle.join()
        (tmp_path / "a").mkdir()
        pool.submit(0, sample_job(tmp_path / "a"))  # known words: no recognition
        ended: list[Finished] = []
        while not ended:
            ended = pool.wait(JobEvents())
        [done] = ended
        assert done.result.status == "finished" and pool._slots[0].process.pid != idle.pid
    finally:
        pool.close()


def long_call(path: Path, copies: int = 4) -> Path:
    """The sample call `copies` times over, as a 16-bit stereo WAV (long enough to interrupt)."""
    import wave

    from speechproc.media import decode

    track = decode(SAMPLES / "call.flac")
    samples = np.tile(track.samples, copies).T
    with wave.open(str(path), "wb") as f:
        f.setnchannels(samples.shape[1])
        f.setsampwidth(2)
        f.setframerate(track.sample_rate)
        f.writeframes((np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())
    return path


RECOGNISING_COPIES = 16  # the sample call 16 times over: 18.6 minutes, recognised for many seconds on any machine


def recognising(home: Path, workers: int) -> bool:
    """Whether `workers` items of the run's catalog are being recognised now."""
    if not (home / "catalog.sqlite3").exists():
        return False
    with Catalog(home / "catalog.sqlite3") as catalog:
        rows = catalog.media.list(10)
    return sum(1 for r in rows for t in r["tasks"] if t["name"] == "asr" and t["status"] == "started") == workers


STOP_DEADLINE_S = 600


def as_at_a_terminal() -> None:
    """In the child before it starts: Ctrl-C as a terminal delivers it. A test run started in the background
    by a shell without job control (as CI may be) inherits SIGINT ignored, and Python then never turns it
    into KeyboardInterrupt: the run would go on to the end whatever the test sends."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
@pytest.mark.parametrize("workers, presses", [(2, 1), (1, 2)])
def test_ctrl_c_stops_the_workers_cleanly(tmp_path, workers, presses):
    """Two workers of one thread each, or this process with its two decoders and Ctrl-C pressed twice: exit 130,
    the summary of what was handled, no item left running, no partial output, no temporary file.

    Ctrl-C comes once every worker is recognising a recording long enough that the batch cannot end before the
    signal lands (recognising one takes many seconds; the catalog is looked at every 0.1 s)."""
    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("first.wav", "second.wav", "third.wav"):
        long_call(folder / name, RECOGNISING_COPIES)
    home = tmp_path / "home"
    (tmp_path / "threads.yaml").write_text(f"speechproc:\n  threads: {3 - workers}\n")
    env = {**os.environ, "SPEECHPROC_HOME": str(home)}
    cli = subprocess.Popen([sys.executable, "-m", "speechproc.cli", "run", str(folder), "--workers", str(workers),
                            "--quiet", "--config", str(tmp_path / "threads.yaml")], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, preexec_fn=as_at_a_terminal)
    deadline = time.monotonic() + 180
    while not recognising(home, workers):
        if cli.poll() is not None or time.monotonic() > deadline:
            cli.kill()
            out, err = cli.communicate()
            pytest.fail(f"the run never had {workers} recordings in recognition (exit {cli.returncode}): {err[-2000:]}")
        time.sleep(0.1)
    for _ in range(presses):
        cli.send_signal(signal.SIGINT)
        time.sleep(0.3)
    try:  # a bound on a stop that takes seconds alone: room for a machine loaded many times over
        out, err = cli.communicate(timeout=STOP_DEADLINE_S)
    except subprocess.TimeoutExpired:
        cli.kill()
        out, err = cli.communicate()
        pytest.fail(f"the run had not stopped {STOP_DEADLINE_S} s after Ctrl-C: {err[-2000:]}")
    assert cli.returncode == 130 and "interrupted" in err
    summary = json.loads(out)
    with Catalog(home / "catalog.sqlite3") as catalog:
        rows = catalog.media.list(10)
    assert rows and {r["status"] for r in rows} <= {"finished", "failed"}
    assert any(r["item"].get("errors") == [{"code": 90000, "error": "interrupted"}] for r in rows)
    assert all(t["status"] not in ("pending", "started") for r in rows for t in r["tasks"])
    assert {(m["mediaId"], m["status"]) for m in summary["media"]} == {(r["media_id"], r["status"]) for r in rows}
    assert summary["errors"][-1]["errors"][0]["code"] == 90000
    left = sorted(p.name for p in folder.iterdir())
    for r in rows:  # an interrupted item leaves no outputs; a finished one its whole set
        stem = Path(r["input_path"]).stem
        written = sorted(n for n in left if n.startswith(stem + ".") and n != stem + ".wav")
        assert written == ([] if r["status"] == "failed" else sorted(Path(p).name for p in r["outputs"].values()))
    assert not [n for n in left if n.endswith(".tmp")]


def test_the_progress_bar_sums_the_audio_of_every_running_job():
    from speechproc.batch.runner import ItemResult
    from speechproc.cli.progress import BarReporter

    bar = BarReporter(quiet=True)
    bar.audio_seconds(30, "a")
    bar.audio_seconds(20, "b")
    bar.audio_seconds(10, "a")  # a second channel of a starts again from 0: the furthest point counts
    assert bar.done_seconds + sum(bar.running.values()) == 50
    bar.item_done(ItemResult("a.wav", "a", "finished", length_ms=70_000))
    assert bar.done_seconds + sum(bar.running.values()) == 90


def test_a_local_insights_model_counts_in_each_workers_memory():
    from speechproc.stages.call_insights import insights
    from speechproc.stages.options import InsightsOptions

    extra = insights.memory(InsightsOptions(reason=True))
    assert extra == 1.5 * GIB and insights.memory(InsightsOptions(reason=True, model="http://llm:8080/v1")) == 0
    assert insights.memory(InsightsOptions()) == 0  # no insights asked for
    assert plan_workers(None, 10, 0, 8, 9 * GIB) == (4, 2)
    assert plan_workers(None, 10, 0, 8, 9 * GIB, extra_memory=extra) == (2, 4)  # 3.5 GiB each: two fit
