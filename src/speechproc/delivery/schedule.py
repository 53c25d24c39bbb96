"""When a failed delivery is tried again.

v3: rounds of 3 attempts in a row; the rounds start immediately, then 15 min, 30 min, 1 h, 2 h, 4 h and 8 h
after the previous round (21 attempts at most; then the delivery is dead). v2-beta: the first try and two
immediate retries, then waits of 15 min doubling up to 16 h, stopping 36 h after the first try.
"""
from __future__ import annotations

V3_ROUND_GAPS_MIN = (0, 15, 30, 60, 120, 240, 480)
ATTEMPTS_PER_ROUND = 3
MAX_ATTEMPTS = ATTEMPTS_PER_ROUND * len(V3_ROUND_GAPS_MIN)
V2_IMMEDIATE_TRIES = 3
V2_FIRST_WAIT_MIN, V2_LONGEST_WAIT_MIN, V2_GIVE_UP_MIN = 15, 960, 36 * 60


def next_due(contract: str, attempts: int, first_try: float, last_try: float) -> float | None:
    """When the next attempt is due after `attempts` failed ones (epoch seconds), or None: give up."""
    if contract == "v2-beta":
        if attempts < V2_IMMEDIATE_TRIES:
            return last_try
        wait = min(V2_FIRST_WAIT_MIN * 2 ** (attempts - V2_IMMEDIATE_TRIES), V2_LONGEST_WAIT_MIN) * 60
        due = last_try + wait
        return due if due - first_try <= V2_GIVE_UP_MIN * 60 else None
    if attempts >= MAX_ATTEMPTS:
        return None
    if attempts % ATTEMPTS_PER_ROUND:
        return last_try  # the rest of the round, right away
    return last_try + V3_ROUND_GAPS_MIN[attempts // ATTEMPTS_PER_ROUND] * 60


def spent(contract: str, attempts: int) -> bool:
    """All v3 attempts used (the last one cut off by a kill: it was counted, never finished)."""
    return contract != "v2-beta" and attempts >= MAX_ATTEMPTS
