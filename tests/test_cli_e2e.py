"""End to end: `speechproc run` on a folder, then the media and transcript commands.

Runs with real recognition assert what holds whatever words the model hears on this CPU (structure, sections,
speakers, timing); what depends on the words (keywords, topics, pairs, categories, keyword groups, query hits)
is asserted on the call's known words (the `truth_call` fixture), which go through the same stages."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import SAMPLES, invoke, truth_for
from speechproc.cli.commands import main
from speechproc.stages import pipeline

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


@pytest.mark.slow
def test_run_processes_every_media_file_and_exits_1_when_some_fail(batch):
    assert batch["code"] == 1
    status = {Path(m["input"]).name: m["status"] for m in batch["out"]["media"]}
    assert status == {"broken.mp3": "failed", "call.flac": "finished", "empty.wav": "failed",
                      "voicemail.wav": "finished"}


@pytest.mark.slow
def test_outputs_are_written_beside_each_input(batch):
    folder = batch["folder"]
    for base in (folder / "call", folder / "sub" / "voicemail"):
        for suffix in (".v3.json", ".txt", ".srt", ".vtt", ".dfxp"):
            assert Path(str(base) + suffix).stat().st_size > 0
    assert not list(folder.rglob("*.tmp")) and not (folder / "notes.v3.json").exists()
    assert json.loads((folder / "broken.v3.json").read_text())["status"] == "failed"


@pytest.mark.slow
def test_media_item_json_has_the_spec_fields_and_types(batch):
    item = json.loads((batch["folder"] / "call.v3.json").read_text())
    mid = item["mediaId"]
    assert item["_links"] == {"self": {"href": f"/v3/media/{mid}"}, "progress": {"href": f"/v3/media/{mid}/progress"},
                              "metadata": {"href": f"/v3/media/{mid}/metadata"}}
    assert item["status"] == "finished" and item["mediaContentType"] == "audio/flac"
    assert isinstance(item["length"], int) and abs(item["length"] - 69595) < 50
    assert re.match(ISO_MS, item["dateCreated"]) and re.match(ISO_MS, item["dateFinished"])
    assert item["metadata"] == {"title": "Support call", "externalId": "ext-42", "extended": {"team": {"id": 7}}}
    assert re.match(r"^\d+\.\d+\.\d+$", item["formatVersion"])
    transcript = item["transcript"]
    assert set(transcript) == {"confidence", "words", "voiceActivity"}
    assert [va["speakerName"] for va in transcript["voiceActivity"]] == ["Agent", "Caller"]
    for w in transcript["words"]:
        assert set(w) <= {"p", "c", "s", "e", "w", "m"} and isinstance(w["s"], int) and isinstance(w["e"], int)


@pytest.mark.slow
def test_failed_items_say_why(batch):
    failed = {Path(m["input"]).name: m for m in batch["out"]["media"] if m["status"] == "failed"}
    code, item = invoke("media", "get", failed["empty.wav"]["mediaId"])
    assert code == 0 and item["status"] == "failed"
    assert item["errors"][0]["code"] == 10201 and "empty" in item["errors"][0]["error"]


@pytest.mark.slow
def test_media_list_get_progress_and_metadata(batch):
    code, listing = invoke("media", "list", "--limit", "2")
    assert code == 0 and len(listing["media"]) == 2 and "_links" in listing
    assert all("transcript" not in m for m in listing["media"])
    call_id = next(m["mediaId"] for m in batch["out"]["media"] if m["input"].endswith("call.flac"))
    code, item = invoke("media", "get", call_id)
    assert code == 0 and item["transcript"]["words"]
    code, progress = invoke("media", "progress", call_id)
    assert progress["progress"]["status"] == "finished"
    # the default configuration of a stereo call: no diarization, no analytics; those show as skipped
    ran = {"decode", "asr", "punctuation", "turns"}
    assert [t["status"] for t in progress["progress"]["tasks"]] == \
        ["finished" if st.name in ran else "skipped" for st in pipeline.STAGES] + ["finished"]  # + publish
    code, meta = invoke("media", "metadata", call_id)
    assert meta["title"] == "Support call" and meta["_links"]["self"]["href"].endswith(call_id)


@pytest.mark.slow
@pytest.mark.parametrize("fmt, start", [("text", "Agent: "), ("srt", "1\n00:00:0"), ("webvtt", "WEBVTT\n\n1\n"),
                                        ("dfxp", '<tt xmlns="http://www.w3.org/2006/04/ttaf1"')])
def test_transcript_in_every_format_matches_the_files(batch, fmt, start):
    call_id = next(m["mediaId"] for m in batch["out"]["media"] if m["input"].endswith("call.flac"))
    code, text = invoke("transcript", call_id, "--format", fmt)
    suffix = {"text": ".txt", "srt": ".srt", "webvtt": ".vtt", "dfxp": ".dfxp"}[fmt]
    on_disk = (batch["folder"] / f"call{suffix}").read_text()
    assert code == 0 and text.startswith(start)
    assert text.rstrip("\n") == on_disk.rstrip("\n")


@pytest.mark.slow
def test_transcript_json_with_alternate_formats_only_when_asked(batch):
    call_id = next(m["mediaId"] for m in batch["out"]["media"] if m["input"].endswith("call.flac"))
    _, plain = invoke("transcript", call_id)
    assert "alternateFormats" not in plain["transcript"] and plain["mediaId"] == call_id
    _, rich = invoke("transcript", call_id, "--include-alternate-format", "srt",
                     "--include-alternate-format", "text")
    assert [a["format"] for a in rich["transcript"]["alternateFormats"]] == ["srt", "text"]


@pytest.mark.slow
def test_transcript_of_a_failed_item_is_the_v3_404(batch):
    failed_id = next(m["mediaId"] for m in batch["out"]["media"] if m["status"] == "failed")
    code, body = invoke("transcript", failed_id)
    assert code == 1 and body["status"] == 404 and body["warnings"]["code"] == 10301
    assert "finished" in body["warnings"]["message"] and body["reference"]


def test_unknown_media_id_is_a_404():
    code, body = invoke("media", "get", "00000000-0000-0000-0000-000000000000")
    assert code == 1 and body["status"] == 404 and body["warnings"][0]["code"] == 10205


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_colliding_names_keep_their_extension(tmp_path):
    shutil.copy(SAMPLES / "voicemail.wav", tmp_path / "msg.wav")
    shutil.copy(SAMPLES / "voicemail.wav", tmp_path / "msg.flac")  # same stem, different file
    code, _ = invoke("run", str(tmp_path), "--quiet")
    assert (tmp_path / "msg.wav.v3.json").exists() and (tmp_path / "msg.flac.srt").exists()


@pytest.mark.slow
def test_requested_but_not_yet_computed_sections_are_reported_as_warnings(tmp_path):
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"transcript": {"contentFiltering": {"enableProfanityFiltering": True}}}))
    shutil.copy(SAMPLES / "voicemail.wav", tmp_path / "v.wav")
    code, _ = invoke("run", str(tmp_path / "v.wav"), "--config", str(cfg), "--quiet")
    item = json.loads((tmp_path / "v.v3.json").read_text())
    assert code == 0 and any("enableProfanityFiltering" in w["message"] for w in item["warnings"])


@pytest.mark.slow
def test_the_installed_command_runs_as_a_program(tmp_path):
    shutil.copy(SAMPLES / "voicemail.wav", tmp_path / "v.wav")
    exe = Path(sys.executable).with_name("speechproc")
    proc = subprocess.run([str(exe), "run", str(tmp_path), "--quiet"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    media_id = json.loads(proc.stdout)["media"][0]["mediaId"]
    srt = subprocess.run([str(exe), "transcript", media_id, "--format", "srt"], capture_output=True, text=True)
    assert srt.stdout.startswith("1\n") and "Speaker: " in srt.stdout


def test_every_command_has_help_with_an_example():
    from speechproc.cli.commands import main as group

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


@pytest.mark.slow
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
    srt, vtt = Path(files["srt"]).read_text(), Path(files["webvtt"]).read_text()
    assert srt.startswith("1\n00:00:0") and srt.split("\n")[2].startswith("Agent: ")  # the agent opens the call
    assert vtt.startswith("WEBVTT\n") and re.search(r"^Agent: ", vtt, re.M) and re.search(r"^Caller: ", vtt, re.M)
    assert "Agent: " in Path(files["dfxp"]).read_text() and "Caller: " in Path(files["dfxp"]).read_text()


def metric(item: dict, group: str, name: str) -> float:
    values = next(g["metricValues"] for g in item["metrics"] if g["metricGroupName"] == group)
    return next(v["metricValue"] for v in values if v["metricName"] == name)


@pytest.mark.slow
def test_progress_shows_the_stages_a_configuration_asks_for_as_run(callcenter):
    code, progress = invoke("media", "progress", callcenter["mediaId"])
    status = {t["display"]: t["status"] for t in progress["progress"]["tasks"]}
    asked = ("voice", "sentiment", "verbnoun", "knowledge", "metrics")
    assert code == 0 and all(status[st.display] == "finished" for st in pipeline.STAGES if st.name in asked)
    assert all(status[st.display] == "skipped" for st in pipeline.STAGES
               if st.name in ("diarize", "detect", "spotting", "categories", "classify"))


@pytest.mark.slow
def test_callcenter_config_produces_every_analytics_section(callcenter):
    assert "warnings" not in callcenter
    assert [g["metricGroupName"] for g in callcenter["metrics"]] == [
        "overtalk", "talk-time-and-rate", "talk-style-tone-and-volume", "sentiment"]
    assert [len(g["metricValues"]) for g in callcenter["metrics"]] == [6, 18, 8, 12]
    assert all(isinstance(v["metricValue"], float) for g in callcenter["metrics"] for v in g["metricValues"])
    assert [s["speakerName"] for s in callcenter["speakerSentiments"]] == ["Agent", "Caller"]
    assert all(-1 <= v["v"] <= 1 and v["s"] <= v["e"] for s in callcenter["speakerSentiments"]
               for v in s["sentimentValues"])
    said = {(w["s"], w["e"]) for w in callcenter["transcript"]["words"] if "m" not in w}
    pairs = callcenter["conversation"]["speakerVerbNounPairs"]
    assert [p["speakerName"] for p in pairs] == ["Agent", "Caller"] and all(p["verbNounPairs"] for p in pairs)
    for pair in (x for p in pairs for x in p["verbNounPairs"]):
        assert pair["verb"] and pair["noun"] and pair["s"] < pair["e"]
        assert any(s == pair["s"] for s, _ in said) and any(e == pair["e"] for _, e in said)  # word boundaries
    keywords = callcenter["knowledge"]["keywords"]
    assert keywords and all(0 < k["relevance"] <= 1 and k["mentions"] for k in keywords)
    for k in keywords:
        for mention in k["mentions"]:
            assert mention["speakerName"] in ("Agent", "Caller")
            assert all(0 <= o["s"] < o["e"] <= callcenter["length"] and o["exact"] for o in mention["occurrences"])
    topics = callcenter["knowledge"]["topics"]
    assert topics and [t["relevance"] for t in topics] == sorted((t["relevance"] for t in topics), reverse=True)


def known_talk() -> tuple[dict[str, int], int]:
    """From truth.json: each party's talk in ms, and the union of both (their one overlap is 0.9 s)."""
    from conftest import truth_for

    turns = truth_for("call.flac")["turns"]
    talk = {who: sum(t["e"] - t["s"] for t in turns if t["speaker"] == who) for who in ("Agent", "Caller")}
    return talk, talk["Agent"] + talk["Caller"] - 900


@pytest.mark.slow
def test_callcenter_metrics_of_the_known_words_match_the_calls_timing(truth_call):
    """truth.json: one overlap (the caller's "Oh good" under the agent, 0.9 s), one 5.2 s hold. Counts hang on
    single words (a word heard or not, a few hundred ms more or less), so they are checked on the known words."""
    talk, union = known_talk()
    assert metric(truth_call, "overtalk", "overtalk-incidents") == 1
    assert metric(truth_call, "overtalk", "caller-overtalk-incidents") == 1
    assert metric(truth_call, "overtalk", "agent-overtalk-incidents") == 0
    assert 0.01 <= metric(truth_call, "overtalk", "overtalk-ratio") <= 0.02
    assert metric(truth_call, "overtalk", "caller-overtalk-ratio") == 1.0
    assert metric(truth_call, "talk-time-and-rate", "silence-incidents") == 1
    assert metric(truth_call, "talk-time-and-rate", "agent-talk-ratio") == pytest.approx(talk["Agent"] / union, abs=0.02)
    assert metric(truth_call, "talk-time-and-rate", "caller-talk-ratio") == pytest.approx(talk["Caller"] / union,
                                                                                         abs=0.02)
    assert metric(truth_call, "talk-time-and-rate", "silence-ratio") == pytest.approx(1 - union / 69595, abs=0.02)


@pytest.mark.slow
def test_callcenter_metrics_of_a_run_stay_near_the_calls_timing(callcenter):
    """On recognised words, what the timing of the speech decides, with a margin for word times that stray by
    a few hundred ms on another CPU: the talk and silence ratios, the talk rate in a wide band, and values in
    range (counts of overtalk and silences are checked on the known words above)."""
    talk, union = known_talk()
    assert metric(callcenter, "talk-time-and-rate", "agent-talk-ratio") == pytest.approx(talk["Agent"] / union, abs=0.05)
    assert metric(callcenter, "talk-time-and-rate", "caller-talk-ratio") == pytest.approx(talk["Caller"] / union,
                                                                                         abs=0.05)
    assert metric(callcenter, "talk-time-and-rate", "silence-ratio") == pytest.approx(1 - union / 69595, abs=0.05)
    assert 0 <= metric(callcenter, "overtalk", "overtalk-ratio") <= 0.05
    assert 120 <= metric(callcenter, "talk-time-and-rate", "agent-talk-rate") <= 240
    assert -1 <= metric(callcenter, "sentiment", "call-sentiment") <= 1
    assert metric(callcenter, "talk-style-tone-and-volume", "agent-relative-voice-volume-energy") > 0


# --- the call's known words through the same stages: analytics that depend on the words -------------------

@pytest.mark.slow
def test_truth_call_produces_every_analytics_section_like_a_run(truth_call, callcenter):
    assert "warnings" not in truth_call
    sections = ("metrics", "speakerSentiments", "conversation", "knowledge", "categories", "spotting")
    assert all(section in callcenter for section in sections[:4]) and all(section in truth_call for section in sections)
    assert [(g["metricGroupName"], [v["metricName"] for v in g["metricValues"]]) for g in truth_call["metrics"]] == \
        [(g["metricGroupName"], [v["metricName"] for v in g["metricValues"]]) for g in callcenter["metrics"]]
    speakers = [w["w"] for w in truth_call["transcript"]["words"] if w.get("m") == "turn"]
    truth = [t["speaker"] for t in truth_for("call.flac")["turns"]]
    assert speakers == [who for i, who in enumerate(truth) if not i or truth[i - 1] != who]


@pytest.mark.slow
def test_verb_noun_pairs_keywords_and_topics_of_the_known_call(truth_call):
    pairs = {p["speakerName"]: {(x["verb"], x["noun"]) for x in p["verbNounPairs"]}
             for p in truth_call["conversation"]["speakerVerbNounPairs"]}
    assert {("issue", "refund"), ("see", "charge")} <= pairs["Agent"] and ("like", "refund") in pairs["Caller"]
    keywords = {k["keyword"]: k for k in truth_call["knowledge"]["keywords"]}
    assert {"refund", "double charge", "internet bill"} <= set(keywords)
    assert {m["speakerName"] for m in keywords["refund"]["mentions"]} == {"Agent", "Caller"}
    [double] = [o for m in keywords["double charge"]["mentions"] for o in m["occurrences"]]
    turn = next(t for t in truth_for("call.flac")["turns"] if "double charge" in t["text"])
    assert turn["s"] <= double["s"] < double["e"] <= turn["e"]  # said where truth.json has it
    billing = truth_call["knowledge"]["topics"][0]
    assert billing["topicName"] == "Billing"
    assert {"Refund", "Double charge"} <= {s["name"] for s in billing["subtopics"]}


@pytest.mark.slow
def test_sentiment_of_the_known_call(truth_call):
    assert metric(truth_call, "sentiment", "call-sentiment") > 0  # a polite call that ends well
    assert metric(truth_call, "sentiment", "caller-sentiment") > 0
    sentences = {s["speakerName"]: s["sentimentValues"] for s in truth_call["speakerSentiments"]}
    sentence_ends = sum(t["text"].count(".") + t["text"].count("?") for t in truth_for("call.flac")["turns"])
    assert sum(len(v) for v in sentences.values()) == sentence_ends  # one value per sentence


@pytest.mark.slow
def test_metrics_of_the_known_call_follow_from_its_timing(truth_call):
    turns = truth_for("call.flac")["turns"]
    talk = {who: sum(t["e"] - t["s"] for t in turns if t["speaker"] == who) for who in ("Agent", "Caller")}
    union = talk["Agent"] + talk["Caller"] - 900  # "Oh good" under the agent
    assert metric(truth_call, "overtalk", "overtalk-incidents") == 1
    assert metric(truth_call, "overtalk", "caller-overtalk-incidents") == 1
    assert metric(truth_call, "overtalk", "overtalk-ratio") == round(900 / 69595, 2)
    assert metric(truth_call, "talk-time-and-rate", "silence-incidents") == 1  # the 5.2 s hold
    assert metric(truth_call, "talk-time-and-rate", "agent-talk-ratio") == pytest.approx(talk["Agent"] / union, abs=0.006)
    assert metric(truth_call, "talk-time-and-rate", "caller-talk-ratio") == pytest.approx(talk["Caller"] / union, abs=0.006)
    words = {"Agent": 0, "Caller": 0}  # as written, after number formatting ("forty dollars" is "$40")
    speaker = ""
    for w in truth_call["transcript"]["words"]:
        speaker = w["w"] if w.get("m") == "turn" else speaker
        words[speaker] += "m" not in w
    for who in ("Agent", "Caller"):
        rate = metric(truth_call, "talk-time-and-rate", f"{who.lower()}-talk-rate")
        assert rate == pytest.approx(words[who] / (talk[who] / 60000), rel=0.05)  # talk time counts short pauses


@pytest.mark.slow
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


@pytest.mark.slow
def test_analytics_sections_appear_only_when_asked_for(batch):
    item = json.loads((batch["folder"] / "call.v3.json").read_text())
    assert not {"metrics", "knowledge", "speakerSentiments", "conversation"} & set(item)


EXAMPLE_CATEGORIES = sorted(p.stem for p in (SAMPLES.parent / "configs" / "categories").glob("*.yaml"))
EXAMPLE_GROUPS = sorted(p.stem for p in (SAMPLES.parent / "configs" / "groups").glob("*.yaml"))


@pytest.fixture(scope="module")
def categorised(tmp_path_factory):
    """The shipped example categories and keyword groups stored, then the sample call run with all of them
    and analytic indexing; the definitions are deleted again after the module."""
    configs = SAMPLES.parent / "configs"
    try:
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
        yield item
    finally:
        for name in EXAMPLE_CATEGORIES:
            invoke("categories", "delete", name)
        for name in EXAMPLE_GROUPS:
            invoke("groups", "delete", name)


@pytest.mark.slow
def test_a_run_with_every_category_and_group_reports_each_of_them(categorised):
    """Whatever the model heard: every stored category and both groups, each consistent with its matches."""
    words = [w for w in categorised["transcript"]["words"] if "m" not in w]
    starts, ends = {w["s"] for w in words}, {w["e"] for w in words}  # a match is a run of words
    results = {c["categoryName"]: c for c in categorised["categories"]}
    assert set(EXAMPLE_CATEGORIES) <= set(results)  # allCategories: every stored one
    for result in results.values():
        assert result["categoryValue"] in (0, 1) and bool(result["categoryValue"]) == ("categoryMatches" in result)
        for match in result.get("categoryMatches", []):
            assert match["speakerName"] in ("Agent", "Caller") and match["occurrences"]
            assert all(o["s"] in starts and o["e"] in ends and o["exact"] for o in match["occurrences"])
    groups = categorised["spotting"]["groups"]
    assert [g["groupName"] for g in groups] == ["billing", "churn"]
    for group in groups:
        size = len(invoke("groups", "get", group["groupName"])[1]["keywords"])
        said = group["spottedKeywords"]
        assert group["spotted"] is bool(said) and group["score"] == f"{len(said) / size:.4f}"
        for keyword in said:
            assert {m["speakerName"] for m in keyword["mentions"]} <= {"Agent", "Caller"}
            assert all(o["s"] in starts and o["e"] in ends and o["exact"]
                       for m in keyword["mentions"] for o in m["occurrences"])


@pytest.mark.slow
def test_example_categories_on_the_known_call(truth_call):
    values = {c["categoryName"]: c["categoryValue"] for c in truth_call["categories"]}
    assert values == {"agent-apology": 1, "cancellation-intent": 0, "escalation-request": 0, "greeting": 1,
                      "payment-discussed": 1, "recording-disclosure": 0}
    greeting = next(c for c in truth_call["categories"] if c["categoryName"] == "greeting")
    [match] = greeting["categoryMatches"]
    assert match["speakerName"] == "Agent"
    assert match["occurrences"][0]["exact"] == "Thank you for calling"
    assert match["occurrences"][0]["s"] == truth_for("call.flac")["turns"][0]["s"]  # the call's first words
    unmatched = next(c for c in truth_call["categories"] if c["categoryName"] == "escalation-request")
    assert "categoryMatches" not in unmatched


@pytest.mark.slow
def test_keyword_groups_on_the_known_call(truth_call):
    billing, churn = truth_call["spotting"]["groups"]
    assert billing["groupName"] == "billing" and billing["spotted"] is True
    said = {k["keyword"]: k for k in billing["spottedKeywords"]}
    assert set(said) == {"refund", "charged twice", "double charge", "bill"}
    assert {m["speakerName"] for m in said["refund"]["mentions"]} == {"Agent", "Caller"}
    assert billing["score"] == f"{4 / 7:.4f}"
    assert churn == {"groupName": "churn", "spotted": False, "score": "0.0000", "spottedKeywords": []}


@pytest.mark.slow
def test_the_indexed_known_call_answers_corpus_queries(truth_call):
    from speechproc import api
    from speechproc.store.database.catalog import Catalog

    with Catalog(truth_call["_catalog"]) as catalog:
        out = api.query('SELECT mediaId, hits() FROM media WHERE "Agent" SAYS "refund*" '
                        'AND metrics:"agent-talk-ratio" > 0.3', catalog)
        assert [r["mediaId"] for r in out["rows"]] == [truth_call["mediaId"]]
        [[hit]] = out["hits"]
        turn = next(t for t in truth_for("call.flac")["turns"] if "issued a refund" in t["text"])
        assert hit["text"] == "refund" and hit["speaker"] == "Agent" and turn["s"] <= hit["startMs"] <= turn["e"]
        assert api.query('SELECT mediaId FROM media WHERE "Caller" SAYS "supervisor*"', catalog)["rows"] == []


@pytest.mark.slow
def test_indexed_calls_answer_corpus_queries(categorised):
    code, out = invoke("query", 'SELECT mediaId, wordCount FROM media WHERE metrics:"agent-talk-ratio" > 0.3 '
                                'AND wordCount > 100')
    assert code == 0 and categorised["mediaId"] in [r["mediaId"] for r in out["rows"]]
    row = next(r for r in out["rows"] if r["mediaId"] == categorised["mediaId"])
    assert row["wordCount"] == sum("m" not in w for w in categorised["transcript"]["words"])
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
    try:
        assert invoke("categories", "put", "temp-cat", str(good))[0] == 0
        assert "temp-cat" in [c["categoryName"] for c in invoke("categories", "list")[1]["categories"]]
        assert invoke("categories", "delete", "temp-cat")[0] == 0
        assert invoke("categories", "delete", "temp-cat")[0] == 1
    finally:
        invoke("categories", "delete", "temp-cat")


@pytest.mark.slow
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
        assert out["media"][0]["mediaId"] != categorised["mediaId"]
        item = json.loads((cfg.parent / "call.v3.json").read_text())
        [hold] = [c for c in item["categories"] if c["categoryName"] == "hold-request"]  # whatever was heard
        assert hold["categoryValue"] in (0, 1)
        assert {c["categoryName"] for c in item["categories"]} == {c["categoryName"] for c in categorised["categories"]
                                                                  } | {"hold-request"}
    finally:
        invoke("categories", "delete", "hold-request")


class Exited(Exception):
    pass


@pytest.mark.parametrize("raised, code, message", [
    (None, 0, ""), (SystemExit(0), 0, ""), (SystemExit(None), 0, ""), (SystemExit(2), 2, ""),
    (SystemExit(130), 130, ""), (SystemExit("cannot go on"), 1, "cannot go on"),
])
def test_the_console_script_leaves_quickly_with_the_command_s_exit_code(monkeypatch, capsys, raised, code, message):
    from speechproc.cli import commands as cli

    def command():
        if raised is not None:
            raise raised

    def leave(status):
        raise Exited(status)

    monkeypatch.setattr(cli, "main", command)
    monkeypatch.setattr(cli.os, "_exit", leave)
    monkeypatch.setattr(cli.logging, "shutdown", lambda: None)  # pytest's own log handlers stay open
    with pytest.raises(Exited) as exited:
        cli.entry()
    assert exited.value.args == (code,)
    assert capsys.readouterr().err.strip() == message


def test_the_console_script_exits_normally_while_a_thread_still_works(monkeypatch):
    import threading

    from speechproc.cli import commands as cli

    release = threading.Event()
    worker = threading.Thread(target=release.wait)
    worker.start()
    try:
        monkeypatch.setattr(cli, "main", lambda: None)
        monkeypatch.setattr(cli.os, "_exit", lambda status: pytest.fail("left without waiting for the thread"))
        with pytest.raises(SystemExit) as exited:
            cli.entry()
        assert exited.value.code == 0
    finally:
        release.set()
        worker.join()


def test_the_installed_command_prints_the_summary_and_exits_with_its_code(tmp_path):
    script = Path(sys.executable).parent / "speechproc"
    if not script.exists():
        pytest.skip("speechproc is not installed as a console script in this environment")
    done = subprocess.run([str(script), "run", str(tmp_path / "absent.wav"), "--quiet", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert json.loads(done.stdout)["media"][0]["status"] == "failed"


@pytest.mark.slow
def test_the_export_of_a_processed_call_equals_its_json(categorised, tmp_path):
    import pyarrow.parquet as pq

    out = tmp_path / "calls.parquet"
    query = f"SELECT * FROM media WHERE mediaId = '{categorised['mediaId']}'"
    code, summary = invoke("export", "--format", "parquet", "--query", query, "-o", str(out))
    assert code == 0 and summary["rows"] == 1, summary
    row = pq.read_table(out).to_pylist()[0]
    assert row["mediaId"] == categorised["mediaId"] and row["status"] == "finished"
    assert row["length"] == categorised["length"] and row["dateCreated"] == categorised["dateCreated"]
    metrics = {m["metricName"]: m["metricValue"] for g in categorised["metrics"] for m in g["metricValues"]}
    assert metrics and {k: row[f"metric.{k}"] for k in metrics} == metrics
    assert {c["categoryName"]: row[f"category.{c['categoryName']}"] for c in categorised["categories"]} == \
        {c["categoryName"]: c["categoryValue"] for c in categorised["categories"]}
    assert {g["groupName"]: row[f"spotted.{g['groupName']}"] for g in categorised["spotting"]["groups"]} == \
        {g["groupName"]: int(g["spotted"]) for g in categorised["spotting"]["groups"]}
