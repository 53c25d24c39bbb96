#!/usr/bin/env python3
"""Workers, engines and CPU paths: the same results, and what two workers gain, on 8 short two-channel calls.

8 windows of 45 s of the real SpokenWOZ call of ../shared/evaldata (8 kHz, caller and agent on their own
channels), processed with configs/callcenter.yaml (every analytic) by `speechproc run --workers 1` (this
process, the threads as decoders), `--workers 2` (two worker processes, one thread each) and `--engine ray` (a
local Ray cluster, one actor per core), in rounds (each side once per round, the order turned; the median
counts). Every run's outputs are compared with the first run's: text outputs byte for byte, the JSON apart
from ids and dates.

All of it twice: on the CPU path CTranslate2 and oneDNN choose here, and on their AVX2 path
(CT2_USE_MKL=0 CT2_FORCE_CPU_ISA=AVX2 ONEDNN_MAX_CPU_ISA=AVX2: the kernels of a CPU without AVX-512, or of
an AMD one where an Intel CPU runs this). The two paths may hear differently; within each, nothing may differ.

Usage: python benchmarks/cost/workers.py [--calls N] [--rounds N] [--json OUT]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "recognition"))
from cpu_path import describe  # noqa: E402
from throughput import CALL, rounds, speechproc_run, write_wav  # noqa: E402

PATHS = {"default": {}, "avx2": {"CT2_USE_MKL": "0", "CT2_FORCE_CPU_ISA": "AVX2", "ONEDNN_MAX_CPU_ISA": "AVX2"}}
SIDES = {"workers_1": (1, "local"), "workers_2": (2, "local"), "ray": (0, "ray")}
NOT_COMPARED = ("mediaId", "_links", "dateCreated", "dateFinished")  # differ from run to run by design


def outputs(out: Path) -> dict[str, object]:
    """Every output under `out` by its name: the JSON without ids and dates, other files as bytes."""
    found: dict[str, object] = {}
    for path in sorted(out.glob("*.*")):
        if path.name.endswith(".v3.json"):
            item = json.loads(path.read_text())
            found[path.name] = {k: v for k, v in item.items() if k not in NOT_COMPARED}
        elif path.is_file():
            found[path.name] = path.read_bytes()
    return found


def differences(first: dict[str, object], other: dict[str, object]) -> list[str]:
    """The names of the outputs that differ (or are missing on one side)."""
    return sorted(name for name in first.keys() | other.keys() if first.get(name) != other.get(name))


def one_path(variables: dict[str, str], folder: Path, work: Path, count: int) -> tuple[dict, dict[str, object]]:
    """Every side on one CPU path (`variables` added to the environment), in rounds: the figures, whether each
    side's outputs were those of the first run, and the first run's outputs."""
    env = {**os.environ, **variables}
    reference: dict[str, object] = {}
    differing: dict[str, set[str]] = {name: set() for name in SIDES}

    def measured(name: str, workers: int, engine: str) -> tuple[float, float]:
        out = work / name
        wall, rss = speechproc_run(folder, out, workers, env, engine)
        found = outputs(out)
        if not reference:
            reference.update(found)
        differing[name].update(differences(reference, found))
        return wall, rss

    sides = {name: (lambda name=name, w=w, e=e: measured(name, w, e)) for name, (w, e) in SIDES.items()}
    timed = rounds(sides, count, work.name)
    figures = {
        "cpu_path": describe(env),
        "outputs_compared": len(reference),
        "identical": {name: not differing[name] for name in SIDES},
        "differing_outputs": {name: sorted(differing[name]) for name in SIDES if differing[name]},
        **{name: {"wall_s": timed[name]["wall_s"], "walls_s": timed[name]["walls_s"]} for name in SIDES},
        "speedup_2_vs_1": round(timed["workers_1"]["wall_s"] / timed["workers_2"]["wall_s"], 2),
    }
    return figures, reference


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if not CALL.exists():
        sys.exit(f"{CALL} is needed (../shared beside the project)")
    from speechproc.media import decode

    track = decode(CALL, sample_rate=8000)
    rate = track.sample_rate
    result: dict = {"cores": os.cpu_count(), "calls": args.calls, "audio_s_each": 45, "rounds": args.rounds}
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        folder = tmp_path / "calls"
        folder.mkdir()
        window, step = 45 * rate, max(1, (track.samples.shape[1] - 45 * rate) // max(1, args.calls - 1))
        for k in range(args.calls):
            write_wav(folder / f"call{k:02d}.wav", track.samples[:, k * step: k * step + window], rate)
        references = {}
        for name, variables in PATHS.items():
            result[name], references[name] = one_path(variables, folder, tmp_path / name, args.rounds)
        # the variables do take another path: its outputs differ from the default path's
        result["outputs_differing_between_paths"] = differences(references["default"], references["avx2"])
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
