#!/usr/bin/env python3
"""Throughput of `speechproc run` against bare faster-whisper, and with more than one worker.

Everything runs side by side in one run on one machine; every measurement is a fresh process (model
loads included), and its peak RSS is the largest resident set of any one process it ran.

(a) One long stereo telephone call (the real 8 kHz SpokenWOZ call of ../shared/evaldata, repeated to
    about 12 minutes) with configs/callcenter.yaml, against bare faster-whisper on the same two
    channels, sequential (no VAD) and BatchedInferencePipeline (VAD, batch 8): the same model
    (tiny.en, int8), beam 5, threads and word timestamps.
(b) A folder of 20 short calls (45 s windows of the same call at different offsets) with
    configs/callcenter.yaml: files per hour and audio hours per hour for `--workers 1` (all threads)
    and `--workers 2` (the threads shared out).

Usage: python benchmarks/throughput.py [--threads N] [--calls N] [--repeat N] [--json OUT]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CALL = ROOT.parent / "shared" / "evaldata" / "spokenwoz-speechbrain" / "MUL1011.opus"
CONFIG = ROOT / "configs" / "callcenter.yaml"
SPEECHPROC = Path(sys.executable).parent / "speechproc"

BARE = """
import sys, time
import numpy as np
from faster_whisper import BatchedInferencePipeline, WhisperModel
from speechproc.media import decode
from speechproc.models import whisper_location
path, mode, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
model = WhisperModel(whisper_location("tiny.en"), device="cpu", compute_type="int8", cpu_threads=threads)
track = decode(path)
words = 0
for channel in track.samples:
    audio = np.ascontiguousarray(channel)
    if mode == "batched":
        segments, _ = BatchedInferencePipeline(model).transcribe(audio, language="en", beam_size=5,
                                                                 word_timestamps=True, batch_size=8)
    else:
        segments, _ = model.transcribe(audio, language="en", beam_size=5, word_timestamps=True, vad_filter=False)
    words += sum(len(s.words or []) for s in segments)
print(words)
"""


def write_wav(path: Path, samples: np.ndarray, rate: int) -> Path:
    import wave

    with wave.open(str(path), "wb") as f:
        f.setnchannels(samples.shape[0])
        f.setsampwidth(2)
        f.setframerate(rate)
        f.writeframes((np.clip(samples.T, -1, 1) * 32767).astype("<i2").tobytes())
    return path


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(wall seconds, peak RSS in MB of its largest process, stdout) of a command in fresh processes."""
    script = ("import resource, subprocess, sys, time, json\n"
              "start = time.perf_counter()\n"
              "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
              "wall = time.perf_counter() - start\n"
              "rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024\n"
              "print(json.dumps({'wall': wall, 'rss': rss, 'rc': done.returncode, 'out': done.stdout[-2000:],"
              " 'err': done.stderr[-2000:]}))\n")
    result = json.loads(subprocess.run([sys.executable, "-c", script, *command], capture_output=True, text=True,
                                       env=env, check=True).stdout)
    if result["rc"] != 0:
        raise RuntimeError(f"{command[:3]} exited {result['rc']}: {result['err']}")
    return round(result["wall"], 1), round(result["rss"]), result["out"]


def speechproc_run(folder: Path, out: Path, workers: int, env: dict[str, str]) -> tuple[float, float]:
    """`speechproc run` with configs/callcenter.yaml (threads: one per core, shared out among the workers)."""
    command = [str(SPEECHPROC), "run", str(folder), "--config", str(CONFIG), "--out", str(out), "--quiet",
               "--force", "--workers", str(workers)]
    wall, rss, _ = timed(command, {**env, "SPEECHPROC_HOME": str(out / "home")})  # exit 0: every item finished
    return wall, rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=4, help="copies of the 3-minute call in the long call")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if not CALL.exists():
        sys.exit(f"{CALL} is needed (../shared beside the project)")
    from speechproc.media import decode

    track = decode(CALL, sample_rate=None)
    rate = track.sample_rate
    result: dict = {"threads": args.threads, "cores": os.cpu_count(), "rate_hz": rate}
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        long_call = write_wav(tmp_path / "long.wav", np.tile(track.samples, args.repeat), rate)
        seconds = track.samples.shape[1] * args.repeat / rate
        result["long_call"] = {"audio_s": round(seconds, 1)}
        sides = {
            "speechproc": lambda: speechproc_run(long_call, tmp_path / "out-long", 1, env)[:2],
            "bare_sequential": lambda: timed([sys.executable, "-c", BARE, str(long_call), "sequential",
                                              str(args.threads)], env)[:2],
            "bare_batched": lambda: timed([sys.executable, "-c", BARE, str(long_call), "batched",
                                           str(args.threads)], env)[:2],
        }
        for name, measure in sides.items():
            wall, rss = measure()
            result["long_call"][name] = {"wall_s": wall, "peak_rss_mb": rss}
            print("long call", name, wall, "s", rss, "MB", flush=True)
        long = result["long_call"]
        long["speedup_vs_bare_batched"] = round(long["bare_batched"]["wall_s"] / long["speechproc"]["wall_s"], 2)
        long["speedup_vs_bare_sequential"] = round(long["bare_sequential"]["wall_s"] / long["speechproc"]["wall_s"], 2)

        folder = tmp_path / "calls"
        folder.mkdir()
        window, step = 45 * rate, max(1, (track.samples.shape[1] - 45 * rate) // max(1, args.calls - 1))
        for k in range(args.calls):
            write_wav(folder / f"call{k:02d}.wav", track.samples[:, k * step: k * step + window], rate)
        audio_h = args.calls * 45 / 3600
        result["short_calls"] = {"files": args.calls, "audio_s_each": 45}
        for workers in (1, 2):
            wall, rss = speechproc_run(folder, tmp_path / f"out-{workers}", workers, env)
            result["short_calls"][f"workers_{workers}"] = {
                "wall_s": wall, "files_per_hour": round(args.calls * 3600 / wall), "audio_hours_per_hour":
                round(audio_h * 3600 / wall, 1), "peak_rss_mb_per_process": rss}
            print("short calls, workers", workers, wall, "s", rss, "MB", flush=True)
        short = result["short_calls"]
        short["speedup_2_vs_1"] = round(short["workers_1"]["wall_s"] / short["workers_2"]["wall_s"], 2)
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
