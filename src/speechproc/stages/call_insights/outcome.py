"""How a call ended, from the model's chances that its request was done in the call, refused, and left to a
step promised for after it (`Ending`).

`outcome_by_head` gives it: a multinomial logistic regression (the outcome head) over those three chances,
whether the call was read by its ends, how many promises by others its close holds, and four counts of the
words of the speakers other than the caller (`said_counts`: a callback or a check still to come in their last
turns, a booking or change confirmed there, a refusal anywhere, a confirmation anywhere; `features`). It was
fitted by `benchmarks/call_insights/fit_outcome_head.py` on the stored answers of the insights benchmark's read
sets, its strength chosen by leave-one-set-out cross-validation, never on a set held out to report on
(docs/benchmarks.md, "The outcome head").

The lines it replaced stay for the benchmark's comparison on the same answers (`outcome_by_lines`): `outcome_of`
for a call the model reads whole, `outcome_of_long` for one read by its ends, which also wants a promise in the
words of its close (`promises_by_others`). They were set on the benchmark's dev calls: `FOLLOW_UP_AT` and `RESOLVED_AT` on the
short calls of its dev half, the long-call lines on the tenth and eleventh sets.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from speechproc import errors as E
from speechproc.conversation import PromisedAction
from speechproc.stages.call_insights.grounding import Line

OUTCOMES = ("resolved", "unresolved", "followUp")
HEAD = Path(__file__).resolve().parents[2] / "data" / "outcome_head.npz"
CLOSE_PROMISES_CAP = 3  # more promises by others in the close than this weigh as this many
FEATURES = 12  # the length of `features`
CLOSE_TURNS = 10  # the last turns of the speakers other than the caller that `said_counts` calls the close
SAID_CAP = 3  # more phrases of a kind than this weigh as this many

# Something still to come after the call: an answer to get back with, a check or a question to put to someone.
_STILL_TO_COME = re.compile(r"\b(?:get back to you|ring you back|call you back|come back to you|let you know|find out|"
                            r"once i(?:'ve| have)? (?:heard|spoken|checked)|as soon as i (?:hear|know)|i'll check|"
                            r"check with|i'll ask|i'll speak to|i'll talk to|see what|look into)\b", re.IGNORECASE)
# What was settled in the call: a booking made, a change or a refund put through, "you're all set".
_SETTLED = re.compile(r"\b(?:booked (?:in|you in)|all booked|(?:that's|you're|we're|it's) (?:all )?(?:booked|sorted|set|"
                      r"done|confirmed|arranged)|confirmed|all set|that's done|i've (?:booked|changed|moved|updated|"
                      r"cancelled|refunded|processed|put through|arranged))\b", re.IGNORECASE)
_REFUSED = re.compile(r"\b(?:can't|cannot|unable to|not able to|won't be able|afraid (?:we|i)|i'm sorry but|not possible|"
                      r"no longer)\b", re.IGNORECASE)

FOLLOW_UP_AT = 0.55
RESOLVED_AT = 0.55
# A long call's many future clauses (how things work, steps narrated as they are taken) lift the chance of a
# promised step on nearly every one, so there a follow-up also needs a promise said in the close, at a higher
# line, and done must clearly outweigh refused.
LONG_FOLLOW_UP_AT = 0.60
LONG_RESOLVED_BY = 0.20


@dataclass(frozen=True)
class Ending:
    """How likely the call's request was done in the call, refused, and left to a step promised for later."""

    done: float
    refused: float
    promised: float


def outcome_of(ending: Ending) -> str:
    """followUp when a step after the call is promised (a call can be both done in part and left to a step
    after it: the step is what the caller still waits for); resolved when the request was done and not
    refused; unresolved otherwise (refused, or nothing came of it)."""
    if ending.promised >= FOLLOW_UP_AT:
        return "followUp"
    if ending.done >= RESOLVED_AT and ending.done >= ending.refused:
        return "resolved"
    return "unresolved"


def outcome_of_long(ending: Ending, promises_in_close: int) -> str:
    """The outcome of a call read by its ends: followUp when its close holds a promise of a step after the
    call by a speaker other than the caller (`promises_in_close` of them) and the model finds a step
    promised; resolved when done outweighs refused by `LONG_RESOLVED_BY`; unresolved otherwise."""
    if promises_in_close and ending.promised >= LONG_FOLLOW_UP_AT:
        return "followUp"
    if ending.done - ending.refused >= LONG_RESOLVED_BY:
        return "resolved"
    return "unresolved"


def outcome_by_lines(ending: Ending, promises_in_close: int | None) -> str:
    """The outcome by the lines the head replaced: `outcome_of` for a call read whole (`promises_in_close` None),
    `outcome_of_long` for one read by its ends."""
    return outcome_of(ending) if promises_in_close is None else outcome_of_long(ending, promises_in_close)


def promises_by_others(items: Sequence[PromisedAction]) -> int:
    """How many of the promises of a step after the call (`promises`) speakers other than the caller make: the
    agent's, or those of a one-channel recording's speakers, whose role is unknown."""
    return sum(1 for item in items if item.speaker.strip().lower() != "caller")


def turns_by_others(lines: Sequence[Line]) -> list[str]:
    """The words of each turn said by a speaker other than the caller (the agent's, or every speaker's where the
    roles are unknown), in order."""
    return [line.text for line in lines if line.text and line.speaker.strip().lower() != "caller"]


def said_counts(turns_by_others: Sequence[str]) -> list[float]:
    """Four counts of the words of the turns of speakers other than the caller (the agent's, or every turn of a
    recording whose roles are unknown), each up to SAID_CAP as a share of it: in their last CLOSE_TURNS turns,
    something still to come ("I'll get back to you", "let me check with the loft") and something settled
    ("you're all booked in", "I've moved it"); in all of them, a refusal ("I'm afraid we can't") and something
    settled."""
    close, whole = " ".join(turns_by_others[-CLOSE_TURNS:]), " ".join(turns_by_others)
    counts = (len(_STILL_TO_COME.findall(close)), len(_SETTLED.findall(close)), len(_REFUSED.findall(whole)),
              len(_SETTLED.findall(whole)))
    return [min(n, SAID_CAP) / SAID_CAP for n in counts]


def features(ending: Ending, promises_in_close: int | None, said: Sequence[float]) -> list[float]:
    """What the outcome head weighs: the three chances, done less refused, promised less done, whether the call
    was read by its ends (`promises_in_close` is None when it was read whole), promised on such a call, the
    promises by others in its close (up to CLOSE_PROMISES_CAP, as a share of it), and the four `said_counts`."""
    long = float(promises_in_close is not None)
    in_close = min(promises_in_close or 0, CLOSE_PROMISES_CAP) / CLOSE_PROMISES_CAP
    return [ending.done, ending.refused, ending.promised, ending.done - ending.refused,
            ending.promised - ending.done, long, long * ending.promised, in_close, *said]


@lru_cache(maxsize=1)
def _head() -> tuple[np.ndarray, np.ndarray]:
    data = np.load(HEAD)
    w, b = data["w"].astype(np.float64), data["b"].astype(np.float64)
    if tuple(str(c) for c in data["classes"]) != OUTCOMES or w.shape != (len(OUTCOMES), FEATURES) or b.shape != (len(OUTCOMES),):
        raise E.SpeechprocError(E.MODEL_UNAVAILABLE, f"{HEAD.name} weighs {w.shape[-1]} numbers for the outcomes "
                                f"{[str(c) for c in data['classes']]}, not {FEATURES} for {list(OUTCOMES)}", status=500)
    return w, b


def outcome_by_head(ending: Ending, promises_in_close: int | None, said: Sequence[float]) -> str:
    """The outcome the head finds likeliest, for a call read whole (`promises_in_close` None) or by its ends
    (the promises by others the head believes in its close), with the `said_counts` of its words."""
    w, b = _head()
    scores = w @ np.asarray(features(ending, promises_in_close, said), dtype=np.float64) + b
    return OUTCOMES[int(np.argmax(scores))]
