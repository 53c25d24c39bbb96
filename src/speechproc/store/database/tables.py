"""The catalog's tables (SQLite DDL, by schema version), how a path is stored, and the one way a change
spanning several statements (or several tables) takes the write lock.

Each table has one owner that alone speaks its SQL: `media_rows.py` (media), `definitions_table.py`
(definitions), `index_table.py` (indexed, indexed_text), `outbox_table.py` (outbox) and `written.py`
(written); `catalog.py` keeps the connection they share and creates the tables."""
from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

SCHEMA_VERSION = 7
# columns that catalogs of earlier versions lack; config_json came in version 2, input_raw and owner_* in 5,
# in 6 expires_on (the item's expiresOn, ISO 8601 UTC, NULL when it has no timeToLiveInSeconds) and source_*
# (a URL's validators and the key of its whole URL, see `download`)
ADDED_MEDIA_COLUMNS = {"config_json": "TEXT NOT NULL DEFAULT '{}'", "input_raw": "BLOB", "owner_host": "TEXT",
                        "owner_pid": "INTEGER", "owner_start": "TEXT", "expires_on": "TEXT", "source_etag": "TEXT",
                        "source_modified": "TEXT", "source_key": "TEXT"}
# in 7 the analytic index keeps each item's call insights (reason, outcome, answers) for queries and drivers
ADDED_INDEXED_COLUMNS = {"insights_json": "TEXT NOT NULL DEFAULT '{}'"}
TABLES = """
CREATE TABLE IF NOT EXISTS media (
    media_id      TEXT PRIMARY KEY,
    input_path    TEXT NOT NULL,
    content_hash  TEXT,
    config_hash   TEXT,
    status        TEXT NOT NULL,
    date_created  TEXT NOT NULL,
    date_finished TEXT,
    item_json     TEXT NOT NULL,
    progress_json TEXT NOT NULL DEFAULT '[]',
    outputs_json  TEXT NOT NULL DEFAULT '{}',
    config_json   TEXT NOT NULL DEFAULT '{}',
    input_raw     BLOB,
    owner_host    TEXT,
    owner_pid     INTEGER,
    owner_start   TEXT,
    expires_on    TEXT,
    source_etag   TEXT,
    source_modified TEXT,
    source_key    TEXT
);
CREATE INDEX IF NOT EXISTS media_by_date ON media (date_created);
CREATE TABLE IF NOT EXISTS definitions (
    kind          TEXT NOT NULL,
    name          TEXT NOT NULL,
    body_json     TEXT NOT NULL,
    date_created  TEXT NOT NULL,
    date_modified TEXT NOT NULL,
    PRIMARY KEY (kind, name)
);
CREATE TABLE IF NOT EXISTS indexed (
    media_id      TEXT PRIMARY KEY,
    date_created  TEXT NOT NULL,
    status        TEXT NOT NULL,
    length_ms     INTEGER NOT NULL,
    word_count    INTEGER NOT NULL,
    metadata_json TEXT NOT NULL,
    metrics_json  TEXT NOT NULL,
    turns_json    TEXT NOT NULL,
    insights_json TEXT NOT NULL DEFAULT '{}'
);
CREATE VIRTUAL TABLE IF NOT EXISTS indexed_text USING fts5(media_id UNINDEXED, text);
CREATE TABLE IF NOT EXISTS outbox (
    delivery_id   TEXT PRIMARY KEY,
    media_id      TEXT NOT NULL,
    position      INTEGER NOT NULL,
    url           TEXT NOT NULL,
    method        TEXT NOT NULL,
    kind          TEXT NOT NULL,
    content_type  TEXT NOT NULL,
    body          BLOB,
    body_path     TEXT,
    contract      TEXT NOT NULL,
    state         TEXT NOT NULL,
    attempts      INTEGER NOT NULL DEFAULT 0,
    next_due      REAL NOT NULL,
    first_try     REAL,
    last_error    TEXT,
    created       TEXT NOT NULL,
    rules_json    TEXT
);
CREATE INDEX IF NOT EXISTS outbox_due ON outbox (state, next_due);
CREATE TABLE IF NOT EXISTS written (
    path          TEXT NOT NULL,
    sha256        TEXT NOT NULL,
    media_id      TEXT,
    date_written  TEXT NOT NULL,
    PRIMARY KEY (path, sha256)
);
"""


def path_key(path: str | None) -> bytes | None:
    """A file path as its exact bytes (a name need not be valid UTF-8, which SQLite text must be)."""
    return None if path is None else os.fsencode(path)


def path_of(stored: bytes | str | None) -> str | None:
    """A path stored by `path_key` (or as text by an earlier version) back as a path string."""
    return os.fsdecode(stored) if isinstance(stored, bytes) else stored


@contextmanager
def immediate(db: sqlite3.Connection) -> Iterator[None]:
    """One transaction that takes the write lock first (committed at the end, rolled back on an error);
    inside a transaction already begun, the statements join that one, which commits or rolls back them all."""
    if db.in_transaction:
        yield
        return
    with db:
        db.execute("BEGIN IMMEDIATE")
        yield
