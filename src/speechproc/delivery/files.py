"""The file transport: a callback written into speechproc.callbackFileFolder, never over a file that is
not the same delivery's, never through a link."""
from __future__ import annotations

import errno
import hashlib
import os
import secrets
import stat
from contextlib import suppress
from pathlib import Path

from speechproc.delivery.deliveries import QueuedDelivery
from speechproc.delivery.destinations import Destination, Refused

SUFFIXES = {"application/pgp-encrypted": ".gpg",
            "application/json": ".json", "text/plain": ".txt", "text/srt": ".srt", "application/ttaf+xml": ".dfxp",
            "text/vtt": ".vtt"}
_NO_HARD_LINKS = {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.ENOSYS}


def write_file(dest: Destination, delivery: QueuedDelivery, body: bytes) -> str | None:
    """Write the body as a new file under the folder; None on success, else what went wrong.

    Every folder under the configured one is opened without following links; the file is written
    whole under a temporary name and then linked to its name, which fails when the name exists. An
    existing file is never replaced: when it holds exactly this body (this delivery's own earlier
    write, cut off before it was recorded) the attempt succeeds, otherwise it fails."""
    try:
        folder, name, shown = _open_target(dest, delivery)
    except Refused as exc:
        return f"refused: {exc}"
    except OSError as exc:
        return f"cannot write: {exc}"
    try:
        return _write_new(folder, name, shown, body, delivery["id"])
    except OSError as exc:
        return f"cannot write {shown}: {exc}"
    finally:
        os.close(folder)


def _kind(name: str, folder: int) -> str:
    try:
        mode = os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return "missing"
    return "link" if stat.S_ISLNK(mode) else "folder" if stat.S_ISDIR(mode) else "other"


def _enter(folder: int, name: str, shown: str) -> tuple[int, str]:
    """Open the folder `name` inside `folder` (made when missing) without following a link; close `folder`."""
    if _kind(name, folder) == "missing":
        with suppress(FileExistsError):
            os.mkdir(name, dir_fd=folder)
    kind = _kind(name, folder)
    if kind != "folder":
        raise Refused(f"{shown} is {'a symbolic link' if kind == 'link' else 'not a folder'}")
    inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
    os.close(folder)
    return inner, shown


def _open_target(dest: Destination, delivery: QueuedDelivery) -> tuple[int, str, str]:
    """The open folder the file goes into, the file's name, and its path for messages."""
    names = list(dest.names)
    last = None if dest.into_folder else names.pop()
    # the configured folder itself is opened as named (a link there is the local configuration's choice)
    folder = os.open(dest.folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    shown = dest.folder
    try:
        for name in names:
            folder, shown = _enter(folder, name, f"{shown}/{name}")
        if last is not None and _kind(last, folder) == "folder":  # file:///folder/sub naming a folder
            folder, shown = _enter(folder, last, f"{shown}/{last}")
            last = None
        name = last or _file_name(delivery)
        return folder, name, f"{shown}/{name}"
    except BaseException:
        os.close(folder)
        raise


def _file_name(delivery: QueuedDelivery) -> str:
    suffix = SUFFIXES.get(delivery["contentType"], Path(delivery.get("bodyPath") or "").suffix or ".bin")
    name = f"{delivery['mediaId']}-{delivery['type']}-{delivery['position']}{suffix}"
    if "/" in name or name.startswith("."):
        raise Refused(f"{name!r} is not a plain file name")
    return name


def _write_new(folder: int, name: str, shown: str, body: bytes, delivery_id: str) -> str | None:
    """Create `name` holding `body` (None), never over an existing file (then why not)."""
    prefix = f".speechproc-{hashlib.sha256(delivery_id.encode()).hexdigest()[:32]}"
    for left in os.listdir(folder):  # left by attempts of this delivery that were cut off
        if left.startswith(prefix) and left.endswith(".tmp"):
            with suppress(FileNotFoundError):
                os.unlink(left, dir_fd=folder)
    # a random part: two runs sending the same delivery (after its lease ran out) never share one
    temporary = f"{prefix}-{secrets.token_hex(4)}.tmp"
    _create(folder, temporary, body)
    try:
        try:
            os.link(temporary, name, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False)
        except OSError as exc:
            if exc.errno not in _NO_HARD_LINKS:
                raise
            _create(folder, name, body)  # no hard links here: written in place, still only as a new file
        os.fsync(folder)
        return None
    except FileExistsError:
        if _holds(folder, name, body):
            return None
        what = "a symbolic link" if _kind(name, folder) == "link" else "with other content"
        return f"refused: {shown} exists ({what}); file callbacks never replace a file"
    finally:
        with suppress(FileNotFoundError):
            os.unlink(temporary, dir_fd=folder)


def _create(folder: int, name: str, body: bytes) -> None:
    """A new file `name` in `folder` holding `body`, flushed to disk; FileExistsError if the name exists."""
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=folder)
    with os.fdopen(fd, "wb") as f:
        f.write(body)
        f.flush()
        os.fsync(f.fileno())


def _holds(folder: int, name: str, body: bytes) -> bool:
    """Whether `name` is a plain file (not a link) holding exactly `body`."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder)
    except OSError:
        return False
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        return stat.S_ISREG(info.st_mode) and info.st_size == len(body) and f.read(len(body) + 1) == body
