"""One attempt to deliver, by the destination's transport (HTTP or a file), the URL checked again first."""
from __future__ import annotations

from collections.abc import Callable

from speechproc.delivery import files, http
from speechproc.delivery.deliveries import QueuedDelivery
from speechproc.delivery.destinations import Refused, delivery_destination

Sender = Callable[[QueuedDelivery, bytes, float], str | None]  # delivery, body, timeout -> error or None


def send(delivery: QueuedDelivery, body: bytes, timeout: float) -> str | None:
    """One attempt; None on success (a 2xx answer, or the file written), else what went wrong.

    The URL is checked again first; redirects are not followed (a 3xx is a failed attempt)."""
    try:
        dest = delivery_destination(delivery)
    except Refused as exc:
        return f"refused: {exc}"
    if dest.scheme == "file":
        return files.write_file(dest, delivery, body)
    return http.post(dest, delivery, body, timeout)
