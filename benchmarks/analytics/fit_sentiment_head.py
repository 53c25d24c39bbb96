#!/usr/bin/env python3
"""Fit the `minilm` sentiment engine: ridge regression from MiniLM embeddings to human ratings.

Fitted on the tweets and movie-review snippets of ../shared/evaldata/sentiment only (14,803 texts);
the Amazon and New York Times snippets are kept out for `benchmarks/analytics/sentiment.py` to report on.
The ridge strength, and the neutral band of the scores that best reproduces the 3 classes of the
ratings, are chosen by 5-fold cross-validation inside the fitting sources. The head (384 weights,
a bias and the band) is written to src/speechproc/data/sentiment_minilm.npz.

Usage: python benchmarks/analytics/fit_sentiment_head.py
"""
from __future__ import annotations

import numpy as np
from sentiment_data import FIT_SOURCES, ROOT, embeddings, load

ALPHAS = (0.3, 1.0, 3.0, 10.0, 30.0)
BANDS = tuple(round(0.025 * i, 3) for i in range(1, 11))
TRUTH_BAND = 0.5 / 4  # a mean human rating within +-0.5 of the -4..4 scale is neutral
OUT = ROOT / "src" / "speechproc" / "data" / "sentiment_minilm.npz"


def ridge(x: np.ndarray, y: np.ndarray, alpha: float) -> tuple[np.ndarray, float]:
    mx, my = x.mean(axis=0), y.mean()
    xc = x - mx
    w = np.linalg.solve(xc.T @ xc + alpha * np.eye(x.shape[1]), xc.T @ (y - my))
    return w, float(my - mx @ w)


def cross_validated_predictions(x: np.ndarray, y: np.ndarray, alpha: float, folds: int = 5) -> np.ndarray:
    order = np.random.default_rng(0).permutation(len(y))
    predicted = np.zeros_like(y)
    for k in range(folds):
        test = order[k::folds]
        train = np.setdiff1d(order, test)
        w, b = ridge(x[train], y[train], alpha)
        predicted[test] = np.clip(x[test] @ w + b, -1, 1)
    return predicted


def best_band(predicted: np.ndarray, y: np.ndarray) -> float:
    """The neutral band of the scores that best reproduces the ratings' 3 classes (cross-validated)."""
    truth = np.where(y > TRUTH_BAND, 1, np.where(y < -TRUTH_BAND, -1, 0))
    accuracy = {band: np.mean(np.where(predicted > band, 1, np.where(predicted < -band, -1, 0)) == truth)
                for band in BANDS}
    return max(accuracy, key=accuracy.get)


def main() -> None:
    xs, ys = [], []
    for source in FIT_SOURCES:
        texts, ratings = load(source)
        xs.append(embeddings(source, texts))
        ys.append(ratings)
    x, y = np.concatenate(xs).astype(np.float64), np.concatenate(ys)
    predictions = {alpha: cross_validated_predictions(x, y, alpha) for alpha in ALPHAS}
    scores = {alpha: float(np.mean((p - y) ** 2)) for alpha, p in predictions.items()}
    for alpha, mse in scores.items():
        print(f"alpha {alpha:>5}: cross-validated MSE {mse:.4f}")
    best = min(scores, key=scores.get)
    band = best_band(predictions[best], y)
    w, b = ridge(x, y, best)
    np.savez(OUT, w=w.astype(np.float32), b=np.float32(b), alpha=best, neutral_band=band,
             fitted_on=np.array(FIT_SOURCES))
    print(f"alpha {best}, neutral band +-{band}; {len(y)} texts from {', '.join(FIT_SOURCES)}; "
          f"head written to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
