"""The library face of speechproc: process recordings, read and align media items, store definitions,
run queries, deliver callbacks. The CLI only wraps this; each part lives in a module of its own:
`planning` (inputs and output names), `runner` (the batch: plan, run, record), `jobs` (one recording's
job), `publishing` (outputs and callbacks), `reading` (the media endpoints), `registry` (definitions,
classifiers, queries), `reporting` (the HTML reports)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from speechproc import errors as E
from speechproc import media, results
from speechproc.batch import runner
from speechproc.batch.jobs import Job, JobResult, execute, run_job
from speechproc.batch.planning import Input, discover, is_redacted_copy, output_paths, unreadable
from speechproc.batch.publishing import redact_audio, redacted_audio_path, write_outputs
from speechproc.batch.runner import BatchResult, Interrupted, ItemResult, Recorder, Reporter, RunOptions, plan, record
from speechproc.config import v3 as config_module
from speechproc.config.options import build as build_options
from speechproc.config.options import callback_options
from speechproc.config.resolving import resolve
from speechproc.config.v3 import Settings
from speechproc.conversation import MediaFacts
from speechproc.delivery import outbox
from speechproc.engines import inventory
from speechproc.engines.models import default_threads
from speechproc.formats import JSON_SUFFIX, openpgp, v3json
from speechproc.formats.stored import stored_transcript
from speechproc.paths import absolute, printable, shown
from speechproc.report.writing import call as call_report
from speechproc.report.writing import corpus as corpus_report
from speechproc.stages import align, identify
from speechproc.stages.pipeline import needed, new_tasks
from speechproc.store import drivers, items, retention, speakers
from speechproc.store.catalog import Catalog, using
from speechproc.store.corpus import searchable
from speechproc.store.export import export
from speechproc.store.export import records as export_records
from speechproc.store.keys import add_key, delete_key, get_key, list_keys
from speechproc.store.reading import get_media, get_metadata, get_progress, list_media, media_row
from speechproc.store.registry import (
    delete_definition,
    get_definition,
    list_definitions,
    put_classifier,
    put_definition,
    query,
)
from speechproc.store.speakers import delete_speaker, get_speaker, list_speakers
from speechproc.urls import looks_like_url

__all__ = ["JSON_SUFFIX", "BatchResult", "E", "Input", "Interrupted", "ItemResult", "Job", "JobResult", "Reporter",
           "RunOptions", "TranscriptNotReady", "absolute", "align_media",
           "call_report", "corpus_report", "config_module", "delete_definition", "deliver_callbacks",
           "discover", "export", "get_definition", "get_media", "get_metadata", "get_progress",
           "get_transcript", "is_redacted_copy", "list_callbacks", "list_definitions", "list_media", "output_paths",
           "printable", "process", "put_classifier", "put_definition", "query", "redact_audio", "redacted_audio_path",
           "resolve", "run_job", "shown", "write_outputs",
           "add_key", "delete_key", "get_key", "list_keys",
           "delete_media", "get_streams", "purge_media", "put_metadata",
           "enroll_speaker", "delete_speaker", "get_speaker", "list_speakers", "doctor", "call_drivers"]


def align_media(media_id: str, transcript: str, settings: Settings | None = None,
                catalog: Catalog | None = None) -> results.AlignedMediaItem:
    """`POST /media/{id}` with a transcript: align a human transcript to the item's machine words, then
    recompute every configured analytic, prediction, category and callback and rewrite the outputs.

    `settings` defaults to the configuration the item was processed with. While it runs the item is
    `running` (its transcript answers 404); if it fails the earlier results stay."""
    with using(catalog) as cat:
        row = media_row(cat, media_id)
        if openpgp.is_encrypted(row["item"]):
            raise E.ConfigurationError(E.INVALID_VALUE, f"media {media_id} is encrypted: an encrypted media item "
                                       "cannot be aligned (the catalog keeps none of its words)")
        if row["status"] != "finished" or "transcript" not in row["item"]:
            raise E.ConfigurationError(E.INVALID_VALUE, f"media {media_id} is {row['status']}: only a finished "
                                       "media item can be aligned")
        if looks_like_url(row["input_path"]):  # its download was not kept, nor the URL's secrets
            raise E.SpeechprocError(E.RESOURCE_NOT_FOUND, f"media {media_id} was fetched from {row['input_path']}, "
                                    "and speechproc keeps no copy of the recording to align it with", 404)
        settings = resolve(settings or config_module.validate(row["configuration"]), cat)
        if settings.public_key is not None:
            raise E.ConfigurationError(E.INVALID_VALUE, "encryption.publicKeyId: alignment cannot encrypt; process "
                                       "the recording with speechproc run instead")
        machine = stored_transcript(row["item"], settings.language).words
        try:
            aligned = align.align_text(transcript, machine)
        except align.TranscriptMismatch as exc:
            raise E.ConfigurationError(E.INVALID_VALUE, f"the transcript was refused: {exc}") from None
        old = row["item"]
        item = MediaFacts(media_id, "running", old["dateCreated"], metadata=old.get("metadata", {}))
        cat.update(media_id, item=v3json.media_item(item), tasks=new_tasks(media_id))
        outputs = {k: Path(v) for k, v in row["outputs"].items() if k != "redacted-audio"}
        job = Job(media_id=media_id, input=Path(row["input_path"]), outputs=outputs, redacted_audio=None,
                  options=build_options(settings), metadata=item.metadata, date_created=item.date_created,
                  content_hash=row.get("content_hash"), config_hash=row.get("config_hash") or "", ownership={},
                  analytic_index=settings.analytic_indexing, words=tuple(aligned.words),
                  time_to_live=settings.time_to_live)
        try:
            record(execute(plan(job, settings, cat), events=Recorder(cat)), settings, cat)
        except (E.SpeechprocError, OSError) as exc:
            cat.update(media_id, item=old)
            if isinstance(exc, OSError):
                raise E.SpeechprocError(E.INTERNAL, f"alignment failed: {exc}", 500) from exc
            raise
        outbox.deliver_due(cat, callback_options(settings))
        realigned: results.MediaItem = media_row(cat, media_id)["item"]
        return {**realigned, "alignment": {"words": aligned.total, "matched": aligned.matched}}


def process(paths: list[str | Path], settings: Settings, metadata: dict[str, Any] | None = None, *,
            out_dir: str | Path | None = None, force: bool = False, reporter: Reporter | None = None,
            catalog: Catalog | None = None, deliver: bool = True, workers: int | None = 1, engine: str = "local",
            ray_address: str | None = None, metadata_csv: str | Path | None = None,
            report: bool = False) -> BatchResult:
    """`speechproc run`: process every recording under `paths` (see `runner.process` and `RunOptions`)."""
    run = RunOptions(metadata=metadata or {}, metadata_csv=metadata_csv, out_dir=out_dir, force=force, report=report,
                     deliver=deliver, workers=workers, engine=engine, ray_address=ray_address)
    return runner.process(paths, settings, run, reporter=reporter, catalog=catalog)


def delete_media(media_id: str, catalog: Catalog | None = None) -> dict[str, Any]:
    """`DELETE /media/{id}`: the item and every file speechproc wrote for it, its callbacks and its index
    entry, now (`retention.delete`; never the recording or a file speechproc did not write). What was
    deleted and what was left: {mediaId, status, deletedFiles, keptFiles, callbacksDropped}."""
    with using(catalog, purge_expired=False) as cat:
        return retention.delete(cat, media_id)


def purge_media(catalog: Catalog | None = None) -> dict[str, Any]:
    """`speechproc media purge`: delete every item whose expiresOn has passed ({deleted, waiting})."""
    with using(catalog, purge_expired=False) as cat:
        return retention.purge(cat)


def put_metadata(media_id: str, metadata: Any, catalog: Catalog | None = None) -> dict[str, Any]:
    """`PUT /media/{id}/metadata`: validate `metadata` as upload metadata (ConfigurationError, nothing
    changed), then replace the item's (`items.replace_metadata`)."""
    return items.replace_metadata(media_id, config_module.validate_metadata(metadata), catalog)


def get_streams(media_id: str, catalog: Catalog | None = None) -> dict[str, Any]:
    """`GET /media/{id}/streams`: {streams: [{streamName, streamLocation}]} (`items.streams`)."""
    return items.streams(media_id, catalog)


def deliver_callbacks(settings: Settings | None = None, catalog: Catalog | None = None) -> dict[str, int]:
    """`speechproc callbacks deliver`: send every callback that is due; counts of delivered, pending, dead."""
    with using(catalog) as cat:
        return outbox.deliver_due(cat, callback_options(settings) if settings is not None else None)


def list_callbacks(include_delivered: bool = False, catalog: Catalog | None = None) -> dict[str, Any]:
    """`speechproc callbacks list`: pending and dead deliveries (and delivered ones when asked)."""
    states = ("pending", "dead", "delivered") if include_delivered else ("pending", "dead")
    with using(catalog) as cat:
        return outbox.listing(cat, states)


def get_transcript(media_id: str, fmt: str = "json", include: list[str] | None = None,
                   catalog: Catalog | None = None) -> results.TranscriptResponse | str:
    """`GET /media/{id}/transcript[/fmt]`: JSON (optionally with alternate formats) or one text format."""
    with using(catalog) as cat:
        row = media_row(cat, media_id)
    item = row["item"]
    if openpgp.is_encrypted(item):
        raise openpgp.not_readable(media_id, "transcript")
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


ENROLL_FIRST_S = 20 * 60  # of each recording enrolled, only the first this many seconds are read


def enroll_speaker(name: str, files: list[str | Path], role: str | None = None, replace: bool = False,
                   catalog: Catalog | None = None) -> dict[str, Any]:
    """`speechproc speakers enroll`: a person's voiceprint from recordings of them alone (`identify`), stored
    under `name` (added to their earlier recordings, or in their place with `replace`). ConfigurationError for
    a bad name or role, a file that is not a readable recording, one enrolled under another name, or too
    little speech in all."""
    name, role = speakers.check_name(name), speakers.check_role(role)
    paths = list(dict.fromkeys(Path(f).resolve() for f in files))
    if not paths:
        raise E.ConfigurationError(E.INVALID_VALUE, "name at least one recording of the person")
    for path in paths:
        problem = unreadable(path)
        if problem is not None:
            raise E.ConfigurationError(E.INVALID_VALUE, problem.message)
        if not path.is_file():
            raise E.ConfigurationError(E.INVALID_VALUE, f"{shown(path)}: not a file (name recordings of the person)")
    if len(paths) > speakers.MAX_EXEMPLARS:
        raise E.ConfigurationError(E.INVALID_VALUE, f"a person has at most {speakers.MAX_EXEMPLARS} enrolled recordings")
    hashes = [media.file_hash(path) for path in paths]
    with using(catalog) as cat:  # refused before any audio is decoded
        speakers.refuse_enrolled_elsewhere(cat, name, hashes)
    recordings = []
    for path in paths:
        try:
            recordings.append(media.decode(path, first_s=ENROLL_FIRST_S).samples.mean(axis=0))
        except E.SpeechprocError as exc:  # a file that is no recording is a mistake in the command: exit 2
            raise E.ConfigurationError(exc.code, exc.message) from None
    voices = identify.enrollment_voices(recordings, [shown(p) for p in paths], threads=default_threads())
    with using(catalog) as cat:
        speakers.refuse_voice_of_another(cat, name, [(shown(p), v.embedding) for p, v in zip(paths, voices)])
    found = [(sha, v.speech_s, v.embedding) for sha, v in zip(hashes, voices)]
    return speakers.enroll(name, role, found, replace, catalog)


def call_drivers(query: str | None = None, catalog: Catalog | None = None) -> dict[str, Any]:
    """`speechproc insights drivers`: the reasons of every call of the catalog (or those a `speechproc query`
    statement selects) whose insights name one, grouped into drivers (`store.drivers.drivers`), with the count
    of the calls considered and of those without a reason."""
    with using(catalog) as cat:
        chosen = [r for r in export_records(cat, query) if searchable(r["configuration"]) and r["status"] == "finished"]
    found = drivers.of_items([r["item"] for r in chosen])
    return {**drivers.drivers(found), "withoutReason": len(chosen) - len(found)}


def doctor(settings: Settings | None = None, configuration: str = "default", load: bool = True,
           catalog: Catalog | None = None) -> inventory.Report:
    """`speechproc doctor`: every model and optional dependency, whether it is present, the expected file
    (SHA-256) and loads (with `load`), and the command that installs it; those that `settings` (default:
    the default configuration) needs are marked, and the report is `ready` when all of them are fine."""
    settings = settings if settings is not None else config_module.validate({})
    with using(catalog) as cat:
        settings = resolve(settings, cat)  # enrolled speakers need the speaker encoder
    return inventory.report(needed(build_options(settings)), configuration, load)
