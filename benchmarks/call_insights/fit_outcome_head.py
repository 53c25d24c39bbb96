#!/usr/bin/env python3
"""Fit the outcome head: how a call ended, from the model's answers the insights benchmark stored for it.

Each call of the read sets' stored results (RESULTS: `insights.*.result.json`, written by
`benchmarks/call_insights/insights.py`) holds the model's chances that the request was done, refused and left to a
step promised after the call (`ending`), and, for a call read by its ends, the promises by others the promise head
believes in its close (`promises_in_close`). The head is a multinomial logistic regression over
`outcome.features` of those, against the call's known outcome. Its strength is chosen by leave-one-set-out
cross-validation (the most outcomes right, ties to the stronger regularisation); the lines it replaces
(`outcome.outcome_by_lines`) are scored on the same answers beside it. Never fitted on a set
kept unread. The head (3 x 8 weights, 3 biases) is written to src/speechproc/data/outcome_head.npz.

Usage: python benchmarks/call_insights/fit_outcome_head.py [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "src"))

from speechproc.stages.call_insights import insights, outcome  # noqa: E402

OUT = ROOT / "src" / "speechproc" / "data" / "outcome_head.npz"
# The stored results of read sets whose calls hold the model's answers on how they ended.
RESULTS = ("fresh", "fourth", "fifth", "sixth", "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth",
           "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth", "twentieth", "twentyfirst",
           "twentysecond", "twentythird", "twentyfourth", "twentyfifth", "twentysixth", "twentyseventh")
STRENGTHS = (0.3, 1.0, 3.0, 10.0, 30.0)  # scikit-learn's C: larger, less regularised


def call_rows(names: tuple[str, ...] = RESULTS) -> list[dict]:
    """Every stored call with an ending and a known outcome: its set, truth, ending (its pieces' answers combined
    as the stage combines them, `insights.call_ending`) and promises in its close."""
    rows = []
    for name in names:
        for call in json.loads((HERE / f"insights.{name}.result.json").read_text())["calls"]:
            read = [insights.PieceAnswers(ending=outcome.Ending(**e) if e else None) for e in call.get("ending") or []]
            ending = insights.call_ending(read)
            if ending is None or not call.get("truth_outcome"):
                continue
            rows.append({"set": name, "id": call["id"], "truth": call["truth_outcome"], "ending": ending,
                         "promises_in_close": call.get("promises_in_close")})
    return rows


def cross_validated(x: np.ndarray, y: np.ndarray, sets: np.ndarray, strength: float) -> np.ndarray:
    """Each call's outcome (an index of `outcome.OUTCOMES`) from a head fitted on the other sets."""
    from sklearn.linear_model import LogisticRegression

    predicted = np.zeros(len(y), dtype=int)
    for held in dict.fromkeys(sets):
        fit = sets != held
        head = LogisticRegression(C=strength, max_iter=5000).fit(x[fit], y[fit])
        predicted[~fit] = head.predict(x[~fit])
    return predicted


def main() -> int:
    from sklearn.linear_model import LogisticRegression

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="write the cross-validation figures here")
    args = parser.parse_args()
    rows = call_rows()
    x = np.array([outcome.features(r["ending"], r["promises_in_close"]) for r in rows])
    y = np.array([outcome.OUTCOMES.index(r["truth"]) for r in rows])
    sets = np.array([r["set"] for r in rows])
    lines_right = np.array([outcome.outcome_by_lines(r["ending"], r["promises_in_close"]) == r["truth"] for r in rows])
    grid = []
    for strength in STRENGTHS:
        right = cross_validated(x, y, sets, strength) == y
        grid.append({"C": strength, "right": int(right.sum()),
                     "by_set": {name: f"{int(right[sets == name].sum())}/{int((sets == name).sum())}"
                                for name in dict.fromkeys(sets)}})
        print(f"C {strength:>4}: {int(right.sum())}/{len(y)} right, held out by set (the lines: {int(lines_right.sum())})")
    best = max(grid, key=lambda g: (g["right"], -g["C"]))
    head = LogisticRegression(C=best["C"], max_iter=5000).fit(x, y)
    order = [list(head.classes_).index(k) for k in range(len(outcome.OUTCOMES))]
    np.savez(OUT, w=head.coef_[order].astype(np.float64), b=head.intercept_[order].astype(np.float64),
             classes=np.array(outcome.OUTCOMES), C=best["C"], fitted_on=np.array(RESULTS))
    report = {"command": "python benchmarks/call_insights/fit_outcome_head.py", "calls": len(rows),
              "calls_read_by_their_ends": sum(r["promises_in_close"] is not None for r in rows),
              "lines": {"right": int(lines_right.sum()),
                        "by_set": {name: f"{int(lines_right[sets == name].sum())}/{int((sets == name).sum())}"
                                   for name in dict.fromkeys(sets)}},
              "chosen": best, "grid": grid}
    print(f"chosen C {best['C']}: {best['right']}/{len(rows)} right held out by set, the lines {int(lines_right.sum())}; "
          f"head written to {OUT.relative_to(ROOT)}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
