"""One recording's job: plain picklable data, run with no catalog connection, in this process or another."""
from __future__ import annotations

import json
import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import SAMPLES, truth_for
from speechproc import errors, paths
from speechproc.batch import planning
from speechproc.batch.jobs import Job, JobEvents, run_job
from speechproc.batch.publishing import redacted_audio_path
from speechproc.config import v3 as config
from speechproc.config.options import build
from speechproc.store.database.catalog import Catalog
from speechproc.store.files import ownership
from text_helpers import truth_words

RAW = {"metrics": [{"metricGroupName": "overtalk"}, {"metricGroupName": "talk-time-and-rate"}],
       "prediction": {"detectors": [{"detectorName": "Number", "redactor": {"transcript": {"replacement": "[x]"},
                                                                       "audio": {"tone": 300}}}]},
       "publish": {"enableAnalyticIndexing": True}}


def sample_job(folder: Path) -> Job:
    """The sample call with its known words (no recognition), outputs in `folder`."""
    options = build(config.validate(RAW))
    outputs = planning.output_paths([planning.Input(SAMPLES / "call.flac", SAMPLES)], folder)[SAMPLES / "call.flac"]
    return Job(media_id="00000000-0000-4000-8000-0000000000b1", input=SAMPLES / "call.flac", outputs=outputs,
               redacted_audio=redacted_audio_path(outputs, SAMPLES / "call.flac", options.detect.redacts_audio),
               options=options, metadata={"title": "t"}, date_created="2026-01-01T00:00:00.000Z", content_hash=None,
               config_hash="k", ownership={}, analytic_index=True, words=tuple(truth_words(truth_for("call.flac"))))


class Heard(JobEvents):
    def __init__(self) -> None:
        self.statuses: list[tuple[str, str]] = []
        self.outputs: list[str] = []

    def stage(self, media_id, tasks):
        self.statuses = [(t["name"], t["status"]) for t in tasks]

    def output(self, path, sha256, media_id):
        self.outputs.append(path)


@pytest.fixture
def no_home(tmp_path, monkeypatch) -> Path:
    """A state folder that must stay empty: a job never opens the catalog."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("SPEECHPROC_HOME", str(home))
    return home


def test_a_job_is_plain_data_that_survives_pickling(tmp_path):
    job = sample_job(tmp_path)
    assert pickle.loads(pickle.dumps(job)) == job


def test_run_job_writes_every_output_and_returns_what_the_catalog_must_record(tmp_path, no_home):
    job, heard = sample_job(tmp_path / "out"), Heard()
    (tmp_path / "out").mkdir()
    result = run_job(job, heard)

    assert result.status == "finished" and not result.interrupted and list(no_home.iterdir()) == []
    assert set(result.outputs) == {"json", "srt", "webvtt", "dfxp", "text", "redacted-audio"}
    item = json.loads(Path(result.outputs["json"]).read_text())
    assert item == result.item and item["mediaId"] == job.media_id and item["metadata"] == {"title": "t"}
    assert "It is [x]" in Path(result.outputs["text"]).read_text()  # the account number
    assert {name for name, _ in heard.statuses} >= {"decode", "detect", "metrics", "publish"}
    assert all(status in ("finished", "skipped") for _, status in heard.statuses)
    assert dict(heard.statuses)["diarize"] == "skipped"  # words were given
    # the ownership record: each file's content, recorded (and heard of) before it was put in place
    recorded = {c[1]: c[2] for c in result.ownership if c[0] == "record"}
    assert set(recorded) == {str(ownership.canonical(Path(p))) for p in result.outputs.values()} == set(heard.outputs)
    assert all(paths.sha256_file(Path(p)) == recorded[p] for p in recorded)
    assert result.index["fields"]["status"] == "finished" and "refund" in result.index["text"]
    assert result.streams["redacted-audio"] == result.outputs["redacted-audio"]


def test_the_record_replayed_lets_the_next_job_replace_its_own_files_and_nothing_else(tmp_path, no_home):
    out = tmp_path / "out"
    out.mkdir()
    first = run_job(sample_job(out))
    targets = [*sample_job(out).outputs.values(), sample_job(out).redacted_audio]
    with Catalog(tmp_path / "catalog.sqlite3") as catalog:
        ownership.replay(first.ownership, catalog.written)
        assert all(ownership.is_ours(Path(p), catalog.written) for p in first.outputs.values())
        again = run_job(replace(sample_job(out), ownership=ownership.Ledger.of(targets, catalog.written).known))
        assert again.status == "finished"
        ownership.replay(again.ownership, catalog.written)
        known = ownership.Ledger.of(targets, catalog.written).known

    srt = Path(first.outputs["srt"])
    srt.write_text("mine\n")  # edited since: no longer speechproc's to replace
    refused = run_job(replace(sample_job(out), ownership=known))
    assert refused.status == "failed" and refused.error["status"] == 409
    assert refused.error["warnings"][0]["code"] == 10009 and "call.srt already exists" in refused.error["warnings"][0]["message"]
    assert srt.read_text() == "mine\n"
    assert not {t["status"] for t in refused.tasks} & {"pending", "started"}


def test_a_job_that_cannot_run_fails_without_raising(tmp_path, no_home):
    job = replace(sample_job(tmp_path), input=tmp_path / "gone.flac")
    result = run_job(job)
    assert result.status == "failed" and result.error["warnings"][0]["code"] == errors.RESOURCE_NOT_FOUND
    assert result.outputs == {} and not (tmp_path / "call.v3.json").exists()
    assert dict((t["name"], t["status"]) for t in result.tasks)["decode"] == "failed"


def test_a_job_runs_the_same_in_another_process(tmp_path, no_home):
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    local = run_job(sample_job(here))
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        remote = pool.submit(run_job, sample_job(there)).result(timeout=300)
    assert remote.status == local.status == "finished" and list(no_home.iterdir()) == []
    for name in ("text", "srt", "webvtt", "dfxp"):
        assert Path(remote.outputs[name]).read_bytes() == Path(local.outputs[name]).read_bytes()
    differ = ("dateFinished", "streams")  # the streams name each run's own redacted copy
    assert ({k: v for k, v in remote.item.items() if k not in differ}
            == {k: v for k, v in local.item.items() if k not in differ})
    assert remote.item["streams"][1]["streamLocation"] == Path(remote.outputs["redacted-audio"]).as_uri()


def test_ctrl_c_during_a_job_records_it_failed_and_stops_the_batch(tmp_path, monkeypatch):
    from speechproc import api
    from speechproc.batch import jobs

    def analyse(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(jobs, "analyse", analyse)
    for name in ("a.flac", "b.flac"):
        (tmp_path / name).write_bytes((SAMPLES / "call.flac").read_bytes())
    with Catalog(tmp_path / "catalog.sqlite3") as catalog:
        with pytest.raises(KeyboardInterrupt):
            api.process([tmp_path], config.validate({}), catalog=catalog, deliver=False)
        [row] = catalog.media.list(10)  # the second recording was never started
    assert row["status"] == "failed" and row["item"]["errors"] == [{"code": 90000, "error": "interrupted"}]
    assert {t["status"] for t in row["tasks"]} <= {"failed", "cancelled"}
    assert not [p for p in tmp_path.iterdir() if p.suffix not in (".flac", ".sqlite3", ".sqlite3-shm",
                                                                   ".sqlite3-wal")]  # no output written
