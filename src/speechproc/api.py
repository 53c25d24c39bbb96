"""The library face of speechproc: process recordings and read the catalog. The CLI only wraps this."""
from __future__ import annotations

import errno
import hashlib
import json
import os
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from . import __version__, align, callbacks, classifiers, corpus, definitions, listing, ownership
from . import config as config_module
from . import errors as E
from .catalog import Catalog
from .config import Settings
from .conversation import Conversation, MediaItem
from .formats import TEXT_FORMATS, audio, get_writer, v3json
from .media import MEDIA_EXTENSIONS, file_hash
from .pipeline import analyse, new_tasks
from .query import QuerySyntaxError, parse
from .stages import detect

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


def shown(path: str | Path) -> str:
    """A path as valid UTF-8 text, unambiguously: a byte that is not UTF-8 (which Python holds as a lone
    surrogate) is written `\\xNN`, a backslash `\\\\`. The catalog stores the same text."""
    return Catalog.path_columns(os.fspath(path))[0]


def printable(text: str) -> str:
    """A message that may quote such a path, as valid UTF-8 text (a byte that is not UTF-8 as `\\xNN`)."""
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that does not stand for a byte
        raw = text.encode("utf-8", "backslashreplace")
    return raw.decode("utf-8", "backslashreplace")


def absolute(path: str | Path) -> Path:
    """The absolute path, `..` and `.` removed by name; symbolic links are kept, not resolved."""
    return Path(os.path.normpath(Path(path).absolute()))


@dataclass
class Input:
    path: Path  # absolute once `process` has it
    root: Path | None = None  # the folder named on the command line, for mirroring under --out


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


# ----------------------------------------------------------------------------- discovery and naming

def is_redacted_copy(path: Path) -> bool:
    """A redacted copy written by an earlier run (`call.redacted.flac`): not picked up when walking folders."""
    return Path(path.stem).suffix == ".redacted"


def discover(paths: list[str | Path],
             note: Callable[[str], None] | None = None) -> tuple[list[Input], list[dict[str, Any]]]:
    """Media files under the given paths (folders walked recursively, by extension), and problems found.

    A path that is not a folder is an input whatever it is (a missing file becomes a failed item). Symbolic
    links met while walking a folder are not followed: each one named like media, or pointing to a folder,
    is passed to `note` as skipped. A link named among `paths` is followed."""
    inputs: list[Input] = []
    problems: list[dict[str, Any]] = []
    for raw in paths:
        path = Path(raw)
        if not path.is_dir():
            inputs.append(Input(path))
            continue
        found = [Input(p, path) for p in _walk(path, note or (lambda message: None))]
        if not found:
            problems.append(E.error_body(400, [(E.NO_MEDIA, f"{shown(path)}: no media files found in this folder")]))
        inputs += found
    return inputs, problems


def _walk(folder: Path, note: Callable[[str], None]) -> Iterator[Path]:
    """Media files below `folder`, in name order; hidden names, redacted copies and symbolic links left out."""
    for p in sorted(folder.rglob("*")):
        if any(part.startswith(".") for part in p.relative_to(folder).parts):
            continue
        media_name = p.suffix.lower() in MEDIA_EXTENSIONS
        if p.is_symlink():
            if media_name or p.is_dir():
                note(f"{shown(p)}: symbolic link, skipped (name it on the command line to process it)")
        elif media_name and p.is_file() and not is_redacted_copy(p):
            yield p


def output_paths(inputs: list[Input], out_dir: Path | None) -> dict[Path, dict[str, Path]]:
    """Output file per format for every input; `call.wav` -> `call.v3.json`, `call.srt`, ...

    Beside the input, or under `out_dir` mirroring the tree below each folder argument. No two inputs
    ever share an output file (the same file given twice counts once):
    - two inputs that would share names in one folder (call.wav and call.mp3) keep their extension
      (`call.wav.srt`);
    - with `out_dir`, when files of two folder arguments would land on the same name, every folder
      argument is mirrored under its own folder name instead (`DIR/d1/a.srt`, `DIR/d2/a.srt`);
    - a clash that remains (files of one name given directly, folders of one name) gives every input
      after the first, in argument order, a numeric suffix (`a-2.srt`, `a-3.srt`).
    """
    def folder(inp: Input, own_root: bool) -> Path:
        if out_dir is None:
            return inp.path.parent
        if inp.root is None:
            return out_dir
        below = inp.path.relative_to(inp.root).parent
        return out_dir / inp.root.resolve().name / below if own_root else out_dir / below

    def names(inp: Input, place: Path, base: str) -> dict[str, Path]:
        plain = {"json": base + JSON_SUFFIX, **{f: base + get_writer(f).extension for f in TEXT_FORMATS}}
        if any(place / n == inp.path for n in plain.values()):  # never overwrite the input itself
            plain = {k: inp.path.name + (JSON_SUFFIX if k == "json" else Path(n).suffix) for k, n in plain.items()}
        return {k: place / n for k, n in plain.items()}

    def plan(own_root: bool) -> tuple[dict[Path, dict[str, Path]], bool]:
        """The outputs, and whether files of two different folder arguments clashed."""
        same = {inp.path: inp.path.resolve() for inp in inputs}
        stems: dict[tuple[Path, str], set[str]] = {}  # file names that would share a stem in one folder
        for inp in inputs:
            stems.setdefault((folder(inp, own_root), inp.path.stem), set()).add(inp.path.name)
        result: dict[Path, dict[str, Path]] = {}
        owners: dict[Path, Input] = {}  # absolute output path -> the input it is planned for
        done: dict[Path, dict[str, Path]] = {}  # resolved input -> its outputs
        across = False
        for inp in inputs:
            if same[inp.path] in done:
                result[inp.path] = done[same[inp.path]]
                continue
            place = folder(inp, own_root)
            base = inp.path.stem if len(stems[(place, inp.path.stem)]) == 1 else inp.path.name
            planned, n = names(inp, place, base), 1
            while clashes := [owners[p] for p in map(Path.absolute, planned.values()) if p in owners]:
                across = across or any(o.root is not None and inp.root is not None
                                       and o.root.resolve() != inp.root.resolve()
                                       for o in clashes)
                n += 1
                planned = names(inp, place, f"{base}-{n}")
            owners.update({p.absolute(): inp for p in planned.values()})
            result[inp.path] = done[same[inp.path]] = planned
        return result, across

    result, across = plan(own_root=False)
    return plan(own_root=True)[0] if across else result


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
    callbacks that are due (these items' and earlier ones') are sent, unless `deliver` is False.

    Paths (and `out_dir`) are made absolute first, so the catalog holds absolute paths. Items that an
    earlier run on this host left `running` when its process stopped are marked failed first. Each input
    is claimed in the catalog before it is processed: one that a live overlapping run is processing now,
    with the same content and configuration, is skipped. Whatever goes wrong with one input fails that
    item only."""
    reporter = reporter or Reporter()
    metadata = metadata or {}
    out = _out_folder(out_dir)
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
        names = output_paths([i for i in inputs if _unreadable(i.path) is None], out)
        config_hash = effective_hash(settings, metadata, out)
        reporter.batch_started(inputs)
        first_of: dict[tuple[int, int], Path] = {}  # (device, inode) -> the input that names it first
        for inp in inputs:
            reporter.item_started(inp)
            same = _same_file_as(inp.path, first_of)
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


def _out_folder(out_dir: str | Path | None) -> Path | None:
    """`--out` made absolute; ConfigurationError when it is empty or names something that is not a folder."""
    if out_dir is None:
        return None
    if not os.fspath(out_dir).strip():
        raise E.ConfigurationError(E.INVALID_VALUE, "--out: must name a folder (it is empty)")
    out = absolute(out_dir)
    if os.path.lexists(out) and not out.is_dir():
        raise E.ConfigurationError(E.INVALID_VALUE, f"--out: {shown(out)} exists and is not a folder")
    return out


def _same_file_as(path: Path, first_of: dict[tuple[int, int], Path]) -> Path | None:
    """The input named earlier in this run that is this very file (through a link, or a folder given
    twice), else None; records this one as the first otherwise."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    key = (info.st_dev, info.st_ino)
    if key in first_of:
        return first_of[key]
    first_of[key] = path
    return None


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
        body = {**row["item"], "status": "failed", "dateFinished": utc_now(),
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
    item = MediaItem(str(uuid.uuid4()), "running", utc_now(), metadata=metadata)
    tasks = new_tasks(item.media_id)
    conv = Conversation(item.media_id, language=settings.language, date_created=item.date_created,
                        metadata=metadata)
    claimed = False
    try:
        problem = _unreadable(inp.path)
        content_hash = None if problem else _content_hash(inp.path)
        reusable = None if force else _outputs_exist
        state, row = catalog.claim(v3json.media_item(item), path, content_hash, config_hash, tasks, settings.raw, reusable)
        if state != "claimed":
            return _skipped(inp, state, row, reporter)
        claimed = True
        if problem:
            raise problem
        ownership.check([*outputs.values(), redacted_audio_path(outputs, inp.path, settings)], catalog)
        written = _analyse_and_publish(inp.path, item, conv, settings, outputs, tasks, catalog, reporter.audio_seconds)
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


def _unreadable(path: Path) -> E.SpeechprocError | None:
    """Why `path` cannot be read at all (missing, a broken or looping symbolic link), or None."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return E.SpeechprocError(E.MEDIA_UNREADABLE, f"{shown(path)}: the file is malformed or unreadable "
                                     "(a symbolic link loop: too many levels of symbolic links)")
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            why = "a broken symbolic link" if path.is_symlink() else "no such file"
            return E.SpeechprocError(E.RESOURCE_NOT_FOUND, f"{shown(path)}: {why}", 404)
        return E.SpeechprocError(E.MEDIA_UNREADABLE, f"{shown(path)}: the file is malformed or unreadable "
                                 f"({exc.strerror})")
    return None


def _content_hash(path: Path) -> str | None:
    """SHA-256 of a regular file's content; None for anything else or a file that cannot be read (then
    processing it fails with the reason)."""
    try:
        return file_hash(path) if path.is_file() else None
    except OSError:
        return None


def _outputs_exist(row: dict[str, Any]) -> bool:
    """Whether a finished item's outputs are all still there (then it can be reused)."""
    return all(Path(p).exists() for p in row["outputs"].values())


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
        body = {**v3json.media_item(item), "status": "failed", "dateFinished": utc_now(),
                "errors": [{"code": error.code, "error": error.message},
                           {"code": E.INTERNAL, "error": printable(f"while recording the failure: {type(exc).__name__}: {exc}")}]}
        try:
            catalog.update(item.media_id, item=body, only_if_status="running")
        except Exception:  # the catalog itself fails: a later run finds the item abandoned and fails it
            pass
        return ItemResult(os.fspath(inp.path), item.media_id, "failed", error=error.body())


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
        try:
            ownership.write(outputs["json"], json.dumps(body, indent=2) + "\n", catalog, item.media_id)
            written = {"json": str(outputs["json"].absolute())}
        except ownership.OutputConflict:  # the name is someone else's file: the catalog alone says why
            pass
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


def redacted_audio_path(outputs: dict[str, Path], source: Path, settings: Settings) -> Path | None:
    """Where the redacted copy of `source` goes (`call.redacted.wav`); None when no detector redacts audio."""
    if "json" not in outputs or not any("audio" in redactor for _, _, redactor in detect.configured(settings)):
        return None
    ext = settings.redacted_audio_format or ("flac" if source.suffix.lower() == ".flac" else "wav")
    json_path = outputs["json"]
    return json_path.with_name(json_path.name[: -len(JSON_SUFFIX)] + ".redacted." + ext)


def redact_audio(source: Path, conv: Conversation, outputs: dict[str, Path], settings: Settings,
                 catalog: Catalog | None = None) -> None:
    """Write the redacted copy of the recording when a detector asks for audio redaction; list the streams.

    Raise ownership.OutputConflict, before encoding, when a file of the set may not be written."""
    wanted = [d for d in conv.detectors or [] if d.tone is not None]
    target = redacted_audio_path(outputs, source, settings)
    if not wanted or target is None:
        return
    regions = [(s, e, d.tone[0], d.tone[1]) for d in wanted for s, e in d.regions()]
    with _open(catalog) as cat:
        ownership.start_set([*outputs.values(), target], outputs["json"], cat)
        ownership.write(target, lambda tmp: audio.redact_into(source, tmp, regions, target.suffix[1:]), cat,
                        conv.media_id)
    outputs["redacted-audio"] = target
    conv.streams = [("original", source.resolve().as_uri(), "finished"),
                    ("redacted-audio", target.resolve().as_uri(), "finished")]


def write_outputs(body: dict[str, Any], conv: Conversation, outputs: dict[str, Path],
                  catalog: Catalog | None = None) -> dict[str, str]:
    """Write every text format, then the v3 JSON last (so a `.v3.json` means its set is complete), each
    atomically; absolute paths of the outputs, with the redacted audio when there is one.

    Raise ownership.OutputConflict, before writing anything, when a file of the set may not be written."""
    media_id = body.get("mediaId")
    lang = conv.language.split("-")[0]
    with _open(catalog) as cat:
        ownership.start_set(outputs.values(), outputs["json"], cat)
        try:
            for name in TEXT_FORMATS:
                ownership.write(outputs[name], get_writer(name, lang).render(conv.words), cat, media_id)
            ownership.write(outputs["json"], json.dumps(body, indent=2, ensure_ascii=False) + "\n", cat, media_id)
        except BaseException:
            _remove_written(outputs, cat)
            raise
    return {k: str(Path(v).absolute()) for k, v in outputs.items()}


def _remove_written(outputs: dict[str, Path], catalog: Catalog) -> None:
    """After a failed write: remove the files of the set this item wrote, so no partial set stays behind
    (a file that is not speechproc's own content is left alone)."""
    for path in outputs.values():
        if os.path.lexists(path) and ownership.is_ours(Path(path), catalog):
            with suppress(OSError):
                os.unlink(path)


# ----------------------------------------------------------------------------- reading the catalog

def _row(catalog: Catalog, media_id: str) -> dict[str, Any]:
    row = catalog.get(media_id)
    if row is None:
        raise E.NotFoundError(E.RESOURCE_NOT_FOUND, f"media {media_id} was not found in the catalog")
    return row


def list_media(limit: int = listing.DEFAULT_LIMIT, catalog: Catalog | None = None, *, sort_order: str = "desc",
               query: str | None = None, external_id: str | None = None, after: str | None = None,
               before: str | None = None, on_or_after_date: str | None = None, on_or_before_date: str | None = None,
               extended_filter: list[str] | tuple[str, ...] = ()) -> dict[str, Any]:
    """`GET /media`: media items without their results, newest first unless `sort_order` is `asc`.

    The v3 filters: full-text `query`, `externalId`, `after`/`before` (mediaId cursors),
    `onOrAfterDate`/`onOrBeforeDate`, `extendedFilter` (`Name;Value`); `limit` is 1-1000.
    Raise ConfigurationError for a bad parameter, NotFoundError for an unknown cursor."""
    selection = listing.media_filter(limit, sort_order, query, external_id, after, before, on_or_after_date,
                                     on_or_before_date, extended_filter)
    with _open(catalog) as cat:
        rows = cat.find_media(selection)
    if rows is None:
        raise E.NotFoundError(E.RESOURCE_NOT_FOUND, f"media {after if after is not None else before} (given as "
                              f"{'after' if after is not None else 'before'}) was not found in the catalog")
    given = {"query": query, "externalId": external_id, "after": after, "before": before,
             "onOrAfterDate": on_or_after_date, "onOrBeforeDate": on_or_before_date, "sortOrder": sort_order,
             "extendedFilter": tuple(extended_filter)}
    return {"_links": {"self": {"href": "/v3/media?" + listing.query_string(selection, given)}},
            "media": [v3json.summary(r["item"]) for r in rows],
            "pagination": {"limit": selection.limit,
                           "sortOrder": [{"field": "dateCreated", "direction": sort_order}]}}


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
