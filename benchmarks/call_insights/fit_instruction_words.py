#!/usr/bin/env python3
"""Fit the word model of spoken instructions (`spoken_instructions.WordModel`): a logistic regression over a
sentence's words and word pairs, which catches instructions to the transcript's reader that no rule names.

Fitted on the instructions and ordinary turns of the sets already read (`instructions_dev.json`,
`instructions_heldout.json`, `instructions_last.json`, `instructions_fourth.json`), on the ordinary turns of the
first two insights call sets and the personal-data calls (CALL_SETS, 1,398 turns) and, where ../shared is beside
the checkout, on 23,807 ordinary English texts (../shared/evaldata: the reference transcripts and the human-rated
sentiment snippets). Every text is used as written and as a recogniser without punctuation gives it.
`instructions_fifth.json` and `instructions_sixth.json` are never read here.

The words and pairs are those said in at least two of the calls' turns and the sets' turns (the other texts
only weigh them). The regularisation and the line are chosen by 5-fold cross-validation: the line that catches the most
instructions while wrongly taking at most 0.5 % of the sets' ordinary turns, none of the calls' turns, and at
most 0.02 % of the other ordinary texts. The model is written to src/speechproc/data/spoken_instruction_words.json.

Usage: python benchmarks/call_insights/fit_instruction_words.py
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(HERE))

from instructions import call_turns, unpunctuated  # noqa: E402

from speechproc.stages.call_insights import spoken_instructions  # noqa: E402

SETS = ("dev", "heldout", "last", "fourth")
# The insights call sets whose turns the shipped model was fitted on (later sets only measure it).
CALL_SETS = ("insights_calls.json", "insights_fresh.json")
SHARED = ROOT.parent / "shared" / "evaldata"
C_GRID = (0.3, 1.0, 3.0, 10.0)
FOLDS, SEED = 5, 20261129
NEAR_MISS_SHARE, CALL_TURNS_WRONG, OTHER_SHARE = 0.005, 0, 0.0002


def ordinary_texts() -> list[str]:
    """Ordinary English from ../shared, when it is there: reference transcripts and sentiment snippets."""
    texts: list[str] = []
    manifest = SHARED / "wer-manifest.tsv"
    if manifest.is_file():
        texts += [line.split("\t")[2] for line in manifest.read_text().splitlines() if line.count("\t") >= 2]
    for path in sorted((SHARED / "sentiment").glob("*_GroundTruth.txt")):
        texts += [line.split("\t")[2] for line in path.read_text(errors="ignore").splitlines() if line.count("\t") >= 2]
    return texts


def main() -> int:
    instructions: list[str] = []
    near_misses: list[str] = []
    for name in SETS:
        data = json.loads((HERE / f"instructions_{name}.json").read_text())
        instructions += [item["text"] for item in data["injections"]]
        near_misses += [item["text"] for item in data["benign"]]
    turns, other = call_turns(CALL_SETS), ordinary_texts()
    texts = instructions + near_misses + turns + other
    kind = np.array([0] * len(instructions) + [1] * len(near_misses) + [2] * len(turns) + [3] * len(other))
    plain = [spoken_instructions.plain(t) for t in texts] + [spoken_instructions.plain(unpunctuated(t)) for t in texts]
    kind2 = np.concatenate([kind, kind])
    y = (kind2 == 0).astype(int)
    fold = np.tile(np.random.default_rng(SEED).integers(0, FOLDS, len(texts)), 2)  # both forms of a text together

    def vectoriser() -> CountVectorizer:
        return CountVectorizer(ngram_range=(1, 2), binary=True, min_df=2, token_pattern=r"[a-z0-9']+")

    best = None
    for c in C_GRID:
        scores = np.zeros(len(plain))
        for k in range(FOLDS):
            train = fold != k
            vec = vectoriser().fit([p for p, t, k in zip(plain, train, kind2) if t and k != 3])
            model = LogisticRegression(C=c, class_weight="balanced", max_iter=5000)
            model.fit(vec.transform([p for p, t in zip(plain, train) if t]), y[train])
            scores[~train] = model.decision_function(vec.transform([p for p, t in zip(plain, train) if not t]))
        for line in np.arange(0.0, 8.01, 0.25):
            taken = scores >= line
            wrong_near = taken[kind2 == 1].mean()
            wrong_turns = int(taken[kind2 == 2].sum())
            wrong_other = taken[kind2 == 3].mean() if (kind2 == 3).any() else 0.0
            if wrong_near <= NEAR_MISS_SHARE and wrong_turns <= CALL_TURNS_WRONG and wrong_other <= OTHER_SHARE:
                recall = taken[kind2 == 0].mean()
                if best is None or recall > best["recall"]:
                    best = {"C": c, "line": float(line), "recall": float(recall), "near_miss_taken": float(wrong_near),
                            "call_turns_taken": wrong_turns, "other_taken": float(wrong_other)}
                break
    assert best is not None
    vec = vectoriser().fit([p for p, k in zip(plain, kind2) if k != 3])
    model = LogisticRegression(C=best["C"], class_weight="balanced", max_iter=5000).fit(vec.transform(plain), y)
    weights = {gram: round(float(w), 4) for gram, w in zip(vec.get_feature_names_out(), model.coef_[0])
               if abs(w) >= 1e-4}
    out = {"about": "Logistic regression over a sentence's words and word pairs (binary); a sentence is taken "
                    "when bias + the sum of its grams' weights reaches line. Fitted by "
                    "benchmarks/call_insights/fit_instruction_words.py.",
           "fitted_on": {"sets": list(SETS), "instructions": len(instructions), "near_misses": len(near_misses),
                         "call_turns": len(turns), "other_texts": len(other), "forms": ["as written", "unpunctuated"]},
           "cross_validation": {k: round(v, 4) if isinstance(v, float) else v for k, v in best.items()},
           "bias": round(float(model.intercept_[0]), 4), "line": best["line"], "weights": dict(sorted(weights.items()))}
    target = spoken_instructions.WORD_MODEL
    target.write_text(json.dumps(out, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in out.items() if k != "weights"}, indent=1), f"\n{len(weights)} weights -> {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
