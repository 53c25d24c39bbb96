#!/usr/bin/env python3
"""Fit the promise head: which of the promise rules' items on a long call a QA reviewer would list.

On a call read by its ends (more than twice `insights.ENDS_CHARS` characters) the promise rules
(`promises.spoken_promises`) list about as many explanations of how things work ("it'll show on your
statement as ...", "the final bill will show the exact figure") as promises. The head is a logistic
regression over `promise_head.features` (the bundled MiniLM's embeddings of the item's words and of its whole
turn, and where the turn lies in the call); an item it gives less than the threshold is dropped there.

Fitted on every item the rules give that explains no routine (`promise_head.explains_routine`: those are
dropped before the head weighs them) on the insights benchmark's read sets (CALL_SETS: the dev and test halves
and the third to eighteenth sets); an item is a promise when it names one of its call's listed actions (the
benchmark's `names_promise`). Never on a set kept unread. The regularisation and the threshold are chosen by
leave-one-set-out cross-validation on the long calls: the fewest items that name no action, with at least
MIN_NAMED of the long calls' listed actions still named (the goal is 90 % of all actions found; the margin
is for calls never seen). The head (772 weights, a bias and the threshold) is written to
src/speechproc/data/promise_minilm.npz.

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
             "insights_sixteenth.json", "insights_seventeenth.json", "insights_eighteenth.json")
STRENGTHS = (0.3, 0.5, 1.0, 2.0, 3.0)  # scikit-learn's C: larger, less regularised
THRESHOLDS = (0.3, 0.325, 0.35, 0.375, 0.4, 0.425, 0.45, 0.475, 0.5)
MIN_NAMED = 0.92  # share of the long calls' listed actions still named, over the whole cross-validation


def items_of(call_sets: tuple[str, ...], encoder) -> tuple[list[dict], np.ndarray, dict[tuple[str, str], int]]:
    """Every item the rules give on the calls, with its set, call, words, whether it is long, and which of the
    call's listed actions it names; the items' `promise_head.features`; and each long call's number of listed
    actions."""
    items, rows, long_actions = [], [], {}
    for name in call_sets:
        for call in json.loads((HERE / name).read_text())["calls"]:
            long = sum(len(turn["text"]) for turn in call["turns"]) > 2 * ENDS_CHARS
            if long:
                long_actions[(name, call["id"])] = len(call["truth"]["actions"])
            lines = grounding.lines_of(bench.conversation(call))
            # those that explain a routine are dropped before the head weighs them
            weighed = [i for i in promises.spoken_promises(lines) if not promise_head.explains_routine(i.text)]
            if weighed:
                rows.append(promise_head.features(weighed, lines, encoder))
            for item in weighed:
                names = [k for k, stems in enumerate(call["truth"]["actions"]) if bench.names_promise(item.text, stems)]
                items.append({"set": name, "call": call["id"], "text": item.text, "long": long, "names": names})
    return items, np.vstack(rows).astype(np.float64), long_actions


def long_figures(items: list[dict], kept: np.ndarray) -> tuple[int, int]:
    """Over the long calls: listed actions some kept item names, and kept items that name none."""
    named = {(i["set"], i["call"], k) for i, keep in zip(items, kept) if keep and i["long"] for k in i["names"]}
    false = sum(1 for i, keep in zip(items, kept) if keep and i["long"] and not i["names"])
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
    items, x, long_actions = items_of(CALL_SETS, load_sentence_encoder(BUNDLED_SENTENCE_ENCODER))
    y = np.array([bool(i["names"]) for i in items])
    sets = np.array([i["set"] for i in items])
    every = np.ones(len(y), dtype=bool)
    named_all, false_all = long_figures(items, every)
    grid = []
    for strength in STRENGTHS:
        p = cross_validated(x, y, sets, strength)
        for threshold in THRESHOLDS:
            named, false = long_figures(items, p >= threshold)
            grid.append({"C": strength, "threshold": threshold, "actions_named": named, "false_items": false})
            print(f"C {strength:>4} threshold {threshold:.3f}: long calls' actions named {named}/{sum(long_actions.values())}"
                  f", false items {false}")
    allowed = [g for g in grid if g["actions_named"] >= MIN_NAMED * sum(long_actions.values())]
    best = min(allowed, key=lambda g: (g["false_items"], -g["actions_named"]))
    head = LogisticRegression(C=best["C"], max_iter=5000, class_weight="balanced").fit(x, y)
    np.savez(OUT, w=head.coef_[0].astype(np.float32), b=np.float32(head.intercept_[0]),
             threshold=np.float32(best["threshold"]), C=best["C"], fitted_on=np.array(CALL_SETS))
    report = {"command": "python benchmarks/call_insights/fit_promise_head.py", "items": len(items),
              "promises": int(y.sum()), "long_calls": len(long_actions), "long_actions": sum(long_actions.values()),
              "without_head": {"actions_named": named_all, "false_items": false_all}, "min_named": MIN_NAMED,
              "chosen": best, "grid": grid}
    print(f"without the head: long calls' actions named {named_all}, false items {false_all}; chosen C {best['C']}, "
          f"threshold {best['threshold']}; {len(items)} items ({int(y.sum())} promises); head written to "
          f"{OUT.relative_to(ROOT)}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
