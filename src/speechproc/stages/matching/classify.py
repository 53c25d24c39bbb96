"""Registered text classifiers applied to the transcript (v3 `prediction.classifiers`)."""
from __future__ import annotations

from collections.abc import Sequence

from speechproc.configuration import ClassifierDefinition
from speechproc.conversation import ClassifierPrediction, Conversation
from speechproc.engines import classifiers


def transcript_text(conv: Conversation) -> str:
    """The words of the transcript in order (redacted words as their replacement)."""
    return " ".join(w.w for w in conv.words if w.is_word)


def run(conv: Conversation, definitions: Sequence[ClassifierDefinition]) -> None:
    """Apply every registered classifier (definitions as stored) to the transcript's text."""
    text = transcript_text(conv)
    results = []
    for definition in definitions:
        index, label, score = classifiers.predict(classifiers.model(definition["classifierName"]), text)
        results.append(ClassifierPrediction(definition["classifierId"], definition["classifierName"],
                                        definition["classifierVersion"], definition["classifierDisplayName"],
                                        label, score, index, definition.get("classifierType", "binary")))
    conv.classifiers = results
