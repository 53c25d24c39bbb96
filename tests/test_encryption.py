"""Client-supplied encryption: public keys stored and refused, and every file of an encrypted item written only
as OpenPGP ciphertext (checked by decrypting with Debian's gpg), with the catalog keeping none of its results.

The runs here use the sample call's known words (truth.json) in place of recognition, so the exact words can
be looked for in the catalog and the output folder; the one real run is marked slow."""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from conftest import SAMPLES, invoke, truth_for
from speechproc.batch import jobs
from speechproc.formats import openpgp
from text_helpers import truth_words

GPG = shutil.which("gpg")
pytestmark = pytest.mark.skipif(GPG is None, reason="Debian's gpg is not installed")
MEDIA_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
DATE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")


def gpg(home: Path, *args: str, data: bytes | None = None) -> bytes:
    done = subprocess.run([GPG or "gpg", "--batch", "--quiet", *args], input=data, capture_output=True,
                          env={**os.environ, "GNUPGHOME": str(home)}, check=True, timeout=120)
    return done.stdout


@pytest.fixture(scope="module")
def keyring(tmp_path_factory) -> dict[str, Path]:
    """Throwaway keys made by gpg: an encryption key (armored, binary, private), a sign-only key, a message."""
    folder = tmp_path_factory.mktemp("gpg")
    home = folder / "home"
    home.mkdir(mode=0o700)
    gpg(home, "--passphrase", "", "--quick-gen-key", "Results <results@example.com>", "default", "default", "never")
    gpg(home, "--passphrase", "", "--quick-gen-key", "Signer <signer@example.com>", "ed25519", "sign", "never")
    gpg(home, "--faked-system-time", "20200101T000000", "--passphrase", "", "--quick-gen-key",  # expired in 2020
        "Expired <expired@example.com>", "default", "default", "1d")
    files = {"home": home, "asc": folder / "key.asc", "binary": folder / "key.gpg", "private": folder / "private.asc",
             "sign_only": folder / "sign.asc", "message": folder / "message.asc", "empty": folder / "empty.asc",
             "random": folder / "random.bin", "keyring": folder / "two.asc", "expired": folder / "expired.asc"}
    files["asc"].write_bytes(gpg(home, "--armor", "--export", "results@example.com"))
    files["binary"].write_bytes(gpg(home, "--export", "results@example.com"))
    files["private"].write_bytes(gpg(home, "--pinentry-mode", "loopback", "--passphrase", "", "--armor",
                                     "--export-secret-keys", "results@example.com"))
    files["sign_only"].write_bytes(gpg(home, "--armor", "--export", "signer@example.com"))
    files["keyring"].write_bytes(gpg(home, "--armor", "--export", "results@example.com", "signer@example.com"))
    files["expired"].write_bytes(gpg(home, "--armor", "--export", "expired@example.com"))
    files["message"].write_bytes(gpg(home, "--armor", "--trust-model", "always", "-r", "results@example.com",
                                     "--encrypt", data=b"not a key"))
    files["empty"].write_bytes(b"")
    files["random"].write_bytes(os.urandom(10 * 2**20))
    return files


def decrypt(home: Path, data: bytes) -> bytes:
    return gpg(home, "--decrypt", data=data)


def add_key(path: Path) -> dict:
    code, out = invoke("keys", "add", str(path))
    assert code == 0, out
    assert isinstance(out, dict)
    return out


# ----------------------------------------------------------------------------- keys


def test_keys_add_list_get_delete(keyring, home):
    armored, binary = add_key(keyring["asc"]), add_key(keyring["binary"])
    assert set(armored) == {"_links", "publicKeyId", "publicKeyHash"}
    assert MEDIA_ID.fullmatch(armored["publicKeyId"]) and armored["publicKeyId"] != binary["publicKeyId"]
    assert armored["_links"]["self"]["href"] == f"/v3/security/public-keys/{armored['publicKeyId']}"
    assert armored["publicKeyHash"] == binary["publicKeyHash"]  # one key, whichever export
    code, listed = invoke("keys", "list")
    assert code == 0 and [k["publicKeyId"] for k in listed["publicKeys"]] == [armored["publicKeyId"],
                                                                              binary["publicKeyId"]]
    assert all("publicKey" not in k for k in listed["publicKeys"])
    code, got = invoke("keys", "get", armored["publicKeyId"])
    assert code == 0 and got["publicKeyHash"] == armored["publicKeyHash"]
    assert got["publicKey"].startswith("-----BEGIN PGP PUBLIC KEY BLOCK-----")
    stored = openpgp.check_key(got["publicKey"].encode())
    assert hashlib.sha256(stored.data).hexdigest() == armored["publicKeyHash"]
    assert invoke("keys", "delete", armored["publicKeyId"])[0] == 0
    code, missing = invoke("keys", "get", armored["publicKeyId"])
    assert code == 1 and missing["status"] == 404 and missing["warnings"][0]["code"] == 10205
    code, missing = invoke("keys", "delete", armored["publicKeyId"])
    assert code == 1 and missing["status"] == 404


@pytest.mark.parametrize("name, says", [
    ("empty", "empty"), ("random", "not an OpenPGP public key"), ("private", "a private key"),
    ("message", "not an OpenPGP public key"), ("sign_only", "cannot encrypt"), ("keyring", "holds 2 OpenPGP keys"),
    ("expired", "expired on 2020-01-02"),
])
def test_a_hostile_key_file_is_refused_and_nothing_is_stored(keyring, home, name, says):
    code, out = invoke("keys", "add", str(keyring[name]))
    assert code == 2, out
    assert out["status"] == 400 and out["warnings"][0]["code"] == 10009
    assert says in out["warnings"][0]["message"]
    assert invoke("keys", "list")[1]["publicKeys"] == []


def test_a_folder_or_missing_file_is_refused(tmp_path, home):
    for path in (tmp_path, tmp_path / "missing.asc"):
        code, out = invoke("keys", "add", str(path))
        assert code == 2 and out["warnings"][0]["code"] == 10009


# ----------------------------------------------------------------------------- encrypted runs


@pytest.fixture
def known_words(monkeypatch):
    """Recognition replaced by the sample call's known words: fast, and the words are known exactly."""
    real = jobs.analyse
    words = truth_words(truth_for("call.flac"))

    def analyse(path, options, conv, on_stage, on_seconds=None, given=None):
        real(path, options, conv, on_stage, on_seconds, given or list(words))

    monkeypatch.setattr(jobs, "analyse", analyse)
    return words


def config_file(folder: Path, drop: Path, key_id: str | None) -> Path:
    raw = {"metrics": [{"metricGroupName": "overtalk"}],
           "prediction": {"detectors": [{"detectorName": "Number", "redactor": {
               "transcript": {"replacement": "[x]"}, "audio": {"tone": 300}}}]},
           "publish": {"enableAnalyticIndexing": True, "callbacks": [
               {"url": drop.as_uri() + "/"},
               {"url": drop.as_uri() + "/srt", "type": "transcript", "format": "srt"}]},
           "speechproc": {"callbackFileFolder": str(drop)}}
    if key_id is not None:
        raw |= {"encryption": {"publicKeyId": key_id}, "searchability": {"searchable": False}}
    path = folder / ("encrypted.yaml" if key_id else "plain.yaml")
    path.write_text(yaml.safe_dump(raw))
    return path


def run(folder: Path, state: Path, key_file: Path | None, monkeypatch) -> dict:
    """Process a copy of the sample call into `folder`/out with its own state folder; what came of it."""
    monkeypatch.setenv("SPEECHPROC_HOME", str(state))
    drop = folder / "drop"
    drop.mkdir(parents=True)
    shutil.copy(SAMPLES / "call.flac", folder / "call.flac")
    key = add_key(key_file) if key_file else None
    config = config_file(folder, drop, key["publicKeyId"] if key else None)
    code, out = invoke("run", str(folder / "call.flac"), "--config", str(config), "--out", str(folder / "out"),
                       "--report")
    assert code == 0, out
    [item] = out["media"]
    return {"item": item, "key": key, "config": config, "drop": drop, "out": folder / "out"}


@pytest.fixture
def both(tmp_path, keyring, known_words, monkeypatch) -> dict:
    plain = run(tmp_path / "plain", tmp_path / "plain-state", None, monkeypatch)
    encrypted = run(tmp_path / "enc", tmp_path / "enc-state", keyring["asc"], monkeypatch)
    return {"plain": plain, "encrypted": encrypted, "home": keyring["home"]}


def normalised(text: str, *ids: str) -> str:
    for media_id in ids:
        text = text.replace(media_id, "MEDIA")
    return DATE.sub("DATE", text)


def test_every_output_is_ciphertext_of_what_a_plain_run_writes(both):
    plain, enc = both["plain"], both["encrypted"]
    names = sorted(p.name for p in enc["out"].iterdir())
    assert names == sorted(p.name + ".gpg" for p in plain["out"].iterdir())
    assert {"call.v3.json.gpg", "call.txt.gpg", "call.srt.gpg", "call.vtt.gpg", "call.dfxp.gpg",
            "call.report.html.gpg", "call.redacted.flac.gpg"} <= set(names)
    assert set(enc["item"]["outputs"].values()) == {str(enc["out"] / n) for n in names}
    ids = (plain["item"]["mediaId"], enc["item"]["mediaId"])
    for path in sorted(plain["out"].iterdir()):
        sealed = (enc["out"] / (path.name + ".gpg")).read_bytes()
        assert sealed[:1] != path.read_bytes()[:1] or not sealed.startswith(b"{")
        clear = decrypt(both["home"], sealed)
        if path.name.endswith(".v3.json"):
            mine, theirs = json.loads(clear), json.loads(path.read_bytes())
            assert mine.pop("encryption") == {k: enc["key"][k] for k in ("publicKeyId", "publicKeyHash")}
            for item in (mine, theirs):
                for stream in item.get("streams", []):
                    stream["streamLocation"] = Path(stream["streamLocation"]).name.removesuffix(".gpg")
            assert normalised(json.dumps(mine), *ids) == normalised(json.dumps(theirs), *ids)
        elif path.name.endswith(".html"):
            assert b"<html" in clear.lower()
            assert normalised(clear.decode(), *ids).count("Agent") == normalised(path.read_text(), *ids).count("Agent")
        else:
            assert normalised(clear.decode("latin-1"), *ids) == normalised(path.read_bytes().decode("latin-1"), *ids), \
                path.name


def test_no_plaintext_word_in_the_catalog_or_the_output_folder(both, known_words):
    enc = both["encrypted"]
    words = {w.text.strip(".,?!").lower() for w in known_words} - {""}
    configured = enc["config"].read_text().lower()  # a detector named Number is no word of the transcript
    long_words = {w for w in words if len(w) >= 6 and w not in configured}
    assert long_words
    catalog = (enc["out"].parent.parent / "enc-state" / "catalog.sqlite3").read_bytes().lower()
    folder = b"".join(p.read_bytes() for p in enc["out"].iterdir()).lower()
    drop = b"".join(p.read_bytes() for p in enc["drop"].rglob("*") if p.is_file()).lower()
    for word in sorted(long_words):
        assert word.encode() not in catalog, word
        assert word.encode() not in folder, word
        assert word.encode() not in drop, word
    plain = (enc["out"].parent.parent / "plain-state" / "catalog.sqlite3").read_bytes().lower()
    assert any(word.encode() in plain for word in long_words)  # the scan would have found them


def test_the_catalog_answers_404_for_transcript_and_metadata_and_shows_the_key(both):
    enc = both["encrypted"]
    media_id = enc["item"]["mediaId"]
    for args in (("transcript", media_id), ("transcript", media_id, "--format", "srt"),
                 ("media", "metadata", media_id)):
        code, out = invoke(*args)
        assert code == 1 and out["status"] == 404 and out["warnings"][0]["code"] == 10205, args
    code, item = invoke("media", "get", media_id)
    assert code == 0 and item["status"] == "finished"
    assert item["encryption"] == {"publicKeyId": enc["key"]["publicKeyId"], "publicKeyHash": enc["key"]["publicKeyHash"]}
    assert not {"transcript", "metadata", "metrics", "prediction", "streams"} & set(item)
    code, listed = invoke("media", "list")
    assert [m["encryption"]["publicKeyId"] for m in listed["media"]] == [enc["key"]["publicKeyId"]]
    code, found = invoke("query", "SELECT mediaId FROM media")  # enableAnalyticIndexing was asked for
    assert code == 0 and found["totalResults"] == 0, found
    code, out = invoke("media", "align", media_id, str(enc["config"]))
    assert code == 2 and "encrypted" in out["warnings"][0]["message"]
    code, out = invoke("report", media_id)
    assert code == 1 and out["status"] == 404


def test_callbacks_are_encrypted(both):
    enc = both["encrypted"]
    code, listed = invoke("callbacks", "list", "--all")
    assert code == 0 and {c["contentType"] for c in listed["callbacks"]} == {"application/pgp-encrypted"}
    assert {c["state"] for c in listed["callbacks"]} == {"delivered"}
    bodies = sorted(p for p in enc["drop"].rglob("*") if p.is_file())
    assert len(bodies) == 2 and {p.suffix for p in bodies} == {".gpg", ""}  # the folder's own name; the URL's
    clear = [decrypt(both["home"], p.read_bytes()) for p in bodies]
    analytics = [json.loads(c) for c in clear if c.startswith(b"{")]
    assert len(analytics) == 1 and analytics[0]["encryption"]["publicKeyId"] == enc["key"]["publicKeyId"]
    assert "transcript" in analytics[0] and analytics[0]["mediaId"] == enc["item"]["mediaId"]
    [srt] = [c for c in clear if not c.startswith(b"{")]
    assert srt == decrypt(both["home"], (enc["out"] / "call.srt.gpg").read_bytes())


def test_a_rerun_with_the_same_key_skips_the_unchanged_item(both):
    enc = both["encrypted"]
    code, out = invoke("run", str(enc["out"].parent / "call.flac"), "--config", str(enc["config"]),
                       "--out", str(enc["out"]), "--report")
    assert code == 0 and out["media"][0]["status"] == "skipped", out
    assert out["media"][0]["mediaId"] == enc["item"]["mediaId"]


def test_an_unknown_key_id_is_a_configuration_error_before_any_audio(tmp_path, home, known_words):
    shutil.copy(SAMPLES / "call.flac", tmp_path / "call.flac")
    drop = tmp_path / "drop"
    drop.mkdir()
    config = config_file(tmp_path, drop, "5b0e2f4e-0000-4000-8000-000000000000")
    code, out = invoke("run", str(tmp_path / "call.flac"), "--config", str(config), "--out", str(tmp_path / "out"))
    assert code == 2, out
    assert "encryption.publicKeyId" in json.dumps(out)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
    assert invoke("media", "list")[1]["media"] == []


def test_a_job_writes_nothing_in_the_clear_even_for_a_moment(tmp_path, keyring, monkeypatch):
    """Every file of an encrypted job reaches the disk as ciphertext made in memory, never a temporary plaintext:
    the redacted audio is encoded into memory, not into a file."""
    from dataclasses import replace

    from speechproc.formats import audio
    from speechproc.store.files import ownership
    from test_jobs import sample_job

    checked = openpgp.check_key(keyring["asc"].read_bytes())
    key = openpgp.PublicKey("k", checked.key_hash, checked.data)
    written: list[bytes] = []
    real_write, real_redact = ownership.write_bytes, audio.redact_into

    def spy(tmp, data):
        written.append(data if isinstance(data, bytes) else data.encode())
        real_write(tmp, data)

    def into_memory(source, out, *args, **kwargs):
        assert not isinstance(out, (str, Path)), out
        real_redact(source, out, *args, **kwargs)

    monkeypatch.setattr(ownership, "write_bytes", spy)
    monkeypatch.setattr(audio, "redact_into", into_memory)
    out = tmp_path / "out"
    out.mkdir()
    job = sample_job(out)
    job = replace(job, outputs={k: openpgp.sealed_name(v) for k, v in job.outputs.items()},
                  redacted_audio=openpgp.sealed_name(job.redacted_audio), encryption=key)
    result = jobs.run_job(job)
    assert result.status == "finished", result.error
    assert result.index is None
    assert len(written) == 6 and all(not w.startswith((b"{", b"WEBVTT", b"1\n", b"<", b"RIFF", b"fLaC"))
                                     for w in written)
    assert all(decrypt(keyring["home"], w) for w in written)


@pytest.mark.slow
def test_a_real_run_encrypts_what_it_recognises(tmp_path, keyring, monkeypatch):
    enc = run(tmp_path / "enc", tmp_path / "state", keyring["binary"], monkeypatch)
    clear = json.loads(decrypt(keyring["home"], (enc["out"] / "call.v3.json.gpg").read_bytes()))
    configured = enc["config"].read_text().lower()  # a detector named Number is no word of the transcript
    words = {w["w"].lower() for w in clear["transcript"]["words"] if len(w.get("w", "")) >= 6} - {""}
    words = {w for w in words if w not in configured}
    assert words
    catalog = (tmp_path / "state" / "catalog.sqlite3").read_bytes().lower()
    assert not [w for w in words if w.encode() in catalog]


def test_an_encrypted_copy_of_the_recording_when_asked(tmp_path, keyring, known_words, home):
    shutil.copy(SAMPLES / "call.flac", tmp_path / "call.flac")
    key = add_key(keyring["asc"])
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({"encryption": {"publicKeyId": key["publicKeyId"]},
                                      "speechproc": {"encryptOriginal": True}}))
    code, out = invoke("run", str(tmp_path / "call.flac"), "--config", str(config), "--out", str(tmp_path / "out"))
    assert code == 0, out
    [item] = out["media"]
    copy = tmp_path / "out" / "call.original.flac.gpg"
    assert item["outputs"]["original-encrypted"] == str(copy)
    assert decrypt(keyring["home"], copy.read_bytes()) == (tmp_path / "call.flac").read_bytes()
    code, streams = invoke("media", "streams", item["mediaId"])
    assert code == 0 and [s["streamName"] for s in streams["streams"]] == ["original-encrypted"]
    assert streams["streams"][0]["streamLocation"].endswith("call.original.flac.gpg")
    code, _ = invoke("media", "delete", item["mediaId"])
    assert code == 0 and not copy.exists() and (tmp_path / "call.flac").exists()  # the recording itself stays


def test_an_encrypted_copy_without_a_key_is_a_configuration_error(tmp_path, home):
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({"speechproc": {"encryptOriginal": True}}))
    shutil.copy(SAMPLES / "call.flac", tmp_path / "call.flac")
    code, out = invoke("run", str(tmp_path / "call.flac"), "--config", str(config), "--out", str(tmp_path / "out"))
    assert code == 2 and "speechproc.encryptOriginal" in out["warnings"][0]["message"], out
    assert not (tmp_path / "out").exists()


def test_a_recording_fetched_from_a_url_is_kept_only_as_its_encrypted_copy(tmp_path, keyring, known_words, home):
    from receivers import receiving

    recording = (SAMPLES / "voicemail.wav").read_bytes()
    key = add_key(keyring["asc"])
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({"encryption": {"publicKeyId": key["publicKeyId"]},
                                      "speechproc": {"encryptOriginal": True}}))
    with receiving() as server:
        server.serve("/calls/voicemail.wav", recording)
        code, out = invoke("run", f"{server.url}/calls/voicemail.wav", "--config", str(config),
                           "--out", str(tmp_path / "out"))
    assert code == 0, out
    copy = tmp_path / "out" / "voicemail.original.wav.gpg"  # named after the URL, not the download
    assert decrypt(keyring["home"], copy.read_bytes()) == recording
    assert not list((home / "downloads").iterdir())  # no plaintext copy of the recording is left
