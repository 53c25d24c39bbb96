"""The library face of speechproc: process recordings and read the catalog. The CLI only wraps this."""
from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from . import __version__, align, callbacks, classifiers, corpus, definitions
from . import config as config_module
from . import errors as E
from .catalog import Catalog
from .config import Settings
from .conversation import Conversation, MediaItem
from .formats import TEXT_FORMATS, audio, get_writer, v3json
from .media import MEDIA_EXTENSIONS, file_hash
from .paths import atomic_write
from .pipeline import analyse, new_tasks
from .query import QuerySyntaxError, parse

JSON_SUFFIX = ".v3.json"


@contextmanager
def _open(catalog: Catalog | None) -> Iterator[Catalog]:
    """The caller's catalog (left open), or the default one, closed afterwards."""
    if catalog is not None:
        yield catalog
        return
    with Catalog() as own:
        yield own


utc_now = v3json.utc_now


@dataclass
class Input:
    path: Path
    root: Path | None = None  # the folder named on the command line, for mirroring under --out


@dataclass
class ItemResult:
    path: str
    media_id: str | None
    status: str  # finished, failed or skipped
    outputs: dict[str, str] = field(default_factory=dict)
    error: dict[str, Any] | None = None
    length_ms: int = 0

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"input": self.path, "mediaId": self.media_id, "status": self.status}
        if self.outputs:
            out["outputs"] = self.outputs
        if self.error:
            out["error"] = self.error
        return out


class Reporter:
    """Receives progress; the CLI draws it, tests can record it. Every method is optional."""

    def batch_started(self, inputs: list[Input]) -> None: ...
    def item_started(self, inp: Input) -> None: ...
    def item_done(self, result: ItemResult) -> None: ...
    def audio_seconds(self, seconds: float) -> None: ...
    def note(self, message: str) -> None: ...


@dataclass
class BatchResult:
    items: list[ItemResult]
    problems: list[dict[str, Any]]  # v3 error bodies for inputs that yield no item (a folder with no media)

    @property
    def ok(self) -> bool:
        return not self.problems and all(i.status != "failed" for i in self.items)


# ----------------------------------------------------------------------------- discovery and naming

def is_redacted_copy(path: Path) -> bool:
    """A redacted copy written by an earlier run (`call.redacted.flac`): not picked up when walking folders."""
    return Path(path.stem).suffix == ".redacted"


def discover(paths: list[str | Path]) -> tuple[list[Input], list[dict[str, Any]]]:
    """Media files under the given paths (folders walked recursively, by extension), and problems found."""
    inputs: list[Input] = []
    problems: list[dict[str, Any]] = []
    for raw in paths:
        path = Path(raw)
        if not path.is_dir():
            inputs.append(Input(path))
            continue
        found = [Input(p, path) for p in sorted(path.rglob("*"))
                 if p.suffix.lower() in MEDIA_EXTENSIONS and p.is_file() and not is_redacted_copy(p)
                 and not any(part.startswith(".") for part in p.relative_to(path).parts)]
        if not found:
            problems.append(E.error_body(400, [(E.NO_MEDIA, f"{path}: no media files found in this folder")]))
        inputs += found
    return inputs, problems


def output_paths(inputs: list[Input], out_dir: Path | None) -> dict[Path, dict[str, Path]]:
    """Output file per format for every input; `call.wav` -> `call.v3.json`, `call.srt`, ...

    Two inputs that would share names (call.wav and call.mp3) keep their extension (`call.wav.srt`).
    """
    def folder(inp: Input) -> Path:
        if out_dir is None:
            return inp.path.parent
        if inp.root is not None:
            return out_dir / inp.path.relative_to(inp.root).parent
        return out_dir

    stems: dict[tuple[Path, str], int] = {}
    for inp in inputs:
        key = (folder(inp), inp.path.stem)
        stems[key] = stems.get(key, 0) + 1
    result = {}
    for inp in inputs:
        base = inp.path.stem if stems[(folder(inp), inp.path.stem)] == 1 else inp.path.name
        names = {"json": base + JSON_SUFFIX, **{f: base + get_writer(f).extension for f in TEXT_FORMATS}}
        if any(folder(inp) / n == inp.path for n in names.values()):  # never overwrite the input itself
            names = {k: inp.path.name + Path(n).suffix if k != "json" else inp.path.name + JSON_SUFFIX
                     for k, n in names.items()}
        result[inp.path] = {k: folder(inp) / n for k, n in names.items()}
    return result


def resolve(settings: Settings, catalog: Catalog) -> Settings:
    """The settings with the category and keyword-group definitions they name, from the catalog.

    Raise ConfigurationError for a category or group that is not defined (or a group without keywords)."""
    wanted = settings.category_names
    if settings.all_categories:
        found = catalog.list_definitions("category")
    else:
        found = []
        for i, name in enumerate(wanted):
            definition = catalog.get_definition("category", name)
            if definition is None:
                raise E.ConfigurationError(E.INVALID_VALUE, f"categories[{i}].categoryName: category {name!r} is not "
                                           "defined (speechproc categories put NAME FILE)")
            found.append(definition)
    groups = []
    for i, name in enumerate(settings.spotting_group_names):
        group = catalog.get_definition("group", name)
        if group is None:
            raise E.ConfigurationError(E.SPOTTING_GROUP_UNKNOWN, f"spotting.groups[{i}].groupName: keyword group "
                                       f"{name!r} is not defined (speechproc groups put NAME FILE)")
        if not group.get("keywords"):
            raise E.ConfigurationError(E.SPOTTING_GROUP_EMPTY, f"keyword group {name!r} has no keywords")
        groups.append(group)
    models = []
    stored = {c["classifierId"]: c for c in catalog.list_definitions("classifier")}
    for i, item in enumerate((settings.section("prediction") or {}).get("classifiers", [])):
        definition = catalog.get_definition("classifier", item["classifierName"]) if "classifierName" in item \
            else stored.get(item.get("classifierId", ""))
        if definition is None:
            which = item.get("classifierName") or item.get("classifierId")
            raise E.ConfigurationError(E.INVALID_VALUE, f"prediction.classifiers[{i}]: classifier {which!r} is not "
                                       "registered (speechproc classifiers put NAME MODEL_FILE)")
        models.append(definition)
    return replace(settings, categories=tuple(found), groups=tuple(groups), classifiers=tuple(models))


def effective_hash(settings: Settings, metadata: dict[str, Any], out_dir: Path | None) -> str:
    """What decides whether an earlier result can be reused: configuration, metadata, output place, version."""
    defined = [{k: v for k, v in d.items() if k not in ("dateCreated", "dateModified")}
               for d in settings.categories + settings.groups + settings.classifiers]
    blob = json.dumps([settings.fingerprint(), defined, metadata, str(out_dir), __version__], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


# ----------------------------------------------------------------------------- processing

def process(paths: list[str | Path], settings: Settings, metadata: dict[str, Any] | None = None,
            out_dir: str | Path | None = None, force: bool = False, reporter: Reporter | None = None,
            catalog: Catalog | None = None, deliver: bool = True) -> BatchResult:
    """Process every recording under `paths`; each becomes a media item in the catalog. At the end the
    callbacks that are due (these items' and earlier ones') are sent, unless `deliver` is False."""
    reporter = reporter or Reporter()
    metadata = metadata or {}
    out = Path(out_dir) if out_dir is not None else None
    own_catalog = catalog is None
    catalog = catalog or Catalog()
    try:
        settings = resolve(settings, catalog)
    except E.ConfigurationError:
        if own_catalog:
            catalog.close()
        raise
    inputs, problems = discover(paths)
    names = output_paths(inputs, out)
    config_hash = effective_hash(settings, metadata, out)
    reporter.batch_started(inputs)
    results = []
    try:
        for inp in inputs:
            reporter.item_started(inp)
            result = _process_one(inp, names[inp.path], settings, metadata, config_hash, force, catalog, reporter)
            results.append(result)
            reporter.item_done(result)
        if deliver:
            sent = callbacks.deliver_due(catalog, settings)
            if any(sent.values()):
                reporter.note(f"callbacks: {sent['delivered']} delivered, {sent['pending']} to retry later "
                              f"(speechproc callbacks deliver), {sent['dead']} given up")
    finally:
        if own_catalog:
            catalog.close()
    return BatchResult(results, problems)


def _process_one(inp: Input, outputs: dict[str, Path], settings: Settings, metadata: dict[str, Any],
                 config_hash: str, force: bool, catalog: Catalog, reporter: Reporter) -> ItemResult:
    source = str(inp.path.resolve())
    try:
        content_hash = file_hash(inp.path) if inp.path.is_file() else None
    except OSError:
        content_hash = None
    if content_hash and not force:
        done = catalog.find_finished(source, content_hash, config_hash)
        if done and all(Path(p).exists() for p in done["outputs"].values()):
            reporter.note(f"{inp.path}: unchanged since media {done['media_id']}, skipped (--force redoes it)")
            return ItemResult(str(inp.path), done["media_id"], "skipped", done["outputs"],
                              length_ms=done["item"].get("length", 0))

    item = MediaItem(str(uuid.uuid4()), "accepted", utc_now(), metadata=metadata)
    tasks = new_tasks(item.media_id)
    catalog.add(v3json.media_item(item), source, content_hash, config_hash, tasks, settings.raw)
    item.status = "running"
    catalog.update(item.media_id, item=v3json.media_item(item))

    conv = Conversation(item.media_id, language=settings.language, date_created=item.date_created,
                        metadata=metadata)
    try:
        written = _analyse_and_publish(inp.path, item, conv, settings, outputs, tasks, catalog, reporter.audio_seconds)
        return ItemResult(str(inp.path), item.media_id, "finished", written, length_ms=conv.length_ms)
    except (E.SpeechprocError, OSError) as exc:
        error = exc if isinstance(exc, E.SpeechprocError) else E.SpeechprocError(E.INTERNAL, str(exc), 500)
        return _fail(inp, item, conv, error, outputs, tasks, catalog, settings)
    except KeyboardInterrupt:
        _fail(inp, item, conv, E.SpeechprocError(E.INTERNAL, "interrupted", 500), {}, tasks, catalog, settings)
        raise


def _analyse_and_publish(path: Path, item: MediaItem, conv: Conversation, settings: Settings,
                         outputs: dict[str, Path], tasks: list[dict[str, Any]], catalog: Catalog,
                         on_seconds: Any = None, words: list | None = None) -> dict[str, str]:
    """Run the stages, write every output, update the catalog, index, queue the callbacks."""
    def on_stage(name: str, status: str) -> None:
        for task in tasks:
            if task["name"] == name:
                task["status"] = status
        catalog.update(item.media_id, tasks=tasks)

    analyse(path, settings, conv, on_stage, on_seconds, words)
    item.content_type, item.length_ms = conv.content_type, conv.length_ms
    item.warnings = conv.warnings
    item.status, item.date_finished = "finished", utc_now()
    on_stage("publish", "started")
    redact_audio(path, conv, outputs, settings)
    body = v3json.media_item(item, conv)
    written = write_outputs(body, conv, outputs)
    on_stage("publish", "finished")
    catalog.update(item.media_id, item=body, outputs=written)
    if settings.analytic_indexing:
        corpus.index(catalog, conv)
    source = str(path.resolve())
    enqueue_callbacks(catalog, body, settings, {"original": source, "redacted-audio": written.get("redacted-audio")})
    return written


def align_media(media_id: str, transcript: str, settings: Settings | None = None,
                catalog: Catalog | None = None) -> dict[str, Any]:
    """`POST /media/{id}` with a transcript: align a human transcript to the item's machine words, then
    recompute every configured analytic, prediction, category and callback and rewrite the outputs.

    `settings` defaults to the configuration the item was processed with. While it runs the item is
    `running` (its transcript answers 404); if it fails the earlier results stay."""
    with _open(catalog) as cat:
        row = _row(cat, media_id)
        if row["status"] != "finished" or "transcript" not in row["item"]:
            raise E.ConfigurationError(E.INVALID_VALUE, f"media {media_id} is {row['status']}: only a finished "
                                       "media item can be aligned")
        settings = resolve(settings or config_module.validate(row["configuration"]), cat)
        machine = v3json.words_from_json(row["item"]["transcript"]["words"])
        try:
            aligned = align.align_text(transcript, machine)
        except align.TranscriptMismatch as exc:
            raise E.ConfigurationError(E.INVALID_VALUE, f"the transcript was refused: {exc}") from None
        old = row["item"]
        item = MediaItem(media_id, "running", old["dateCreated"], metadata=old.get("metadata", {}))
        tasks = new_tasks(media_id)
        cat.update(media_id, item=v3json.media_item(item), tasks=tasks)
        outputs = {k: Path(v) for k, v in row["outputs"].items() if k != "redacted-audio"}
        conv = Conversation(media_id, language=settings.language, date_created=item.date_created,
                            metadata=item.metadata)
        try:
            _analyse_and_publish(Path(row["input_path"]), item, conv, settings, outputs, tasks, cat,
                                 words=aligned.words)
        except (E.SpeechprocError, OSError) as exc:
            cat.update(media_id, item=old)
            if isinstance(exc, OSError):
                raise E.SpeechprocError(E.INTERNAL, f"alignment failed: {exc}", 500) from exc
            raise
        callbacks.deliver_due(cat, settings)
        return {**_row(cat, media_id)["item"], "alignment": {"words": aligned.total, "matched": aligned.matched}}


def _fail(inp: Input, item: MediaItem, conv: Conversation, error: E.SpeechprocError, outputs: dict[str, Path],
          tasks: list[dict[str, Any]], catalog: Catalog, settings: Settings) -> ItemResult:
    for task in tasks:
        if task["status"] in ("pending", "started"):
            task["status"] = "cancelled" if task["status"] == "pending" else "failed"
    item.status, item.date_finished = "failed", utc_now()
    item.content_type = item.content_type or conv.content_type or None
    item.length_ms = item.length_ms or conv.length_ms or None
    item.errors = [(error.code, error.message)]
    body = v3json.media_item(item)
    written = {}
    if inp.path.is_file() and "json" in outputs:
        atomic_write(outputs["json"], json.dumps(body, indent=2) + "\n")
        written = {"json": str(outputs["json"])}
    catalog.update(item.media_id, item=body, tasks=tasks, outputs=written)
    enqueue_callbacks(catalog, body, settings, {})
    return ItemResult(str(inp.path), item.media_id, "failed", written, error=error.body())


def enqueue_callbacks(catalog: Catalog, body: dict[str, Any], settings: Settings,
                      streams: dict[str, str | None]) -> None:
    """Put the item's callbacks into the outbox (sent by deliver_callbacks, retried from there)."""
    deliveries = callbacks.plan(body, settings, {k: v for k, v in streams.items() if v}, time.time())
    if deliveries:
        catalog.outbox_add(deliveries)


def deliver_callbacks(settings: Settings | None = None, catalog: Catalog | None = None) -> dict[str, int]:
    """`speechproc callbacks deliver`: send every callback that is due; counts of delivered, pending, dead."""
    with _open(catalog) as cat:
        return callbacks.deliver_due(cat, settings)


def list_callbacks(include_delivered: bool = False, catalog: Catalog | None = None) -> dict[str, Any]:
    """`speechproc callbacks list`: pending and dead deliveries (and delivered ones when asked)."""
    states = ("pending", "dead", "delivered") if include_delivered else ("pending", "dead")
    with _open(catalog) as cat:
        return callbacks.listing(cat, states)


def redacted_audio_path(outputs: dict[str, Path], source: Path, fmt: str | None) -> Path:
    ext = fmt or ("flac" if source.suffix.lower() == ".flac" else "wav")
    json_path = outputs["json"]
    return json_path.with_name(json_path.name[: -len(JSON_SUFFIX)] + ".redacted." + ext)


def redact_audio(source: Path, conv: Conversation, outputs: dict[str, Path], settings: Settings) -> None:
    """Write the redacted copy of the recording when a detector asks for audio redaction; list the streams."""
    wanted = [d for d in conv.detectors or [] if d.tone is not None]
    if not wanted:
        return
    target = redacted_audio_path(outputs, source, settings.redacted_audio_format)
    regions = [(s, e, d.tone[0], d.tone[1]) for d in wanted for s, e in d.regions()]
    audio.redact(source, target, regions, target.suffix[1:])
    outputs["redacted-audio"] = target
    conv.streams = [("original", source.resolve().as_uri(), "finished"),
                    ("redacted-audio", target.resolve().as_uri(), "finished")]


def write_outputs(body: dict[str, Any], conv: Conversation, outputs: dict[str, Path]) -> dict[str, str]:
    """Write the v3 JSON and every text format, each atomically."""
    atomic_write(outputs["json"], json.dumps(body, indent=2, ensure_ascii=False) + "\n")
    lang = conv.language.split("-")[0]
    for name in TEXT_FORMATS:
        atomic_write(outputs[name], get_writer(name, lang).render(conv.words))
    return {k: str(v) for k, v in outputs.items()}  # with the redacted audio when there is one


# ----------------------------------------------------------------------------- reading the catalog

def _row(catalog: Catalog, media_id: str) -> dict[str, Any]:
    row = catalog.get(media_id)
    if row is None:
        raise E.NotFoundError(E.RESOURCE_NOT_FOUND, f"media {media_id} was not found in the catalog")
    return row


def list_media(limit: int = 100, catalog: Catalog | None = None) -> dict[str, Any]:
    """`GET /media`: newest first, media items without their results."""
    with _open(catalog) as cat:
        rows = cat.list(limit)
    return {"_links": {"self": {"href": f"/v3/media?limit={limit}"}},
            "media": [v3json.summary(r["item"]) for r in rows]}


def get_media(media_id: str, catalog: Catalog | None = None) -> dict[str, Any]:
    """`GET /media/{id}`: the media item with every result."""
    with _open(catalog) as cat:
        return _row(cat, media_id)["item"]


def get_progress(media_id: str, catalog: Catalog | None = None) -> dict[str, Any]:
    """`GET /media/{id}/progress`: the job with one task per stage."""
    with _open(catalog) as cat:
        row = _row(cat, media_id)
    return v3json.progress(media_id, row["status"], row["tasks"])


def get_metadata(media_id: str, catalog: Catalog | None = None) -> dict[str, Any]:
    """`GET /media/{id}/metadata`."""
    with _open(catalog) as cat:
        item = _row(cat, media_id)["item"]
    return {"_links": v3json.links(media_id), **item.get("metadata", {})}


def get_transcript(media_id: str, fmt: str = "json", include: list[str] | None = None,
                   catalog: Catalog | None = None) -> dict[str, Any] | str:
    """`GET /media/{id}/transcript[/fmt]`: JSON (optionally with alternate formats) or one text format."""
    with _open(catalog) as cat:
        item = _row(cat, media_id)["item"]
    if item["status"] != "finished" or "transcript" not in item:
        raise TranscriptNotReady()
    if fmt == "json":
        return {**v3json.summary(item), "transcript": v3json.with_alternate_formats(item["transcript"], include or [])}
    words = v3json.words_from_json(item["transcript"]["words"])
    return get_writer(fmt).render(words)


class TranscriptNotReady(E.NotFoundError):
    def __init__(self) -> None:
        super().__init__(E.TRANSCRIPT_NOT_READY, E.TRANSCRIPT_NOT_READY_MESSAGE)

    def body(self) -> dict[str, Any]:
        return E.transcript_not_ready_body()


# ----------------------------------------------------------------------------- definitions and queries

_DEFINITIONS = {"category": ("categories", definitions.category), "group": ("groups", definitions.group),
                "classifier": ("classifiers", None)}  # a classifier is put with put_classifier


def _kind(kind: str) -> tuple[str, Any]:
    if kind not in _DEFINITIONS:
        raise ValueError(f"unknown definition kind {kind!r}")
    return _DEFINITIONS[kind]


def put_definition(kind: str, name: str, body: Any, catalog: Catalog | None = None) -> dict[str, Any]:
    """`PUT /definition/categories/{name}` or `.../spotting/groups/{name}`: validate, store, return it with dates."""
    _, check = _kind(kind)
    if check is None:
        raise ValueError(f"a {kind} is put with its own function")
    stored = check(name, body)
    with _open(catalog) as cat:
        dates = cat.put_definition(kind, name, stored, utc_now())
    return {**stored, **dates}


def get_definition(kind: str, name: str, catalog: Catalog | None = None) -> dict[str, Any]:
    _kind(kind)
    with _open(catalog) as cat:
        found = cat.get_definition(kind, name)
    if found is None:
        raise E.NotFoundError(E.RESOURCE_NOT_FOUND, f"{kind} {name!r} is not defined")
    return found


def list_definitions(kind: str, catalog: Catalog | None = None) -> dict[str, Any]:
    """`{categories: [...]}` or `{groups: [...]}`, by name."""
    key, _ = _kind(kind)
    with _open(catalog) as cat:
        return {key: cat.list_definitions(kind)}


def delete_definition(kind: str, name: str, catalog: Catalog | None = None) -> None:
    _kind(kind)
    with _open(catalog) as cat:
        if not cat.delete_definition(kind, name):
            raise E.NotFoundError(E.RESOURCE_NOT_FOUND, f"{kind} {name!r} is not defined")
    if kind == "classifier":
        classifiers.stored_path(name).unlink(missing_ok=True)


def put_classifier(name: str, model_file: str | Path, display_name: str | None = None,
                   catalog: Catalog | None = None) -> dict[str, Any]:
    """Register (or replace) a text classifier from a skops model file; print-ready definition with dates.

    The file is checked (trusted types only, a binary classifier of texts) before anything is stored."""
    definitions.check_name(name, "classifier")
    with _open(catalog) as cat:
        previous = cat.get_definition("classifier", name)
        stored = classifiers.install(name, Path(model_file), previous, display_name)
        dates = cat.put_definition("classifier", name, stored, utc_now())
    return {**stored, **dates}


def query(text: str, catalog: Catalog | None = None) -> dict[str, Any]:
    """`POST /analytics/vbql`: run a query over every media item processed with analytic indexing."""
    try:
        statement = parse(text)
    except QuerySyntaxError as exc:
        raise E.ConfigurationError(E.INVALID_VALUE, str(exc)) from None
    with _open(catalog) as cat:
        return corpus.run(statement, cat)
