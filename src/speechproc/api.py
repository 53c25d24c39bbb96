"""The library face of speechproc: the operations, with their result and error types. The command line
only wraps these; each does its work in the layer below: `batch` (processing, alignment, enrollment),
`store` (media items, definitions, keys, speakers, queries, export), `delivery` (callbacks), `report`
(the HTML reports), `engines.inventory` (doctor).

A configuration is given as `Settings` (`config.v3.validate`), as the v3 configuration itself (a dict),
or as the path of a JSON or YAML file; metadata and definitions likewise as a dict or a file's path."""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, NamedTuple, cast, overload

from speechproc import errors as E
from speechproc import results
from speechproc.answers import (
    Callbacks,
    CallReport,
    CorpusReport,
    Deletion,
    Drivers,
    MediaMetadata,
    Progress,
    Purge,
    Streams,
)
from speechproc.batch import alignment, distributed, enrollment, runner
from speechproc.batch.outcome import BatchResult, Interrupted, ItemResult, Reporter
from speechproc.batch.planning import Input
from speechproc.config import v3 as config_v3
from speechproc.config.options import build as build_options
from speechproc.config.options import callback_options
from speechproc.config.resolving import resolve
from speechproc.config.settings import Settings
from speechproc.delivery import outbox
from speechproc.engines import inventory
from speechproc.formats import TEXT_FORMATS, openpgp, rttm, v3json
from speechproc.formats.stored import stored_transcript
from speechproc.report import writing as reports
from speechproc.stages.pipeline import needed
from speechproc.store.collection import drivers, registry, searchable
from speechproc.store.collection import export as exports
from speechproc.store.database import Catalog, listing
from speechproc.store.media_items import items, reading, retention, using
from speechproc.store.registered import keys, speakers

__all__ = [
    # processing and alignment
    "process", "align_media", "BatchResult", "ItemResult", "Interrupted", "Reporter", "Input",
    # media items
    "get_media", "list_media", "get_transcript", "put_metadata", "delete_media", "purge_media",
    "TranscriptNotReady", "TRANSCRIPT_FORMATS", "LIST_LIMITS",
    # definitions, public keys and enrolled speakers
    "put_definition", "get_definition", "list_definitions", "delete_definition", "add_key", "enroll_speaker",
    # callbacks, queries, exports, reports, insights, the installation
    "list_callbacks", "deliver_callbacks", "query", "export", "EXPORT_FORMATS", "report", "call_drivers", "doctor",
]

Configuration = Settings | Mapping[str, Any] | str | Path | None
MediaPart = Literal["item", "metadata", "progress", "streams"]

TRANSCRIPT_FORMATS = TEXT_FORMATS  # the text formats of `get_transcript` (besides json), alternate formats too
SPEAKER_FORMATS = ("rttm",)  # and who spoke when, as `run --rttm` writes it
EXPORT_FORMATS = exports.FORMATS  # the formats of `export`


class ListLimits(NamedTuple):
    default: int  # the page size of `list_media` when none is given
    most: int  # the largest page


LIST_LIMITS = ListLimits(listing.DEFAULT_LIMIT, listing.MAX_LIMIT)


def _settings(given: Configuration) -> Settings:
    """Settings from what was given: Settings as they are; a dict validated; a file read and validated;
    None, the default configuration."""
    if isinstance(given, Settings):
        return given
    if isinstance(given, str | Path) or given is None:
        return config_v3.load(given)
    return config_v3.validate(given)


# ----------------------------------------------------------------------------- processing and alignment

def process(paths: list[str | Path], settings: Configuration = None, metadata: Mapping[str, Any] | str | Path | None = None,
            *, out_dir: str | Path | None = None, force: bool = False, reporter: Reporter | None = None,
            catalog: Catalog | None = None, deliver: bool = True, workers: int | None = 1, engine: str = "local",
            ray_address: str | None = None, metadata_csv: str | Path | None = None,
            report: bool = False, rttm: bool = False) -> BatchResult:
    """`speechproc run`: process every recording under `paths` (see `runner.process` and `RunOptions`).
    With `engine` "ray", Ray and the cluster at `ray_address` are checked first, then the configuration
    and the metadata (a file's path or a dict) are read; ConfigurationError before anything is done."""
    if engine == "ray":
        distributed.require_ray(ray_address)  # before any file or the catalog is touched
    settings = _settings(settings)
    common = config_v3.load_metadata(metadata) if isinstance(metadata, str | Path) else dict(metadata or {})
    run = runner.RunOptions(metadata=common, metadata_csv=metadata_csv, out_dir=out_dir, force=force, report=report,
                            rttm=rttm, deliver=deliver, workers=workers, engine=engine, ray_address=ray_address)
    return runner.process(paths, settings, run, reporter=reporter, catalog=catalog)


def align_media(media_id: str, transcript: str, settings: Configuration = None,
                catalog: Catalog | None = None) -> results.AlignedMediaItem:
    """`POST /media/{id}` with a transcript: align a human transcript to the item's machine words, then
    recompute every configured analytic, prediction, category and callback and rewrite the outputs
    (`batch.alignment`).

    `settings` defaults to the configuration the item was processed with. While it runs the item is
    `running` (its transcript answers 404); if it fails the earlier results stay."""
    chosen = _settings(settings) if settings is not None else None
    with using(catalog) as cat:
        return alignment.align_media(cat, media_id, transcript, chosen)


# ----------------------------------------------------------------------------- media items

@overload
def get_media(media_id: str, part: Literal["item"] = "item", catalog: Catalog | None = None) -> results.MediaItem: ...
@overload
def get_media(media_id: str, part: Literal["metadata"], catalog: Catalog | None = None) -> MediaMetadata: ...
@overload
def get_media(media_id: str, part: Literal["progress"], catalog: Catalog | None = None) -> Progress: ...
@overload
def get_media(media_id: str, part: Literal["streams"], catalog: Catalog | None = None) -> Streams: ...


def get_media(media_id: str, part: MediaPart = "item",
              catalog: Catalog | None = None) -> results.MediaItem | MediaMetadata | Progress | Streams:
    """`GET /media/{id}` and its parts: the media item with every result ("item"), the metadata given
    ("metadata"), the job with one task per stage ("progress"), or {streams: [{streamName,
    streamLocation}]}, its audio files ("streams"). NotFoundError for an unknown id; the metadata of an
    encrypted item is NotFoundError too."""
    if part == "item":
        return reading.get_media(media_id, catalog)
    if part == "metadata":
        return reading.get_metadata(media_id, catalog)
    if part == "progress":
        return reading.get_progress(media_id, catalog)
    if part == "streams":
        return items.streams(media_id, catalog)
    raise ValueError(f"unknown part of a media item {part!r}; choose one of item, metadata, progress, streams")


list_media = reading.list_media


def get_transcript(media_id: str, fmt: str = "json", include: list[str] | None = None,
                   catalog: Catalog | None = None) -> results.TranscriptResponse | str:
    """`GET /media/{id}/transcript[/fmt]`: JSON (optionally with alternate formats), one text format, or who spoke
    when as RTTM (`fmt` "rttm": the file `run --rttm` writes)."""
    with using(catalog) as cat:
        row = reading.media_row(cat, media_id)
    item = row["item"]
    if openpgp.is_encrypted(item):
        raise openpgp.not_readable(media_id, "transcript")
    if item["status"] != "finished" or "transcript" not in item:
        raise TranscriptNotReady()
    if fmt == "rttm":
        return rttm.of_item(item, rttm.file_id_of(Path(row["outputs"].get("json", "")).name, media_id))
    stored = stored_transcript(item, Settings(row["configuration"]).language)
    if fmt == "json":
        return {**v3json.summary(item), "transcript": stored.with_alternate_formats(item["transcript"], include or [])}
    return stored.render(fmt)


class TranscriptNotReady(E.NotFoundError):
    """The transcript of an item that has not finished: the documented 404 body."""

    def __init__(self) -> None:
        super().__init__(E.TRANSCRIPT_NOT_READY, E.TRANSCRIPT_NOT_READY_MESSAGE)

    def body(self) -> dict[str, Any]:
        return E.transcript_not_ready_body()


def put_metadata(media_id: str, metadata: Any, catalog: Catalog | None = None) -> MediaMetadata:
    """`PUT /media/{id}/metadata`: validate `metadata` (or the JSON or YAML file it names) as upload metadata
    (ConfigurationError, nothing changed), then replace the item's (`items.replace_metadata`)."""
    if isinstance(metadata, str | Path):
        metadata = config_v3.read_metadata_document(metadata)
    return items.replace_metadata(media_id, config_v3.validate_metadata(metadata), catalog)


def delete_media(media_id: str, catalog: Catalog | None = None) -> Deletion:
    """`DELETE /media/{id}`: the item and every file speechproc wrote for it, its callbacks and its index
    entry, now (`retention.delete`; never the recording or a file speechproc did not write). What was
    deleted and what was left: {mediaId, status, deletedFiles, keptFiles, callbacksDropped}."""
    with using(catalog, purge_expired=False) as cat:
        return retention.delete(cat, media_id)


def purge_media(catalog: Catalog | None = None) -> Purge:
    """`speechproc media purge`: delete every item whose expiresOn has passed ({deleted, waiting})."""
    with using(catalog, purge_expired=False) as cat:
        return retention.purge(cat)


# ----------------------------------------------------------------------------- definitions, keys, speakers

def put_definition(kind: str, name: str, definition: Any, catalog: Catalog | None = None, *,
                   display_name: str | None = None) -> dict[str, Any]:
    """Store a definition under `name` and return it with its dates: a category, keyword group or custom
    vocabulary (`definition`: the document, or the JSON or YAML file it is in), or a classifier
    (`definition`: its skops model file; `display_name`, a human name for results). ConfigurationError
    when it is not valid; nothing is stored then."""
    if kind == "classifier":
        return registry.put_classifier(name, definition, display_name, catalog)
    if isinstance(definition, str | Path):
        definition = config_v3.read_document(definition)
    return registry.put_definition(kind, name, definition, catalog)


def get_definition(kind: str, name: str, catalog: Catalog | None = None) -> dict[str, Any]:
    """One stored definition by kind and name: a category, group, vocabulary or classifier, a public key
    ("key", by its publicKeyId, with its armored text) or an enrolled person ("speaker", without the
    voiceprint). NotFoundError when there is none."""
    if kind == "key":
        return dict(keys.get_key(name, catalog))  # a plain JSON object, as for every kind
    if kind == "speaker":
        return dict(speakers.get_speaker(name, catalog))
    return registry.get_definition(kind, name, catalog)


def list_definitions(kind: str, catalog: Catalog | None = None) -> dict[str, Any]:
    """Every stored definition of a kind: {categories}, {groups}, {vocabularies}, {classifiers}, by name;
    {_links, publicKeys} ("key"), oldest first; {speakers} ("speaker"), by name."""
    if kind == "key":
        return dict(keys.list_keys(catalog))  # a plain JSON object, as for every kind
    if kind == "speaker":
        return dict(speakers.list_speakers(catalog))
    return registry.list_definitions(kind, catalog)


def delete_definition(kind: str, name: str, catalog: Catalog | None = None) -> None:
    """Delete a stored definition (a speaker's voiceprint is overwritten in the catalog file); NotFoundError
    when there is none."""
    if kind == "key":
        keys.delete_key(name, catalog)
    elif kind == "speaker":
        speakers.delete_speaker(name, catalog)
    else:
        registry.delete_definition(kind, name, catalog)


add_key = keys.add_key
enroll_speaker = enrollment.enroll_speaker


# ----------------------------------------------------------------------------- callbacks, queries, reports

def list_callbacks(include_delivered: bool = False, catalog: Catalog | None = None) -> Callbacks:
    """`speechproc callbacks list`: pending and dead deliveries (and delivered ones when asked)."""
    states = ("pending", "dead", "delivered") if include_delivered else ("pending", "dead")
    with using(catalog) as cat:
        return cast(Callbacks, outbox.listing(cat, states))


def deliver_callbacks(settings: Settings | None = None, catalog: Catalog | None = None) -> dict[str, int]:
    """`speechproc callbacks deliver`: send every callback that is due; counts of delivered, pending, dead."""
    with using(catalog) as cat:
        return outbox.deliver_due(cat, callback_options(settings) if settings is not None else None)


query = registry.query
export = exports.export


def report(target: str | None = None, output: str | Path | None = None, *, query: str | None = None,
           date_field: str | None = None, catalog: Catalog | None = None) -> tuple[str | None, CallReport | CorpusReport]:
    """`speechproc report`: the HTML call report of `target` (a media id or a `.v3.json` file), or with no
    target the corpus report of the catalog (or of the items `query` selects, its trend over `date_field`).
    Returns (the page when `output` is "-", else None; a summary of what was written)."""
    if target is None:
        page, corpus = reports.corpus(query, output, date_field, catalog)
        return page, cast(CorpusReport, corpus)
    if query is not None or date_field is not None:
        raise E.ConfigurationError(E.INVALID_VALUE, "query and date_field go with a corpus report (no target)")
    page, call = reports.call(target, output, catalog)
    return page, cast(CallReport, call)


def call_drivers(query: str | None = None, catalog: Catalog | None = None) -> Drivers:
    """`speechproc insights drivers`: the reasons of every call of the catalog (or those a `speechproc query`
    statement selects) whose insights name one, grouped into drivers (`store.collection.drivers.drivers`), with the count
    of the calls considered and of those without a reason."""
    with using(catalog) as cat:
        chosen = [r for r in exports.records(cat, query) if searchable(r["configuration"]) and r["status"] == "finished"]
    found = drivers.of_items([r["item"] for r in chosen])
    return cast(Drivers, {**drivers.drivers(found), "withoutReason": len(chosen) - len(found)})


def doctor(settings: Configuration = None, configuration: str = "default", load: bool = True,
           catalog: Catalog | None = None) -> inventory.Report:
    """`speechproc doctor`: every model and optional dependency, whether it is present, the expected file
    (SHA-256) and loads (with `load`), and the command that installs it; those that `settings` (default:
    the default configuration) needs are marked, and the report is `ready` when all of them are fine."""
    chosen = _settings(settings)
    with using(catalog) as cat:
        chosen = resolve(chosen, cat)  # enrolled speakers need the speaker encoder
    return inventory.report(needed(build_options(chosen)), configuration, load)

