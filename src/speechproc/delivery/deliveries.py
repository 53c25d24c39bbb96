"""The shape of a delivery: one callback of one media item, as `bodies.plan` queues it in the outbox and as
the outbox gives it back to be sent, with its attempts so far."""
from __future__ import annotations

from typing import TypedDict


class _DeliveryRequired(TypedDict):
    id: str  # also the Idempotency-Key of every attempt
    mediaId: str
    position: int  # the callback's place in `publish.callbacks`
    url: str
    method: str  # POST or PUT
    type: str  # analytics, transcript or media
    contentType: str
    contract: str  # v3 or v2-beta: the body's form and the retry schedule
    nextDue: float  # epoch seconds
    created: str  # v3 timestamp
    allowHttp: bool  # the destination rules it was queued with
    fileFolder: str | None


class PlannedDelivery(_DeliveryRequired, total=False):
    """A delivery as it is queued: its body, or the file whose bytes are sent (a media stream)."""

    body: bytes | None
    bodyPath: str | None  # "" when the stream to send does not exist
    stream: str  # a media callback's stream name


class _QueuedRequired(_DeliveryRequired):
    state: str  # pending, delivered or dead
    attempts: int
    firstTry: float | None
    lastError: str | None
    bodyPath: str | None


class QueuedDelivery(_QueuedRequired, total=False):
    """A delivery read back from the outbox, with its state and its attempts so far (and its body, unless
    only listed)."""

    body: bytes | None
