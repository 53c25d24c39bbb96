"""Nothing lost, nothing refused, when a process dies mid-batch: the intent a writer without the catalog leaves
before each rename, its adoption by the next run, workers that outlive their parent, and a full disk.

The intents and the full disk are tested without a speech model (known words in place of recognition); the
kills run `speechproc run --workers 2` for real, as a subprocess, and kill it at a point reached by an event
(an output appearing), never after a clock."""
from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import SAMPLES, invoke, truth_for
from speechproc import api, paths
from speechproc import errors as E
from speechproc.batch import jobs
from speechproc.store.database.catalog import Catalog
from speechproc.store.files import intents, ownership
from text_helpers import truth_words

HOSTILE = {"empty.wav": b"", "random.mp3": os.urandom(4096), "page.flac": b"<html><body>not audio</body></html>",
           "truncated.wav": (SAMPLES / "voicemail.wav").read_bytes()[:30]}


@pytest.fixture
def catalog(tmp_path):
    with Catalog(tmp_path / "catalog.sqlite3") as cat:
        yield cat


@pytest.fixture
def known_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """The voicemail's words from truth.json in place of recognition (decode and every later stage run)."""
    real = jobs.analyse

    def analyse(path, options, conv, on_stage, on_seconds=None, words=None):
        return real(path, options, conv, on_stage, on_seconds, truth_words(truth_for("voicemail.wav")))

    monkeypatch.setattr(jobs, "analyse", analyse)


def leftovers(folder: Path) -> list[str]:
    """speechproc's temporary files and intents anywhere under `folder`."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob(".*") if p.name.endswith((".tmp", intents.SUFFIX)))


def dead_pid() -> int:
    """The pid of a process that has ended."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


# ----------------------------------------------------------------------------- intents

def test_a_writer_without_the_catalog_leaves_an_intent_on_disk_before_the_rename(tmp_path, catalog):
    target = tmp_path / "call.txt"
    seen: list[tuple[bool, bool]] = []

    def on_record(path: str, sha256: str, media_id: str | None) -> None:  # what a worker sends, before the rename
        seen.append((intents.intent_file(Path(path), sha256).exists(), target.exists()))

    ledger = ownership.Ledger({}, on_record)
    ownership.write(target, "hello\n", ledger, "m-1")
    digest = paths.sha256_file(target)
    assert seen == [(True, False)]
    intent = intents.matching(ownership.canonical(target), digest)
    assert intent is not None and (intent.media_id, intent.pid) == ("m-1", os.getpid())
    ownership.replay(ledger.changes, catalog.written)  # the runner records the job: the intent has done its work
    assert catalog.written.output_hashes(str(ownership.canonical(target))) == {digest}
    assert leftovers(tmp_path) == []


def test_the_catalog_as_record_needs_no_intent(tmp_path, catalog):
    ownership.write(tmp_path / "call.txt", "hello\n", catalog.written, "m-1")
    assert leftovers(tmp_path) == []


def test_a_file_whose_record_was_lost_is_adopted_by_its_intent_and_replaced(tmp_path, catalog):
    target = tmp_path / "call.v3.json"
    ownership.write(target, '{"mediaId": "m-1"}\n', ownership.Ledger({}), "m-1")  # its record never arrived
    ownership.check([target], catalog.written)  # no OutputConflict
    digest = paths.sha256_file(target)
    assert catalog.written.output_media(str(ownership.canonical(target))) == "m-1"
    assert catalog.written.output_hashes(str(ownership.canonical(target))) == {digest}
    assert leftovers(tmp_path) == []
    ownership.write(target, '{"mediaId": "m-2"}\n', catalog.written, "m-2")
    assert json.loads(target.read_text())["mediaId"] == "m-2"


def test_a_file_changed_after_its_intent_stays_protected(tmp_path, catalog):
    target = tmp_path / "call.txt"
    ownership.write(target, "speechproc's words\n", ownership.Ledger({}), "m-1")
    target.write_text("the analyst's edit\n")
    with pytest.raises(ownership.OutputConflict):
        ownership.check([target], catalog.written)
    assert target.read_text() == "the analyst's edit\n"


@pytest.mark.parametrize("forged", ["garbage", "other-folder", "huge", "symlink", "other-name"])
def test_what_is_not_an_intent_of_this_file_makes_nothing_replaceable(tmp_path, catalog, forged):
    target = tmp_path / "notes.txt"
    target.write_text("mine\n")
    digest = paths.sha256_file(target)
    place = intents.intent_file(ownership.canonical(target), digest)
    body = {"path": str(ownership.canonical(target)), "sha256": digest, "mediaId": "m", "host": paths.HOST_TAG,
            "pid": 1}
    if forged == "garbage":
        place.write_bytes(b"\xff{not json")
    elif forged == "other-folder":
        place.write_text(json.dumps({**body, "path": str(tmp_path / "elsewhere" / "notes.txt")}))
    elif forged == "huge":
        place.write_text(json.dumps(body) + " " * (intents.MAX_INTENT_BYTES + 1))
    elif forged == "symlink":
        real = tmp_path / "real-intent"
        real.write_text(json.dumps(body))
        place.symlink_to(real)
    else:  # an intent of another output's name, moved beside this one
        place.write_text(json.dumps({**body, "path": str(ownership.canonical(tmp_path / "other.txt"))}))
    with pytest.raises(ownership.OutputConflict):
        ownership.check([target], catalog.written)
    assert target.read_text() == "mine\n"


def test_intents_that_can_never_be_adopted_are_swept_but_not_a_live_writers(tmp_path):
    target = ownership.canonical(tmp_path / "call.txt")
    live = intents.declare(target, "a" * 64, "m-1")  # this process: alive, its file not there yet
    gone = intents.declare(target, "b" * 64, "m-2")
    gone.write_text(gone.read_text().replace(f'"pid": {os.getpid()}', f'"pid": {dead_pid()}'))
    elsewhere = intents.declare(target, "c" * 64, "m-3")
    elsewhere.write_text(elsewhere.read_text().replace(paths.HOST_TAG, "00000000"))
    target.write_text("held\n")
    held = intents.declare(target, paths.sha256_file(target), "m-4")
    held.write_text(held.read_text().replace(f'"pid": {os.getpid()}', f'"pid": {dead_pid()}'))
    assert intents.sweep(tmp_path) == [gone]
    assert live.exists() and elsewhere.exists() and held.exists()  # held: its file is there to be adopted


def test_intents_of_files_the_catalog_records_are_swept_whoever_wrote_them(tmp_path):
    target = ownership.canonical(tmp_path / "call.txt")
    target.write_text("recorded\n")
    digest = paths.sha256_file(target)
    recorded = intents.declare(target, digest, "m-1")  # this process: alive, and its file in place
    other = intents.declare(target, "d" * 64, "m-2")
    assert intents.sweep(tmp_path, lambda path, sha256: (path, sha256) == (target, digest)) == [recorded]
    assert other.exists() and target.read_text() == "recorded\n"


def test_an_intent_left_by_a_main_process_killed_after_recording_its_file_goes_at_the_next_check(tmp_path, catalog):
    """Killed between the catalog's record of a worker's file and the removal of its intent: the next run's
    check of the folder removes the intent, and the file stays speechproc's."""
    target = tmp_path / "call.v3.json"
    ledger = ownership.Ledger({})
    ownership.write(target, '{"mediaId": "m-1"}\n', ledger, "m-1")  # a worker: intent, then the file
    digest = paths.sha256_file(target)
    catalog.written.record_output(str(ownership.canonical(target)), digest, "m-1")  # recorded, never settled
    intent = intents.intent_file(ownership.canonical(target), digest)
    intent.write_text(intent.read_text().replace(f'"pid": {os.getpid()}', f'"pid": {dead_pid()}'))
    ownership._cleaned.discard(target.parent)  # as in a new process
    ownership.check([target], catalog.written)
    assert leftovers(tmp_path) == []
    ownership.write(target, '{"mediaId": "m-2"}\n', catalog.written, "m-2")
    assert json.loads(target.read_text())["mediaId"] == "m-2"


def test_removing_a_half_written_set_removes_its_intents_too(tmp_path, catalog):
    ledger = ownership.Ledger({})
    outputs = {"text": tmp_path / "a.txt", "json": tmp_path / "a.v3.json"}
    ownership.write(outputs["text"], "words\n", ledger, "m-1")
    ownership.remove_set(outputs.values(), ledger)
    assert not outputs["text"].exists() and leftovers(tmp_path) == []


def test_a_recording_whose_outputs_a_dead_worker_put_in_place_is_processed_again_not_refused(tmp_path, home,
                                                                                             known_words):
    """The scene a main process killed with workers leaves: the outputs in place, their record never made."""
    shutil.copy(SAMPLES / "voicemail.wav", tmp_path / "voicemail.wav")
    out = tmp_path / "out"
    code, body = invoke("run", str(tmp_path / "voicemail.wav"), "--out", str(out), "--quiet")
    assert code == 0
    written = {p.name: p.read_bytes() for p in out.iterdir()}
    home_catalog = home / "catalog.sqlite3"
    with Catalog(home_catalog) as cat:  # the record lost with the main process
        cat.db.execute("DELETE FROM written")
        cat.db.execute("DELETE FROM media")
    for name in written:  # each output as a worker leaves it: an intent, then the file
        intents.declare(ownership.canonical(out / name), paths.sha256_file(out / name), "lost-item")
    code, body = invoke("run", str(tmp_path / "voicemail.wav"), "--out", str(out), "--quiet")
    assert code == 0 and body["media"][0]["status"] == "finished", body
    assert leftovers(out) == []
    assert sorted(p.name for p in out.iterdir()) == sorted(written)


# ----------------------------------------------------------------------------- a full disk

def test_a_full_disk_fails_the_item_with_the_folder_named_and_leaves_no_part(tmp_path, home, known_words,
                                                                             monkeypatch):
    shutil.copy(SAMPLES / "voicemail.wav", tmp_path / "voicemail.wav")
    out = tmp_path / "out"
    real_write = paths.write_bytes
    calls = {"n": 0}

    def full(tmp: Path, data) -> None:  # the third file of the set finds the disk full, and so does all after
        calls["n"] += 1
        if calls["n"] >= 3:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(tmp))
        real_write(tmp, data)

    monkeypatch.setattr(ownership, "write_bytes", full)
    code, body = invoke("run", str(tmp_path / "voicemail.wav"), "--out", str(out), "--quiet")
    assert code == 1
    [item] = body["media"]
    error = item["error"]["errors"][0]
    assert item["status"] == "failed" and item["error"]["status"] == 507
    assert error["code"] == E.OUTPUT_NOT_WRITTEN and f"no space left in {out}" in error["error"]
    assert list(out.iterdir()) == []  # the two files written before were removed; no temporary file, no intent
    assert api.get_media(item["mediaId"])["status"] == "failed"
    monkeypatch.setattr(ownership, "write_bytes", real_write)  # space is freed
    code, body = invoke("run", str(tmp_path / "voicemail.wav"), "--out", str(out), "--quiet")
    assert code == 0 and body["media"][0]["status"] == "finished"


@pytest.fixture
def small_disk(tmp_path):
    """A 1 MiB tmpfs mounted for the test; skipped where this process may not mount one."""
    where = tmp_path / "disk"
    where.mkdir()
    if sys.platform != "linux" or os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("a small file system needs root on Linux to mount a tmpfs (the injected fault test runs anyway)")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(where)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"a tmpfs cannot be mounted here ({done.stderr.strip()})")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def test_a_real_full_file_system_fails_the_item_and_a_run_after_space_is_freed_finishes(tmp_path, home, known_words,
                                                                                         small_disk):
    shutil.copy(SAMPLES / "voicemail.wav", tmp_path / "voicemail.wav")
    filler = small_disk / "filler.bin"
    with open(filler, "wb") as f:  # fill it to the last 8 KiB: the captions fit, the media item does not
        try:
            f.write(b"\0" * (1 << 20))
        except OSError:
            pass
    filler.write_bytes(b"\0" * (filler.stat().st_size - 8192))
    out = small_disk / "out"
    code, body = invoke("run", str(tmp_path / "voicemail.wav"), "--out", str(out), "--quiet")
    [item] = body["media"]
    assert code == 1 and item["error"]["errors"][0]["code"] == E.OUTPUT_NOT_WRITTEN, body
    assert f"no space left in {out}" in item["error"]["errors"][0]["error"]
    left = sorted(p.name for p in out.iterdir()) if out.exists() else []
    assert left in ([], ["voicemail.v3.json"])  # no part of the set; at most the failed item's small JSON
    if left:
        assert json.loads((out / "voicemail.v3.json").read_text())["errors"][0]["code"] == E.OUTPUT_NOT_WRITTEN
    filler.unlink()
    code, body = invoke("run", str(tmp_path / "voicemail.wav"), "--out", str(out), "--quiet")
    assert code == 0 and body["media"][0]["status"] == "finished"
    assert {p.suffix for p in out.iterdir()} == {".json", ".txt", ".srt", ".vtt", ".dfxp"}


# ----------------------------------------------------------------------------- kill -9, for real

def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def descendants(pid: int) -> list[int]:
    found = children(pid)
    return found + [d for child in found for d in descendants(child)]


def worker_processes(pid: int) -> list[int]:
    """The worker processes of the run `pid`: its own children started fresh (spawn), or the children of the
    fork server it started, which forks them."""
    found = []
    for child in children(pid):
        command = Path(f"/proc/{child}/cmdline").read_text(errors="replace")
        if "spawn_main" in command:
            found.append(child)
        elif "forkserver" in command:
            found += children(child)
    return found


def alive(pid: int) -> bool:
    return paths.process_mark(pid) is not None


def wait_for(condition, proc: subprocess.Popen, what: str, limit_s: float = 600) -> None:
    """Until `condition()` holds; fails when the run ends first (or after `limit_s`, which only a hang reaches)."""
    deadline = time.monotonic() + limit_s
    while not condition():
        assert proc.poll() is None, f"the run ended before {what}: {proc.stdout.read() if proc.stdout else ''}"
        assert time.monotonic() < deadline, f"no {what} within {limit_s} s"
        time.sleep(0.05)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finding a run's workers needs Linux's /proc")
def test_a_run_killed_with_its_workers_mid_batch_is_finished_by_the_next_without_refusals(tmp_path, home):
    """24 recordings and 4 hostile files, two workers. One worker is killed when the third media item is
    written, the main process when the eighth is; the workers left outlive it by no more than a moment and
    put nothing more in place. The same command again finishes every good file, once, and refuses nothing."""
    calls = tmp_path / "calls"
    calls.mkdir()
    for k in range(24):
        shutil.copy(SAMPLES / "voicemail.wav", calls / f"call-{k:02d}.wav")
    for name, content in HOSTILE.items():
        (calls / name).write_bytes(content)
    out = tmp_path / "out"
    command = [str(Path(sys.executable).parent / "speechproc"), "run", str(calls), "--out", str(out), "--workers", "2",
               "--quiet"]
    env = {**os.environ, "SPEECHPROC_HOME": str(home)}
    finished = lambda: len(list(out.glob("call-*.v3.json")))  # noqa: E731

    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        wait_for(lambda: finished() >= 3, proc, "a third media item")
        workers = worker_processes(proc.pid)
        assert len(workers) == 2
        os.kill(workers[0], signal.SIGKILL)
        wait_for(lambda: finished() >= 8, proc, "an eighth media item")
        orphans = descendants(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
    deadline = time.monotonic() + 30
    while any(alive(p) for p in orphans) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(p) for p in orphans), "a worker outlived its killed parent"

    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    summary = json.loads(done.stdout)
    by_name = {Path(item["input"]).name: item for item in summary["media"]}
    refusals = [item for item in summary["media"] if item.get("error", {}).get("status") == 409]
    assert refusals == []
    good = {name: item for name, item in by_name.items() if name.startswith("call-")}
    assert len(good) == 24 and all(item["status"] in ("finished", "skipped") for item in good.values()), \
        {n: i.get("error") for n, i in good.items() if i["status"] not in ("finished", "skipped")}
    assert {name: by_name[name]["status"] for name in HOSTILE} == {name: "failed" for name in HOSTILE}
    assert done.returncode == 1  # the hostile files
    assert leftovers(out) == [] and leftovers(calls) == []
    for k in range(24):  # every good file's set complete, its media item the one the catalog has finished
        stem = out / f"call-{k:02d}"
        item = json.loads(stem.with_suffix(".v3.json").read_text())
        assert item["status"] == "finished" and all(stem.with_suffix(s).exists() for s in (".txt", ".srt", ".vtt", ".dfxp"))
    with Catalog(home / "catalog.sqlite3") as cat:
        rows = cat.media.all()
        assert not [r for r in rows if r["status"] in ("accepted", "running")]
        finished_per_input: dict[str, int] = {}
        for row in rows:
            if row["status"] == "finished":
                finished_per_input[row["input_path"]] = finished_per_input.get(row["input_path"], 0) + 1
        assert sorted(finished_per_input.values()) == [1] * 24  # each good file finished exactly once

