"""The human-rated sentiment texts of ../shared/evaldata/sentiment and their MiniLM embeddings (cached)."""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "evaldata" / "sentiment"
CACHE = ROOT / "benchmarks" / ".cache"
SOURCES = ("tweets", "movieReviewSnippets", "amazonReviewSnippets", "nytEditorialSnippets")
FIT_SOURCES = ("tweets", "movieReviewSnippets")  # the minilm head is fitted on these only
HELD_OUT = ("amazonReviewSnippets", "nytEditorialSnippets")  # and reported on these


def load(source: str) -> tuple[list[str], np.ndarray]:
    """Texts and their mean human ratings scaled from -4..4 to -1..1."""
    texts, ratings = [], []
    with open(DATA / f"{source}_GroundTruth.txt", encoding="utf-8", errors="replace") as f:
        for row in csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            if len(row) >= 3:
                texts.append("\t".join(row[2:]).strip())
                ratings.append(float(row[1]) / 4.0)
    return texts, np.asarray(ratings, dtype=np.float64)


def embeddings(source: str, texts: list[str]) -> np.ndarray:
    """Normalised MiniLM embeddings of a source's texts, computed once and cached."""
    CACHE.mkdir(parents=True, exist_ok=True)
    cached = CACHE / f"{source}.minilm.npy"
    if cached.exists():
        vectors = np.load(cached)
        if len(vectors) == len(texts):
            return vectors
    from speechproc.engines.models import load_sentence_encoder

    vectors = load_sentence_encoder().encode(texts, batch_size=64)
    np.save(cached, vectors)
    return vectors
