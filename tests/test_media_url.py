"""Recordings fetched from an http(s) URL (the v3 `mediaUrl`): the download's rules and errors, outputs under
--out named after the URL, the re-run that a 304 answer skips, and secrets that never land anywhere.

The recording is sample_media/voicemail.wav served by a local receiver (tests/receivers.py). Tests that are
not marked slow give the pipeline the voicemail's known words in place of recognition (`known_words`), so
no speech model runs; the one marked slow recognises it for real."""
from __future__ import annotations

import base64
import json
import os
import re
import socket
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import SAMPLES, truth_for
from receivers import Receiver, receiving
from speechproc import api, download, paths, urls
from speechproc import errors as E
from speechproc.batch import jobs, planning, reuse
from speechproc.config import v3 as config
from speechproc.config.options import download_options
from speechproc.store.database.catalog import Catalog
from text_helpers import truth_words

VOICEMAIL = (SAMPLES / "voicemail.wav").read_bytes()
SECRET = "X-Amz-Signature=5ecret0f7he5ignature&X-Amz-Credential=AKIAEXAMPLE"


@pytest.fixture
def server() -> Receiver:
    with receiving() as receiver:
        yield receiver


@pytest.fixture
def known_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """The voicemail's words from truth.json in place of recognition (the real decode and every later stage run)."""
    real = jobs.analyse

    def analyse(path, options, conv, on_stage, on_seconds=None, words=None):
        return real(path, options, conv, on_stage, on_seconds, truth_words(truth_for("voicemail.wav")))

    monkeypatch.setattr(jobs, "analyse", analyse)


def run(*args: str, config_file: Path | None = None) -> tuple[int, dict, str, str]:
    """`speechproc run ARGS` in this process: (exit code, the summary or error body, stdout, stderr)."""
    from speechproc.cli.commands import main

    extra = ["--config", str(config_file)] if config_file else []
    result = CliRunner().invoke(main, ["run", *args, *extra])
    return result.exit_code, json.loads(result.stdout), result.stdout, result.stderr


def settings_file(folder: Path, **local: object) -> Path:
    path = folder / "config.json"
    path.write_text(json.dumps({"speechproc": local}))
    return path


def warning(item: dict) -> dict:
    return item["error"]["warnings"][0]


def downloads(home: Path) -> list[str]:
    folder = home / "downloads"
    return sorted(os.listdir(folder)) if folder.exists() else []


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ----------------------------------------------------------------------------- URLs

def test_a_url_is_parsed_into_a_public_form_without_its_secrets():
    remote = urls.parse("HTTPS://user:pa%40ss@Bucket.Example.COM:443/calls/2024/call%20one.wav?sig=abc#part")
    assert remote.public == "https://bucket.example.com/calls/2024/call%20one.wav"
    assert remote.name == "call one.wav"
    assert remote.whole == "https://user:pa%40ss@bucket.example.com/calls/2024/call%20one.wav?sig=abc"
    assert "sig" not in repr(remote) and "pa%40ss" not in repr(remote)
    assert urls.parse("http://[::1]:8080/x").public == "http://[::1]:8080/x"


@pytest.mark.parametrize("path, name", [
    ("/calls/a.wav", "a.wav"), ("/", urls.FALLBACK_NAME), ("", urls.FALLBACK_NAME),
    ("/calls/", "calls"), ("/..", urls.FALLBACK_NAME), ("/.hidden.wav", "hidden.wav"),
    ("/a%2Fb%5Cc%00d.wav", "a_b_c_d.wav"), ("/%E2%82%AC.flac", "\u20ac.flac"), ("/" + "x" * 300 + ".wav", "x" * 116 + ".wav"),
    ("/%E2%80%AEvaw.flac", "_vaw.flac"), ("/ca%E2%80%8Bll.wav", "ca_ll.wav"), ("/call%C2%A0one.wav", "call_one.wav"),
    ("/caf%C3%A9%20call.wav", "caf\u00e9 call.wav"),
])
def test_the_file_name_is_the_last_segment_of_the_path_made_safe(path, name):
    assert urls.file_name(path) == name


@pytest.mark.parametrize("url, why", [
    ("http://exa mple.com/a.wav", "whitespace"), ("http://", "no host"), ("https://[::1/a.wav", "cannot be parsed"),
    ("http://host:99999/a.wav", "port"), ("http://host:0/a.wav", "port"), ("ftp://host/a.wav", "ftp:// is not fetched"),
    ("http://a..b/a.wav", "not a host name"), ("http://host\\a.wav", "backslash"),
    ("http://h/a\udcff\udcfe.wav?tok=X", "not UTF-8"),  # a name that is not UTF-8, as the shell hands it over
    ("http://admin:1234#x@h/a.wav", "user information"), ("http://user:p?ss@h/a.wav", "user information"),
    ("http://user:pa/ss@h/a.wav", "user information"),
])
def test_a_malformed_url_is_refused_with_10204(url, why):
    with pytest.raises(E.ConfigurationError, match=why) as refused:
        urls.parse(url)
    assert refused.value.code == E.MEDIA_URL_MALFORMED
    for secret in ("1234", "p?ss", "pa/ss", "tok=X"):  # no part of a password or query shown
        assert secret not in refused.value.message


def test_the_download_settings_change_no_output_so_they_leave_the_fingerprint_alone():
    plain = config.validate({"speechproc": {"threads": 2}})
    fetching = config.validate({"speechproc": {"threads": 2, "maxDownloadBytes": 10, "downloadTimeoutSeconds": 5}})
    assert plain.fingerprint() == fetching.fingerprint()
    assert download_options(fetching) == download.DownloadOptions(max_bytes=10, timeout=5)


# ----------------------------------------------------------------------------- a successful run

def test_a_url_is_processed_into_outputs_under_out_named_after_it(server, home, tmp_path, known_words):
    server.serve("/calls/voicemail.wav", VOICEMAIL, etag='"v1"', content_type="text/html")  # the bytes decide
    out = tmp_path / "out"
    url = f"{server.url}/calls/voicemail.wav?{SECRET}"
    code, summary, _, _ = run(url, "--out", str(out), "--quiet")
    [item] = summary["media"]
    assert code == 0 and item["status"] == "finished", item
    assert item["input"] == f"{server.url}/calls/voicemail.wav"
    stem = Path(planning.own_name(urls.parse(url))).stem  # a query tells this URL apart: a tag of its hash
    assert re.fullmatch(r"voicemail-[0-9a-f]{8}", stem) and SECRET not in stem
    assert item["outputs"]["json"] == str(out / f"{stem}.v3.json")
    assert sorted(p.name for p in out.iterdir()) == [f"{stem}.dfxp", f"{stem}.srt", f"{stem}.txt",
                                                     f"{stem}.v3.json", f"{stem}.vtt"]
    result = json.loads((out / f"{stem}.v3.json").read_text())
    assert result["mediaContentType"] == "audio/x-wav" and result["length"] > 8000
    assert [r.path for r in server.requests_to("/calls/voicemail.wav")] == [f"/calls/voicemail.wav?{SECRET}"]
    with Catalog() as catalog:
        [row] = catalog.media.list()
    assert row["input_path"] == f"{server.url}/calls/voicemail.wav" and row["status"] == "finished"
    assert downloads(home) == []  # the download is removed once the item is recorded


def test_two_urls_of_one_name_are_numbered_and_the_same_url_twice_is_processed_once(server, home, tmp_path,
                                                                                   known_words):
    for route in ("/a/call.wav", "/b/call.wav"):
        server.serve(route, VOICEMAIL)
    out = tmp_path / "out"
    first, second = f"{server.url}/a/call.wav", f"{server.url}/b/call.wav"
    code, summary, _, _ = run(first, second, first, "--out", str(out), "--quiet")
    assert code == 0
    assert [i["status"] for i in summary["media"]] == ["finished", "finished", "skipped"]
    assert [Path(i["outputs"]["json"]).name for i in summary["media"][:2]] == ["call.v3.json", "call-2.v3.json"]
    assert len(server.requests_to("/a/call.wav")) == 1


def test_urls_that_differ_in_their_query_never_share_outputs_across_runs(server, home, tmp_path, known_words):
    """`download?id=1` and `download?id=2` are two recordings: a later run of one never writes over the other's
    outputs, and a re-run of the first finds its own outputs as it left them."""
    out = tmp_path / "out"
    firsts = []
    for n, body in ((1, VOICEMAIL), (2, VOICEMAIL + b"\0\0")):  # another recording (its bytes differ)
        server.serve("/download", body, etag=f'"v{n}"')
        firsts.append(run(f"{server.url}/download?id={n}", "--out", str(out), "--quiet")[1]["media"][0])
    assert [m["status"] for m in firsts] == ["finished", "finished"]
    one, two = (Path(m["outputs"]["json"]) for m in firsts)
    assert one != two and one.exists() and two.exists()
    kept = one.read_bytes()
    server.serve("/download", VOICEMAIL, etag='"v1"')
    again = run(f"{server.url}/download?id=1", "--out", str(out), "--quiet")[1]["media"][0]
    assert again["status"] == "skipped" and Path(again["outputs"]["json"]) == one and one.read_bytes() == kept


def test_a_redirect_is_followed_and_user_information_goes_to_its_own_host_only(server, home, tmp_path, known_words):
    with receiving() as other:
        other.serve("/store/voicemail.wav", VOICEMAIL)
        server.answer("/short", 302, location="/hop")
        server.answer("/hop", 307, location=f"{other.url}/store/voicemail.wav")
        url = server.url.replace("http://", "http://agent:hunter2@") + "/short"
        code, summary, _, _ = run(url, "--out", str(tmp_path / "out"), "--quiet")
        assert code == 0 and summary["media"][0]["status"] == "finished"
        assert re.fullmatch(r"short-[0-9a-f]{8}\.v3\.json", Path(summary["media"][0]["outputs"]["json"]).name)
        expected = "Basic " + base64.b64encode(b"agent:hunter2").decode()
        assert [r.headers["Authorization"] for r in server.requests] == [expected, expected]
        assert [r.headers.get("Authorization") for r in other.requests] == [None]


# ----------------------------------------------------------------------------- what fails one item

def fails(server: Receiver, route: str, tmp_path: Path, with_good: bool = True, **local: object) -> dict:
    """Run one URL of `server` (with these local settings), next to a good one unless `with_good` is False;
    the URL's item, which failed."""
    server.serve("/good.wav", VOICEMAIL)
    config_file = settings_file(tmp_path, **local) if local else None
    urls = [f"{server.url}{route}", *([f"{server.url}/good.wav"] if with_good else [])]
    code, summary, _, _ = run(*urls, "--out", str(tmp_path / "out"), "--quiet", config_file=config_file)
    bad, *good = summary["media"]
    assert code == 1 and bad["status"] == "failed" and "outputs" not in bad, bad
    assert [g["status"] for g in good] == ["finished"] * with_good  # the batch goes on
    assert not (tmp_path / "out" / (Path(route.split("?")[0]).stem + ".v3.json")).exists()
    return bad


def test_a_status_that_is_not_2xx_fails_the_item_with_10207_and_the_status(server, home, tmp_path, known_words):
    server.answer("/missing.wav", 404)
    bad = fails(server, "/missing.wav", tmp_path)
    assert warning(bad)["code"] == E.MEDIA_URL_STATUS and "status 404" in warning(bad)["message"]
    with Catalog() as catalog:
        row = catalog.media.get(bad["mediaId"])
    assert row["status"] == "failed" and row["item"]["errors"][0]["code"] == E.MEDIA_URL_STATUS


def test_a_redirect_loop_fails_after_five_redirects(server, home, tmp_path, known_words):
    server.answer("/loop.wav", 302, location="/loop.wav")
    bad = fails(server, "/loop.wav", tmp_path)
    assert warning(bad)["code"] == E.MEDIA_URL_STATUS and "more than 5 redirects" in warning(bad)["message"]
    assert len(server.requests_to("/loop.wav")) == 6  # the first request and five redirects


@pytest.mark.parametrize("target", ["file:///etc/passwd", "ftp://files.example/voicemail.wav",
                                    "data:audio/wav;base64,UklGRg=="])
def test_a_redirect_to_another_scheme_is_refused(server, home, tmp_path, known_words, target):
    server.answer("/elsewhere.wav", 302, location=target)
    bad = fails(server, "/elsewhere.wav", tmp_path)
    message = warning(bad)["message"]
    assert warning(bad)["code"] == E.MEDIA_URL_STATUS and "not followed" in message and target not in message


def test_a_server_that_stalls_is_cut_off_by_the_total_timeout(server, home, tmp_path, known_words):
    server.serve("/slow.wav", VOICEMAIL)
    with server.stalling("/slow.wav"):  # (alone: a loaded machine may take longer for a good download)
        bad = fails(server, "/slow.wav", tmp_path, with_good=False, downloadTimeoutSeconds=0.2)
    assert warning(bad)["code"] == E.MEDIA_URL_UNREACHABLE
    assert "did not finish within 0.2 s" in warning(bad)["message"]


@pytest.mark.parametrize("length", [True, False], ids=["declared", "undeclared"])
def test_a_body_that_slows_to_a_trickle_is_cut_off_by_the_total_timeout(server, home, tmp_path, known_words, length):
    """A byte every 50 ms past the deadline: the timeout is the reason given, not a short or complete body."""
    server.serve("/trickle.wav", VOICEMAIL, length=length, drip_s=0.05)
    bad = fails(server, "/trickle.wav", tmp_path, with_good=False, downloadTimeoutSeconds=0.3)
    assert warning(bad)["code"] == E.MEDIA_URL_UNREACHABLE
    assert "did not finish within 0.3 s" in warning(bad)["message"], warning(bad)
    assert downloads(home) == []


@pytest.mark.parametrize("declared, why", [(len(VOICEMAIL) + 1000, f"ended after {len(VOICEMAIL)} of the"),
                                           (1000, "longer than the 1000 bytes")])
def test_a_lying_content_length_fails_the_item(server, home, tmp_path, known_words, declared, why):
    server.serve("/lying.wav", VOICEMAIL, length=declared)
    bad = fails(server, "/lying.wav", tmp_path)
    assert warning(bad)["code"] == E.MEDIA_URL_UNREACHABLE and why in warning(bad)["message"]
    assert downloads(home) == []


def test_a_body_that_is_not_audio_fails_as_unreadable_media(server, home, tmp_path, known_words):
    server.serve("/page.wav", b"<html><body>Sign in to continue</body></html>", content_type="audio/x-wav")
    bad = fails(server, "/page.wav", tmp_path)
    assert warning(bad)["code"] == E.MEDIA_UNREADABLE
    assert warning(bad)["message"].startswith(f"{server.url}/page.wav: the file is malformed or unreadable")
    assert "downloads" not in warning(bad)["message"]  # the temporary file is never named


@pytest.mark.parametrize("length", [True, False], ids=["declared", "undeclared"])
def test_a_body_over_the_size_cap_fails_with_10800(server, home, tmp_path, known_words, length):
    cap = len(VOICEMAIL) + 10
    server.serve("/big.wav", VOICEMAIL + bytes(len(VOICEMAIL)), length=length)
    bad = fails(server, "/big.wav", tmp_path, maxDownloadBytes=cap)
    assert warning(bad)["code"] == E.PAYLOAD_TOO_LARGE
    assert f"payload is larger than {cap} bytes" in warning(bad)["message"]
    assert downloads(home) == []


def test_an_unreachable_host_fails_the_item_with_10203(server, home, tmp_path, known_words):
    server.serve("/good.wav", VOICEMAIL)
    code, summary, _, _ = run(f"http://127.0.0.1:{closed_port()}/x.wav?{SECRET}", f"{server.url}/good.wav",
                              "--out", str(tmp_path / "out"), "--quiet")
    bad, good = summary["media"]
    assert code == 1 and good["status"] == "finished" and bad["status"] == "failed"
    assert warning(bad)["code"] == E.MEDIA_URL_UNREACHABLE and "unreachable" in warning(bad)["message"]
    assert SECRET not in json.dumps(summary)


# ----------------------------------------------------------------------------- what stops the run

@pytest.mark.parametrize("url", ["http://exa mple.com/a.wav", "https://[::1/a.wav", "http://host:99999/a.wav",
                                 "gopher://host/a.wav"])
def test_a_malformed_url_is_a_usage_error_and_nothing_is_processed(server, home, tmp_path, url):
    server.serve("/good.wav", VOICEMAIL)
    code, body, _, stderr = run(f"{server.url}/good.wav", url, "--out", str(tmp_path / "out"), "--quiet")
    assert code == 2 and body["warnings"][0]["code"] == E.MEDIA_URL_MALFORMED and "10204" in stderr
    assert server.requests == [] and not (tmp_path / "out").exists()
    assert not (home / "catalog.sqlite3").exists() or Catalog().media.list() == []


def test_a_url_without_out_is_a_usage_error(server, home, tmp_path):
    code, body, _, _ = run(f"{server.url}/good.wav")
    assert code == 2 and body["warnings"][0]["code"] == E.INVALID_VALUE and "--out" in body["warnings"][0]["message"]
    assert server.requests == []


def test_a_manifest_row_gives_a_url_its_metadata_and_a_malformed_one_stops_the_run(server, home, tmp_path,
                                                                                  known_words):
    server.serve("/voicemail.wav", VOICEMAIL)
    url = f"{server.url}/voicemail.wav?{SECRET}"
    manifest = tmp_path / "calls.csv"
    other = f"{server.url}/other.wav?{SECRET}"  # a row naming no recording of the run: a note, secrets left out
    manifest.write_text(f"file,title,extended.queue\n{url},Voicemail,sales\n{other},Other,sales\n")
    code, summary, stdout, stderr = run(url, "--metadata-csv", str(manifest), "--out", str(tmp_path / "out"))
    assert code == 0 and f"a row names {server.url}/other.wav, which is not among the recordings" in stderr
    assert SECRET not in stdout + stderr
    item = json.loads(Path(summary["media"][0]["outputs"]["json"]).read_text())
    assert item["metadata"] == {"title": "Voicemail", "extended": {"queue": "sales"}}
    manifest.write_text(f"file,title\n{url},Voicemail\nhttp://bad host/x.wav?{SECRET},Broken\n")
    code, body, stdout, stderr = run(url, "--metadata-csv", str(manifest), "--out", str(tmp_path / "out2"))
    assert code == 2 and body["warnings"][0]["code"] == E.MEDIA_URL_MALFORMED
    assert "calls.csv, line 3" in body["warnings"][0]["message"] and SECRET not in stdout + stderr


# ----------------------------------------------------------------------------- re-runs

def test_a_rerun_sends_the_etag_and_a_304_skips_the_url_without_downloading(server, home, tmp_path, known_words):
    server.serve("/voicemail.wav", VOICEMAIL, etag='"abc123"')
    args = (f"{server.url}/voicemail.wav?{SECRET}", "--out", str(tmp_path / "out"), "--quiet")
    first = run(*args)[1]["media"][0]
    code, again, _, _ = run(*args)
    assert code == 0 and again["media"][0]["status"] == "skipped"
    assert again["media"][0]["mediaId"] == first["mediaId"] and again["media"][0]["outputs"] == first["outputs"]
    requests = server.requests_to("/voicemail.wav")
    assert len(requests) == 2 and "If-None-Match" not in requests[0].headers
    assert requests[1].headers["If-None-Match"] == '"abc123"'  # answered 304: the body was sent once
    with Catalog() as catalog:
        assert len(catalog.media.list()) == 1
    forced = run(*args, "--force")[1]["media"][0]
    assert forced["status"] == "finished" and "If-None-Match" not in server.requests_to("/voicemail.wav")[2].headers


def test_a_rerun_with_last_modified_only_asks_if_modified_since(server, home, tmp_path, known_words):
    stamp = "Tue, 01 Oct 2024 10:00:00 GMT"
    server.serve("/voicemail.wav", VOICEMAIL, last_modified=stamp)
    args = (f"{server.url}/voicemail.wav", "--out", str(tmp_path / "out"), "--quiet")
    run(*args)
    assert run(*args)[1]["media"][0]["status"] == "skipped"
    assert server.requests_to("/voicemail.wav")[1].headers["If-Modified-Since"] == stamp


def test_another_query_string_is_another_url_but_unchanged_content_is_still_skipped(server, home, tmp_path,
                                                                                   known_words):
    server.serve("/voicemail.wav", VOICEMAIL, etag='"abc123"')
    out = str(tmp_path / "out")
    run(f"{server.url}/voicemail.wav?sig=first", "--out", out, "--quiet")
    code, again, _, _ = run(f"{server.url}/voicemail.wav?sig=second", "--out", out, "--quiet")
    assert code == 0 and again["media"][0]["status"] == "skipped"  # downloaded again: the same content
    assert "If-None-Match" not in server.requests_to("/voicemail.wav")[1].headers


def test_deleted_outputs_make_the_rerun_download_and_process_again(server, home, tmp_path, known_words):
    server.serve("/voicemail.wav", VOICEMAIL, etag='"abc123"')
    out = tmp_path / "out"
    run(f"{server.url}/voicemail.wav", "--out", str(out), "--quiet")
    (out / "voicemail.srt").unlink()
    code, again, _, _ = run(f"{server.url}/voicemail.wav", "--out", str(out), "--quiet")
    assert code == 0 and again["media"][0]["status"] == "finished" and (out / "voicemail.srt").exists()
    assert "If-None-Match" not in server.requests_to("/voicemail.wav")[1].headers


def test_an_item_fetched_from_a_url_cannot_be_aligned_as_its_download_is_not_kept(server, home, tmp_path,
                                                                                 known_words):
    server.serve("/voicemail.wav", VOICEMAIL)
    [item] = run(f"{server.url}/voicemail.wav", "--out", str(tmp_path / "out"), "--quiet")[1]["media"]
    with pytest.raises(E.SpeechprocError, match="keeps no copy of the recording") as refused:
        api.align_media(item["mediaId"], "Hello there.")
    assert refused.value.code == E.RESOURCE_NOT_FOUND
    assert api.get_media(item["mediaId"])["status"] == "finished"  # left as it was


# ----------------------------------------------------------------------------- secrets and leftovers

def test_secrets_of_the_url_land_nowhere(server, home, tmp_path, known_words):
    """User information, query and fragment reach the server and nothing else: not the catalog's bytes, stdout,
    stderr (notes included), the outputs, the state folder, a failed item's error or the callbacks' bodies."""
    hook = tmp_path / "hooks"
    hook.mkdir()
    server.serve("/calls/voicemail.wav", VOICEMAIL, etag='"e1"')
    server.answer("/calls/gone.wav", 410)
    secret_parts = ["hunter2pass", "5ecret0f7he5ignature", "AKIAEXAMPLE", "fragmentsecret"]
    base = server.url.replace("http://", "http://agent:hunter2pass@")
    good = f"{base}/calls/voicemail.wav?{SECRET}#fragmentsecret"
    gone = f"{base}/calls/gone.wav?{SECRET}"
    configuration = {"publish": {"callbacks": [{"url": f"file://{hook}/analytics.json"}]},
                     "speechproc": {"callbackFileFolder": str(hook)}}
    (tmp_path / "config.json").write_text(json.dumps(configuration))
    out = tmp_path / "out"
    texts = []
    for _ in range(2):  # the second run is skipped by a 304, with its note
        code, _, stdout, stderr = run(good, gone, "--out", str(out), "--config", str(tmp_path / "config.json"))
        assert code == 1
        texts += [stdout, stderr]
    assert "unchanged since media" in texts[3] and "gone.wav: failed" in texts[1]
    assert server.requests_to("/calls/voicemail.wav")[0].path == f"/calls/voicemail.wav?{SECRET}"
    files = [p for p in [*home.rglob("*"), *out.rglob("*"), *hook.rglob("*")] if p.is_file()]
    assert any(p.name == "catalog.sqlite3" for p in files) and any(p.parent == hook for p in files)
    for secret in secret_parts:
        assert not [t for t in texts if secret in t]
        assert not [p for p in files if secret.encode() in p.read_bytes()], secret
    db = sqlite3.connect(home / "catalog.sqlite3")
    stored = [r[0] for r in db.execute("SELECT input_path FROM media ORDER BY rowid")]
    db.close()
    assert stored == [f"{server.url}/calls/{name}.wav" for name in ("voicemail", "gone", "gone")]


def test_ctrl_c_during_a_download_removes_its_temporary_file(server, home, tmp_path, monkeypatch):
    server.serve("/voicemail.wav", VOICEMAIL, length=False)
    real, seen = download._Transfer.tick, []

    def tick(self):
        seen.append(downloads(home))
        if len(seen) == 2:
            raise KeyboardInterrupt
        return real(self)

    monkeypatch.setattr(download._Transfer, "tick", tick)
    with pytest.raises(KeyboardInterrupt):
        api.process([f"{server.url}/voicemail.wav"], config.validate({}), out_dir=tmp_path / "out", deliver=False)
    assert len(seen[1]) == 1 and seen[1][0].startswith(".voicemail.wav.speechproc-")  # it was there
    assert downloads(home) == []


def test_the_temporary_file_of_a_killed_run_is_removed_by_the_next_download(server, home):
    folder = home / "downloads"
    folder.mkdir(parents=True)
    dead = next(pid for pid in range(999_999, 1, -1) if paths.process_mark(pid) is None)
    stale = folder / f".voicemail.wav.speechproc-{paths._HOST}-{dead}-0badcafe.tmp"  # this host's, its writer gone
    elsewhere = folder / ".voicemail.wav.speechproc-00000000-1-0badcafe.tmp"  # another host's: never touched
    for path in (stale, elsewhere):
        path.write_bytes(b"half")
    server.serve("/voicemail.wav", VOICEMAIL)
    fetched = download.fetch(urls.parse(f"{server.url}/voicemail.wav"), download.DownloadOptions())
    try:
        assert not stale.exists() and elsewhere.exists()
        assert fetched.path.parent == folder and fetched.sha256 == reuse.content_key(SAMPLES / "voicemail.wav")
        assert fetched.content_type == "audio/x-wav" and fetched.size == len(VOICEMAIL)
    finally:
        fetched.discard()
    assert not fetched.path.exists()


# ----------------------------------------------------------------------------- real recognition

@pytest.mark.slow
def test_urls_are_recognised_for_real_in_worker_processes(server, home, tmp_path):
    """The download is made here and read by the worker process that runs the job."""
    server.serve("/voicemail.wav", VOICEMAIL)
    server.serve("/again/voicemail.flac", (SAMPLES / "payment.flac").read_bytes())
    code, summary, _, _ = run(f"{server.url}/voicemail.wav?{SECRET}", f"{server.url}/again/voicemail.flac",
                              "--out", str(tmp_path / "out"), "--workers", "2", "--quiet")
    assert code == 0 and [i["status"] for i in summary["media"]] == ["finished", "finished"]
    for media, content_type in zip(summary["media"], ("audio/x-wav", "audio/flac")):
        item = json.loads(Path(media["outputs"]["json"]).read_text())
        assert Path(media["outputs"]["json"]).parent == tmp_path / "out"
        assert item["mediaContentType"] == content_type
        assert [w for w in item["transcript"]["words"] if not w.get("m")], f"no words recognised in {media}"
    assert downloads(home) == []
