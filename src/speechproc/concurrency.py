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

Where the time goes: with SPEECHPROC_TRACE naming a folder, every process appends what it spends its time
on (`traced`: start-up, model loads, each stage, VAD, writing, waiting for work) to a file of its own
there, one JSON object a line, in Chrome's trace-event form (`ph` "X", microseconds since the epoch), so that
the processes of one run line up (benchmarks/cost/whole_runs.py reads them; Perfetto opens them).
"""
from __future__ import annotations

import gc
import json
import os
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from types import ModuleType
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")
WAIT_STEP_S = 0.5
TRACE_ENV = "SPEECHPROC_TRACE"
TUNABLES_ENV = "GLIBC_TUNABLES"  # read by glibc when a process starts
HUGE_PAGES_TUNABLE = "glibc.malloc.hugetlb"  # 1: the allocator asks for transparent huge pages


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
    done: Future = Future()
    done.set_result(None)

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
        for k in range(len(futures)):
            result = _result(futures[k])
            futures[k] = done  # its result is let go of once given: a long run never holds them all
            yield result
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
    time per process: the limits are the process's.

    torch is not imported for this (its import costs a second of CPU, and many configurations never need
    it): where it is loaded already it is limited now, and where it is loaded inside the block, whatever
    loads it calls `limit_torch` (every model load does, `models.loaded_once`, and so does each stage)."""
    import scipy.linalg  # noqa: F401  (loads scipy's own BLAS, so that the limit reaches it too)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        _torch_limit.clear()
        _torch_limit.append(None)  # inside the block: torch not limited yet
        try:
            limit_torch()
            yield
        finally:
            torch, threads = loaded("torch"), _torch_limit.pop()
            if torch is not None and threads is not None:
                torch.set_num_threads(threads)


def loaded(name: str) -> ModuleType | None:
    """The module if it has been imported in full (not while another thread is still importing it)."""
    module = sys.modules.get(name)
    if module is None or getattr(getattr(module, "__spec__", None), "_initializing", False):
        return None
    return module


_pause = {"blocks": 0, "collector_was_on": True}  # blocks inside `collection_paused` now, in any thread
_pause_lock = threading.Lock()


@contextmanager
def collection_paused() -> Iterator[None]:
    """Run the block (a model load) without the cyclic garbage collector, then freeze what exists.

    A load makes hundreds of thousands of objects that live as long as the process (torch's and spaCy's
    modules, a parser's vocabulary): each of the collector's full passes during the load walks all of those
    made so far (0.03-0.16 s a pass; four passes during the analytic models' loads in a run of a 12-minute
    call), and every later full pass walks them again. `gc.freeze` moves them out of its reach for good; the price is that a
    cycle of objects existing now that becomes garbage later is never freed. Blocks in several threads
    share one pause: the collector is back on when the last one ends, and only if it was on when the first
    began."""
    with _pause_lock:
        if not _pause["blocks"]:
            _pause["collector_was_on"] = gc.isenabled()
            gc.disable()
        _pause["blocks"] += 1
    try:
        yield
    finally:
        with _pause_lock:
            _pause["blocks"] -= 1
            if not _pause["blocks"]:
                gc.freeze()
                if _pause["collector_was_on"]:
                    gc.enable()


_torch_limit: list[int | None] = []  # inside one_thread_each: torch's thread count before it was limited, or None


def limit_torch() -> None:
    """Inside `one_thread_each`, torch on one thread if it is loaded (its count kept, to give back at the
    end of the block); nothing otherwise. Cheap: called before every stage and after every model load."""
    torch = loaded("torch")
    if _torch_limit and _torch_limit[-1] is None and torch is not None:
        _torch_limit[-1] = torch.get_num_threads()
        torch.set_num_threads(1)


@contextmanager
def traced(name: str) -> Iterator[None]:
    """Record the block as a span named `name` of this thread, when SPEECHPROC_TRACE names a folder."""
    if not os.environ.get(TRACE_ENV):
        yield
        return
    start = time.time()
    try:
        yield
    finally:
        record_span(name, start, time.time())


def record_span(name: str, start: float, end: float, args: dict | None = None) -> None:
    """Append a span of this thread (`start` and `end` in seconds since the epoch, `args` what it tells) to
    this process's trace file; nothing when SPEECHPROC_TRACE is not set, and a folder that cannot be written
    loses the span only."""
    folder = os.environ.get(TRACE_ENV)
    if not folder:
        return
    event = {"name": name, "ph": "X", "ts": round(start * 1e6), "dur": round((end - start) * 1e6),
             "pid": os.getpid(), "tid": threading.current_thread().name, **({"args": args} if args else {})}
    try:
        with open(os.path.join(folder, f"trace-{os.getpid()}.jsonl"), "a", encoding="utf-8") as f:
            f.write(json.dumps(event) + "\n")
    except OSError:
        pass


_started_up: list[bool] = []


def started_up() -> None:
    """Record this process's start-up (from its birth to now) as a span, once per process, with whether its
    allocator asks for huge pages."""
    if not _started_up:
        _started_up.append(True)
        record_span("start-up", process_started_at(), time.time(), {"huge_pages": huge_pages_on()})


def huge_pages_on() -> bool:
    """Whether this process started with glibc's allocator asking for huge pages (speechproc.cli.launch)."""
    given = dict(part.partition("=")[::2] for part in os.environ.get(TUNABLES_ENV, "").split(":"))
    return given.get(HUGE_PAGES_TUNABLE, "0") not in ("", "0")


def process_started_at() -> float:
    """When this process began, in seconds since the epoch (Linux /proc; now, elsewhere)."""
    try:
        with open("/proc/self/stat") as f:
            ticks = int(f.read().rsplit(")", 1)[1].split()[19])  # starttime, the 22nd field
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        return time.time() - uptime + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return time.time()
