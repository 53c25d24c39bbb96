"""Sentence sentiment with both engines, and speakerSentiments in the v3 shape."""
from __future__ import annotations

import pytest

from speechproc.formats.v3json import results_json
from speechproc.stages.analytics import sentiment
from speechproc.stages.options import SentimentOptions
from text_helpers import conversation, run_stage, stage_options

POSITIVE = "Thank you so much, that is wonderful news and you were very helpful."
NEGATIVE = "This is terrible service, I am angry and I hate waiting for hours."
NEUTRAL = "The invoice number is on the second page."


def settings(engine: str, **extra) -> SentimentOptions:
    return stage_options({"speakerSentiments": True, "speechproc": {"sentimentEngine": engine}, **extra}).sentiment


@pytest.mark.parametrize("engine", ["vader", pytest.param("minilm", marks=pytest.mark.slow)])
def test_both_engines_order_positive_neutral_negative(engine):
    conv = conversation(("Agent", POSITIVE), ("Caller", NEUTRAL), ("Caller", NEGATIVE))
    sentiment.run(conv, settings(engine))
    positive, neutral, negative = (s.sentiment for s in conv.sentences)
    assert positive > 0.3 and negative < -0.3 and -1 <= negative < neutral < positive <= 1
    assert abs(neutral) < 0.3


def test_speaker_sentiments_has_one_value_per_sentence_with_its_times():
    conv = conversation(("Agent", f"{POSITIVE} {NEUTRAL}"), ("Caller", NEGATIVE))
    conv.diarized_speakers = ["Agent", "Caller"]
    sentiment.run(conv, settings("vader"))
    body = results_json(conv)["speakerSentiments"]
    assert [b["speakerName"] for b in body] == ["Agent", "Caller"]
    agent = body[0]["sentimentValues"]
    assert len(agent) == 2 and agent[0]["v"] > 0.3 and agent[1]["s"] > agent[0]["e"]
    first = conv.sentences[0]
    assert agent[0] == {"s": first.s, "e": first.e, "v": first.sentiment}


def test_not_run_unless_asked_and_english_only():
    conv = conversation(("Agent", POSITIVE))
    assert not run_stage("sentiment", conv, {})
    assert conv.sentences[0].sentiment is None and "speakerSentiments" not in results_json(conv)
    sentiment.run(conv, settings("vader", speechModel={"language": "de-DE"}))
    assert conv.sentences[0].sentiment is None and conv.warnings[0][0] == 10603


def test_the_minilm_head_rejects_embeddings_of_another_size():
    import numpy as np

    from speechproc.errors import SpeechprocError

    with pytest.raises(SpeechprocError, match="384-dimensional"):
        sentiment.minilm_scores(np.zeros((1, 768), dtype=np.float32))
