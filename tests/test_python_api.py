"""docs/python-api.md runs as written: its reading example against a `.v3.json` of the sample call made from
the call's known words (no recognition, so the frames do not depend on what a model hears), and its library
example (which recognises the call) in the slow set; and `speechproc.results` on its own."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, SAMPLES, truth_for
from speechproc import results
from speechproc.batch import planning
from speechproc.batch.jobs import Job, run_job
from speechproc.config import v3 as config
from speechproc.config.options import build
from text_helpers import truth_words

DOC = ROOT / "docs" / "python-api.md"
RAW = {"ingest": {"stereo": {"left": {"speakerName": "Agent"}, "right": {"speakerName": "Caller"}}},
       "metrics": [{"metricGroupName": "overtalk"}, {"metricGroupName": "talk-time-and-rate"}]}


def python_blocks() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", DOC.read_text(encoding="utf-8"), flags=re.S | re.M)


def reading_example() -> str:
    [block] = [b for b in python_blocks() if "results.load" in b]
    return block


def library_example() -> str:
    [block] = [b for b in python_blocks() if "api.process" in b]
    return block


@pytest.fixture(scope="module")
def known_item(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """call.v3.json of the sample call with its known words, through every stage the configuration asks for."""
    folder = tmp_path_factory.mktemp("python-api")
    outputs = planning.output_paths([planning.Input(SAMPLES / "call.flac", SAMPLES)], folder)[SAMPLES / "call.flac"]
    job = Job(media_id="00000000-0000-4000-8000-0000000000a1", input=SAMPLES / "call.flac", outputs=outputs,
              redacted_audio=None, options=build(config.validate(RAW)), metadata={"title": "known words"},
              date_created="2026-01-01T00:00:00.000Z", content_hash=None, config_hash="k", ownership={},
              words=tuple(truth_words(truth_for("call.flac"))))
    result = run_job(job)
    assert result.status == "finished"
    return Path(result.outputs["json"])


def test_every_python_block_of_the_page_is_run_here():
    blocks = python_blocks()
    assert len(blocks) == 2 and set(blocks) == {reading_example(), library_example()}


def test_the_reading_example_gives_typed_data_and_frames_of_the_words_and_turns(known_item, monkeypatch, capsys):
    block = reading_example()
    assert 'path = "call.v3.json"' in block  # read from the folder it runs in
    monkeypatch.chdir(known_item.parent)
    namespace: dict = {}
    exec(compile(block, str(DOC), "exec"), namespace)

    item = json.loads(known_item.read_text(encoding="utf-8"))
    assert namespace["item"] == item and "00000000-0000-4000-8000-0000000000a1" in capsys.readouterr().out
    tokens = [w for w in item["transcript"]["words"] if w.get("m") != "turn"]
    markers = [w for w in item["transcript"]["words"] if w.get("m") == "turn"]

    words, turns = namespace["words"], namespace["turns"]
    assert list(words.columns) == ["p", "turn", "speaker", "s", "e", "w", "c", "m", "v"]
    assert len(words) == len(tokens) and list(words["p"]) == [w["p"] for w in tokens]
    assert list(words["w"]) == [w["w"] for w in tokens]
    assert len(namespace["spoken"]) == sum(1 for w in tokens if "m" not in w)
    assert list(turns.columns) == ["turn", "speaker", "s", "e", "words", "text"]
    assert len(turns) == len(markers) and list(turns["turn"]) == list(range(len(markers)))
    assert list(turns["speaker"]) == [m["w"] for m in markers]
    assert set(turns["speaker"]) == {a["speakerName"] for a in item["transcript"]["voiceActivity"]} == {"Agent", "Caller"}
    assert turns["words"].sum() == len(namespace["spoken"])
    assert set(words["turn"]) == set(turns["turn"])  # every turn has its words, every word its turn
    assert all(words.loc[words["turn"] == t.turn, "speaker"].eq(t.speaker).all() for t in turns.itertuples())
    assert "refund" in " ".join(turns["text"])
    assert namespace["metrics"] == {m["metricName"]: m["metricValue"] for g in item["metrics"] for m in g["metricValues"]}
    assert len(namespace["metrics"]) > 2


def test_load_refuses_what_is_not_a_media_item(tmp_path):
    (tmp_path / "list.json").write_text("[]")
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(ValueError, match="not a v3 media item"):
        results.load(tmp_path / "list.json")
    with pytest.raises(ValueError):
        results.load(tmp_path / "broken.json")


def test_turns_follow_the_turn_markers():
    item: results.MediaItem = {
        "_links": {"self": {"href": "/v3/media/x"}, "progress": {"href": "p"}, "metadata": {"href": "m"}},
        "formatVersion": "3.0.11", "mediaId": "x", "status": "finished", "dateCreated": "d",
        "transcript": {"confidence": 1.0, "voiceActivity": [], "words": [
            {"p": 0, "c": 1.0, "s": 0, "e": 900, "w": "Agent", "m": "turn"},
            {"p": 1, "c": 0.9, "s": 0, "e": 400, "w": "Hello"},
            {"p": 2, "c": 0.0, "s": 400, "e": 400, "w": ",", "m": "punc"},
            {"p": 3, "c": 0.8, "s": 500, "e": 900, "w": "there"},
            {"p": 4, "c": 1.0, "s": 1000, "e": 1400, "w": "Caller", "m": "turn"},
            {"p": 5, "c": 0.7, "s": 1000, "e": 1400, "w": "Hi"}]}}
    turns = results.turns(item)
    assert [(t["turn"], t["speaker"], t["s"], t["e"]) for t in turns] == [(0, "Agent", 0, 900), (1, "Caller", 1000, 1400)]
    assert results.text_of(turns[0]["words"]) == "Hello, there"
    frame = results.turns_frame(item)
    assert list(frame["words"]) == [2, 1] and list(frame["text"]) == ["Hello, there", "Hi"]
    assert results.turns({**item, "transcript": {"confidence": 0.0, "words": [], "voiceActivity": []}}) == []
    assert results.words_frame({k: v for k, v in item.items() if k != "transcript"}).empty


def test_importing_results_loads_neither_numpy_nor_pandas():
    code = "import sys, speechproc.results; print(sorted({'numpy', 'pandas'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(ROOT / "src")}).stdout
    assert out.strip() == "[]"


@pytest.mark.slow
def test_the_library_example_processes_reads_and_queries(tmp_path, monkeypatch):
    """Run in a folder of its own beside the sample call, with a catalog of its own."""
    (tmp_path / "sample_media").mkdir()
    (tmp_path / "sample_media" / "call.flac").symlink_to(SAMPLES / "call.flac")
    monkeypatch.setenv("SPEECHPROC_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(library_example(), str(DOC), "exec"), namespace)

    assert namespace["batch"].ok and namespace["batch"].items[0].status == "finished"
    item = namespace["item"]
    assert item == json.loads((tmp_path / "output" / "call.v3.json").read_text(encoding="utf-8"))
    assert item["mediaId"] == namespace["media_id"] and item["status"] == "finished"
    assert {s["speakerName"] for s in item["transcript"]["voiceActivity"]} == {"Agent", "Caller"}
    assert [m["mediaId"] for m in namespace["page"]["media"]] == [namespace["media_id"]]
    assert namespace["captions"] == (tmp_path / "output" / "call.srt").read_text(encoding="utf-8")
    assert {"totalResults", "rows"} <= set(namespace["found"])
