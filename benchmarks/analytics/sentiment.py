#!/usr/bin/env python3
"""Both sentiment engines against human ratings (../shared/evaldata/sentiment, 23,699 texts).

Per source: Pearson correlation of the engine's score with the mean human rating, and 3-class
accuracy (negative / neutral / positive). Neutral bands: a human mean rating within +-0.5 on the
-4..4 scale; a VADER compound score within +-0.05 (its authors' convention); a minilm score within
the band chosen when the head was fitted (cross-validated on the fitting sources only).
The minilm head was fitted on tweets and movie reviews (benchmarks/analytics/fit_sentiment_head.py), so its
honest figures are those on the held-out Amazon and NYT snippets; VADER's lexicon was built with
these raters, which flatters it on every source. Speed is sentences per second on this machine
(minilm: embedding included; one-time model loads excluded).

Usage: python benchmarks/analytics/sentiment.py [--json benchmarks/analytics/sentiment.result.json]
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from sentiment_data import FIT_SOURCES, HELD_OUT, SOURCES, embeddings, load

TRUTH_BAND = 0.5 / 4
BANDS = {"vader": 0.05}


def classes(values: np.ndarray, band: float) -> np.ndarray:
    return np.where(values > band, 1, np.where(values < -band, -1, 0))


def evaluate(scores: np.ndarray, ratings: np.ndarray, band: float) -> dict[str, float]:
    return {"pearson": round(float(np.corrcoef(scores, ratings)[0, 1]), 3),
            "accuracy3": round(float(np.mean(classes(scores, band) == classes(ratings, TRUTH_BAND))), 3),
            "texts": int(len(ratings))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    from speechproc.engines.models import load_sentence_encoder
    from speechproc.stages.analytics.sentiment import HEAD, minilm_scores, vader_scores

    BANDS["minilm"] = float(np.load(HEAD)["neutral_band"])
    encoder = load_sentence_encoder()
    vader_scores(["warm up"])
    result: dict = {"fit_sources": list(FIT_SOURCES), "held_out": list(HELD_OUT), "bands": BANDS,
                    "truth_band": TRUTH_BAND, "engines": {"vader": {}, "minilm": {}}}
    pooled: dict[str, list] = {"vader": [[], []], "minilm": [[], []]}
    for source in SOURCES:
        texts, ratings = load(source)
        scores = {"vader": np.array(vader_scores(texts)),
                  "minilm": np.array(minilm_scores(embeddings(source, texts)))}
        for engine, values in scores.items():
            row = evaluate(values, ratings, BANDS[engine])
            row["fitted_on_this_source"] = engine == "minilm" and source in FIT_SOURCES
            result["engines"][engine][source] = row
            if source in HELD_OUT:
                pooled[engine][0].append(values)
                pooled[engine][1].append(ratings)
            print(f"{engine:7s} {source:22s} r={row['pearson']:.3f} acc3={row['accuracy3']:.3f}"
                  f"{'  (fitted here)' if row['fitted_on_this_source'] else ''}")
    for engine, (values, ratings) in pooled.items():
        row = evaluate(np.concatenate(values), np.concatenate(ratings), BANDS[engine])
        result["engines"][engine]["held_out_pooled"] = row
        print(f"{engine:7s} {'held-out pooled':22s} r={row['pearson']:.3f} acc3={row['accuracy3']:.3f}")

    sample, _ = load("tweets")
    sample = sample[:2000]
    started = time.perf_counter()
    vader_scores(sample)
    vader_rate = len(sample) / (time.perf_counter() - started)
    started = time.perf_counter()
    minilm_scores(encoder.encode(sample, batch_size=64))
    minilm_rate = len(sample) / (time.perf_counter() - started)
    result["sentences_per_second"] = {"vader": round(vader_rate), "minilm": round(minilm_rate)}
    print(f"speed: vader {vader_rate:.0f} sentences/s, minilm {minilm_rate:.0f} sentences/s")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
