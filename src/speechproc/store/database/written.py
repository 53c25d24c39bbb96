"""The record of the files speechproc wrote: each file's absolute path, the SHA-256 of a content written
there, the media item it was written for, and when. The only module that speaks its SQL; `ownership.py`
decides from it whether a file may be replaced (this is the catalog's `ownership.OutputRecord`).
"""
from __future__ import annotations

import sqlite3
import time

from speechproc.store.database.media_rows import MediaTable
from speechproc.store.database.tables import path_key, path_of

EXPORT_OWNER = "(export)"  # the record's owner of a file `speechproc export` wrote


class WrittenFiles:
    """The record of written files of one catalog connection."""

    durable = True  # each change is committed as it is made

    def __init__(self, db: sqlite3.Connection, media: MediaTable) -> None:
        self.db = db
        self.media = media

    def record_output(self, path: str, sha256: str, media_id: str | None) -> None:
        """Remember that speechproc writes `sha256` content to the absolute `path`."""
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.db.execute("INSERT OR REPLACE INTO written (path, sha256, media_id, date_written) VALUES (?, ?, ?, ?)",
                        (path_key(path), sha256, media_id, now))

    def forget_other_outputs(self, path: str, sha256: str) -> None:
        """Keep only the latest content written to `path`."""
        self.db.execute("DELETE FROM written WHERE path = ? AND sha256 != ?", (path_key(path), sha256))

    def output_hashes(self, path: str) -> set[str]:
        """The SHA-256 of every content speechproc wrote to `path` that it still remembers (an export's
        file is not among them: only another export replaces it, see `export_hashes`)."""
        return {r[0] for r in self.db.execute("SELECT sha256 FROM written WHERE path = ? AND media_id IS NOT ?",
                                              (path_key(path), EXPORT_OWNER))}

    def export_hashes(self, path: str) -> set[str]:
        """The SHA-256 of what `speechproc export` wrote to `path`."""
        return {r[0] for r in self.db.execute("SELECT sha256 FROM written WHERE path = ? AND media_id IS ?",
                                              (path_key(path), EXPORT_OWNER))}

    def output_media(self, path: str) -> str | None:
        """The media item whose output speechproc wrote to `path`, if it wrote one there."""
        row = self.db.execute("SELECT media_id FROM written WHERE path = ? AND media_id IS NOT NULL "
                              "AND media_id IS NOT ? LIMIT 1", (path_key(path), EXPORT_OWNER)).fetchone()
        return row[0] if row else None

    def writer(self, path: str, sha256: str) -> str | None:
        """The media item speechproc wrote exactly this content to `path` for (None: none, or not for an item)."""
        row = self.db.execute("SELECT media_id FROM written WHERE path = ? AND sha256 = ?",
                              (path_key(path), sha256)).fetchone()
        return row[0] if row else None

    def paths_of(self, media_id: str) -> list[str]:
        """Every path speechproc recorded writing for a media item."""
        rows = self.db.execute("SELECT DISTINCT path FROM written WHERE media_id = ?", (media_id,))
        return [p for r in rows if (p := path_of(r[0])) is not None]

    def forget_media(self, media_id: str) -> None:
        """Forget every file recorded for a media item."""
        self.db.execute("DELETE FROM written WHERE media_id = ?", (media_id,))

    def media_with_output_named(self, name: str) -> list[tuple[str, dict[str, str]]]:
        """(media id, outputs) of the media items listing an output whose file name is `name` (how files of
        versions that kept no record are recognised)."""
        return self.media.with_output_named(name)
