"""How a call ended, from the model's chances that its request was done in the call, refused, and left to a
step promised for after it (`Ending`): `outcome_of` for a call the model reads whole, `outcome_of_long` for
one read by its ends, which also wants a promise in the words of its close (`promises_by_others`).

Every line here was set on the benchmark's dev calls (benchmarks/call_insights/insights.py), never on a set
held out to report on: `FOLLOW_UP_AT` and `RESOLVED_AT` on the short calls of its dev half, the long-call
lines on the tenth and eleventh sets (docs/benchmarks.md, "Long calls: the outcome").
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from speechproc.conversation import PromisedAction

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


def promises_by_others(items: Sequence[PromisedAction]) -> int:
    """How many of the promises of a step after the call (`promises`) speakers other than the caller make: the
    agent's, or those of a one-channel recording's speakers, whose role is unknown."""
    return sum(1 for item in items if item.speaker.strip().lower() != "caller")
