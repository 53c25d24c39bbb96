"""Which of the promise rules' items a QA reviewer would list (`believed`, `believed_in_whole_call`).

A long call explains much of what will happen ("it'll show on your statement as ...", "the final bill will
show the exact figure"), and the promise rules (`promises`) list such explanations about as often as real
promises. The head, a logistic regression, gives each item a chance of being a promise from the bundled MiniLM
embeddings of the item's words and of its whole turn, and from where the turn lies in the call (how far in,
whether the caller said it, whether it is among the first or the last turns: `features`); an item under its
threshold is dropped. It was fitted, and its threshold chosen, by `benchmarks/call_insights/fit_promise_head.py`
on the insights benchmark's read sets, never on a set held out to report on (docs/benchmarks.md, "Long calls:
action items").

Before the head, an item that says what usually or automatically happens and promises nothing in the first
person ("it'll go into your account, normally within three days", "you'll get an email, that's automatic")
is dropped as an explanation of how things work (`explains_routine`): on the read sets' long calls that took
out a sixth of the false items the head kept, and no listed action. On either reading, an item that tells what a
booked visit will be like ("On the day, he'll carry the new one in, set it up, tune it") and promises nothing in
the first person is dropped before the head too (`tells_of_visit`).

On a call read whole (up to twice `insights.ENDS_CHARS` characters, or under `insightsRead: whole`) the head
weighs only the items not said in the first person (`believed_in_whole_call`): there nearly every "I'll" or
"we'll" the rules list is a promise, the head lets some of them go, and the routine rule costs more promises
than explanations; what it drops is a policy or an account of what will happen ("you'll get a full refund if
you cancel two days before", "he'll be done by about eleven"). On the read sets' calls read whole that took
out 28 of the 58 false items for 3 of the 345 listed actions (docs/benchmarks.md, "The promise head on calls
read whole"). On either reading, a message a system sends by itself ("you'll get an automated confirmation email",
"a confirmation from the system", "you'll get a reminder text the day before"), not promised in the first person, is
dropped before the head (`sent_automatically`).
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
from speechproc.stages.call_insights.grounding import Line

# What usually or automatically happens, and the first-person future that makes such a clause a promise still
# ("it usually takes two weeks, and we'll text you when it's in").
_AUTOMATIC_WORDS = r"automatic|automatically|automated"
_ROUTINE = re.compile(r"\b(usually|normally|typically|generally|" + _AUTOMATIC_WORDS + r"|on its own|just happens"
                      r"|most people|sometimes|always)\b", re.IGNORECASE)
# What a machine sends by itself ("you'll get an automated text", "a confirmation from the system", "you'll get a
# reminder text the day before", "you'll get an email receipt"): no one's promise on
# any call, where "usually" may be part of one on a short call.
_AUTOMATIC = re.compile(r"\b(" + _AUTOMATIC_WORDS + r"|auto-generated|from the (booking |our )?system)\b"
                        r"|\byou('ll| will) (also )?(get|receive) (an?|the|your) ([\w-]+ ){0,2}?(reminder|receipt)\b",
                        re.IGNORECASE)
_FIRST_PERSON_FUTURE = re.compile(r"\b(i'?ll|i will|we'?ll|we will|i'm going to|we're going to|i am going to"
                                  r"|we are going to|i'm gonna|ill)\b", re.IGNORECASE)
# What a booked visit will be like, told so the caller knows what to expect ("On the day, he'll carry the new one in,
# set it up, tune it"; "What happens is he'd sit down with you ..."): the booking is the promise, not its account.
_ACCOUNT_OF_VISIT = re.compile(r"^\W*(?:(?:and|so|then|just so you know)\W+)?on the day\b|\bwhat to expect\b"
                               r"|\bwhat (?:normally |usually )?happens (?:is|then|next)\b", re.IGNORECASE)
HEAD = Path(__file__).resolve().parents[2] / "data" / "promise_minilm.npz"


# Where a turn lies: among the call's first FIRST_TURNS turns, or its last LAST_TURNS.
FIRST_TURNS = 4
LAST_TURNS = 8
PLACE_FEATURES = 4  # how far in, said by the caller, among the first turns, among the last


@lru_cache(maxsize=1)
def _head() -> tuple[np.ndarray, float, float]:
    data = np.load(HEAD)
    return data["w"].astype(np.float32), float(data["b"]), round(float(data["threshold"]), 6)


def _turns_of(items: Sequence[PromisedAction], lines: Sequence[Line]) -> list[int]:
    """The index in `lines` of the turn that says each item (the same start and speaker, else the nearest
    start)."""
    if items and not lines:
        raise ValueError("promised items need the lines they were said in")
    by_start = {(line.s, line.speaker): k for k, line in reversed(list(enumerate(lines)))}

    def nearest(start: int) -> int:
        return min(range(len(lines)), key=lambda k: abs(lines[k].s - start))

    return [k if (k := by_start.get((item.s, item.speaker))) is not None else nearest(item.s) for item in items]


def place(turn: int, speaker: str, turns: int) -> list[float]:
    """Where a turn lies in a call of `turns` turns: the share of the call before it, whether the caller said it,
    whether it is among the first FIRST_TURNS, whether among the last LAST_TURNS."""
    return [turn / max(1, turns), float(speaker.strip().lower() == "caller"), float(turn < FIRST_TURNS),
            float(turns - turn < LAST_TURNS)]


def features(items: Sequence[PromisedAction], lines: Sequence[Line], encoder: SentenceEncoder) -> np.ndarray:
    """One row per item: `encoder`'s embedding of the item's words, of its whole turn in `lines` (the call's
    turns as the model reads them), and the turn's `place`."""
    turns = _turns_of(items, lines)
    said = np.asarray(encoder.encode([item.text for item in items]), dtype=np.float32)
    whole = np.asarray(encoder.encode([lines[k].text for k in turns]), dtype=np.float32)
    where = np.asarray([place(k, item.speaker, len(lines)) for item, k in zip(items, turns)], dtype=np.float32)
    if said.ndim != 2 or whole.shape != said.shape:
        raise E.SpeechprocError(E.MODEL_UNAVAILABLE, "the sentence encoder gave no row per text", status=500)
    return np.hstack([said, whole, where])


def chances(items: Sequence[PromisedAction], lines: Sequence[Line], encoder: SentenceEncoder) -> list[float]:
    """Each item's chance of being a promise a reviewer would list, by the head over `features` (with the bundled
    MiniLM's embeddings: the head was fitted on them)."""
    if not items:
        return []
    w, b, _ = _head()
    rows = features(items, lines, encoder)
    if rows.shape[1] != w.shape[0]:
        width = (w.shape[0] - PLACE_FEATURES) // 2
        raise E.SpeechprocError(E.MODEL_UNAVAILABLE, f"the promise head needs {width}-dimensional "
                                f"{BUNDLED_SENTENCE_ENCODER} embeddings, the encoder gives "
                                f"{(rows.shape[1] - PLACE_FEATURES) // 2}", status=500)
    return [float(v) for v in 1.0 / (1.0 + np.exp(-(rows @ w + b)))]


def explains_routine(text: str) -> bool:
    """Whether an item says what usually or automatically happens, with no first-person future in it."""
    return bool(_ROUTINE.search(text)) and not in_first_person(text)


def sent_automatically(text: str) -> bool:
    """Whether an item tells of a message a system sends by itself, with no first-person future in it."""
    return bool(_AUTOMATIC.search(text)) and not in_first_person(text)


def tells_of_visit(text: str) -> bool:
    """Whether an item tells what a booked visit will be like ("On the day, he'll ..."), with no first-person
    future in it."""
    return bool(_ACCOUNT_OF_VISIT.search(text)) and not in_first_person(text)


def in_first_person(text: str) -> bool:
    """Whether an item says what the speaker or their side will do ("I'll", "we will", "I'm going to")."""
    return bool(_FIRST_PERSON_FUTURE.search(text))


def believed(items: Sequence[PromisedAction], lines: Sequence[Line], encoder: SentenceEncoder) -> list[PromisedAction]:
    """Of `items` (said in `lines`, the call's turns as the model reads them), those that explain no routine
    (`explains_routine`) nor tell of a visit (`tells_of_visit`) and whose chance (`chances`) reaches the head's
    threshold, in their order: for a call read by its ends."""
    threshold = _head()[2]
    weighed = [item for item in items
               if not (explains_routine(item.text) or tells_of_visit(item.text) or sent_automatically(item.text))]
    return [item for item, chance in zip(weighed, chances(weighed, lines, encoder)) if chance >= threshold]


def believed_in_whole_call(items: Sequence[PromisedAction], lines: Sequence[Line],
                           encoder: SentenceEncoder) -> list[PromisedAction]:
    """Of `items` (said in `lines`), for a call read whole: those said in the first person (`in_first_person`),
    and the others that tell of no visit (`tells_of_visit`) and whose chance reaches the head's threshold, in
    their order. A short call's first-person futures are nearly all promises, and its "usually" as often part
    of one as not."""
    threshold = _head()[2]
    items = [item for item in items if not (tells_of_visit(item.text) or sent_automatically(item.text))]
    weighed = iter(chances([item for item in items if not in_first_person(item.text)], lines, encoder))
    # the chances are those of the items not in the first person, in order: each is drawn as its item comes
    return [item for item in items if in_first_person(item.text) or next(weighed) >= threshold]
