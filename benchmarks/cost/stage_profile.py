#!/usr/bin/env python3
"""Where the time of one recording goes, stage by stage: the long two-channel call with every analytic.

The call is the real SpokenWOZ call of ../shared/evaldata at 8 kHz, repeated (`--repeat`, 4: about 12
minutes), run through `api.process` with configs/callcenter.yaml in this process, after the models of every
stage were loaded by a first run on a short cut of the same call (a process that has run one call already:
the loads are timed apart, in `model_loads_s`). Each stage's step is timed as it runs, with what the
runner does after it (releasing audio); `publish` is writing the outputs and the catalog row; `other` is
the rest of the wall time (reading the configuration, the item's bookkeeping). The faster of `--rounds` runs
is reported.

Beside it, in the same process and in turn with it (`--rounds`, the median counts): bare faster-whisper's
recognition of the same call the fastest way found on this kind of machine, its BatchedInferencePipeline
(VAD, batch 8, beam 5, word timestamps) on both channels at once, each on a replica of its own with the
threads shared out, the model loaded before the clock starts: recognition against recognition, the faster
run of each side counting.

With `--insights`, the configuration also asks for every call insight (summary, reason, outcome, action
items and the four quality questions of benchmarks/call_insights/insights_calls.json) from the bundled language model: the
`insights` stage's seconds beside the rest of the pipeline's.

`--insights-read whole` has the model read the whole call (`speechproc.insightsRead`), not its ends.

Usage: python benchmarks/cost/stage_profile.py [--repeat 4] [--threads N] [--rounds 2] [--insights]
                                          [--insights-read ends|whole]
                                          [--json benchmarks/cost/stage_profile.result.json]
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "cost"))
CALL = ROOT.parent / "shared" / "evaldata" / "spokenwoz-speechbrain" / "MUL1011.opus"
CONFIG = ROOT / "configs" / "callcenter.yaml"


def timed_stages(spent: dict[str, float]) -> None:
    """Replace the pipeline's stages with ones that add their time to `spent`."""
    from speechproc.stages import pipeline

    def clocked(name: str, step):
        def run(r) -> None:
            start = time.perf_counter()
            try:
                step(r)
            finally:
                spent[name] = spent.get(name, 0.0) + time.perf_counter() - start
        return run

    pipeline.STAGES = tuple(dataclasses.replace(stage, step=clocked(stage.name, stage.step))
                            for stage in pipeline.STAGES)


def bare_recognition(channels: list[np.ndarray], model) -> float:
    """Seconds bare faster-whisper takes to recognise the channels at once, each on a replica of `model`."""
    from concurrent.futures import ThreadPoolExecutor

    from faster_whisper import BatchedInferencePipeline

    def words(samples: np.ndarray) -> int:
        segments, _ = BatchedInferencePipeline(model).transcribe(samples, language="en", beam_size=5,
                                                                 word_timestamps=True, batch_size=8)
        return sum(len(s.words or []) for s in segments)

    start = time.perf_counter()
    with ThreadPoolExecutor(len(channels)) as pool:
        assert sum(pool.map(words, channels)) > 0
    return time.perf_counter() - start


def main() -> None:
    from speechproc.stages.options import INSIGHTS_READS, InsightsOptions

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=4, help="copies of the 3-minute call")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--rounds", type=int, default=2, help="runs of each side, in turn")
    parser.add_argument("--insights", action="store_true", help="every call insight too, from the bundled model")
    parser.add_argument("--insights-read", choices=INSIGHTS_READS, default=InsightsOptions.read,
                        help="with --insights: what the model reads of the call (speechproc.insightsRead)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if min(args.repeat, args.threads, args.rounds) < 1:
        parser.error("--repeat, --threads and --rounds must be at least 1")
    if not CALL.exists():
        sys.exit(f"{CALL} is needed (../shared beside the project)")
    os.environ.setdefault("SPEECHPROC_HOME", tempfile.mkdtemp(prefix="speechproc-profile-"))
    from throughput import write_wav

    from speechproc import api
    from speechproc.config import documents_io, v3
    from speechproc.media import decode

    track = decode(CALL, sample_rate=8000)
    raw = documents_io.parse_document(CONFIG.read_text(), str(CONFIG))
    raw.setdefault("speechproc", {})["threads"] = args.threads
    if args.insights:
        questions = json.loads((ROOT / "benchmarks" / "call_insights" / "insights_calls.json").read_text())["questions"]
        raw["insights"] = {"summary": True, "reason": True, "outcome": True, "actionItems": True,
                           "questions": [{"name": k, "question": q} for k, q in questions.items()]}
        raw["speechproc"]["insightsRead"] = args.insights_read
    settings = v3.validate(raw)
    from faster_whisper import WhisperModel

    from speechproc.engines.models import whisper_location

    bare_model = WhisperModel(whisper_location("tiny.en"), device="cpu", compute_type="int8",
                              cpu_threads=max(1, args.threads // 2), num_workers=2)
    spent: dict[str, float] = {}
    runs: list[tuple[float, dict[str, float]]] = []
    bare: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        short = write_wav(tmp_path / "first.wav", track.samples[:, :60 * 8000], 8000)
        start = time.perf_counter()
        api.process([short], settings, out_dir=tmp_path / "warm", force=True, deliver=False)
        loads = time.perf_counter() - start
        timed_stages(spent)
        long_call = write_wav(tmp_path / "long.wav", np.tile(track.samples, args.repeat), 8000)
        channels = [np.ascontiguousarray(c) for c in decode(long_call).samples]  # 16 kHz, as speechproc hears it
        for _ in range(args.rounds):
            spent.clear()
            start = time.perf_counter()
            batch = api.process([long_call], settings, out_dir=tmp_path / "out", force=True, deliver=False)
            runs.append((time.perf_counter() - start, dict(spent)))
            assert batch.items[0].status == "finished", batch.items[0].error
            item = json.loads(Path(batch.items[0].outputs["json"]).read_text())
            bare.append(bare_recognition(channels, bare_model))
    wall, spent = min(runs, key=lambda run: run[0])  # the faster run
    stages = {name: round(seconds, 2) for name, seconds in spent.items()}
    result = {"command": f"python benchmarks/cost/stage_profile.py --repeat {args.repeat} --threads {args.threads} "
                         f"--rounds {args.rounds}"
                         + (f" --insights --insights-read {args.insights_read}" if args.insights else ""),
              "audio_s": round(track.samples.shape[1] * args.repeat / 8000, 1), "threads": args.threads,
              "model_loads_s": round(loads, 1), "wall_s": round(wall, 2), "stages_s": stages,
              "other_s": round(wall - sum(spent.values()), 2),
              "share": {name: round(seconds / wall, 3) for name, seconds in spent.items()},
              "recognition_s": [round(seconds["asr"], 2) for _, seconds in runs],
              "bare_recognition_channels_at_once_s": [round(seconds, 2) for seconds in bare],
              "recognition_speedup": round(min(bare) / min(seconds["asr"] for _, seconds in runs), 2)}
    if args.insights:
        result["insights_s"] = stages.get("insights")
        result["rest_of_pipeline_s"] = round(wall - stages.get("insights", 0.0), 2)
        result["insights"] = item.get("insights")
        result["warnings"] = item.get("warnings")
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
