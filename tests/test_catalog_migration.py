"""A catalog made by version 4 (before exact paths, owners, claims and the record of written files)."""
from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from speechproc.store.database.catalog import SCHEMA_VERSION, Catalog

V4_MEDIA = """
CREATE TABLE media (
    media_id TEXT PRIMARY KEY, input_path TEXT NOT NULL, content_hash TEXT, config_hash TEXT, status TEXT NOT NULL,
    date_created TEXT NOT NULL, date_finished TEXT, item_json TEXT NOT NULL, progress_json TEXT NOT NULL DEFAULT '[]',
    outputs_json TEXT NOT NULL DEFAULT '{}', config_json TEXT NOT NULL DEFAULT '{}');
CREATE INDEX media_by_date ON media (date_created);
CREATE INDEX media_by_input ON media (input_path, content_hash, config_hash, status);
CREATE TABLE outbox (delivery_id TEXT PRIMARY KEY, media_id TEXT NOT NULL, position INTEGER NOT NULL,
    url TEXT NOT NULL, method TEXT NOT NULL, kind TEXT NOT NULL, content_type TEXT NOT NULL, body BLOB,
    body_path TEXT, contract TEXT NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
    next_due REAL NOT NULL, first_try REAL, last_error TEXT, created TEXT NOT NULL);
PRAGMA user_version = 4;
"""


def _version_4(path: Path, input_path: str) -> Path:
    with sqlite3.connect(path) as db:
        db.executescript(V4_MEDIA)
        db.execute("INSERT INTO media (media_id, input_path, content_hash, config_hash, status, date_created, "
                   "item_json) VALUES ('m1', ?, 'h', 'c', 'finished', '2026-11-01T00:00:00.000Z', "
                   "'{\"mediaId\": \"m1\", \"status\": \"finished\"}')", (input_path,))
    db.close()
    return path


def test_a_version_4_catalog_is_upgraded_and_its_items_still_match(tmp_path):
    old_path = "/calls/a\\b.wav"  # a backslash in a name: the text column now doubles it
    with Catalog(_version_4(tmp_path / "c.sqlite3", old_path)) as cat:
        assert cat.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        found = cat.media.find_finished(old_path, "h", "c")
        assert found is not None and found["media_id"] == "m1"
        assert found["input_path"] == "/calls/a\\\\b.wav"  # the text form, unambiguous
        assert cat.media.get("m1")["input_path"] == old_path  # the exact path
        tables = {r[0] for r in cat.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"written", "definitions", "indexed", "outbox"} <= tables
        outbox = {r["name"] for r in cat.db.execute("PRAGMA table_info(outbox)")}
        assert "rules_json" in outbox


def test_overlapping_runs_opening_an_old_catalog_upgrade_it_once(tmp_path):
    path = _version_4(tmp_path / "c.sqlite3", "/calls/x.wav")
    problems: list[BaseException] = []
    start = threading.Barrier(4)

    def open_it() -> None:
        try:
            start.wait()
            with Catalog(path) as cat:
                assert cat.media.find_finished("/calls/x.wav", "h", "c") is not None
        except BaseException as exc:  # noqa: BLE001 - reported below
            problems.append(exc)

    threads = [threading.Thread(target=open_it) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert problems == []
    with Catalog(path) as cat:
        columns = [r["name"] for r in cat.db.execute("PRAGMA table_info(media)")]
    assert len(columns) == len(set(columns)) and "input_raw" in columns and "owner_pid" in columns


def test_an_upgraded_catalog_keeps_what_a_conditional_download_needs(tmp_path):
    with Catalog(_version_4(tmp_path / "c.sqlite3", "https://host/a.wav")) as cat:
        columns = {r["name"] for r in cat.db.execute("PRAGMA table_info(media)")}
        assert {"source_etag", "source_modified", "source_key"} <= columns
        assert cat.media.find_fetched("https://host/a.wav", "c", "key") is None  # an old item kept no validators
        item = {"mediaId": "m2", "status": "finished", "dateCreated": "2026-11-02T00:00:00.000Z"}
        cat.media.add(item, "https://host/a.wav", "h2", "c", [], source=('"e"', None, "key"))
        found = cat.media.find_fetched("https://host/a.wav", "c", "key")
        assert found["media_id"] == "m2" and (found["etag"], found["lastModified"], found["contentHash"]) == \
            ('"e"', None, "h2")
        assert cat.media.find_fetched("https://host/a.wav", "c", "another key") is None
