"""Who spoke when as RTTM: the lines on plain data (fields, order, the empty case), then `run --rttm` and
`transcript --format rttm` end to end, read back as a scorer reads them."""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from urllib.parse import unquote

import numpy as np
import pytest

from conftest import SAMPLES, invoke, write_wav
from speechproc.formats import rttm


def parsed(text: str) -> list[tuple[str, float, float, str]]:
    """(file id, start s, duration s, speaker) of each line, fields split on white space as scorers split them."""
    out = []
    for line in text.splitlines():
        fields = line.split()
        assert len(fields) == 10 and fields[0] == "SPEAKER" and fields[2] == "1", line
        assert fields[5:7] == ["<NA>", "<NA>"] and fields[8:] == ["<NA>", "<NA>"], line
        out.append((unquote(fields[1]), float(fields[3]), float(fields[4]), unquote(fields[7])))
    return out


# --- the lines -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["Speaker 1", "Dana Reyes", "Zoë", "a%20b", "tab\there", "line\nbreak", "<NA>",
                                  "名前", "-", "x" * 64, " "])
def test_every_name_is_one_field_that_reads_back(name):
    encoded = rttm.field(name)
    assert encoded and encoded.isascii() and not any(c.isspace() for c in encoded)
    assert unquote(encoded) == name
    assert "<" not in encoded and ">" not in encoded  # never taken for <NA>


def test_names_that_differ_stay_apart():
    assert len({rttm.field(n) for n in ("Dana Reyes", "Dana_Reyes", "Dana%20Reyes", "Dana-Reyes")}) == 4


def test_lines_are_sorted_by_start_then_speaker_in_seconds():
    text = rttm.render("call 1", {"B": [(2000, 2500), (0, 1500)], "A": [(2000, 2100)], "silent": [], "C": [(5, 5)]})
    assert parsed(text) == [("call 1", 0.0, 1.5, "B"), ("call 1", 2.0, 0.1, "A"), ("call 1", 2.0, 0.5, "B")]
    assert text.splitlines()[0] == "SPEAKER call%201 1 0.000 1.500 <NA> <NA> B <NA> <NA>"


def test_no_speech_is_an_empty_file():
    assert rttm.render("call", {}) == "" and rttm.render("call", {"Speaker": []}) == ""
    assert rttm.of_item({"mediaId": "x"}, "call") == ""  # an item without a transcript


def test_a_stored_items_voice_activity_is_read_safely():
    item = {"transcript": {"voiceActivity": [
        {"speakerName": "Agent", "occurrences": [{"s": 0, "e": 900}, {"s": "bad", "e": 3}, "junk"]},
        {"speakerName": "Caller", "occurrences": [{"s": 1000, "e": 1800}]}]}}
    assert parsed(rttm.of_item(item, "c")) == [("c", 0.0, 0.9, "Agent"), ("c", 1.0, 0.8, "Caller")]


def test_the_file_id_is_the_name_the_outputs_share():
    assert rttm.file_id_of("call.v3.json", "id") == "call"
    assert rttm.file_id_of("call.v3.json.gpg", "id") == "call"
    assert rttm.file_id_of(".v3.json", "id") == "id" and rttm.file_id_of("other.json", "id") == "id"
    place, file_id = rttm.place_of(Path("/out/my call.v3.json"), "id")
    assert place == Path("/out/my call.rttm") and file_id == "my call"


# --- end to end ------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """The sample call (two channels), the voicemail (one speaker), a second of silence, under odd names."""
    place = tmp_path_factory.mktemp("rttm")
    shutil.copy(SAMPLES / "call.flac", place / "the call.flac")
    shutil.copy(SAMPLES / "voicemail.wav", place / "voicemail.wav")
    write_wav(place / "silence.wav", np.zeros(16000), 16000)
    (place.parent / "names.json").write_text(json.dumps({"speechproc": {"speakerNames": ["Dana Reyes"]}}))
    return place


@pytest.mark.slow
def test_run_writes_rttm_beside_the_other_outputs_and_transcript_serves_the_same(folder):
    code, out = invoke("run", str(folder), "--rttm", "--quiet", "--config", str(folder.parent / "names.json"))
    assert code == 0, out
    items = {Path(m["input"]).name: m for m in out["media"]}
    call = (folder / "the call.rttm").read_text()
    lines = parsed(call)
    assert {who for *_, who in lines} == {"Agent", "Caller"} and {f for f, *_ in lines} == {"the call"}
    assert all(d > 0 for _, _, d, _ in lines) and [s for _, s, _, _ in lines] == sorted(s for _, s, _, _ in lines)
    item = json.loads((folder / "the call.v3.json").read_text())
    activity = {v["speakerName"]: len(v["occurrences"]) for v in item["transcript"]["voiceActivity"]}
    assert {who: sum(w == who for *_, w in lines) for who in activity} == activity
    assert {who for *_, who in parsed((folder / "voicemail.rttm").read_text())} == {"Dana Reyes"}
    assert (folder / "silence.rttm").read_text() == ""
    assert items["the call.flac"]["outputs"]["rttm"].endswith("the call.rttm")
    code, served = invoke("transcript", items["the call.flac"]["mediaId"], "--format", "rttm")
    assert code == 0 and served == call


@pytest.mark.slow
def test_an_unchanged_item_gets_its_rttm_from_the_stored_result(home, tmp_path):
    shutil.copy(SAMPLES / "voicemail.wav", tmp_path / "voicemail.wav")
    code, out = invoke("run", str(tmp_path), "--quiet")
    assert code == 0 and not (tmp_path / "voicemail.rttm").exists()
    code, out = invoke("run", str(tmp_path), "--rttm", "--quiet")
    assert code == 0 and out["media"][0]["status"] == "skipped"
    assert {who for *_, who in parsed((tmp_path / "voicemail.rttm").read_text())} == {"Speaker"}
    assert out["media"][0]["outputs"]["rttm"].endswith("voicemail.rttm")
    code, out = invoke("run", str(tmp_path), "--rttm", "--quiet")  # and again: its own file, replaced
    assert code == 0 and out["media"][0]["status"] == "skipped"


@pytest.mark.slow
def test_rttm_never_replaces_a_file_speechproc_did_not_write(home, tmp_path):
    place = tmp_path / "mine"
    place.mkdir()
    shutil.copy(SAMPLES / "voicemail.wav", place / "voicemail.wav")
    (place / "voicemail.rttm").write_text("my own reference\n")
    code, out = invoke("run", str(place), "--rttm", "--quiet")
    assert code == 1 and (place / "voicemail.rttm").read_text() == "my own reference\n"
    assert out["media"][0]["status"] == "failed"


def test_rttm_is_not_an_alternate_format():
    code, out = invoke("transcript", "00000000-0000-4000-8000-000000000000", "--include-alternate-format", "rttm")
    assert code == 2 and "rttm" in str(out)
