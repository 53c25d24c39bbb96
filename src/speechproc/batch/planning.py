"""Planning a batch: the inputs under the paths given (folders walked, URLs parsed), the output files of each,
and `new_job`, the one way a `Job` is made."""
from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from speechproc import errors as E
from speechproc.batch.jobs import Job
from speechproc.batch.reuse import url_key
from speechproc.config.settings import Settings
from speechproc.conversation import MediaFacts, RecognizedWord
from speechproc.errors import ErrorBody, body_of
from speechproc.formats import INSIGHTS_SUFFIX, JSON_SUFFIX, REPORT_SUFFIX, RTTM_SUFFIX, TEXT_FORMATS, get_writer
from speechproc.media import MEDIA_EXTENSIONS
from speechproc.paths import absolute, shown
from speechproc.stages.options import Options
from speechproc.urls import Remote, looks_like_url, parse

URL_TAG_CHARS = 8  # hexadecimal digits of a URL's keyed hash in its outputs' names


@dataclass
class Input:
    path: Path  # absolute once `process` has it; a URL's: its file name (`call.wav`), which its outputs take
    root: Path | None = None  # the folder named on the command line, for mirroring under --out
    remote: Remote | None = None  # a recording fetched from an http(s) URL (its outputs go under --out)

    @property
    def key(self) -> Path | str:
        """What tells this input from the others: its path, or a URL's whole text (never shown)."""
        return self.remote.whole if self.remote is not None else self.path

    @property
    def identity(self) -> str:
        """The input as the catalog and the summary keep it: its exact path, or a URL's public form."""
        return self.remote.public if self.remote is not None else os.fspath(self.path)

    @property
    def shown(self) -> str:
        """The input as messages show it: a URL without its secrets (`paths.shown` for a file)."""
        return shown(self.identity)

    @property
    def shown_name(self) -> str:
        """Its file name as messages show it (a URL's: the name its outputs take)."""
        return shown(self.path.name)


def is_redacted_copy(path: Path) -> bool:
    """A redacted copy written by an earlier run (`call.redacted.flac`): not picked up when walking folders."""
    return Path(path.stem).suffix == ".redacted"


def own_name(remote: Remote) -> str:
    """The file name a URL's outputs take: its path's last segment, with a tag of the whole URL's keyed hash
    when a query string (or user information) tells it from other URLs of that path (`download?id=1` and
    `download?id=2` become `download-1f3e...` and `download-9ab0...`), so that one URL's outputs never
    take the place of another's in a later run; the tag is the same on every run for the same URL."""
    parts = urlsplit(remote.url)
    if not (parts.query or parts.username or parts.password):
        return remote.name
    stem, dot, suffix = remote.name.rpartition(".")
    tag = url_key(remote)[:URL_TAG_CHARS]
    return f"{stem}-{tag}{dot}{suffix}" if dot and stem else f"{remote.name}-{tag}"


def discover(paths: list[str | Path],
             note: Callable[[str], None] | None = None) -> tuple[list[Input], list[ErrorBody]]:
    """Media files under the given paths (folders walked recursively, by extension), and problems found.

    An http(s) URL (a str, `urls.looks_like_url`) is an input of its own, parsed here (ConfigurationError
    10204 when it is malformed). A path that is not a folder is an input whatever it is (a missing file
    becomes a failed item). Symbolic links met while walking a folder are not followed: each one named
    like media, or pointing to a folder, is passed to `note` as skipped. A link named among `paths` is
    followed."""
    inputs: list[Input] = []
    problems: list[ErrorBody] = []
    for raw in paths:
        if isinstance(raw, str) and looks_like_url(raw):
            remote = parse(raw)
            inputs.append(Input(Path(own_name(remote)), remote=remote))
            continue
        path = Path(raw)
        if not path.is_dir():
            inputs.append(Input(path))
            continue
        found = [Input(p, path) for p in _walk(path, note or (lambda message: None))]
        if not found:
            problems.append(body_of(E.SpeechprocError(E.NO_MEDIA, f"{shown(path)}: no media files found in this folder")))
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


def output_paths(inputs: list[Input], out_dir: Path | None, report: bool = False,
                 insights: bool = False, rttm: bool = False) -> dict[Path | str, dict[str, Path]]:
    """Output file per format for every input; `call.wav` -> `call.v3.json`, `call.srt`, ... (and with
    `report`, the HTML call report `call.report.html`; with `insights`, `call.insights.txt`; with `rttm`,
    who spoke when, `call.rttm`).

    Beside the input, or under `out_dir` mirroring the tree below each folder argument; a URL's under
    `out_dir`, named after the last segment of its path. No two inputs ever share an output file (the
    same file or URL given twice counts once):
    - two inputs that would share names in one folder (call.wav and call.mp3) keep their extension
      (`call.wav.srt`);
    - with `out_dir`, when files of two folder arguments would land on the same name, every folder
      argument is mirrored under its own folder name instead (`DIR/d1/a.srt`, `DIR/d2/a.srt`);
    - a clash that remains (files of one name given directly, folders of one name) gives every input
      after the first, in argument order, a numeric suffix (`a-2.srt`, `a-3.srt`).
    """
    def folder(inp: Input, own_root: bool) -> Path:
        if inp.remote is not None:
            assert out_dir is not None, "a URL's outputs go under --out"
            return out_dir
        if out_dir is None:
            return inp.path.parent
        if inp.root is None:
            return out_dir
        below = inp.path.relative_to(inp.root).parent
        return out_dir / inp.root.resolve().name / below if own_root else out_dir / below

    def names(inp: Input, place: Path, base: str) -> dict[str, Path]:
        plain = {"json": base + JSON_SUFFIX, **{f: base + get_writer(f).extension for f in TEXT_FORMATS}}
        if report:
            plain["report"] = base + REPORT_SUFFIX
        if insights:
            plain["insights"] = base + INSIGHTS_SUFFIX
        if rttm:
            plain["rttm"] = base + RTTM_SUFFIX
        if any(place / n == inp.path for n in plain.values()):  # never overwrite the input itself
            long_suffixes = {"json": JSON_SUFFIX, "report": REPORT_SUFFIX, "insights": INSIGHTS_SUFFIX}
            plain = {k: inp.path.name + long_suffixes.get(k, Path(n).suffix) for k, n in plain.items()}
        return {k: place / n for k, n in plain.items()}

    def plan(own_root: bool) -> tuple[dict[Path | str, dict[str, Path]], bool]:
        """The outputs, and whether files of two different folder arguments clashed."""
        same = {inp.key: inp.key if inp.remote else inp.path.resolve() for inp in inputs}
        stems: dict[tuple[Path, str], set[str]] = {}  # file names that would share a stem in one folder
        for inp in inputs:
            stems.setdefault((folder(inp, own_root), inp.path.stem), set()).add(inp.path.name)
        result: dict[Path | str, dict[str, Path]] = {}
        owners: dict[Path, Input] = {}  # absolute output path -> the input it is planned for
        done: dict[Path | str, dict[str, Path]] = {}  # resolved input (a URL's text) -> its outputs
        across = False
        for inp in inputs:
            if same[inp.key] in done:
                result[inp.key] = done[same[inp.key]]
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
            result[inp.key] = done[same[inp.key]] = planned
        return result, across

    result, across = plan(own_root=False)
    return plan(own_root=True)[0] if across else result


def out_folder(out_dir: str | Path | None, paths: Sequence[str | Path] = ()) -> Path | None:
    """`--out` made absolute; ConfigurationError when it is empty or names something that is not a folder,
    when one of `paths` is a malformed URL (10204), or when it is missing while one of them is a URL."""
    urls = [parse(p) for p in paths if isinstance(p, str) and looks_like_url(p)]
    if out_dir is None and urls:
        raise E.ConfigurationError(E.INVALID_VALUE, f"--out: required when a recording is a URL ({urls[0].public}): "
                                   "its outputs go under that folder")
    if out_dir is None:
        return None
    if not os.fspath(out_dir).strip():
        raise E.ConfigurationError(E.INVALID_VALUE, "--out: must name a folder (it is empty)")
    out = absolute(out_dir)
    if os.path.lexists(out) and not out.is_dir():
        raise E.ConfigurationError(E.INVALID_VALUE, f"--out: {shown(out)} exists and is not a folder")
    return out


def new_job(item: MediaFacts, settings: Settings, options: Options, *, input: Path, outputs: dict[str, Path],
            content_hash: str | None, config_hash: str, words: tuple[RecognizedWord, ...] | None = None,
            source: str | None = None) -> Job:
    """The one way a `Job` is made, for a batch's input and for an alignment alike: the item's id, date and
    metadata from `item`, what the settings decide (the analytic index entry, encryption, time to live)
    from `settings`. Nothing is planned yet: `runner.plan` adds the redacted-audio place and the ownership
    record of the output places."""
    return Job(media_id=item.media_id, input=input, outputs=outputs, redacted_audio=None, options=options,
               metadata=item.metadata, date_created=item.date_created, content_hash=content_hash,
               config_hash=config_hash, ownership={}, analytic_index=settings.analytic_indexing, words=words,
               time_to_live=settings.time_to_live, encryption=settings.public_key, source=source)


PRIORITY_RANK = {"high": 0, "normal": 1, "low": 2}


def by_priority(items: list[Any], priority_of: Callable[[Any], str]) -> list[Any]:
    """`items` in the order their work starts: high priority first, then normal, then low, each priority
    in the given order (a stable sort; an unknown priority counts as normal)."""
    return sorted(items, key=lambda item: PRIORITY_RANK.get(priority_of(item), 1))


def same_input_as(inp: Input, first_of: dict[Any, Input]) -> Input | None:
    """The input named earlier in this run that is this very file (through a link, or a folder given
    twice) or URL, else None; records this one as the first otherwise."""
    if inp.remote is not None:
        key: Any = inp.key
    else:
        try:
            info = os.stat(inp.path)
        except OSError:
            return None
        key = (info.st_dev, info.st_ino)
    if key in first_of:
        return first_of[key]
    first_of[key] = inp
    return None


def unreadable(path: Path) -> E.SpeechprocError | None:
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
