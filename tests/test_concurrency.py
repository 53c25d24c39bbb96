"""Work over daemon threads: results in order, errors where they belong, nothing left to wait for when the
caller stops early."""
from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from speechproc.concurrency import ordered

WAIT_S = 60  # only ever reached by a test that fails: threads that never get where they should


def later_first(count: int, workers: int) -> tuple[Callable[[int], int], list[int]]:
    """The square of an item, computed so that later items finish first: within each run of `workers` items,
    the threads can take at once, an item waits until the next one has finished. Also the finishing order."""
    done = [threading.Event() for _ in range(count)]
    finished: list[int] = []

    def square(x: int) -> int:
        if x % workers != workers - 1 and x + 1 < count:
            assert done[x + 1].wait(WAIT_S), f"item {x + 1} never finished while item {x} waited for it"
        finished.append(x)
        done[x].set()
        return x * x

    return square, finished


@pytest.mark.parametrize("workers", [1, 2, 8])
def test_results_come_in_the_items_order_whatever_finishes_first(workers):
    square, finished = later_first(10, workers)
    assert list(ordered(square, range(10), workers)) == [x * x for x in range(10)]
    assert sorted(finished) == list(range(10))
    assert (finished != sorted(finished)) == (workers > 1)  # with several threads, later items did finish first


def test_no_items_give_no_results():
    assert list(ordered(lambda x: x * x, [], 4)) == []


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
    together = threading.Barrier(3, timeout=WAIT_S)  # the first three items are computed at the same time

    def record(x: int) -> int:
        with lock:
            seen.add((threading.current_thread().name, threading.current_thread().daemon))
        if x < 3:
            together.wait()
        return x

    assert list(ordered(record, range(8), 3, name="probe")) == list(range(8))
    assert all(daemon for _, daemon in seen) and 1 <= len(seen) <= 3
    assert all(name.startswith("probe-") for name, _ in seen)


def test_stopping_early_drops_the_work_not_started():
    started = []
    release = threading.Event()

    def work(x: int) -> int:
        started.append(x)
        if x > 0:  # every thread is held in an item of its own until the caller has stopped
            assert release.wait(WAIT_S), "never released"
        return x

    results = ordered(work, range(20), 2, name="stopping")
    try:
        assert next(results) == 0
        results.close()
    finally:
        release.set()
    for thread in [t for t in threading.enumerate() if t.name.startswith("stopping-")]:
        thread.join(WAIT_S)
        assert not thread.is_alive(), f"{thread.name} still runs after the caller stopped"
    assert len(started) <= 4  # the two running when it stopped, perhaps the next two, never all twenty
