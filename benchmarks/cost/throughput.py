#!/usr/bin/env python3
"""Throughput and memory of `speechproc run` against bare faster-whisper, with more than one worker, and on Ray.

Everything runs side by side in one run on one machine; every measurement is a fresh process tree (model
loads included), sampled for the resident set of each of its processes; "peak RSS" is the largest of them.

(a) One long stereo telephone call (the real SpokenWOZ call of ../shared/evaldata at 8 kHz, repeated to
    about 12 minutes) with configs/callcenter.yaml (batched recognition, the default, and sequential),
    against bare faster-whisper on the same two channels: sequential (no VAD), BatchedInferencePipeline
    (VAD, batch 8) one channel after the other, and BatchedInferencePipeline with both channels at once
    (two replicas of one thread each, as a user who knew could run it): the same model (tiny.en, int8),
    beam 5, threads and word timestamps. `--rounds` rounds, each side once per round in turned order;
    the median of each side counts.
(b) The same call repeated to one hour, with configs/callcenter.yaml: wall time and peak RSS.
(c) A folder of 20 short calls (45 s windows of the same call at different offsets) with
    configs/callcenter.yaml: files per hour and audio hours per hour for `--workers 1` (all threads),
    `--workers 2` (the threads shared out) and `--engine ray` (a local Ray cluster started by the run,
    one actor per core, 1 thread each), in rounds as in (a).
(d) Short telephone files (`--prompts`, 2-10 s each) with the default configuration and `--workers auto`,
    against bare faster-whisper per file, batched and sequential, in rounds as in (a). With `--before DIR`
    (another checkout of speechproc, its root folder) the side `speechproc_before` runs the same command from
    that checkout's source: a change measured against the code before it, in the same run.

Usage: python benchmarks/cost/throughput.py [--threads N] [--calls N] [--repeat N] [--hour-repeat N] [--rounds N]
                                      [--prompts N] [--only-prompts] [--before DIR] [--json OUT]
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
from collections.abc import Iterable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
CALL = ROOT.parent / "shared" / "evaldata" / "spokenwoz-speechbrain" / "MUL1011.opus"
CONFIG = ROOT / "configs" / "callcenter.yaml"
SPEECHPROC = Path(sys.executable).parent / "speechproc"

BARE = """
import sys
from concurrent.futures import ThreadPoolExecutor
import numpy as np
from faster_whisper import BatchedInferencePipeline, WhisperModel
from speechproc.media import decode
from speechproc.engines.models import whisper_location
path, mode, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
at_once = 2 if mode == "parallel" else 1  # parallel: both channels at once, each on its own replica
model = WhisperModel(whisper_location("tiny.en"), device="cpu", compute_type="int8",
                     cpu_threads=max(1, threads // at_once), num_workers=at_once)
track = decode(path)

def words(channel):
    audio = np.ascontiguousarray(channel)
    if mode == "sequential":
        segments, _ = model.transcribe(audio, language="en", beam_size=5, word_timestamps=True, vad_filter=False)
    else:
        segments, _ = BatchedInferencePipeline(model).transcribe(audio, language="en", beam_size=5,
                                                                 word_timestamps=True, batch_size=8)
    return sum(len(s.words or []) for s in segments)

if mode == "joined":  # both channels one after the other in one array: one call fills every batch
    print(words(track.samples.reshape(-1)))
else:
    with ThreadPoolExecutor(at_once) as pool:
        print(sum(pool.map(words, track.samples)))
"""


BARE_FILES = """
import sys, time
from pathlib import Path
from faster_whisper import BatchedInferencePipeline, WhisperModel, decode_audio
from speechproc.engines.models import whisper_location
folder, mode, threads = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
model = WhisperModel(whisper_location("tiny.en"), device="cpu", compute_type="int8", cpu_threads=threads)
batched = BatchedInferencePipeline(model)
for path in sorted(folder.glob("*.wav")):
    audio = decode_audio(str(path))
    if mode == "sequential":
        segments, _ = model.transcribe(audio, language="en", beam_size=5, word_timestamps=True, vad_filter=False)
    else:
        segments, _ = batched.transcribe(audio, language="en", beam_size=5, word_timestamps=True, batch_size=8)
    print(path.name + "\t" + " ".join(w.word.strip() for s in segments for w in s.words or []), flush=True)
"""


def write_wav(path: Path, samples: np.ndarray, rate: int) -> Path:
    import wave

    with wave.open(str(path), "wb") as f:
        f.setnchannels(samples.shape[0])
        f.setsampwidth(2)
        f.setframerate(rate)
        f.writeframes((np.clip(samples.T, -1, 1) * 32767).astype("<i2").tobytes())
    return path


def timed(command: list[str], env: dict[str, str], memory: dict | None = None) -> tuple[float, float, str]:
    """(wall seconds, peak RSS in MB of its largest process, stdout) of a command run in a session of its own,
    every process of which (Ray's included) is sampled every 0.2 s. With `memory`, also the peak of the
    session's proportional set size (`session_pss`: the memory the machine gives it, pages shared between its
    processes counted once) in it, as `peak_pss_mb`, and the CPU seconds its processes were last seen to have
    used (`session_cpu`: every process, those no one waits for included, such as a fork server's children),
    as `cpu_s`."""
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(command, stdout=out, stderr=err, env=env, start_new_session=True, text=True)
        peak = peak_pss = 0
        cpu: dict[int, float] = {}
        while proc.poll() is None:
            resident = session_rss(proc.pid)
            peak = max([peak, *resident.values()])
            if memory is not None:
                peak_pss = max(peak_pss, sum(session_pss(resident).values()))
                cpu.update(session_cpu(resident))
            time.sleep(0.2)
        if memory is not None:
            memory["peak_pss_mb"] = round(peak_pss / 2**20)
            memory["cpu_s"] = round(sum(cpu.values()), 1)
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if proc.returncode != 0:
        raise RuntimeError(f"{command[:3]} exited {proc.returncode}: {stderr[-2000:]}")
    return round(wall, 1), round(peak / 2**20), stdout


def session_rss(session: int) -> dict[int, int]:
    """Resident bytes of every process in a session (Linux /proc)."""
    page = os.sysconf("SC_PAGE_SIZE")
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[3]) == session:  # the session id follows state, ppid and pgrp
                with open(f"/proc/{entry}/statm") as f:
                    found[int(entry)] = int(f.read().split()[1]) * page
        except (OSError, IndexError, ValueError):
            continue
    return found


def session_cpu(pids: Iterable[int]) -> dict[int, float]:
    """CPU seconds (user and system) used so far by each process of `pids` (Linux /proc/PID/stat)."""
    ticks = os.sysconf("SC_CLK_TCK")
    found = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            found[pid] = (int(fields[11]) + int(fields[12])) / ticks  # utime and stime, the 14th and 15th
        except (OSError, IndexError, ValueError):
            continue
    return found


def session_pss(pids: Iterable[int]) -> dict[int, int]:
    """Proportional set size in bytes of each process of `pids` (Linux /proc/PID/smaps_rollup): its private
    pages, and each page it shares with N processes as 1/N; their sum is the memory they take."""
    found = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                found[pid] = next(int(line.split()[1]) * 1024 for line in f if line.startswith("Pss:"))
        except (OSError, StopIteration, ValueError, IndexError):
            continue
    return found


def speechproc_run(folder: Path, out: Path, workers: int | str, env: dict[str, str], engine: str = "local",
                   config: Path | None = CONFIG) -> tuple[float, float]:
    """`speechproc run` with configs/callcenter.yaml, or the default configuration with `config` None (local:
    threads one per core, shared out among the workers; ray: one actor per core, 1 thread each)."""
    command = [str(SPEECHPROC), "run", str(folder), "--out", str(out), "--quiet", "--force", "--engine", engine]
    command += ["--config", str(config)] if config is not None else []
    if engine == "local":
        command += ["--workers", str(workers)]
    wall, rss, _ = timed(command, {**env, "SPEECHPROC_HOME": str(out / "home")})  # exit 0: every item finished
    return wall, rss


def prompt_clips(count: int, folder: Path) -> dict[str, tuple[str, str]]:
    """`count` telephone prompts in `folder`: the mono clips of 2-10 s of ../shared/evaldata's WER manifest at
    8 kHz, in turn (p000.wav, p001.wav, ...); {file name: (manifest path, reference)}."""
    import csv

    from speechproc.media import decode

    manifest = ROOT.parent / "shared" / "evaldata" / "wer-manifest.tsv"
    with open(manifest) as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t") if r["channel"] == "mono"]
    clips = []
    for row in rows:
        track = decode(manifest.parent / row["path"], sample_rate=8000)
        if 2 <= track.samples.shape[1] / 8000 <= 10:
            clips.append((row, track.samples[:1]))
    names = {}
    for k in range(count):
        row, samples = clips[k % len(clips)]
        write_wav(folder / f"p{k:03d}.wav", samples, 8000)
        names[f"p{k:03d}.wav"] = (row["path"], row["reference"])
    return names


def wer_of(texts: dict[str, str], names: dict[str, tuple[str, str]]) -> float:
    sys.path.insert(0, str(ROOT.parent / "shared" / "tools"))
    import wer as wer_tool  # the shared scorer

    rows = [{"path": name, "channel": "mono", "reference": reference} for name, (_, reference) in names.items()]
    value, _, _ = wer_tool.score(rows, {(name, "mono"): texts.get(name, "") for name in names})
    return round(value, 4)


def speechproc_texts(out: Path) -> dict[str, str]:
    found = {}
    for path in out.glob("*.v3.json"):
        words = json.loads(path.read_text())["transcript"]["words"]
        found[path.name.removesuffix(".v3.json") + ".wav"] = " ".join(w["w"] for w in words if "m" not in w)
    return found


def short_files(tmp_path: Path, count: int, rounds_: int, threads: int, env: dict[str, str],
                before: Path | None = None) -> dict:
    """(d) Many short files: speechproc's default configuration with `--workers auto` against bare faster-whisper
    (the model loaded once, one file after another) batched per file and sequential; wall time and WER. With
    `before`, the same run of another checkout's source too (`speechproc_before`)."""
    folder = tmp_path / "prompts"
    folder.mkdir()
    names = prompt_clips(count, folder)
    texts: dict[str, dict[str, str]] = {}

    def bare(mode: str):
        def run():
            wall, rss, stdout = timed([sys.executable, "-c", BARE_FILES, str(folder), mode, str(threads)], env)
            texts[f"bare_{mode}"] = dict(line.split("\t", 1) for line in stdout.splitlines() if "\t" in line)
            return wall, rss
        return run

    def ours(side: str, side_env: dict[str, str]):
        def run():
            out = tmp_path / f"out-{side}"
            wall, rss = speechproc_run(folder, out, "auto", side_env, config=None)
            texts[side] = speechproc_texts(out)
            return wall, rss
        return run

    sides = {"speechproc": ours("speechproc", env)}
    if before is not None:  # another checkout, run from its own source
        sides["speechproc_before"] = ours("speechproc_before", {**env, "PYTHONPATH": str(before / "src")})
    sides |= {"bare_batched": bare("batched"), "bare_sequential": bare("sequential")}
    measured = rounds(sides, rounds_, "short files")
    audio = sum(wave_seconds(folder / name) for name in names)
    result: dict = {"files": count, "audio_s": round(audio, 1)}
    for name, m in measured.items():
        result[name] = {**m, "s_per_file": round(m["wall_s"] / count, 3), "x_realtime": round(audio / m["wall_s"], 1),
                        "wer": wer_of(texts[name], names)}
    for peer in ("bare_batched", "bare_sequential", "speechproc_before"):
        if peer in measured:
            result[f"speedup_vs_{peer}"] = round(measured[peer]["wall_s"] / measured["speechproc"]["wall_s"], 2)
    return result


def wave_seconds(path: Path) -> float:
    import wave

    with wave.open(str(path)) as f:
        return f.getnframes() / f.getframerate()


def median(values: list[float]) -> float:
    return round(statistics.median(values), 1)


def rounds(sides: dict, count: int, label: str) -> dict[str, dict]:
    """Each side measured `count` times, every round running all sides one after the other, the order turned by
    one each round (a slow spell of the machine does not fall on one side); the median wall time of each side,
    every wall time, the largest peak RSS and each round's."""
    names = list(sides)
    walls: dict[str, list[float]] = {name: [] for name in names}
    peaks: dict[str, list[float]] = {name: [] for name in names}
    for k in range(count):
        for name in names[k % len(names):] + names[:k % len(names)]:
            wall, rss = sides[name]()
            walls[name].append(wall)
            peaks[name].append(rss)
            print(label, "round", k + 1, name, wall, "s", rss, "MB", flush=True)
    return {name: {"wall_s": median(walls[name]), "walls_s": walls[name], "peak_rss_mb": max(peaks[name]),
                   "peaks_rss_mb": peaks[name]} for name in names}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--calls", type=int, default=20, help="short calls (0: skip them)")
    parser.add_argument("--repeat", type=int, default=4, help="copies of the 3-minute call in the long call")
    parser.add_argument("--hour-repeat", type=int, default=20, help="copies in the hour-long call (0: skip it)")
    parser.add_argument("--rounds", type=int, default=3, help="measurements of each side of (a) and (c)")
    parser.add_argument("--prompts", type=int, default=300, help="short telephone files, 2-10 s (0: skip them)")
    parser.add_argument("--only-prompts", action="store_true", help="measure the short files alone")
    parser.add_argument("--before", type=Path, help="another checkout of speechproc (its root folder), measured "
                        "on the short files as the side speechproc_before")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.before is not None and not (args.before / "src" / "speechproc").is_dir():
        parser.error(f"--before {args.before}: no src/speechproc there")
    if args.only_prompts:
        args.repeat = args.hour_repeat = args.calls = 0
    if not CALL.exists():
        sys.exit(f"{CALL} is needed (../shared beside the project)")
    from speechproc.media import decode

    track = decode(CALL, sample_rate=8000)  # a telephone call: 8 kHz
    rate = track.sample_rate
    result: dict = {"threads": args.threads, "cores": os.cpu_count(), "rate_hz": rate, "rounds": args.rounds}
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        if args.repeat:
            long_call = write_wav(tmp_path / "long.wav", np.tile(track.samples, args.repeat), rate)
            seconds = track.samples.shape[1] * args.repeat / rate
            sequential = tmp_path / "sequential.yaml"  # callcenter.yaml with the sequential recognition path
            sequential.write_text(CONFIG.read_text() + "  batched: false\n")

            def bare(mode: str):
                return lambda: timed([sys.executable, "-c", BARE, str(long_call), mode, str(args.threads)], env)[:2]

            sides = {
                "speechproc": lambda: speechproc_run(long_call, tmp_path / "out-long", 1, env),
                "speechproc_sequential": lambda: speechproc_run(long_call, tmp_path / "out-seq", 1, env, config=sequential),
                "bare_sequential": bare("sequential"),
                "bare_batched": bare("batched"),
                "bare_batched_channels_at_once": bare("parallel"),
                "bare_batched_joined": bare("joined"),
            }
            long = result["long_call"] = {"audio_s": round(seconds, 1), **rounds(sides, args.rounds, "long call")}
            for peer in ("bare_batched", "bare_sequential", "bare_batched_channels_at_once", "bare_batched_joined"):
                long[f"speedup_vs_{peer}"] = round(long[peer]["wall_s"] / long["speechproc"]["wall_s"], 2)

        if args.hour_repeat:
            hour_call = write_wav(tmp_path / "hour.wav", np.tile(track.samples, args.hour_repeat), rate)
            wall, rss = speechproc_run(hour_call, tmp_path / "out-hour", 1, env)
            result["hour_call"] = {"audio_s": round(track.samples.shape[1] * args.hour_repeat / rate, 1),
                                   "speechproc": {"wall_s": wall, "peak_rss_mb": rss}}
            print("hour call", wall, "s", rss, "MB", flush=True)
            hour_call.unlink()

        if args.calls:
            folder = tmp_path / "calls"
            folder.mkdir()
            window, step = 45 * rate, max(1, (track.samples.shape[1] - 45 * rate) // max(1, args.calls - 1))
            for k in range(args.calls):
                write_wav(folder / f"call{k:02d}.wav", track.samples[:, k * step: k * step + window], rate)
            audio_h = args.calls * 45 / 3600
            engines = {"workers_1": (1, "local"), "workers_2": (2, "local"), "ray": (0, "ray")}
            sides = {name: (lambda name=name, workers=workers, engine=engine: speechproc_run(
                folder, tmp_path / f"out-{name}", workers, env, engine)) for name, (workers, engine) in engines.items()}
            short = result["short_calls"] = {"files": args.calls, "audio_s_each": 45}
            for name, measured in rounds(sides, args.rounds, "short calls").items():
                wall = measured["wall_s"]
                short[name] = {"wall_s": wall, "walls_s": measured["walls_s"],
                               "files_per_hour": round(args.calls * 3600 / wall),
                               "audio_hours_per_hour": round(audio_h * 3600 / wall, 1),
                               "peak_rss_mb_per_process": measured["peak_rss_mb"]}
            short["speedup_2_vs_1"] = round(short["workers_1"]["wall_s"] / short["workers_2"]["wall_s"], 2)
            short["speedup_ray_vs_1"] = round(short["workers_1"]["wall_s"] / short["ray"]["wall_s"], 2)
        if args.prompts:
            result["short_files"] = short_files(tmp_path, args.prompts, args.rounds, args.threads, env, args.before)
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
