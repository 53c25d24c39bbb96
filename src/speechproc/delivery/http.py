"""The HTTP transport: one request to exactly the parsed host and port, no proxy, no redirect; every
attempt carries the delivery id as `Idempotency-Key`, so a receiver can drop a repeat."""
from __future__ import annotations

import http.client
import ssl

from speechproc.delivery.deliveries import QueuedDelivery
from speechproc.delivery.destinations import Destination


def post(dest: Destination, delivery: QueuedDelivery, body: bytes, timeout: float) -> str | None:
    """One HTTP request to exactly the parsed host and port; no proxy, no redirect."""
    # the port always given: http.client would read one out of a bare IPv6 host such as ::1
    port = dest.port or (443 if dest.scheme == "https" else 80)
    if dest.scheme == "https":
        connection: http.client.HTTPConnection = http.client.HTTPSConnection(
            dest.host, port, timeout=timeout, context=ssl.create_default_context())
    else:
        connection = http.client.HTTPConnection(dest.host, port, timeout=timeout)
    headers = {"Content-Type": delivery["contentType"], "Content-Length": str(len(body)),
               "User-Agent": "speechproc-callbacks", "Idempotency-Key": delivery["id"],
               "X-Speechproc-Delivery": delivery["id"]}
    try:
        connection.request(delivery["method"], dest.target, body=body, headers=headers)
        status = connection.getresponse().status
    except (OSError, http.client.HTTPException, ValueError) as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        connection.close()
    if 300 <= status < 400:
        return f"HTTP {status}: redirect not followed"
    return None if 200 <= status < 300 else f"HTTP {status}"
