#!/usr/bin/env python3
"""Known speakers on each diarization pipeline: people enrolled from the first half of a conversation are named in
its second half, as one enrolls an agent from one call and meets them in the next.

The conversations are the simulated ones of benchmarks/speakers/diarization_sim.json with two speakers or more (built by
`python benchmarks/speakers/diarization_sim.py`). Each speaker who talks alone for at least 5 s in the first half is
enrolled from that speech (one exemplar, `identify.voice_of` over those stretches, as `speechproc speakers
enroll` would from a recording of them alone); the second half is diarized by each pipeline as the stage runs
it and its speakers named (`identify.identify`, the shipped threshold and margin), with and without the rule
that a speaker mixing two voices is named after neither (`identify.mixed`).

Scored on 10 ms frames of the second half where exactly one person talks: the share of an enrolled person's
speech given their name ("named"), given another enrolled person's name ("named as someone else"), or none;
and the share of the speech of people who could not be enrolled (too little speech alone in the first half)
given any enrolled name.

Usage: python benchmarks/speakers/speakers_later.py --data SIMDIR [--split dev|test] [--pipelines windows,hybrid]
                                           [--json OUT]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks" / "speakers"))

from diarization_public import recordings  # noqa: E402

from speechproc.concurrency import one_thread_each  # noqa: E402
from speechproc.engines.models import load_campplus, load_segmentation  # noqa: E402
from speechproc.stages.options import SPEAKER_MATCH_THRESHOLD, DiarizationOptions, EnrolledSpeaker  # noqa: E402
from speechproc.stages.speakers import diarize, identify  # noqa: E402

LIST = Path(__file__).resolve().parent / "diarization_sim.json"
FRAME_MS = 10
ENROLL_S = identify.MIN_ENROLL_SPEECH_S
THREADS = 2


def alone(reference: list[tuple[int, int, str]], lo: int, hi: int) -> dict[str, list[tuple[int, int]]]:
    """Each speaker's stretches (ms, from `lo`) within lo..hi where nobody else talks."""
    n = (hi - lo) // FRAME_MS
    names = sorted({sp for _, _, sp in reference})
    active = np.zeros((len(names), n), dtype=bool)
    for s, e, sp in reference:
        a, b = max(s, lo), min(e, hi)
        if b > a:
            active[names.index(sp), (a - lo) // FRAME_MS:(b - lo) // FRAME_MS] = True
    only = active & (active.sum(axis=0) == 1)
    out = {}
    for k, name in enumerate(names):
        edges = np.flatnonzero(np.diff(np.r_[0, only[k].astype(np.int8), 0]))
        out[name] = [(int(a) * FRAME_MS, int(b) * FRAME_MS) for a, b in zip(edges[::2], edges[1::2])]
    return out


def enrolled_people(audio: np.ndarray, reference: list, half_ms: int) -> list[EnrolledSpeaker]:
    """Everyone with ENROLL_S of speech alone in the first half, enrolled from it."""
    people = []
    for name, spans in alone(reference, 0, half_ms).items():
        if sum(e - s for s, e in spans) < ENROLL_S * 1000:
            continue
        voice = identify.voice_of(audio[: half_ms * 16], None, THREADS, spans)
        if voice is not None:
            people.append(EnrolledSpeaker(name, None, (tuple(float(x) for x in voice.embedding),)))
    return people


def tally(counts: dict, reference: list, half_ms: int, length_ms: int, segments: list, name_of: dict,
          enrolled: set[str]) -> None:
    """Add the second half's frames to `counts` (named, named_wrong, unnamed, stranger, stranger_named)."""
    spans = alone(reference, half_ms, length_ms)
    said = np.full((length_ms - half_ms) // FRAME_MS, None, dtype=object)
    for g in segments:
        said[g.s // FRAME_MS: g.e // FRAME_MS] = name_of.get(g.speaker)
    for who, stretches in spans.items():
        for s, e in stretches:
            given = said[s // FRAME_MS: e // FRAME_MS]
            if who in enrolled:
                counts["speech"] += len(given)
                counts["named"] += int(np.sum(given == who))
                counts["named_wrong"] += int(np.sum([g is not None and g != who for g in given]))
            else:
                counts["stranger"] += len(given)
                counts["stranger_named"] += int(np.sum([g is not None for g in given]))


def measure(data: Path, split: str, pipelines: tuple[str, ...]) -> dict:
    counts = {(p, rule): dict.fromkeys(("speech", "named", "named_wrong", "stranger", "stranger_named"), 0)
              for p in pipelines for rule in ("mixed rule", "without it")}
    conversations = 0
    for entry, audio, reference in recordings(data, LIST, split):
        if entry["speakers"] < 2:
            continue
        length_ms = len(audio) * 1000 // 16000
        half_ms = length_ms // 2 // FRAME_MS * FRAME_MS
        people = enrolled_people(audio, reference, half_ms)
        if not people:
            continue
        conversations += 1
        second = np.ascontiguousarray(audio[half_ms * 16:])
        for pipeline in pipelines:
            found = diarize.diarized(second, DiarizationOptions(diarizer=pipeline), THREADS)
            labels = sorted(found.voices)
            for rule in ("mixed rule", "without it"):
                pieces = [found.pieces.get(k) for k in labels] if rule == "mixed rule" else None
                named = identify.identify([found.voices[k] for k in labels], people, SPEAKER_MATCH_THRESHOLD,
                                          pieces=pieces)
                name_of = {k: p.name for k, p in zip(labels, named) if p is not None}
                tally(counts[(pipeline, rule)], reference, half_ms, length_ms, found.segments, name_of,
                      {p.name for p in people})
        print(entry["id"], len(people), file=sys.stderr, flush=True)
    return {"conversations": conversations,
            "results": {f"{p} / {rule}": {"named": round(c["named"] / max(c["speech"], 1), 4),
                                          "named_as_someone_else": round(c["named_wrong"] / max(c["speech"], 1), 4),
                                          "not_enrolled_speech_named": round(c["stranger_named"] / max(c["stranger"], 1), 4),
                                          "enrolled_speech_s": c["speech"] * FRAME_MS / 1000}
                        for (p, rule), c in counts.items()}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="the built simulated conversations")
    parser.add_argument("--split", choices=("dev", "test"), default="dev")
    parser.add_argument("--pipelines", default="windows,hybrid")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    pipelines = tuple(p.strip() for p in args.pipelines.split(",") if p.strip())
    load_segmentation()
    load_campplus()
    with one_thread_each():
        result = {"command": f"python benchmarks/speakers/speakers_later.py --data SIMDIR --split {args.split} "
                             f"--pipelines {','.join(pipelines)}", **measure(args.data, args.split, pipelines)}
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
