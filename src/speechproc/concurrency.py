"""Work shared out over daemon threads, the results in order (`ordered`), and numeric kernels kept to one
thread each while a recording is analysed (`one_thread_each`).

The threads of concurrent.futures' pools are joined when the interpreter exits. After Ctrl-C a process
would then wait for every batch a decoder is in the middle of, and a second Ctrl-C during that wait tears
the interpreter down under threads still running native code (a crash). These threads are daemons: once
the caller stops asking for results, the work not yet started is dropped, and the process may leave at
once. The caller waits in short steps, so that a KeyboardInterrupt raised into its thread (the Ray
engine's way of stopping a job) is heard within a second.

A matrix product or a convolution split over threads adds its terms in an order that depends on how many
threads it may use, and rounds accordingly: numpy's BLAS and torch give last-bit differences between one
thread and two, enough to move a speaker boundary or, through the recogniser's features, to change a
word. A worker process has fewer threads than the main one, so such kernels would make the results depend
on `--workers`. While a recording is analysed every such kernel runs on one thread, and a stage with
much of that work cuts it into pieces fixed by the recording alone and computes them side by side
(`ordered`), as recognition gives each thread a decoder of its own.
"""
from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from types import ModuleType
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")
WAIT_STEP_S = 0.5


def ordered(function: Callable[[Item], Result], items: Iterable[Item], workers: int,
            name: str = "speechproc-work") -> Iterator[Result]:
    """`function` of every item, computed by up to `workers` daemon threads, yielded in the items' order. An
    exception of `function` is raised where its result would have been yielded. Closing the iterator (or an
    exception in the caller) drops the items not started; those being computed finish on their own."""
    todo: queue.SimpleQueue = queue.SimpleQueue()
    futures: list[Future] = []
    for item in items:
        future: Future = Future()
        futures.append(future)
        todo.put((future, item))
    stop = threading.Event()

    def work() -> None:
        while not stop.is_set():
            try:
                future, item = todo.get_nowait()
            except queue.Empty:
                return
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(function(item))
            except BaseException as exc:  # handed to the caller, whatever it is
                future.set_exception(exc)

    for k in range(max(1, min(workers, len(futures)))):
        threading.Thread(target=work, name=f"{name}-{k}", daemon=True).start()
    try:
        for future in futures:
            yield _result(future)
    finally:
        stop.set()
        for future in futures:
            future.cancel()


def _result(future: Future):
    while True:
        try:
            return future.result(timeout=WAIT_STEP_S)
        except FutureTimeout:
            continue


@contextmanager
def one_thread_each() -> Iterator[None]:
    """While the block runs, numpy's and scipy's BLAS and torch's operators each compute on one thread (torch
    threads started inside the block too); their thread counts are given back afterwards. One block at a
    time per process: the limits are the process's."""
    import scipy.linalg  # noqa: F401  (loads scipy's own BLAS, so that the limit reaches it too)
    from threadpoolctl import threadpool_limits

    torch: ModuleType | None
    try:
        import torch
    except ImportError:  # no torch: only the BLAS limit applies
        torch = None
    torch_threads = torch.get_num_threads() if torch is not None else 0
    with threadpool_limits(limits=1, user_api="blas"):
        if torch is not None:
            torch.set_num_threads(1)
        try:
            yield
        finally:
            if torch is not None:
                torch.set_num_threads(torch_threads)
