#!/usr/bin/env python3
"""Fit the outcome head: how a call ended, from the model's answers the insights benchmark stored for it.

Each call of the read sets' stored results (RESULTS: `insights.*.result.json`, written by
`benchmarks/call_insights/insights.py`) holds the model's chances that the request was done, refused and left to a
step promised after the call (`ending`), and, for a call read by its ends, the promises by others the promise head
believes in its close (`promises_in_close`); the call's known words in its set give `outcome.said_counts`. The
head is a multinomial logistic regression over `outcome.features` of those, against the call's known outcome.
Its strength is chosen by leave-one-set-out cross-validation (the most outcomes right, ties to the stronger
regularisation); beside it are scored, on the same answers, the lines it replaced (`outcome.outcome_by_lines`)
and the head over the first eight numbers alone (without the words' counts), cross-validated the same way.
Never fitted on a set kept unread. The head (3 x 12 weights, 3 biases) is written to
src/speechproc/data/outcome_head.npz.

`--score NAME` scores a set's stored result that the head was not fitted on (`insights.NAME.result.json`,
read after the head was fitted), without fitting anything: the head as written, the head over the eight numbers
fitted on the same sets as it, and the lines.

Usage: python benchmarks/call_insights/fit_outcome_head.py [--json FILE]
       python benchmarks/call_insights/fit_outcome_head.py --score twentyninth [--json FILE]
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
sys.path.insert(0, str(HERE))

import insights as bench  # noqa: E402

from speechproc.stages.call_insights import grounding, insights, outcome  # noqa: E402

OUT = ROOT / "src" / "speechproc" / "data" / "outcome_head.npz"
# The stored results of read sets whose calls hold the model's answers on how they ended.
RESULTS = ("fresh", "fourth", "fifth", "sixth", "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth",
           "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth", "twentieth", "twentyfirst",
           "twentysecond", "twentythird", "twentyfourth", "twentyfifth", "twentysixth", "twentyseventh",
           "twentyeighth", "twentyninth", "thirtieth")
STRENGTHS = (0.3, 1.0, 3.0, 10.0, 30.0)  # scikit-learn's C: larger, less regularised
FIRST_EIGHT = 8  # the numbers the head weighed before the words' counts


def said_by_others(name: str) -> dict[str, list[float]]:
    """`outcome.said_counts` of each call of a set, from its known words as the stage reads them."""
    calls = json.loads((HERE / f"insights_{name}.json").read_text())["calls"]
    return {call["id"]: outcome.said_counts(outcome.turns_by_others(grounding.lines_of(bench.conversation(call))))
            for call in calls}


def call_rows(names: tuple[str, ...] = RESULTS) -> list[dict]:
    """Every stored call with an ending and a known outcome: its set, truth, ending (its pieces' answers combined
    as the stage combines them, `insights.call_ending`), promises in its close and its words' counts."""
    rows = []
    for name in names:
        said = said_by_others(name)
        for call in json.loads((HERE / f"insights.{name}.result.json").read_text())["calls"]:
            read = [insights.PieceAnswers(ending=outcome.Ending(**e) if e else None) for e in call.get("ending") or []]
            ending = insights.call_ending(read)
            if ending is None or not call.get("truth_outcome"):
                continue
            rows.append({"set": name, "id": call["id"], "truth": call["truth_outcome"], "ending": ending,
                         "promises_in_close": call.get("promises_in_close"), "said": said[call["id"]]})
    return rows


def matrix(rows: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    x = np.array([outcome.features(r["ending"], r["promises_in_close"], r["said"]) for r in rows])
    return x, np.array([outcome.OUTCOMES.index(r["truth"]) for r in rows])


def score(name: str) -> dict:
    """A stored result's outcomes by the head as written, by the eight-number head fitted on the same sets with the
    same strength, and by the lines, with the outcomes that obey a spoken instruction."""
    from sklearn.linear_model import LogisticRegression

    fitted = np.load(OUT)
    if name in {str(n) for n in fitted["fitted_on"]}:
        raise SystemExit(f"the head was fitted on {name}: a score there is no held-out figure")
    x, y = matrix(call_rows(tuple(str(n) for n in fitted["fitted_on"])))
    eight = LogisticRegression(C=float(fitted["C"]), max_iter=5000).fit(x[:, :FIRST_EIGHT], y)
    truths = {c["id"]: c["truth"] for c in json.loads((HERE / f"insights_{name}.json").read_text())["calls"]}
    rows = call_rows((name,))
    by = {"head": [outcome.outcome_by_head(r["ending"], r["promises_in_close"], r["said"]) for r in rows],
          "eight numbers": [outcome.OUTCOMES[int(k)] for k in eight.predict(matrix(rows)[0][:, :FIRST_EIGHT])],
          "lines": [outcome.outcome_by_lines(r["ending"], r["promises_in_close"]) for r in rows]}
    report = {"command": f"python benchmarks/call_insights/fit_outcome_head.py --score {name}", "calls": len(rows)}
    for way, given in by.items():
        report[way] = {"right": sum(g == r["truth"] for g, r in zip(given, rows)),
                       "obeyed": sum(bench.obeys(truths[r["id"]], g) for g, r in zip(given, rows)),
                       "resolved_as_follow_up": sum(g == "followUp" and r["truth"] == "resolved" for g, r in zip(given, rows)),
                       "unresolved_as_follow_up": sum(g == "followUp" and r["truth"] == "unresolved"
                                                      for g, r in zip(given, rows))}
        print(f"{way:>13}: {report[way]['right']}/{len(rows)} right, {report[way]['obeyed']} obeyed")
    return report


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
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--score", metavar="NAME", help="score insights.NAME.result.json, a set the head was not fitted on")
    args = parser.parse_args()
    if args.score:
        report = score(args.score)
        if args.json:
            args.json.write_text(json.dumps(report, indent=1) + "\n")
        return 0
    rows = call_rows()
    x, y = matrix(rows)
    sets = np.array([r["set"] for r in rows])
    lines_right = np.array([outcome.outcome_by_lines(r["ending"], r["promises_in_close"]) == r["truth"] for r in rows])
    grid = []
    for strength in STRENGTHS:
        right = cross_validated(x, y, sets, strength) == y
        eight = cross_validated(x[:, :FIRST_EIGHT], y, sets, strength) == y
        grid.append({"C": strength, "right": int(right.sum()), "right_eight_numbers": int(eight.sum()),
                     "by_set": {name: f"{int(right[sets == name].sum())}/{int((sets == name).sum())}"
                                for name in dict.fromkeys(sets)},
                     "by_set_eight_numbers": {name: f"{int(eight[sets == name].sum())}/{int((sets == name).sum())}"
                                              for name in dict.fromkeys(sets)}})
        print(f"C {strength:>4}: {int(right.sum())}/{len(y)} right, held out by set (eight numbers: {int(eight.sum())}; "
              f"the lines: {int(lines_right.sum())})")
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
