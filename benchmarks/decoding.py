#!/usr/bin/env python3
"""Two ways to decode faster, measured on the files of ../shared/evaldata/wer-manifest.tsv with speechproc's own
chunk plan (VAD pieces packed into chunks, batches of 2, one decoder on 2 threads, tiny.en int8, beam 5):

window  the encoder's window fitted to the batch (`batching.window_frames`: 20 s for chunks that end a second
        before it) against Whisper's 30 s, and a 15 s and a 10 s window for comparison: WER with the shared
        scorer, decoding time, and how far the start of each word moves (words both windows wrote alike,
        paired in order: median and 90th percentile, in ms).
greedy  each chunk decoded greedily (beam 1) and with the beam: WER of all-beam, all-greedy, and of keeping
        the greedy result unless its average log-probability is under a threshold (Whisper's own fallback
        test) or its text loops, with the share of chunks that would be decoded twice.

Usage: python benchmarks/decoding.py --experiment window|greedy [--model tiny.en] [--json OUT]
"""
from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
import time
from difflib import SequenceMatcher
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
EVAL = ROOT.parent / "shared" / "evaldata"
OPTIONS = {"language": "en", "beam_size": 5}


def manifest() -> list[dict]:
    with open(EVAL / "wer-manifest.tsv") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def chunk_batches(path: Path):
    """(channel samples, batches of chunks) of one file, as speechproc plans them."""
    from speechproc.engines import batching
    from speechproc.media import decode

    channels = [np.ascontiguousarray(c) for c in decode(path).samples]
    chunks = [chunk for k, samples in enumerate(channels) for chunk in batching.pack(k, batching.speech_pieces(samples, True))]
    chunks.sort(key=lambda c: (c.pieces[0][0], c.channel))
    return channels, batching.batches(chunks, 2)


def wer_of(rows: list[dict], found: dict[tuple[str, int], list[tuple[int, str]]]) -> float:
    sys.path.insert(0, str(EVAL.parent / "tools"))
    import wer as wer_tool  # the shared scorer

    hyps = {(r["path"], r["channel"]): " ".join(text for _, text in sorted(found.get(
        (r["path"], 1 if r["channel"] == "right" else 0), []))) for r in rows}
    return round(wer_tool.score(rows, hyps)[0], 4)


def window_experiment(model, rows: list[dict]) -> dict:
    from faster_whisper import BatchedInferencePipeline

    from speechproc.engines import batching

    class Fixed(BatchedInferencePipeline):  # a window of `frames` whatever the batch
        frames = 3000

        def forward(self, features, tokenizer, chunks_metadata, options):
            return super().forward(np.ascontiguousarray(features[..., :self.frames]), tokenizer, chunks_metadata,
                                   options)

    sides = {"30 s": Fixed(batching.ChunkWordTimes(model)), "fitted (20 s)": batching.fitted_pipeline(
        batching.ChunkWordTimes(model))}
    for seconds in (15, 10):
        sides[f"{seconds} s"] = Fixed(batching.ChunkWordTimes(model))
        sides[f"{seconds} s"].frames = seconds * 100
    texts: dict[str, dict] = {side: {} for side in sides}
    starts: dict[str, dict] = {side: {} for side in sides}
    spent = {side: 0.0 for side in sides}
    for path in dict.fromkeys(r["path"] for r in rows):
        channels, batches = chunk_batches(EVAL / path)
        for batch in batches:
            audios = [chunk.audio(channels[chunk.channel]) for chunk in batch]
            short = max(a.shape[0] for a in audios) / batching.RATE <= batching.SHORT_WINDOW_S - 1
            for side, pipeline in sides.items():
                if side in ("15 s", "10 s") and not short:
                    pipeline = sides["30 s"]  # a fixed short window only where the chunks fit it
                begun = time.perf_counter()
                decoded = batching._decode_batch(pipeline, audios, OPTIONS)
                spent[side] += time.perf_counter() - begun
                for chunk, (words, _) in zip(batch, decoded):
                    key = (path, chunk.channel)
                    texts[side].setdefault(key, []).append((chunk.pieces[0][0], " ".join(w.text.strip() for w in words)))
                    starts[side].setdefault(key, []).extend(
                        (w.text.strip().lower(), chunk.original_times(w.start, w.end)[0]) for w in words)
    moved = {side: start_moves(starts["30 s"], starts[side]) for side in sides if side != "30 s"}
    return {side: {"wer": wer_of(rows, texts[side]), "decode_s": round(spent[side], 1), **moved.get(side, {})}
            for side in sides}


def start_moves(reference: dict, other: dict) -> dict:
    """How far word starts move: words written alike by both, paired in order."""
    moves = []
    for key, words in reference.items():
        theirs = other.get(key, [])
        matcher = SequenceMatcher(None, [w for w, _ in words], [w for w, _ in theirs], autojunk=False)
        for block in matcher.get_matching_blocks():
            moves += [abs(words[block.a + k][1] - theirs[block.b + k][1]) * 1000 for k in range(block.size)]
    if not moves:
        return {}
    return {"start_moved_median_ms": round(statistics.median(moves)), "start_moved_p90_ms": round(
        statistics.quantiles(moves, n=10)[-1]), "words_paired": len(moves)}


def greedy_experiment(model, rows: list[dict]) -> dict:
    from speechproc.engines import batching

    pipeline = batching.fitted_pipeline(batching.ChunkWordTimes(model))
    chunks = []
    spent = {"beam": 0.0, "greedy": 0.0}
    for path in dict.fromkeys(r["path"] for r in rows):
        channels, batches = chunk_batches(EVAL / path)
        for batch in batches:
            audios = [chunk.audio(channels[chunk.channel]) for chunk in batch]
            found = {}
            for side, beam in (("beam", 5), ("greedy", 1)):
                begun = time.perf_counter()
                found[side] = decode_scored(pipeline, audios, {**OPTIONS, "beam_size": beam})
                spent[side] += time.perf_counter() - begun
            for chunk, (beam_text, _), (greedy_text, logprob) in zip(batch, found["beam"], found["greedy"]):
                chunks.append({"key": (path, chunk.channel), "start": chunk.pieces[0][0], "beam": beam_text,
                               "greedy": greedy_text, "logprob": logprob})

    def wer_choosing(choose) -> float:
        texts: dict = {}
        for c in chunks:
            texts.setdefault(c["key"], []).append((c["start"], choose(c)))
        return wer_of(rows, texts)

    result: dict = {"decode_s": {side: round(s, 1) for side, s in spent.items()},
                    "wer_beam": wer_choosing(lambda c: c["beam"]), "wer_greedy": wer_choosing(lambda c: c["greedy"]),
                    "greedy_first": []}
    for threshold in (-0.1, -0.2, -0.3, -0.5, -1.0):
        def unsure(c, threshold=threshold) -> bool:
            return c["logprob"] < threshold or batching.compression_ratio(c["greedy"]) > batching.LOOP_COMPRESSION
        result["greedy_first"].append({"threshold": threshold, "wer": wer_choosing(
            lambda c: c["beam"] if unsure(c) else c["greedy"]), "decoded_twice": round(
            sum(unsure(c) for c in chunks) / len(chunks), 3)})
    return result


def decode_scored(pipeline, audios: list[np.ndarray], options: dict) -> list[tuple[str, float]]:
    """(text, average token log-probability) of each chunk of one batch."""
    from speechproc.engines.batching import CHUNK_S, batch_segments

    segments = batch_segments(pipeline, audios, options)
    found = [("", 0.0) for _ in audios]
    for segment in segments:
        k = min(round(segment.seek / (CHUNK_S * pipeline.model.frames_per_second)), len(audios) - 1)
        found[k] = (found[k][0] + segment.text, segment.avg_logprob)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--experiment", choices=("window", "greedy"), required=True)
    parser.add_argument("--model", default="tiny.en", help="a model name or a CTranslate2 folder")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if not EVAL.exists():
        sys.exit(f"{EVAL} is needed (../shared beside the project)")
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from cpu_path import describe

    from speechproc.engines.models import load_whisper

    model = load_whisper(args.model, "cpu", "int8", 2)
    rows = manifest()
    run = window_experiment if args.experiment == "window" else greedy_experiment
    result = {"command": f"python benchmarks/decoding.py --experiment {args.experiment} --model {args.model}",
              "model": args.model, "cpu_path": describe(),
              "files": len({r["path"] for r in rows}), **run(model, rows)}
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
