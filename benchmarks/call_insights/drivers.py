#!/usr/bin/env python3
"""Call drivers scored on the reasons each set's read stored, without the language model (seconds): each
split's calls grouped as `store.collection.drivers` groups them (the gist of each reason and the caller's
opening words, MiniLM, average linkage cut at a line), against the calls' scripted kinds, as pairwise F1.
Beside the stage's setting: every line of a grid, with the caller's opening and with the reasons alone (the
drivers before), and the reasons alone centred on their mean (what all of them share taken out).

Besides the sets, whose kinds are balanced (four calls each), a corpus where one kind dominates, as in a
real contact centre: the 8 reasons of a kind that two sets share, with one reason each of 4 other kinds
drawn at random (3 draws per kind, a fixed seed). A setting that fits balanced sets may split a dominant
driver apart.

Usage: python benchmarks/call_insights/drivers.py [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(HERE))

import insights as bench  # noqa: E402

from speechproc.store.collection import drivers  # noqa: E402

# (the stored read, the set's calls): the reasons of each split as the stage gave them when the set was read
STORED = (("insights.result.json", "insights_calls.json"), ("insights.fresh.result.json", "insights_fresh.json"),
          ("insights.fourth.result.json", "insights_fourth.json"), ("insights.fifth.result.json", "insights_fifth.json"),
          ("insights.sixth.result.json", "insights_sixth.json"),
          ("insights.seventh.reasons.result.json", "insights_seventh.json"),
          ("insights.eighth.before.result.json", "insights_eighth.json"),
          ("insights.tenth.result.json", "insights_tenth.json"),
          ("insights.eleventh.result.json", "insights_eleventh.json"),
          ("insights.twelfth.result.json", "insights_twelfth.json"),
          ("insights.thirteenth.result.json", "insights_thirteenth.json"),
          ("insights.fourteenth.result.json", "insights_fourteenth.json"),
          ("insights.fifteenth.result.json", "insights_fifteenth.json"),
          ("insights.sixteenth.result.json", "insights_sixteenth.json"),
          ("insights.seventeenth.result.json", "insights_seventeenth.json"),
          ("insights.eighteenth.result.json", "insights_eighteenth.json"),
          ("insights.nineteenth.result.json", "insights_nineteenth.json"),
          ("insights.twentieth.result.json", "insights_twentieth.json"),
          ("insights.twentyfirst.result.json", "insights_twentyfirst.json"),
          ("insights.twentysecond.result.json", "insights_twentysecond.json"),
          ("insights.twentythird.result.json", "insights_twentythird.json"),
          ("insights.twentyfourth.result.json", "insights_twentyfourth.json"),
          ("insights.twentyfifth.result.json", "insights_twentyfifth.json"),
          ("insights.twentysixth.result.json", "insights_twentysixth.json"),
          ("insights.twentyseventh.result.json", "insights_twentyseventh.json"),
          ("insights.twentyeighth.result.json", "insights_twentyeighth.json"),
          ("insights.twentyninth.result.json", "insights_twentyninth.json"),
          ("insights.thirtieth.result.json", "insights_thirtieth.json"),
          ("insights.thirtyfirst.result.json", "insights_thirtyfirst.json"),
          ("insights.thirtysecond.result.json", "insights_thirtysecond.json"),
          ("insights.thirtythird.result.json", "insights_thirtythird.json"),
          ("insights.thirtyfourth.result.json", "insights_thirtyfourth.json"),
          ("insights.thirtyfifth.result.json", "insights_thirtyfifth.json"),
          ("insights.thirtysixth.result.json", "insights_thirtysixth.json"),
          ("insights.thirtyseventh.result.json", "insights_thirtyseventh.json"),
          ("insights.thirtyeighth.result.json", "insights_thirtyeighth.json"),
          ("insights.thirtyninth.result.json", "insights_thirtyninth.json"))
LINES = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45)
DOMINANT_DRAWS = 3
LONG_SETS = ("tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
             "seventeenth", "eighteenth", "nineteenth", "twentieth", "twentyfirst", "twentysecond",
             "twentythird", "twentyfourth", "twentyfifth", "twentysixth", "twentyseventh",
             "twentyeighth", "twentyninth", "thirtieth", "thirtyfirst", "thirtysecond", "thirtythird",
             "thirtyfourth", "thirtyfifth", "thirtysixth", "thirtyseventh", "thirtyeighth",
             "thirtyninth")  # read by their ends
# the sets whose reasons were read when the line with the caller's opening was chosen (its mean); not after
CHOSEN_ON = ("dev", "test", "fresh", "fourth", "fifth", "sixth", "seventh", "eighth", "tenth", "eleventh", "twelfth",
             "thirteenth", "fourteenth")

Call = tuple[str, str, str]  # (reason, kind, the caller's opening words)


def splits() -> dict[str, list[Call]]:
    """Each split's calls with a stored reason."""
    out: dict[str, list[Call]] = {}
    for stored, calls_file in STORED:
        if not (HERE / stored).is_file():
            continue
        calls = {c["id"]: c for c in json.loads((HERE / calls_file).read_text())["calls"]}
        for row in json.loads((HERE / stored).read_text())["calls"]:
            if row.get("reason"):
                call = calls[row["id"]]
                kind = str(call["truth"].get("kind") or call["truth"]["reason"]).lower()
                out.setdefault(row["split"], []).append((row["reason"], kind, bench.caller_opening(call)))
    return out


def dominated(every: list[Call]) -> list[list[Call]]:
    """Corpora where one kind holds 8 of 12 reasons (see the module's docstring)."""
    by_kind: dict[str, list[Call]] = {}
    for pair in every:
        by_kind.setdefault(pair[1], []).append(pair)
    big = [kind for kind, pairs in sorted(by_kind.items()) if len(pairs) >= 8]
    others = [kind for kind in sorted(by_kind) if kind not in big]
    draw = random.Random(1)
    return [by_kind[kind][:8] + [draw.choice(by_kind[k]) for k in draw.sample(others, 4)]
            for kind in big for _ in range(DOMINANT_DRAWS)]


def pair_f1(vectors: np.ndarray, kinds: list[str], line: float, centred: bool) -> float:
    """Pairwise F1 of the drivers of the calls' `vectors` against their `kinds`."""
    if centred:
        vectors = drivers.unit_rows(vectors - vectors.mean(axis=0))
    return round(bench.pairwise(drivers.clusters(vectors, line), kinds)[2], 3)


def embedded(calls: list[Call]) -> dict[bool, tuple[np.ndarray, list[str]]]:
    """The calls' vectors with the caller's opening (True, as the stage groups them) and of the reasons alone."""
    kinds = [k for _, k, _ in calls]
    return {True: (drivers.call_vectors([drivers.Reasoned("", r, None, o) for r, _, o in calls]), kinds),
            False: (drivers.reason_vectors([r for r, _, _ in calls]), kinds)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    sets = splits()
    corpora = dominated([call for name, calls in sets.items() for call in calls if name not in LONG_SETS])
    # each split and corpus embedded once; every setting groups the same vectors
    by_split = {name: embedded(calls) for name, calls in sets.items()}
    dominant = [embedded(c) for c in corpora]
    settings = ([(drivers.DRIVER_SIMILARITY, True, False)] + [(line, True, False) for line in LINES]
                + [(line, False, centred) for centred in (False, True) for line in LINES])
    rows = []
    for line, opening, centred in settings:
        per_split = {name: pair_f1(*vectors[opening], line, centred) for name, vectors in by_split.items()}
        read = [f1 for name, f1 in per_split.items() if name not in ("dev", *LONG_SETS)]
        rows.append({"line": line, "opening": opening, "centred": centred, "splits": per_split,
                     "mean_test_to_eighth": round(float(np.mean(read)), 3),
                     "mean_chosen_on": round(float(np.mean([per_split[n] for n in CHOSEN_ON if n in per_split])), 3),
                     "dominant_kind": round(float(np.mean([pair_f1(*v[opening], line, centred) for v in dominant])), 3)})
        print(f"line {line:.2f} {'opening ' if opening else 'reasons ' + ('centred ' if centred else '')}: "
              + "  ".join(f"{name} {f1:.2f}" for name, f1 in per_split.items())
              + f"  | mean test..eighth {rows[-1]['mean_test_to_eighth']:.3f}"
              + f"  | mean dev..fourteenth {rows[-1]['mean_chosen_on']:.3f}"
              + f"  | one kind dominant {rows[-1]['dominant_kind']:.3f}")
    if args.json:
        args.json.write_text(json.dumps({"command": "python benchmarks/call_insights/drivers.py",
                                         "stage_line": drivers.DRIVER_SIMILARITY, "dominant_corpora": len(corpora),
                                         "settings": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
