"""Where state lives, and atomic writes."""
from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import platformdirs


def state_home() -> Path:
    """The state folder: $SPEECHPROC_HOME, else the platform's user data folder."""
    home = os.environ.get("SPEECHPROC_HOME") or platformdirs.user_data_dir("speechproc")
    path = Path(home).expanduser()
    path.mkdir(parents=True, exist_ok=True)
    return path


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write a whole file or nothing: a temporary file beside it, then os.replace."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """A temporary path beside `path` for a writer that wants a file name; renamed to `path` on success."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
