"""Where callbacks may go: file destinations only under speechproc.callbackFileFolder, never through a
link and never over a file speechproc did not write; http only to parsed loopback addresses, no
redirects, the URL parsed once; the idempotency key; attempts counted before they are made; the
account fields of the analytics body; expiry dates that cannot overflow."""
from __future__ import annotations

import errno
import json
import os
import socket
import sqlite3
import urllib.request
import uuid
from pathlib import Path

import pytest

from receivers import receiving
from speechproc import errors
from speechproc.config import v3 as config
from speechproc.config.options import callback_options
from speechproc.delivery import account, bodies, destinations, files, outbox, schedule, transport
from speechproc.delivery import http as transport_http
from speechproc.store.database.catalog import Catalog

MEDIA_ID = "00000000-0000-4000-8000-000000000002"
ITEM = {"_links": {}, "formatVersion": "3.0.11", "mediaId": MEDIA_ID, "status": "finished",
        "dateCreated": "2026-11-21T00:00:00.000Z", "dateFinished": "2026-11-21T00:01:00.000Z",
        "mediaContentType": "audio/wav", "length": 1000, "metadata": {}}


@pytest.fixture
def no_connections(monkeypatch):
    """Fail the test if anything tries to open a network connection."""
    def refuse(*args, **kwargs):
        raise AssertionError(f"a connection was attempted: {args}")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)


def reject(raw: dict) -> errors.ConfigurationError:
    with pytest.raises(errors.ConfigurationError) as caught:
        config.validate(raw)
    return caught.value


def delivery(url: str, **extra) -> dict:
    """A delivery as the outbox gives it back."""
    return {"id": str(uuid.uuid4()), "mediaId": MEDIA_ID, "position": 0, "url": url, "method": "POST",
            "type": "analytics", "contentType": "application/json", **extra}


def queue(catalog: Catalog, url: str, raw: dict | None = None) -> list[dict]:
    deliveries = bodies.plan(ITEM, callback_options(config.validate({**(raw or {}), "publish": {"callbacks": [{"url": url}]}})),
                                {}, 0.0)
    catalog.outbox.add(deliveries)
    return deliveries


def rows(catalog: Catalog) -> list[dict]:
    return outbox.listing(catalog, ("pending", "dead", "delivered"))["callbacks"]


# ---------------------------------------------------------------- http: the loopback rule, parsed once

@pytest.mark.parametrize("url", [
    "http://127.attacker.example/hook",
    "http://127.0.0.1.example.com/hook",
    "http://localhost.example.com/hook",
    "http://10.0.0.1\\@127.0.0.1/hook",
    "http://10.0.0.1/hook",
    "http://user@127.0.0.1/hook",
    "http://10.0.0.1:80@127.0.0.1/hook",
    "http://127.0.0.1/ho ok",
    "http://127.0.0.1/hook\n",
    "http://127.0.0.1\t/hook",
    "http://127.0.0.1:99999/hook",
    "http://2130706433/hook",
])
def test_http_goes_only_to_a_parsed_loopback_address(url):
    err = reject({"publish": {"callbacks": [{"url": url}]}})
    assert err.code == errors.CALLBACK_BAD_PROTOCOL and err.message.startswith("publish.callbacks[0].url"), err.message


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080/hook", "http://127.9.8.7/hook", "http://[::1]:8080/hook",
                                 "http://localhost/hook", "http://LOCALHOST:1/hook", "https://example.com/hook?a=b"])
def test_loopback_http_and_https_pass(url):
    config.validate({"publish": {"callbacks": [{"url": url}]}})


def test_allow_http_callbacks_still_allows_other_hosts_but_not_odd_urls():
    config.validate({"speechproc": {"allowHttpCallbacks": True}, "publish": {"callbacks": [{"url": "http://example.com"}]}})
    err = reject({"speechproc": {"allowHttpCallbacks": True},
                  "publish": {"callbacks": [{"url": "http://10.0.0.1\\@127.0.0.1/"}]}})
    assert err.code == errors.CALLBACK_BAD_PROTOCOL and "backslash" in err.message


def test_a_queued_http_delivery_is_checked_again_before_any_connection(catalog, no_connections):
    for url in ("http://127.attacker.example/hook", "http://10.0.0.1\\@127.0.0.1/hook", "http://10.0.0.1/hook"):
        assert transport.send(delivery(url), b"{}", 1.0).startswith("refused:")
    # as an older version queued them: no rules kept with the delivery
    catalog.outbox.add([{**delivery("http://127.0.0.1.example.com/hook"), "contract": "v3", "body": b"{}",
                         "nextDue": 0.0, "created": "2026-11-21T00:00:00.000Z"}])
    assert outbox.deliver_due(catalog, clock=lambda: 0.0) == {"delivered": 0, "pending": 0, "dead": 1}
    [row] = rows(catalog)
    assert row["attempts"] == 1 and row["lastError"].startswith("refused: http:// is allowed only to loopback")


def test_an_outbox_from_an_older_version_is_sent_under_the_strict_rules(tmp_path, no_connections):
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as db:  # the outbox as version 4 of the catalog made it
        db.executescript("""
            CREATE TABLE outbox (delivery_id TEXT PRIMARY KEY, media_id TEXT NOT NULL, position INTEGER NOT NULL,
                url TEXT NOT NULL, method TEXT NOT NULL, kind TEXT NOT NULL, content_type TEXT NOT NULL, body BLOB,
                body_path TEXT, contract TEXT NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
                next_due REAL NOT NULL, first_try REAL, last_error TEXT, created TEXT NOT NULL);
            INSERT INTO outbox VALUES ('d1', 'm', 0, 'http://127.attacker.example/hook', 'POST', 'analytics',
                'application/json', x'7b7d', NULL, 'v3', 'pending', 0, 0, NULL, NULL, '2026-11-21T00:00:00.000Z');
            PRAGMA user_version = 4;""")
    db.close()
    with Catalog(path) as old:
        assert outbox.deliver_due(old, clock=lambda: 0.0) == {"delivered": 0, "pending": 0, "dead": 1}
        assert rows(old)[0]["lastError"].startswith("refused: http://")
        queue(old, "https://receiver.invalid/hook", {"speechproc": {"allowHttpCallbacks": True}})
        assert [d["allowHttp"] for d in old.outbox.claim(0.0, lease=60)] == [True]


def test_a_delivery_queued_with_allow_http_keeps_that_rule_at_send_time(catalog, no_connections):
    queue(catalog, "http://10.0.0.1/hook", {"speechproc": {"allowHttpCallbacks": True}})
    [claimed] = catalog.outbox.claim(0.0, lease=60)
    assert claimed["allowHttp"] is True
    assert destinations.delivery_destination(claimed).host == "10.0.0.1"  # allowed, so no refusal: not sent here


def test_a_redirect_is_not_followed(receiver):
    receiver.answer("/redirect", 302, location="/target")
    error = transport.send(delivery(f"{receiver.url}/redirect"), b"{}", 5.0)
    assert error == "HTTP 302: redirect not followed"
    assert receiver.requests_to("/target") == []


def test_the_request_goes_to_the_checked_host_not_through_a_proxy(receiver, monkeypatch):
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")  # a proxy would be another destination than the URL's
    monkeypatch.setenv("no_proxy", "")
    monkeypatch.setattr(urllib.request, "_opener", None)  # as in a fresh process: urllib reads the proxy anew
    assert transport.send(delivery(f"{receiver.url}/direct"), b"{}", 5.0) is None
    assert len(receiver.requests_to("/direct")) == 1


def test_every_http_attempt_carries_the_delivery_id_as_idempotency_key(receiver, catalog):
    receiver.answer("/fail-twice", 500, 500, 200)
    [queued] = queue(catalog, f"{receiver.url}/fail-twice")
    assert outbox.deliver_due(catalog, clock=lambda: 0.0) == {"delivered": 1, "pending": 0, "dead": 0}
    attempts = receiver.requests_to("/fail-twice")
    assert len(attempts) == 3
    assert {r.headers["Idempotency-Key"] for r in attempts} == {queued["id"]}
    assert {r.headers["X-Speechproc-Delivery"] for r in attempts} == {queued["id"]}


# ---------------------------------------------------------------- attempts counted before they are made

@pytest.mark.parametrize("stop", [KeyboardInterrupt, SystemExit])
def test_an_attempt_cut_off_by_a_kill_is_counted(catalog, stop):
    queue(catalog, "https://receiver.invalid/hook")

    def killed(delivery, body, timeout):
        raise stop

    with pytest.raises(stop):
        outbox.deliver_due(catalog, clock=lambda: 0.0, sender=killed)
    [row] = rows(catalog)
    assert row["state"] == "pending" and row["attempts"] == 1 and row["lastError"].startswith("interrupted")
    # after the lease the round goes on from the attempt that was cut off
    counted = []
    outbox.deliver_due(catalog, clock=lambda: 10_000.0, sender=lambda d, b, t: counted.append(1) or "HTTP 500")
    [row] = rows(catalog)
    assert len(counted) == 2 and row["attempts"] == 3 and row["lastError"] == "HTTP 500"


def test_a_delivery_whose_last_attempt_was_cut_off_is_dead_without_another(catalog):
    [queued] = queue(catalog, "https://receiver.invalid/hook")
    catalog.outbox.start(queued["id"], attempts=schedule.MAX_ATTEMPTS, first_try=0.0, last_error=outbox.INTERRUPTED)
    sent = []
    assert outbox.deliver_due(catalog, clock=lambda: 0.0, sender=lambda d, b, t: sent.append(1)) == \
        {"delivered": 0, "pending": 0, "dead": 1}
    assert sent == [] and rows(catalog)[0]["attempts"] == schedule.MAX_ATTEMPTS


# ---------------------------------------------------------------- file destinations

@pytest.fixture
def drop(tmp_path) -> Path:
    folder = tmp_path / "drop"
    folder.mkdir()
    return folder


def file_config(drop: Path, url: str) -> dict:
    return {"speechproc": {"callbackFileFolder": str(drop)}, "publish": {"callbacks": [{"url": url}]}}


def test_file_callbacks_need_the_configured_folder(drop):
    err = reject({"publish": {"callbacks": [{"url": (drop / "x.json").as_uri()}]}})
    assert err.code == errors.CALLBACK_BAD_PROTOCOL and "speechproc.callbackFileFolder" in err.message


@pytest.mark.parametrize("where", ["outside", "dotdot", "encoded-dotdot", "host", "query"])
def test_file_callbacks_outside_the_folder_or_with_a_host_are_refused(drop, where):
    url = {"outside": (drop.parent / "x.json").as_uri(), "dotdot": drop.as_uri() + "/../x.json",
           "encoded-dotdot": drop.as_uri() + "/%2e%2e/x.json", "host": f"file://10.0.0.1{drop}/x.json",
           "query": drop.as_uri() + "/x.json?y=1"}[where]
    err = reject(file_config(drop, url))
    assert err.code == errors.CALLBACK_BAD_PROTOCOL, err.message
    assert transport.send(delivery(url, fileFolder=str(drop)), b"{}", 1.0).startswith("refused:")
    assert not (drop.parent / "x.json").exists() and list(drop.iterdir()) == []


def test_file_callback_folder_must_be_absolute_and_exist(drop):
    for folder in ("drop", "/", f"{drop}/../drop"):
        assert reject({"speechproc": {"callbackFileFolder": folder}}).message.startswith("speechproc.callbackFileFolder")
    err = reject(file_config(drop / "missing", (drop / "missing" / "x.json").as_uri()))
    assert "not an existing folder" in err.message


def test_localhost_and_an_empty_host_write_under_the_folder(drop):
    for url in (f"file://localhost{drop}/a.json", (drop / "b.json").as_uri(), (drop / "sub" / "c.json").as_uri()):
        config.validate(file_config(drop, url))
        assert transport.send(delivery(url, fileFolder=str(drop)), b'{"n": 1}', 1.0) is None
    assert json.loads((drop / "a.json").read_text()) == {"n": 1}
    assert (drop / "b.json").exists() and (drop / "sub" / "c.json").exists()
    assert sorted(p.name for p in drop.iterdir()) == ["a.json", "b.json", "sub"]  # no temporary file left


def test_a_symbolic_link_under_the_folder_is_refused_at_validation_and_at_send_time(drop, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (drop / "sub").symlink_to(elsewhere)
    url = (drop / "sub" / "x.json").as_uri()
    assert "symbolic link" in reject(file_config(drop, url)).message
    assert "symbolic link" in transport.send(delivery(url, fileFolder=str(drop)), b"{}", 1.0)
    assert list(elsewhere.iterdir()) == []


def test_a_symbolic_link_as_the_target_is_refused(drop, tmp_path):
    victim = tmp_path / "passwd"
    victim.write_text("root:x:0:0\n")
    (drop / "x.json").symlink_to(victim)
    url = (drop / "x.json").as_uri()
    assert "symbolic link" in reject(file_config(drop, url)).message
    error = transport.send(delivery(url, fileFolder=str(drop)), b"{}", 1.0)
    assert error.startswith("refused:") and "symbolic link" in error
    assert victim.read_text() == "root:x:0:0\n"


def test_a_folder_replaced_by_a_link_after_validation_is_refused_when_sending(drop, tmp_path, catalog):
    (drop / "sub").mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    queue(catalog, (drop / "sub" / "x.json").as_uri(), {"speechproc": {"callbackFileFolder": str(drop)}})
    (drop / "sub").rmdir()
    (drop / "sub").symlink_to(elsewhere)
    assert outbox.deliver_due(catalog, clock=lambda: 0.0) == {"delivered": 0, "pending": 0, "dead": 1}
    assert "symbolic link" in rows(catalog)[0]["lastError"] and list(elsewhere.iterdir()) == []


def test_an_existing_file_is_never_replaced(drop):
    (drop / "x.json").write_text("the user's own file")
    url = (drop / "x.json").as_uri()
    config.validate(file_config(drop, url))  # an existing file is not a configuration error
    error = transport.send(delivery(url, fileFolder=str(drop)), b"{}", 1.0)
    assert "exists" in error and "never replace" in error
    assert (drop / "x.json").read_text() == "the user's own file"


def test_a_retry_of_the_same_delivery_finds_its_own_earlier_write(drop):
    queued = delivery(drop.as_uri() + "/", fileFolder=str(drop))
    assert transport.send(queued, b'{"n": 1}', 1.0) is None
    assert transport.send(queued, b'{"n": 1}', 1.0) is None  # killed after writing, before recording: no harm
    [written] = list(drop.iterdir())
    assert written.name == f"{MEDIA_ID}-analytics-0.json" and written.read_bytes() == b'{"n": 1}'


def test_without_hard_links_a_file_is_still_written_only_as_a_new_file(drop, monkeypatch):
    def no_hard_links(*args, **kwargs):
        raise OSError(errno.EPERM, "hard links are not supported here")

    monkeypatch.setattr(os, "link", no_hard_links)
    assert transport.send(delivery((drop / "x.json").as_uri(), fileFolder=str(drop)), b"{}", 1.0) is None
    (drop / "y.json").write_text("the user's own file")
    assert "never replace" in transport.send(delivery((drop / "y.json").as_uri(), fileFolder=str(drop)), b"{}", 1.0)
    assert (drop / "x.json").read_bytes() == b"{}" and (drop / "y.json").read_text() == "the user's own file"
    assert sorted(p.name for p in drop.iterdir()) == ["x.json", "y.json"]


def test_a_file_delivery_queued_without_a_folder_is_refused(drop, catalog):
    catalog.outbox.add([{**delivery((drop / "x.json").as_uri()), "contract": "v3", "body": b"{}", "nextDue": 0.0,
                         "created": "2026-11-21T00:00:00.000Z"}])
    assert outbox.deliver_due(catalog, clock=lambda: 0.0) == {"delivered": 0, "pending": 0, "dead": 1}
    assert "callbackFileFolder" in rows(catalog)[0]["lastError"] and list(drop.iterdir()) == []


# ---------------------------------------------------------------- accountId and accountName

def test_the_analytics_body_carries_the_account_where_the_sample_has_it(monkeypatch, tmp_path):
    monkeypatch.setenv("SPEECHPROC_HOME", str(tmp_path / "home"))
    [queued] = bodies.plan(ITEM, callback_options(config.validate({"publish": {"callbacks": [{"url": "https://x.example/"}]}})),
                              {}, 0.0)
    body = json.loads(queued["body"])
    assert list(body)[:6] == ["_links", "formatVersion", "mediaId", "accountId", "accountName", "status"]
    assert body["accountName"] == "speechproc"
    kept = json.loads((tmp_path / "home" / "account.json").read_text())["accountId"]
    assert body["accountId"] == kept and str(uuid.UUID(kept)) == kept
    again = bodies.plan(ITEM, callback_options(config.validate({"publish": {"callbacks": [{"url": "https://x.example/"}]}})),
                        {}, 0.0)
    assert json.loads(again[0]["body"])["accountId"] == kept  # stable across runs


def test_the_account_can_be_configured_and_is_validated(monkeypatch, tmp_path):
    monkeypatch.setenv("SPEECHPROC_HOME", str(tmp_path / "home"))
    chosen = "AD29BEC5-0649-DDDA-F166-DADC74F161C4"
    settings = config.validate({"speechproc": {"accountId": chosen, "accountName": "Contact centre"},
                                "publish": {"callbacks": [{"url": "https://x.example/"}]}})
    body = json.loads(bodies.plan(ITEM, callback_options(settings), {}, 0.0)[0]["body"])
    assert (body["accountId"], body["accountName"]) == (chosen.lower(), "Contact centre")
    assert not (tmp_path / "home" / "account.json").exists()
    for bad in ({"accountId": "not-a-uuid"}, {"accountId": chosen + "0"}, {"accountName": "x" * 257},
                {"accountName": " "}):
        assert reject({"speechproc": bad}).message.startswith("speechproc.account")


def test_an_unreadable_account_file_is_made_again(tmp_path):
    (tmp_path / "account.json").write_text("{")
    made = account.local_account_id(tmp_path)
    assert account.local_account_id(tmp_path) == made == json.loads((tmp_path / "account.json").read_text())[
        "accountId"]


# ---------------------------------------------------------------- expiry

@pytest.mark.parametrize("ttl", [10**30, 2**63, 10**12 * 86400])
def test_a_huge_time_to_live_never_overflows(ttl):
    body = bodies.analytics_body(ITEM, [], ttl)
    assert body["timeToLiveInSeconds"] == ttl and body["expiresOn"] == "9999-12-31T23:59:59.999Z"


def test_an_expiry_without_a_readable_finish_date_is_left_out():
    assert bodies.analytics_body({**ITEM, "dateFinished": "soon"}, [], 60)["timeToLiveInSeconds"] == 60
    assert "expiresOn" not in bodies.analytics_body({**ITEM, "dateFinished": "soon"}, [], 60)
    assert bodies.analytics_body(ITEM, [], 60)["expiresOn"] == "2026-11-21T00:02:00.000Z"


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
        return True
    except OSError:
        return False


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback on this machine")
def test_an_ipv6_loopback_receiver_is_reached_on_the_default_and_a_given_port():
    with receiving("::1") as v6:
        assert transport.send(delivery(f"{v6.url}/v6"), b"{}", 5.0) is None
        assert len(v6.requests_to("/v6")) == 1
        # no port in the URL: port 80, never a port read out of the bare address "::1"
        seen = {}

        class Spy(transport_http.http.client.HTTPConnection):
            def __init__(self, host, port=None, **kwargs):
                seen.update(host=host, port=port)
                super().__init__(host, port, **kwargs)

        original = transport_http.http.client.HTTPConnection
        transport_http.http.client.HTTPConnection = Spy
        try:
            transport.send(delivery("http://[::1]/v6"), b"{}", 0.5)
        finally:
            transport_http.http.client.HTTPConnection = original
        assert seen == {"host": "::1", "port": 80}


def test_a_folder_missing_when_sending_is_retried_not_given_up(drop, catalog):
    target = drop / "later"
    target.mkdir()
    queue(catalog, target.as_uri() + "/", {"speechproc": {"callbackFileFolder": str(target)}})
    target.rmdir()  # an unmounted share, say
    assert outbox.deliver_due(catalog, clock=lambda: 0.0) == {"delivered": 0, "pending": 1, "dead": 0}
    assert "cannot write" in rows(catalog)[0]["lastError"]
    target.mkdir()
    later = 16 * 60.0  # the next round
    assert outbox.deliver_due(catalog, clock=lambda: later) == {"delivered": 1, "pending": 0, "dead": 0}
    assert [p.name for p in target.iterdir()] == [f"{MEDIA_ID}-analytics-0.json"]


def test_two_senders_of_one_delivery_never_take_each_others_temporary_file(drop, monkeypatch):
    queued = delivery(drop.as_uri() + "/", fileFolder=str(drop))
    made = []
    real_create = files._create

    def create(folder, name, body):
        made.append(name)
        real_create(folder, name, body)

    monkeypatch.setattr(files, "_create", create)
    assert transport.send(queued, b"{}", 1.0) is None
    (drop / f"{MEDIA_ID}-analytics-0.json").unlink()
    assert transport.send(queued, b"{}", 1.0) is None
    temporaries = [n for n in made if n.endswith(".tmp")]
    assert len(temporaries) == 2 and temporaries[0] != temporaries[1]
    assert sorted(p.name for p in drop.iterdir()) == [f"{MEDIA_ID}-analytics-0.json"]
