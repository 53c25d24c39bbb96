#!/usr/bin/env python3
"""Diarization on public recordings nobody tuned on: the segmentation pipeline (the default diarizer) beside the
windows pipeline (the one before it), in the same run, on the recordings listed in
benchmarks/diarization_recordings.json: telephone, meeting, broadcast and other audio with a reference RTTM,
2-7 speakers, each from a public repository (its source, commit and licence are listed there).

The list and its split were committed before any setting was tried: half `dev` (the only recordings the
pipeline's settings were chosen on, `--grid`), half `test` (read with everything fixed). Build the recordings
with `python benchmarks/diarization_data.py --out DIR` (downloads each source at its commit, converts to
16 kHz mono FLAC and RTTM).

Scores per recording and per half: DER with a 0.25 s collar and without one, overlapped reference speech
scored (the segmentation pipeline gives its second voices there; the windows pipeline one voice at a time),
the speaker count against the reference's, and the diarization's seconds.

Usage: python benchmarks/diarization_public.py --data DIR [--split dev|test|all] [--json OUT]
       python benchmarks/diarization_public.py --data DIR --grid      (dev recordings only: the settings' grid)
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from diarization import EVAL, der, excerpts, mono, rttm  # noqa: E402

from speechproc.concurrency import one_thread_each  # noqa: E402
from speechproc.engines.models import load_campplus, load_segmentation  # noqa: E402
from speechproc.stages import diarize, diarize_segmentation  # noqa: E402

LIST = Path(__file__).resolve().parent / "diarization_recordings.json"
GRID = {"threshold": (0.55, 0.6, 0.65), "min_cluster_size": (2, 4),
        "unlinked_similarity": (None, 0.55)}
STEPS = (2.5, 5.0)  # seconds between chunks (1.0 was no better than 2.5 on dev)


def scores(reference: list, hypothesis: list, length_ms: int) -> dict:
    with_collar, without = der(reference, hypothesis, length_ms), der(reference, hypothesis, length_ms, collar_ms=0)
    return {"der": round(with_collar["der"], 4), "der_no_collar": round(without["der"], 4),
            "missed": round(with_collar["missed"], 4), "false_alarm": round(with_collar["false_alarm"], 4),
            "confusion": round(with_collar["confusion"], 4), "reference_s": round(with_collar["reference_s"], 1)}


def segmented_row(audio: np.ndarray, reference: list, found: diarize_segmentation.Diarized, seconds: float) -> dict:
    length_ms = len(audio) * 1000 // 16000
    hypothesis = [(g.s, g.e, g.speaker) for g in found.segments] + list(found.overlaps)
    return {**scores(reference, hypothesis, length_ms), "speakers_found": len(found.voices),
            "seconds": round(seconds, 2)}


def windows_row(audio: np.ndarray, reference: list) -> dict:
    started = time.perf_counter()
    segments = diarize.diarize(audio, threads=2)
    took = time.perf_counter() - started
    length_ms = len(audio) * 1000 // 16000
    return {**scores(reference, [(g.s, g.e, g.speaker) for g in segments], length_ms),
            "speakers_found": len({g.speaker for g in segments}), "seconds": round(took, 2)}


def summary(rows: list[dict], side: str) -> dict:
    chosen = [r[side] for r in rows]
    return {"recordings": len(rows), "mean_der": round(float(np.mean([r["der"] for r in chosen])), 4),
            "mean_der_no_collar": round(float(np.mean([r["der_no_collar"] for r in chosen])), 4),
            "pooled_der": round(sum(r["der"] * r["reference_s"] for r in chosen) /
                                max(sum(r["reference_s"] for r in chosen), 1e-9), 4),
            "count_right": sum(c["speakers_found"] == r["speakers"] for c, r in zip(chosen, rows)),
            "seconds": round(sum(r["seconds"] for r in chosen), 1)}


def recordings(data: Path, split: str) -> list[tuple[dict, np.ndarray, list]]:
    listed = json.loads(LIST.read_text())["recordings"]
    out = []
    for entry in listed:
        if split != "all" and entry["split"] != split:
            continue
        out.append((entry, mono(data / f"{entry['id']}.flac"), rttm(data / f"{entry['id']}.rttm")))
    return out


def one_speaker_files() -> list[str]:
    """The one-channel, one-speaker files of ../shared/evaldata/wer-manifest.tsv (all but Picovoice's Leopard)."""
    import csv

    with open(EVAL / "wer-manifest.tsv", newline="") as f:
        files = sorted({row[0] for row in csv.reader(f, delimiter="\t") if row[1] == "mono"})
    return [name for name in files if "leopard_diarization" not in name]


def grid(data: Path, networks) -> list[dict]:
    """Every setting of GRID on the dev recordings, and (with ../shared/evaldata) on the project's own dev data:
    the 40 two-party calls cut from its real telephone call (found as two speakers?) and its one-speaker files
    (found as one?). The embeddings are computed once per recording and step."""
    dev = recordings(data, "dev")
    calls = [(audio, reference) for _, audio, reference in excerpts()] if EVAL.is_dir() else []
    singles = [mono(EVAL / name) for name in one_speaker_files()] if EVAL.is_dir() else []
    results = []
    for step in STEPS:
        at_step = replace(diarize_segmentation.TUNING, step_s=step)

        def embedded(audio: np.ndarray, at_step=at_step) -> diarize_segmentation.Embedded:
            return diarize_segmentation.embedded(audio, *networks, tuning=at_step, threads=2)

        found = [embedded(audio) for _, audio, _ in dev]
        found_calls = [embedded(audio) for audio, _ in calls]
        found_singles = [embedded(audio) for audio in singles]
        for values in itertools.product(*GRID.values()):
            tuning = replace(at_step, **dict(zip(GRID, values)))
            rows = [{"speakers": entry["speakers"], "segmentation": segmented_row(
                        audio, reference, diarize_segmentation.clustered(done, tuning=tuning), 0)}
                    for (entry, audio, reference), done in zip(dev, found)]
            two = sum(len(diarize_segmentation.clustered(done, tuning=tuning).voices) == 2 for done in found_calls)
            one = sum(len(diarize_segmentation.clustered(done, tuning=tuning).voices) <= 1 for done in found_singles)
            results.append({"step_s": step, **dict(zip(GRID, values)), **summary(rows, "segmentation"),
                            "two_party_calls_found_2": f"{two}/{len(calls)}",
                            "one_speaker_files_found_1": f"{one}/{len(singles)}"})
            print(json.dumps(results[-1]), file=sys.stderr, flush=True)
    return sorted(results, key=lambda r: (r["mean_der"], -r["count_right"]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="the built recordings (<id>.flac, <id>.rttm)")
    parser.add_argument("--split", choices=("dev", "test", "all"), default="all")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--grid", action="store_true", help="try GRID's settings on the dev recordings and exit")
    args = parser.parse_args()
    networks = load_segmentation(), load_campplus()
    diarize.prepare(diarize.DiarizationOptions(diarizer="windows"))
    with one_thread_each():  # as the pipeline runs the stage: its kernels on one thread, its pieces side by side
        if args.grid:
            print(json.dumps(grid(args.data, networks)[:10], indent=1))
            return 0
        rows = measure(args.data, args.split, networks)
    report = {"command": f"python benchmarks/diarization_public.py --data DATA --split {args.split}",
              "tuning": vars(diarize_segmentation.TUNING),
              "splits": {split: {side: summary([r for r in rows if r["split"] == split], side)
                                 for side in ("segmentation", "windows")}
                         for split in ("dev", "test") if any(r["split"] == split for r in rows)},
              "recordings": rows}
    print(json.dumps(report["splits"], indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


def measure(data: Path, split: str, networks) -> list[dict]:
    """Both pipelines on each recording of `split`, side by side."""
    rows = []
    for entry, audio, reference in recordings(data, split):
        started = time.perf_counter()
        found = diarize_segmentation.diarize(audio, *networks, threads=2)
        row = {"id": entry["id"], "split": entry["split"], "kind": entry["kind"], "speakers": entry["speakers"],
               "seconds": round(len(audio) / 16000, 1),
               "segmentation": segmented_row(audio, reference, found, time.perf_counter() - started),
               "windows": windows_row(audio, reference)}
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    return rows


if __name__ == "__main__":
    sys.exit(main())
