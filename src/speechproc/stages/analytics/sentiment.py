"""Sentence sentiment in -1..1 with one of two offline engines.

`vader`: VADER's lexicon and rules (its compound score). Fast, no model.
`minilm`: a linear head over the bundled MiniLM sentence embeddings, fitted by
`benchmarks/analytics/fit_sentiment_head.py` on human-rated tweets and movie-review snippets.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from speechproc import errors as E
from speechproc.conversation import Conversation, Sentence
from speechproc.engines import inventory
from speechproc.engines.models import BUNDLED_SENTENCE_ENCODER, load_sentence_encoder, load_vader
from speechproc.stages.options import ENGLISH, SentimentOptions
from speechproc.stages.recognition import embed, embeddings

HEAD = Path(__file__).resolve().parents[2] / "data" / "sentiment_minilm.npz"


@lru_cache(maxsize=1)
def _head() -> tuple[np.ndarray, float]:
    data = np.load(HEAD)
    return data["w"].astype(np.float32), float(data["b"])


def vader_scores(texts: list[str]) -> list[float]:
    analyser = load_vader()
    return [float(analyser.polarity_scores(t)["compound"]) for t in texts]


def minilm_scores(embeddings: np.ndarray) -> list[float]:
    """Scores from normalised MiniLM embeddings (rows) through the fitted head, clipped to -1..1."""
    w, b = _head()
    if embeddings.shape[1] != w.shape[0]:
        raise E.SpeechprocError(E.MODEL_UNAVAILABLE, f"the minilm sentiment head needs {w.shape[0]}-dimensional "
                                f"{BUNDLED_SENTENCE_ENCODER} embeddings, the encoder gives {embeddings.shape[1]}",
                                status=500)
    return [float(v) for v in np.clip(embeddings @ w + b, -1.0, 1.0)]


def score(sentences: list[Sentence], options: SentimentOptions) -> None:
    """Set `sentiment` on every sentence with the configured engine."""
    if not sentences:
        return
    if options.engine == "minilm":
        embed(sentences, options.sentence_encoder)
        values = minilm_scores(embeddings(sentences))
    else:
        values = vader_scores([s.text for s in sentences])
    for sentence, value in zip(sentences, values):
        sentence.sentiment = round(value, 4)


def needed(options: SentimentOptions) -> bool:
    """Sentence sentiment is asked for: per speaker (speakerSentiments) or by the sentiment metrics."""
    return options.per_speaker or options.for_metrics


def needs(options: SentimentOptions) -> tuple[str, ...]:
    """The engine's bundled model (`inventory` keys), when sentiment is asked for in English."""
    if not needed(options) or not options.english:
        return ()
    if options.engine == "vader":
        return (inventory.VADER,)
    return (inventory.MINILM,) if options.sentence_encoder == BUNDLED_SENTENCE_ENCODER else ()


def prepare(options: SentimentOptions) -> None:
    """Load what `run` will need: the engine's model."""
    if options.english:
        if options.engine == "minilm":
            load_sentence_encoder(options.sentence_encoder)
        else:
            load_vader()


def run(conv: Conversation, options: SentimentOptions) -> None:
    conv.speaker_sentiments = options.per_speaker
    if not options.english:
        conv.warn(E.FEATURE_NOT_AVAILABLE, f"sentiment is not available for {options.language} "
                  f"(only {', '.join(ENGLISH)}); sentiment metrics are 0 and speakerSentiments is empty")
        return
    score(conv.sentences, options)
