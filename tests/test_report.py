"""The HTML reports without a browser: what each section holds, links to moments, size, escaping, the
corpus figures, and the `speechproc report` command's files and errors (tests/test_report_browser.py
opens them in Chromium)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import invoke
from speechproc.report import call as report
from speechproc.report import corpus as corpus_report
from speechproc.report import player as report_player
from speechproc.report import writing as reporting
from speechproc.store.database.catalog import Catalog

AGENT, CALLER = "Agent", "Caller"


def word(p: int, s: int, e: int, w: str, m: str | None = None) -> dict:
    out = {"p": p, "c": 0.9, "s": s, "e": e, "w": w}
    if m:
        out["m"] = m
    return out


def conversation(turns: list[tuple[str, int, list[str]]], word_ms: int = 300) -> list[dict]:
    """Transcript words for (speaker, start ms, words) turns, a turn marker before each."""
    words, p = [], 0
    for speaker, start, said in turns:
        words.append(word(p, start, start + word_ms * len(said), speaker, "turn"))
        p += 1
        for i, text in enumerate(said):
            words.append(word(p, start + i * word_ms, start + (i + 1) * word_ms - 20, text))
            p += 1
    return words


def call_item(**extra) -> dict:
    """A finished two-speaker item: the agent 0-3 s and 10-12 s, the caller 2.5-6 s (0.5 s of overtalk),
    then 4 s of silence (6-10 s), nothing over 4 s... and a silence of 5 s from 12 s to 17 s."""
    words = conversation([(AGENT, 0, ["hello", "thanks", "for", "calling", "acme", "how", "can", "I", "help", "you"]),
                          (CALLER, 2500, ["I", "want", "a", "refund", "for", "my", "card", "ok", "yes", "please",
                                          "now", "sure"]),
                          (AGENT, 10000, ["sure", "let", "me", "check", "that"]),
                          (CALLER, 17000, ["thank", "you"])])
    item = {"mediaId": "11111111-2222-4333-8444-555555555555", "status": "finished", "length": 20000,
            "dateCreated": "2026-03-02T10:00:00Z", "metadata": {"title": "Refund call", "extended": {"agent": "Ann"}},
            "transcript": {"words": words, "voiceActivity": [
                {"speakerName": AGENT, "occurrences": [{"s": 0, "e": 3000}, {"s": 10000, "e": 12000}]},
                {"speakerName": CALLER, "occurrences": [{"s": 2500, "e": 6000}, {"s": 17000, "e": 17600}]}]}}
    item.update(extra)
    return item


def html_of(item: dict, audio: str | None = None) -> str:
    return report.render(item, audio, "call.wav")


def section_ids(page: str) -> list[str]:
    return re.findall(r'<section id="([^"]+)"', page)


def test_overtalk_and_long_silences_come_from_the_speakers_voice_activity():
    lanes = [(AGENT, [(0, 3000), (10000, 12000)]), (CALLER, [(2500, 6000), (17000, 17600)])]
    assert report.overtalk_spans(lanes) == [(2500, 3000)]
    assert report.silence_spans(lanes) == [(12000, 17000)]  # 6-10 s is exactly 4 s: not over it
    assert report.silence_spans([("x", [(0, 1000), (5001, 6000)])]) == [(1000, 5001)]


def full_item() -> dict:
    """`call_item` with every section: metrics, sentiment, keywords, a category, a group, a detection."""
    return call_item(
        metrics=[{"metricGroupName": "sentiment", "metricValues": [{"metricName": "call-sentiment", "metricValue": 0.25}]},
                 {"metricGroupName": "overtalk", "metricValues": [{"metricName": "overtalk-incidents", "metricValue": 1}]}],
        speakerSentiments=[{"speakerName": AGENT, "sentimentValues": [{"s": 0, "e": 3000, "v": 0.4}]}],
        knowledge={"keywords": [{"keyword": "refund", "relevance": 0.5, "mentions": [
            {"speakerName": CALLER, "occurrences": [{"s": 3400, "e": 3680, "exact": "refund"}]}]}], "topics": []},
        categories=[{"categoryName": "refund-request", "categoryValue": 1, "categoryMatches": [
            {"speakerName": CALLER, "occurrences": [{"s": 2800, "e": 3680, "exact": "want a refund"}]}]},
            {"categoryName": "greeting", "categoryValue": 0}],
        spotting={"groups": [{"groupName": "billing", "spotted": True, "score": "0.5000", "spottedKeywords": [
            {"keyword": "card", "mentions": [{"speakerName": CALLER, "occurrences": [{"s": 4300, "e": 4580}]}]}]}]},
        prediction={"classifiers": [], "detectors": [{"detectorName": "PCI", "detections": [
            {"detectorClass": 1, "detectorClassLabel": "PCI", "detectedSegments": [
                {"speakerName": CALLER, "occurrences": [{"s": 4300, "e": 5200}]}]}]}]},
        conversation={"speakerVerbNounPairs": [{"speakerName": CALLER, "verbNounPairs": [
            {"s": 2800, "e": 3680, "verb": "want", "noun": "refund"}]}]})


ALL_SECTIONS = ["summary", "timeline", "sentiment", "metrics", "knowledge", "categories", "spotting", "predictions",
                "verbnouns", "transcript"]


def test_overtalk_is_found_in_one_sweep_over_any_number_of_speakers():
    import random

    from speechproc.stages.analytics.metrics import intersect, merge

    rng = random.Random(7)
    for _ in range(200):
        lanes = []
        for n in range(rng.randint(1, 5)):
            starts = sorted(rng.sample(range(0, 10_000, 10), 6))
            lanes.append((f"s{n}", [(s, s + rng.randint(0, 900)) for s in starts]))
        pairwise = merge(span for i, (_, a) in enumerate(lanes) for _, b in lanes[i + 1:]
                         for span in intersect(merge(a), merge(b)))
        assert report.overtalk_spans(lanes) == pairwise, lanes
    assert report.overtalk_spans([("a", [(0, 10)]), ("b", [(10, 20)])]) == []  # touching is not overlapping


def test_a_crowd_of_speakers_is_drawn_as_twelve_lanes():
    item = call_item()
    item["transcript"]["voiceActivity"] = [{"speakerName": f"speaker {n}", "occurrences": [{"s": n, "e": n + 1000 + n}]}
                                           for n in range(20_000)]
    timeline = next(s for s in report.sections(item) if s.id == "timeline").body
    assert ">speaker 19999</text>" in timeline and ">19989 other speakers</text>" in timeline  # the 11 who talk most
    assert ">speaker 0</text>" not in timeline


def test_sections_appear_only_when_the_item_has_them():
    page = html_of(call_item())
    assert section_ids(page) == ["summary", "timeline", "transcript"]
    full = full_item()
    page = html_of(full)
    assert section_ids(page) == ALL_SECTIONS
    # the spec's group order, whatever the item's
    assert page.index("<h3>overtalk</h3>") < page.index("<h3>sentiment</h3>")
    # every match links to the word said at its moment, and plays from there
    words = {w["p"]: w for w in full["transcript"]["words"]}
    for label, start in (("want a refund <", 2800), ("0:03</a>", 3400)):  # a match's words; a mention's time
        link = re.search(r'<a href="#w(\d+)" data-s=(\d+)>' + re.escape(label), page)
        assert link is not None, label
        assert words[int(link.group(1))]["s"] == start == int(link.group(2))
        assert f"<span id=w{link.group(1)} data-s={start}>" in page
    # a detected word is marked in the transcript, others are not
    card = next(w for w in full["transcript"]["words"] if w["w"] == "card")
    assert f"<span id=w{card['p']} data-s={card['s']} class=det>card</span>" in page
    assert "class=det>want<" not in page
    my = next(w for w in full["transcript"]["words"] if w["w"] == "my")
    assert my["e"] < 4300 and "class=det>my<" not in page  # before the detection: not marked
    full["prediction"]["detectors"][0]["detections"][0]["detectedSegments"][0]["occurrences"][0]["s"] = my["e"]
    assert "class=det>my<" not in html_of(full)  # a detection starting as the word ends: still not marked


def test_the_player_and_its_script_come_only_with_a_recording():
    without = html_of(call_item())
    assert "<audio" not in without and "<script>" not in without
    played = html_of(call_item(), "../media/call%20one.wav")
    assert '<audio id="player" controls preload="metadata" src="../media/call%20one.wav">' in played
    assert "<script>" in played


def test_nothing_from_the_item_can_inject_markup():
    hostile = "</script><script>alert(1)</script><img src=x onerror=alert(2)>"
    item = call_item()
    item["metadata"] = {"title": hostile, "extended": {hostile: hostile}}
    item["transcript"]["words"][1]["w"] = hostile
    item["categories"] = [{"categoryName": hostile, "categoryValue": 1, "categoryMatches": [
        {"speakerName": hostile, "occurrences": [{"s": "x", "e": None, "exact": hostile}, "not an object"]}]}]
    page = report.render(item, 'a" onerror="x', hostile)
    assert "<script>alert" not in page and "<img" not in page and 'onerror="x' not in page
    assert page.count("<script>") == 1  # the page's own


def test_a_malformed_item_still_gives_a_page():
    for item in ({}, {"mediaId": "x", "transcript": {"words": "nonsense", "voiceActivity": [1, "a"]}},
                 {"mediaId": "x", "errors": ["a"], "metadata": [1], "speakerSentiments": [1],
                  "prediction": {"detectors": [{"detectorName": "PCI", "detections": [1]}]},
                  "metrics": [{"metricGroupName": "overtalk", "metricValues": [1]}],
                  "categories": [{"categoryName": "c", "categoryValue": 1, "categoryMatches": {"a": 1}}],
                  "knowledge": "none", "spotting": [1], "conversation": {"speakerVerbNounPairs": [None]},
                  "streams": {"streamName": "redacted-audio"}},
                 {"mediaId": "x", "metrics": [{"metricGroupName": "overtalk", "metricValues": []}],
                  "speakerSentiments": [{"speakerName": "A", "sentimentValues": [{"s": "a", "e": 1, "v": 2}]}],
                  "length": float("nan")}):
        page = report.render(item)
        assert page.startswith("<!DOCTYPE html>") and "summary" in section_ids(page)


def test_text_is_never_read_as_chart_math():
    """matplotlib reads $...$ as math notation: a speaker called that is drawn as written (and an odd
    number of dollars does not break the chart)."""
    item = call_item()
    for name in ("Agent $x^$", "$\\alpha$ $"):
        item["transcript"]["voiceActivity"][0]["speakerName"] = name
        timeline = next(s for s in report.sections(item) if s.id == "timeline").body
        assert f">{name}</text>" in timeline


def test_a_redacted_call_plays_only_its_redacted_copy(tmp_path):
    """The report of an item whose audio was redacted plays the redacted copy or nothing, never the
    original, wherever the report is and whatever lies beside it."""
    for name in ("call.flac", "call.redacted.flac", "call.v3.json"):
        (tmp_path / name).write_bytes(b"x")
    item = {**full_item(), "streams": [
        {"streamName": "original", "streamLocation": (tmp_path / "call.flac").as_uri()},
        {"streamName": "redacted-audio", "streamLocation": "file:///elsewhere/call.redacted.flac"}]}
    assert report_player.choose_recording(item, tmp_path / "call.flac", tmp_path / "call.v3.json") == (
        tmp_path / "call.redacted.flac", True)  # its stream is gone: the copy beside its .v3.json
    (tmp_path / "call.redacted.flac").unlink()
    assert report_player.choose_recording(item, tmp_path / "call.flac", tmp_path / "call.v3.json") == (None, False)
    page = report.page_at(item, tmp_path / "call.report.html", tmp_path / "call.flac", tmp_path / "call.v3.json")
    assert "<audio" not in page and "the original is never played" in page
    assert "the redacted audio has them replaced by a tone" in page
    plain = call_item()
    assert report_player.choose_recording(plain, None, tmp_path / "call.v3.json") == (tmp_path / "call.flac", False)
    # a stream may only point the player at a media file, never at any file of the machine
    (tmp_path / "secret.txt").write_text("x")
    odd = call_item(streams=[{"streamName": "original", "streamLocation": (tmp_path / "secret.txt").as_uri()}])
    assert report_player.choose_recording(odd, None) == (None, False)


def long_call(minutes: int = 60) -> dict:
    """A two-speaker call of `minutes` in 6-second turns of 15 words each, with a sentence sentiment per
    turn, metrics, keywords with many mentions: the size of a real call of that length or more."""
    turns, sentiments = [], {AGENT: [], CALLER: []}
    for n, start in enumerate(range(0, minutes * 60_000, 6000)):
        speaker = AGENT if n % 2 == 0 else CALLER
        turns.append((speaker, start, [f"word{(n * 15 + i) % 997}" for i in range(15)]))
        sentiments[speaker].append({"s": start, "e": start + 4500, "v": round(((n * 37) % 200 - 100) / 100, 2)})
    words = conversation(turns)
    activity = {AGENT: [], CALLER: []}
    for speaker, start, said in turns:
        activity[speaker].append({"s": start, "e": start + 300 * len(said)})
    mentions = [{"speakerName": CALLER, "occurrences": [{"s": w["s"], "e": w["e"], "exact": w["w"]}
                                                         for w in words[1:400:16] if "m" not in w]}]
    return {"mediaId": "x", "status": "finished", "length": minutes * 60_000,
            "transcript": {"words": words, "voiceActivity": [{"speakerName": k, "occurrences": v}
                                                             for k, v in activity.items()]},
            "speakerSentiments": [{"speakerName": k, "sentimentValues": v} for k, v in sentiments.items()],
            "knowledge": {"keywords": [{"keyword": f"k{i}", "relevance": 0.5, "mentions": mentions}
                                       for i in range(20)], "topics": []},
            "metrics": [{"metricGroupName": "overtalk", "metricValues": [{"metricName": "overtalk-ratio",
                                                                          "metricValue": 0.1}]}]}


def test_a_one_hour_call_report_stays_under_two_megabytes():
    item = long_call(60)
    words = sum(1 for w in item["transcript"]["words"] if "m" not in w)
    assert words >= 9000  # 150 words a minute: a fast talker's hour
    page = report.render(item, "call.wav", "call.wav")
    assert len(page.encode()) <= 2 * 2**20, len(page.encode())
    assert page.count(" data-s=") >= words  # every word is there to click


# ------------------------------------------------------------------------------------------ corpus


def record(n: int, day: str, status: str = "finished", talk: float = 0.5, refund: int | None = 1,
           billing: bool | None = None, extended_day: str | None = None) -> dict:
    item = {"mediaId": f"m{n}", "status": status, "dateCreated": f"{day}T09:00:00Z", "length": 60_000 * (n + 1),
            "metadata": {"extended": {"callDate": extended_day}} if extended_day else {},
            "metrics": [{"metricGroupName": "talk-time-and-rate",
                         "metricValues": [{"metricName": "agent-talk-ratio", "metricValue": talk},
                                          {"metricName": "silence-ratio", "metricValue": 0.1}]}]}
    if refund is not None:
        item["categories"] = [{"categoryName": "refund", "categoryValue": refund}]
    if billing is not None:
        item["spotting"] = {"groups": [{"groupName": "billing", "spotted": billing}]}
    return {"media_id": f"m{n}", "input_path": f"/calls/{n}.wav", "item": item}


def test_corpus_figures_count_only_what_each_item_computed():
    records = [record(0, "2026-03-01", talk=0.2, refund=1, billing=True),
               record(1, "2026-03-01", talk=0.4, refund=0, billing=False),
               record(2, "2026-03-03", talk=0.9, refund=None, billing=True),  # no categories asked for
               record(3, "2026-03-04", status="failed", refund=None)]
    corpus = corpus_report.gather(records)
    assert corpus.statuses == {"finished": 3, "failed": 1}
    assert corpus.metrics["agent-talk-ratio"] == [0.2, 0.4, 0.9]  # finished items only
    assert corpus.categories == {"refund": [1, 2]} and corpus.groups == {"billing": [2, 3]}
    assert corpus.lengths_ms == [60_000, 120_000, 180_000, 240_000]
    page = corpus_report.render(records)
    assert section_ids(page) == ["overview", "distributions", "categories", "spotting", "trend", "items"]
    assert "<td>refund</td><td class=\"n\">1</td><td class=\"n\">2</td><td class=\"n\">50.0%</td>" in page


def test_the_trend_is_bucketed_by_day_week_or_month_over_the_chosen_date():
    import datetime as dt

    days = [dt.date(2026, 3, 1), dt.date(2026, 3, 20)]
    assert corpus_report.bucket_unit(days) == "day"
    assert corpus_report.bucket_unit([dt.date(2026, 1, 1), dt.date(2026, 6, 1)]) == "week"
    assert corpus_report.bucket_unit([dt.date(2025, 1, 1), dt.date(2026, 6, 1)]) == "month"
    assert corpus_report.bucket_of(dt.date(2026, 3, 5), "week") == "2026-03-02"  # its Monday
    assert corpus_report.bucket_of(dt.date(2026, 3, 5), "month") == "2026-03"
    for text, day in (("2026-03-05", dt.date(2026, 3, 5)), ("2026-03-05T23:30:00Z", dt.date(2026, 3, 5)),
                      ("2026-03-05 08:00", dt.date(2026, 3, 5)), ("yesterday", None), (20260305, None), ("", None)):
        assert corpus_report.parse_date(text) == day, text
    records = [record(0, "2026-03-01", extended_day="2025-12-30"), record(1, "2026-03-01", extended_day="2026-01-02"),
               record(2, "2026-03-01")]
    by_metadata = corpus_report.gather(records, "extended.callDate")
    assert by_metadata.dates == [dt.date(2025, 12, 30), dt.date(2026, 1, 2), None]
    page = corpus_report.render(records, "extended.callDate")
    assert "1 item without a date in that field left out" in page
    assert "2025-12-30" in page and "2026-01-02" in page
    one_day = corpus_report.render(records[2:])
    assert "no trend to draw yet" in one_day
    ages_apart = [record(0, "2026-03-01", extended_day="0001-01-01"), record(1, "2026-03-01", extended_day="9999-12-31"),
                  record(2, "2026-03-01", extended_day="2026-01-02")]
    page = corpus_report.render(ages_apart, "extended.callDate")  # no overflow past year 9999, no 10,000 empty years
    assert "only those holding an item are shown" in page and len(page) < 500_000
    assert [corpus_report.bucket_of(d, "year") for d in corpus_report.gather(ages_apart, "extended.callDate").dates] == [
        "0001", "9999", "2026"]


@pytest.mark.parametrize("bad", ["", " ", "extended..x", "a b", "$(rm -rf /)", "x" * 300, "extended.é"])
def test_a_date_field_that_is_no_field_is_refused(bad):
    with pytest.raises(Exception, match="--date-field"):
        corpus_report.check_date_field(bad)


# ------------------------------------------------------------------------------------------ the command


@pytest.fixture
def catalog_with_item(tmp_path, monkeypatch):
    """A catalog (the CLI's, in tmp_path) holding one finished item whose outputs are in tmp_path/out."""
    monkeypatch.setenv("SPEECHPROC_HOME", str(tmp_path / "home"))
    out = tmp_path / "out"
    out.mkdir()
    item = call_item()
    json_file = out / "call.v3.json"
    json_file.write_text(json.dumps(item))
    (out / "call.wav").write_bytes(b"RIFF")
    with Catalog(tmp_path / "home" / "catalog.sqlite3") as catalog:
        catalog.media.add(item, str(out / "call.wav"), None, "cfg", [])
        catalog.media.update(item["mediaId"], item=item, outputs={"json": str(json_file)})
        catalog.written.record_output(str(json_file), "0" * 64, item["mediaId"])
    return item, out


def test_report_of_a_media_id_goes_beside_its_json_and_plays_its_recording(catalog_with_item):
    item, out = catalog_with_item
    code, summary = invoke("report", item["mediaId"])
    assert code == 0, summary
    assert summary["report"] == str(out / "call.report.html") and summary["audio"] == "call.wav"
    assert summary["sections"] == ["summary", "timeline", "transcript"]
    page = (out / "call.report.html").read_text()
    assert len(page.encode()) == summary["bytes"] and 'src="call.wav"' in page
    code, again = invoke("report", item["mediaId"])  # its own earlier report is replaced
    assert code == 0, again
    code, printed = invoke("report", item["mediaId"], "-o", "-")
    assert code == 0 and printed.startswith("<!DOCTYPE html>") and "<audio" not in printed


def test_report_of_a_json_file_elsewhere_finds_the_recording_beside_it(tmp_path, monkeypatch):
    monkeypatch.setenv("SPEECHPROC_HOME", str(tmp_path / "home"))
    folder = tmp_path / "golden"
    folder.mkdir()
    (folder / "c#1.v3.json").write_text(json.dumps(call_item(mediaId="not-in-the-catalog")))
    (folder / "c#1.flac").write_bytes(b"fLaC")
    code, summary = invoke("report", str(folder / "c#1.v3.json"), "-o", str(tmp_path / "site" / "r.html"))
    assert code == 0, summary
    assert summary["audio"] == "../golden/c%231.flac"  # relative to the report, quoted for a URL
    assert reporting.report_path(Path("/a/b.v3.json")) == Path("/a/b.report.html")
    assert reporting.report_path(Path("/a/b.json")) == Path("/a/b.report.html")


def test_report_errors_are_clear_and_write_nothing(catalog_with_item, tmp_path):
    item, out = catalog_with_item
    (tmp_path / "mine.html").write_text("mine")
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "list.json").write_text("[1, 2]")
    (tmp_path / "latin1.v3.json").write_bytes(b'{"mediaId": "\xe9"}')
    import os

    os.mkfifo(tmp_path / "pipe.v3.json")
    cases = [(("report", "no-such-id"), 1, "was not found"),
             (("report", "x" * 5000), 1, "x" * 80 + "... was not found"),
             (("report", ""), 2, "target is empty"),
             (("report", str(tmp_path)), 2, "is a folder"),
             (("report", str(tmp_path / "pipe.v3.json")), 2, "is not a regular file"),
             (("report", str(tmp_path / "missing.v3.json")), 2, "no such file"),
             (("report", str(tmp_path / "bad.json")), 2, "not valid JSON"),
             (("report", str(tmp_path / "list.json")), 2, "not a v3 media item"),
             (("report", str(tmp_path / "latin1.v3.json")), 2, "not UTF-8"),
             (("report", item["mediaId"], "-o", str(tmp_path / "mine.html")), 2, "was not written by speechproc"),
             (("report", item["mediaId"], "-o", str(out / "call.v3.json")), 2, "is an output of media item"),
             (("report", item["mediaId"], "-o", str(tmp_path) + "/"), 2, "is a directory"),
             (("report", item["mediaId"], "-o", str(tmp_path / "new") + "/"), 2, "names a folder"),
             (("report", "--corpus", "--date-field", "a b"), 2, "--date-field"),
             (("report", "--corpus", "--date-field", "extended.nothing"), 2, "none of the 1 selected items"),
             (("report", "--corpus", "--query", "SELECT nonsense"), 2, "query syntax error"),
             (("report", "--corpus", "--date-field", ""), 2, "--date-field"),
             (("report", "--corpus", "-o", str(tmp_path / "mine.html")), 2, "was not written by speechproc")]
    for args, code, why in cases:
        got, answer = invoke(*args)
        assert got == code, (args, answer)
        assert why in json.dumps(answer), (args, answer)
    assert (tmp_path / "mine.html").read_text() == "mine"
    assert not (out / "call.report.html").exists()
    for args in (("report",), ("report", "x", "--corpus"), ("report", "x", "--query", "SELECT * FROM media"),
                 ("report", "x", "--date-field", "dateCreated")):
        got, answer = invoke(*args)
        assert got == 2, (args, answer)


def test_a_report_of_the_recording_processed_again_replaces_the_earlier_items(catalog_with_item, tmp_path):
    """The recording processed again is a new media item with the same outputs: its report replaces the
    earlier item's at the same place; another recording's item's report is never replaced."""
    item, out = catalog_with_item
    code, first = invoke("report", item["mediaId"])
    assert code == 0, first
    newer = {**item, "mediaId": "22222222-2222-4333-8444-555555555555"}
    other = {**item, "mediaId": "33333333-2222-4333-8444-555555555555"}
    with Catalog(tmp_path / "home" / "catalog.sqlite3") as catalog:
        for one, recording in ((newer, "call.wav"), (other, "other.wav")):
            catalog.media.add(one, str(out / recording), None, "cfg", [])
            catalog.media.update(one["mediaId"], item=one, outputs={"json": str(out / "call.v3.json")})
    code, again = invoke("report", newer["mediaId"])
    assert code == 0, again
    code, refused = invoke("report", other["mediaId"])
    assert code == 2 and "is an output of media item 2222" in json.dumps(refused), refused
    assert refused["warnings"][0]["message"].startswith(str(out / "call.report.html"))  # not "-o ...": none given


def test_a_copy_of_a_redacted_item_never_plays_the_original(catalog_with_item, tmp_path):
    """The catalog knows the item's audio was redacted: a copy of its JSON that lost its streams still
    plays only a redacted copy, or nothing."""
    item, out = catalog_with_item
    with Catalog(tmp_path / "home" / "catalog.sqlite3") as catalog:
        redacted = {**item, "streams": [{"streamName": "redacted-audio", "streamLocation": "file:///gone.wav"}]}
        catalog.media.update(item["mediaId"], item=redacted)
    copy = tmp_path / "copies" / "call.v3.json"
    copy.parent.mkdir()
    copy.write_text(json.dumps(item))  # no streams
    code, summary = invoke("report", str(copy))
    assert code == 0 and summary["audio"] is None, summary  # not ../out/call.wav
    (copy.parent / "call.redacted.wav").write_bytes(b"RIFF")
    code, summary = invoke("report", str(copy))
    assert code == 0 and summary["audio"] == "call.redacted.wav", summary


def test_a_report_written_as_an_export_can_become_an_items_own(catalog_with_item, tmp_path):
    item, out = catalog_with_item
    code, first = invoke("report", item["mediaId"], "-o", str(out / "call.report.html"))  # its own place, by -o
    assert code == 0, first
    code, again = invoke("report", "--corpus", "-o", str(tmp_path / "c.html"))
    code, elsewhere = invoke("report", item["mediaId"], "-o", str(tmp_path / "other.report.html"))
    assert code == 0, elsewhere
    (tmp_path / "other.v3.json").write_text(json.dumps({**item, "mediaId": "44444444-2222-4333-8444-555555555555"}))
    code, own = invoke("report", str(tmp_path / "other.v3.json"))  # replaces the export-written file
    assert code == 0 and own["report"] == str(tmp_path / "other.report.html"), own


def test_a_json_file_with_a_name_that_is_not_utf8(tmp_path, monkeypatch):
    import os

    monkeypatch.setenv("SPEECHPROC_HOME", str(tmp_path / "home"))
    name = os.fsdecode(b"call-\xff.v3.json")
    (tmp_path / name).write_text(json.dumps(call_item()))
    code, summary = invoke("report", str(tmp_path / name), "-o", str(tmp_path / "r.html"))
    assert code == 0, summary


def test_the_report_of_a_skipped_item_replaces_the_earlier_items_of_its_recording(catalog_with_item, tmp_path):
    from speechproc.batch.runner import Reporter, _of_skipped
    from speechproc.report.writing import report_of_unchanged

    item, out = catalog_with_item
    code, first = invoke("report", item["mediaId"])  # the earlier item's report
    assert code == 0, first
    newer = {**item, "mediaId": "22222222-2222-4333-8444-555555555555", "metadata": {"title": "newer"}}
    with Catalog(tmp_path / "home" / "catalog.sqlite3") as catalog:
        catalog.media.add(newer, str(out / "call.wav"), None, "cfg", [])
        catalog.media.update(newer["mediaId"], item=newer, outputs={"json": str(out / "call.v3.json")})
        notes = []
        reporter = Reporter()
        reporter.note = notes.append
        row = _of_skipped(report_of_unchanged, "report", catalog.media.get(newer["mediaId"]), catalog, reporter)
        assert notes == [] and row["outputs"]["report"] == str(out / "call.report.html")
        assert catalog.media.get(newer["mediaId"])["outputs"]["report"] == str(out / "call.report.html")
    assert "<title>newer</title>" in (out / "call.report.html").read_text()


def test_a_report_is_not_needed_to_reuse_a_result(tmp_path):
    from speechproc.batch import reuse

    (tmp_path / "call.v3.json").write_text("{}")
    row = {"outputs": {"json": str(tmp_path / "call.v3.json"), "report": str(tmp_path / "call.report.html")}}
    assert reuse.still_there(row)
    assert not reuse.still_there({"outputs": {**row["outputs"], "srt": str(tmp_path / "call.srt")}})


def test_run_report_plans_a_report_beside_the_other_outputs(tmp_path):
    from speechproc.batch.planning import Input, output_paths

    inputs = [Input(tmp_path / "call.wav", tmp_path), Input(tmp_path / "call.mp3", tmp_path)]
    planned = output_paths(inputs, None, report=True)
    assert planned[tmp_path / "call.wav"]["report"] == tmp_path / "call.wav.report.html"
    assert planned[tmp_path / "call.mp3"]["report"] == tmp_path / "call.mp3.report.html"
    assert "report" not in output_paths(inputs, None)[tmp_path / "call.wav"]


def test_a_report_that_cannot_be_drawn_costs_the_item_nothing(tmp_path, monkeypatch):
    """Should drawing the report fail, every other output is written and the item's JSON says why."""
    from speechproc.batch import publishing
    from speechproc.conversation import Conversation
    from speechproc.store.files import ownership

    def broken(*args):
        raise ValueError("no chart today")

    monkeypatch.setattr(report, "page_at", broken)
    outputs = {"json": tmp_path / "call.v3.json", "text": tmp_path / "call.txt", "srt": tmp_path / "call.srt",
               "webvtt": tmp_path / "call.vtt", "dfxp": tmp_path / "call.dfxp", "report": tmp_path / "call.report.html"}
    body = {"mediaId": "x", "status": "finished"}
    written = publishing.write_outputs(body, Conversation("x"), outputs, ownership.Ledger({}), tmp_path / "call.wav")
    assert set(written) == set(outputs) - {"report"}
    assert not (tmp_path / "call.report.html").exists()
    stored = json.loads((tmp_path / "call.v3.json").read_text())
    assert "no chart today" in stored["warnings"][0]["message"]


def test_corpus_report_over_the_catalog(catalog_with_item, tmp_path):
    code, summary = invoke("report", "--corpus", "-o", str(tmp_path / "corpus.html"))
    assert code == 0, summary
    assert summary["items"] == 1 and summary["sections"] == ["overview", "trend", "items"]
    code, again = invoke("report", "--corpus", "-o", str(tmp_path / "corpus.html"))  # its own file again
    assert code == 0, again
