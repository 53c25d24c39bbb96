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


@pytest.fixture()
def collections_seen():
    """The generations the cyclic collector passed over while the test ran; the collector as it was after."""
    import gc

    seen: list[int] = []

    def note(phase: str, info: dict) -> None:
        if phase == "start":
            seen.append(info["generation"])

    was_on = gc.isenabled()
    gc.callbacks.append(note)
    try:
        yield seen
    finally:
        gc.callbacks.remove(note)
        gc.unfreeze()
        (gc.enable if was_on else gc.disable)()


def _many_objects(count: int = 200_000) -> list[list[int]]:
    return [[k] for k in range(count)]  # each a container the collector tracks


def test_a_model_load_runs_without_the_collector_and_freezes_what_it_made(collections_seen):
    import gc

    from speechproc.engines.models import loaded_once

    @loaded_once(maxsize=1)
    def load_big_model() -> list[list[int]]:
        return _many_objects()

    gc.enable()
    frozen_before = gc.get_freeze_count()
    model = load_big_model()
    assert collections_seen == []  # 200,000 new containers would have set off passes
    assert gc.isenabled()
    assert gc.get_freeze_count() >= frozen_before + len(model)
    _many_objects()
    assert collections_seen  # and the collector runs again afterwards


def test_the_collector_stays_off_where_the_caller_turned_it_off(collections_seen):
    import gc

    from speechproc.concurrency import collection_paused

    gc.disable()
    with collection_paused():
        _many_objects(1000)
    assert not gc.isenabled()


def test_loads_in_two_threads_share_one_pause(collections_seen):
    import gc

    from speechproc.concurrency import collection_paused

    gc.enable()
    inside, leave = threading.Event(), threading.Event()

    def other_load() -> None:
        with collection_paused():
            inside.set()
            assert leave.wait(WAIT_S)

    thread = threading.Thread(target=other_load)
    thread.start()
    assert inside.wait(WAIT_S)
    with collection_paused():
        pass
    assert not gc.isenabled()  # the other thread's load goes on
    leave.set()
    thread.join(WAIT_S)
    assert gc.isenabled()
