"""The shapes of what the operations of `api` answer besides media items (`results`): an item's metadata,
progress and streams, what a deletion deleted, the callback outbox, the summaries of reports, call drivers.

TypedDicts of JSON, keys spelled as the answers spell them; a key an answer has only in some cases is
optional. Importing this module is light."""
from __future__ import annotations

from typing import TypedDict

from speechproc import results


class MediaMetadata(TypedDict, total=False):
    """`get_media(id, "metadata")` and `put_metadata`: the item's links and the metadata given; `warnings`
    when `put_metadata` left the item's `.v3.json` as it was (and why)."""

    _links: results.MediaLinks
    title: str
    description: str
    externalId: str
    externalVersion: str
    extended: dict[str, object]
    callDetails: dict[str, object]
    warnings: list[results.WarningMessage]


class Task(TypedDict):
    taskId: str
    display: str
    phase: str
    status: str
    dependencies: list[str]  # the task before it
    dependents: list[str]  # the task after it


class ProgressJob(TypedDict):
    jobId: str
    start: str | None  # the first task
    finish: str | None  # the last task
    status: str  # pending, started, finished or failed
    tasks: list[Task]


class Progress(TypedDict):
    """`get_media(id, "progress")`: the v3 job object, one task per stage."""

    _links: results.MediaLinks
    mediaId: str
    status: str
    jobId: str
    progress: ProgressJob


class StreamPlace(TypedDict):
    streamName: str  # original, redacted-audio, original-encrypted or redacted-encrypted
    streamLocation: str  # a file path


class Streams(TypedDict):
    """`get_media(id, "streams")`: the item's audio files that are there."""

    streams: list[StreamPlace]


class KeptFile(TypedDict):
    path: str
    reason: str


class _DeletionRequired(TypedDict):
    mediaId: str
    status: str
    deletedFiles: list[str]
    keptFiles: list[KeptFile]  # the recording, and files speechproc did not write (or that changed since)
    callbacksDropped: int


class Deletion(_DeletionRequired, total=False):
    """`delete_media`: what was deleted and what was left."""

    expiresOn: str  # an item processed with a time to live


class Waiting(TypedDict):
    mediaId: str
    status: str
    expiresOn: str
    reason: str  # the live process working on it


class Purge(TypedDict):
    """`purge_media`: the expired items deleted, and those a live process still works on."""

    deleted: list[Deletion]
    waiting: list[Waiting]


class Delivery(TypedDict):
    deliveryId: str
    mediaId: str
    url: str
    method: str
    type: str
    contentType: str
    contract: str
    state: str  # pending, dead or delivered
    attempts: int
    nextAttempt: str | None  # a pending delivery's
    lastError: str | None
    dateCreated: str


class Callbacks(TypedDict):
    """`list_callbacks`: the deliveries of the outbox, oldest first."""

    callbacks: list[Delivery]


class CallReport(TypedDict):
    """The summary of a call report written (`report` with a target)."""

    report: str | None  # the file; None when the page was returned
    mediaId: str
    bytes: int
    sections: list[str]
    audio: str | None  # the recording the page's player plays, relative to the page


class CorpusReport(TypedDict):
    """The summary of a corpus report written (`report` without a target)."""

    report: str | None
    items: int
    bytes: int
    sections: list[str]


class Example(TypedDict):
    mediaId: str
    reason: str


class Driver(TypedDict):
    driver: str  # its most typical reason
    calls: int
    share: float
    outcomes: dict[str, float]  # resolved, unresolved, followUp: shares of the calls whose outcome is known
    examples: list[Example]


class _DriversRequired(TypedDict):
    calls: int
    drivers: list[Driver]  # the biggest first
    withoutReason: int


class Drivers(_DriversRequired, total=False):
    """`call_drivers`: the reasons of the calls grouped into drivers."""

    grouped: int  # beyond `store.collection.drivers.MAX_GROUPED` calls, how many of an even sample were grouped
