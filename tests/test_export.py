"""`speechproc export`: one row per media item, read back with pandas and pyarrow."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from conftest import invoke
from speechproc import errors, paths
from speechproc.store.collection import export
from speechproc.store.database.catalog import Catalog


def item(media_id: str, date: str, **sections) -> dict:
    return {"mediaId": media_id, "status": "finished", "dateCreated": date, "dateFinished": date,
            "mediaContentType": "audio/flac", "length": 69595, "metadata": {}, **sections}


CALL = item(
    "00000000-0000-0000-0000-0000000000a1", "2026-01-05T10:00:00.000Z",
    metadata={"title": "Billing call", "externalId": "crm-77", "description": "=HYPERLINK(\"x\")",
              "extended": {"agent": {"id": 7, "name": "Ann"}, "queue": "billing", "tags": ["a", "b"]}},
    metrics=[{"metricGroupName": "talk-time-and-rate",
              "metricValues": [{"metricName": "agent-talk-ratio", "metricValue": 0.62},
                               {"metricName": "silence-ratio", "metricValue": 0.21}]},
             {"metricGroupName": "overtalk", "metricValues": [{"metricName": "overtalk-incidents", "metricValue": 1.0}]}],
    categories=[{"categoryName": "refund", "categoryValue": 1}, {"categoryName": "churn", "categoryValue": 0}],
    spotting={"groups": [{"groupName": "billing", "spotted": True, "score": "0.4439", "spottedKeywords": []},
                         {"groupName": "legal", "spotted": False, "score": "0.0000", "spottedKeywords": []}]},
    prediction={"classifiers": [{"classifierName": "sales", "predictedClassLabel": "yes"}],
                "detectors": [{"detectorName": "PCI", "detections": [
                    {"detectorClass": 1, "detectedSegments": [
                        {"speakerName": "Caller", "occurrences": [{"s": 1, "e": 2}, {"s": 5, "e": 9}]},
                        {"speakerName": "Agent", "occurrences": [{"s": 20, "e": 30}]}]}]}]})
FAILED = {**item("00000000-0000-0000-0000-0000000000a2", "2026-01-06T10:00:00.000Z"), "status": "failed",
          "errors": [{"code": 10202, "error": "not a recording"}], "length": None}
MONO = item("00000000-0000-0000-0000-0000000000a3", "2026-01-04T10:00:00.000Z",
            metadata={"title": "-12", "extended": {"queue": "sales"}},
            metrics=[{"metricGroupName": "talk-time-and-rate",
                      "metricValues": [{"metricName": "silence-ratio", "metricValue": 0.5}]}])


@pytest.fixture()
def catalog(tmp_path: Path) -> Catalog:
    cat = Catalog(tmp_path / "catalog.sqlite3")  # the catalog of SPEECHPROC_HOME=tmp_path
    for one, name in ((CALL, "call.flac"), (FAILED, "broken.mp3"), (MONO, "voicemail \udcff.wav")):
        cat.media.add(one, str(tmp_path / name), None, "cfg", [])
    yield cat
    cat.close()


def expected_row(source: dict, fmt: str = "jsonl") -> dict:
    """What the row of an item must hold, read straight from its JSON."""
    out = {"mediaId": source["mediaId"], "status": source["status"], "length": source["length"]}
    meta = source.get("metadata", {})
    out.update({k: meta[k] for k in ("title", "externalId", "description") if k in meta})
    if "description" in out and fmt == "csv":
        out["description"] = "'" + out["description"]  # a formula cell, quoted for spreadsheets
    extended = meta.get("extended", {})
    for key, value in extended.items():
        if isinstance(value, dict):
            out.update({f"extended.{key}.{inner}": v for inner, v in value.items()})
        else:
            out[f"extended.{key}"] = json.dumps(value) if isinstance(value, list) else value
    for detector in source.get("prediction", {}).get("detectors", []):
        out[f"detections.{detector['detectorName']}"] = sum(
            len(seg["occurrences"]) for d in detector["detections"] for seg in d["detectedSegments"])
    for classifier in source.get("prediction", {}).get("classifiers", []):
        out[f"classifier.{classifier['classifierName']}"] = classifier["predictedClassLabel"]
    for group in source.get("metrics", []):
        out.update({f"metric.{m['metricName']}": m["metricValue"] for m in group["metricValues"]})
    out.update({f"category.{c['categoryName']}": c["categoryValue"] for c in source.get("categories", [])})
    out.update({f"spotted.{g['groupName']}": int(g["spotted"]) for g in source.get("spotting", {}).get("groups", [])})
    return out


def test_a_row_per_item_oldest_first_with_every_column(catalog):
    rows = [export.row(r) for r in export.records(catalog)]
    assert [r["mediaId"] for r in rows] == [MONO["mediaId"], CALL["mediaId"], FAILED["mediaId"]]
    call = rows[1]
    assert call["extended.agent.id"] == 7 and call["extended.agent.name"] == "Ann" and call["extended.queue"] == "billing"
    assert json.loads(call["extended.tags"]) == ["a", "b"]
    assert call["detections.PCI"] == 3 and call["classifier.sales"] == "yes"
    assert rows[2]["error"] == "not a recording" and rows[0]["input"].endswith("voicemail \\xff.wav")
    names = export.columns(rows)
    assert names[:3] == ["mediaId", "input", "status"]
    assert names.index("title") < names.index("extended.agent.id") < names.index("metric.agent-talk-ratio") \
        < names.index("category.churn") < names.index("spotted.billing") < names.index("detections.PCI")


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_pandas_reads_back_the_json_values(catalog, tmp_path, fmt):
    out = tmp_path / f"calls.{fmt}"
    text, summary = export.export(fmt, output=out, catalog=catalog)
    assert text is None and summary["rows"] == 3 and summary["file"] == str(out) and summary["format"] == fmt
    frame = {"csv": lambda: pd.read_csv(out), "jsonl": lambda: pd.read_json(out, lines=True),
             "parquet": lambda: pq.read_table(out).to_pandas()}[fmt]()
    assert len(frame) == 3 and summary["columns"] == len(frame.columns)
    for source in (CALL, FAILED, MONO):
        got = frame[frame["mediaId"] == source["mediaId"]].iloc[0]
        for column, value in expected_row(source, fmt).items():
            if value is None:
                assert pd.isna(got[column]), column
            elif isinstance(value, (int, float)):  # pandas reads a whole column with gaps as floats
                assert float(got[column]) == pytest.approx(value), column
            elif isinstance(value, str) and value.startswith("["):  # a list, as JSON text
                assert json.loads(got[column]) == json.loads(value), column
            else:
                assert str(got[column]) == str(value), column
        absent = [c for c in frame.columns if c.startswith("metric.") and c not in expected_row(source)]
        assert all(pd.isna(got[c]) for c in absent)  # a metric the item does not have is empty, not 0


def test_a_cell_a_spreadsheet_would_run_is_quoted_in_csv_only(catalog):
    text, _ = export.export("csv", catalog=catalog)
    frame = pd.read_csv(__import__("io").StringIO(text))
    call = frame[frame["mediaId"] == CALL["mediaId"]].iloc[0]
    assert call["description"] == "'=HYPERLINK(\"x\")"
    assert str(frame[frame["mediaId"] == MONO["mediaId"]].iloc[0]["title"]) == "-12"  # a number stays one
    lines, _ = export.export("jsonl", catalog=catalog)
    assert any(json.loads(line).get("description") == "=HYPERLINK(\"x\")" for line in lines.splitlines())


def test_a_file_speechproc_did_not_write_is_never_replaced(catalog, tmp_path):
    mine = tmp_path / "notes.csv"
    mine.write_text("my own notes\n")
    with pytest.raises(errors.SpeechprocError, match="was not written by speechproc"):
        export.export("csv", output=mine, catalog=catalog)
    assert mine.read_text() == "my own notes\n"
    again = tmp_path / "calls.csv"
    export.export("csv", output=again, catalog=catalog)
    export.export("jsonl", output=again, catalog=catalog)  # its own file: replaced
    assert again.read_text().startswith("{")
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".")]  # no temporary file left
    # a media item's own output is not the export's to replace, though speechproc wrote it
    output = tmp_path / "call.v3.json"
    output.write_text("{}")
    catalog.written.record_output(str(output.resolve()), paths.sha256_file(output), CALL["mediaId"])
    with pytest.raises(errors.SpeechprocError, match="is an output of media item"):
        export.export("csv", output=output, catalog=catalog)
    assert output.read_text() == "{}"


@pytest.mark.parametrize("args, message", [
    (("--format", "parquet"), "give it with -o FILE"),
    (("--format", "xlsx"), "xlsx"),
    (("--query", "SELECT * FROM"), "expected media after FROM"),
    (("--query", "DROP TABLE media"), "expected SELECT"),
])
def test_bad_export_requests_are_usage_errors(args, message, tmp_path):
    code, out = invoke("export", *args)
    assert code == 2
    assert message in json.dumps(out)


def test_the_cli_writes_csv_to_stdout_and_a_summary_for_a_file(tmp_path, monkeypatch, catalog):
    monkeypatch.setenv("SPEECHPROC_HOME", str(tmp_path))  # the fixture's catalog is this home's
    code, out = invoke("export")
    assert code == 0 and out.splitlines()[0].startswith("mediaId,input,status,dateCreated")
    assert len(out.splitlines()) == 4
    code, out = invoke("export", "--format", "parquet", "-o", str(tmp_path / "x.parquet"))
    assert code == 0 and out["rows"] == 3
    assert pq.read_table(tmp_path / "x.parquet").num_rows == 3


def test_values_json_cannot_hold_and_numbers_parquet_cannot_hold_are_still_exported(tmp_path):
    odd = item("00000000-0000-0000-0000-0000000000b1", "2026-02-01T00:00:00.000Z",
               metadata={"externalVersion": "v2", "extended": {"phone": 10**30, "a.b": 1, "a": {"b": 2}, "none": {}},
                         "callDetails": {"queue": "q1"}},
               metrics=[{"metricGroupName": "g", "metricValues": [{"metricName": "odd", "metricValue": float("nan")}]}])
    with Catalog(tmp_path / "catalog.sqlite3") as cat:
        cat.media.add(odd, str(tmp_path / "odd.wav"), None, "cfg", [])
        lines, _ = export.export("jsonl", catalog=cat)
        got = json.loads(lines)  # strict JSON: no NaN
        assert got["metric.odd"] is None and got["externalVersion"] == "v2" and got["callDetails.queue"] == "q1"
        assert {got["extended.a.b"], got["extended.a.b#2"]} == {1, 2}  # both values kept
        assert got["extended.none"] == "{}"
        export.export("parquet", output=tmp_path / "odd.parquet", catalog=cat)
        back = pq.read_table(tmp_path / "odd.parquet").to_pylist()[0]
        assert back["extended.phone"] == str(10**30) and back["metric.odd"] is None  # NaN is null here too
    with Catalog(tmp_path / "empty.sqlite3") as empty:
        text, summary = export.export("csv", catalog=empty)
        assert summary["rows"] == 0 and pd.read_csv(__import__("io").StringIO(text)).empty  # a header, no rows


def test_a_run_never_replaces_an_export_and_an_export_never_replaces_a_users_file(tmp_path, monkeypatch, catalog):
    from speechproc.store.files import ownership

    exported = tmp_path / "b.txt"
    export.export("csv", output=exported, catalog=catalog)
    with pytest.raises(ownership.OutputConflict):  # what `speechproc run` checks before writing b.txt
        ownership.check([exported], catalog.written)
    monkeypatch.setenv("SPEECHPROC_HOME", str(tmp_path))
    (tmp_path / "mine.csv").write_text("mine\n")
    for target, why in (("mine.csv", "was not written by speechproc export"), ("mine.csv/x.csv", "cannot be written"),
                        ("newdir/", "names a folder")):
        code, out = invoke("export", "-o", str(tmp_path) + "/" + target)
        assert code == 2 and why in out["warnings"][0]["message"], out
    assert (tmp_path / "mine.csv").read_text() == "mine\n"
    code, out = invoke("export", "--format", "jsonl", "-o", "-")
    assert code == 0 and len(out.splitlines()) == 3  # "-" is stdout
    # an export into a folder reached through a link, written again: still its own file
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    for _ in range(2):
        code, out = invoke("export", "-o", str(tmp_path / "link" / "new" / ".." / "calls.csv"))
        assert code == 0, out
