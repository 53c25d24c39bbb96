"""What speechproc may write: never a file it did not write, complete sets, crash leftovers, permissions."""
from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from conftest import invoke, write_wav
from speechproc import api, paths
from speechproc.batch import jobs
from speechproc.batch.planning import discover, output_paths
from speechproc.batch.publishing import write_outputs
from speechproc.config import v3 as config
from speechproc.conversation import Conversation
from speechproc.store.database.catalog import Catalog
from speechproc.store.files import ownership

BROKEN = b"ID3" + bytes(range(256)) * 20  # an mp3 name over bytes no decoder reads: fails without the model


def tone(path: Path, seconds: float = 1.0) -> Path:
    t = np.arange(int(16000 * seconds)) / 16000
    return write_wav(path, 0.3 * np.sin(2 * np.pi * 440 * t), 16000)


@pytest.fixture
def catalog(tmp_path):
    with Catalog(tmp_path / "catalog.sqlite3") as cat:
        yield cat


@pytest.fixture
def umask():
    """Set the process umask for one test; the old one comes back afterwards."""
    old = os.umask(0o022)
    os.umask(old)
    yield os.umask
    os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# ----------------------------------------------------------------------------- never replace another's file

@pytest.mark.slow
def test_a_users_files_beside_the_recording_are_left_alone_and_the_item_fails(tmp_path):
    tone(tmp_path / "interview.wav")
    (tmp_path / "interview.txt").write_text("my own notes\n")
    (tmp_path / "interview.srt").write_text("1\n00:00:00,000 --> 00:00:01,000\nmine\n")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    code, out = invoke("run", str(tmp_path), "--quiet")
    [item] = out["media"]
    assert code == 1 and item["status"] == "failed"
    message = item["error"]["warnings"][0]["message"]
    assert "interview." in message and "--out DIR" in message and "not written by speechproc" in message
    assert {n: (tmp_path / n).read_bytes() for n in before} == before
    assert not list(tmp_path.glob(".*tmp"))


def test_a_users_json_is_not_replaced_even_by_a_failed_item(tmp_path):
    (tmp_path / "broken.mp3").write_bytes(BROKEN)
    (tmp_path / "broken.v3.json").write_text('{"mine": true}\n')
    code, out = invoke("run", str(tmp_path / "broken.mp3"), "--quiet")
    assert code == 1 and out["media"][0]["status"] == "failed" and "outputs" not in out["media"][0]
    assert (tmp_path / "broken.v3.json").read_text() == '{"mine": true}\n'


@pytest.mark.slow
def test_outputs_are_replaced_while_unchanged_but_not_once_hand_edited(tmp_path):
    tone(tmp_path / "call.wav")
    settings = config.validate({})
    first = api.process([tmp_path], settings).items[0]
    again = api.process([tmp_path], settings, force=True).items[0]
    assert (first.status, again.status) == ("finished", "finished") and first.media_id != again.media_id
    assert json.loads((tmp_path / "call.v3.json").read_text())["mediaId"] == again.media_id
    (tmp_path / "call.txt").write_text("corrected by an analyst\n")
    edited = api.process([tmp_path], settings, force=True).items[0]
    assert edited.status == "failed" and "changed since speechproc wrote it" in edited.error["warnings"][0]["message"]
    assert (tmp_path / "call.txt").read_text() == "corrected by an analyst\n"


def test_a_users_file_stops_the_item_before_any_audio_is_processed(tmp_path, monkeypatch):
    def analyse(*args, **kwargs):
        raise AssertionError("the audio was processed")

    monkeypatch.setattr(jobs, "analyse", analyse)
    tone(tmp_path / "call.wav", 0.2)
    (tmp_path / "call.vtt").write_text("WEBVTT\n\nmine\n")
    [item] = api.process([tmp_path], config.validate({})).items
    assert item.status == "failed" and "call.vtt already exists" in item.error["warnings"][0]["message"]
    assert (tmp_path / "call.vtt").read_text() == "WEBVTT\n\nmine\n"


def test_check_refuses_a_foreign_or_edited_file_and_accepts_absent_or_own_ones(tmp_path, catalog):
    own, foreign = tmp_path / "a.txt", tmp_path / "b.txt"
    ownership.write(own, "ours\n", catalog.written, "m1")
    foreign.write_text("theirs\n")
    ownership.check([own, tmp_path / "absent.srt", None], catalog.written)
    with pytest.raises(ownership.OutputConflict, match="b.txt already exists and was not written by speechproc"):
        ownership.check([own, foreign], catalog.written)
    own.write_text("edited\n")
    with pytest.raises(ownership.OutputConflict, match="was changed since"):
        ownership.check([own], catalog.written)


def test_a_file_appearing_while_an_output_is_written_is_not_replaced(tmp_path, catalog):
    target = tmp_path / "a.srt"

    def slow_writer(tmp: Path) -> None:
        tmp.write_text("ours")
        target.write_text("a person's file, made meanwhile")

    with pytest.raises(ownership.OutputConflict):
        ownership.write(target, slow_writer, catalog.written, "m1")
    assert target.read_text() == "a person's file, made meanwhile"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".a.srt")] == []


def test_outputs_listed_by_an_older_version_are_recognised_and_adopted(tmp_path, catalog, monkeypatch):
    """Older versions kept no record and listed outputs as given, relative to the run's folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "calls").mkdir()
    extensions = {"json": ".v3.json", "text": ".txt", "srt": ".srt", "webvtt": ".vtt", "dfxp": ".dfxp"}
    for media_id, stem in (("old-1", "a"), ("old-2", "b")):
        catalog.media.add({"mediaId": media_id, "status": "finished", "dateCreated": "2026-01-01T00:00:00.000Z"},
                          str(tmp_path / "calls" / f"{stem}.wav"), "h", "c", [])
        catalog.media.update(media_id, outputs={k: f"calls/{stem}{ext}" for k, ext in extensions.items()})
        for k, ext in extensions.items():
            (tmp_path / "calls" / f"{stem}{ext}").write_text(json.dumps({"mediaId": media_id}) if k == "json" else "")
    (tmp_path / "calls" / "b.v3.json").write_text(json.dumps({"mediaId": "someone else's"}))
    with pytest.raises(ownership.OutputConflict):
        ownership.check([tmp_path / "calls" / "b.txt"], catalog.written)
    catalog.media.update("old-2", outputs={"text": str(tmp_path / "calls" / "b.txt")})  # listed by absolute path
    ownership.check([tmp_path / "calls" / "b.txt"], catalog.written)
    outputs = {k: tmp_path / "calls" / f"a{ext}" for k, ext in extensions.items()}
    write_outputs({"mediaId": "new", "status": "finished"}, Conversation("new"), outputs, catalog.written)
    assert json.loads(outputs["json"].read_text())["mediaId"] == "new"


# ----------------------------------------------------------------------------- one output file per input

def names(plan: dict, root: Path) -> set[str]:
    return {str(p.relative_to(root)) for outputs in plan.values() for p in outputs.values()}


def test_two_folders_with_the_same_tree_under_one_out_dir_never_share_outputs(tmp_path):
    for d in ("d1", "d2"):
        (tmp_path / d / "sub").mkdir(parents=True)
        tone(tmp_path / d / "sub" / "a.wav", 0.1)
    inputs, _ = discover([tmp_path / "d1", tmp_path / "d2"])
    plan = output_paths(inputs, tmp_path / "out")
    assert [plan[i.path]["json"] for i in inputs] == [tmp_path / "out" / "d1" / "sub" / "a.v3.json",
                                                      tmp_path / "out" / "d2" / "sub" / "a.v3.json"]
    assert len(names(plan, tmp_path)) == 10


def test_folders_without_a_clash_mirror_straight_under_the_out_dir(tmp_path):
    for d, name in (("d1", "a.wav"), ("d2", "b.wav")):
        (tmp_path / d).mkdir()
        tone(tmp_path / d / name, 0.1)
    inputs, _ = discover([tmp_path / "d1", tmp_path / "d2"])
    plan = output_paths(inputs, tmp_path / "out")
    assert {plan[i.path]["srt"].name for i in inputs} == {"a.srt", "b.srt"}
    assert {plan[i.path]["srt"].parent for i in inputs} == {tmp_path / "out"}


def test_files_of_one_name_given_directly_get_numbered_outputs_in_argument_order(tmp_path):
    for d in ("x", "y", "z"):
        (tmp_path / d).mkdir()
        tone(tmp_path / d / "a.wav", 0.1)
    inputs, _ = discover([tmp_path / d / "a.wav" for d in ("x", "y", "z")] + [tmp_path / "x" / "a.wav"])
    plan = output_paths(inputs, tmp_path / "out")
    assert [plan[i.path]["text"].name for i in inputs] == ["a.txt", "a-2.txt", "a-3.txt", "a.txt"]
    assert len(names(plan, tmp_path)) == 15


# ----------------------------------------------------------------------------- crash recovery

def test_the_media_item_json_is_written_after_every_other_file(tmp_path, catalog, monkeypatch):
    outputs = {"json": tmp_path / "c.v3.json", **{f: tmp_path / f"c.{f}" for f in ("text", "srt", "webvtt", "dfxp")}}
    conv = Conversation("m1")
    write_outputs({"mediaId": "m1", "status": "finished"}, conv, outputs, catalog.written)
    published = []
    real = ownership.publish

    def publish(tmp: Path, path: Path, replace: bool = True) -> None:
        published.append(path.name)
        if path.suffix == ".srt":
            raise KeyboardInterrupt  # stands for a kill between two files
        real(tmp, path, replace)

    monkeypatch.setattr(ownership, "publish", publish)
    with pytest.raises(KeyboardInterrupt):
        write_outputs({"mediaId": "m2", "status": "finished"}, conv, outputs, catalog.written)
    assert published == ["c.text", "c.srt"]
    assert not outputs["json"].exists()  # the earlier run's JSON is gone: it no longer describes the set
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".c")) == []
    monkeypatch.setattr(ownership, "publish", real)
    write_outputs({"mediaId": "m3", "status": "finished"}, conv, outputs, catalog.written)
    assert json.loads(outputs["json"].read_text())["mediaId"] == "m3"


KILLED_WRITER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from speechproc import paths

    def slow(tmp, data):
        Path(tmp).write_bytes(b"half")
        print(tmp, flush=True)
        time.sleep(60)

    paths.write_bytes = slow
    paths.atomic_write(Path(sys.argv[1]), "a whole transcript")
""")


def start_killable_writer(target: Path) -> tuple[subprocess.Popen, Path]:
    proc = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(target)], stdout=subprocess.PIPE, text=True)
    return proc, Path(proc.stdout.readline().strip())


def test_temporary_files_of_a_killed_writer_are_removed_but_a_live_writers_are_not(tmp_path):
    proc, tmp = start_killable_writer(tmp_path / "call.txt")
    try:
        assert tmp.parent == tmp_path and tmp.name.startswith(".call.txt.speechproc-") and tmp.name.endswith(".tmp")
        assert paths.remove_stale_temporaries(tmp_path) == [] and tmp.exists()  # its writer is still alive
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
    unrelated = [tmp_path / ".notes.txt.tmp", tmp_path / ".call.txt.speechproc-00000000-1-0123abcd.tmp"]
    for path in unrelated:  # a user's hidden file, and one written on another host
        path.write_text("keep")
    assert tmp.exists() and not (tmp_path / "call.txt").exists()
    assert paths.remove_stale_temporaries(tmp_path) == [tmp]
    assert all(p.exists() for p in unrelated)


def test_a_run_removes_stale_temporary_files_where_it_writes(tmp_path):
    proc, tmp = start_killable_writer(tmp_path / "broken.v3.json")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    (tmp_path / "broken.mp3").write_bytes(BROKEN)
    code, out = invoke("run", str(tmp_path / "broken.mp3"), "--quiet")
    assert out["media"][0]["status"] == "failed" and (tmp_path / "broken.v3.json").exists()
    assert not tmp.exists()


# ----------------------------------------------------------------------------- permissions

@pytest.mark.parametrize("mask, expected", [(0o022, 0o644), (0o077, 0o600)])
def test_outputs_honour_the_umask(tmp_path, catalog, umask, mask, expected):
    umask(mask)
    paths.atomic_write(tmp_path / "a.txt", "x")
    ownership.write(tmp_path / "b.srt", "x", catalog.written, "m1")
    with paths.atomic_path(tmp_path / "c.wav") as tmp:
        tmp.write_bytes(b"RIFF")
    ownership.write(tmp_path / "d.flac", lambda tmp: tmp.write_bytes(b"fLaC"), catalog.written, "m1")  # like the audio
    assert [mode(tmp_path / n) for n in ("a.txt", "b.srt", "c.wav", "d.flac")] == [expected] * 4


@pytest.mark.parametrize("mask", [0o022, 0o077])
def test_the_state_folder_and_catalog_are_private(tmp_path, monkeypatch, umask, mask):
    umask(mask)
    monkeypatch.setenv("SPEECHPROC_HOME", str(tmp_path / "home"))
    with Catalog() as cat:
        cat.media.add({"mediaId": "m", "status": "accepted", "dateCreated": "2026-01-01T00:00:00.000Z"}, "x", None, "c", [])
        assert mode(tmp_path / "home") == 0o700
        assert {p.name: mode(p) for p in (tmp_path / "home").iterdir()} == {
            n: 0o600 for n in ("catalog.sqlite3", "catalog.sqlite3-wal", "catalog.sqlite3-shm")}


def test_an_existing_state_folder_keeps_its_permissions(tmp_path, monkeypatch, umask):
    umask(0o022)
    (tmp_path / "home").mkdir(mode=0o750)
    monkeypatch.setenv("SPEECHPROC_HOME", str(tmp_path / "home"))
    assert paths.state_home() == tmp_path / "home" and mode(tmp_path / "home") == 0o750
