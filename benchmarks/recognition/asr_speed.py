#!/usr/bin/env python3
"""Realtime factor and word error of `speechproc` against bare faster-whisper, side by side.

Every side uses the same model (tiny.en, int8), the same threads and beam size 5, and one
file at a time with the model loaded beforehand; speechproc runs in both recognition modes
(batched, the default, and sequential). Bare faster-whisper is the reference call
of ../shared/tools/wer.py (no VAD, no word timestamps, text only); speechproc runs its whole
pipeline (decode, VAD, per-channel recognition with word timestamps, punctuation, turns, all
five output files, catalog).

Sets:
  calls     stereo calls: the committed sample call, and from ../shared/evaldata (when present)
            the real SpokenWOZ call, the two-speaker faster-whisper clip and the MFA stereo pair
  manifest  every file of ../shared/evaldata/wer-manifest.tsv, scored with its normaliser

Usage: python benchmarks/recognition/asr_speed.py [--set calls|manifest|all] [--threads N] [--json OUT]
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EVAL = ROOT.parent / "shared" / "evaldata"
CALLS = [ROOT / "sample_media" / "call.flac"] + [EVAL / p for p in (
    "spokenwoz-speechbrain/MUL1011.opus", "faster-whisper/stereo_diarization.wav",
    "mfa-tests/audio/michaelandsickmichael.wav")]


def bare_transcribe(model, path: Path, stereo: bool) -> tuple[list[str], float]:
    from faster_whisper import decode_audio

    start = time.perf_counter()
    channels = decode_audio(str(path), split_stereo=True) if stereo else [decode_audio(str(path))]
    texts = []
    for audio in channels:
        segments, _ = model.transcribe(audio, language="en", beam_size=5)
        texts.append(" ".join(s.text.strip() for s in segments))
    return texts, time.perf_counter() - start


def ours(paths: list[Path], raw_config: dict, threads: int, out: Path) -> tuple[dict[Path, dict], float]:
    from speechproc import api
    from speechproc.config import v3 as config
    from speechproc.store.database.catalog import Catalog

    settings = config.validate({**raw_config, "speechproc": {**raw_config.get("speechproc", {}), "threads": threads}})
    start = time.perf_counter()
    with Catalog(out / "catalog.sqlite3") as catalog:
        batch = api.process(paths, settings, out_dir=out, force=True, catalog=catalog)
    wall = time.perf_counter() - start
    items = {}
    for result, path in zip(batch.items, paths):
        assert result.status == "finished", result.error
        items[path] = json.loads(Path(result.outputs["json"]).read_text())
    return items, wall


def text_by_speaker(item: dict) -> dict[str, str]:
    out: dict[str, list[str]] = {}
    speaker = ""
    for w in item["transcript"]["words"]:
        if w.get("m") == "turn":
            speaker = w["w"]
        elif "m" not in w:
            out.setdefault(speaker, []).append(w["w"])
    return {k: " ".join(v) for k, v in out.items()}


def duration(path: Path) -> float:
    from speechproc.media import probe

    return probe(path).length_ms / 1000


MODES = {"speechproc_batched": {"batched": True}, "speechproc_sequential": {"batched": False}}  # recognition modes


def run_set(name: str, rows: list[tuple[Path, bool]], threads: int, model) -> dict:
    """rows: (path, stereo). Alternates bare and each speechproc mode per file so machine noise hits all."""
    audio = sum(duration(p) for p, _ in rows)
    walls = {"bare": 0.0, **{mode: 0.0 for mode in MODES}}
    texts: dict[str, dict[tuple[Path, str], str]] = {side: {} for side in walls}
    with tempfile.TemporaryDirectory() as tmp:
        for i, (path, stereo) in enumerate(rows):
            channels = ("left", "right") if stereo else ("mono",)
            said, wall = bare_transcribe(model, path, stereo)
            walls["bare"] += wall
            texts["bare"].update({(path, channel): text for channel, text in zip(channels, said)})
            for mode, local in MODES.items():
                cfg = {"speechproc": local} | ({} if stereo else {"ingest": {"speakerName": "Speaker"}})
                items, wall = ours([path], cfg, threads, Path(tmp) / f"{i}-{mode}")
                walls[mode] += wall
                by_speaker = text_by_speaker(items[path])
                speakers = ("Agent", "Caller") if stereo else ("Speaker",)
                texts[mode].update({(path, c): by_speaker.get(s, "") for c, s in zip(channels, speakers)})
    out = {"set": name, "files": len(rows), "audio_s": round(audio, 1)}
    for side, wall in walls.items():
        out |= {f"{side}_wall_s": round(wall, 1), f"{side}_x_realtime": round(audio / wall, 2)}
    out |= {f"speedup_{mode.removeprefix('speechproc_')}": round(walls["bare"] / walls[mode], 2) for mode in MODES}
    return out | {"_texts": texts}


def manifest_rows() -> tuple[list[tuple[Path, bool]], list[dict]]:
    with open(EVAL / "wer-manifest.tsv") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    files: dict[str, bool] = {}
    for r in rows:
        files[r["path"]] = files.get(r["path"], False) or r["channel"] in ("left", "right")
    return [(EVAL / p, stereo) for p, stereo in files.items()], rows


def score(rows: list[dict], texts: dict[tuple[Path, str], str]) -> float:
    sys.path.insert(0, str(EVAL.parent / "tools"))
    import wer as wer_tool  # the shared scorer, so figures compare with its baseline

    hyps = {(r["path"], r["channel"]): texts.get((EVAL / r["path"], r["channel"]), "") for r in rows}
    value, _, _ = wer_tool.score(rows, hyps)
    return round(value, 4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", choices=("calls", "manifest", "all"), default="all")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    os.environ.setdefault("SPEECHPROC_HOME", tempfile.mkdtemp(prefix="speechproc-bench-"))

    from faster_whisper import WhisperModel

    from speechproc.engines.models import load_whisper, whisper_location

    model = WhisperModel(whisper_location("tiny.en"), device="cpu", compute_type="int8", cpu_threads=args.threads)
    load_whisper("tiny.en", "cpu", "int8", args.threads)  # both models loaded before any timing
    results = []
    if args.set in ("calls", "all"):
        rows = [(p, True) for p in CALLS if p.exists()]
        results.append(run_set("calls", rows, args.threads, model))
    if args.set in ("manifest", "all") and EVAL.exists():
        rows, manifest = manifest_rows()
        res = run_set("manifest", rows, args.threads, model)
        res |= {f"{side}_wer": score(manifest, texts) for side, texts in res["_texts"].items()}
        results.append(res)
    for r in results:
        r.pop("_texts")
        print(json.dumps(r))
    if args.json:
        note = ("speechproc_batched: speechproc.batched true (the default: shared batches of VAD chunks, broken "
                "chunks decoded again); speechproc_sequential: speechproc.batched false")
        from cpu_path import describe  # the word errors hold for this CPU path of CTranslate2

        args.json.write_text(json.dumps({"threads": args.threads, "cpu_path": describe(), "results": results,
                                         "note": note}, indent=2) + "\n")


if __name__ == "__main__":
    main()
