"""The callback outbox: every delivery of a media item's callbacks, queued before anything is sent, with
each attempt's count, time and error. The only module that speaks its SQL; `speechproc.delivery` decides
what is queued, when it is due and how it is sent.
"""
from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from speechproc.store.database.tables import immediate, path_key, path_of


class OutboxTable:
    """The callback outbox of one catalog connection. A delivery reads back as `speechproc.delivery` takes
    it: {id, mediaId, position, url, method, type, contentType, contract, state, attempts, nextDue, firstTry,
    lastError, created, bodyPath, allowHttp, fileFolder, body}."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def add(self, deliveries: Sequence[Mapping[str, Any]]) -> None:
        """Queue deliveries (as `delivery.bodies.plan` makes them), pending and never tried."""
        with immediate(self.db):
            for d in deliveries:
                self.db.execute(
                    "INSERT INTO outbox (delivery_id, media_id, position, url, method, kind, content_type, body, "
                    "body_path, contract, state, attempts, next_due, created, rules_json) VALUES (?, ?, ?, ?, ?, ?, "
                    "?, ?, ?, ?, 'pending', 0, ?, ?, ?)",
                    (d["id"], d["mediaId"], d["position"], d["url"], d["method"], d["type"], d["contentType"],
                     d.get("body"), path_key(d.get("bodyPath")), d["contract"], d["nextDue"], d["created"],
                     json.dumps({"allowHttp": bool(d.get("allowHttp")), "fileFolder": d.get("fileFolder")})))

    def claim(self, now: float, lease: float) -> list[dict[str, Any]]:
        """Pending deliveries due by `now`, leased for `lease` seconds so that an overlapping run skips them."""
        with immediate(self.db):
            rows = self.db.execute("SELECT * FROM outbox WHERE state = 'pending' AND next_due <= ? ORDER BY next_due, "
                                   "created, position", (now,)).fetchall()
            for row in rows:
                self.db.execute("UPDATE outbox SET next_due = ? WHERE delivery_id = ?", (now + lease, row["delivery_id"]))
        return [_read(r) for r in rows]

    def record(self, delivery_id: str, *, attempts: int, state: str, next_due: float, first_try: float,
               last_error: str | None) -> None:
        """Record how an attempt ended: the delivery's attempts, state, next due time and last error."""
        self.db.execute("UPDATE outbox SET attempts = ?, state = ?, next_due = ?, first_try = coalesce(first_try, ?), "
                        "last_error = ? WHERE delivery_id = ?",
                        (attempts, state, next_due, first_try, last_error, delivery_id))

    def start(self, delivery_id: str, *, attempts: int, first_try: float, last_error: str) -> None:
        """Count an attempt before it is made; `last_error` stands until its end is recorded."""
        self.db.execute("UPDATE outbox SET attempts = ?, first_try = coalesce(first_try, ?), last_error = ? "
                        "WHERE delivery_id = ?", (attempts, first_try, last_error, delivery_id))

    def list(self, states: tuple[str, ...]) -> list[dict[str, Any]]:
        """The deliveries in these states, oldest first, without their bodies."""
        marks = ", ".join("?" * len(states))
        rows = self.db.execute(f"SELECT * FROM outbox WHERE state IN ({marks}) ORDER BY created, position", states)
        return [_read(r, with_body=False) for r in rows]

    def drop(self, media_id: str) -> int:
        """Remove every delivery of a media item, sent or not; how many there were."""
        return self.db.execute("DELETE FROM outbox WHERE media_id = ?", (media_id,)).rowcount


def _read(row: sqlite3.Row, with_body: bool = True) -> dict[str, Any]:
    """An outbox row as the delivery `speechproc.delivery` reads."""
    out = {"id": row["delivery_id"], "mediaId": row["media_id"], "position": row["position"], "url": row["url"],
           "method": row["method"], "type": row["kind"], "contentType": row["content_type"],
           "contract": row["contract"], "state": row["state"], "attempts": row["attempts"],
           "nextDue": row["next_due"], "firstTry": row["first_try"], "lastError": row["last_error"],
           "created": row["created"], "bodyPath": path_of(row["body_path"])}
    rules = json.loads(row["rules_json"] or "{}")  # the destination rules the delivery was queued with
    out |= {"allowHttp": bool(rules.get("allowHttp")), "fileFolder": rules.get("fileFolder")}
    if with_body:
        out["body"] = row["body"]
    return out
