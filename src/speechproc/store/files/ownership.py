"""May speechproc write this file? It never replaces a file it did not write.

Every output speechproc writes is recorded in the catalog: absolute path, SHA-256 of the content, media
id, time. An existing file may be replaced only when the record says speechproc wrote exactly the
content it holds now. A person's file, or one of ours edited since, makes the item fail instead.

The record is the catalog's, or, for one job that runs with no catalog connection, a `Ledger`: the
record of the job's output places as it was when the job was planned, and what the job adds to it,
which the runner then replays into the catalog.

A record that is not the catalog's (a job in a worker process or a Ray actor: the main process records the
file when it hears of it) is not durable: the writer first leaves an intent beside the file (`intents`),
flushed to disk before the rename, so that a file put in place after the main process died is still
recognised as speechproc's by the next run, adopted into the record and replaced, never refused.

Files written by versions that kept no record are recognised from the media items' outputs: a file
listed there by its absolute path, or by a relative path (older versions kept the path as given,
relative to the folder the run started in) when the `.v3.json` listed beside it by the same media
item holds that media item's id. Such a file is adopted into the record as it is when first checked
(its content before that cannot be checked: there is no record of it).
"""
from __future__ import annotations

import errno
import io
import json
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, BinaryIO, Protocol, cast, overload

from speechproc import errors as E
from speechproc.formats import openpgp
from speechproc.paths import printable, publish, remove_stale_temporaries, sha256_file, temporary, write_bytes
from speechproc.store.files import intents

_cleaned: set[Path] = set()  # folders already cleared of stale temporary files by this process


class OutputRecord(Protocol):
    """Where speechproc remembers what it wrote: the catalog, or a job's Ledger. `durable`: what it records
    is on disk before the file is put in place (else an intent is left first)."""

    durable: bool

    def output_hashes(self, path: str) -> set[str]: ...
    def record_output(self, path: str, sha256: str, media_id: str | None) -> None: ...
    def forget_other_outputs(self, path: str, sha256: str) -> None: ...
    def media_with_output_named(self, name: str) -> list[tuple[str, dict[str, str]]]: ...


class Ledger:
    """The output record of one job, carried with it as plain data: the SHA-256 of what speechproc had
    written at each of the job's output places when it was planned (`known`, canonical path -> hashes),
    and every change the job makes to the record, in order (`changes`), for the runner to replay into
    the catalog (`replay`). `on_record` hears of each file just before it is put in place; `durable`: it
    records the file in the catalog there and then (a job in the main process)."""

    def __init__(self, known: Mapping[str, Iterable[str]],
                 on_record: Callable[[str, str, str | None], None] | None = None, durable: bool = False) -> None:
        self.known = {path: set(hashes) for path, hashes in known.items()}
        self.changes: list[tuple[Any, ...]] = []
        self.on_record = on_record
        self.durable = durable

    @classmethod
    def of(cls, targets: Iterable[Path | None], record: OutputRecord) -> Ledger:
        """The ledger of `targets` (None is ignored) as `record` knows them now (call after `check`)."""
        keys = [str(canonical(Path(t))) for t in targets if t is not None]
        return cls({key: record.output_hashes(key) for key in keys})

    def output_hashes(self, path: str) -> set[str]:
        return set(self.known.get(path, ()))

    def record_output(self, path: str, sha256: str, media_id: str | None) -> None:
        self.known.setdefault(path, set()).add(sha256)
        self.changes.append(("record", path, sha256, media_id))
        if self.on_record is not None:
            self.on_record(path, sha256, media_id)

    def forget_other_outputs(self, path: str, sha256: str) -> None:
        self.known[path] = {sha256}
        self.changes.append(("forget", path, sha256))

    def media_with_output_named(self, name: str) -> list[tuple[str, dict[str, str]]]:
        return []  # files of older versions were adopted into the record when the job was planned


def replay(changes: Iterable[tuple[Any, ...]], record: OutputRecord) -> None:
    """Apply a Ledger's changes to `record` (the catalog), in order; the intents of the files recorded go."""
    for change in changes:
        if change[0] == "record":
            record.record_output(*change[1:])
            intents.settle(Path(change[1]), change[2])
        else:
            record.forget_other_outputs(*change[1:])


class NoSpace(E.SpeechprocError):
    """An output could not be written for lack of space (or over a quota) where it goes."""

    def __init__(self, folder: Path) -> None:
        super().__init__(E.OUTPUT_NOT_WRITTEN, printable(f"no space left in {folder} (the disk is full, or a quota is "
                         "reached): the outputs of this recording were not written, and no part of them is left; free "
                         "space there and run again"), 507)


OUT_OF_SPACE = (errno.ENOSPC, errno.EDQUOT)


class OutputConflict(E.SpeechprocError):
    """An output file exists and speechproc may not replace it."""

    def __init__(self, path: Path, edited: bool) -> None:
        why = "was changed since speechproc wrote it" if edited else "was not written by speechproc"
        super().__init__(E.INVALID_VALUE, f"{path} already exists and {why}; it was left as it is. Move it "
                         "away, or write the outputs elsewhere with --out DIR", 409)
        self.path = path


def canonical(path: Path) -> Path:
    """The absolute path with the folder's symbolic links resolved (not the file's: a link is replaced)."""
    path = Path(path)
    return path.parent.resolve() / path.name


def check(targets: Iterable[Path | None], record: OutputRecord) -> None:
    """Raise OutputConflict for the first target that exists and may not be replaced (None is ignored).

    Call it before any audio is processed. It also removes stale temporary files of speechproc from the
    targets' folders (once per folder in a process)."""
    for target in targets:
        if target is None:
            continue
        _check_name(Path(target))
        _clean_once(Path(target).parent, record)
        verdict = _conflict(Path(target), record)
        if verdict is not None:
            raise OutputConflict(Path(target), edited=verdict == "edited")


Content = str | bytes | Callable[[Path], None]  # the data, or a function that writes it to a given file
Sealable = str | bytes | Callable[[Path | BinaryIO], None]  # what may be encrypted: a function writes memory too


@overload
def write(path: Path, content: Content, record: OutputRecord, media_id: str | None, encryption: None = None) -> None: ...
@overload
def write(path: Path, content: Sealable, record: OutputRecord, media_id: str | None,
          encryption: openpgp.PublicKey | None) -> None: ...
def write(path: Path, content: Content | Sealable, record: OutputRecord, media_id: str | None,
          encryption: openpgp.PublicKey | None = None) -> None:
    """Write one output atomically, unless an existing file there may not be replaced (OutputConflict).

    `content` is the data, or a function that writes a given temporary path (or, with `encryption`, memory).
    With `encryption` the file holds only the OpenPGP ciphertext of the content, encrypted in memory: nothing is ever
    written in the clear. The file is recorded as speechproc's before the rename, so that a crash in between
    never orphans it. A file that did not exist when checked is never replaced, even if it appears while this
    one is written."""
    path = Path(path)
    _clean_once(path.parent, record)
    try:
        with temporary(path) as tmp:
            if encryption is not None:
                plain = _in_memory(cast(Sealable, content))
                sealed = openpgp.encrypt(plain, encryption)
                write_bytes(tmp, sealed)
            elif callable(content):
                content(tmp)
            else:
                write_bytes(tmp, content)
            digest = sha256_file(tmp)
            existed = os.path.lexists(path)
            verdict = _conflict(path, record) if existed else None
            if verdict is not None:
                raise OutputConflict(path, edited=verdict == "edited")
            key = canonical(path)
            if not record.durable:
                intents.declare(key, digest, media_id)
            record.record_output(str(key), digest, media_id)
            try:
                publish(tmp, path, replace=existed)
            except FileExistsError:
                raise OutputConflict(path, edited=False) from None
            record.forget_other_outputs(str(key), digest)
    except OSError as exc:
        if exc.errno in OUT_OF_SPACE:
            raise NoSpace(path.parent) from None
        raise


def _in_memory(content: Sealable) -> str | bytes:
    """The data of `content`, a function that writes it made to write into memory."""
    if not callable(content):
        return content
    buffer = io.BytesIO()
    content(buffer)
    return buffer.getvalue()


def start_set(targets: Iterable[Path], json_path: Path, record: OutputRecord) -> None:
    """Before writing the files of one media item: check them all, then remove the `.v3.json` of an
    earlier run, so that a `.v3.json` is only ever beside the complete set of its own run."""
    check(targets, record)
    if os.path.lexists(json_path):
        Path(json_path).unlink(missing_ok=True)


def remove_own(path: Path, record: OutputRecord) -> bool:
    """Remove `path` when it holds exactly content speechproc recorded writing there (and its intent, if one
    is left); whether it did. Anything else there is left alone."""
    try:
        content = sha256_file(path) if os.path.isfile(path) and not os.path.islink(path) else None
    except OSError:
        return False
    if content is None or content not in record.output_hashes(str(canonical(path))):
        return False
    try:
        os.unlink(path)
    except OSError:
        return False
    intents.settle(canonical(path), content)
    return True


def remove_set(paths: Iterable[Path], record: OutputRecord) -> None:
    """After a failed write: remove the files of one media item's set that hold speechproc's own content
    (`remove_own`), so that no partial set stays behind."""
    for path in paths:
        remove_own(Path(path), record)


def write_set(contents: Iterable[tuple[str, Sealable]], places: Mapping[str, Path], record: OutputRecord,
              media_id: str | None, encryption: openpgp.PublicKey | None = None) -> list[str]:
    """Write the files of one media item: each of `contents` (name, content) to its place in `places` (name ->
    path, "json" the `.v3.json`), in the order given, each made only when its turn comes; the names written.
    Every place is checked and the earlier `.v3.json` removed before the first is written (`start_set`).
    Should a write fail, the files of the set written so far are removed and the error raised."""
    start_set(places.values(), places["json"], record)
    written = []
    try:
        for name, content in contents:
            write(places[name], content, record, media_id, encryption)
            written.append(name)
    except BaseException:
        remove_set(places.values(), record)
        raise
    return written


def is_ours(path: Path, record: OutputRecord) -> bool:
    """Whether `path` holds exactly content that speechproc recorded writing there."""
    try:
        return sha256_file(path) in record.output_hashes(str(canonical(path)))
    except OSError:
        return False


def _check_name(path: Path) -> None:
    """An output name the file system cannot hold fails the item before any work, not half way through."""
    try:
        longest = os.pathconf(path.parent, "PC_NAME_MAX") if path.parent.is_dir() else 255
    except (OSError, ValueError):
        longest = 255
    if len(os.fsencode(path.name)) > longest:
        raise E.SpeechprocError(E.INVALID_VALUE, f"{path.name[:40]}...: the output name is {len(os.fsencode(path.name))}"
                                f" bytes long, more than the {longest} the file system allows; rename the recording")


def _clean_once(folder: Path, record: OutputRecord) -> None:
    """Stale temporary files and intents out of `folder`, once per process; with the catalog as `record`,
    also the intents of files it records already."""
    if folder not in _cleaned:
        remove_stale_temporaries(folder)
        intents.sweep(folder, _recorded_in(record) if record.durable else None)
        _cleaned.add(folder)


def _recorded_in(record: OutputRecord) -> Callable[[Path, str], bool]:
    return lambda path, sha256: sha256 in record.output_hashes(str(path))


def _conflict(path: Path, record: OutputRecord) -> str | None:
    """None when `path` may be written; "edited" for an output of ours changed since; else "foreign"."""
    if not os.path.lexists(path):
        return None
    if path.is_symlink() or not path.is_file():
        return "foreign"
    key = canonical(path)
    known = record.output_hashes(str(key))
    try:
        content = sha256_file(path)
    except OSError:  # a file speechproc cannot even read is not one it may replace
        return "edited" if known else "foreign"
    if content in known or _adopt_intended(key, content, record):
        return None
    if known:
        return "edited"
    media_id = _written_by_older_version(key, record)
    if media_id is None:
        return "foreign"
    record.record_output(str(key), content, media_id)  # adopted: from now on the record decides
    return None


def _adopt_intended(key: Path, content: str, record: OutputRecord) -> bool:
    """Whether an intent says speechproc put exactly this content at `key` (its record lost with the process
    that would have made it); then it is adopted into the record."""
    intent = intents.matching(key, content)
    if intent is None:
        return False
    record.record_output(str(key), content, intent.media_id)
    if record.durable:
        intents.settle(key, content)
    return True


def _written_by_older_version(path: Path, record: OutputRecord) -> str | None:
    """The media item listing `path` (canonical) among its outputs, as the module docstring says, or None."""
    for media_id, outputs in record.media_with_output_named(path.name):
        for listed in outputs.values():
            if Path(listed).is_absolute():
                if canonical(Path(listed)) == path:
                    return media_id
            elif _relative_match(path, Path(os.path.normpath(listed)), media_id, outputs):
                return media_id
    return None


def _relative_match(path: Path, listed: Path, media_id: str, outputs: dict[str, str]) -> bool:
    n = len(listed.parts)
    if ".." in listed.parts or path.parts[-n:] != listed.parts or "json" not in outputs:
        return False
    base = Path(*path.parts[:-n])
    try:
        item = json.loads((base / os.path.normpath(outputs["json"])).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(item, dict) and item.get("mediaId") == media_id
