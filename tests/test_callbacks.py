"""Callbacks against a real HTTP server on 127.0.0.1: types, formats, content types, include, failures,
retries on the v3 schedule with a fake clock, pre-signed PUT, file:// delivery, and the durable outbox."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import SAMPLES, invoke
from speechproc import api
from speechproc.config import v3 as config
from speechproc.config.options import callback_options
from speechproc.delivery import bodies, outbox, schedule, transport
from speechproc.formats import v3json
from speechproc.store.database.catalog import Catalog


@pytest.fixture(scope="module")
def delivered(receiver, tmp_path_factory) -> dict:
    """The voicemail processed once with one callback of every kind."""
    folder = tmp_path_factory.mktemp("callbacks")
    shutil.copy(SAMPLES / "voicemail.wav", folder / "v.wav")
    drop = folder / "drop"
    drop.mkdir()
    settings = config.validate({"timeToLiveInSeconds": 3600, "speechproc": {"callbackFileFolder": str(drop)},
                                "publish": {"callbacks": [
        {"url": f"{receiver.url}/analytics"},
        {"url": f"{receiver.url}/analytics-some", "include": ["metadata", "transcript"]},
        *[{"url": f"{receiver.url}/transcript-{f}", "type": "transcript", "format": f}
          for f in ("json", "text", "srt", "webvtt", "dfxp")],
        {"url": f"{receiver.url}/media", "type": "media", "stream": "original"},
        {"url": f"{receiver.url}/bucket/v.json?X-Amz-Signature=abc&X-Amz-Expires=900", "method": "PUT", "type": "transcript",
         "format": "json"},
        {"url": drop.as_uri() + "/"},
    ]}})
    with Catalog(folder / "catalog.sqlite3") as cat:
        batch = api.process([folder / "v.wav"], settings, {"title": "voicemail"}, catalog=cat)
        queued = outbox.listing(cat, ("pending", "dead", "delivered"))
    item = json.loads(Path(batch.items[0].outputs["json"]).read_text())
    return {"item": item, "outputs": batch.items[0].outputs, "drop": drop, "outbox": queued}


@pytest.mark.slow
def test_every_callback_is_delivered_once_with_its_content_type(receiver, delivered):
    states = [c["state"] for c in delivered["outbox"]["callbacks"]]
    assert states == ["delivered"] * 10
    expected = {"/analytics": "application/json", "/analytics-some": "application/json",
                "/transcript-json": "application/json", "/transcript-text": "text/plain",
                "/transcript-srt": "text/srt", "/transcript-webvtt": "text/vtt",
                "/transcript-dfxp": "application/ttaf+xml", "/media": "application/octet-stream",
                "/bucket/v.json": "application/json"}
    for path, content_type in expected.items():
        [request] = receiver.requests_to(path)
        assert request.content_type == content_type, path
        assert request.method == ("PUT" if path.startswith("/bucket") else "POST")


@pytest.mark.slow
def test_the_analytics_body(receiver, delivered):
    item = delivered["item"]
    body = json.loads(receiver.requests_to("/analytics")[0].body)
    assert body["mediaId"] == item["mediaId"] and body["status"] == "finished"
    assert body["formatVersion"] == item["formatVersion"] and body["_links"] == item["_links"]
    assert body["dateCreated"] == item["dateCreated"] and body["dateFinished"] == item["dateFinished"]
    assert body["timeToLiveInSeconds"] == 3600 and body["expiresOn"] > body["dateFinished"]
    assert body["metadata"] == {"title": "voicemail"}
    assert body["transcript"]["words"] == item["transcript"]["words"]
    assert [a["format"] for a in body["transcript"]["alternateFormats"]] == ["dfxp", "webvtt", "srt", "text"]


@pytest.mark.slow
def test_include_filters_the_sections(receiver, delivered):
    body = json.loads(receiver.requests_to("/analytics-some")[0].body)
    assert {"metadata", "transcript"} <= set(body) and "warnings" not in body and "streams" not in body
    assert set(body) - set(v3json.CALLBACK_ALWAYS) - {"timeToLiveInSeconds", "expiresOn"} == {"metadata", "transcript"}


@pytest.mark.slow
def test_transcript_and_media_bodies_are_the_files(receiver, delivered):
    outputs = delivered["outputs"]
    for fmt, key in (("text", "text"), ("srt", "srt"), ("webvtt", "webvtt"), ("dfxp", "dfxp")):
        assert receiver.requests_to(f"/transcript-{fmt}")[0].body.decode() == Path(outputs[key]).read_text()
    assert json.loads(receiver.requests_to("/transcript-json")[0].body)["transcript"] == delivered["item"]["transcript"]
    assert receiver.requests_to("/media")[0].body == (SAMPLES / "voicemail.wav").read_bytes()


@pytest.mark.slow
def test_file_delivery_writes_into_the_folder(delivered):
    [written] = list(delivered["drop"].iterdir())
    assert json.loads(written.read_text())["mediaId"] == delivered["item"]["mediaId"]


def test_a_failed_item_sends_only_analytics_callbacks_with_its_errors(receiver, tmp_path, catalog):
    (tmp_path / "broken.mp3").write_bytes(b"ID3" + bytes(range(256)) * 20)
    settings = config.validate({"publish": {"callbacks": [
        {"url": f"{receiver.url}/failed"},
        {"url": f"{receiver.url}/failed-transcript", "type": "transcript", "format": "text"}]}})
    api.process([tmp_path / "broken.mp3"], settings, catalog=catalog)
    [request] = receiver.requests_to("/failed")
    body = json.loads(request.body)
    assert body["status"] == "failed" and body["errors"][0]["code"] == 10201
    assert receiver.requests_to("/failed-transcript") == []


def enqueue(catalog: Catalog, url: str, now: float, **extra) -> None:
    settings = config.validate({"publish": {"callbacks": [{"url": url}]}, **extra})
    item = {"mediaId": "00000000-0000-4000-8000-000000000001", "status": "finished", "formatVersion": "3.0.11",
            "dateCreated": "2026-11-21T00:00:00.000Z", "dateFinished": "2026-11-21T00:01:00.000Z", "metadata": {}}
    catalog.outbox.add(bodies.plan(item, callback_options(settings), {}, now))


def test_a_receiver_that_fails_twice_gets_it_on_the_third_attempt_of_the_first_round(receiver, catalog):
    receiver.answer("/fail-twice", 500, 500, 200)
    enqueue(catalog, f"{receiver.url}/fail-twice", now=1000.0)
    counts = outbox.deliver_due(catalog, clock=lambda: 1000.0)
    assert counts == {"delivered": 1, "pending": 0, "dead": 0}
    [row] = outbox.listing(catalog, ("delivered",))["callbacks"]
    assert row["attempts"] == 3 and len(receiver.requests_to("/fail-twice")) == 3


def test_a_receiver_that_never_answers_is_dead_after_21_attempts_on_the_schedule(receiver, catalog):
    receiver.answer("/never", 503)
    clock = [1_000_000.0]
    enqueue(catalog, f"{receiver.url}/never", now=clock[0])
    rounds = []
    while True:
        before = len(receiver.requests_to("/never"))
        outbox.deliver_due(catalog, clock=lambda: clock[0])
        if len(receiver.requests_to("/never")) > before:
            rounds.append((clock[0], len(receiver.requests_to("/never")) - before))
        [row] = outbox.listing(catalog, ("pending", "dead"))["callbacks"]
        if row["state"] == "dead":
            break
        clock[0] += 60  # a minute later; cron would run every few minutes
    assert row["attempts"] == 21 and [n for _, n in rounds] == [3] * 7
    gaps = [round((b - a) / 60) for (a, _), (b, _) in zip(rounds, rounds[1:])]
    assert gaps == [15, 30, 60, 120, 240, 480]  # minutes between rounds, as the v3 schedule says
    assert row["lastError"] == "HTTP 503"


def test_the_outbox_survives_a_crash_in_the_middle_of_an_attempt(receiver, catalog, tmp_path):
    enqueue(catalog, f"{receiver.url}/fail-twice-again", now=0.0)
    calls = []

    def redirected(delivery, body, timeout):
        return transport.send({**delivery, "url": delivery["url"].replace("-again", "")}, body, timeout)

    def crashing(delivery, body, timeout):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt  # the process dies in the middle of its second attempt
        return redirected(delivery, body, timeout)

    receiver.answer("/fail-twice", 500, 500, 200)
    with pytest.raises(KeyboardInterrupt):
        outbox.deliver_due(catalog, clock=lambda: 0.0, sender=crashing)
    [row] = outbox.listing(catalog, ("pending",))["callbacks"]
    assert row["attempts"] == 2 and row["lastError"].startswith("interrupted")  # the cut-off attempt counts
    # a new process (a fresh connection), after the lease of the crashed one has run out
    with Catalog(catalog.path) as again:
        # the third attempt ends the first round (the receiver fails it); the second round is 15 min later
        assert outbox.deliver_due(again, clock=lambda: 10_000.0, sender=redirected) == \
            {"delivered": 0, "pending": 1, "dead": 0}
        assert outbox.deliver_due(again, clock=lambda: 10_000.0 + 15 * 60, sender=redirected) == \
            {"delivered": 1, "pending": 0, "dead": 0}
        [row] = outbox.listing(again, ("delivered",))["callbacks"]
    assert row["attempts"] == 4 and row["lastError"] is None


def test_a_slow_receiver_times_out_and_does_not_hold_up_the_others(receiver, catalog):
    settings = config.validate({"speechproc": {"callbackTimeoutSeconds": 0.3}})
    enqueue(catalog, f"{receiver.url}/slow", now=0.0)
    enqueue(catalog, f"{receiver.url}/ok", now=0.0)
    with receiver.stalling("/slow"):  # no answer until every attempt has given up waiting
        counts = outbox.deliver_due(catalog, callback_options(settings), clock=lambda: 0.0)
    assert counts == {"delivered": 1, "pending": 1, "dead": 0}
    [slow] = outbox.listing(catalog, ("pending",))["callbacks"]
    assert "timed out" in slow["lastError"].lower() or "timeout" in slow["lastError"].lower()


def test_a_body_over_the_limit_is_dead_at_once(receiver, catalog):
    settings = config.validate({"speechproc": {"callbackMaxBodyBytes": 10}})
    enqueue(catalog, f"{receiver.url}/ok-too-big", now=0.0)
    assert outbox.deliver_due(catalog, callback_options(settings), clock=lambda: 0.0) == {"delivered": 0, "pending": 0, "dead": 1}
    assert receiver.requests_to("/ok-too-big") == []


def test_v2_beta_contract(receiver, catalog):
    enqueue(catalog, f"{receiver.url}/v2", now=0.0, speechproc={"callbackContract": "v2-beta"})
    outbox.deliver_due(catalog, clock=lambda: 0.0)
    body = json.loads(receiver.requests_to("/v2")[0].body)
    assert body["callback"] == {"success": True, "errors": [], "warnings": [], "event": {"status": "finished"}}
    assert body["media"]["mediaId"] == "00000000-0000-4000-8000-000000000001"
    assert body["media"]["metadata"] == {"latest": {}}


def test_v2_beta_schedule():
    due = [schedule.next_due("v2-beta", n, 0.0, 0.0) for n in range(1, 6)]
    assert due[:2] == [0.0, 0.0] and due[2:] == [15 * 60, 30 * 60, 60 * 60]
    assert schedule.next_due("v2-beta", 12, 0.0, 35 * 3600) is None  # past 36 hours: give up


@pytest.mark.slow
def test_the_cli_lists_and_delivers_the_outbox(receiver, tmp_path):
    receiver.answer("/never", 503)
    shutil.copy(SAMPLES / "voicemail.wav", tmp_path / "v.wav")
    (tmp_path / "c.json").write_text(json.dumps({"publish": {"callbacks": [{"url": f"{receiver.url}/never"}]}}))
    code, _ = invoke("run", str(tmp_path / "v.wav"), "--config", str(tmp_path / "c.json"), "--quiet")
    assert code == 0
    code, out = invoke("callbacks", "list")
    mine = [c for c in out["callbacks"] if c["url"].endswith("/never") and c["state"] == "pending"]
    assert code == 0 and mine and mine[-1]["attempts"] == 3 and mine[-1]["nextAttempt"]
    code, out = invoke("callbacks", "deliver")  # not due yet (15 minutes): nothing sent
    assert code == 0 and out == {"delivered": 0, "pending": 0, "dead": 0}
