"""Work over daemon threads: results in order, errors where they belong, nothing left to wait for when the
caller stops early."""
from __future__ import annotations

import threading
import time

import pytest

from speechproc.concurrency import ordered


def slow_square(x: int) -> int:
    time.sleep(0.05 * (5 - x % 5))  # later items finish first
    return x * x


@pytest.mark.parametrize("workers", [1, 2, 8])
def test_results_come_in_the_items_order_whatever_finishes_first(workers):
    assert list(ordered(slow_square, range(10), workers)) == [x * x for x in range(10)]


def test_no_items_give_no_results():
    assert list(ordered(slow_square, [], 4)) == []


def test_an_error_is_raised_where_its_result_would_have_come():
    def fail_on_three(x: int) -> int:
        if x == 3:
            raise ValueError("three")
        return x

    found = []
    with pytest.raises(ValueError, match="three"):
        for value in ordered(fail_on_three, range(6), 2):
            found.append(value)
    assert found == [0, 1, 2]


def test_the_work_runs_in_daemon_threads_at_most_as_many_as_asked():
    seen: set[tuple[str, bool]] = set()
    lock = threading.Lock()

    def record(x: int) -> int:
        with lock:
            seen.add((threading.current_thread().name, threading.current_thread().daemon))
        time.sleep(0.02)
        return x

    assert list(ordered(record, range(8), 3, name="probe")) == list(range(8))
    assert all(daemon for _, daemon in seen) and 1 <= len(seen) <= 3
    assert all(name.startswith("probe-") for name, _ in seen)


def test_stopping_early_drops_the_work_not_started():
    started = []

    def work(x: int) -> int:
        started.append(x)
        time.sleep(0.1)
        return x

    results = ordered(work, range(20), 2)
    assert next(results) == 0
    results.close()
    time.sleep(0.4)
    assert len(started) <= 4  # the two running when it stopped, perhaps the next two, never all twenty
