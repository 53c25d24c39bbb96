#!/usr/bin/env python3
"""Diarization on recordings nobody tuned on: the diarization pipelines side by side in the same run (`windows`,
the default; `hybrid`; `segmentation`), as the stage runs them (2 threads, every kernel on one thread).

Two lists of recordings, each split into a dev half (the only recordings settings are chosen on) and a test
half (read with everything fixed); each list and its split were committed before any setting was tried on it:
  benchmarks/speakers/diarization_recordings.json   20 public recordings with a reference (telephone, meeting,
                                           broadcast, interview; 2-7 speakers), built by
                                           `python benchmarks/speakers/diarization_data.py --out DIR`
  benchmarks/speakers/diarization_sim.json          192 simulated conversations of 1 to 8 speakers (clean, telephone,
                                           far-field, unbalanced), built by
                                           `python benchmarks/speakers/diarization_sim.py --sources SRC --out DIR`
  benchmarks/speakers/diarization_sim_fresh.json    96 more, a fresh test half only, of other speakers, committed
                                           after both halves above had been read; built with
                                           `... diarization_sim.py --sources SRC --out DIR --list diarization_sim_fresh.json`

Scores per recording and per half: DER with a 0.25 s collar and without one (overlapped reference speech
scored; the segmentation and hybrid pipelines give their second voices there, the windows pipeline one voice
at a time), the speaker count against the reference's, and the diarization's seconds. With
../shared/evaldata, `--own` also counts the speakers of the project's own dev data: 40 two-party calls cut
from its real telephone call (found as two?) and its one-speaker files (found as one?).

Usage: python benchmarks/speakers/diarization_public.py --data DIR [--list LIST] [--split dev|test|fresh|all]
                                               [--pipelines windows,hybrid,segmentation] [--own] [--json OUT]
       python benchmarks/speakers/diarization_public.py --data DIR --data SIMDIR
                                               --list benchmarks/speakers/diarization_recordings.json
                                               --list benchmarks/speakers/diarization_sim.json --grid   (the hybrid's count
                                               rules on the dev halves, the two-party cuts, the one-speaker files)
"""
from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks" / "speakers"))

from diarization import EVAL, der, excerpts, mono, rttm  # noqa: E402

from speechproc.concurrency import one_thread_each  # noqa: E402
from speechproc.engines import segmentation  # noqa: E402
from speechproc.engines.models import load_campplus, load_segmentation  # noqa: E402
from speechproc.stages.speakers import diarize_hybrid, diarize_segmentation, diarize_windows  # noqa: E402
from speechproc.stages.speakers.speaker_clusters import Diarized, second_speakers  # noqa: E402

PUBLIC = Path(__file__).resolve().parent / "diarization_recordings.json"
PIPELINES = ("windows", "hybrid", "segmentation")
THREADS = 2
GRID = {"gain_windows": (4.75, 5.5, 6.0), "min_speaker_ms": (1000, 2000, 3000), "further_gain": (0.03, 0.05),
        "same_similarity": (0.8, 0.85)}


def diarized(pipeline: str, audio: np.ndarray, networks) -> Diarized:
    """`audio` diarized by one pipeline, as the stage runs it with its defaults."""
    if pipeline == "segmentation":
        return diarize_segmentation.diarize(audio, *networks, threads=THREADS)
    if pipeline == "hybrid":
        return diarize_hybrid.diarize(audio, networks[0], threads=THREADS)
    return diarize_windows.diarized(audio, threads=THREADS)


def scores(reference: list, found: Diarized, length_ms: int) -> dict:
    hypothesis = [(g.s, g.e, g.speaker) for g in found.segments] + list(found.overlaps)
    with_collar, without = der(reference, hypothesis, length_ms), der(reference, hypothesis, length_ms, collar_ms=0)
    return {"der": round(with_collar["der"], 4), "der_no_collar": round(without["der"], 4),
            "missed": round(with_collar["missed"], 4), "false_alarm": round(with_collar["false_alarm"], 4),
            "confusion": round(with_collar["confusion"], 4), "reference_s": round(with_collar["reference_s"], 1),
            "speakers_found": len({g.speaker for g in found.segments})}


def recordings(data: Path, listed: Path, split: str) -> list[tuple[dict, np.ndarray, list]]:
    """(entry, audio, reference) of each recording of `split` in the list (`recordings` or `conversations`)."""
    document = json.loads(listed.read_text())
    out = []
    for entry in document.get("recordings", document.get("conversations", [])):
        if split != "all" and entry["split"] != split:
            continue
        flac = data / f"{entry['id']}.flac"
        audio = flac if flac.exists() else data / f"{entry['id']}.wav"  # the telephone variant: 8 kHz mu-law
        out.append((entry, mono(audio), rttm(data / f"{entry['id']}.rttm")))
    return out


def kind_of(entry: dict) -> str:
    return entry.get("kind") or entry.get("variant", "other")


def measure(rows_in: list[tuple[dict, np.ndarray, list]], pipelines: tuple[str, ...], networks) -> list[dict]:
    """Every pipeline on each recording, side by side."""
    rows = []
    for entry, audio, reference in rows_in:
        row = {"id": entry["id"], "split": entry["split"], "kind": kind_of(entry), "speakers": entry["speakers"],
               "seconds": round(len(audio) / 16000, 1)}
        for pipeline in pipelines:
            started = time.perf_counter()
            found = diarized(pipeline, audio, networks)
            took = time.perf_counter() - started
            row[pipeline] = {**scores(reference, found, len(audio) * 1000 // 16000), "seconds": round(took, 2)}
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    return rows


def summary(rows: list[dict], pipeline: str) -> dict:
    chosen = [r[pipeline] for r in rows]
    by_count: dict[int, list] = {}
    for row, found in zip(rows, chosen):
        by_count.setdefault(row["speakers"], []).append((row["speakers"], found))
    return {"recordings": len(rows), "mean_der": round(float(np.mean([r["der"] for r in chosen])), 4),
            "mean_der_no_collar": round(float(np.mean([r["der_no_collar"] for r in chosen])), 4),
            "pooled_der": round(sum(r["der"] * r["reference_s"] for r in chosen) /
                                max(sum(r["reference_s"] for r in chosen), 1e-9), 4),
            "count_right": sum(c["speakers_found"] == r["speakers"] for c, r in zip(chosen, rows)),
            "by_count": {str(n): {"recordings": len(v), "mean_der": round(float(np.mean([f["der"] for _, f in v])), 4),
                                  "count_right": sum(f["speakers_found"] == k for k, f in v)}
                         for n, v in sorted(by_count.items())},
            "seconds": round(sum(r["seconds"] for r in chosen), 1)}


def summaries(rows: list[dict], pipelines: tuple[str, ...]) -> dict:
    """Per half, and per kind of recording within it, every pipeline's summary."""
    out: dict = {}
    for split in ("dev", "test", "fresh"):
        mine = [r for r in rows if r["split"] == split]
        if not mine:
            continue
        out[split] = {p: summary(mine, p) for p in pipelines}
        for kind in sorted({r["kind"] for r in mine}):
            out[f"{split}/{kind}"] = {p: summary([r for r in mine if r["kind"] == kind], p) for p in pipelines}
    return out


def one_speaker_files() -> list[str]:
    """The one-channel, one-speaker files of ../shared/evaldata/wer-manifest.tsv (all but Picovoice's Leopard)."""
    import csv

    with open(EVAL / "wer-manifest.tsv", newline="") as f:
        files = sorted({row[0] for row in csv.reader(f, delimiter="\t") if row[1] == "mono"})
    return [name for name in files if "leopard_diarization" not in name]


def own_counts(pipelines: tuple[str, ...], networks) -> dict:
    """How many of the 40 two-party cuts each pipeline finds as two, and of the one-speaker files as one."""
    calls = [audio for _, audio, _ in excerpts()]
    singles = [mono(EVAL / name) for name in one_speaker_files()]
    out = {}
    for pipeline in pipelines:
        two = sum(len({g.speaker for g in diarized(pipeline, a, networks).segments}) == 2 for a in calls)
        one = sum(len({g.speaker for g in diarized(pipeline, a, networks).segments}) <= 1 for a in singles)
        out[pipeline] = {"two_party_calls_found_2": f"{two}/{len(calls)}", "one_speaker_files_found_1": f"{one}/{len(singles)}"}
        print(json.dumps({pipeline: out[pipeline]}), file=sys.stderr, flush=True)
    return out


def grid(dev: list[tuple[dict, np.ndarray, list]], networks) -> list[dict]:
    """The hybrid pipeline's count rules (GRID) on the dev recordings and, with ../shared/evaldata, the two-party
    cuts and one-speaker files: the speech and window embeddings are computed once per recording."""
    prepared = []

    def prepare(audio: np.ndarray) -> tuple[np.ndarray, list, segmentation.FrameProbabilities]:
        heard = segmentation.frame_probabilities(networks[0], audio, diarize_hybrid.TUNING.step_s, THREADS)
        return audio, diarize_hybrid.speech_regions(heard.speech, audio), heard

    for entry, audio, reference in dev:
        prepared.append((entry["speakers"], reference, *prepare(audio)))
    calls = [prepare(audio) for _, audio, _ in excerpts()] if EVAL.is_dir() else []
    singles = [prepare(mono(EVAL / name)) for name in one_speaker_files()] if EVAL.is_dir() else []
    cache: dict = {}

    def found(key: int, audio: np.ndarray, regions: list, heard, tuning) -> Diarized:
        if key not in cache:
            windows = diarize_windows.plan_windows(regions, tuning.window_s, tuning.hop_s)
            cache[key] = (windows, diarize_windows.embed(audio, regions, windows, threads=THREADS))
        windows, emb = cache[key]
        least = diarize_hybrid.fewest_speakers(heard.alone, diarize_hybrid.TUNING.alone_s)
        labels = diarize_windows.smooth(windows.spans, diarize_windows.cluster(emb, windows.spans, tuning=tuning,
                                                                               min_speakers=least))
        segments = diarize_windows.segments_from(windows, labels)
        return Diarized(segments, second_speakers(segments, segmentation.spans_above(heard.two, 0.5)))

    results = []
    for values in itertools.product(*GRID.values()):
        tuning = replace(diarize_hybrid.TUNING.windows, **dict(zip(GRID, values)))
        rows = []
        for i, (speakers, reference, audio, regions, heard) in enumerate(prepared):
            if not regions:
                continue
            result = scores(reference, found(i, audio, regions, heard, tuning), len(audio) * 1000 // 16000)
            rows.append({"speakers": speakers, "hybrid": {**result, "seconds": 0.0}})
        two = sum(len({g.speaker for g in found(1000 + i, *c, tuning).segments}) == 2 for i, c in enumerate(calls) if c[1])
        one = sum(len({g.speaker for g in found(2000 + i, *c, tuning).segments}) <= 1 for i, c in enumerate(singles)
                  if c[1])
        results.append({**dict(zip(GRID, values)), **summary(rows, "hybrid"),
                        "two_party_calls_found_2": two, "one_speaker_files_found_1": one})
        print(json.dumps(results[-1]), file=sys.stderr, flush=True)
    # first what the project must keep (every two-party cut found as two, 98 % of one-speaker files as one),
    # then the count, then the error
    return sorted(results, key=lambda r: (-(r["two_party_calls_found_2"] == len(calls)) -
                                          (r["one_speaker_files_found_1"] >= 0.98 * len(singles)),
                                          -r["count_right"], r["mean_der"]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, action="append",
                        help="the built recordings (<id>.flac or .wav, <id>.rttm); with --grid, once per --list")
    parser.add_argument("--list", type=Path, action="append",
                        help="the list of recordings (default: the public one); with --grid, several")
    parser.add_argument("--split", choices=("dev", "test", "fresh", "all"), default="all",
                        help="which half of the list (fresh: diarization_sim_fresh.json's only half)")
    parser.add_argument("--pipelines", default=",".join(PIPELINES), help="comma-separated, of " + ", ".join(PIPELINES))
    parser.add_argument("--own", action="store_true", help="also the two-party cuts and one-speaker files")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--grid", action="store_true", help="try GRID's count rules on the dev recordings and exit")
    args = parser.parse_args()
    pipelines = tuple(p.strip() for p in args.pipelines.split(",") if p.strip())
    if not pipelines or set(pipelines) - set(PIPELINES):
        parser.error(f"--pipelines takes some of {', '.join(PIPELINES)}")
    lists = args.list or [PUBLIC]
    if len(lists) != len(args.data) or (len(lists) > 1 and not args.grid):
        parser.error("give one --data per --list (several only with --grid)")
    try:
        listed = json.loads(lists[0].read_text())
    except (OSError, ValueError) as exc:
        parser.error(f"--list {lists[0]}: not a list of recordings ({type(exc).__name__}: {exc})")
    if not args.grid and not any(args.split in ("all", entry["split"])
                                 for entry in listed.get("recordings", listed.get("conversations", []))):
        parser.error(f"--split {args.split}: no recording of it in {lists[0]}")
    networks = load_segmentation(), load_campplus()
    with one_thread_each():  # as the pipeline runs the stage: its kernels on one thread, its pieces side by side
        if args.grid:
            dev = [row for data, listed in zip(args.data, lists) for row in recordings(data, listed, "dev")]
            print(json.dumps(grid(dev, networks)[:10], indent=1))
            return 0
        rows = measure(recordings(args.data[0], lists[0], args.split), pipelines, networks)
        own = own_counts(pipelines, networks) if args.own and EVAL.is_dir() else None
    report = {"command": f"python benchmarks/speakers/diarization_public.py --data DATA --list {lists[0].name} "
                         f"--split {args.split} --pipelines {','.join(pipelines)}" + (" --own" if own else ""),
              "tuning": {"hybrid": repr(diarize_hybrid.TUNING), "segmentation": vars(diarize_segmentation.TUNING)},
              "splits": summaries(rows, pipelines), "own": own, "recordings": rows}
    print(json.dumps({k: {p: (v[p]["mean_der"], v[p]["count_right"], v[p]["recordings"]) for p in pipelines}
                      for k, v in report["splits"].items()}, indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
