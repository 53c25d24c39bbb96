"""Per-recording metadata: sidecar files and a CSV manifest, checked before any audio is read."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import SAMPLES, invoke
from speechproc import errors
from speechproc.config import item_metadata
from speechproc.store.database.catalog import Catalog


def manifest(tmp_path: Path, text: str | bytes, name: str = "calls.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def test_extended_merges_at_every_depth_and_other_keys_are_replaced():
    base = {"title": "default", "extended": {"team": {"id": 1, "site": "Leeds"}, "queue": "all"}}
    over = {"title": "mine", "extended": {"team": {"id": 7}}}
    assert item_metadata.merged(base, over) == {"title": "mine",
                                                "extended": {"team": {"id": 7, "site": "Leeds"}, "queue": "all"}}
    assert item_metadata.merged(base, {}) == base


def test_a_manifest_gives_each_file_its_row(tmp_path):
    (tmp_path / "calls").mkdir()
    path = manifest(tmp_path, "\ufefffile,title,externalId,extended.agent.id,extended.agent.name,extended.queue\n"
                              "calls/a.wav,Billing,crm-1,7,Ann,billing\n"
                              f"{tmp_path / 'b.wav'},,crm-2,,,\"sales, north\"\n")
    rows = item_metadata.read_manifest(path)
    assert rows[tmp_path / "calls" / "a.wav"] == {"title": "Billing", "externalId": "crm-1",
                                                  "extended": {"agent": {"id": "7", "name": "Ann"}, "queue": "billing"}}
    assert rows[tmp_path / "b.wav"] == {"externalId": "crm-2", "extended": {"queue": "sales, north"}}


@pytest.mark.parametrize("text, where, why", [
    ("title,externalId\nx,y\n", "line 1", "no 'file' column"),
    ("file,title,agent\na.wav,x,y\n", "line 1", "unknown column 'agent'"),
    ("file,title,title\na.wav,x,y\n", "line 1", "appears twice"),
    ("file,extended.\na.wav,x\n", "line 1", "unknown column 'extended.'"),
    ("", "calls.csv", "empty"),
    ("file,title\na.wav,x\n,y\n", "line 3", "'file' cell is empty"),
    ("file,title\na.wav,x\nb.wav,y\na.wav,z\n", "line 4", "named again (first on line 2)"),
    ("file,title\na.wav,x,extra\n", "line 2", "more cells than columns"),
    ("file,title,description\na.wav,x\n", "line 2", "fewer cells than columns"),
    ("file,externalId\na.wav," + "x" * 300 + "\n", "line 2", "longer than 256"),
    ("file,externalId\na.wav,\"  \"\n", "line 2", "must not be empty"),
    ("file,extended.a,extended.a.b\nx.wav,1,2\n", "line 2", "nests under a value"),
    ("file,title\na.wav,\"unclosed\n", "line", "not valid CSV"),
    (b"file,title\na.wav,ok\nb.wav,caf\xe9\n", "line 3", "not UTF-8"),
    ("file,title\na.wav,x\x00y\n", "line 2", "NUL"),
])
def test_a_bad_manifest_names_its_file_and_line(tmp_path, text, where, why):
    path = manifest(tmp_path, text)
    with pytest.raises(errors.ConfigurationError) as caught:
        item_metadata.read_manifest(path)
    assert caught.value.code in (errors.METADATA_NOT_PARSEABLE, errors.EXTERNAL_ID_EMPTY, errors.EXTERNAL_ID_TOO_LONG)
    assert str(path) in caught.value.message and where in caught.value.message and why in caught.value.message


def test_a_csv_error_names_the_line_where_the_bad_row_starts(tmp_path):
    good = "".join(f"f{i}.wav,ok\n" for i in range(48))
    path = manifest(tmp_path, "file,title\n" + good + 'bad.wav,"a"b\n')
    with pytest.raises(errors.ConfigurationError, match="line 50: not valid CSV"):
        item_metadata.read_manifest(path)
    path = manifest(tmp_path, 'file,title\na.wav,"two\nlines"\na.wav,x\n')
    with pytest.raises(errors.ConfigurationError, match="line 4: a.wav is named again \\(first on line 2\\)"):
        item_metadata.read_manifest(path)
    path = manifest(tmp_path, "\nfile,title\n\n\na.wav,x\n\na.wav,y\n")  # blank lines are no rows, but count
    with pytest.raises(errors.ConfigurationError, match="line 7: a.wav is named again \\(first on line 5\\)"):
        item_metadata.read_manifest(path)


def test_a_manifest_row_finds_its_recording_through_a_linked_folder(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    rows = item_metadata.read_manifest(manifest(tmp_path, "file,title\nreal/a.wav,Found\n"))
    recording = tmp_path / "link" / "a.wav"
    assert item_metadata.for_inputs([recording], {}, rows)[recording] == {"title": "Found"}
    assert item_metadata.unmatched([recording], rows) == []
    with pytest.raises(errors.ConfigurationError, match="named again"):
        item_metadata.read_manifest(manifest(tmp_path, "file,title\nreal/a.wav,x\nlink/a.wav,y\n"))


def test_a_sidecar_is_found_beside_its_recording_and_validated(tmp_path):
    recording = tmp_path / "call.wav"
    assert item_metadata.sidecar(recording) is None
    (tmp_path / "call.meta.yaml").write_text("title: From the sidecar\nextended: {queue: vip}\n")
    assert item_metadata.sidecar(recording) == tmp_path / "call.meta.yaml"
    metadata = item_metadata.for_inputs([recording], {"title": "default", "extended": {"site": "Leeds"}},
                                        {recording: {"externalId": "crm-9", "extended": {"queue": "all"}}})
    assert metadata[recording] == {"title": "From the sidecar", "externalId": "crm-9",
                                   "extended": {"site": "Leeds", "queue": "vip"}}
    (tmp_path / "call.meta.json").write_text("{}")
    with pytest.raises(errors.ConfigurationError, match="more than one metadata file"):
        item_metadata.sidecar(recording)


@pytest.mark.parametrize("content, why", [
    ("title: [not, a, string]\n", "title"),
    ("externalId: ''\n", "must not be empty"),
    ("a: &x [1]\nb: *x\n", "alias"),
    ("{not json", "not valid JSON or YAML"),
    (None, "not a regular file"),
    ("fifo", "not a regular file"),  # a pipe nobody writes to: refused at once, never waited on
])
def test_a_bad_sidecar_names_its_file(tmp_path, content, why):
    side = tmp_path / "call.meta.yaml"
    if content is None:
        side.mkdir()
    elif content == "fifo":
        os.mkfifo(side)
    else:
        side.write_text(content)
    with pytest.raises(errors.ConfigurationError) as caught:
        item_metadata.for_inputs([tmp_path / "call.wav"], {})
    assert str(side) in caught.value.message and why in caught.value.message


@pytest.mark.parametrize("bad", ["manifest", "sidecar"])
def test_bad_metadata_stops_the_run_before_any_audio_is_read(tmp_path, monkeypatch, bad):
    monkeypatch.setenv("SPEECHPROC_HOME", str(tmp_path / "home"))
    folder = tmp_path / "calls"
    folder.mkdir()
    for name in ("a.wav", "b.wav"):
        shutil.copy(SAMPLES / "voicemail.wav", folder / name)
    args = ["run", str(folder), "--quiet"]
    if bad == "manifest":
        args += ["--metadata-csv", str(manifest(tmp_path, "file,title\ncalls/a.wav,x\ncalls/a.wav,y\n"))]
    else:
        (folder / "b.meta.json").write_text('{"externalId": 42}')
    code, out = invoke(*args)
    assert code == 2, out
    assert out["warnings"][0]["code"] == errors.METADATA_NOT_PARSEABLE
    assert ("line 3" if bad == "manifest" else "b.meta.json") in out["warnings"][0]["message"]
    assert sorted(p.name for p in folder.iterdir()) == sorted(["a.wav", "b.wav"] + (["b.meta.json"] if bad == "sidecar" else []))
    with Catalog() as catalog:
        assert catalog.media.all() == []


@pytest.mark.slow
def test_each_recording_gets_the_default_its_row_and_its_sidecar(tmp_path, monkeypatch):
    monkeypatch.setenv("SPEECHPROC_HOME", str(tmp_path / "home"))
    folder = tmp_path / "calls"
    folder.mkdir()
    for name in ("a.wav", "b.wav", "c.wav"):
        shutil.copy(SAMPLES / "voicemail.wav", folder / name)
    default = tmp_path / "default.yaml"
    default.write_text("title: Inbound\nextended: {site: Leeds}\n")
    rows = manifest(tmp_path, "file,externalId,extended.agent\ncalls/a.wav,crm-1,Ann\ncalls/b.wav,crm-2,Bob\n"
                              "calls/gone.wav,crm-3,Cy\n")
    (folder / "b.meta.json").write_text(json.dumps({"title": "Escalation", "extended": {"agent": "Bea"}}))
    code, out = invoke("run", str(folder), "--metadata", str(default), "--metadata-csv", str(rows), "--quiet")
    assert code == 0, out
    got = {Path(m["input"]).name: json.loads((folder / (Path(m["input"]).stem + ".v3.json")).read_text())["metadata"]
           for m in out["media"]}
    assert got == {"a.wav": {"title": "Inbound", "externalId": "crm-1", "extended": {"site": "Leeds", "agent": "Ann"}},
                   "b.wav": {"title": "Escalation", "externalId": "crm-2",
                             "extended": {"site": "Leeds", "agent": "Bea"}},
                   "c.wav": {"title": "Inbound", "extended": {"site": "Leeds"}}}
    # a changed sidecar is new metadata: that recording alone is processed again
    (folder / "b.meta.json").write_text(json.dumps({"title": "Resolved"}))
    code, out = invoke("run", str(folder), "--metadata", str(default), "--metadata-csv", str(rows), "--quiet")
    assert code == 0
    assert {Path(m["input"]).name: m["status"] for m in out["media"]} == \
        {"a.wav": "skipped", "b.wav": "finished", "c.wav": "skipped"}
