#!/usr/bin/env python3
"""Whole runs with every analytic against bare faster-whisper's recognition alone, and where the time goes.

Two workloads, each a fresh process tree per measurement (start-up and model loads included), made from
the real two-channel SpokenWOZ call of ../shared/evaldata at 8 kHz:

- `long`: the call repeated to about 12 minutes, one file;
- `folder`: six 4-minute calls (windows of the call repeated, at different offsets), one folder.

Sides, measured in rounds (`--rounds`), every round running each side once, the order turned by one each
round, so that a slow spell of the machine does not fall on one side:

- `speechproc`: `speechproc run --config configs/callcenter.yaml --workers auto` (every analytic: voice
  features, advanced punctuation, all four metric groups, sentiment per speaker, verb-noun pairs,
  keywords and topics), writing every output;
- `speechproc_transcript`: the same command with configs/stereo-call.yaml (the transcript alone, with
  advanced punctuation: no analytic model loaded): the run's recognition and what surrounds it, so that
  the analytics' share of the gap is measured, not inferred;
- `bare_two_replicas`: faster-whisper's fastest recognition on 2 cores: BatchedInferencePipeline (VAD,
  batch 8, beam 5, word timestamps, tiny.en int8), each channel on a replica of its own with one thread,
  both channels at once; the model loaded once, the files one after another, decoded by faster-whisper;
- `bare_two_replicas_huge_pages`: the same, its allocator on transparent huge pages as `speechproc run`
  starts itself (GLIBC_TUNABLES=glibc.malloc.hugetlb=1): the peer given the same system setting;
- `bare_joined`: BatchedInferencePipeline on both channels joined end to end in one array (all threads);
- `bare_sequential`: WhisperModel.transcribe channel by channel, no VAD (all threads).

For each workload: every wall time, the median of each side, and speechproc's speed against each bare
side as the ratio of medians and as the ratios within each round (their least, median and largest: the
spread). Beside them, the CPU seconds of each run (its processes, waited for) and the share of the cores
left idle.

The timeline: every speechproc run records its spans (SPEECHPROC_TRACE: start-up, model loads, decode,
VAD, recognition, each analytic, writing, waiting). For the run of each workload whose wall time is the
median, each process's main thread is summed by kind (idle: its lifetime not in a span), the loads
that other threads made while recognition ran are listed apart, and every span is kept, in seconds from
the run's start.

With `--before DIR` (another checkout of speechproc, its root folder), the side `speechproc_before` runs
the same command from that checkout's source: a change measured against the code before it, in the same
run (its timeline too, where that code writes one).

Usage: python benchmarks/cost/whole_runs.py [--rounds 3] [--workloads long,folder] [--before DIR]
                                       [--sides speechproc,speechproc_before,speechproc_transcript,
                                                bare_two_replicas,bare_two_replicas_huge_pages,
                                                bare_joined,bare_sequential]
                                       [--json OUT]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "cost"))
from throughput import CALL, CONFIG, SPEECHPROC, timed, write_wav  # noqa: E402

from speechproc.cli.launch import HUGE_PAGES_TUNABLE  # noqa: E402

TRANSCRIPT_CONFIG = ROOT / "configs" / "stereo-call.yaml"  # the side speechproc_transcript: no analytic

SIDES = ("speechproc", "speechproc_before", "speechproc_transcript", "bare_two_replicas",
         "bare_two_replicas_huge_pages", "bare_joined", "bare_sequential")
HUGE_PAGES = f"{HUGE_PAGES_TUNABLE}=1"  # the allocator setting `speechproc run` starts itself with
WORKLOADS = ("long", "folder")
FOLDER_CALLS, FOLDER_CALL_S, FOLDER_STEP_S = 6, 240, 21

BARE = """
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
import numpy as np
from faster_whisper import BatchedInferencePipeline, WhisperModel, decode_audio
from speechproc.engines.models import whisper_location
target, mode, threads = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
at_once = 2 if mode == "two_replicas" else 1
model = WhisperModel(whisper_location("tiny.en"), device="cpu", compute_type="int8",
                     cpu_threads=max(1, threads // at_once), num_workers=at_once)

def words(audio):
    if mode == "sequential":
        segments, _ = model.transcribe(audio, language="en", beam_size=5, word_timestamps=True, vad_filter=False)
    else:
        segments, _ = BatchedInferencePipeline(model).transcribe(audio, language="en", beam_size=5,
                                                                 word_timestamps=True, batch_size=8)
    return sum(len(s.words or []) for s in segments)

total = 0
for path in sorted(target.glob("*.wav")) if target.is_dir() else [target]:
    channels = decode_audio(str(path), split_stereo=True)
    if mode == "joined":
        total += words(np.concatenate(channels))
    else:
        with ThreadPoolExecutor(at_once) as pool:
            total += sum(pool.map(words, channels))
print(total)
"""


def make_workloads(tmp: Path, wanted: list[str]) -> dict[str, tuple[Path, float]]:
    """{workload: (file or folder, seconds of audio)}."""
    from speechproc.media import decode

    track = decode(CALL, sample_rate=8000)
    rate, samples = track.sample_rate, track.samples
    made = {}
    if "long" in wanted:
        long = write_wav(tmp / "long.wav", np.tile(samples, 4), rate)
        made["long"] = (long, samples.shape[1] * 4 / rate)
    if "folder" in wanted:
        folder = tmp / "calls"
        folder.mkdir()
        tiled = np.tile(samples, 3)
        for k in range(FOLDER_CALLS):
            start = k * FOLDER_STEP_S * rate
            write_wav(folder / f"call{k}.wav", tiled[:, start: start + FOLDER_CALL_S * rate], rate)
        made["folder"] = (folder, FOLDER_CALLS * FOLDER_CALL_S)
    return made


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(side: str, target: Path, work: Path, threads: int, run_no: int, before: Path | None) -> dict:
    """One measurement: wall seconds, CPU seconds, peak RSS, and for speechproc its trace folder."""
    env = dict(os.environ)
    if side.startswith("speechproc"):
        trace = work / f"trace-{side}-{target.stem}-{run_no}"
        trace.mkdir()
        env.update(SPEECHPROC_HOME=str(work / f"home-{side}"), SPEECHPROC_TRACE=str(trace))
        if side == "speechproc_before":  # another checkout of speechproc, run from its own source
            env["PYTHONPATH"] = str(before / "src")
        config = TRANSCRIPT_CONFIG if side == "speechproc_transcript" else CONFIG
        command = [str(SPEECHPROC), "run", str(target), "--out", str(work / f"out-{side}-{target.stem}"), "--quiet",
                   "--force", "--config", str(config), "--workers", "auto"]
    else:
        trace = None
        mode = side.removeprefix("bare_").removesuffix("_huge_pages")
        if side.endswith("_huge_pages"):
            env["GLIBC_TUNABLES"] = HUGE_PAGES
        command = [sys.executable, "-c", BARE, str(target), mode, str(threads)]
    cpu = children_cpu()
    started = time.time()
    memory: dict = {}
    wall, rss, _ = timed(command, env, memory)
    # the CPU of the processes that were waited for, or what sampling saw where more (a fork server and its
    # children are not waited for by the run's process)
    return {"wall_s": wall, "cpu_s": max(round(children_cpu() - cpu, 1), memory["cpu_s"]), "peak_rss_mb": rss,
            "peak_pss_mb": memory["peak_pss_mb"], "started": started, "trace": trace}


def workload(name: str, target: Path, audio_s: float, sides: list[str], rounds: int, work: Path,
             threads: int, before: Path | None) -> dict:
    runs: dict[str, list[dict]] = {side: [] for side in sides}
    for k in range(rounds):
        for side in sides[k % len(sides):] + sides[:k % len(sides)]:
            measured = measure(side, target, work, threads, k, before)
            runs[side].append(measured)
            print(name, "round", k + 1, side, measured["wall_s"], "s", flush=True)
    cores = os.cpu_count() or 1
    result: dict = {"audio_s": round(audio_s, 1)}
    for side, measured in runs.items():
        walls = [m["wall_s"] for m in measured]
        result[side] = {"wall_s": round(statistics.median(walls), 1), "walls_s": walls,
                        "cpu_s": [m["cpu_s"] for m in measured],
                        "idle_core_share": [round(1 - m["cpu_s"] / (m["wall_s"] * cores), 2) for m in measured],
                        "peak_rss_mb": max(m["peak_rss_mb"] for m in measured),
                        "peak_pss_mb": max(m["peak_pss_mb"] for m in measured),
                        "x_realtime": round(audio_s / statistics.median(walls), 1)}
    if "speechproc" in runs:
        for peer in (s for s in sides if s != "speechproc"):
            result[f"speed_vs_{peer}"] = speed(runs["speechproc"], runs[peer])
    if "speechproc_transcript" in runs:  # the transcript alone against the bare sides
        for peer in (s for s in sides if s.startswith("bare_")):
            result[f"transcript_speed_vs_{peer}"] = speed(runs["speechproc_transcript"], runs[peer])
    for side, key in (("speechproc", "timeline"), ("speechproc_before", "timeline_before"),
                      ("speechproc_transcript", "timeline_transcript")):
        if side in runs:
            middle = sorted(runs[side], key=lambda m: m["wall_s"])[len(runs[side]) // 2]
            result[key] = timeline(middle["trace"], middle["started"])  # {} where the code writes none
    return result


def speed(ours: list[dict], peer: list[dict]) -> dict:
    """The peer's wall time over ours: the ratio of the medians, and the least, median and largest ratio of
    the runs of one round."""
    per_round = sorted(p["wall_s"] / o["wall_s"] for o, p in zip(ours, peer))
    medians = statistics.median(p["wall_s"] for p in peer) / statistics.median(o["wall_s"] for o in ours)
    return {"ratio_of_medians": round(medians, 2), "per_round_least": round(per_round[0], 2),
            "per_round_median": round(statistics.median(per_round), 2), "per_round_largest": round(per_round[-1], 2)}


KINDS = {"decode": "decode", "vad": "vad", "asr": "recognition", "publish": "writing", "start-up": "start-up",
         "waiting for a job": "idle: waiting for a job", "waiting for the workers": "waiting for the workers",
         "prepare a job": "the batch's bookkeeping", "record a job": "the batch's bookkeeping",
         "deliver": "the batch's bookkeeping", "job": None, "preload models": None}


def timeline(folder: Path, started: float) -> dict:
    """Each process's main-thread seconds by kind (spans inside spans counted once, in the innermost), the
    loads made by other threads, and every span in seconds from `started`."""
    processes = {}
    for path in sorted(folder.glob("trace-*.jsonl")):
        events = [json.loads(line) for line in path.read_text().splitlines()]
        if not events:
            continue
        main = sorted((e for e in events if e["tid"] == "MainThread"), key=lambda e: (e["ts"], -e["dur"]))
        begin = min(e["ts"] for e in events) / 1e6
        end = max(e["ts"] + e["dur"] for e in events) / 1e6
        kinds = exclusive_seconds(main)
        kinds["idle"] = round(max(0.0, end - begin - sum(kinds.values())), 2)
        names = {e["name"] for e in events}
        role = "worker" if "waiting for a job" in names else "fork server" if "preload models" in names else "main"
        processes[f"{role} {path.stem.removeprefix('trace-')}"] = {
            "from_s": round(begin - started, 2), "to_s": round(end - started, 2),
            "main_thread_s": dict(sorted(kinds.items(), key=lambda kv: -kv[1])),
            "loads_beside_recognition_s": {e["name"]: round(e["dur"] / 1e6, 2) for e in events
                                           if e["tid"] != "MainThread" and e["name"].startswith("load ")},
            "spans": [[e["name"], round(e["ts"] / 1e6 - started, 2), round((e["ts"] + e["dur"]) / 1e6 - started, 2)]
                      for e in main]}
    return processes


def exclusive_seconds(spans: list[dict]) -> dict[str, float]:
    """Seconds by kind, each moment counted in the innermost span that covers it (spans nest on one thread)."""
    kinds: dict[str, float] = {}
    edges = sorted({e["ts"] for e in spans} | {e["ts"] + e["dur"] for e in spans})
    for left, right in zip(edges, edges[1:]):
        inner = [e for e in spans if e["ts"] <= left and e["ts"] + e["dur"] >= right]
        named = [e for e in inner if kind_of(e["name"]) is not None]
        if named:
            kind = kind_of(min(named, key=lambda e: e["dur"])["name"])
            kinds[kind] = kinds.get(kind, 0.0) + (right - left) / 1e6
    return {kind: round(seconds, 2) for kind, seconds in kinds.items()}


def kind_of(name: str) -> str | None:
    if name.startswith("load "):
        return "model loads"
    return KINDS.get(name, f"analytics: {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2, help="the bare sides' threads")
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--sides", default=",".join(SIDES))
    parser.add_argument("--before", type=Path, help="another checkout of speechproc (its root folder), measured as "
                        "the side speechproc_before: a change against the code before it, in the same run")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    workloads, sides = args.workloads.split(","), args.sides.split(",")
    if args.before is None:
        sides = [s for s in sides if s != "speechproc_before"]
    elif not (args.before / "src" / "speechproc").is_dir():
        parser.error(f"--before {args.before}: no src/speechproc there")
    if not set(workloads) <= set(WORKLOADS) or not set(sides) <= set(SIDES) or min(args.rounds, args.threads) < 1:
        parser.error(f"--workloads from {WORKLOADS}, --sides from {SIDES}, --rounds and --threads at least 1")
    if not CALL.exists():
        sys.exit(f"{CALL} is needed (../shared beside the project)")
    command = "python benchmarks/cost/whole_runs.py " + " ".join(sys.argv[1:])
    result: dict = {"command": command.strip(), "cores": os.cpu_count(), "rounds": args.rounds,
                    "cpu_path": "oneDNN AVX2" if os.environ.get("CT2_USE_MKL") == "0" else "default"}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name, (target, audio_s) in make_workloads(work, workloads).items():
            result[name] = workload(name, target, audio_s, sides, args.rounds, work, args.threads, args.before)
    text = json.dumps(result, indent=1)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
