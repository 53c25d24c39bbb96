#!/usr/bin/env python3
"""Fit the promise head: which of the promise rules' items on a long call a QA reviewer would list.

On a call read by its ends (more than twice `insights.ENDS_CHARS` characters) the promise rules
(`promises.spoken_promises`) list about as many explanations of how things work ("it'll show on your
statement as ...", "the final bill will show the exact figure") as promises. The head is a logistic
regression over `promise_head.features` (the bundled MiniLM's embeddings of the item's words and of its whole
turn, and where the turn lies in the call); an item it gives less than the threshold is dropped there.

Fitted on every item the rules give that explains no routine (`promise_head.explains_routine`: those are
dropped before the head weighs them) on the insights benchmark's read sets (CALL_SETS: the dev and test halves
and the third to twenty-sixth sets); an item is a promise when it names one of its call's listed actions (the
benchmark's `names_promise`). Never on a set kept unread. The regularisation and the threshold are chosen by
leave-one-set-out cross-validation, scoring the items as the stage keeps them (on a call read by its ends the
items the head believes; on a call read whole those said in the first person and the others it believes): the
most listed actions named less a third of the items that name none (`FALSE_PER_ACTION`: one action found is
worth three false items removed), ties to the more actions named. The head (772 weights, a bias and the
threshold) is written to src/speechproc/data/promise_minilm.npz.

Usage: python benchmarks/call_insights/fit_promise_head.py [--json FILE]
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

from speechproc.engines.models import BUNDLED_SENTENCE_ENCODER, load_sentence_encoder  # noqa: E402
from speechproc.stages.call_insights import grounding, promise_head, promises  # noqa: E402
from speechproc.stages.call_insights.insights import ENDS_CHARS  # noqa: E402

OUT = ROOT / "src" / "speechproc" / "data" / "promise_minilm.npz"
# The sets read before the head was fitted; never one kept unread to report on.
CALL_SETS = ("insights_calls.json", "insights_fresh.json", "insights_fourth.json", "insights_fifth.json",
             "insights_sixth.json", "insights_seventh.json", "insights_eighth.json",
             "insights_ninth.json", "insights_tenth.json", "insights_eleventh.json", "insights_twelfth.json",
             "insights_thirteenth.json", "insights_fourteenth.json", "insights_fifteenth.json",
             "insights_sixteenth.json", "insights_seventeenth.json", "insights_eighteenth.json",
             "insights_nineteenth.json", "insights_twentieth.json", "insights_twentyfirst.json",
             "insights_twentysecond.json", "insights_twentythird.json", "insights_twentyfourth.json",
             "insights_twentyfifth.json", "insights_twentysixth.json")
STRENGTHS = (0.3, 0.5, 1.0, 2.0, 3.0)  # scikit-learn's C: larger, less regularised
THRESHOLDS = (0.3, 0.325, 0.35, 0.375, 0.4, 0.425, 0.45, 0.475, 0.5)
FALSE_PER_ACTION = 3  # false items removed that are worth one listed action found


def items_of(call_sets: tuple[str, ...], encoder) -> tuple[list[dict], np.ndarray, dict[tuple[str, str], int]]:
    """Every item the rules give on the calls, with its set, call, words, whether its call is long, whether it is
    said in the first person, and which of the call's listed actions it names; the items' `promise_head.features`;
    and each call's number of listed actions."""
    items, rows, actions = [], [], {}
    for name in call_sets:
        for call in json.loads((HERE / name).read_text())["calls"]:
            long = sum(len(turn["text"]) for turn in call["turns"]) > 2 * ENDS_CHARS
            actions[(name, call["id"])] = len(call["truth"]["actions"])
            lines = grounding.lines_of(bench.conversation(call))
            # those that explain a routine are dropped before the head weighs them
            weighed = [i for i in promises.spoken_promises(lines) if not promise_head.explains_routine(i.text)]
            if weighed:
                rows.append(promise_head.features(weighed, lines, encoder))
            for item in weighed:
                names = [k for k, stems in enumerate(call["truth"]["actions"]) if bench.names_promise(item.text, stems)]
                items.append({"set": name, "call": call["id"], "text": item.text, "long": long,
                              "first_person": promise_head.in_first_person(item.text), "names": names})
    return items, np.vstack(rows).astype(np.float64), actions


def figures(items: list[dict], believed: np.ndarray, only_long: bool = False) -> tuple[int, int]:
    """Listed actions some kept item names, and kept items that name none, when the stage keeps the items the head
    believes (`believed`) and, on a call read whole, every item said in the first person; over every call, or
    over the long calls alone."""
    kept = [(b or (i["first_person"] and not i["long"])) and (i["long"] or not only_long)
            for i, b in zip(items, believed)]
    named = {(i["set"], i["call"], k) for i, keep in zip(items, kept) if keep for k in i["names"]}
    false = sum(1 for i, keep in zip(items, kept) if keep and not i["names"])
    return len(named), false


def cross_validated(x: np.ndarray, y: np.ndarray, sets: np.ndarray, strength: float) -> np.ndarray:
    """Each item's probability from a head fitted on the other sets."""
    from sklearn.linear_model import LogisticRegression

    p = np.ones(len(y))
    for held in dict.fromkeys(sets):
        fit = sets != held
        head = LogisticRegression(C=strength, max_iter=5000, class_weight="balanced").fit(x[fit], y[fit])
        p[~fit] = head.predict_proba(x[~fit])[:, 1]
    return p


def main() -> int:
    from sklearn.linear_model import LogisticRegression

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="write the cross-validation figures here")
    args = parser.parse_args()
    items, x, actions = items_of(CALL_SETS, load_sentence_encoder(BUNDLED_SENTENCE_ENCODER))
    y = np.array([bool(i["names"]) for i in items])
    sets = np.array([i["set"] for i in items])
    every = np.ones(len(y), dtype=bool)
    named_all, false_all = figures(items, every)
    long_calls = {(i["set"], i["call"]) for i in items if i["long"]}
    grid = []
    for strength in STRENGTHS:
        p = cross_validated(x, y, sets, strength)
        for threshold in THRESHOLDS:
            named, false = figures(items, p >= threshold)
            long_named, long_false = figures(items, p >= threshold, only_long=True)
            grid.append({"C": strength, "threshold": threshold, "actions_named": named, "false_items": false,
                         "long_actions_named": long_named, "long_false_items": long_false,
                         "score": round(named - false / FALSE_PER_ACTION, 2)})
            print(f"C {strength:>4} threshold {threshold:.3f}: actions named {named}/{sum(actions.values())}, false "
                  f"items {false} (long calls: {long_named}, {long_false})")
    best = max(grid, key=lambda g: (g["score"], g["actions_named"]))
    head = LogisticRegression(C=best["C"], max_iter=5000, class_weight="balanced").fit(x, y)
    np.savez(OUT, w=head.coef_[0].astype(np.float32), b=np.float32(head.intercept_[0]),
             threshold=np.float32(best["threshold"]), C=best["C"], fitted_on=np.array(CALL_SETS))
    report = {"command": "python benchmarks/call_insights/fit_promise_head.py", "items": len(items),
              "promises": int(y.sum()), "calls": len(actions), "actions": sum(actions.values()),
              "long_calls": len(long_calls), "long_actions": sum(actions[c] for c in long_calls),
              "without_head": {"actions_named": named_all, "false_items": false_all},
              "false_per_action": FALSE_PER_ACTION, "chosen": best, "grid": grid}
    print(f"without the head: actions named {named_all}, false items {false_all}; chosen C {best['C']}, "
          f"threshold {best['threshold']}; {len(items)} items ({int(y.sum())} promises); head written to "
          f"{OUT.relative_to(ROOT)}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
