#!/usr/bin/env python3
"""Speakers by name: how often an enrolled voice is recognised, and how often a voice is given a wrong name.

Data (`--data`, see docs/benchmarks.md#speakers-by-name for where each file comes from): `speakers/<id>/<file>`,
several recordings per speaker (LibriSpeech, VCTK, VoxCeleb1, CMU ARCTIC, AISHELL-1 samples: 25 speakers,
105 files). None of it was used to tune diarization.

1. Verification. Each speaker is enrolled from their first recording (one exemplar, `identify.voice_of`);
   every other recording is a test, as it is ("clean") and through a telephone line ("phone": 8 kHz
   mu-law, as a contact centre records). Target trials pair a test with its own speaker's voiceprint,
   non-target trials with every other speaker's. Reported: the equal-error rate, and false-accept and
   false-reject rates over thresholds. The threshold is chosen on half of the speakers (the least that
   keeps false accepts at or under 1 % there) and its rates are reported on the other half (both ways).
2. Identification, open set, with `identify.identify` (threshold, margin, mutual best) at the shipped
   threshold: every test recording against everyone enrolled (named right, named wrong, not named), and
   against everyone but its own speaker (any name is wrong).
3. Conversations: 3-4 speakers' test recordings (not the enrolled ones) joined turn by turn with 0.3 s
   pauses, mixed to one channel, diarized (`diarize_windows.diarized`) and named, with one of the speakers
   not enrolled. Reported: the share of speech named right, named wrong, left unnamed; DER (no collar) and
   whether the speaker count is right.

Usage: python benchmarks/speakers/speakers.py --data DIR [--json benchmarks/speakers/speakers.result.json] [--conversations 20]
"""
from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from speechproc import media  # noqa: E402
from speechproc.stages.options import SPEAKER_MATCH_THRESHOLD, EnrolledSpeaker  # noqa: E402
from speechproc.stages.speakers import diarize_windows, identify  # noqa: E402

AUDIO = (".flac", ".wav", ".mp3", ".m4a", ".ogg", ".opus")
GAP_S = 0.3
FRAME_MS = 10


def phone(path: Path, folder: Path) -> Path:
    """The recording as a telephone line carries it: 8 kHz, mu-law."""
    out = folder / (path.parent.name + "-" + path.stem + ".phone.wav")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(path), "-ac", "1", "-ar", "8000", "-acodec", "pcm_mulaw",
                    str(out)], check=True)
    return out


def samples(path: Path) -> np.ndarray:
    return media.decode(path).samples.mean(axis=0)


def load(data: Path, folder: Path) -> dict[str, dict]:
    """Per speaker: the enrollment voice, and each test recording's samples and voices (clean, phone)."""
    speakers: dict[str, dict] = {}
    for directory in sorted(p for p in (data / "speakers").iterdir() if p.is_dir()):
        files = sorted(p for p in directory.iterdir() if p.suffix.lower() in AUDIO)
        if len(files) < 2:
            continue
        enrolled = identify.voice_of(samples(files[0]))
        tests = []
        for f in files[1:]:
            clean = samples(f)
            heard = {"clean": identify.voice_of(clean), "phone": identify.voice_of(samples(phone(f, folder)))}
            if all(v is not None for v in heard.values()):
                tests.append({"file": f.name, "samples": clean, "voices": {k: v.embedding for k, v in heard.items()}})
        if enrolled is not None and tests:
            speakers[directory.name] = {"voiceprint": enrolled.embedding, "tests": tests}
    return speakers


def scores(speakers: dict[str, dict], names: list[str], condition: str) -> tuple[np.ndarray, np.ndarray]:
    """(target scores, non-target scores) among `names`."""
    target, other = [], []
    for who in names:
        for test in speakers[who]["tests"]:
            for claimed in names:
                score = float(speakers[claimed]["voiceprint"] @ test["voices"][condition])
                (target if claimed == who else other).append(score)
    return np.array(target), np.array(other)


def rates(target: np.ndarray, other: np.ndarray, threshold: float) -> dict[str, float]:
    return {"false_accept": round(float(np.mean(other >= threshold)), 4),
            "false_reject": round(float(np.mean(target < threshold)), 4)}


def eer(target: np.ndarray, other: np.ndarray) -> float:
    grid = np.unique(np.concatenate([target, other]))
    gaps = [(abs(np.mean(other >= t) - np.mean(target < t)), (np.mean(other >= t) + np.mean(target < t)) / 2)
            for t in grid]
    return round(float(min(gaps)[1]), 4)


def threshold_for(other: np.ndarray, most_false_accepts: float = 0.01) -> float:
    """The least threshold (0.01 steps) whose false-accept rate is at most `most_false_accepts`."""
    for t in np.arange(-1.0, 1.0001, 0.01):
        if np.mean(other >= t) <= most_false_accepts:
            return round(float(t), 2)
    return 1.0


def verification(speakers: dict[str, dict]) -> dict:
    names = sorted(speakers)
    rng = random.Random(5)
    shuffled = names[:]
    rng.shuffle(shuffled)
    halves = [sorted(shuffled[: len(names) // 2]), sorted(shuffled[len(names) // 2:])]
    out: dict = {}
    for condition in ("clean", "phone"):
        target, other = scores(speakers, names, condition)
        found = {"trials": {"target": len(target), "non_target": len(other)}, "EER": eer(target, other),
                 "by_threshold": {f"{t:.2f}": rates(target, other, t) for t in np.arange(0.3, 0.86, 0.05)},
                 "held_out": []}
        for fit, check in (halves, halves[::-1]):
            t = threshold_for(scores(speakers, fit, condition)[1])
            found["held_out"].append({"threshold": t, **rates(*scores(speakers, check, condition), t)})
        out[condition] = found
    return out


def people(speakers: dict[str, dict], leave_out: str | None = None) -> list[EnrolledSpeaker]:
    return [EnrolledSpeaker(who, None, (tuple(float(x) for x in s["voiceprint"]),))
            for who, s in speakers.items() if who != leave_out]


def identification(speakers: dict[str, dict], threshold: float) -> dict:
    everyone = people(speakers)
    out = {}
    for condition in ("clean", "phone"):
        right = wrong = none = stranger_named = strangers = 0
        for who, s in speakers.items():
            others = people(speakers, leave_out=who)
            for test in s["tests"]:
                [named] = identify.identify([test["voices"][condition]], everyone, threshold)
                right += named is not None and named.name == who
                wrong += named is not None and named.name != who
                none += named is None
                [named] = identify.identify([test["voices"][condition]], others, threshold)
                strangers += 1
                stranger_named += named is not None
        total = right + wrong + none
        out[condition] = {"tests": total, "named_right": round(right / total, 4), "named_wrong": round(wrong / total, 4),
                          "not_named": round(none / total, 4),
                          "unenrolled_named": round(stranger_named / strangers, 4)}
    return out


def conversation(speakers: dict[str, dict], rng: random.Random) -> tuple[np.ndarray, list[tuple[int, int, str]]]:
    """3-4 speakers' test recordings, turn by turn, on one channel; the reference (start ms, end ms, speaker)."""
    chosen = rng.sample(sorted(speakers), rng.choice((3, 4)))
    turns = [(who, t["samples"]) for who in chosen for t in speakers[who]["tests"][:3]]
    rng.shuffle(turns)
    pieces, reference, at = [], [], 0
    gap = np.zeros(int(GAP_S * media.ASR_RATE), dtype=np.float32)
    for who, audio in turns:
        audio = audio / max(float(np.max(np.abs(audio))), 1e-6) * 0.5
        for s, e in diarize_windows.speech_regions(audio):
            reference.append((at * 1000 // media.ASR_RATE + s, at * 1000 // media.ASR_RATE + e, who))
        pieces += [audio.astype(np.float32), gap]
        at += len(audio) + len(gap)
    return np.concatenate(pieces), reference


def frames(spans: list[tuple[int, int, str]], length_ms: int) -> list[set[str]]:
    out: list[set[str]] = [set() for _ in range(length_ms // FRAME_MS + 1)]
    for s, e, who in spans:
        for f in range(s // FRAME_MS, e // FRAME_MS):
            out[f].add(who)
    return out


def conversations(speakers: dict[str, dict], count: int, threshold: float) -> dict:
    from scipy.optimize import linear_sum_assignment

    rng = random.Random(17)
    right = wrong = unnamed = speech = stranger_speech = stranger_named = 0
    ders, counts_right = [], 0
    for _ in range(count):
        audio, reference = conversation(speakers, rng)
        present = sorted({who for _, _, who in reference})
        stranger = rng.choice(present)
        found = diarize_windows.diarized(audio)
        segments, voices = found.segments, found.voices
        labels = sorted(voices)
        named = identify.identify([voices[k] for k in labels], people(speakers, leave_out=stranger), threshold)
        name_of = {k: (p.name if p is not None else f"Speaker {k}") for k, p in zip(labels, named)}
        hypothesis = [(s.s, s.e, name_of[s.speaker]) for s in segments]
        length = len(audio) * 1000 // media.ASR_RATE
        ref, hyp = frames(reference, length), frames(hypothesis, length)
        for r, h in zip(ref, hyp):
            if len(r) != 1:
                continue
            [who] = r
            given = {n for n in h if not n.startswith("Speaker ")}  # enrolled names given to this moment
            if who == stranger:
                stranger_speech += 1
                stranger_named += bool(given)
                continue
            speech += 1
            if given - {who}:
                wrong += 1
            elif who in given:
                right += 1
            else:
                unnamed += 1
        # DER by the best one-to-one mapping of labels (names ignored): missed + false alarm + confusion
        ref_names, hyp_names = present, sorted({n for _, _, n in hypothesis})
        overlap = np.zeros((len(ref_names), max(len(hyp_names), 1)))
        for r, h in zip(ref, hyp):
            for a in r:
                for b in h:
                    overlap[ref_names.index(a), hyp_names.index(b)] += 1
        rows, cols = linear_sum_assignment(-overlap)
        matched = overlap[rows, cols].sum()
        scored = sum(len(r) for r in ref)
        false_alarm = sum(max(0, len(h) - len(r)) for r, h in zip(ref, hyp))
        ders.append((scored - matched + false_alarm) / scored)
        counts_right += len(hyp_names) == len(present)
    return {"conversations": count, "speech_named_right": round(right / speech, 4),
            "speech_named_wrong": round(wrong / speech, 4), "speech_not_named": round(unnamed / speech, 4),
            "unenrolled_speech_named": round(stranger_named / max(stranger_speech, 1), 4),
            "mean_DER": round(float(np.mean(ders)), 4), "speaker_count_right": counts_right}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, type=Path, help="folder with speakers/<id>/<recordings>")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--conversations", type=int, default=20)
    parser.add_argument("--threshold", type=float, default=SPEAKER_MATCH_THRESHOLD,
                        help="the threshold of parts 2 and 3 (default: the shipped one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        speakers = load(args.data, Path(tmp))
    result = {"command": "python benchmarks/speakers/speakers.py --data DATA --json benchmarks/speakers/speakers.result.json",
              "speakers": len(speakers), "tests": sum(len(s["tests"]) for s in speakers.values()),
              "threshold": args.threshold, "margin": identify.MARGIN}
    result["verification"] = verification(speakers)
    print(json.dumps(result["verification"], indent=1), flush=True)
    result["identification"] = identification(speakers, args.threshold)
    print(json.dumps(result["identification"], indent=1), flush=True)
    result["conversations"] = conversations(speakers, args.conversations, args.threshold)
    print(json.dumps(result["conversations"], indent=1), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
