"""Where state lives, and atomic writes whose temporary files a later run can recognise.

A temporary file is named `.NAME.speechproc-HOST-PID-RANDOM.tmp` (HOST: a short hash of the host name), so
that after a crash a later run on the same host can tell it is ours and that its writer is gone.
"""
from __future__ import annotations

import errno
import hashlib
import os
import re
import secrets
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import platformdirs

from speechproc.errors import printable  # noqa: F401  (paths' messages; defined once, with the errors)

_HOST = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]
HOST_TAG = _HOST  # this host in the names of speechproc's files: a hash, so that no host name is written
_TEMPORARY = re.compile(r"\.speechproc-([0-9a-f]{8})-(\d+)-[0-9a-f]{8}\.tmp$")
_NO_HARD_LINKS = {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.ENOSYS, errno.EXDEV}
_live: set[str] = set()  # temporary files this process is writing now
_live_lock = threading.Lock()


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def path_text(raw: bytes) -> str:
    """A path's bytes as valid UTF-8 text, unambiguous and safe on a terminal: a byte that is not UTF-8
    and a control character (a line break, an escape) are written `\\xNN`, a backslash `\\\\`."""
    text = raw.replace(b"\\", b"\\\\").decode("utf-8", "backslashreplace")
    return _CONTROL.sub(lambda m: f"\\x{ord(m[0]):02x}", text)


def shown(path: str | Path) -> str:
    """A path as text for people (the summary, notes, messages): see `path_text`. The catalog keeps the same."""
    return path_text(os.fsencode(os.fspath(path)))


def absolute(path: str | Path) -> Path:
    """The absolute path, `..` and `.` removed by name; symbolic links are kept, not resolved."""
    return Path(os.path.normpath(Path(path).absolute()))


def state_home() -> Path:
    """The state folder: $SPEECHPROC_HOME, else the platform's user data folder.

    Created private (0700: it holds transcripts); an existing folder keeps the permissions it has."""
    home = os.environ.get("SPEECHPROC_HOME") or platformdirs.user_data_dir("speechproc")
    path = Path(home).expanduser()
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def _new_temporary(path: Path) -> Path:
    """Create an empty temporary file beside `path`.

    It is created with mode 0666 like any other new file, so the umask (and a default ACL) of the
    process decides its permissions: the renamed result is as readable as a file the user made."""
    path.parent.mkdir(parents=True, exist_ok=True)
    while True:
        tmp = path.parent / f".{path.name[:150]}.speechproc-{_HOST}-{os.getpid()}-{secrets.token_hex(4)}.tmp"
        with _live_lock:
            try:
                os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            except FileExistsError:
                continue
            _live.add(tmp.name)
            return tmp


@contextmanager
def temporary(path: Path) -> Iterator[Path]:
    """A new temporary file beside `path`; removed on the way out unless it was published."""
    tmp = _new_temporary(path)
    try:
        yield tmp
    finally:
        tmp.unlink(missing_ok=True)
        with _live_lock:
            _live.discard(tmp.name)


def publish(tmp: Path, path: Path, replace: bool = True) -> None:
    """Rename `tmp` to `path`. With replace=False an existing `path` is never replaced (FileExistsError).

    No-replace is a hard link then unlink, atomic on POSIX file systems; where hard links are not
    supported it falls back to a check then a rename, which leaves a short window."""
    if replace:
        os.replace(tmp, path)
        return
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in _NO_HARD_LINKS:
            raise
        if os.path.lexists(path):
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(path)) from None
        os.replace(tmp, path)
        return
    os.unlink(tmp)


def write_bytes(tmp: Path, data: str | bytes) -> None:
    """Fill a temporary file with `data` (str as UTF-8) and flush it to disk."""
    with open(tmp, "wb") as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)
        f.flush()
        os.fsync(f.fileno())


def atomic_write(path: Path, data: str | bytes, replace: bool = True) -> None:
    """Write a whole file or nothing: a temporary file beside it, then a rename (see `publish`)."""
    with temporary(path) as tmp:
        write_bytes(tmp, data)
        publish(tmp, path, replace)


@contextmanager
def atomic_path(path: Path, replace: bool = True) -> Iterator[Path]:
    """A temporary path beside `path` for a writer that wants a file name; renamed to `path` on success."""
    with temporary(path) as tmp:
        yield tmp
        publish(tmp, path, replace)


def remove_stale_temporaries(folder: Path) -> list[Path]:
    """Remove speechproc's temporary files in `folder` whose writer is gone; return them.

    Only files written on this host count: their writer is gone when its process is no longer alive
    (or it is an earlier process with this process's id). Other files are never touched."""
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return removed
    for entry in entries:
        if entry.name.startswith(".") and _is_stale(entry.name):
            try:
                os.unlink(entry.path)
                removed.append(Path(entry.path))
            except FileNotFoundError:
                pass
    return removed


def _is_stale(name: str) -> bool:
    match = _TEMPORARY.search(name)
    if match is None or match[1] != _HOST:
        return False
    pid = int(match[2])
    if pid == os.getpid():
        with _live_lock:
            return name not in _live
    return process_mark(pid) is None


def process_mark(pid: int) -> str | None:
    """What tells process `pid` from a later one given the same pid: boot id and start time (Linux);
    "" where the system does not say; None when there is no such (live) process."""
    boot = Path("/proc/sys/kernel/random/boot_id")
    if boot.exists():
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            return None
        return None if fields[0] in ("Z", "X") else f"{boot.read_text().strip()}:{fields[19]}"
    if os.name == "nt":  # os.kill(pid, 0) would end the process there: take it as alive
        return ""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:  # alive, another user's
        pass
    return ""


def sha256_file(path: Path) -> str:
    """SHA-256 of a file's bytes, streamed in blocks of 1 MiB."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def tree_sha256(folder: Path) -> str:
    """One SHA-256 over a folder's files: each file's path relative to it and its SHA-256, in path order.
    Python's byte-code caches are left out (they depend on the Python that imported the package)."""
    digest = hashlib.sha256()
    files = sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")
    for path in files:
        digest.update(f"{path.relative_to(folder).as_posix()}\0{sha256_file(path)}\n".encode())
    return digest.hexdigest()
