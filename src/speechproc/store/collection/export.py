"""One row per media item of the catalog, for pandas, DuckDB and spreadsheets: CSV, JSON Lines or Parquet.

Columns, in this order (a column appears when at least one exported item has it):
  mediaId, input, status, dateCreated, dateFinished, length (ms), mediaContentType, error
  title, description, externalId, extended.<path>   the item's metadata, nested keys joined by dots
  metric.<name>                                     every metric of every group, a number
  category.<name>                                   1 when the category matched, else 0
  spotted.<group>                                   1 when the keyword group was spotted, else 0
  detections.<detector>                             how many stretches the detector found
  detections.<detector>.<label>                     of them, how many of each kind (PII: name, address, ...)
  detected.<detector>.<label>                       the words the transcript holds there, " | " between
                                                    stretches (with redaction on, the replacement)
  strictness.PII, strictOnly.PII                    the PII detector's mode (balanced | strict), and how many
                                                    of its stretches its strict mode alone found
  classifier.<name>                                 the predicted class label
  insights.reason, insights.outcome, insights.summary, insights.actionItems (how many), insights.answer.<name>
                                                    the call insights: the reason, resolved | unresolved |
                                                    followUp, the summary, the promises, each answer
A value an item does not have is empty (CSV), null (JSON Lines, Parquet).
"""
from __future__ import annotations

import csv
import io
import json
import math
import os
import re
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import TypedDict

from speechproc import errors as E
from speechproc.formats import detected
from speechproc.formats.flat import Cell, flatten
from speechproc.paths import printable
from speechproc.results import DetectorResult, MediaItem
from speechproc.results.reading import as_dict
from speechproc.store.database import EXPORT_OWNER, Catalog, MediaRow
from speechproc.store.files import ownership
from speechproc.store.media_items import using

FORMATS = ("csv", "jsonl", "parquet")
ITEM_COLUMNS = ("mediaId", "input", "status", "dateCreated", "dateFinished", "length", "mediaContentType", "error")
METADATA_COLUMNS = ("title", "description", "externalId", "externalVersion")
GROUP_ORDER = ("extended.", "callDetails.", "metric.", "category.", "spotted.", "detections.", "detected.", "strictness.",
               "strictOnly.", "classifier.")
INSIGHT_COLUMNS = ("insights.reason", "insights.outcome", "insights.summary", "insights.actionItems")
PLAIN_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
INT64 = (-(2**63), 2**63 - 1)
EVERY = 2**62  # the LIMIT of a --query that names none
# a spreadsheet program runs a cell that starts with one of these as a formula
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

Row = dict[str, Cell]  # one exported row: column -> value


class ExportSummary(TypedDict):
    """What `export` did: the format, how many rows and columns, and the file written (None: printed)."""

    format: str
    rows: int
    columns: int
    file: str | None


def _detections(detector: DetectorResult) -> int:
    return sum(len(segment.get("occurrences", [])) for detection in detector.get("detections", [])
               for segment in detection.get("detectedSegments", []))


def _detected(item: MediaItem) -> list[tuple[str, str, list[str]]]:
    """(detector, kind, the words of each stretch) for each kind a detector labels its detections with,
    other than the detector's own name in any case (PCI's are all "PCI", SSN's "ssn")."""
    by_kind: dict[tuple[str, str], list[str]] = {}
    for x in detected.found(item):
        if x.label and x.label.lower() != x.detector.lower():
            by_kind.setdefault((x.detector, x.label), []).append(x.words)
    return [(name, label, said) for (name, label), said in by_kind.items()]


def row(record: MediaRow) -> Row:
    """A catalog record's row: its columns and values (see the module's docstring)."""
    item: MediaItem = record["item"]
    out: Row = {"mediaId": item.get("mediaId", record["media_id"]), "input": printable(record["input_path"]),
                "status": item.get("status", record["status"]), "dateCreated": item.get("dateCreated"),
                "dateFinished": item.get("dateFinished"), "length": item.get("length"),
                "mediaContentType": item.get("mediaContentType")}
    if item.get("errors"):
        out["error"] = "; ".join(str(e.get("error", "")) for e in item["errors"])
    metadata = item.get("metadata") or {}
    for name in METADATA_COLUMNS:
        if name in metadata:
            out[name] = metadata[name]
    for part in ("extended", "callDetails"):
        if isinstance(metadata.get(part), dict):
            flatten(part, metadata[part], out)
    for metric_group in item.get("metrics") or []:
        for metric in metric_group.get("metricValues", []):
            flatten(f"metric.{metric['metricName']}", metric["metricValue"], out)
    for category in item.get("categories") or []:
        out[f"category.{category['categoryName']}"] = int(category["categoryValue"])
    for spotted in as_dict(item.get("spotting")).get("groups", []):
        out[f"spotted.{spotted['groupName']}"] = 1 if spotted.get("spotted") else 0
    prediction = as_dict(item.get("prediction"))
    for detector in prediction.get("detectors", []):
        out[f"detections.{detector['detectorName']}"] = _detections(detector)
        if isinstance(detector.get("strictness"), str):
            out[f"strictness.{detector['detectorName']}"] = detector["strictness"]
            out[f"strictOnly.{detector['detectorName']}"] = sum(
                len(segment.get("occurrences", [])) for detection in detector.get("detections", [])
                if detection.get("strictOnly") is True for segment in detection.get("detectedSegments", []))
    for name, label, said in _detected(item):
        out[f"detections.{name}.{label}"] = len(said)
        out[f"detected.{name}.{label}"] = " | ".join(said)
    for classifier in prediction.get("classifiers", []):
        out[f"classifier.{classifier['classifierName']}"] = classifier.get("predictedClassLabel")
    found = item.get("insights") or {}
    for key, value in (("reason", found.get("reason")), ("outcome", found.get("outcome")),
                       ("summary", found.get("summary"))):
        if key in found:
            out[f"insights.{key}"] = value
    if "actionItems" in found:
        out["insights.actionItems"] = len(found["actionItems"])
    for answer in found.get("answers", []):
        out[f"insights.answer.{answer['name']}"] = answer["answer"]
    return out


def columns(rows: Iterable[Row]) -> list[str]:
    """Every column of the rows: the item's and metadata's in a fixed order, then each group sorted."""
    seen: dict[str, None] = {}
    for r in rows:
        seen.update(dict.fromkeys(r))
    fixed = [c for c in (*ITEM_COLUMNS, *METADATA_COLUMNS) if c in seen]
    grouped = [sorted(c for c in seen if c.startswith(prefix)) for prefix in GROUP_ORDER]
    insights = [c for c in INSIGHT_COLUMNS if c in seen] + sorted(c for c in seen if c.startswith("insights.answer."))
    return fixed + [c for group in grouped for c in group] + insights


def _cell(value: Cell) -> Cell:
    """A CSV cell: numbers as they are; text that a spreadsheet would run as a formula gets a leading '."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    if isinstance(value, float) and not math.isfinite(value):
        return ""
    return value


def header(rows: list[Row]) -> list[str]:
    """The columns written: those of the rows, or the item's first three when there are none."""
    return columns(rows) or list(ITEM_COLUMNS[:3])


def to_csv(rows: list[Row]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=header(rows), lineterminator="\n", extrasaction="raise")
    writer.writeheader()
    for r in rows:
        writer.writerow({k: _cell(v) for k, v in r.items()})
    return out.getvalue()


def _json_value(value: Cell) -> Cell:
    return None if isinstance(value, float) and not math.isfinite(value) else value  # JSON has no NaN


def to_jsonl(rows: list[Row]) -> str:
    names = columns(rows)
    return "".join(json.dumps({c: _json_value(r.get(c)) for c in names}, ensure_ascii=False, allow_nan=False) + "\n"
                   for r in rows)


def write_parquet(rows: list[Row], path: Path) -> None:
    """Parquet with pyarrow: one typed column each (numbers as float64, 0/1 columns as int64, text)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise E.SpeechprocError(E.INVALID_VALUE, "--format parquet needs pyarrow: pip install pyarrow "
                                "(or 'speechproc[export]')", 400) from None
    names = columns(rows)
    arrays = {}
    for name in names:
        values = [_json_value(r.get(name)) for r in rows]  # NaN as null, as in JSON Lines
        kinds = {type(v) for v in values if v is not None}
        too_big = any(isinstance(v, int) and not INT64[0] <= v <= INT64[1] for v in values)
        if kinds <= {int, float} and float in kinds and not too_big:
            values = [float(v) if v is not None else None for v in values]
        elif kinds - {int, float} or too_big:  # text (an integer beyond 64 bits as its digits)
            values = [v if v is None or isinstance(v, str) else json.dumps(v) for v in values]
        arrays[name] = pa.array(values)
    pq.write_table(pa.table(arrays) if names else pa.table({}), path)


def render(rows: list[Row], fmt: str) -> str:
    """The rows as CSV or JSON Lines text."""
    if fmt == "csv":
        return to_csv(rows)
    if fmt == "jsonl":
        return to_jsonl(rows)
    raise ValueError(f"unknown text format {fmt!r}")


def records(catalog: Catalog, query: str | None = None) -> list[MediaRow]:
    """The catalog records to export: every media item, oldest first, or those a `speechproc query`
    statement selects, in its order (only items processed with analytic indexing can match)."""
    if query is None:
        return catalog.media.all()
    from dataclasses import replace

    from speechproc.store.collection import corpus
    from speechproc.store.collection.registry import parse_statement

    statement = parse_statement(query)
    if not statement.limited:  # every match, not the query command's default page of 10
        statement = replace(statement, limit=EVERY)
    found = [catalog.media.get(media_id) for media_id in corpus.selected(statement, catalog)]
    return [r for r in found if r is not None]


def export(fmt: str = "csv", query: str | None = None, output: str | Path | None = None,
           catalog: Catalog | None = None) -> tuple[str | None, ExportSummary]:
    """Export the media items: (the text when there is no `output`, a summary {format, rows, columns,
    file}). A file is written atomically; an existing file is replaced only when an earlier export
    wrote it (never a file of the user's, nor a media item's output), and `speechproc run` never
    replaces an export's file."""
    if fmt not in FORMATS:
        raise E.ConfigurationError(E.INVALID_VALUE, f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if output is not None and os.fspath(output) == "-":
        output = None
    if output is not None and os.fspath(output).endswith(("/", os.sep)):
        raise refuse(Path(output), "names a folder; give a file name")
    if fmt == "parquet" and output is None:
        raise E.ConfigurationError(E.INVALID_VALUE, "--format parquet writes a file: give it with -o FILE")
    with using(catalog) as cat:
        rows = [row(r) for r in records(cat, query)]
        summary: ExportSummary = {"format": fmt, "rows": len(rows),
                                  "columns": len(header(rows) if fmt == "csv" else columns(rows)),
                                  "file": printable(str(output)) if output is not None else None}
        if output is None:
            return render(rows, fmt), summary
        content = (lambda tmp: write_parquet(rows, tmp)) if fmt == "parquet" else render(rows, fmt)
        write_requested(Path(output), content, cat)
    return None, summary


def refuse(path: Path, why: str, option: str | None = "-o") -> E.ConfigurationError:
    """The usage error for an output file that may not be written (exit 2, nothing written); `option`:
    how the file was given (None: it was not, it is the default place)."""
    named = f"{option} {path}" if option else str(path)
    return E.ConfigurationError(E.INVALID_VALUE, printable(f"{named}: {why}; nothing was written"))


class _ExportRecord:
    """The output record as exports see it (an `ownership.OutputRecord`): only what an earlier export
    wrote may be replaced, and what this one writes is recorded as an export's."""

    durable = True  # it records into the catalog as it goes

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    def output_hashes(self, path: str) -> set[str]:
        return self.catalog.written.export_hashes(path)

    def record_output(self, path: str, sha256: str, media_id: str | None) -> None:
        self.catalog.written.record_output(path, sha256, EXPORT_OWNER)

    def forget_other_outputs(self, path: str, sha256: str) -> None:
        self.catalog.written.forget_other_outputs(path, sha256)

    def media_with_output_named(self, name: str) -> list[tuple[str, dict[str, str]]]:
        return []  # no file of an older version is an export's


class _OwnReportRecord(_ExportRecord):
    """The output record as a media item's own report sees it: what speechproc wrote there for any item,
    or as an export or report, may be replaced; what this writes is recorded as the item's output."""

    def output_hashes(self, path: str) -> set[str]:
        return self.catalog.written.output_hashes(path) | self.catalog.written.export_hashes(path)

    def record_output(self, path: str, sha256: str, media_id: str | None) -> None:
        self.catalog.written.record_output(path, sha256, media_id)


def write_requested(path: Path, content: str | Callable[[Path], None], catalog: Catalog,
                    own_media: str | None = None, replaces: Collection[str] = (), option: str | None = "-o") -> None:
    """Write a file a command was asked for (an export, a report) atomically, where only such a file
    written before may be replaced. With `own_media`, the file is that media item's own output (its
    report beside its .v3.json): what speechproc wrote there for it, or for the items in `replaces`,
    may be replaced, never another item's output. `option` names how the file was given, in errors."""
    if path.name in ("", ".", ".."):
        raise refuse(path, "names a folder; give a file name", option)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        owner = catalog.written.output_media(str(ownership.canonical(path)))
        if owner is not None and owner != own_media and owner not in replaces:
            raise refuse(path, f"is an output of media item {owner}; write to another file", option)
        if own_media is not None:
            ownership.write(path, content, _OwnReportRecord(catalog), own_media)
        else:
            ownership.write(path, content, _ExportRecord(catalog), None)
    except ownership.OutputConflict:
        raise refuse(path, "already exists and was not written by speechproc export or report (or was changed "
                            "since); move it away or write to another file", option) from None
    except OSError as exc:
        raise refuse(path, f"cannot be written ({exc.strerror or exc})", option) from None
