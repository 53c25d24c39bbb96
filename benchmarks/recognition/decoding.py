#!/usr/bin/env python3
"""Two ways to decode faster, measured on the files of ../shared/evaldata/wer-manifest.tsv with speechproc's own
chunk plan (VAD pieces packed into chunks, batches of 2, one decoder on 2 threads, tiny.en int8, beam 5):

window  the encoder's window fitted to the batch (`batching.window_frames`: 20 s for chunks that end a second
        before it) against Whisper's 30 s, and a 15 s and a 10 s window for comparison: WER with the shared
        scorer, decoding time, and how far the start of each word moves (words both windows wrote alike,
        paired in order: median and 90th percentile, in ms).
packing the manifest's clips laid end to end, 0.3-1.2 s apart, as recordings of about 3 minutes (long speech
        with pauses, as a call's channel gives it), recognised by speechproc's batched path (`batching.recognise`,
        broken chunks decoded again included, each recording's by a fresh single-worker recogniser loaded
        before the clock starts, as in a process of its own; a chunk decoded again samples, and the few
        that are swing the WER by a point, so each side runs with 3 sampling seeds: mean and each) with the
        speech packed into chunks of up to 30 s, in Whisper's
        30 s window or the fitted window, and into chunks of up to 19 s, every batch in a 20 s window; and by
        bare faster-whisper's BatchedInferencePipeline (VAD, batch 8) for its WER (it decodes on one of the
        two single-threaded replicas, so its time is not comparable): WER, seconds, chunks, chunks decoded
        again, how far word starts move against 30 s chunks, and the start error of the words recognised
        right in the three monologues that come with forced-aligner timings (as `alignment.py` scores them),
        and the encoder's seconds per chunk in a 30 s and a 20 s window;
        then the real two-channel call of throughput.py (12 minutes) recognised with chunks of up to 30 s
        and of up to 19 s in turn, twice each: seconds, chunks, chunks decoded again.
greedy  each chunk decoded greedily (beam 1) and with the beam: WER of all-beam, all-greedy, and of keeping
        the greedy result unless its average log-probability is under a threshold (Whisper's own fallback
        test) or its text loops, with the share of chunks that would be decoded twice.

Usage: python benchmarks/recognition/decoding.py --experiment window|packing|greedy [--model tiny.en] [--json OUT]
"""
from __future__ import annotations

import argparse
import csv
import functools
import json
import statistics
import sys
import time
from difflib import SequenceMatcher
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
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


SESSION_S = 180  # about how long each recording of the packing experiment lasts


def sessions(rows: list[dict]) -> list[tuple[np.ndarray, str, list[tuple[str, int]]]]:
    """(16 kHz samples, reference, forced-aligner word starts in ms) of recordings made of the manifest's clips
    laid end to end in its order, 0.3-1.2 s of silence between them (the same every run), each about
    SESSION_S long. The word starts are those of the monologues that come with them (`alignment.py`)."""
    from alignment import MFA, NAMES, reference_timings
    from faster_whisper import decode_audio

    gaps = np.random.RandomState(0)
    found, audio, reference, timings = [], [], [], []
    for row in rows:
        path = str(EVAL / row["path"])
        clip = (decode_audio(path, split_stereo=True)[0 if row["channel"] == "left" else 1]
                if row["channel"] in ("left", "right") else decode_audio(path))
        offset_ms = sum(a.shape[0] for a in audio) // 16
        if Path(path).stem in NAMES and Path(path).parent.parent == MFA:
            timings += [(word, start + offset_ms) for word, start in reference_timings(Path(path).stem)]
        audio += [clip, np.zeros(int(gaps.uniform(0.3, 1.2) * 16000), dtype=np.float32)]
        reference.append(row["reference"])
        if sum(a.shape[0] for a in audio) >= SESSION_S * 16000 or row is rows[-1]:
            found.append((np.concatenate(audio), " ".join(reference), timings))
            audio, reference, timings = [], [], []
    return found


def single_worker(model_name: str):
    """A recogniser of `model_name` with one worker, loaded afresh (speechproc's loader without its cache): the
    one that decodes a recording's broken chunks again, its random generator new, as in a process that has
    decoded nothing else."""
    from speechproc.engines.models import load_whisper

    return load_whisper.__wrapped__(model_name, "cpu", "int8", 1, 1)


def recognised(channels: list[np.ndarray], model, chunk_s: int, short_window: bool, single) -> list:
    """speechproc's batched recognition of `channels` as on 2 cores (two decoders, batches of 2), the chunks
    decoded again by `single`."""
    from speechproc.engines import batching

    return list(batching.recognise(channels, model, 2, True, OPTIONS, 2, short_window, chunk_s, lambda: single))


def encoder_seconds(model, rounds: int = 3) -> dict[str, float]:
    """Seconds the encoder takes per chunk in a batch of 2, on one of the recogniser's single-threaded
    replicas, for Whisper's 30 s window and the 20 s one."""
    import ctranslate2

    found = {}
    for seconds in (30, 20):
        features = np.random.default_rng(0).standard_normal((2, 80, seconds * 100)).astype(np.float32) * 0.1
        storage = ctranslate2.StorageView.from_array(features)
        model.model.encode(storage)
        begun = time.perf_counter()
        for _ in range(rounds):
            model.model.encode(storage)
        found[f"{seconds} s"] = round((time.perf_counter() - begun) / rounds / 2, 3)
    return found


def packing_experiment(model, rows: list[dict], model_name: str, seeds: int = 3) -> dict:
    from alignment import errors, summary
    from faster_whisper import BatchedInferencePipeline

    from speechproc.engines import batching

    def speechproc_words(samples: np.ndarray, chunk_s: int, short_window: bool, single):
        decoded = recognised([samples], model, chunk_s, short_window, single)
        words = sorted((chunk.original_times(w.start, w.end)[0], w.text.strip()) for chunk, chunk_words, _ in decoded
                       for w in chunk_words)
        return words, len(decoded), sum(reason is not None for _, _, reason in decoded)

    def bare_words(samples: np.ndarray, _chunk_s: int, _short: bool, _single):
        segments, _ = BatchedInferencePipeline(model).transcribe(samples, batch_size=8, word_timestamps=True,
                                                                 **OPTIONS)
        return [(w.start, w.word.strip()) for s in segments for w in s.words or []], 0, 0

    sides = {"30 s chunks, 30 s window": (speechproc_words, batching.CHUNK_S, False),
             "30 s chunks, fitted window": (speechproc_words, batching.CHUNK_S, True),
             "19 s chunks, 20 s window": (speechproc_words, batching.SHORT_WINDOW_S - 1, True),
             "bare faster-whisper batched": (bare_words, 0, False)}
    recordings = sessions(rows)
    session_rows = [{"path": f"session-{k}", "channel": "mono", "reference": ref}
                    for k, (_, ref, _) in enumerate(recordings)]
    result: dict = {"recordings": len(recordings),
                    "audio_s": round(sum(a.shape[0] for a, _, _ in recordings) / 16000, 1),
                    "encoder_s_per_chunk": encoder_seconds(model)}
    found: dict[str, dict] = {}
    for side, (recognise, chunk_s, short) in sides.items():
        wers, spent = [], []
        for seed in range(seeds if recognise is speechproc_words else 1):
            batching.SAMPLING_SEED = seed
            singles = [single_worker(model_name) for _ in recordings]  # loaded before the clock starts
            begun, chunks, redecoded, texts, start_errors = time.perf_counter(), 0, 0, {}, []
            for k, ((samples, _, timings), single) in enumerate(zip(recordings, singles)):
                words, count, again = recognise(samples, chunk_s, short, single)
                chunks, redecoded = chunks + count, redecoded + again
                texts[(f"session-{k}", 0)] = [(start, text) for start, text in words]
                start_errors += errors([(text, round(start * 1000)) for start, text in words], timings)
            spent.append(time.perf_counter() - begun)
            wers.append(wer_of(session_rows, texts))
            if seed == 0:  # the words' times: those of the first seed (the sampled chunks are few)
                found[side] = {key: [(text.lower(), start) for start, text in words] for key, words in texts.items()}
                result[side] = {"start_error": summary(start_errors, sum(len(t) for _, _, t in recordings)),
                                **({"chunks": chunks, "decoded_again": redecoded} if chunks else {})}
        result[side].update({"wer": round(statistics.mean(wers), 4), "wer_by_seed": wers,
                             "decode_s": round(statistics.mean(spent), 1)})
    batching.SAMPLING_SEED = 0
    for side in sides:
        if side != "30 s chunks, 30 s window":
            result[side].update(start_moves(found["30 s chunks, 30 s window"], found[side]))
    result["call"] = packed_call(model, model_name)
    return result


def packed_call(model, model_name: str, rounds: int = 2) -> dict:
    """The recognition time of the real two-channel call (8 kHz, repeated to about 12 minutes, as
    throughput.py makes it) with chunks of up to 30 s and of up to 19 s, in turn, and the chunks of each."""
    import tempfile

    sys.path.insert(0, str(ROOT / "benchmarks" / "cost"))
    from throughput import CALL, write_wav

    from speechproc.engines import batching
    from speechproc.media import decode

    track = decode(CALL, sample_rate=8000)
    with tempfile.TemporaryDirectory() as tmp:
        path = write_wav(Path(tmp) / "call.wav", np.tile(track.samples, 4), 8000)
        channels = [np.ascontiguousarray(c) for c in decode(path).samples]
    found: dict[str, dict] = {}
    for _ in range(rounds):
        for side, chunk_s in (("30 s chunks, fitted window", batching.CHUNK_S),
                              ("19 s chunks, 20 s window", batching.SHORT_WINDOW_S - 1)):
            single = single_worker(model_name)
            begun = time.perf_counter()
            decoded = recognised(channels, model, chunk_s, True, single)
            spent = round(time.perf_counter() - begun, 2)
            side_found = found.setdefault(side, {"seconds": [], "chunks": [], "decoded_again": []})
            side_found["seconds"].append(spent)
            side_found["chunks"].append(len(decoded))
            side_found["decoded_again"].append(sum(reason is not None for _, _, reason in decoded))
    return {"audio_s": round(channels[0].shape[0] / 16000, 1), **found}


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
    parser.add_argument("--experiment", choices=("window", "packing", "greedy"), required=True)
    parser.add_argument("--model", default="tiny.en", help="a model name or a CTranslate2 folder")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if not EVAL.exists():
        sys.exit(f"{EVAL} is needed (../shared beside the project)")
    sys.path.insert(0, str(ROOT / "benchmarks" / "recognition"))
    from cpu_path import describe

    from speechproc.engines.models import load_whisper

    # the packing experiment decodes as speechproc does on 2 cores: two single-threaded replicas
    model = (load_whisper(args.model, "cpu", "int8", 1, 2) if args.experiment == "packing"
             else load_whisper(args.model, "cpu", "int8", 2))
    rows = manifest()
    run = {"window": window_experiment, "packing": functools.partial(packing_experiment, model_name=args.model),
           "greedy": greedy_experiment}[args.experiment]
    result = {"command": f"python benchmarks/recognition/decoding.py --experiment {args.experiment} --model {args.model}",
              "model": args.model, "cpu_path": describe(),
              "files": len({r["path"] for r in rows}), **run(model, rows)}
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
