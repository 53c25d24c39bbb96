"""End to end: `speechproc run` on a folder, then the media and transcript commands."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import SAMPLES, invoke
from speechproc import pipeline
from speechproc.cli import main

ISO_MS = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"


@pytest.fixture(scope="module")
def batch(tmp_path_factory) -> dict:
    """A folder with the two samples (one in a subfolder), a corrupt file and an empty one, run once."""
    folder = tmp_path_factory.mktemp("calls")
    shutil.copy(SAMPLES / "call.flac", folder / "call.flac")
    (folder / "sub").mkdir()
    shutil.copy(SAMPLES / "voicemail.wav", folder / "sub" / "voicemail.wav")
    (folder / "broken.mp3").write_bytes(b"ID3" + bytes(range(256)) * 20)
    (folder / "empty.wav").write_bytes(b"")
    (folder / "notes.txt").write_text("not media, not picked up")
    meta = folder.parent / "meta.json"
    meta.write_text(json.dumps({"title": "Support call", "externalId": "ext-42", "extended": {"team": {"id": 7}}}))
    code, out = invoke("run", str(folder), "--metadata", str(meta), "--quiet")
    return {"folder": folder, "code": code, "out": out}


def test_run_processes_every_media_file_and_exits_1_when_some_fail(batch):
    assert batch["code"] == 1
    status = {Path(m["input"]).name: m["status"] for m in batch["out"]["media"]}
    assert status == {"broken.mp3": "failed", "call.flac": "finished", "empty.wav": "failed",
                      "voicemail.wav": "finished"}


def test_outputs_are_written_beside_each_input(batch):
    folder = batch["folder"]
    for base in (folder / "call", folder / "sub" / "voicemail"):
        for suffix in (".v3.json", ".txt", ".srt", ".vtt", ".dfxp"):
            assert Path(str(base) + suffix).stat().st_size > 0
    assert not list(folder.rglob("*.tmp")) and not (folder / "notes.v3.json").exists()
    assert json.loads((folder / "broken.v3.json").read_text())["status"] == "failed"


def test_media_item_json_has_the_spec_fields_and_types(batch):
    item = json.loads((batch["folder"] / "call.v3.json").read_text())
    mid = item["mediaId"]
    assert item["_links"] == {"self": {"href": f"/v3/media/{mid}"}, "progress": {"href": f"/v3/media/{mid}/progress"},
                              "metadata": {"href": f"/v3/media/{mid}/metadata"}}
    assert item["status"] == "finished" and item["mediaContentType"] == "audio/flac"
    assert isinstance(item["length"], int) and abs(item["length"] - 69595) < 50
    import re
    assert re.match(ISO_MS, item["dateCreated"]) and re.match(ISO_MS, item["dateFinished"])
    assert item["metadata"] == {"title": "Support call", "externalId": "ext-42", "extended": {"team": {"id": 7}}}
    assert re.match(r"^\d+\.\d+\.\d+$", item["formatVersion"])
    transcript = item["transcript"]
    assert set(transcript) == {"confidence", "words", "voiceActivity"}
    assert [va["speakerName"] for va in transcript["voiceActivity"]] == ["Agent", "Caller"]
    for w in transcript["words"]:
        assert set(w) <= {"p", "c", "s", "e", "w", "m"} and isinstance(w["s"], int) and isinstance(w["e"], int)


def test_failed_items_say_why(batch):
    failed = {Path(m["input"]).name: m for m in batch["out"]["media"] if m["status"] == "failed"}
    code, item = invoke("media", "get", failed["empty.wav"]["mediaId"])
    assert code == 0 and item["status"] == "failed"
    assert item["errors"][0]["code"] == 10201 and "empty" in item["errors"][0]["error"]


def test_media_list_get_progress_and_metadata(batch):
    code, listing = invoke("media", "list", "--limit", "2")
    assert code == 0 and len(listing["media"]) == 2 and "_links" in listing
    assert all("transcript" not in m for m in listing["media"])
    call_id = next(m["mediaId"] for m in batch["out"]["media"] if m["input"].endswith("call.flac"))
    code, item = invoke("media", "get", call_id)
    assert code == 0 and item["transcript"]["words"]
    code, progress = invoke("media", "progress", call_id)
    assert progress["progress"]["status"] == "finished"
    assert [t["status"] for t in progress["progress"]["tasks"]] == ["finished"] * len(pipeline.STAGES)
    code, meta = invoke("media", "metadata", call_id)
    assert meta["title"] == "Support call" and meta["_links"]["self"]["href"].endswith(call_id)


@pytest.mark.parametrize("fmt, start", [("text", "Agent: "), ("srt", "1\n00:00:0"), ("webvtt", "WEBVTT\n\n1\n"),
                                        ("dfxp", '<tt xmlns="http://www.w3.org/2006/04/ttaf1"')])
def test_transcript_in_every_format_matches_the_files(batch, fmt, start):
    call_id = next(m["mediaId"] for m in batch["out"]["media"] if m["input"].endswith("call.flac"))
    code, text = invoke("transcript", call_id, "--format", fmt)
    suffix = {"text": ".txt", "srt": ".srt", "webvtt": ".vtt", "dfxp": ".dfxp"}[fmt]
    on_disk = (batch["folder"] / f"call{suffix}").read_text()
    assert code == 0 and text.startswith(start)
    assert text.rstrip("\n") == on_disk.rstrip("\n")


def test_transcript_json_with_alternate_formats_only_when_asked(batch):
    call_id = next(m["mediaId"] for m in batch["out"]["media"] if m["input"].endswith("call.flac"))
    _, plain = invoke("transcript", call_id)
    assert "alternateFormats" not in plain["transcript"] and plain["mediaId"] == call_id
    _, rich = invoke("transcript", call_id, "--include-alternate-format", "srt",
                     "--include-alternate-format", "text")
    assert [a["format"] for a in rich["transcript"]["alternateFormats"]] == ["srt", "text"]


def test_transcript_of_a_failed_item_is_the_v3_404(batch):
    failed_id = next(m["mediaId"] for m in batch["out"]["media"] if m["status"] == "failed")
    code, body = invoke("transcript", failed_id)
    assert code == 1 and body["status"] == 404 and body["warnings"]["code"] == 10301
    assert "finished" in body["warnings"]["message"] and body["reference"]


def test_unknown_media_id_is_a_404(batch):
    code, body = invoke("media", "get", "00000000-0000-0000-0000-000000000000")
    assert code == 1 and body["status"] == 404 and body["warnings"][0]["code"] == 10205


def test_rerun_skips_unchanged_files_and_force_redoes_them(batch):
    folder = batch["folder"]
    runner = CliRunner()
    first = runner.invoke(main, ["run", str(folder / "sub"), "--quiet"])  # no metadata: a new effective configuration
    assert json.loads(first.stdout)["media"][0]["status"] == "finished"
    again = runner.invoke(main, ["run", str(folder / "sub")])
    assert again.exit_code == 0 and "skipped" in again.stderr
    assert json.loads(again.stdout)["media"][0]["status"] == "skipped"
    forced = runner.invoke(main, ["run", str(folder / "sub"), "--force", "--quiet"])
    assert json.loads(forced.stdout)["media"][0]["status"] == "finished" and forced.stderr == ""


def test_out_dir_mirrors_the_input_tree(batch, tmp_path):
    code, out = invoke("run", str(batch["folder"] / "sub"), "--out", str(tmp_path / "results"), "--quiet")
    assert code == 0 and (tmp_path / "results" / "voicemail.v3.json").exists()
    code, out = invoke("run", str(batch["folder"]), "--out", str(tmp_path / "all"), "--quiet")
    assert (tmp_path / "all" / "sub" / "voicemail.srt").exists() and (tmp_path / "all" / "call.srt").exists()


def test_a_folder_without_media_exits_1_with_an_error(tmp_path):
    (tmp_path / "readme.txt").write_text("nothing to hear")
    code, out = invoke("run", str(tmp_path), "--quiet")
    assert code == 1 and out["media"] == [] and out["errors"][0]["warnings"][0]["code"] == 10202


def test_a_missing_path_is_a_failed_item(tmp_path):
    code, out = invoke("run", str(tmp_path / "nope.wav"), "--quiet")
    assert code == 1 and out["media"][0]["status"] == "failed"
    assert out["media"][0]["error"]["warnings"][0]["code"] == 10205


def test_a_bad_configuration_processes_nothing_and_exits_2(tmp_path):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("speechModel:\n  features: [voiceFeatures, sparkle]\n")
    shutil.copy(SAMPLES / "voicemail.wav", tmp_path / "v.wav")
    code, body = invoke("run", str(tmp_path), "--config", str(cfg))
    assert code == 2 and body["status"] == 400
    assert "speechModel.features[1]" in body["warnings"][0]["message"]
    assert not (tmp_path / "v.v3.json").exists()


def test_colliding_names_keep_their_extension(tmp_path):
    shutil.copy(SAMPLES / "voicemail.wav", tmp_path / "msg.wav")
    shutil.copy(SAMPLES / "voicemail.wav", tmp_path / "msg.flac")  # same stem, different file
    code, _ = invoke("run", str(tmp_path), "--quiet")
    assert (tmp_path / "msg.wav.v3.json").exists() and (tmp_path / "msg.flac.srt").exists()


def test_requested_but_not_yet_computed_sections_are_reported_as_warnings(tmp_path):
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"transcript": {"contentFiltering": {"enableProfanityFiltering": True}}}))
    shutil.copy(SAMPLES / "voicemail.wav", tmp_path / "v.wav")
    code, _ = invoke("run", str(tmp_path / "v.wav"), "--config", str(cfg), "--quiet")
    item = json.loads((tmp_path / "v.v3.json").read_text())
    assert code == 0 and any("enableProfanityFiltering" in w["message"] for w in item["warnings"])


def test_the_installed_command_runs_as_a_program(tmp_path):
    shutil.copy(SAMPLES / "voicemail.wav", tmp_path / "v.wav")
    exe = Path(sys.executable).with_name("speechproc")
    proc = subprocess.run([str(exe), "run", str(tmp_path), "--quiet"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    media_id = json.loads(proc.stdout)["media"][0]["mediaId"]
    srt = subprocess.run([str(exe), "transcript", media_id, "--format", "srt"], capture_output=True, text=True)
    assert srt.stdout.startswith("1\n") and "Speaker: " in srt.stdout


def test_every_command_has_help_with_an_example():
    from speechproc.cli import main as group

    def walk(cmd, path):
        yield path, cmd
        for name, sub in getattr(cmd, "commands", {}).items():
            yield from walk(sub, path + [name])

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    for path, cmd in walk(group, []):
        result = CliRunner().invoke(group, path + ["--help"])
        assert result.exit_code == 0 and cmd.help, path
        if path and not getattr(cmd, "commands", None):
            assert "Example" in cmd.help, f"{' '.join(path)} --help has no example"
            assert f"speechproc {' '.join(path)}" in readme, f"README does not document {' '.join(path)}"


def test_run_diarizes_a_mono_call_with_voice_features_into_every_format(downmix, tmp_path):
    code, out = invoke("run", str(downmix), "--config", str(SAMPLES.parent / "configs" / "mono-call.yaml"),
                       "--out", str(tmp_path), "--quiet")
    assert code == 0, out
    files = out["media"][0]["outputs"]
    item = json.loads(Path(files["json"]).read_text())
    words = item["transcript"]["words"]
    assert [v["speakerName"] for v in item["transcript"]["voiceActivity"]] == ["Agent", "Caller"]
    assert words[0] == {**words[0], "m": "turn", "w": "Agent"}
    assert all(len(w["frq"]) == 2 and isinstance(w["v"], float) for w in words if "m" not in w)
    assert "Agent: Thank you for calling" in Path(files["srt"]).read_text()
    assert "Caller: Hi" in Path(files["webvtt"]).read_text()
    assert "Agent: " in Path(files["dfxp"]).read_text() and "Caller: " in Path(files["dfxp"]).read_text()


def metric(item: dict, group: str, name: str) -> float:
    values = next(g["metricValues"] for g in item["metrics"] if g["metricGroupName"] == group)
    return next(v["metricValue"] for v in values if v["metricName"] == name)


def test_callcenter_config_produces_every_analytics_section(callcenter):
    assert "warnings" not in callcenter
    assert [g["metricGroupName"] for g in callcenter["metrics"]] == [
        "overtalk", "talk-time-and-rate", "talk-style-tone-and-volume", "sentiment"]
    assert [len(g["metricValues"]) for g in callcenter["metrics"]] == [6, 18, 8, 12]
    assert all(isinstance(v["metricValue"], float) for g in callcenter["metrics"] for v in g["metricValues"])
    assert [s["speakerName"] for s in callcenter["speakerSentiments"]] == ["Agent", "Caller"]
    assert all(-1 <= v["v"] <= 1 and v["s"] <= v["e"] for s in callcenter["speakerSentiments"]
               for v in s["sentimentValues"])
    pairs = {p["speakerName"]: {(x["verb"], x["noun"]) for x in p["verbNounPairs"]}
             for p in callcenter["conversation"]["speakerVerbNounPairs"]}
    assert ("issue", "refund") in pairs["Agent"] and ("like", "refund") in pairs["Caller"]
    keywords = {k["keyword"] for k in callcenter["knowledge"]["keywords"]}
    assert {"refund", "double charge"} <= keywords
    assert callcenter["knowledge"]["topics"][0]["topicName"] == "Billing"


def test_callcenter_metrics_match_the_calls_known_timing(callcenter):
    """truth.json: one overlap (the caller's "Oh good" under the agent, 0.9 s), one 5.2 s hold."""
    from conftest import truth_for

    turns = truth_for("call.flac")["turns"]
    talk = {who: sum(t["e"] - t["s"] for t in turns if t["speaker"] == who) for who in ("Agent", "Caller")}
    union = talk["Agent"] + talk["Caller"] - 900
    assert metric(callcenter, "overtalk", "overtalk-incidents") == 1
    assert metric(callcenter, "overtalk", "caller-overtalk-incidents") == 1
    assert metric(callcenter, "overtalk", "agent-overtalk-incidents") == 0
    assert 0.01 <= metric(callcenter, "overtalk", "overtalk-ratio") <= 0.02
    assert metric(callcenter, "overtalk", "caller-overtalk-ratio") == 1.0
    assert metric(callcenter, "talk-time-and-rate", "silence-incidents") == 1
    assert metric(callcenter, "talk-time-and-rate", "agent-talk-ratio") == pytest.approx(talk["Agent"] / union, abs=0.05)
    assert metric(callcenter, "talk-time-and-rate", "caller-talk-ratio") == pytest.approx(talk["Caller"] / union, abs=0.05)
    assert metric(callcenter, "talk-time-and-rate", "silence-ratio") == pytest.approx(1 - union / 69595, abs=0.05)
    assert 120 <= metric(callcenter, "talk-time-and-rate", "agent-talk-rate") <= 240
    assert metric(callcenter, "sentiment", "call-sentiment") > 0  # a polite call that ends well
    assert metric(callcenter, "talk-style-tone-and-volume", "agent-relative-voice-volume-energy") > 0


def test_analytics_of_a_silent_call_are_empty_not_errors(tmp_path):
    import numpy as np

    from conftest import write_wav

    write_wav(tmp_path / "silent.wav", np.zeros((2, 16000 * 3)), 16000)
    code, out = invoke("run", str(tmp_path), "--config", str(SAMPLES.parent / "configs" / "callcenter.yaml"), "--quiet")
    assert code == 0, out
    item = json.loads((tmp_path / "silent.v3.json").read_text())
    assert item["status"] == "finished" and item["transcript"]["words"] == []
    assert all(v["metricValue"] == 0 for g in item["metrics"] for v in g["metricValues"]
               if v["metricName"] != "silence-ratio")
    assert metric(item, "talk-time-and-rate", "silence-ratio") == 1.0
    assert item["knowledge"] == {"keywords": [], "topics": []}
    assert all(s["sentimentValues"] == [] for s in item["speakerSentiments"])


def test_analytics_sections_appear_only_when_asked_for(batch):
    item = json.loads((batch["folder"] / "call.v3.json").read_text())
    assert not {"metrics", "knowledge", "speakerSentiments", "conversation"} & set(item)


@pytest.fixture(scope="module")
def categorised(tmp_path_factory) -> dict:
    """The shipped example categories and keyword groups stored, then the sample call run with all of them
    and analytic indexing."""
    configs = SAMPLES.parent / "configs"
    for path in sorted((configs / "categories").glob("*.yaml")):
        code, out = invoke("categories", "put", path.stem, str(path))
        assert code == 0 and out["categoryName"] == path.stem, out
    for path in sorted((configs / "groups").glob("*.yaml")):
        code, out = invoke("groups", "put", path.stem, str(path))
        assert code == 0, out
    folder = tmp_path_factory.mktemp("categorised")
    shutil.copy(SAMPLES / "call.flac", folder / "call.flac")
    cfg = folder / "cfg.yaml"
    cfg.write_text("ingest: {stereo: {left: {speakerName: Agent}, right: {speakerName: Caller}}}\n"
                   "categories: [{allCategories: true}]\n"
                   "spotting: {groups: [{groupName: billing}, {groupName: churn}]}\n"
                   "metrics: [{metricGroupName: talk-time-and-rate}]\n"
                   "publish: {enableAnalyticIndexing: true}\n")
    code, out = invoke("run", str(folder / "call.flac"), "--config", str(cfg), "--quiet")
    assert code == 0, out
    item = json.loads((folder / "call.v3.json").read_text())
    item["_config"] = str(cfg)
    return item


def test_example_categories_on_the_sample_call(categorised):
    values = {c["categoryName"]: c["categoryValue"] for c in categorised["categories"]}
    assert values == {"agent-apology": 1, "cancellation-intent": 0, "escalation-request": 0, "greeting": 1,
                      "payment-discussed": 1, "recording-disclosure": 0}
    greeting = next(c for c in categorised["categories"] if c["categoryName"] == "greeting")
    occurrences = greeting["categoryMatches"][0]["occurrences"]
    assert greeting["categoryMatches"][0]["speakerName"] == "Agent"
    assert occurrences[0]["exact"].lower() == "thank you for calling" and occurrences[0]["s"] < 3000
    unmatched = next(c for c in categorised["categories"] if c["categoryName"] == "escalation-request")
    assert "categoryMatches" not in unmatched


def test_keyword_groups_on_the_sample_call(categorised):
    billing, churn = categorised["spotting"]["groups"]
    assert billing["groupName"] == "billing" and billing["spotted"] is True
    said = {k["keyword"]: k for k in billing["spottedKeywords"]}
    assert {"refund", "charged twice", "double charge"} <= set(said)
    assert {m["speakerName"] for m in said["refund"]["mentions"]} == {"Agent", "Caller"}
    assert billing["score"] == f"{len(said) / 7:.4f}"
    assert churn == {"groupName": "churn", "spotted": False, "score": "0.0000", "spottedKeywords": []}


def test_indexed_calls_answer_corpus_queries(categorised):
    code, out = invoke("query", 'SELECT mediaId, hits() FROM media WHERE "Agent" SAYS "refund*" '
                                'AND metrics:"agent-talk-ratio" > 0.3')
    assert code == 0 and categorised["mediaId"] in [r["mediaId"] for r in out["rows"]]
    row = [r["mediaId"] for r in out["rows"]].index(categorised["mediaId"])
    assert [h["text"] for h in out["hits"][row]] == ["refund"] and out["hits"][row][0]["speaker"] == "Agent"
    code, out = invoke("query", 'SELECT * FROM media WHERE "Agent" SAYS "refund')
    assert code == 2 and "position" in out["warnings"][0]["message"]


def test_unknown_category_or_group_stops_the_run_before_any_audio(tmp_path):
    shutil.copy(SAMPLES / "voicemail.wav", tmp_path / "v.wav")
    for body, code_wanted in (({"categories": [{"categoryName": "no-such-category"}]}, 10009),
                              ({"spotting": {"groups": [{"groupName": "no-such-group"}]}}, 40005)):
        cfg = tmp_path / "c.json"
        cfg.write_text(json.dumps(body))
        code, out = invoke("run", str(tmp_path / "v.wav"), "--config", str(cfg), "--quiet")
        assert code == 2 and out["warnings"][0]["code"] == code_wanted
        assert not (tmp_path / "v.v3.json").exists()


def test_category_commands_round_trip(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("query: '\"Agent\" SAYS (\"sorry\"'\n")
    code, out = invoke("categories", "put", "bad-one", str(bad))
    assert code == 2 and "position" in out["warnings"][0]["message"]
    code, out = invoke("categories", "get", "bad-one")
    assert code == 1 and out["status"] == 404
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"query": '"Agent" SAYS "sorry"', "tags": ["x"]}))
    assert invoke("categories", "put", "temp-cat", str(good))[0] == 0
    assert "temp-cat" in [c["categoryName"] for c in invoke("categories", "list")[1]["categories"]]
    assert invoke("categories", "delete", "temp-cat")[0] == 0
    assert invoke("categories", "delete", "temp-cat")[0] == 1


def test_a_changed_category_definition_reprocesses_an_unchanged_file(categorised, tmp_path):
    cfg = Path(categorised["_config"])
    call = cfg.parent / "call.flac"
    code, out = invoke("run", str(call), "--config", str(cfg), "--quiet")
    assert code == 0 and out["media"][0]["status"] == "skipped"
    definition = tmp_path / "hold.json"
    definition.write_text(json.dumps({"query": '"Agent" SAYS "hold" && "moment"'}))
    assert invoke("categories", "put", "hold-request", str(definition))[0] == 0
    try:
        code, out = invoke("run", str(call), "--config", str(cfg), "--quiet")
        assert code == 0 and out["media"][0]["status"] == "finished"
        item = json.loads((cfg.parent / "call.v3.json").read_text())
        assert {"categoryName": "hold-request", "categoryValue": 1} == {
            k: v for k, v in next(c for c in item["categories"] if c["categoryName"] == "hold-request").items()
            if k != "categoryMatches"}
    finally:
        invoke("categories", "delete", "hold-request")
