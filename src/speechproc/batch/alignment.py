"""Aligning a human transcript to a finished media item: its job run again with the aligned words in place
of recognition (`planning.new_job`, `runner.plan`, `jobs.execute`, `runner.record`), every analytic,
prediction, category and callback recomputed, the outputs rewritten."""
from __future__ import annotations

from pathlib import Path

from speechproc import errors as E
from speechproc import results
from speechproc.batch.jobs import execute
from speechproc.batch.planning import new_job
from speechproc.batch.runner import Recorder, plan, record
from speechproc.config import v3 as configuration
from speechproc.config.options import build as build_options
from speechproc.config.options import callback_options
from speechproc.config.resolving import resolve
from speechproc.config.settings import Settings
from speechproc.conversation import MediaFacts
from speechproc.delivery import outbox
from speechproc.formats import openpgp, v3json
from speechproc.formats.stored import stored_transcript
from speechproc.stages.pipeline import new_tasks
from speechproc.stages.recognition import TranscriptMismatch, align_text
from speechproc.store.database import Catalog
from speechproc.store.media_items import media_row
from speechproc.urls import looks_like_url


def align_media(catalog: Catalog, media_id: str, transcript: str,
                settings: Settings | None = None) -> results.AlignedMediaItem:
    """Align `transcript` to the item's machine words and run its job again with them; the item as it is
    then, with {words, matched} of the alignment. `settings` defaults to the configuration the item was
    processed with. While it runs the item is `running`; if it fails the earlier results stay.

    ConfigurationError for an encrypted or unfinished item, settings that encrypt, or a transcript of
    another recording; SpeechprocError (404) for an item fetched from a URL (no copy of it was kept)."""
    row = media_row(catalog, media_id)
    _refuse_unalignable(media_id, row["item"], row["status"], row["input_path"])
    settings = resolve(settings or configuration.validate(row["configuration"]), catalog)
    if settings.public_key is not None:
        raise E.ConfigurationError(E.INVALID_VALUE, "encryption.publicKeyId: alignment cannot encrypt; process "
                                   "the recording with speechproc run instead")
    machine = stored_transcript(row["item"], settings.language).words
    try:
        aligned = align_text(transcript, machine)
    except TranscriptMismatch as exc:
        raise E.ConfigurationError(E.INVALID_VALUE, f"the transcript was refused: {exc}") from None
    old = row["item"]
    item = MediaFacts(media_id, "running", old["dateCreated"], metadata=old.get("metadata", {}))
    catalog.media.update(media_id, item=v3json.media_item(item), tasks=new_tasks(media_id))
    outputs = {k: Path(v) for k, v in row["outputs"].items() if k != "redacted-audio"}
    job = new_job(item, settings, build_options(settings), input=Path(row["input_path"]), outputs=outputs,
                  content_hash=row.get("content_hash"), config_hash=row.get("config_hash") or "",
                  words=tuple(aligned.words))
    try:
        record(execute(plan(job, settings, catalog), events=Recorder(catalog)), settings, catalog)
    except (E.SpeechprocError, OSError) as exc:
        catalog.media.update(media_id, item=old)
        if isinstance(exc, OSError):
            raise E.SpeechprocError(E.INTERNAL, f"alignment failed: {exc}", 500) from exc
        raise
    outbox.deliver_due(catalog, callback_options(settings))
    realigned: results.MediaItem = media_row(catalog, media_id)["item"]
    return {**realigned, "alignment": {"words": aligned.total, "matched": aligned.matched}}


def _refuse_unalignable(media_id: str, item: results.MediaItem, status: str, input_path: str) -> None:
    """An item that cannot be aligned: encrypted (the catalog keeps none of its words), not finished, or
    fetched from a URL (its download was not kept, nor the URL's secrets)."""
    if openpgp.is_encrypted(item):
        raise E.ConfigurationError(E.INVALID_VALUE, f"media {media_id} is encrypted: an encrypted media item "
                                   "cannot be aligned (the catalog keeps none of its words)")
    if status != "finished" or "transcript" not in item:
        raise E.ConfigurationError(E.INVALID_VALUE, f"media {media_id} is {status}: only a finished "
                                   "media item can be aligned")
    if looks_like_url(input_path):
        raise E.SpeechprocError(E.RESOURCE_NOT_FOUND, f"media {media_id} was fetched from {input_path}, "
                                "and speechproc keeps no copy of the recording to align it with", 404)
