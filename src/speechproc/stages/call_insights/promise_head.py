"""Which of the promise rules' items on a call read by its ends a QA reviewer would list (`believed`).

A long call explains much of what will happen ("it'll show on your statement as ...", "the final bill will
show the exact figure"), and the promise rules (`promises`) list such explanations about as often as real
promises. The head, a logistic regression over the bundled MiniLM embedding of an item's words, gives each
item a chance of being a promise; an item under its threshold is dropped. It was fitted, and its threshold
chosen, by `benchmarks/call_insights/fit_promise_head.py` on the insights benchmark's read sets, never on a set
held out to report on (docs/benchmarks.md, "Long calls: action items").

Before the head, an item that says what usually or automatically happens and promises nothing in the first
person ("it'll go into your account, normally within three days", "you'll get an email, that's automatic")
is dropped as an explanation of how things work (`explains_routine`): on the read sets' long calls that took
out a sixth of the false items the head kept, and no listed action.

Calls read whole (up to twice `insights.ENDS_CHARS` characters, or under `insightsRead: whole`) keep every
item the rules give: there the rules list few explanations, and the head would cost more promises than
explanations.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from speechproc import errors as E
from speechproc.conversation import PromisedAction
from speechproc.engines.models import BUNDLED_SENTENCE_ENCODER
from speechproc.engines.sentence_encoder import SentenceEncoder

# What usually or automatically happens, and the first-person future that makes such a clause a promise still
# ("it usually takes two weeks, and we'll text you when it's in").
_ROUTINE = re.compile(r"\b(usually|normally|typically|generally|automatic|automatically|on its own|just happens"
                      r"|most people|sometimes|always)\b", re.IGNORECASE)
_FIRST_PERSON_FUTURE = re.compile(r"\b(i'?ll|i will|we'?ll|we will|i'm going to|we're going to|i am going to"
                                  r"|we are going to|i'm gonna|ill)\b", re.IGNORECASE)
HEAD = Path(__file__).resolve().parents[2] / "data" / "promise_minilm.npz"


@lru_cache(maxsize=1)
def _head() -> tuple[np.ndarray, float, float]:
    data = np.load(HEAD)
    return data["w"].astype(np.float32), float(data["b"]), round(float(data["threshold"]), 6)


def chances(texts: Sequence[str], encoder: SentenceEncoder) -> list[float]:
    """Each text's chance of being a promise a reviewer would list, by the head over `encoder`'s embeddings (the
    bundled MiniLM's: the head was fitted on them)."""
    if not texts:
        return []
    w, b, _ = _head()
    rows = np.asarray(encoder.encode(list(texts)), dtype=np.float32)
    if rows.ndim != 2 or rows.shape[1] != w.shape[0]:
        raise E.SpeechprocError(E.MODEL_UNAVAILABLE, f"the promise head needs {w.shape[0]}-dimensional "
                                f"{BUNDLED_SENTENCE_ENCODER} embeddings, the encoder gives {rows.shape[-1]}", status=500)
    return [float(v) for v in 1.0 / (1.0 + np.exp(-(rows @ w + b)))]


def explains_routine(text: str) -> bool:
    """Whether an item says what usually or automatically happens, with no first-person future in it."""
    return bool(_ROUTINE.search(text)) and not _FIRST_PERSON_FUTURE.search(text)


def believed(items: Sequence[PromisedAction], encoder: SentenceEncoder) -> list[PromisedAction]:
    """The items that explain no routine (`explains_routine`) and whose chance (`chances`) reaches the head's
    threshold, in their order."""
    threshold = _head()[2]
    weighed = [item for item in items if not explains_routine(item.text)]
    return [item for item, chance in zip(weighed, chances([i.text for i in weighed], encoder)) if chance >= threshold]
