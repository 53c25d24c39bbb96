"""`speechproc report`: find the media item (or items), pick the file, render, write it safely.

A call report of a media id or a `.v3.json` file goes, by default, beside the item's `.v3.json` as
`NAME.report.html` (where `speechproc run --report` puts it, and as that item's own output); with
`-o FILE` anywhere else, under the same rules as an export: never over a file speechproc did not
write, nor over another media item's output. `-o -` prints the page.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TypedDict, cast

from speechproc import errors as E
from speechproc.config.documents_io import parse_document, read_bounded
from speechproc.formats import JSON_SUFFIX, REPORT_SUFFIX, openpgp, rttm
from speechproc.paths import absolute, printable
from speechproc.report import call as call_report
from speechproc.report import corpus as corpus_report
from speechproc.report import player as report_player
from speechproc.results import MediaItem
from speechproc.results.reading import readable
from speechproc.store.collection import records, refuse, searchable, write_requested
from speechproc.store.database import Catalog, MediaRow
from speechproc.store.files import ownership
from speechproc.store.media_items import using

MAX_ITEM_BYTES = 512 * 2**20  # a .v3.json read for a report (a ten-hour call's is about 60 MB)
CORPUS_DEFAULT = "corpus.html"


class _ReportSummaryRequired(TypedDict):
    report: str | None  # the file written; None when the page was printed
    bytes: int
    sections: list[str]  # the ids of its sections


class ReportSummary(_ReportSummaryRequired, total=False):
    """What `call` or `corpus` wrote: a call report has its item's mediaId and the recording its player plays
    (`audio`, relative to the report; None: no player), a corpus report the count of its items."""

    mediaId: str
    audio: str | None
    items: int


def report_path(json_path: Path) -> Path:
    """`call.v3.json` -> `call.report.html` (another `.json` name: its stem, then `.report.html`)."""
    name = json_path.name
    stem = name[: -len(JSON_SUFFIX)] if name.endswith(JSON_SUFFIX) else Path(name).stem if name.endswith(".json") else name
    return json_path.with_name(stem + REPORT_SUFFIX)


def _read_item(path: Path) -> MediaItem:
    """A v3 media item from a JSON file; ConfigurationError naming the file when it is not one. Only its
    being an object with a mediaId or a transcript is checked: a hand-made file may hold anything else,
    which the report reads defensively."""
    shown = printable(str(path))
    try:
        raw = read_bounded(path, E.INVALID_VALUE, MAX_ITEM_BYTES)
    except OSError as exc:
        raise E.ConfigurationError(E.INVALID_VALUE, f"{shown}: cannot be read ({exc.strerror or exc})") from None
    if len(raw) > MAX_ITEM_BYTES:
        raise E.ConfigurationError(E.INVALID_VALUE, f"{shown}: larger than {MAX_ITEM_BYTES >> 20} MiB")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise E.ConfigurationError(E.INVALID_VALUE, f"{shown}: not UTF-8 text") from None
    item = parse_document(text, shown, E.INVALID_VALUE)
    if not isinstance(item, dict) or not ("mediaId" in item or "transcript" in item):
        raise E.ConfigurationError(E.INVALID_VALUE, f"{shown}: not a v3 media item (no mediaId or transcript)")
    return cast(MediaItem, item)


def _target(target: str, catalog: Catalog) -> tuple[MediaItem, MediaRow | None, Path | None]:
    """(the item, its catalog record or None, its .v3.json file or None) for a media id or a file."""
    if not target.strip():
        raise E.ConfigurationError(E.INVALID_VALUE, "the report's target is empty: give a media id or a .v3.json file")
    try:
        looks_like_file = os.path.sep in target or target.endswith(".json") or os.path.lexists(target)
    except (OSError, ValueError):
        looks_like_file = True
    if not looks_like_file:
        record = catalog.media.get(target) if _is_text(target) else None
        if record is None:
            shown = target if len(target) <= 80 else target[:80] + "..."
            raise E.NotFoundError(E.RESOURCE_NOT_FOUND, printable(
                f"media {shown} was not found in the catalog (give a media id or a .v3.json file)"))
        if openpgp.is_encrypted(record["item"]):
            raise _encrypted(target)
        json_output = (record.get("outputs") or {}).get("json")
        return record["item"], record, Path(json_output) if json_output else None
    path = absolute(target)
    try:
        why = None if path.is_file() else "is a folder" if path.is_dir() else (
            "is not a regular file" if os.path.exists(path) else "no such file")
    except OSError as exc:  # a name too long, a folder that cannot be read
        why = f"cannot be read ({exc.strerror or exc})"
    if why is not None:
        raise E.ConfigurationError(E.INVALID_VALUE, printable(f"{target}: {why} (give a media id or a .v3.json file)"))
    item = _read_item(path)
    media_id = item.get("mediaId")
    record = catalog.media.get(media_id) if isinstance(media_id, str) and _is_text(media_id) else None
    return item, record, path


def _is_text(value: str) -> bool:
    """Whether a string is text the catalog can hold (a name read from a non-UTF-8 path is not)."""
    try:
        value.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def call(target: str, output: str | Path | None = None,
         catalog: Catalog | None = None) -> tuple[str | None, ReportSummary]:
    """The call report of a media id or a `.v3.json` file: (the page when `output` is "-", a summary
    {report, mediaId, bytes, sections, audio})."""
    with using(catalog) as cat:
        item, record, json_file = _target(target, cat)
        media_id = str(item.get("mediaId", ""))
        source = Path(record["input_path"]) if record is not None else None
        name = printable(source.name) if source is not None else printable(json_file.name) if json_file else None
        if output is not None and os.fspath(output) == "-":
            html, parts = _build(target, item, None, name, False)
            return html, _summary(None, media_id, html, None, parts)
        if output is None:
            place = report_path(json_file) if json_file is not None else absolute(f"{media_id or 'call'}{REPORT_SUFFIX}")
        else:
            place = absolute(output)
        option = "-o" if output is not None else None
        if os.fspath(output or "").endswith(("/", os.sep)) or _is_dir(place):
            raise refuse(place, "names a folder; give a file name", option)
        # a copy of the item may have lost its streams: the catalog's record still says it was redacted
        was_redacted = record is not None and report_player.is_redacted(readable(record["item"]))
        recording, redacted = report_player.choose_recording(readable(item), source, json_file, was_redacted)
        audio = report_player.audio_address(recording, place)
        html, parts = _build(target, item, audio, name, redacted)
        if record is not None and ownership.canonical(place) in _report_places(record, json_file):
            write_own_report(place, html, record, cat, option)
        elif media_id and ownership.canonical(place) in _report_places(None, json_file):
            write_requested(place, html, cat, media_id, (), option)
        else:
            write_requested(place, html, cat, option=option)
        return None, _summary(place, media_id, html, audio, parts)


def _is_dir(path: Path) -> bool:
    """Whether `path` is a folder (a name too long to ask about is not: writing it then says why)."""
    try:
        return path.is_dir()
    except OSError:
        return False


def _build(target: str, item: MediaItem, audio: str | None, name: str | None,
           redacted: bool) -> tuple[str, list[str]]:
    """The page and its sections; a value of the wrong type where the v3 shape has another is a usage
    error naming the target (a hand-made or damaged .v3.json), not a crash."""
    try:
        return call_report.build(item, audio, name, redacted)
    except (AttributeError, TypeError, ValueError, KeyError, OverflowError) as exc:
        raise E.ConfigurationError(E.INVALID_VALUE, printable(
            f"{target}: not a v3 media item of the expected shape ({type(exc).__name__}: {exc})")) from None


def _earlier_items(place: Path, record: MediaRow, catalog: Catalog) -> set[str]:
    """The earlier media item of the same recording whose report is at `place` (the recording was
    processed again since: a new item, the same report place), which this item's report replaces."""
    owner = catalog.written.output_media(str(ownership.canonical(place)))
    earlier = catalog.media.get(owner) if owner is not None and owner != record["media_id"] else None
    return {owner} if owner is not None and earlier is not None and earlier["input_path"] == record["input_path"] \
        else set()


def write_own_report(place: Path, html: str, record: MediaRow, catalog: Catalog, option: str | None = None) -> None:
    """Write a catalog item's report at its own place (beside its .v3.json), replacing what speechproc
    wrote there for it, for an earlier item of the same recording, or as a report or export; never
    another recording's item's output nor a file of the user's (ConfigurationError, exit 2)."""
    write_requested(place, html, catalog, record["media_id"], _earlier_items(place, record, catalog), option)


def _encrypted(media_id: str) -> E.NotFoundError:
    return E.NotFoundError(E.RESOURCE_NOT_FOUND, f"media {media_id} is encrypted: the catalog keeps none of its "
                           "results (its call report is written, encrypted, when it is processed with --report)")


def report_of_unchanged(row: MediaRow, catalog: Catalog) -> MediaRow:
    """Write the call report of an unchanged (skipped) item from its stored result, beside its .v3.json, as
    its own output; the row with the report among its outputs (as it was, when it has no .v3.json)."""
    if "json" not in row["outputs"]:
        return row
    if openpgp.is_encrypted(row["item"]):  # its report was written encrypted with it, or cannot be now
        if "report" in row["outputs"] and Path(row["outputs"]["report"]).is_file():
            return row
        raise _encrypted(row["media_id"])
    json_file = Path(row["outputs"]["json"])
    place = report_path(json_file)
    page = call_report.page_at(row["item"], place, Path(row["input_path"]), json_file)
    write_own_report(place, page, row, catalog)
    outputs = {**row["outputs"], "report": str(place.absolute())}
    catalog.media.update(row["media_id"], outputs=outputs)
    return {**row, "outputs": outputs}


def rttm_of_unchanged(row: MediaRow, catalog: Catalog) -> MediaRow:
    """Write who spoke when (RTTM) of an unchanged (skipped) item from its stored result, beside its .v3.json, as
    its own output (`formats/rttm.py`); the row with the RTTM among its outputs (as it was, without a .v3.json)."""
    if "json" not in row["outputs"]:
        return row
    if openpgp.is_encrypted(row["item"]):  # its RTTM was written encrypted with it, or cannot be now
        if "rttm" in row["outputs"] and Path(row["outputs"]["rttm"]).is_file():
            return row
        raise E.NotFoundError(E.RESOURCE_NOT_FOUND, f"media {row['media_id']} is encrypted: the catalog keeps none "
                              "of its results (its RTTM is written, encrypted, when it is processed with --rttm)")
    place, file_id = rttm.place_of(Path(row["outputs"]["json"]), row["media_id"])
    write_requested(place, rttm.of_item(row["item"], file_id), catalog, row["media_id"],
                    _earlier_items(place, row, catalog), None)
    outputs = {**row["outputs"], "rttm": str(place.absolute())}
    catalog.media.update(row["media_id"], outputs=outputs)
    return {**row, "outputs": outputs}


def _report_places(record: MediaRow | None, json_file: Path | None) -> set[Path]:
    """Where the item's own call report is (`run --report`'s, or beside its .v3.json): only there is a
    report written as the item's output (so that `run --report` may replace it later); every other
    output of the item stays out of reach."""
    recorded = (record.get("outputs") or {}).get("report") if record is not None else None
    places = [recorded, report_path(json_file) if json_file else None]
    return {ownership.canonical(Path(p)) for p in places if p}


def _summary(place: Path | None, media_id: str, html: str, audio: str | None, parts: list[str]) -> ReportSummary:
    return {"report": printable(str(place)) if place is not None else None, "mediaId": media_id,
            "bytes": len(html.encode("utf-8")), "sections": parts, "audio": audio}


def corpus(query: str | None = None, output: str | Path | None = None, date_field: str | None = None,
           catalog: Catalog | None = None) -> tuple[str | None, ReportSummary]:
    """The corpus report over the catalog, or the items a `speechproc query` statement selects: (the page
    when `output` is "-", a summary {report, items, bytes, sections})."""
    field = corpus_report.check_date_field(date_field if date_field is not None else "dateCreated")
    with using(catalog) as cat:
        chosen = [r for r in records(cat, query) if searchable(r["configuration"])]
        if date_field is not None and chosen and not any(
                corpus_report.parse_date(corpus_report.field_value(r["item"], field)) for r in chosen):
            raise E.ConfigurationError(E.INVALID_VALUE, printable(
                f"--date-field {field}: none of the {len(chosen)} selected items has an ISO 8601 date there"))
        selection = f"selected by: {query}" if query else "every item of the catalog"
        parts = corpus_report.sections(chosen, field, selection)
        html = corpus_report.render(chosen, field, selection, parts)
        summary: ReportSummary = {"report": None, "items": len(chosen), "bytes": len(html.encode("utf-8")),
                                  "sections": [s.id for s in parts]}
        if output is not None and os.fspath(output) == "-":
            return html, summary
        place = absolute(output if output is not None else CORPUS_DEFAULT)
        if os.fspath(output or "").endswith(("/", os.sep)) or _is_dir(place):
            raise refuse(place, "names a folder; give a file name")
        write_requested(place, html, cat)
        summary["report"] = printable(str(place))
    return None, summary

