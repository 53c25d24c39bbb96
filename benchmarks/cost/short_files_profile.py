#!/usr/bin/env python3
"""Where the time of a short file goes, stage by stage: many telephone prompts through one process.

`--files` prompts of 2-10 s (the mono clips of ../shared/evaldata's WER manifest at 8 kHz, in turn, as
benchmarks/cost/throughput.py makes them) run through `api.process` with the default configuration on one
thread, as each of `--workers auto`'s workers runs them, after a first run of three of them has loaded every
model. Each stage's step is timed as it runs; `other` is the rest of the wall time per file (claiming the
item, the catalog's writes, the heap's trims after a stage, writing the outputs). `--rounds` runs, the faster
counts.

To measure a change against the code before it, run the same script a second time with PYTHONPATH naming the
other checkout's `src`: the script is the same, the library measured is that checkout's.

Usage: python benchmarks/cost/short_files_profile.py [--files 60] [--rounds 2]
                                                [--json benchmarks/cost/short_files_profile.result.json]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "cost"))


def checkout_commit(folder: Path) -> str:
    """The commit of the git checkout holding `folder` (the library measured), or "unknown"."""
    import subprocess

    found = subprocess.run(["git", "-C", str(folder), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return found.stdout.strip() if found.returncode == 0 and found.stdout.strip() else "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=60, help="short files timed (after three to load the models)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.files < 1 or args.rounds < 1:
        parser.error("--files and --rounds must be at least 1")
    if not (ROOT.parent / "shared" / "evaldata").is_dir():
        sys.exit("../shared/evaldata is needed (../shared beside the project)")
    from stage_profile import timed_stages
    from throughput import prompt_clips

    import speechproc
    from speechproc import api
    from speechproc.config import v3

    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        os.environ["SPEECHPROC_HOME"] = str(tmp_path / "home")
        folder = tmp_path / "prompts"
        folder.mkdir()
        prompt_clips(args.files + 3, folder)
        files = sorted(folder.glob("*.wav"))
        settings = v3.validate({"speechproc": {"threads": 1}})
        api.process(files[:3], settings, out_dir=tmp_path / "warm", force=True, deliver=False)
        spent: dict[str, float] = {}
        timed_stages(spent)
        runs = []
        for k in range(args.rounds):
            spent.clear()
            wall, cpu = time.perf_counter(), time.process_time()
            api.process(files[3:], settings, out_dir=tmp_path / f"out{k}", force=True, deliver=False)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            per_file = {name: round(seconds * 1000 / args.files, 1) for name, seconds in spent.items() if seconds >= 1e-3}
            per_file["other"] = round((wall - sum(spent.values())) * 1000 / args.files, 1)
            runs.append({"wall_ms_per_file": round(wall * 1000 / args.files, 1),
                         "cpu_ms_per_file": round(cpu * 1000 / args.files, 1), "stages_ms_per_file": per_file})
            print(json.dumps(runs[-1]), flush=True)
    result = {"library_commit": checkout_commit(Path(speechproc.__file__).resolve().parent), "files": args.files,
              "rounds": args.rounds, "fastest": min(runs, key=lambda r: r["wall_ms_per_file"]), "runs": runs}
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
