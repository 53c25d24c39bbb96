"""The HTML reports in a real headless Chromium (Debian's, driven by Playwright): they load with no
console error and no request but the page and its recording, every section is there and visible, a
screenshot is not blank, a narrow window does not scroll sideways, a match jumps to its moment of the
transcript and a click on a word plays the recording from there.

Chromium is found as `chromium` (or $SPEECHPROC_CHROMIUM). Without it these tests skip, unless
$SPEECHPROC_REQUIRE_BROWSER is set (CI sets it): then they fail.
"""
from __future__ import annotations

import io
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT, SAMPLES, invoke, write_wav
from speechproc.report import call as report
from speechproc.report import corpus as corpus_report
from speechproc.report import player as report_player
from test_report import ALL_SECTIONS, full_item, record

FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--autoplay-policy=no-user-gesture-required"]


def chromium_path() -> str | None:
    return os.environ.get("SPEECHPROC_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser():
    path = chromium_path()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        path = None
    if path is None:
        if os.environ.get("SPEECHPROC_REQUIRE_BROWSER"):
            pytest.fail("Chromium and playwright are required here (apt-get install chromium; pip install playwright)")
        pytest.skip("no Chromium or playwright: apt-get install chromium; pip install playwright")
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=path, args=FLAGS)
        yield launched
        launched.close()


class Opened:
    """A page loaded from a file, with what it logged and asked for."""

    def __init__(self, browser, path: Path, width: int = 1200) -> None:
        self.page = browser.new_page(viewport={"width": width, "height": 900})
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type in ("error", "warning") else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        # a media element aborts its first request when it seeks (ERR_ABORTED): any other failure counts
        self.page.on("requestfailed", lambda r: None if r.failure == "net::ERR_ABORTED"
                     else self.errors.append(f"failed: {r.url} {r.failure}"))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.goto(path.as_uri(), wait_until="load")

    def sections(self) -> list[str]:
        return self.page.eval_on_selector_all("main > section", "s => s.map(x => x.id)")

    def not_blank(self) -> None:
        from PIL import Image

        shot = Image.open(io.BytesIO(self.page.screenshot(full_page=True))).convert("RGB")
        small = shot.resize((shot.width // 4, shot.height // 4))
        pixels = np.asarray(small).reshape(-1, 3)
        inked = np.mean(np.any(pixels < 235, axis=1))
        colours = len(np.unique(pixels // 16, axis=0))
        assert inked > 0.02 and colours > 12, (inked, colours)

    def fits(self) -> None:
        width = self.page.evaluate("document.documentElement.scrollWidth")
        assert width <= self.page.viewport_size["width"], width


def assert_offline(opened: Opened, allowed: set[str]) -> None:
    assert opened.errors == []
    assert {u.split("#")[0] for u in opened.requests} <= allowed, opened.requests


def hop_and_play(opened: Opened, word_ms: int) -> None:
    """A match's link moves to its word in the transcript; a click on a word plays from its start."""
    page = opened.page
    link = page.locator("#categories a[href^='#w']").first
    target = link.get_attribute("href")
    link.click()
    page.wait_for_function("h => location.hash === h", arg=target)
    assert page.evaluate("h => document.querySelector(':target') === document.querySelector(h)", target)
    assert page.locator(target).is_visible()
    page.locator(f"#transcript [data-s='{word_ms}']").first.click()
    page.wait_for_function("ms => Math.abs(document.getElementById('player').currentTime * 1000 - ms) < 300",
                           arg=word_ms)
    page.wait_for_function("document.getElementById('player').readyState >= 1")  # the recording loaded
    assert page.evaluate("document.getElementById('player').error") is None
    assert page.evaluate("document.getElementById('player').duration") > word_ms / 1000


def test_a_call_report_with_a_player_in_chromium(browser, tmp_path):
    rate = 16000
    t = np.arange(20 * rate) / rate
    (tmp_path / "media").mkdir()
    write_wav(tmp_path / "media" / "call one.wav", 0.2 * np.sin(2 * np.pi * 220 * t), rate)
    item = full_item()  # every section
    place = tmp_path / "reports" / "call.report.html"
    place.parent.mkdir()
    place.write_text(report.render(item, report_player.audio_address(tmp_path / "media" / "call one.wav", place), "call one.wav"))
    opened = Opened(browser, place)
    assert opened.sections() == ALL_SECTIONS
    for section in opened.sections():
        assert opened.page.locator(f"#{section}").is_visible()
    hop_and_play(opened, 10000)
    assert_offline(opened, {place.as_uri(), (tmp_path / "media" / "call one.wav").as_uri().replace(" ", "%20")})
    opened.not_blank()
    narrow = Opened(browser, place, width=360)
    narrow.fits()
    narrow.not_blank()


def test_a_corpus_report_in_chromium(browser, tmp_path):
    days = ["2026-03-01", "2026-03-01", "2026-03-02", "2026-03-05", "2026-03-09", "2026-03-09"]
    records = [record(n, day, talk=0.1 * (n + 1), refund=n % 2, billing=n % 3 == 0) for n, day in enumerate(days)]
    place = tmp_path / "corpus.html"
    place.write_text(corpus_report.render(records))
    opened = Opened(browser, place)
    assert opened.sections() == ["overview", "distributions", "categories", "spotting", "trend", "items"]
    assert opened.page.locator("#trend svg").count() == 4  # items, talk and silence, category and group rates
    assert_offline(opened, {place.as_uri()})
    opened.not_blank()
    Opened(browser, place, width=360).fits()


# ------------------------------------------------------------------------------------------ real calls


@pytest.mark.slow
def test_the_sample_calls_report_in_chromium(browser, truth_call, tmp_path):
    """The sample call through every analytic (its known words, so the same on every CPU), reported
    with `speechproc report FILE.v3.json` beside a copy of its recording."""
    item = {k: v for k, v in truth_call.items() if not k.startswith("_")}
    shutil.copy(SAMPLES / "call.flac", tmp_path / "call.flac")
    (tmp_path / "call.v3.json").write_text(json.dumps(item))
    code, summary = invoke("report", str(tmp_path / "call.v3.json"))
    assert code == 0, summary
    place = tmp_path / "call.report.html"
    expected = ["summary", "timeline", "sentiment", "metrics", "knowledge", "categories", "spotting", "verbnouns",
                "transcript"]
    assert summary["sections"] == expected and summary["audio"] == "call.flac"
    opened = Opened(browser, place)
    assert opened.sections() == expected
    assert opened.page.locator("#metrics h3").all_inner_texts() == ["overtalk", "talk-time-and-rate",
                                                                    "talk-style-tone-and-volume", "sentiment"]
    matched = [c for c in item["categories"] if c["categoryValue"]]
    assert opened.page.locator("#categories a[href^='#w']").count() == sum(
        len(m["occurrences"]) for c in matched for m in c["categoryMatches"])
    first_word = next(w for w in item["transcript"]["words"] if "m" not in w)
    hop_and_play(opened, first_word["s"])
    assert_offline(opened, {place.as_uri(), (tmp_path / "call.flac").as_uri()})
    opened.not_blank()
    Opened(browser, place, width=360).fits()


@pytest.mark.slow
def test_run_report_on_a_redacted_call_plays_the_redacted_copy(browser, tmp_path):
    """`speechproc run --report` on the sample payment call with card-number redaction: the report is
    written with the outputs, shows the detections, and plays the redacted audio, never the original."""
    shutil.copy(SAMPLES / "payment.flac", tmp_path / "payment.flac")
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("ingest: {stereo: {left: {speakerName: Agent}, right: {speakerName: Caller}}}\n"
                   "metrics: [{metricGroupName: overtalk}, {metricGroupName: talk-time-and-rate}]\n"
                   "prediction: {detectors: [{detectorName: PCI, redactor: {transcript: {replacement: '[redacted]'},"
                   " audio: {tone: 270, gain: 0.5}}}]}\n")
    code, out = invoke("run", str(tmp_path / "payment.flac"), "--config", str(cfg), "--report", "--quiet")
    assert code == 0, out
    place = tmp_path / "payment.report.html"
    assert out["media"][0]["outputs"]["report"] == str(place)
    item = json.loads((tmp_path / "payment.v3.json").read_text())
    # whatever the model heard on this CPU: the words of every detection, and only those, are underlined
    detected = [(o["s"], o["e"]) for d in item["prediction"]["detectors"][0]["detections"]
                for seg in d["detectedSegments"] for o in seg["occurrences"]]
    words = [w for w in item["transcript"]["words"] if "m" not in w]
    inside = sum(1 for w in words if any(s < w["e"] and w["s"] < e for s, e in detected))
    opened = Opened(browser, place)
    assert "predictions" in opened.sections() and opened.page.locator("#transcript .det").count() == inside
    assert opened.page.get_attribute("#player", "src") == "payment.redacted.flac"
    assert_offline(opened, {place.as_uri(), (tmp_path / "payment.redacted.flac").as_uri()})
    opened.not_blank()


@pytest.mark.slow
def test_run_report_on_an_unchanged_recording_writes_the_report_from_its_stored_result(tmp_path):
    shutil.copy(SAMPLES / "voicemail.wav", tmp_path / "voicemail.wav")
    code, first = invoke("run", str(tmp_path), "--quiet")
    assert code == 0 and "report" not in first["media"][0]["outputs"], first
    code, again = invoke("run", str(tmp_path), "--report", "--quiet")
    assert code == 0 and again["media"][0]["status"] == "skipped", again
    place = tmp_path / "voicemail.report.html"
    assert again["media"][0]["outputs"]["report"] == str(place)
    assert 'src="voicemail.wav"' in place.read_text()
    code, listed = invoke("run", str(tmp_path), "--report", "--quiet")  # and again: its own file, replaced
    assert code == 0 and listed["media"][0]["outputs"]["report"] == str(place), listed


def test_the_ci_installs_the_browser():
    """The browser tests run in CI: .ci/run installs Chromium and requires it."""
    ci = (ROOT / ".ci" / "run").read_text()
    assert "chromium" in ci and "SPEECHPROC_REQUIRE_BROWSER" in ci
