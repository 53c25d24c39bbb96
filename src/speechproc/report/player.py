"""Which recording a call report plays, and its address relative to the report.

The player only ever points at a regular media file, and an item whose audio was redacted plays only a
redacted copy, or nothing: a report must not play what redaction removed.
"""
from __future__ import annotations

import glob
import os
import urllib.parse
from pathlib import Path

from speechproc.formats import JSON_SUFFIX
from speechproc.media import MEDIA_EXTENSIONS
from speechproc.results import MediaItem


def recording_streams(item: MediaItem) -> dict[str, Path]:
    """The item's recordings that are local files: stream name -> path (original, redacted-audio). The
    item is a readable one (see `speechproc.results.reading.readable`), as for every function here."""
    out = {}
    for stream in item.get("streams", []):
        location = stream.get("streamLocation")
        if isinstance(location, str) and location.startswith("file://"):
            out[str(stream.get("streamName"))] = Path(urllib.parse.unquote(urllib.parse.urlparse(location).path,
                                                                            errors="surrogateescape"))
    return out


def _is_file(path: Path | None) -> bool:
    """Whether `path` is a regular file (a name too long, or a folder that cannot be read: no)."""
    try:
        return path is not None and path.is_file()
    except (OSError, ValueError):
        return False


def _is_recording(path: Path | None) -> bool:
    """A regular file with a media extension: the only kind of file a report's player may point at."""
    return path is not None and path.suffix.lower() in MEDIA_EXTENSIONS and _is_file(path)


def audio_address(recording: Path | None, report: Path) -> str | None:
    """The recording's address relative to the report's folder, when it is a media file there and that
    folder can reach it by a relative path (None otherwise: no player)."""
    if recording is None or not _is_recording(recording):
        return None
    try:
        relative = os.path.relpath(os.path.abspath(recording), os.path.abspath(report.parent))
    except ValueError:  # another drive
        return None
    return urllib.parse.quote(os.fsencode(relative.replace(os.sep, "/")), safe="/")


def is_redacted(item: MediaItem) -> bool:
    """Whether the item's audio was redacted (it has a redacted-audio stream)."""
    return any(s.get("streamName") == "redacted-audio" for s in item.get("streams", []))


def choose_recording(item: MediaItem, source: Path | None, beside: Path | None = None,
                     redacted_audio: bool = False) -> tuple[Path | None, bool]:
    """The recording to play, and whether it is the redacted copy. An item whose audio was redacted (it
    says so, `redacted_audio` says so, or a `NAME.redacted.*` lies beside its `.v3.json`) plays only a
    redacted copy, as the report must not play what redaction removed: its redacted-audio stream, else
    that copy beside its `.v3.json` (`beside`); with neither, nothing. Any other item plays `source`,
    else its original stream, else a recording named after its `.v3.json` beside it."""
    streams = recording_streams(item)
    found = _beside(beside)
    if redacted_audio or is_redacted(item) or "redacted" in found:
        for candidate in (streams.get("redacted-audio"), found.get("redacted")):
            if _is_recording(candidate):
                return candidate, True
        return None, False
    for candidate in (source, streams.get("original"), found.get("original")):
        if _is_recording(candidate):
            return candidate, False
    return None, False


def _beside(json_file: Path | None) -> dict[str, Path]:
    """Recordings named after a `.v3.json` in its folder: {"original": NAME.wav, "redacted": NAME.redacted.wav}."""
    if json_file is None or not json_file.name.endswith(JSON_SUFFIX):
        return {}
    stem = json_file.name[: -len(JSON_SUFFIX)]
    found: dict[str, Path] = {}
    try:
        candidates = sorted(json_file.parent.glob(glob.escape(stem) + ".*"))
    except (OSError, ValueError):
        return {}
    for candidate in candidates:
        rest = candidate.name[len(stem):]
        kind = "redacted" if rest.startswith(".redacted.") else "original" if rest.count(".") == 1 else None
        if kind and _is_recording(candidate):
            found.setdefault(kind, candidate)
    return found
