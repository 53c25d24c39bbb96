#!/usr/bin/env python3
"""Soak: a thousand recordings, `--workers auto`, the main process or one worker killed with SIGKILL mid-batch,
then the same command again. Nothing may be lost, done twice or refused.

The corpus: the short recordings (at most 15 s) of sample_media/ and ../shared/evaldata copied under many names
(95 %), and hostile files (5 %): a WAV cut inside its header, an empty file, random bytes named .mp3, a WAV
whose header declares nonsense, an HTML page named .flac, a symbolic link that points to itself.

1. A reference run, uninterrupted, in a state folder of its own.
2. Five runs killed in the main process (`kill -9`), each once as many media items are written as a seeded
   random draw says (an event, not a clock), each in a fresh state folder and output folder; then the same
   command again, to the end.
3. Five runs in which one worker is killed the same way, the run going on; then the same command again.

After each, it records: good files finished exactly once (one finished media item per recording in the
catalog); outputs of items finished before the kill that the re-run rewrote (must be 0); files put in place
after the main process was gone (its exit collected; what an orphaned worker published; must be 0); the
seconds the workers outlived a killed main process; good files whose outputs equal the reference run's apart from ids
and dates; hostile files failed with their error (a symbolic link met in a folder is skipped with a note, as
always: it must have no item and no output); speechproc's temporary files and intents left; items left
`running`; and refusals (409: a file speechproc would not replace), which must be 0.

Needs ../shared/evaldata (skipped sources otherwise). About 50 minutes on 2 cores.

Usage: python benchmarks/cost/soak.py [--files 1000] [--kills 5] [--seed 7] [--work DIR] [--json OUT]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "evaldata"
sys.path.insert(0, str(ROOT / "src"))

from speechproc import media  # noqa: E402
from speechproc.store.database.catalog import Catalog  # noqa: E402

SPEECHPROC = str(Path(sys.executable).parent / "speechproc")
MAX_SOURCE_S = 15.0
HOSTILE_SHARE = 0.05
NOT_COMPARED = ("mediaId", "_links", "dateCreated", "dateFinished")
TEMPORARY, INTENT = ".tmp", ".speechproc-intent"


def sources() -> list[Path]:
    """Every short recording of sample_media/ and ../shared/evaldata, in path order."""
    found = [ROOT / "sample_media" / name for name in ("call.flac", "payment.flac", "voicemail.wav")]
    if SHARED.exists():
        for path in sorted(SHARED.rglob("*")):
            if path.is_file() and path.suffix.lower() in media.MEDIA_EXTENSIONS:
                try:
                    if media.probe(path).length_ms <= MAX_SOURCE_S * 1000:
                        found.append(path)
                except Exception:  # a source that is not a recording is no source
                    pass
    return found


def hostile(kind: int, folder: Path, k: int) -> tuple[str, str]:
    """One hostile file of `kind` (0-5) in `folder`: (its name, what it is)."""
    wav = (ROOT / "sample_media" / "voicemail.wav").read_bytes()
    made = [
        (f"hostile-{k:04d}-truncated.wav", "a WAV cut inside its header", wav[:30]),
        (f"hostile-{k:04d}-empty.wav", "an empty file", b""),
        (f"hostile-{k:04d}-random.mp3", "random bytes named .mp3", random.Random(k).randbytes(8192)),
        (f"hostile-{k:04d}-header.wav", "a WAV header that declares nonsense",
         wav[:20] + b"\x00\x00\x00\x00" + wav[24:4096]),
        (f"hostile-{k:04d}-page.flac", "an HTML page named .flac", b"<html><body>Sign in</body></html>\n" * 20),
        (f"hostile-{k:04d}-loop.wav", "a symbolic link to itself", None),
    ][kind % 6]
    name, what, content = made
    if content is None:
        (folder / name).symlink_to(name)
    else:
        (folder / name).write_bytes(content)
    return name, what


def corpus(folder: Path, files: int) -> tuple[list[str], dict[str, str]]:
    """The recordings under `folder`: (good names, hostile name -> what it is)."""
    folder.mkdir(parents=True)
    pool = sources()
    bad_count = max(1, round(files * HOSTILE_SHARE))
    good = []
    for k in range(files - bad_count):
        source = pool[k % len(pool)]
        name = f"good-{k:04d}{source.suffix.lower()}"
        shutil.copyfile(source, folder / name)
        good.append(name)
    bad = dict(hostile(k, folder, k) for k in range(bad_count))
    return good, bad


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def is_worker(pid: int) -> bool:
    try:
        return b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def written(out: Path) -> int:
    return sum(1 for _ in out.rglob("good-*.v3.json")) if out.exists() else 0


def snapshot(out: Path) -> dict[str, tuple[int, int]]:
    """Every file under `out` with its inode and modification time: what a later write would change (hidden
    files too: speechproc's temporary files and intents)."""
    found = {}
    for path in out.rglob("*") if out.exists() else []:
        if path.is_file():
            stat = path.stat()
            found[str(path.relative_to(out))] = (stat.st_ino, stat.st_mtime_ns)
    return found


def finished_stems(out: Path) -> list[str]:
    """The good files whose media item under `out` is finished: what a re-run must leave as it is."""
    found = []
    for path in out.rglob("good-*.v3.json") if out.exists() else []:
        try:
            if json.loads(path.read_text()).get("status") == "finished":
                found.append(path.name[: -len(".v3.json")])
        except (OSError, ValueError):  # being written: not finished yet
            pass
    return sorted(found)


def run(folder: Path, out: Path, home: Path, *, kill: str | None = None, at: int = 0) -> dict:
    """`speechproc run folder --out out --workers auto`; with `kill` ("main" or "worker"), SIGKILL that process
    once `at` media items of good files are written. What it printed, and what the kill saw."""
    env = {**os.environ, "SPEECHPROC_HOME": str(home)}
    command = [SPEECHPROC, "run", str(folder), "--out", str(out), "--workers", "auto", "--quiet"]
    started = time.monotonic()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    seen: dict = {}
    if kill is not None:
        while written(out) < at and proc.poll() is None:
            time.sleep(0.02)
        if proc.poll() is None:
            workers = [p for p in children(proc.pid) if is_worker(p)]
            if kill == "worker" and workers:
                os.kill(workers[0], signal.SIGKILL)
                seen = {"killed_at": written(out)}
            elif kill == "main":
                os.kill(proc.pid, signal.SIGKILL)
                killed = time.monotonic()
                proc.wait()  # the kernel has torn the process down: from here on it is gone
                reaped = time.monotonic()
                before = snapshot(out)  # what was in place when the main process was gone
                done_before = finished_stems(out)
                while any(alive(p) for p in workers) and time.monotonic() - killed < 60:
                    time.sleep(0.02)
                outlived = time.monotonic() - killed
                time.sleep(2.0)  # anything an orphan would still put in place
                after = snapshot(out)
                seen = {"killed_at": len([k for k in before if k.endswith(".v3.json") and k.startswith("good-")]),
                        "main_gone_after_s": round(reaped - killed, 2),
                        "workers_outlived_s": round(outlived, 2), "workers_left": sum(alive(p) for p in workers),
                        "published_after_kill": sorted(k for k, v in after.items()
                                                       if before.get(k) != v and not Path(k).name.startswith(".")),
                        "before": before, "finished_before": done_before}
    stdout = proc.communicate()[0]
    seconds = time.monotonic() - started
    if kill == "worker":  # the run went on to its end: what the re-run must not write again
        seen["before"], seen["finished_before"] = snapshot(out), finished_stems(out)
    try:
        summary = json.loads(stdout) if stdout else {"media": []}
    except json.JSONDecodeError:
        summary = {"media": []}
    return {"summary": summary, "exit": proc.returncode, "seconds": round(seconds, 1), **seen}


def comparable(out: Path, name: str) -> dict[str, object]:
    """A good file's outputs under `out`, the JSON without ids and dates, the rest as bytes."""
    stem = Path(name).stem
    found: dict[str, object] = {}
    for path in sorted(out.glob(f"{stem}.*")):
        if path.name.endswith(".v3.json"):
            item = json.loads(path.read_text())
            found[path.name] = {k: v for k, v in item.items() if k not in NOT_COMPARED}
        else:
            found[path.name] = path.read_bytes()
    return found


def leftovers(*folders: Path) -> dict[str, int]:
    names = [p.name for folder in folders if folder.exists() for p in folder.rglob(".*")]
    return {"temporary_files": sum(n.endswith(TEMPORARY) and ".speechproc-" in n for n in names),
            "intents": sum(n.endswith(INTENT) for n in names)}


def judge(folder: Path, out: Path, home: Path, good: list[str], bad: dict[str, str], reference: Path,
          first: dict, again: dict) -> dict:
    """What the killed run and its re-run left, against the reference run."""
    with Catalog(home / "catalog.sqlite3") as cat:
        rows = cat.media.all()
    finished: dict[str, int] = {}
    for row in rows:
        if row["status"] == "finished":
            key = Path(row["input_path"]).name
            finished[key] = finished.get(key, 0) + 1
    final = {Path(m["input"]).name: m for m in again["summary"]["media"]}
    refusals = sum(1 for run_ in (first, again) for m in run_["summary"]["media"]
                   if (m.get("error") or {}).get("status") == 409)
    before = first.get("before", {})
    after = snapshot(out)
    done_before = set(first.get("finished_before", []))  # a failed item's outputs are the re-run's to replace
    rewritten = sum(1 for k, v in before.items() if k.split(".")[0] in done_before and after.get(k) != v)
    links = {name for name in bad if (folder / name).is_symlink()}  # a link met in a folder is skipped with a note
    hostile_failed = sum(1 for name in set(bad) - links if final.get(name, {}).get("status") == "failed"
                         and (final[name].get("error") or {}).get("status"))
    links_skipped = sum(1 for name in links if name not in final and not list(out.glob(f"{Path(name).stem}.*")))
    same = sum(1 for name in good if comparable(out, name) == comparable(reference, name))
    return {"good": len(good), "good_finished_once": sum(1 for name in good if finished.get(name) == 1),
            "good_finished_twice_or_more": sum(1 for name in good if finished.get(name, 0) > 1),
            "identical_to_reference": same, "hostile": len(bad), "hostile_failed_with_error": hostile_failed,
            "hostile_links_skipped": links_skipped,
            "rewritten_after_kill": rewritten, "refusals": refusals,
            "running_left": sum(1 for r in rows if r["status"] in ("accepted", "running")),
            **leftovers(folder, out), "rerun_exit": again["exit"], "rerun_seconds": again["seconds"],
            "first_seconds": first["seconds"],
            **{k: v for k, v in first.items() if k in ("killed_at", "workers_outlived_s", "workers_left",
                                                       "published_after_kill")}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=1000, help="recordings in the folder (default 1000)")
    parser.add_argument("--kills", type=int, default=5, help="kills of each kind (default 5)")
    parser.add_argument("--seed", type=int, default=7, help="the draw of the kill moments (default 7)")
    parser.add_argument("--work", type=Path, help="a folder for the corpus and the runs (default: a temporary one)")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args()
    if args.files < 20 or args.kills < 1:
        parser.error("--files must be at least 20 and --kills at least 1")
    if not Path("/proc/self/stat").exists():
        parser.error("the soak benchmark finds a run's workers through Linux's /proc")
    work = args.work or Path(tempfile.mkdtemp(prefix="speechproc-soak-"))
    folder = work / "in"
    good, bad = corpus(folder, args.files)
    print(f"{len(good)} good recordings from {len(sources())} sources, {len(bad)} hostile files", flush=True)
    reference = work / "reference"
    ref = run(folder, reference, work / "home-reference")
    print(f"reference: {ref['seconds']} s, exit {ref['exit']}", flush=True)
    finished = {Path(m["input"]).name for m in ref["summary"]["media"] if m.get("status") == "finished"}
    if not set(good) <= finished:  # nothing to compare the kills with
        raise SystemExit(f"the reference run finished {len(set(good) & finished)} of {len(good)} good files")
    draw = random.Random(args.seed)
    results = []
    for kind in ("main", "worker"):
        for k in range(args.kills):
            at = draw.randint(len(good) // 10, len(good) * 9 // 10)
            out, home = work / f"{kind}-{k}", work / f"home-{kind}-{k}"
            first = run(folder, out, home, kill=kind, at=at)
            again = run(folder, out, home)
            verdict = {"kill": kind, "at": at, **judge(folder, out, home, good, bad, reference, first, again)}
            results.append(verdict)
            print(json.dumps(verdict), flush=True)
            shutil.rmtree(out, ignore_errors=True)
            shutil.rmtree(home, ignore_errors=True)
    totals = {key: sum(r[key] for r in results) for key in ("refusals", "rewritten_after_kill", "running_left",
                                                            "temporary_files", "intents")}
    totals["published_after_kill"] = sum(len(r.get("published_after_kill", [])) for r in results)
    totals["good_not_finished_once"] = sum(r["good"] - r["good_finished_once"] for r in results)
    totals["not_identical_to_reference"] = sum(r["good"] - r["identical_to_reference"] for r in results)
    totals["hostile_not_handled"] = sum(r["hostile"] - r["hostile_failed_with_error"] - r["hostile_links_skipped"]
                                        for r in results)
    report = {"command": f"python benchmarks/cost/soak.py --files {args.files} --kills {args.kills} --seed {args.seed}",
              "cores": os.cpu_count(), "good": len(good), "hostile": len(bad), "sources": len(sources()),
              "reference_seconds": ref["seconds"], "scenarios": results, "totals": totals}
    print(json.dumps(totals), flush=True)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if all(v == 0 for v in totals.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
