"""The library face of speechproc: process recordings, read and align media items, store definitions,
run queries, deliver callbacks. The CLI only wraps this; each part lives in a module of its own:
`planning` (inputs and output names), `runner` (the batch: plan, run, record), `jobs` (one recording's
job), `publishing` (outputs and callbacks), `reading` (the media endpoints), `registry` (definitions,
classifiers, queries), `reporting` (the HTML reports)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from . import align, callbacks
from . import config as config_module
from . import errors as E
from .catalog import Catalog, using
from .config import Settings
from .conversation import MediaItem
from .export import export
from .formats import v3json
from .formats.stored import stored_transcript
from .jobs import Job, JobResult, execute, run_job
from .options import build as build_options
from .paths import absolute, printable, shown
from .pipeline import new_tasks
from .planning import JSON_SUFFIX, Input, discover, is_redacted_copy, output_paths
from .publishing import enqueue_callbacks, redact_audio, redacted_audio_path, write_outputs
from .reading import get_media, get_metadata, get_progress, list_media, media_row
from .registry import delete_definition, get_definition, list_definitions, put_classifier, put_definition, query
from .reporting import call as call_report
from .reporting import corpus as corpus_report
from .runner import BatchResult, Interrupted, ItemResult, Recorder, Reporter, plan, process, record, resolve

__all__ = ["JSON_SUFFIX", "BatchResult", "E", "Input", "Interrupted", "ItemResult", "Job", "JobResult", "Reporter",
           "TranscriptNotReady", "absolute", "align_media",
           "call_report", "corpus_report", "config_module", "delete_definition", "deliver_callbacks",
           "discover", "enqueue_callbacks", "export", "get_definition", "get_media", "get_metadata", "get_progress",
           "get_transcript", "is_redacted_copy", "list_callbacks", "list_definitions", "list_media", "output_paths",
           "printable", "process", "put_classifier", "put_definition", "query", "redact_audio", "redacted_audio_path",
           "resolve", "run_job", "shown", "write_outputs"]


def align_media(media_id: str, transcript: str, settings: Settings | None = None,
                catalog: Catalog | None = None) -> dict[str, Any]:
    """`POST /media/{id}` with a transcript: align a human transcript to the item's machine words, then
    recompute every configured analytic, prediction, category and callback and rewrite the outputs.

    `settings` defaults to the configuration the item was processed with. While it runs the item is
    `running` (its transcript answers 404); if it fails the earlier results stay."""
    with using(catalog) as cat:
        row = media_row(cat, media_id)
        if row["status"] != "finished" or "transcript" not in row["item"]:
            raise E.ConfigurationError(E.INVALID_VALUE, f"media {media_id} is {row['status']}: only a finished "
                                       "media item can be aligned")
        settings = resolve(settings or config_module.validate(row["configuration"]), cat)
        machine = stored_transcript(row["item"], settings.language).words
        try:
            aligned = align.align_text(transcript, machine)
        except align.TranscriptMismatch as exc:
            raise E.ConfigurationError(E.INVALID_VALUE, f"the transcript was refused: {exc}") from None
        old = row["item"]
        item = MediaItem(media_id, "running", old["dateCreated"], metadata=old.get("metadata", {}))
        cat.update(media_id, item=v3json.media_item(item), tasks=new_tasks(media_id))
        outputs = {k: Path(v) for k, v in row["outputs"].items() if k != "redacted-audio"}
        job = Job(media_id, Path(row["input_path"]), outputs, None, build_options(settings), item.metadata,
                  item.date_created, row.get("content_hash"), row.get("config_hash") or "", {},
                  settings.analytic_indexing, tuple(aligned.words))
        try:
            record(execute(plan(job, settings, cat), events=Recorder(cat)), settings, cat)
        except (E.SpeechprocError, OSError) as exc:
            cat.update(media_id, item=old)
            if isinstance(exc, OSError):
                raise E.SpeechprocError(E.INTERNAL, f"alignment failed: {exc}", 500) from exc
            raise
        callbacks.deliver_due(cat, settings)
        return {**media_row(cat, media_id)["item"], "alignment": {"words": aligned.total, "matched": aligned.matched}}


def deliver_callbacks(settings: Settings | None = None, catalog: Catalog | None = None) -> dict[str, int]:
    """`speechproc callbacks deliver`: send every callback that is due; counts of delivered, pending, dead."""
    with using(catalog) as cat:
        return callbacks.deliver_due(cat, settings)


def list_callbacks(include_delivered: bool = False, catalog: Catalog | None = None) -> dict[str, Any]:
    """`speechproc callbacks list`: pending and dead deliveries (and delivered ones when asked)."""
    states = ("pending", "dead", "delivered") if include_delivered else ("pending", "dead")
    with using(catalog) as cat:
        return callbacks.listing(cat, states)


def get_transcript(media_id: str, fmt: str = "json", include: list[str] | None = None,
                   catalog: Catalog | None = None) -> dict[str, Any] | str:
    """`GET /media/{id}/transcript[/fmt]`: JSON (optionally with alternate formats) or one text format."""
    with using(catalog) as cat:
        row = media_row(cat, media_id)
    item = row["item"]
    if item["status"] != "finished" or "transcript" not in item:
        raise TranscriptNotReady()
    stored = stored_transcript(item, Settings(row["configuration"]).language)
    if fmt == "json":
        return {**v3json.summary(item), "transcript": stored.with_alternate_formats(item["transcript"], include or [])}
    return stored.render(fmt)


class TranscriptNotReady(E.NotFoundError):
    def __init__(self) -> None:
        super().__init__(E.TRANSCRIPT_NOT_READY, E.TRANSCRIPT_NOT_READY_MESSAGE)

    def body(self) -> dict[str, Any]:
        return E.transcript_not_ready_body()
