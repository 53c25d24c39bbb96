"""Jobs on a Ray cluster: a local Ray with 2 CPUs gives the local engine's results; a lost actor, Ctrl-C."""
from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import ray  # the ray extra, which `make setup` installs

from conftest import SAMPLES
from speechproc.api import process
from speechproc.batch import distributed
from speechproc.batch.jobs import INTERRUPTED, JobEvents
from speechproc.config import v3 as config
from speechproc.config.options import build
from speechproc.errors import ConfigurationError
from speechproc.store.database.catalog import Catalog
from test_workers import CHUNK_BY_CHUNK, EVERY_ANALYTIC, ONE_THREAD, assert_same_outputs, inputs, long_call


@pytest.fixture(scope="module")
def cluster():
    """A local Ray cluster of 2 CPUs for this module; its address, for a CLI run to join."""
    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False,
             object_store_memory=distributed.LOCAL_OBJECT_STORE)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def catalog_view(catalog: Catalog) -> list[tuple]:
    rows = sorted(catalog.media.list(10), key=lambda r: r["input_path"])
    return [(Path(r["input_path"]).name, r["status"], [(t["name"], t["status"]) for t in r["tasks"]],
             sorted(Path(p).name for p in r["outputs"].values())) for r in rows]


@pytest.mark.slow
def test_ray_gives_the_results_of_the_local_engine(tmp_path, cluster):
    """This process with every core (several decoders) against Ray actors of one thread each, every analytic."""
    folder = inputs(tmp_path / "in")
    settings = config.validate(EVERY_ANALYTIC)
    runs, records = {}, {}
    for engine in ("local", "ray"):
        with Catalog(tmp_path / f"catalog-{engine}.sqlite3") as catalog:
            runs[engine] = process([folder], settings, out_dir=tmp_path / engine, catalog=catalog, deliver=False,
                                   workers=None if engine == "ray" else 1, engine=engine)
            records[engine] = catalog_view(catalog)
    assert [i.status for i in runs["ray"].items] == ["finished"] * 4
    assert records["ray"] == records["local"]
    assert_same_outputs(runs["local"].items, runs["ray"].items)


class Collect(JobEvents):
    def __init__(self, on_seconds=None) -> None:
        self.tasks: list[dict] = []
        self.outputs: list[str] = []
        self.on_seconds, self.fired = on_seconds, False

    def stage(self, media_id, tasks):
        self.tasks = tasks

    def output(self, path, sha256, media_id):
        self.outputs.append(path)

    def seconds(self, media_id, seconds):
        if self.on_seconds is not None and not self.fired:
            self.fired = True
            self.on_seconds()


def finish(pool, events) -> list:
    ended: list = []
    while not ended:  # wait returns the jobs that ended, none when only their events came
        ended = pool.wait(events)
    return ended


@pytest.mark.slow
def test_a_lost_actor_fails_its_own_job_and_a_new_actor_takes_the_next(tmp_path, cluster):
    from test_jobs import sample_job

    options = build(config.validate(CHUNK_BY_CHUNK))
    pool = distributed.RayPool(None, 1, 1)
    try:
        events = Collect(on_seconds=lambda: ray.kill(pool._actors[0]))
        recognised = replace(sample_job(tmp_path / "a"), options=options, words=None, redacted_audio=None)
        (tmp_path / "a").mkdir()
        pool.submit(0, recognised)
        [lost] = finish(pool, events)
        assert lost.result is None and lost.died.startswith("the Ray actor running it was lost")
        assert dict((t["name"], t["status"]) for t in events.tasks)["asr"] == "started"

        (tmp_path / "b").mkdir()
        pool.submit(1, sample_job(tmp_path / "b"))  # known words: no recognition
        [done] = finish(pool, Collect())
        assert done.index == 1 and done.result.status == "finished"
    finally:
        pool.close()
    assert ray.is_initialized()  # the cluster was not started by the pool: it is left running


@pytest.mark.slow
def test_interrupting_a_ray_job_removes_its_outputs(tmp_path, cluster):
    from test_jobs import sample_job

    options = build(config.validate(ONE_THREAD))
    pool = distributed.RayPool(None, 1, 1)
    try:
        (tmp_path / "a").mkdir()
        job = replace(sample_job(tmp_path / "a"), input=long_call(tmp_path / "long.wav"), options=options,
                      words=None, redacted_audio=None)
        stopped: list = []
        events = Collect(on_seconds=lambda: stopped.extend(pool.interrupt(events)))
        pool.submit(0, job)
        while not stopped:
            pool.wait(events)
        [ended] = stopped
        assert ended.result is not None and ended.result.interrupted
        assert ended.result.item["errors"][0]["error"] == INTERRUPTED
        assert not list((tmp_path / "a").iterdir())  # nothing written, nothing half-written
        assert pool.busy() == 0
    finally:
        pool.close()


def test_an_address_where_no_cluster_answers_is_a_clear_error():
    with pytest.raises(ConfigurationError, match="no Ray cluster answers there"):
        distributed.check_address("127.0.0.1:9")
    for bad in ("nonsense", "host:0", "host:99999", "ho st:6379", ":6379"):
        with pytest.raises(ConfigurationError, match="is not HOST:PORT"):
            distributed.check_address(bad)


def cli(*args: str, home: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "speechproc.cli", "run", *args], capture_output=True, text=True,
                          env={**os.environ, "SPEECHPROC_HOME": str(home)}, timeout=300)


def test_the_cli_refuses_a_ray_address_without_the_ray_engine(tmp_path):
    done = cli(str(SAMPLES / "voicemail.wav"), "--ray-address", "127.0.0.1:6379", home=tmp_path / "home")
    assert done.returncode == 2 and "--ray-address goes with --engine ray" in done.stderr
    assert not (tmp_path / "home" / "catalog.sqlite3").exists()


def test_the_cli_names_an_unreachable_cluster_and_processes_nothing(tmp_path):
    done = cli(str(SAMPLES / "voicemail.wav"), "--engine", "ray", "--ray-address", "127.0.0.1:9", "--out",
               str(tmp_path / "out"), home=tmp_path / "home")
    assert done.returncode == 2 and "no Ray cluster answers there" in done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_the_cli_runs_on_an_existing_cluster(tmp_path, cluster):
    done = cli(str(SAMPLES / "voicemail.wav"), "--engine", "ray", "--ray-address", cluster, "--quiet", "--out",
               str(tmp_path / "out"), home=tmp_path / "home")
    assert done.returncode == 0, done.stderr
    [item] = json.loads(done.stdout)["media"]
    assert item["status"] == "finished" and Path(item["outputs"]["json"]).exists()


def test_without_ray_installed_the_engine_is_refused_before_anything_runs(tmp_path):
    script = ("import sys; sys.modules['ray'] = None\n"
              "from speechproc.cli import main\n"
              "main(sys.argv[1:])\n")
    done = subprocess.run([sys.executable, "-c", script, "run", str(SAMPLES / "voicemail.wav"), "--engine", "ray"],
                          capture_output=True, text=True, env={**os.environ, "SPEECHPROC_HOME": str(tmp_path)})
    assert done.returncode == 2 and "pip install 'speechproc[ray]'" in done.stderr
    assert not (tmp_path / "catalog.sqlite3").exists()


def ray_actor_pids() -> list[int]:
    """The processes of speechproc's Ray actors on this machine (`ray::Worker...` in their command line)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            if command.startswith(b"ray::Worker"):
                found.append(int(entry.name))
    return found


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="finding Ray's actors needs Linux's /proc")
def test_a_killed_actor_and_a_killed_driver_leave_nothing_a_rerun_refuses(tmp_path, cluster):
    """Ten recordings on two actors: one actor is killed when the second media item is written, the driver
    (`speechproc run --engine ray`) when the fifth is. The same command again finishes them all, refusing none."""
    import shutil
    import signal
    import time

    from test_crash_recovery import leftovers, wait_for

    calls, out, home = tmp_path / "calls", tmp_path / "out", tmp_path / "home"
    calls.mkdir()
    for k in range(10):
        shutil.copy(SAMPLES / "voicemail.wav", calls / f"call-{k}.wav")
    command = [sys.executable, "-m", "speechproc.cli", "run", str(calls), "--engine", "ray", "--ray-address", cluster,
               "--workers", "2", "--quiet", "--out", str(out)]
    env = {**os.environ, "SPEECHPROC_HOME": str(home)}
    finished = lambda: len(list(out.glob("*.v3.json")))  # noqa: E731
    before = set(ray_actor_pids())
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        wait_for(lambda: finished() >= 2 and len(set(ray_actor_pids()) - before) >= 2, proc, "a second media item")
        os.kill(sorted(set(ray_actor_pids()) - before)[0], signal.SIGKILL)
        wait_for(lambda: finished() >= 5, proc, "a fifth media item")
        os.kill(proc.pid, signal.SIGKILL)
        at_kill = sorted(p.name for p in out.glob("*.v3.json"))
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
    deadline = time.monotonic() + 60  # Ray ends a dead driver's actors
    while set(ray_actor_pids()) - before and time.monotonic() < deadline:
        time.sleep(0.2)
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    summary = json.loads(done.stdout)
    assert done.returncode == 0, summary
    # each kill may lose the record of at most one item whose outputs were written (the actor's, written but not
    # yet reported; the driver's, reported but not yet recorded): every other item written is skipped
    statuses = [(Path(i["input"]).name, i["status"]) for i in summary["media"]]
    assert [status for _, status in statuses].count("skipped") >= len(at_kill) - 2, (statuses, at_kill)
    assert all(item["status"] in ("finished", "skipped") for item in summary["media"]) and len(summary["media"]) == 10
    assert leftovers(out) == []
