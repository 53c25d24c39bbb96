"""Retention (timeToLiveInSeconds, media delete, media purge), searchability, metadata put, streams and
priority, on items made from the sample call's known words (no speech model runs)."""
from __future__ import annotations

import json
import os
import uuid
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from conftest import SAMPLES, invoke
from speechproc import api, errors
from speechproc.batch import planning, runner
from speechproc.batch.jobs import run_job
from speechproc.config import v3 as config
from speechproc.conversation import MediaFacts
from speechproc.formats import v3json
from speechproc.stages.pipeline import new_tasks
from speechproc.store.database.catalog import Catalog
from speechproc.store.media_items import items, retention
from test_jobs import RAW, sample_job

LATER = datetime.now(timezone.utc) + timedelta(days=2)  # every item made here with a 60 s TTL has expired by then
CALLBACK = {"url": "https://example.invalid/hook"}  # queued in the outbox, never sent (nothing delivers here)


def make(catalog: Catalog, folder: Path, ttl: int | None = None, **raw) -> dict:
    """One finished item of the sample call, recorded as a run records it; its catalog row."""
    settings = config.validate({**RAW, "publish": {"enableAnalyticIndexing": True, "callbacks": [CALLBACK]}, **raw,
                                **({"timeToLiveInSeconds": ttl} if ttl is not None else {})})
    folder.mkdir(parents=True, exist_ok=True)
    media_id = str(uuid.uuid4())
    job = replace(sample_job(folder), media_id=media_id, time_to_live=settings.time_to_live,
                  analytic_index=settings.analytic_indexing)
    catalog.media.add(v3json.media_item(MediaFacts(media_id, "running", job.date_created, metadata=job.metadata)),
                      str(job.input), None, "k", new_tasks(media_id), settings.raw)
    result = runner.record(run_job(runner.plan(job, settings, catalog)), settings, catalog)
    assert result.status == "finished", result.error
    row = catalog.media.get(media_id)
    assert row is not None
    return row


def outbox_of(catalog: Catalog, media_id: str) -> int:
    return catalog.db.execute("SELECT count(*) FROM outbox WHERE media_id = ?", (media_id,)).fetchone()[0]


def indexed(catalog: Catalog) -> set[str]:
    return {s["mediaId"] for s in catalog.index.summaries(None)}


@pytest.fixture
def clock(monkeypatch):
    """The retention clock, set by the test (no waiting)."""
    now = {"at": datetime.now(timezone.utc)}
    monkeypatch.setattr(retention, "CLOCK", lambda: now["at"])
    return now


def test_the_item_and_its_listing_show_the_time_to_live(catalog, tmp_path):
    row = make(catalog, tmp_path / "out", ttl=60)
    item = row["item"]
    finished = datetime.strptime(item["dateFinished"], "%Y-%m-%dT%H:%M:%S.%fZ")
    assert item["timeToLiveInSeconds"] == 60
    assert item["expiresOn"] == v3json.iso((finished + timedelta(seconds=60)).replace(tzinfo=timezone.utc))
    assert list(item).index("expiresOn") == list(item).index("dateFinished") + 2
    listed = api.list_media(catalog=catalog)["media"][0]
    assert (listed["timeToLiveInSeconds"], listed["expiresOn"]) == (60, item["expiresOn"])
    written = json.loads(Path(row["outputs"]["json"]).read_text())
    assert written["expiresOn"] == item["expiresOn"]
    assert "expiresOn" not in make(catalog, tmp_path / "other")["item"]  # no TTL, no expiry


def test_an_expired_item_goes_with_everything_speechproc_wrote_for_it(catalog, tmp_path, clock):
    row = make(catalog, tmp_path / "out", ttl=60)
    keep = make(catalog, tmp_path / "keep")  # no time to live
    media_id, outputs = row["media_id"], row["outputs"]
    users = Path(outputs["srt"])
    users.write_text("my own captions\n")  # a person's file where an output of the item was
    assert media_id in indexed(catalog) and outbox_of(catalog, media_id) == 1
    assert retention.purge(catalog) == {"deleted": [], "waiting": []}  # nothing due yet: nothing happens

    clock["at"] = LATER
    done = retention.purge(catalog)
    assert [d["mediaId"] for d in done["deleted"]] == [media_id] and done["waiting"] == []
    report = done["deleted"][0]
    assert report["callbacksDropped"] == 1 and report["expiresOn"] == row["item"]["expiresOn"]
    assert [k["path"] for k in report["keptFiles"]] == [str(users)]
    assert sorted(report["deletedFiles"]) == sorted(p for k, p in outputs.items() if k != "srt")
    assert catalog.media.get(media_id) is None
    assert media_id not in indexed(catalog) and outbox_of(catalog, media_id) == 0
    assert not catalog.db.execute("SELECT 1 FROM written WHERE media_id = ?", (media_id,)).fetchall()
    assert users.read_text() == "my own captions\n"
    assert (SAMPLES / "call.flac").is_file()  # the recording stays
    assert all(not Path(p).exists() for k, p in outputs.items() if k != "srt")
    # the other item is untouched
    assert catalog.media.get(keep["media_id"]) is not None and keep["media_id"] in indexed(catalog)
    assert all(Path(p).is_file() for p in keep["outputs"].values())
    assert retention.purge(catalog) == {"deleted": [], "waiting": []}


def test_an_output_a_later_item_rewrote_is_the_later_items(catalog, tmp_path, clock):
    first = make(catalog, tmp_path / "out", ttl=60)
    second = make(catalog, tmp_path / "out")  # the same recording again, into the same files
    clock["at"] = LATER
    done = retention.purge(catalog)["deleted"][0]
    assert done["mediaId"] == first["media_id"] and done["deletedFiles"] == []
    assert all(Path(p).is_file() for p in second["outputs"].values())


def test_a_running_item_is_never_deleted_under_its_process(catalog, tmp_path, clock):
    row = make(catalog, tmp_path / "out", ttl=60)
    media_id = row["media_id"]
    catalog.media.update(media_id, item={**row["item"], "status": "running"})  # owned by this (live) process now
    clock["at"] = LATER
    done = retention.purge(catalog)
    assert done["deleted"] == [] and [w["mediaId"] for w in done["waiting"]] == [media_id]
    with pytest.raises(retention.DeleteWhileBusy) as busy:
        api.delete_media(media_id, catalog)
    assert busy.value.status == 409 and "was not deleted" in busy.value.message
    assert all(Path(p).is_file() for p in row["outputs"].values()) and catalog.media.get(media_id) is not None
    catalog.media.update(media_id, item=row["item"])  # finished again: now it goes
    assert [d["mediaId"] for d in retention.purge(catalog)["deleted"]] == [media_id]


def test_a_running_item_whose_process_is_gone_is_deleted_once_expired(catalog, tmp_path, clock):
    row = make(catalog, tmp_path / "out", ttl=60)
    catalog.media.update(row["media_id"], item={**row["item"], "status": "running"})
    catalog.db.execute("UPDATE media SET owner_pid = NULL WHERE media_id = ?", (row["media_id"],))
    clock["at"] = LATER
    assert [d["mediaId"] for d in retention.purge(catalog)["deleted"]] == [row["media_id"]]


def test_media_delete_deletes_now_and_an_unknown_id_is_a_404(catalog, tmp_path):
    row = make(catalog, tmp_path / "out")  # no time to live: deleted only when asked
    done = api.delete_media(row["media_id"], catalog)
    assert done["mediaId"] == row["media_id"] and len(done["deletedFiles"]) == len(row["outputs"])
    assert catalog.media.get(row["media_id"]) is None
    with pytest.raises(errors.NotFoundError):
        api.delete_media(row["media_id"], catalog)
    code, body = invoke("media", "delete", "no-such-media")
    assert code == 1 and body["status"] == 404 and body["warnings"][0]["code"] == errors.RESOURCE_NOT_FOUND


def test_every_command_deletes_what_has_expired_and_purge_says_what(home, tmp_path, clock):
    with Catalog() as cat:
        first = make(cat, tmp_path / "a", ttl=60)
        second = make(cat, tmp_path / "b", ttl=3600)
    clock["at"] = datetime.now(timezone.utc) + timedelta(minutes=30)
    code, listing = invoke("media", "list")  # opening the catalog deletes the first
    assert code == 0 and [m["mediaId"] for m in listing["media"]] == [second["media_id"]]
    assert invoke("media", "get", first["media_id"])[0] == 1
    clock["at"] = LATER
    code, done = invoke("media", "purge")
    assert code == 0 and [d["mediaId"] for d in done["deleted"]] == [second["media_id"]]
    assert invoke("media", "purge")[1] == {"deleted": [], "waiting": []}


def test_an_expired_item_can_still_be_deleted_by_id(home, tmp_path, clock):
    with Catalog() as cat:
        row = make(cat, tmp_path / "a", ttl=60)
    clock["at"] = LATER
    code, done = invoke("media", "delete", row["media_id"])
    assert code == 0 and done["mediaId"] == row["media_id"]


def test_nothing_due_is_one_query_on_the_expiry_index(catalog):
    plan = catalog.db.execute("EXPLAIN QUERY PLAN SELECT media_id FROM media WHERE expires_on IS NOT NULL AND "
                              "expires_on <= ? ORDER BY expires_on, media_id", ("2026",)).fetchall()
    assert any("media_by_expiry" in str(tuple(r)) for r in plan)


# ------------------------------------------------------------------ searchability


def rows(printed: object) -> list[dict]:
    """JSON Lines as printed (one line is parsed whole by `invoke`)."""
    return [printed] if isinstance(printed, dict) else [json.loads(line) for line in str(printed).splitlines()]


def test_an_unsearchable_item_is_listed_and_read_but_never_found(home, tmp_path):
    with Catalog() as cat:
        hidden = make(cat, tmp_path / "hidden", searchability={"searchable": False})
        found = make(cat, tmp_path / "found")
    ids = {hidden["media_id"], found["media_id"]}
    code, listing = invoke("media", "list")
    assert code == 0 and {m["mediaId"] for m in listing["media"]} == ids
    assert invoke("media", "get", hidden["media_id"])[0] == 0
    code, searched = invoke("media", "list", "--query", "t*")  # the title of both is "t"
    assert [m["mediaId"] for m in searched["media"]] == [found["media_id"]]
    code, result = invoke("query", "SELECT mediaId FROM media")
    assert code == 0 and [r["mediaId"] for r in result["rows"]] == [found["media_id"]]
    code, exported = invoke("export", "--format", "jsonl", "--query", "SELECT * FROM media")
    assert code == 0 and [r["mediaId"] for r in rows(exported)] == [found["media_id"]]
    code, everything = invoke("export", "--format", "jsonl")  # the whole catalog, without a selection
    assert {r["mediaId"] for r in rows(everything)} == ids
    code, report = invoke("report", "--corpus", "-o", str(tmp_path / "corpus.html"))
    assert code == 0 and report["items"] == 1


def test_an_item_made_unsearchable_later_leaves_the_index(catalog, tmp_path):
    row = make(catalog, tmp_path / "out")
    assert row["media_id"] in indexed(catalog)
    retention.record(catalog, row["media_id"], row["item"], searchable=False)  # as an alignment would
    assert row["media_id"] not in indexed(catalog)


# ------------------------------------------------------------------ metadata put


def test_metadata_put_replaces_the_item_the_index_and_the_v3_json(home, tmp_path):
    with Catalog() as cat:
        row = make(cat, tmp_path / "out")
    new = tmp_path / "meta.yaml"
    new.write_text("title: Renewal call\nexternalId: call-7\nextended:\n  queue: billing\n")
    code, body = invoke("media", "metadata-put", row["media_id"], str(new))
    assert code == 0 and body["title"] == "Renewal call" and "warnings" not in body
    expected = {"title": "Renewal call", "externalId": "call-7", "extended": {"queue": "billing"}}
    code, shown = invoke("media", "metadata", row["media_id"])
    assert {k: v for k, v in shown.items() if k != "_links"} == expected
    assert json.loads(Path(row["outputs"]["json"]).read_text())["metadata"] == expected
    with Catalog() as cat:
        assert cat.index.summaries(None)[0]["metadata"] == expected
        again = make(cat, tmp_path / "again")
    # the new .v3.json is speechproc's: a later run may replace it; the listing finds the new title
    assert invoke("media", "list", "--external-id", "call-7")[1]["media"][0]["mediaId"] == row["media_id"]
    assert again["media_id"]


@pytest.mark.parametrize("content", [
    b'{"title": "x", "owner": "me"}',  # not a metadata field
    b'["title"]',  # not an object
    b'{"externalId": ""}',  # empty externalId
    b'{"externalId": "' + b"x" * 300 + b'"}',  # too long
    b"\x00\x01\x02binary\xff\xfe",  # binary
    b'{"title": "' + b"x" * (64 << 20) + b'"}',  # huge
])
def test_bad_metadata_changes_nothing(home, tmp_path, content):
    with Catalog() as cat:
        row = make(cat, tmp_path / "out")
    before = Path(row["outputs"]["json"]).read_bytes()
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    code, body = invoke("media", "metadata-put", row["media_id"], str(bad))
    assert code == 2 and body["status"] == 400, body
    with Catalog() as cat:
        assert cat.media.get(row["media_id"])["item"] == row["item"]
    assert Path(row["outputs"]["json"]).read_bytes() == before


def test_metadata_put_leaves_a_v3_json_the_user_replaced(home, tmp_path):
    with Catalog() as cat:
        row = make(cat, tmp_path / "out")
    mine = Path(row["outputs"]["json"])
    mine.write_text('{"mine": true}\n')
    new = tmp_path / "meta.json"
    new.write_text('{"title": "new"}')
    code, body = invoke("media", "metadata-put", row["media_id"], str(new))
    assert code == 0 and body["title"] == "new"
    assert "left as it is" in body["warnings"][0]["message"] and str(mine) in body["warnings"][0]["message"]
    assert mine.read_text() == '{"mine": true}\n'
    assert invoke("media", "metadata", row["media_id"])[1]["title"] == "new"


def test_metadata_put_on_an_unknown_or_running_item(catalog, tmp_path):
    with pytest.raises(errors.NotFoundError):
        api.put_metadata("no-such-media", {"title": "x"}, catalog)
    row = make(catalog, tmp_path / "out")
    catalog.media.update(row["media_id"], item={**row["item"], "status": "running"})
    with pytest.raises(items.ChangeWhileBusy):
        api.put_metadata(row["media_id"], {"title": "x"}, catalog)
    assert catalog.media.get(row["media_id"])["item"]["metadata"] == {"title": "t"}


# ------------------------------------------------------------------ streams


def test_streams_are_the_recording_and_the_redacted_copy(catalog, tmp_path):
    row = make(catalog, tmp_path / "out")
    assert api.get_media(row["media_id"], "streams", catalog) == {"streams": [
        {"streamName": "original", "streamLocation": str(SAMPLES / "call.flac")},
        {"streamName": "redacted-audio", "streamLocation": row["outputs"]["redacted-audio"]}]}
    os.unlink(row["outputs"]["redacted-audio"])
    assert [s["streamName"] for s in api.get_media(row["media_id"], "streams", catalog)["streams"]] == ["original"]
    catalog.media.update(row["media_id"], item={**row["item"], "encryption": {"publicKeyId": "k", "publicKeyHash": "h"}})
    assert api.get_media(row["media_id"], "streams", catalog) == {"streams": []}  # no encrypted copy is there
    with pytest.raises(errors.NotFoundError):
        api.get_media("no-such-media", "streams", catalog)


# ------------------------------------------------------------------ priority


def test_priority_orders_the_work_high_first_stable_within_a_priority():
    work = [("a", "low"), ("b", "normal"), ("c", "high"), ("d", "low"), ("e", "high"), ("f", "normal")]
    assert [w[0] for w in planning.by_priority(work, lambda w: w[1])] == ["c", "e", "b", "f", "a", "d"]
    assert config.validate({"priority": "high"}).priority == "high"
    assert config.validate({}).priority == "normal"
