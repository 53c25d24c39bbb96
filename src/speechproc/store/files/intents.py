"""Intents: the durable trace of an output that a process without the catalog is about to put in place.

A worker process or a Ray actor writes outputs while only the main process writes the catalog: it tells the
main process of each file just before the rename (`JobEvents.output`), and the main process records it. If
the main process dies in between, that record is lost, and the next run would take the file for one
speechproc did not write and refuse to replace it. So such a writer first leaves an intent beside the file,
flushed to disk before the rename: `.NAME.<16 hex digits of its SHA-256>.speechproc-intent`, a small JSON file
holding the output's path, the SHA-256 of its content and the media id. Beside the output, so that it is on
the storage every node of a Ray cluster sees, like the output itself.

- Once the main process has recorded the file in the catalog, the intent has done its work: it is removed
  (`settle`).
- When the next run finds a file the catalog does not know, an intent for that path with the file's exact
  SHA-256 makes it speechproc's own (`matching`): it is adopted into the catalog's record, and then
  replaced like any output of speechproc's. A file whose content matches no intent stays protected.
- An intent whose writer is gone (its process, on this host) and whose file does not hold its content
  (never renamed, or written again since) is removed when a run next writes to that folder (`sweep`), and
  so is one whose output the catalog records already (a main process killed between recording the file
  and removing its intent).
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from speechproc.paths import HOST_TAG, atomic_write, process_mark, sha256_file

SUFFIX = ".speechproc-intent"
MAX_INTENT_BYTES = 64 * 1024  # an intent is a path and two hashes: anything larger is not one
_NAME = re.compile(r"^\.(?P<name>.*)\.(?P<digest>[0-9a-f]{16})" + re.escape(SUFFIX) + "$")


@dataclass(frozen=True)
class Intent:
    """One output a writer was about to put in place."""

    path: Path  # the output, canonical (as the record of written files keys it)
    sha256: str
    media_id: str | None
    host: str  # `paths.HOST_TAG` of the writer's host
    pid: int
    file: Path  # the intent itself


def intent_file(path: Path, sha256: str) -> Path:
    """Where the intent of `sha256` content at `path` is kept (beside it, hidden; the name cut to 150 bytes)."""
    return path.parent / f".{os.fsdecode(os.fsencode(path.name)[:150])}.{sha256[:16]}{SUFFIX}"


def declare(path: Path, sha256: str, media_id: str | None) -> Path:
    """Leave the intent of writing `sha256` content at `path` (canonical), on disk before this returns."""
    body = {"path": os.fsdecode(path), "sha256": sha256, "mediaId": media_id, "host": HOST_TAG, "pid": os.getpid()}
    target = intent_file(path, sha256)
    atomic_write(target, json.dumps(body) + "\n")
    _sync_folder(path.parent)
    return target


def settle(path: Path, sha256: str) -> None:
    """The file at `path` is recorded in the catalog: its intent (if there is one) goes."""
    try:
        intent_file(path, sha256).unlink(missing_ok=True)
    except OSError:  # a read-only folder, a vanished mount: the intent stays harmless
        pass


def read(file: Path) -> Intent | None:
    """The intent in `file`; None for anything that is not one (left alone)."""
    try:
        if file.is_symlink() or not file.is_file() or file.stat().st_size > MAX_INTENT_BYTES:
            return None
        body = json.loads(file.read_text(encoding="utf-8"))
        path, sha256 = Path(body["path"]), str(body["sha256"])
        media_id, host, pid = body.get("mediaId"), str(body["host"]), int(body["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if len(sha256) != 64 or intent_file(path, sha256).name != file.name or path.parent != file.parent:
        return None  # not one speechproc wrote for a file of this folder
    return Intent(path, sha256, media_id if isinstance(media_id, str) else None, host, pid, file)


def matching(path: Path, content_sha256: str) -> Intent | None:
    """The intent that makes the file at `path` (canonical), whose content has this SHA-256, speechproc's."""
    found = read(intent_file(path, content_sha256))
    return found if found is not None and found.path == path and found.sha256 == content_sha256 else None


def sweep(folder: Path, recorded: Callable[[Path, str], bool] | None = None) -> list[Path]:
    """Remove the intents in `folder` that have done their work or can never be adopted: those whose output
    and content `recorded(path, sha256)` says the catalog has, and those whose writer (on this host) is gone
    and whose file does not hold their content. Other intents of live writers, and of other hosts, stay."""
    removed: list[Path] = []
    try:
        entries = [Path(e.path) for e in os.scandir(folder) if e.name.endswith(SUFFIX) and _NAME.match(e.name)]
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return removed
    for file in entries:
        intent = read(file)
        if intent is not None and recorded is not None and recorded(intent.path, intent.sha256):
            file.unlink(missing_ok=True)
            removed.append(file)
            continue
        if intent is None or intent.host != HOST_TAG or (intent.pid == os.getpid() or process_mark(intent.pid) is not None):
            continue
        try:
            holds = intent.path.is_file() and not intent.path.is_symlink() and sha256_file(intent.path) == intent.sha256
        except OSError:
            holds = False
        if not holds:
            file.unlink(missing_ok=True)
            removed.append(file)
    return removed


def _sync_folder(folder: Path) -> None:
    """Flush a folder's entries to disk (the intent's rename), where the system allows it."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
