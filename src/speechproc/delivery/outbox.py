"""The outbox: every callback of a media item queued in the catalog before anything is sent, and sent from there.

Every callback of a finished or failed media item becomes a delivery in the catalog's outbox before
anything is sent, so deliveries survive the process. `deliver_due` sends what is due, several
receivers at once, each attempt with a timeout, and records every attempt as it happens.

The retry schedule is `schedule.py`'s; the transports are `http.py` and `files.py`.

Delivery is at least once: every attempt is recorded as started before anything is sent, and a
delivery whose lease ran out while its attempt was still under way may be sent again by another run.
Every HTTP attempt carries the delivery id as `Idempotency-Key` (the same on every retry) so that a
receiver can drop a repeat.

A URL is parsed once (`destination`): the configuration check and the sender use the same parts, and
the request is built from them, so what is checked is what is connected to or written.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from speechproc.delivery.bodies import plan
from speechproc.delivery.deliveries import QueuedDelivery
from speechproc.delivery.destinations import Refused, delivery_destination, inspect_folder
from speechproc.delivery.options import CallbackOptions
from speechproc.delivery.schedule import ATTEMPTS_PER_ROUND, next_due, spent
from speechproc.delivery.transport import Sender, send
from speechproc.formats import v3json
from speechproc.results import MediaItem
from speechproc.store.database import Catalog

INTERRUPTED = "interrupted: the attempt did not finish (the process stopped during it)"


def enqueue(catalog: Catalog, item: MediaItem, options: CallbackOptions, streams: dict[str, str | None],
            now: float | None = None) -> None:
    """Put the item's callbacks into the outbox (sent by `deliver_due`, retried from there)."""
    deliveries = plan(item, options, {k: v for k, v in streams.items() if v}, time.time() if now is None else now)
    if deliveries:
        catalog.outbox.add(deliveries)


def _body(delivery: QueuedDelivery, max_bytes: int) -> tuple[bytes | None, str | None]:
    """The body to send, or why it cannot be sent at all (then the delivery is dead)."""
    if delivery["body"] is not None:
        body = bytes(delivery["body"])
    else:
        path = Path(delivery["bodyPath"] or "")
        if not delivery["bodyPath"] or not path.is_file():
            return None, "the stream to send does not exist (no redacted audio was written?)"
        if path.stat().st_size > max_bytes:
            return None, f"the body is {path.stat().st_size} bytes, more than the limit of {max_bytes}"
        body = path.read_bytes()
    if len(body) > max_bytes:
        return None, f"the body is {len(body)} bytes, more than the limit of {max_bytes}"
    return body, None


def _refusal(delivery: QueuedDelivery) -> str | None:
    """Why the rules refuse the delivery's destination as it is now (then it is dead at once), or None."""
    try:
        found = delivery_destination(delivery)
        if found.scheme == "file":
            inspect_folder(found, must_exist=False)
    except Refused as exc:
        return f"refused: {exc}"
    return None


def _work(catalog_path: Path, delivery: QueuedDelivery, clock: Callable[[], float], sender: Sender,
          timeout: float, max_bytes: int) -> str:
    """Attempts until success, the end of the round, or death (a body that cannot be sent or a URL the
    rules refuse: dead at once). Every attempt is counted in the catalog before it is made, with the
    last error `interrupted` until its end is recorded, so an attempt cut off by a kill still counts."""
    with Catalog(catalog_path) as catalog:
        body, fatal = _body(delivery, max_bytes)
        fatal = fatal or _refusal(delivery)
        attempts, first = delivery["attempts"], delivery["firstTry"]
        if spent(delivery["contract"], attempts):
            catalog.outbox.record(delivery["id"], attempts=attempts, state="dead", next_due=clock(),
                                  first_try=first if first is not None else clock(), last_error=delivery["lastError"])
            return "dead"
        while True:
            started = clock()
            first = first if first is not None else started
            attempts += 1
            catalog.outbox.start(delivery["id"], attempts=attempts, first_try=first, last_error=INTERRUPTED)
            if fatal:
                error: str | None = fatal
            else:
                assert body is not None  # `_body` gives a body whenever it gives no reason not to send
                error = sender(delivery, body, timeout)
            if error is None:
                catalog.outbox.record(delivery["id"], attempts=attempts, state="delivered", next_due=started,
                                      first_try=first, last_error=None)
                return "delivered"
            due = None if fatal else next_due(delivery["contract"], attempts, first, clock())
            state = "dead" if due is None else "pending"
            catalog.outbox.record(delivery["id"], attempts=attempts, state=state, next_due=due or clock(),
                                  first_try=first, last_error=error)
            if due is None or due > clock():  # dead, or due after this round
                return state


def deliver_due(catalog: Catalog, options: CallbackOptions | None = None, clock: Callable[[], float] = time.time,
                sender: Sender = send, workers: int = 8) -> dict[str, int]:
    """Send every delivery that is due; return how many were delivered, are still pending, or died."""
    options = options or CallbackOptions()
    timeout, max_bytes = options.timeout, options.max_bytes
    due = catalog.outbox.claim(clock(), lease=ATTEMPTS_PER_ROUND * timeout + 60)
    counts = {"delivered": 0, "pending": 0, "dead": 0}
    if not due:
        return counts
    with ThreadPoolExecutor(max_workers=min(workers, len(due))) as pool:
        for state in pool.map(lambda d: _work(catalog.path, d, clock, sender, timeout, max_bytes), due):
            counts[state] += 1
    return counts


def listing(catalog: Catalog, states: tuple[str, ...] = ("pending", "dead")) -> dict[str, Any]:
    """The outbox as `speechproc callbacks list` prints it."""
    def when(epoch: float | None) -> str | None:
        return None if epoch is None else v3json.iso(datetime.fromtimestamp(epoch, timezone.utc))

    return {"callbacks": [{"deliveryId": d["id"], "mediaId": d["mediaId"], "url": d["url"], "method": d["method"],
                           "type": d["type"], "contentType": d["contentType"], "contract": d["contract"],
                           "state": d["state"], "attempts": d["attempts"],
                           "nextAttempt": when(d["nextDue"]) if d["state"] == "pending" else None,
                           "lastError": d["lastError"], "dateCreated": d["created"]}
                          for d in catalog.outbox.list(states)]}
