"""Running a batch: each input claimed in the catalog, processed, published and recorded; one bad input
fails its own item only. Items left running by a killed process are failed first."""
from __future__ import annotations

import json
import os
import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from . import callbacks, corpus, ownership, reuse
from . import config as config_module
from . import errors as E
from .catalog import Catalog
from .config import Settings
from .conversation import Conversation, MediaItem
from .formats import v3json
from .paths import absolute, printable, shown
from .pipeline import analyse, new_tasks
from .planning import Input, discover, out_folder, output_paths, same_file_as, unreadable
from .publishing import enqueue_callbacks, redact_audio, redacted_audio_path, write_outputs


@dataclass
class ItemResult:
    path: str  # the exact path (it may hold a name that is not UTF-8); as_json shows it with shown()
    media_id: str | None
    status: str  # finished, failed or skipped
    outputs: dict[str, str] = field(default_factory=dict)
    error: dict[str, Any] | None = None
    length_ms: int = 0

    def as_json(self) -> dict[str, Any]:
        """The summary entry: {input, mediaId, status, outputs?, error?}, paths as valid UTF-8 text."""
        out: dict[str, Any] = {"input": shown(self.path), "mediaId": self.media_id, "status": self.status}
        if self.outputs:
            out["outputs"] = {k: shown(v) for k, v in self.outputs.items()}
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


def process(paths: list[str | Path], settings: Settings, metadata: dict[str, Any] | None = None,
            out_dir: str | Path | None = None, force: bool = False, reporter: Reporter | None = None,
            catalog: Catalog | None = None, deliver: bool = True) -> BatchResult:
    """Process every recording under `paths`; each becomes a media item in the catalog. At the end the
    callbacks that are due (these items' and earlier ones') are sent, unless `deliver` is False.

    Paths (and `out_dir`) are made absolute first, so the catalog holds absolute paths. Items that an
    earlier run on this host left `running` when its process stopped are marked failed first. Each input
    is claimed in the catalog before it is processed: one that a live overlapping run is processing now,
    with the same content and configuration, is skipped. Whatever goes wrong with one input fails that
    item only."""
    reporter = reporter or Reporter()
    metadata = metadata or {}
    out = out_folder(out_dir)
    own_catalog = catalog is None
    catalog = catalog or Catalog()
    try:
        settings = resolve(settings, catalog)
    except E.ConfigurationError:
        if own_catalog:
            catalog.close()
        raise
    results = []
    try:
        _fail_abandoned(catalog, reporter)
        inputs, problems = discover([absolute(p) for p in paths], reporter.note)
        # an input that cannot be read at all (missing, a looping link) fails with no output files
        names = output_paths([i for i in inputs if unreadable(i.path) is None], out)
        config_hash = reuse.settings_key(settings, metadata, out)
        reporter.batch_started(inputs)
        first_of: dict[tuple[int, int], Path] = {}  # (device, inode) -> the input that names it first
        for inp in inputs:
            reporter.item_started(inp)
            same = same_file_as(inp.path, first_of)
            if same is not None:
                reporter.note(f"{shown(inp.path)}: the same file as {shown(same)}, processed once")
                result = ItemResult(os.fspath(inp.path), None, "skipped")
            else:
                result = _process_one(inp, names.get(inp.path, {}), settings, metadata, config_hash, force, catalog,
                                      reporter)
            results.append(result)
            reporter.item_done(result)
        if deliver:
            _deliver(catalog, settings, reporter)
    finally:
        if own_catalog:
            catalog.close()
    return BatchResult(results, problems)


INTERRUPTED = "interrupted: the process handling it stopped"


def _fail_abandoned(catalog: Catalog, reporter: Reporter) -> None:
    """Mark failed the items whose process stopped (killed, or the machine restarted) while they were
    unfinished; their unfinished tasks become failed (started) or cancelled (pending)."""
    try:
        abandoned = catalog.abandoned()
    except Exception as exc:  # never a reason not to process this run's files
        reporter.note(f"could not look for interrupted items ({type(exc).__name__}: {exc})")
        return
    for row in abandoned:
        tasks = [{**t, "status": {"pending": "cancelled", "started": "failed"}.get(t["status"], t["status"])}
                 for t in row["tasks"]]
        body = {**row["item"], "status": "failed", "dateFinished": v3json.utc_now(),
                "errors": [{"code": E.INTERNAL, "error": INTERRUPTED}]}
        if not catalog.update(row["media_id"], item=body, tasks=tasks, only_if_status=row["status"]):
            continue  # an overlapping run marked it first
        reporter.note(f"{row['input_path']}: media {row['media_id']} was {INTERRUPTED}; marked failed")
        try:
            enqueue_callbacks(catalog, body, config_module.validate(row["configuration"]), {})
        except Exception as exc:  # a configuration this version no longer accepts: no callbacks for it
            reporter.note(f"media {row['media_id']}: callbacks not queued ({type(exc).__name__}: {exc})")


def _deliver(catalog: Catalog, settings: Settings, reporter: Reporter) -> None:
    """Send the callbacks that are due; a failure to do so is a note, never the end of the batch."""
    try:
        sent = callbacks.deliver_due(catalog, settings)
    except Exception as exc:
        reporter.note(f"callbacks: not sent this time ({type(exc).__name__}: {exc}); speechproc callbacks deliver "
                      "retries them")
        return
    if any(sent.values()):
        reporter.note(f"callbacks: {sent['delivered']} delivered, {sent['pending']} to retry later "
                      f"(speechproc callbacks deliver), {sent['dead']} given up")


def _process_one(inp: Input, outputs: dict[str, Path], settings: Settings, metadata: dict[str, Any],
                 config_hash: str, force: bool, catalog: Catalog, reporter: Reporter) -> ItemResult:
    """Claim, process and publish one input. Any exception fails this item only (an unexpected one with code
    90000, its type and message); only KeyboardInterrupt goes on up, after the item is marked failed."""
    path = os.fspath(inp.path)
    item = MediaItem(str(uuid.uuid4()), "running", v3json.utc_now(), metadata=metadata)
    tasks = new_tasks(item.media_id)
    conv = Conversation(item.media_id, language=settings.language, date_created=item.date_created,
                        metadata=metadata)
    claimed = False
    try:
        problem = unreadable(inp.path)
        content_hash = None if problem else reuse.content_key(inp.path)
        reusable = None if force else reuse.still_there
        state, row = catalog.claim(v3json.media_item(item), path, content_hash, config_hash, tasks, settings.raw, reusable)
        if state != "claimed":
            return _skipped(inp, state, row, reporter)
        claimed = True
        if problem:
            raise problem
        ownership.check([*outputs.values(), redacted_audio_path(outputs, inp.path, settings)], catalog)
        written = analyse_and_publish(inp.path, item, conv, settings, outputs, tasks, catalog, reporter.audio_seconds)
        return ItemResult(path, item.media_id, "finished", written, length_ms=conv.length_ms)
    except KeyboardInterrupt:
        if claimed:
            _fail(inp, item, conv, E.SpeechprocError(E.INTERNAL, "interrupted", 500), {}, tasks, catalog, settings)
        raise
    except Exception as exc:
        error = _as_error(exc)
        if not claimed:  # nothing in the catalog to mark
            return ItemResult(path, None, "failed", error=error.body())
        return _fail_item(inp, item, conv, error, outputs, tasks, catalog, settings)


def _skipped(inp: Input, state: str, row: dict[str, Any], reporter: Reporter) -> ItemResult:
    """The result for an input not processed: unchanged since a finished item, or being processed elsewhere."""
    if state == "finished":
        reporter.note(f"{shown(inp.path)}: unchanged since media {row['media_id']}, skipped (--force redoes it)")
        return ItemResult(os.fspath(inp.path), row["media_id"], "skipped", row["outputs"],
                          length_ms=row["item"].get("length", 0))
    owner = row["owner"]
    reporter.note(f"{shown(inp.path)}: being processed by another run (pid {owner['pid']} on {owner['host']}) as "
                  f"media {row['media_id']}, skipped")
    return ItemResult(os.fspath(inp.path), row["media_id"], "skipped")


def _as_error(exc: Exception) -> E.SpeechprocError:
    """The item error for an exception: its own code for a SpeechprocError, else 90000 with type and message;
    the message as valid UTF-8 text."""
    if isinstance(exc, E.SpeechprocError):
        message = printable(exc.message)
        return exc if message == exc.message else E.SpeechprocError(exc.code, message, exc.status)
    return E.SpeechprocError(E.INTERNAL, printable(f"{type(exc).__name__}: {exc}"), 500)


def _fail_item(inp: Input, item: MediaItem, conv: Conversation, error: E.SpeechprocError, outputs: dict[str, Path],
               tasks: list[dict[str, Any]], catalog: Catalog, settings: Settings) -> ItemResult:
    """Mark the item failed; should even that go wrong, mark it failed in the catalog alone."""
    try:
        return _fail(inp, item, conv, error, outputs, tasks, catalog, settings)
    except Exception as exc:
        body = {**v3json.media_item(item), "status": "failed", "dateFinished": v3json.utc_now(),
                "errors": [{"code": error.code, "error": error.message},
                           {"code": E.INTERNAL, "error": printable(f"while recording the failure: {type(exc).__name__}: {exc}")}]}
        try:
            catalog.update(item.media_id, item=body, only_if_status="running")
        except Exception:  # the catalog itself fails: a later run finds the item abandoned and fails it
            pass
        return ItemResult(os.fspath(inp.path), item.media_id, "failed", error=error.body())


def analyse_and_publish(path: Path, item: MediaItem, conv: Conversation, settings: Settings,
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
    item.status, item.date_finished = "finished", v3json.utc_now()
    on_stage("publish", "started")
    redact_audio(path, conv, outputs, settings, catalog)
    body = v3json.media_item(item, conv)
    written = write_outputs(body, conv, outputs, catalog)
    on_stage("publish", "finished")
    catalog.update(item.media_id, item=body, outputs=written)
    if settings.analytic_indexing:
        corpus.index(catalog, conv)
    source = os.fspath(path)  # absolute already; a symbolic link keeps its name
    enqueue_callbacks(catalog, body, settings, {"original": source, "redacted-audio": written.get("redacted-audio")})
    return written


def _fail(inp: Input, item: MediaItem, conv: Conversation, error: E.SpeechprocError, outputs: dict[str, Path],
          tasks: list[dict[str, Any]], catalog: Catalog, settings: Settings) -> ItemResult:
    for task in tasks:
        if task["status"] in ("pending", "started"):
            task["status"] = "cancelled" if task["status"] == "pending" else "failed"
    item.status, item.date_finished = "failed", v3json.utc_now()
    item.content_type = item.content_type or conv.content_type or None
    item.length_ms = item.length_ms or conv.length_ms or None
    item.errors = [(error.code, error.message)]
    body = v3json.media_item(item)
    written = {}
    if inp.path.is_file() and "json" in outputs:
        try:
            ownership.write(outputs["json"], json.dumps(body, indent=2) + "\n", catalog, item.media_id)
            written = {"json": str(outputs["json"].absolute())}
        except ownership.OutputConflict:  # the name is someone else's file: the catalog alone says why
            pass
    catalog.update(item.media_id, item=body, tasks=tasks, outputs=written)
    enqueue_callbacks(catalog, body, settings, {})
    return ItemResult(str(inp.path), item.media_id, "failed", written, error=error.body())
