"""Registered text classifiers applied to the transcript (v3 `prediction.classifiers`)."""
from __future__ import annotations

from .. import classifiers
from ..config import Settings
from ..conversation import ClassifierResult, Conversation


def transcript_text(conv: Conversation) -> str:
    """The words of the transcript in order (redacted words as their replacement)."""
    return " ".join(w.w for w in conv.words if w.is_word)


def run(conv: Conversation, settings: Settings) -> None:
    if not settings.classifiers:
        return
    text = transcript_text(conv)
    results = []
    for definition in settings.classifiers:
        index, label, score = classifiers.predict(classifiers.model(definition["classifierName"]), text)
        results.append(ClassifierResult(definition["classifierId"], definition["classifierName"],
                                        definition["classifierVersion"], definition["classifierDisplayName"],
                                        label, score, index, definition.get("classifierType", "binary")))
    conv.classifiers = results
