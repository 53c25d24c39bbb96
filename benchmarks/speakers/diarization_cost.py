#!/usr/bin/env python3
"""What diarization costs: its time against recognition's on the 12-minute call, and the memory of a whole run on
a long one-channel recording, each diarization pipeline side by side in one run.

Time: the real SpokenWOZ call of ../shared/evaldata (MUL1011) mixed down to one channel and repeated four times
(12.2 minutes), recognised as the ASR stage runs it by default (batched, tiny.en, int8, beam 5, word timestamps,
VAD) and diarized by each pipeline as the stage runs it (`threads` pieces side by side, every kernel on one
thread), the models loaded beforehand; in `--rounds` rounds, each side once per round in turned order; the
median of each side counts, and its share of recognition's time.

Memory: the same call repeated to `--hours` hours (a 16 kHz FLAC written once to a temporary folder), processed
by `speechproc run` with the default configuration and `speechproc.diarizer` set, in a fresh process per
pipeline: its peak resident set (the process's own maximum, as the kernel counts it) and wall time; and with
diarization off ("none"), what recognition alone peaks at.

Usage: python benchmarks/speakers/diarization_cost.py [--rounds 3] [--hours 4] [--pipelines windows,hybrid,segmentation]
                                             [--skip-memory] [--json OUT]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks" / "speakers"))

from diarization import EVAL, asr_seconds  # noqa: E402

CALL = EVAL / "spokenwoz-speechbrain" / "MUL1011.opus"
PIPELINES = ("windows", "hybrid", "segmentation")
THREADS = 2


def downmixed_call(copies: int) -> np.ndarray:
    from speechproc.media import decode

    track = decode(CALL)
    return np.tile(np.ascontiguousarray(track.samples.mean(axis=0, dtype=np.float32)), copies)


def timed(pipelines: tuple[str, ...], rounds: int) -> dict:
    """Recognition and each pipeline on the 12-minute call, side by side in turned order."""
    from speechproc.concurrency import one_thread_each
    from speechproc.stages.options import DiarizationOptions
    from speechproc.stages.speakers import diarize

    audio = downmixed_call(4)
    sides = ("recognition", *pipelines)
    options = {p: DiarizationOptions(diarizer=p) for p in pipelines}
    for p in pipelines:
        diarize.prepare(options[p])
    seconds: dict[str, list[float]] = {side: [] for side in sides}
    for r in range(rounds):
        order = sides[r % len(sides):] + sides[:r % len(sides)]
        for side in order:
            if side == "recognition":
                seconds[side].append(asr_seconds(audio, THREADS))
                continue
            with one_thread_each():
                started = time.perf_counter()
                diarize.diarized(audio, options[side], THREADS)
                seconds[side].append(time.perf_counter() - started)
            print(json.dumps({side: round(seconds[side][-1], 2)}), file=sys.stderr, flush=True)
    median = {side: statistics.median(v) for side, v in seconds.items()}
    return {"audio_s": round(len(audio) / 16000, 1), "rounds": {k: [round(x, 2) for x in v] for k, v in seconds.items()},
            "median_s": {k: round(v, 2) for k, v in median.items()},
            "share_of_recognition": {p: round(median[p] / median["recognition"], 3) for p in pipelines}}


def memory(pipelines: tuple[str, ...], hours: float) -> dict:
    """A whole `speechproc run` of the call repeated to `hours` hours, in a fresh process per pipeline."""
    import soundfile as sf

    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        call = downmixed_call(1)
        repeats = int(np.ceil(hours * 3600 * 16000 / len(call)))
        recording = Path(tmp) / "long.flac"
        with sf.SoundFile(str(recording), "w", 16000, 1, "PCM_16") as f:
            for _ in range(repeats):
                f.write(call)
        for pipeline in ("none", *pipelines):  # none: recognition alone, what every pipeline adds to
            config = Path(tmp) / f"{pipeline}.json"
            local = {"diarization": False} if pipeline == "none" else {"diarizer": pipeline}
            config.write_text(json.dumps({"speechproc": local}))
            home = Path(tmp) / f"home-{pipeline}"
            script = ("import resource, sys, time; from speechproc.cli.commands import main; t = time.perf_counter()\n"
                      "try:\n    main(sys.argv[1:], standalone_mode=False)\n"
                      "finally:\n    print('PEAK', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "
                      "time.perf_counter() - t, file=sys.stderr)")
            done = subprocess.run([sys.executable, "-c", script, "run", str(recording), "--config", str(config),
                                   "--out", str(Path(tmp) / f"out-{pipeline}"), "--quiet"],
                                  capture_output=True, text=True, env={**os.environ, "SPEECHPROC_HOME": str(home)})
            peak = next((line.split() for line in done.stderr.splitlines() if line.startswith("PEAK")), None)
            if done.returncode != 0 or peak is None:
                raise SystemExit(f"{pipeline}: speechproc run failed:\n{done.stderr[-3000:]}")
            out[pipeline] = {"peak_rss_mb": round(int(peak[1]) / 1024), "wall_s": round(float(peak[2]), 1)}
            print(json.dumps({pipeline: out[pipeline]}), file=sys.stderr, flush=True)
    return {"hours": round(repeats * len(call) / 16000 / 3600, 2), "runs": out}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--hours", type=float, default=4.0)
    parser.add_argument("--pipelines", default=",".join(PIPELINES))
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    pipelines = tuple(p.strip() for p in args.pipelines.split(",") if p.strip())
    if not pipelines or set(pipelines) - set(PIPELINES) or args.rounds < 1 or args.hours <= 0:
        parser.error(f"--pipelines takes some of {', '.join(PIPELINES)}; --rounds and --hours must be positive")
    if not CALL.exists():
        parser.error(f"needs {CALL}")
    result = {"command": f"python benchmarks/speakers/diarization_cost.py --rounds {args.rounds} --hours {args.hours} "
                         f"--pipelines {','.join(pipelines)}", "time": timed(pipelines, args.rounds)}
    print(json.dumps(result["time"], indent=1), flush=True)
    if not args.skip_memory:
        result["memory"] = memory(pipelines, args.hours)
        print(json.dumps(result["memory"], indent=1), flush=True)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
