#!/usr/bin/env python3
"""Size and speed of the HTML reports: the call report of the sample call and of a one-hour call, and a
corpus report of 1,000 calls; each rendered (median of 3) and opened in headless Chromium (load time,
median of 3, from navigation start to the load event, with the first paint).

The one-hour call is the sample call processed for real (`speechproc run` with configs/callcenter.yaml,
every example category and keyword group) and its result laid end to end in time until it lasts an
hour: words, turns, voice activity, sentence sentiment, matches and mentions all repeat with their
real density (about 11,000 transcript tokens). The corpus is that call's item 1,000 times over 90 days.

The chart library was chosen by size: plotly's script alone (plotly.min.js, inlined once) is 4.8 MB,
more than twice the 2 MB a one-hour call's report may take; matplotlib's SVG needs no script.

Usage: python benchmarks/cost/report_speed.py [--json OUT]   (needs Debian's chromium and playwright)
"""
from __future__ import annotations

import argparse
import copy
import datetime as dt
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]


def processed_sample(folder: Path) -> dict:
    """The sample call through `speechproc run` with every analytic, categories and groups."""
    from click.testing import CliRunner

    from speechproc.cli.commands import main

    runner = CliRunner()
    for kind, sub in (("categories", "categories"), ("groups", "groups")):
        for path in sorted((ROOT / "configs" / sub).glob("*.yaml")):
            assert runner.invoke(main, [kind, "put", path.stem, str(path)]).exit_code == 0
    shutil.copy(ROOT / "sample_media" / "call.flac", folder / "call.flac")
    cfg = folder / "cfg.yaml"
    cfg.write_text((ROOT / "configs" / "callcenter.yaml").read_text()
                   + "categories: [{allCategories: true}]\nspotting: {groups: [{groupName: billing}, {groupName: churn}]}\n")
    result = runner.invoke(main, ["run", str(folder / "call.flac"), "--config", str(cfg), "--quiet"])
    assert result.exit_code == 0, result.output
    return json.loads((folder / "call.v3.json").read_text())


def _shift(node, offset: int):
    """A copy of a v3 fragment with every s and e moved by `offset` ms."""
    if isinstance(node, list):
        return [_shift(x, offset) for x in node]
    if isinstance(node, dict):
        return {k: (v + offset if k in ("s", "e") and isinstance(v, int) else _shift(v, offset)) for k, v in node.items()}
    return node


def tiled(item: dict, minutes: int) -> dict:
    """The item's results repeated end to end until it lasts `minutes`."""
    period = item["length"]
    copies = -(-minutes * 60_000 // period)
    out = copy.deepcopy(item)
    words, activity = [], {a["speakerName"]: [] for a in item["transcript"]["voiceActivity"]}
    sentiments = {s["speakerName"]: [] for s in item["speakerSentiments"]}
    for n in range(copies):
        offset = n * period
        for w in _shift(item["transcript"]["words"], offset):
            words.append({**w, "p": len(words)})
        for a in item["transcript"]["voiceActivity"]:
            activity[a["speakerName"]] += _shift(a["occurrences"], offset)
        for s in item["speakerSentiments"]:
            sentiments[s["speakerName"]] += _shift(s["sentimentValues"], offset)
    out["transcript"]["words"] = words
    out["transcript"]["voiceActivity"] = [{"speakerName": k, "occurrences": v} for k, v in activity.items()]
    out["speakerSentiments"] = [{"speakerName": k, "sentimentValues": v} for k, v in sentiments.items()]

    def repeat_occurrences(node):
        if isinstance(node, dict):
            if "occurrences" in node:
                node["occurrences"] = [o for n in range(copies) for o in _shift(node["occurrences"], n * period)]
            for v in node.values():
                repeat_occurrences(v)
        elif isinstance(node, list):
            for v in node:
                repeat_occurrences(v)

    for key in ("knowledge", "categories", "spotting", "prediction"):
        if key in out:
            repeat_occurrences(out[key])
    for entry in (out.get("conversation") or {}).get("speakerVerbNounPairs", []):
        entry["verbNounPairs"] = [p for n in range(copies) for p in _shift(entry["verbNounPairs"], n * period)]
    out["length"] = copies * period
    return out


def timed(fn, rounds: int = 3):
    times, result = [], None
    for _ in range(rounds):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return result, statistics.median(times)


def load_times(paths: list[Path], rounds: int = 3) -> dict[str, dict]:
    from playwright.sync_api import sync_playwright

    chromium = os.environ.get("SPEECHPROC_CHROMIUM") or shutil.which("chromium")
    out = {}
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium, args=FLAGS)
        for path in paths:
            loads, paints = [], []
            for _ in range(rounds):
                page = browser.new_page(viewport={"width": 1200, "height": 900})
                page.goto(path.as_uri(), wait_until="load")
                timing = page.evaluate("JSON.stringify(performance.getEntriesByType('navigation')[0])")
                paint = page.evaluate("(performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime")
                loads.append(json.loads(timing)["loadEventEnd"])
                paints.append(paint)
                page.close()
            out[path.name] = {"load_ms": round(statistics.median(loads), 1),
                              "first_paint_ms": round(statistics.median(p for p in paints if p is not None), 1)}
        browser.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        os.environ["SPEECHPROC_HOME"] = str(folder / "home")
        from speechproc.report import call as report
        from speechproc.report import corpus as corpus_report

        sample = processed_sample(folder)
        hour = tiled(sample, 60)
        results: dict = {"call_words": sum(1 for w in hour["transcript"]["words"] if "m" not in w),
                         "hour_tokens": len(hour["transcript"]["words"])}
        start = time.perf_counter()
        report.render(sample, "call.flac", "call.flac")  # the first one imports matplotlib
        results["first_render_s"] = round(time.perf_counter() - start, 2)
        pages = {}
        for name, item in (("sample_call", sample), ("one_hour_call", hour)):
            html, seconds = timed(lambda item=item: report.render(item, "call.flac", "call.flac"))
            (folder / f"{name}.html").write_text(html)
            pages[name] = folder / f"{name}.html"
            results[name] = {"bytes": len(html.encode()), "render_s": round(seconds, 3)}
        day0 = dt.date(2026, 1, 1)
        records = [{"media_id": str(n), "input_path": f"/calls/{n}.flac",
                    "item": {**sample, "dateCreated": f"{day0 + dt.timedelta(days=n % 90)}T10:00:00Z"}}
                   for n in range(1000)]
        html, seconds = timed(lambda: corpus_report.render(records))
        (folder / "corpus_1000.html").write_text(html)
        pages["corpus_1000"] = folder / "corpus_1000.html"
        results["corpus_1000"] = {"bytes": len(html.encode()), "render_s": round(seconds, 3)}
        for name, timing in load_times(list(pages.values())).items():
            results[Path(name).stem].update(timing)
    print(json.dumps(results, indent=2))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
