"""One bad input never stops a batch: odd names, symbolic links, missing files, crashes, overlapping runs."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import invoke, write_wav
from speechproc import api
from speechproc.batch import jobs, planning, reuse, runner
from speechproc.config import v3 as config
from speechproc.config.resolving import resolve
from speechproc.media import file_hash
from speechproc.store.database.catalog import Catalog
from speechproc.store.database.media_rows import start_mark

RATE = 8000


def tone(path: Path, seconds: float = 1.0, seed: int = 0) -> Path:
    """A short WAV; `seed` makes its content differ from its siblings'."""
    t = np.arange(int(RATE * seconds)) / RATE
    return write_wav(path, 0.3 * np.sin(2 * np.pi * (300 + 50 * seed) * t), RATE)


def noise(path: Path, seconds: float, seed: int = 0) -> Path:
    return write_wav(path, 0.3 * np.random.default_rng(seed).standard_normal(int(RATE * seconds)), RATE)


class Notes(api.Reporter):
    def __init__(self) -> None:
        self.notes: list[str] = []

    def note(self, message: str) -> None:
        self.notes.append(message)


def run_api(paths: list, home: Path, reporter: api.Reporter | None = None, **options) -> api.BatchResult:
    with Catalog(home / "catalog.sqlite3") as cat:
        return api.process(paths, config.validate({}), catalog=cat, reporter=reporter, **options)


def cli_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "speechproc.cli", "run", *args, "--quiet"]


def cli_env(home: Path) -> dict[str, str]:
    return {**os.environ, "SPEECHPROC_HOME": str(home)}


def run_cli(home: Path, *args: str) -> tuple[int, dict]:
    """A real `speechproc run` process: (exit code, the summary decoded strictly as UTF-8 JSON)."""
    done = subprocess.run(cli_command(*args), env=cli_env(home), capture_output=True, timeout=300)
    return done.returncode, json.loads(done.stdout.decode("utf-8"))


def media_rows(home: Path) -> list[dict]:
    db = sqlite3.connect(home / "catalog.sqlite3")
    db.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in db.execute("SELECT * FROM media ORDER BY rowid")]
    finally:
        db.close()


def rows_so_far(home: Path) -> list[dict]:
    """The media rows of a catalog that a run may still be creating (none while it does not exist yet)."""
    try:
        return media_rows(home) if (home / "catalog.sqlite3").exists() else []
    except sqlite3.OperationalError:  # the run is creating its tables right now
        return []


# ----------------------------------------------------------------------------- names that are not UTF-8

@pytest.mark.slow
def test_undecodable_name_is_processed_and_kept_apart_from_its_escaped_twin(tmp_path: Path) -> None:
    folder = tmp_path / "calls"
    folder.mkdir()
    tone(folder / "a.wav")
    odd = Path(os.fsdecode(os.fsencode(folder) + b"/bad\xff.wav"))
    tone(odd, seed=1)
    twin = folder / "bad\\xff.wav"  # the name as the summary shows the odd one; same content
    tone(twin, seed=1)
    home = tmp_path / "home"

    code, summary = run_cli(home, str(folder))

    assert code == 0, summary
    by_input = {m["input"]: m for m in summary["media"]}
    assert set(by_input) == {str(folder / "a.wav"), str(folder / "bad\\xff.wav"), str(folder / "bad\\\\xff.wav")}
    assert {m["status"] for m in summary["media"]} == {"finished"}
    odd_id = by_input[str(folder / "bad\\xff.wav")]["mediaId"]
    assert odd_id != by_input[str(folder / "bad\\\\xff.wav")]["mediaId"]
    written = json.loads(Path(os.fsdecode(os.fsencode(folder) + b"/bad\xff.v3.json")).read_bytes().decode("utf-8"))
    assert written["mediaId"] == odd_id and written["status"] == "finished"
    raw = sqlite3.connect(home / "catalog.sqlite3")
    raw.text_factory = bytes
    try:
        for row in raw.execute("SELECT input_path, item_json, progress_json, outputs_json FROM media"):
            for column in row:
                column.decode("utf-8")  # every stored text is valid UTF-8
    finally:
        raw.close()
    assert {r["input_raw"] for r in media_rows(home)} == {os.fsencode(p) for p in (folder / "a.wav", odd, twin)}
    with Catalog(home / "catalog.sqlite3") as cat:
        assert cat.media.get(odd_id)["input_path"] == str(odd)  # the exact path, for `media align`

    code, again = run_cli(home, str(folder))

    assert code == 0
    assert {m["input"]: (m["status"], m["mediaId"]) for m in again["media"]} == \
        {i: ("skipped", m["mediaId"]) for i, m in by_input.items()}


# ----------------------------------------------------------------------------- any exception fails one item

@pytest.mark.slow
def test_an_unexpected_exception_fails_only_its_item(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = tone(tmp_path / "first.wav"), tone(tmp_path / "second.wav", seed=1)
    real = jobs.analyse

    def analyse(path, *args, **kwargs):
        if Path(path).name == "first.wav":
            raise ZeroDivisionError("boom")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(jobs, "analyse", analyse)
    batch = run_api([first, second], tmp_path / "home")

    assert [i.status for i in batch.items] == ["failed", "finished"]
    assert batch.items[0].error["errors"][0] == {"code": 90000, "error": "ZeroDivisionError: boom"}
    with Catalog(tmp_path / "home" / "catalog.sqlite3") as cat:
        row = cat.media.get(batch.items[0].media_id)
    assert row["status"] == "failed" and row["item"]["errors"][0]["error"] == "ZeroDivisionError: boom"
    assert not {t["status"] for t in row["tasks"]} & {"pending", "started"}


def test_the_summary_is_printed_even_when_the_batch_itself_breaks(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args, **kwargs):
        raise MemoryError("no room")

    monkeypatch.setattr(runner, "output_paths", broken)
    code, out = invoke("run", str(tone(tmp_path / "a.wav")), "--quiet")

    assert code == 1
    assert out["media"] == [] and out["errors"][0]["errors"][0] == {"code": 90000, "error": "MemoryError: no room"}


# ----------------------------------------------------------------------------- symbolic links, missing paths

def test_a_symbolic_link_loop_given_by_name_is_a_failed_item(tmp_path: Path) -> None:
    loop = tmp_path / "loop.wav"
    loop.symlink_to(loop.name)
    (tmp_path / "after.wav").write_bytes(b"")

    batch = run_api([loop, tmp_path / "after.wav"], tmp_path / "home")

    assert [i.status for i in batch.items] == ["failed", "failed"]  # and the batch went on
    warning = batch.items[0].error["warnings"][0]
    assert warning["code"] == 10201 and "symbolic link loop" in warning["message"]
    assert batch.items[0].outputs == {} and not list(tmp_path.glob("loop.*.*"))
    with Catalog(tmp_path / "home" / "catalog.sqlite3") as cat:
        assert cat.media.get(batch.items[0].media_id)["status"] == "failed"


def test_symbolic_links_met_in_a_folder_are_skipped_with_a_note(tmp_path: Path) -> None:
    folder = tmp_path / "calls"
    (folder / "sub").mkdir(parents=True)
    real = tone(folder / "real.wav")
    (folder / "sub" / "link.wav").symlink_to(real)
    (folder / "elsewhere").symlink_to(tmp_path, target_is_directory=True)
    notes: list[str] = []

    inputs, problems = planning.discover([folder], notes.append)

    assert [i.path for i in inputs] == [real] and problems == []
    assert notes == [f"{folder / 'elsewhere'}: symbolic link, skipped (name it on the command line to process it)",
                     f"{folder / 'sub' / 'link.wav'}: symbolic link, skipped (name it on the command line to process it)"]


def test_a_missing_path_or_broken_link_is_a_failed_item_without_files(tmp_path: Path) -> None:
    (tmp_path / "broken.wav").symlink_to(tmp_path / "gone.wav")

    batch = run_api([tmp_path / "missing.wav", tmp_path / "broken.wav"], tmp_path / "home")

    assert [i.status for i in batch.items] == ["failed", "failed"]
    messages = [i.error["warnings"][0] for i in batch.items]
    assert messages == [{"code": 10205, "message": f"{tmp_path / 'missing.wav'}: no such file"},
                        {"code": 10205, "message": f"{tmp_path / 'broken.wav'}: a broken symbolic link"}]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.wav", "home"]
    with Catalog(tmp_path / "home" / "catalog.sqlite3") as cat:
        assert [cat.media.get(i.media_id)["status"] for i in batch.items] == ["failed", "failed"]


# ----------------------------------------------------------------------------- absolute paths

@pytest.mark.slow
def test_paths_are_stored_absolute_and_a_rerun_from_elsewhere_skips(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    calls = tmp_path / "calls"
    calls.mkdir()
    tone(calls / "x.wav")
    home = tmp_path / "home"
    monkeypatch.chdir(tmp_path)

    first = run_api(["calls/../calls/x.wav"], home).items[0]

    assert first.status == "finished" and first.path == str(calls / "x.wav")
    assert first.outputs["json"] == str(calls / "x.v3.json")
    with Catalog(home / "catalog.sqlite3") as cat:
        row = cat.media.get(first.media_id)
    assert row["input_path"] == str(calls / "x.wav") and row["outputs"]["json"] == str(calls / "x.v3.json")

    monkeypatch.chdir(calls)
    again = run_api(["x.wav"], home).items[0]

    assert (again.status, again.media_id) == ("skipped", first.media_id)


@pytest.mark.slow
def test_out_is_made_absolute_where_the_run_starts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tone(tmp_path / "x.wav")
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")

    item = run_api(["../x.wav"], tmp_path / "home", out_dir="results").items[0]

    assert item.outputs["json"] == str(tmp_path / "work" / "results" / "x.v3.json")
    assert (tmp_path / "work" / "results" / "x.v3.json").is_file()


# ----------------------------------------------------------------------------- crashes and overlapping runs

@pytest.mark.slow
def test_an_item_left_running_by_a_killed_run_is_failed_and_redone(tmp_path: Path) -> None:
    folder = tmp_path / "calls"
    folder.mkdir()
    noise(folder / "long.wav", 150)
    home = tmp_path / "home"
    victim = subprocess.Popen(cli_command(str(folder)), env=cli_env(home), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not any(r["status"] == "running" for r in rows_so_far(home)):
            assert victim.poll() is None and time.monotonic() < deadline, "the run never showed its item running"
            time.sleep(0.02)
    finally:
        victim.send_signal(signal.SIGKILL)
        victim.wait()
    [left] = media_rows(home)
    assert left["status"] == "running" and left["owner_pid"] == victim.pid

    code, summary = run_cli(home, str(folder))

    assert code == 0 and [m["status"] for m in summary["media"]] == ["finished"]
    with Catalog(home / "catalog.sqlite3") as cat:
        old = cat.media.get(left["media_id"])
    assert old["status"] == "failed"
    assert old["item"]["errors"] == [{"code": 90000, "error": "interrupted: the process handling it stopped"}]
    assert "pending" not in {t["status"] for t in old["tasks"]} and "started" not in {t["status"] for t in old["tasks"]}
    assert summary["media"][0]["mediaId"] != left["media_id"]


def test_a_reused_pid_is_not_taken_for_the_process_that_claimed_the_item(tmp_path: Path) -> None:
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        with Catalog(tmp_path / "catalog.sqlite3") as cat:
            for media_id, pid in (("mine", os.getpid()), ("live", sleeper.pid), ("reused", os.getpid())):
                cat.media.add({"mediaId": media_id, "status": "running", "dateCreated": "2026-01-01T00:00:00.000Z"},
                              f"/calls/{media_id}.wav", "h", "c", [])
                start = start_mark(pid) if media_id != "reused" else "another-boot:1"
                cat.db.execute("UPDATE media SET owner_pid = ?, owner_start = ? WHERE media_id = ?",
                               (pid, start, media_id))
            assert [r["media_id"] for r in cat.media.abandoned()] == ["reused"]
            sleeper.kill()
            sleeper.wait()
            assert sorted(r["media_id"] for r in cat.media.abandoned()) == ["live", "reused"]
    finally:
        sleeper.kill()
        sleeper.wait()


def test_an_input_a_live_run_is_processing_is_skipped(tmp_path: Path) -> None:
    wav = tone(tmp_path / "x.wav")
    home = tmp_path / "home"
    settings = config.validate({})
    with Catalog(home / "catalog.sqlite3") as cat:
        config_hash = reuse.settings_key(resolve(settings, cat), {}, None)
        item = {"mediaId": "other", "status": "running", "dateCreated": "2026-01-01T00:00:00.000Z"}
        assert cat.media.claim(item, str(wav), file_hash(wav), config_hash, [], {}, None)[0] == "claimed"
    notes = Notes()

    [result] = run_api([wav], home, notes).items

    assert (result.status, result.media_id) == ("skipped", "other")
    assert any(f"being processed by another run (pid {os.getpid()}" in n for n in notes.notes), notes.notes


@pytest.mark.slow
def test_overlapping_runs_process_each_file_once(tmp_path: Path) -> None:
    folder = tmp_path / "calls"
    folder.mkdir()
    for n in range(6):
        noise(folder / f"call{n}.wav", 20, seed=n)
    home = tmp_path / "home"
    env = cli_env(home)
    runs = [subprocess.Popen(cli_command(str(folder)), env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            for _ in range(2)]
    summaries = [json.loads(r.communicate(timeout=300)[0]) for r in runs]

    assert [r.returncode for r in runs] == [0, 0]
    rows = media_rows(home)
    assert len(rows) == 6 and {r["status"] for r in rows} == {"finished"}
    for row in rows:
        written = json.loads(Path(row["input_path"]).with_suffix(".v3.json").read_text())
        assert written["mediaId"] == row["media_id"]
    statuses = sorted(m["status"] for s in summaries for m in s["media"])
    assert statuses == ["finished"] * 6 + ["skipped"] * 6
