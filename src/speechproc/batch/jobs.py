"""One recording's job, and `run_job`, which does it with no catalog connection.

A `Job` is plain, picklable data: the input, where its outputs go, every stage's options, the item's
metadata and the ownership record of its output places. `run_job` decodes, runs the stages, writes the
outputs atomically and returns a `JobResult`: the v3 media item and what the catalog must record (the
tasks, the outputs, the changes to the ownership record, the analytic index entry). While it runs it
tells a `JobEvents` of each stage and of each file it is about to put in place. The runner (`runner.py`)
plans the jobs, skips finished ones (`reuse.py`), runs the rest and records their results.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from speechproc import errors as E
from speechproc import results
from speechproc.batch.publishing import publish_item
from speechproc.concurrency import traced
from speechproc.conversation import Conversation, MediaFacts, RecognizedWord
from speechproc.formats import expiry, openpgp, v3json
from speechproc.paths import printable
from speechproc.query import documents
from speechproc.stages.options import Options
from speechproc.stages.pipeline import analyse, new_tasks
from speechproc.store.files import ownership

INTERRUPTED = "interrupted"  # the error of a job stopped by Ctrl-C


@dataclass(frozen=True, kw_only=True)
class Job:
    """Everything needed to process one recording, as plain data."""

    media_id: str
    input: Path  # absolute; a name that is not UTF-8 is kept exactly
    outputs: dict[str, Path]  # format -> file: the text formats and "json" (written last)
    redacted_audio: Path | None  # where the redacted copy goes; None: no detector redacts audio
    options: Options
    metadata: dict[str, Any]
    date_created: str
    content_hash: str | None  # of the input's content, as the skip decision saw it
    config_hash: str  # of everything else that changes the outputs
    ownership: dict[str, set[str]]  # canonical output path -> SHA-256 of what speechproc wrote there
    analytic_index: bool = False  # also return the item's analytic index entry
    words: tuple[RecognizedWord, ...] | None = None  # an aligned transcript instead of recognition
    time_to_live: int | None = None  # timeToLiveInSeconds: the item shows it and its expiresOn (retention)
    encryption: openpgp.PublicKey | None = None  # every output written encrypted to this key (NAME.gpg)
    source: str | None = None  # the URL `input` was downloaded from, without its secrets; None: a file


@dataclass
class JobResult:
    """What a job produced and what the catalog must record of it."""

    media_id: str
    status: str  # finished or failed
    item: results.MediaItem
    tasks: list[dict[str, Any]]
    outputs: dict[str, str] = field(default_factory=dict)  # format -> absolute path of what was written
    ownership: list[tuple[Any, ...]] = field(default_factory=list)  # ownership.Ledger changes, to replay
    index: dict[str, Any] | None = None  # the analytic index entry (Catalog.index's keyword arguments)
    streams: dict[str, str | None] = field(default_factory=dict)  # the callbacks' media streams
    error: dict[str, Any] | None = None  # the v3 error body of a failed job
    interrupted: bool = False  # stopped by Ctrl-C: the runner records it, then stops the batch

    @property
    def length_ms(self) -> int:
        return self.item.get("length") or 0


class JobEvents:
    """What a running job tells its runner as it goes; every method is optional. `durable`: `output` records
    the file in the catalog before it returns (the runner's own `Recorder`); otherwise the job leaves an
    intent beside each file first (`store.files.intents`)."""

    durable = False

    def stage(self, media_id: str, tasks: list[dict[str, Any]]) -> None:
        """A task changed status; `tasks` is the whole list as it is now."""

    def seconds(self, media_id: str, seconds: float) -> None:
        """Recognition of this job reached this second of a channel."""

    def output(self, path: str, sha256: str, media_id: str | None) -> None:
        """A file with this content is about to be put in place at `path` (record it as speechproc's)."""


@dataclass
class _State:
    """A job's item, conversation and tasks as far as it got (what a failure is recorded from)."""

    item: MediaFacts
    conv: Conversation
    tasks: list[dict[str, Any]]
    ledger: ownership.Ledger


def as_error(exc: BaseException) -> E.SpeechprocError:
    """The item error for an exception: its own code for a SpeechprocError, else 90000 with type and message;
    the message as valid UTF-8 text."""
    if isinstance(exc, E.SpeechprocError):
        message = printable(exc.message)
        return exc if message == exc.message else E.SpeechprocError(exc.code, message, exc.status)
    return E.SpeechprocError(E.INTERNAL, printable(f"{type(exc).__name__}: {exc}"), 500)


def run_job(job: Job, events: JobEvents | None = None) -> JobResult:
    """Process one recording: decode, run the stages, write every output; never raises.

    Whatever goes wrong fails the job (its tasks failed or cancelled, a failed `.v3.json` written when
    the input is a file), and Ctrl-C too, with `interrupted` set so that the runner stops after
    recording it."""
    events = events or JobEvents()
    state = _start(job, events)
    try:
        return execute(job, state, events)
    except KeyboardInterrupt:
        return _failed(job, state, E.SpeechprocError(E.INTERNAL, INTERRUPTED, 500), interrupted=True)
    except Exception as exc:
        if _while_interrupted(exc):  # a library turned Ctrl-C into an error of its own
            return _failed(job, state, E.SpeechprocError(E.INTERNAL, INTERRUPTED, 500), interrupted=True)
        error = as_error(exc)
        if job.source is not None:  # a message naming the download names its URL instead
            error = E.SpeechprocError(error.code, error.message.replace(os.fspath(job.input), job.source), error.status)
        return _failed(job, state, error)


def _while_interrupted(exc: BaseException) -> bool:
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


def fail(job: Job, error: E.SpeechprocError, interrupted: bool = False) -> JobResult:
    """The result of a job that failed before it ran (its input unreadable, an output place not ours)."""
    return _failed(job, _start(job, JobEvents()), error, interrupted)


def _start(job: Job, events: JobEvents) -> _State:
    item = MediaFacts(job.media_id, "running", job.date_created, metadata=job.metadata)
    conv = Conversation(job.media_id, language=job.options.language, date_created=job.date_created,
                        metadata=job.metadata)
    return _State(item, conv, new_tasks(job.media_id), ownership.Ledger(job.ownership, events.output, events.durable))


def execute(job: Job, state: _State | None = None, events: JobEvents | None = None) -> JobResult:
    """Process one recording as `run_job` does, but raise what goes wrong (the outputs already there
    stay as they were unless the failure is in writing them)."""
    events = events or JobEvents()
    state = state or _start(job, events)
    item, conv, tasks = state.item, state.conv, state.tasks

    def on_stage(name: str, status: str) -> None:
        for task in tasks:
            if task["name"] == name:
                task["status"] = status
        if status != "skipped":  # a skipped stage is told with the next stage that starts: one catalog write fewer
            events.stage(job.media_id, tasks)

    analyse(job.input, job.options, conv, on_stage, lambda seconds: events.seconds(job.media_id, seconds),
            list(job.words) if job.words else None)
    item.content_type, item.length_ms = conv.content_type, conv.length_ms
    item.warnings = conv.warnings
    item.status, item.date_finished = "finished", v3json.utc_now()
    on_stage("publish", "started")
    outputs = dict(job.outputs)
    if job.redacted_audio is not None and any(d.tone is not None for d in conv.detectors or []):
        outputs["redacted-audio"] = job.redacted_audio
        conv.streams = [("original", job.source or job.input.resolve().as_uri(), "finished"),
                        ("redacted-audio", job.redacted_audio.resolve().as_uri(), "finished")]
    body = v3json.media_item(item, conv)
    body = cast(results.MediaItem, expiry.with_expiry(body, job.time_to_live))  # its expiresOn, if it has one
    if job.encryption is not None:
        body["encryption"] = job.encryption.reference()
    with traced("publish"):
        written = publish_item(body, conv, outputs, state.ledger, job.input,
                               Path(job.source) if job.source else job.input, job.encryption)
    on_stage("publish", "finished")
    # absolute already (a symbolic link keeps its name); a download is not kept, so no stream sends it
    source = os.fspath(job.input) if job.source is None else None
    return JobResult(job.media_id, "finished", body, tasks, written, state.ledger.changes,
                     documents.index_entry(conv) if job.analytic_index and job.encryption is None else None,
                     {"original": source, "redacted-audio": written.get("redacted-audio")})


def _failed(job: Job, state: _State, error: E.SpeechprocError, interrupted: bool = False) -> JobResult:
    """The failed job: unfinished tasks failed (started) or cancelled (pending), the failed `.v3.json`
    written when the input is a file and the name is speechproc's to write (not after Ctrl-C)."""
    item, conv, tasks = state.item, state.conv, state.tasks
    for task in tasks:
        if task["status"] in ("pending", "started"):
            task["status"] = "cancelled" if task["status"] == "pending" else "failed"
    item.status, item.date_finished = "failed", v3json.utc_now()
    item.content_type = item.content_type or conv.content_type or None
    item.length_ms = item.length_ms or conv.length_ms or None
    item.errors = [(error.code, error.message)]
    body = v3json.media_item(item)
    body = cast(results.MediaItem, expiry.with_expiry(body, job.time_to_live))  # its expiresOn, if it has one
    written = {}
    json_path = job.outputs.get("json")
    try:
        if json_path is not None and not interrupted and job.input.is_file():
            ownership.write(json_path, json.dumps(body, indent=2) + "\n", state.ledger, job.media_id, job.encryption)
            written = {"json": str(json_path.absolute())}
    except ownership.OutputConflict:  # the name is someone else's file: the catalog alone says why
        pass
    except Exception as exc:
        body["errors"].append({"code": E.INTERNAL,
                               "error": printable(f"while recording the failure: {type(exc).__name__}: {exc}")})
    return JobResult(job.media_id, "failed", body, tasks, written, state.ledger.changes, error=error.body(),
                     interrupted=interrupted)
