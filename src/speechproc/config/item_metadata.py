"""Each recording's own metadata: the run's `--metadata` default, a `--metadata-csv` manifest row (as phone
systems export one row per call), then a sidecar file beside the recording (`call.meta.json`, `.yaml` or
`.yml` for `call.wav`), later ones overriding earlier ones key by key (`extended` merged key by key, at
every depth). Everything is read and validated before any audio is: an error names the file (and the
manifest's line) and nothing is processed.

A recording fetched from a URL is known by its whole URL (`urls.Remote.whole`): a manifest row whose
`file` cell is that URL gives its metadata (it has no sidecar). Messages show a URL without its secrets.
"""
from __future__ import annotations

import csv
import io
import os
from pathlib import Path

from speechproc import errors as E
from speechproc.config import v3 as config
from speechproc.config.documents_io import read_bounded
from speechproc.paths import printable, shown
from speechproc.results import JsonObject
from speechproc.urls import looks_like_url, parse, without_secrets

Recording = Path | str  # a file (its real path, as manifests match it), or a URL's whole text

SIDECAR_SUFFIXES = (".meta.json", ".meta.yaml", ".meta.yml")
MANIFEST_COLUMNS = ("title", "description", "externalId", "externalVersion")
MAX_MANIFEST_BYTES = 64 * 2**20
MAX_MANIFEST_ROWS = 1_000_000


def _refused(where: str, why: str) -> E.ConfigurationError:
    return E.ConfigurationError(E.METADATA_NOT_PARSEABLE, printable(f"{where}: {why}"))


def merged(base: JsonObject, over: JsonObject) -> JsonObject:
    """`over` on top of `base`: its keys replace `base`'s, but `extended` objects merge at every depth."""
    out = dict(base)
    for key, value in over.items():
        if key == "extended" and isinstance(out.get(key), dict) and isinstance(value, dict):
            out[key] = _deep(out[key], value)
        else:
            out[key] = value
    return out


def _deep(base: JsonObject, over: JsonObject) -> JsonObject:
    out = dict(base)
    for key, value in over.items():
        out[key] = _deep(out[key], value) if isinstance(out.get(key), dict) and isinstance(value, dict) else value
    return out


# ------------------------------------------------------------------------------------------ sidecars

def sidecar(recording: Path) -> Path | None:
    """The metadata file beside a recording (`call.meta.json` for `call.wav`), if there is one; two of
    them (`.json` and `.yaml`) for one recording are an error."""
    stem = recording.name[: -len(recording.suffix)] if recording.suffix else recording.name
    found = [recording.with_name(stem + suffix) for suffix in SIDECAR_SUFFIXES
             if os.path.lexists(recording.with_name(stem + suffix))]
    if len(found) > 1:
        raise _refused(str(recording), "more than one metadata file beside it (" +
                       ", ".join(p.name for p in found) + "); keep one")
    return found[0] if found else None


def read_sidecar(path: Path) -> JsonObject:
    """A validated sidecar metadata object; ConfigurationError naming the file. A sidecar is a regular
    file (a pipe or a device is refused at once: nothing should wait on a writer)."""
    try:
        try:
            regular = path.is_file()
        except OSError as exc:
            raise _refused(str(path), f"cannot be read ({exc.strerror or exc})") from None
        if not regular:
            raise _refused(str(path), "not a regular file")
        raw = config.read_metadata_document(path)
        return config.validate_metadata(raw if raw is not None else {})
    except E.ConfigurationError as exc:
        message = exc.message if exc.message.startswith(str(path)) else f"{path}: {exc.message}"
        raise E.ConfigurationError(exc.code, printable(message)) from None


# ------------------------------------------------------------------------------------------ manifests

def _cell_path(column: str) -> tuple[str, ...]:
    parts = tuple(column.split("."))
    if parts[0] != "extended" or len(parts) < 2 or not all(p.strip() for p in parts[1:]):
        raise ValueError(column)
    return parts[1:]


def _header(path: Path, names: list[str] | None) -> list[str]:
    if not names:
        raise _refused(str(path), "empty: the first line names the columns (file, title, description, "
                                  "externalId, extended.NAME)")
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise _refused(f"{path}, line 1", f"column {name!r} appears twice")
        seen.add(name)
        if name == "file" or name in MANIFEST_COLUMNS:
            continue
        try:
            _cell_path(name)
        except ValueError:
            raise _refused(f"{path}, line 1", f"unknown column {name!r}: the columns are file, " +
                           ", ".join(MANIFEST_COLUMNS) + " and extended.NAME (dots for nested names)") from None
    if "file" not in seen:
        raise _refused(f"{path}, line 1", "no 'file' column: it names each recording (relative to the "
                                          "manifest's folder, or absolute)")
    return names


def _row_metadata(row: dict[str, str], where: str) -> JsonObject:
    metadata: JsonObject = {}
    for column, value in row.items():
        if column == "file" or value is None or value == "":
            continue
        if column in MANIFEST_COLUMNS:
            metadata[column] = value
            continue
        node = metadata.setdefault("extended", {})
        *parents, leaf = _cell_path(column)
        for name in parents:
            node = node.setdefault(name, {})
            if not isinstance(node, dict):
                raise _refused(where, f"column {column!r} nests under a value another column gives")
        if isinstance(node.get(leaf), dict):
            raise _refused(where, f"column {column!r} is a value and a group of other columns at once")
        node[leaf] = value
    try:
        return config.validate_metadata(metadata)
    except E.ConfigurationError as exc:
        raise E.ConfigurationError(exc.code, printable(f"{where}: {exc.message}")) from None


def read_manifest(path: Path) -> dict[Recording, JsonObject]:
    """Metadata per recording (its real path, or a URL's whole text) from a CSV manifest; each row's
    metadata validated. ConfigurationError names the file and line of the first problem (10204 for a
    malformed URL)."""
    try:
        data = read_bounded(path, E.METADATA_NOT_PARSEABLE, MAX_MANIFEST_BYTES)
    except OSError as exc:
        raise _refused(str(path), f"cannot be read ({exc.strerror or exc})") from None
    if len(data) > MAX_MANIFEST_BYTES:
        raise _refused(str(path), f"larger than {MAX_MANIFEST_BYTES // 2**20} MiB")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise _refused(f"{path}, line {line}", "not UTF-8 text") from None
    if "\x00" in text:
        raise _refused(f"{path}, line {text[: text.index(chr(0))].count(chr(10)) + 1}", "holds a NUL character")
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    folder = Path(os.path.abspath(path)).parent
    found: dict[Recording, JsonObject] = {}
    first_line: dict[Recording, int] = {}
    line, count = 1, 0  # where the row being read starts; rows read
    try:
        names = _header(path, next((cells for cells in reader if cells), None))  # blank lines are no rows
        while True:
            line = reader.line_num + 1
            cells = next(reader, None)
            if cells is None:
                break
            if not cells:
                continue
            count += 1
            where = f"{path}, line {line}"
            if count > MAX_MANIFEST_ROWS:
                raise _refused(where, f"more than {MAX_MANIFEST_ROWS} rows")
            if len(cells) != len(names):
                raise _refused(where, "more cells than columns" if len(cells) > len(names) else "fewer cells than columns")
            row = dict(zip(names, cells))
            name = row["file"].strip()
            if not name:
                raise _refused(where, "the 'file' cell is empty")
            recording = _url_cell(name, where) if looks_like_url(name) else _key(folder / name)
            if recording in found:
                again = without_secrets(name) if isinstance(recording, str) else name
                raise _refused(where, f"{again} is named again (first on line {first_line[recording]})")
            found[recording], first_line[recording] = _row_metadata(row, where), line
    except csv.Error as exc:
        raise _refused(f"{path}, line {line}", f"not valid CSV ({exc})") from None
    return found


def _url_cell(cell: str, where: str) -> str:
    try:
        return parse(cell).whole
    except E.ConfigurationError as exc:
        raise E.ConfigurationError(exc.code, printable(f"{where}: {exc.message}")) from None


def _key(recording: Path) -> Path:
    """A recording as manifests are matched: its real path, so that two spellings of one file (`..`, a
    linked folder) are one."""
    return Path(os.path.realpath(recording))


# ------------------------------------------------------------------------------------------ per item

def _match(recording: Recording) -> Recording:
    return recording if isinstance(recording, str) else _key(recording)


def for_inputs(recordings: list[Recording], default: JsonObject,
               manifest: dict[Recording, JsonObject] | None = None) -> dict[Recording, JsonObject]:
    """Every recording's metadata: the default, its manifest row, its sidecar (a file's), in that order."""
    manifest = manifest or {}
    out: dict[Recording, JsonObject] = {}
    for recording in recordings:
        metadata = merged(default, manifest.get(_match(recording), {}))
        side = sidecar(recording) if isinstance(recording, Path) else None
        if side is not None:
            metadata = merged(metadata, read_sidecar(side))
        out[recording] = metadata
    return out


def unmatched(recordings: list[Recording], manifest: dict[Recording, JsonObject]) -> list[Recording]:
    """Manifest rows that name no recording of the run (a note, not an error: an export covers more)."""
    wanted = {_match(r) for r in recordings}
    return [p for p in manifest if p not in wanted]


def shown_recording(recording: Recording) -> str:
    """A recording as notes name it: a URL without its secrets."""
    return parse(recording).public if isinstance(recording, str) else shown(recording)
