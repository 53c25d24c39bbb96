"""The SQLite catalog: one connection to `$SPEECHPROC_HOME/catalog.sqlite3`, its tables created or
brought to the current schema, and the owner of each table, which alone speaks that table's SQL:
`media` (media_rows), `definitions` (definitions_table), `index` (index_table), `outbox` (outbox_table)
and `written` (the record of written files). Open one with `opening.using`, which also purges what expired."""
from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from speechproc.paths import state_home
from speechproc.store.database.definitions_table import DefinitionsTable
from speechproc.store.database.index_table import IndexTable
from speechproc.store.database.media_rows import MediaTable
from speechproc.store.database.outbox_table import OutboxTable
from speechproc.store.database.tables import ADDED_INDEXED_COLUMNS, ADDED_MEDIA_COLUMNS, SCHEMA_VERSION, TABLES, immediate
from speechproc.store.database.written import WrittenFiles


class Catalog:
    """Media items in `$SPEECHPROC_HOME/catalog.sqlite3` (WAL mode, safe for overlapping runs), through the
    owners of its tables: `media`, `definitions`, `index`, `outbox`, `written`."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else state_home() / "catalog.sqlite3"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.exists():  # private from the start (sqlite gives its -wal and -shm files the same mode)
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600))
        self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA busy_timeout=30000")
        self.db.execute("PRAGMA secure_delete=ON")  # what is deleted (a voiceprint, an expired item) is overwritten
        self._use_wal()
        self._migrate()
        self.media = MediaTable(self.db)
        self.definitions = DefinitionsTable(self.db)
        self.index = IndexTable(self.db)
        self.outbox = OutboxTable(self.db)
        self.written = WrittenFiles(self.db, self.media)

    def _use_wal(self, patience: float = 30.0) -> None:
        """Switch the file to WAL mode (it stays so). The switch needs the file to itself and SQLite does not
        wait for that on its own: runs opening a catalog at once retry until the first one has switched it."""
        deadline = time.monotonic() + patience
        while self.db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            try:
                self.db.execute("PRAGMA journal_mode=WAL")
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Catalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _migrate(self) -> None:
        """Bring a catalog made by an earlier version (or a new, empty one) to SCHEMA_VERSION.

        In one transaction that takes the write lock first, so that overlapping runs opening an old
        catalog at once upgrade it once."""
        if self.db.execute("PRAGMA user_version").fetchone()[0] >= SCHEMA_VERSION:
            return
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            if self.db.execute("PRAGMA user_version").fetchone()[0] >= SCHEMA_VERSION:
                return  # an overlapping run upgraded it meanwhile
            for statement in TABLES.split(";"):  # executescript would commit: one statement at a time
                if statement.strip():
                    self.db.execute(statement)
            self._add_columns("media", ADDED_MEDIA_COLUMNS)
            self._add_columns("indexed", ADDED_INDEXED_COLUMNS)
            self._add_columns("outbox", {"rules_json": "TEXT"})  # NULL: the strict destination rules
            # rows of version 4 and before: their paths were valid UTF-8 text, which are their exact bytes;
            # the text column now doubles a backslash so that it reads unambiguously
            self.db.execute("UPDATE media SET input_raw = CAST(input_path AS BLOB), "
                            "input_path = replace(input_path, '\\', '\\\\') WHERE input_raw IS NULL")
            self.db.execute("CREATE INDEX IF NOT EXISTS media_by_raw_input ON media "
                            "(input_raw, content_hash, config_hash, status)")
            self.db.execute("CREATE INDEX IF NOT EXISTS media_by_expiry ON media (expires_on) "
                            "WHERE expires_on IS NOT NULL")  # retention: what is due, in one indexed query
            self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def _add_columns(self, table: str, wanted: dict[str, str]) -> None:
        present = {r["name"] for r in self.db.execute(f"PRAGMA table_info({table})")}
        for column, kind in wanted.items():
            if column not in present:
                self.db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Changes through several owners made as one: the write lock is taken first, and they are committed
        together or not at all (an owner's own transaction inside joins this one)."""
        with immediate(self.db):
            yield

    def checkpoint(self) -> bool:
        """Empty the write-ahead log into the database file (where a deletion overwrites what it deleted);
        whether it was emptied (not while another process still reads an older state of the catalog)."""
        return self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0] == 0
