"""Where jobs run: here, one at a time (`InProcess`), or in worker processes (`LocalPool`).

Each worker process loads its models once and runs one job at a time; what a job reports (stage
statuses, each output just before it is put in place, recognised seconds) and its result come back
over a pipe, so the parent alone writes the catalog. A worker that dies (killed, out of memory) fails
only the job it was running; a new worker takes its place. Workers ignore the terminal's Ctrl-C:
the parent asks each busy worker to stop (SIGTERM, which a worker turns into KeyboardInterrupt inside
its job), records what they return, and then stops the batch.

A worker whose parent is gone (killed: `kill -9`, out of memory) publishes nothing more: it checks before
each file it puts in place, and a thread of its own ends the process within PARENT_CHECK_S of the parent's
death. What it left half done is redone by the next run; a file it had put in place is recognised by its
intent (`store.files.intents`).
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from multiprocessing import forkserver
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from speechproc.batch import preload
from speechproc.batch.jobs import INTERRUPTED, Job, JobEvents, JobResult, run_job
from speechproc.concurrency import started_up, traced

if TYPE_CHECKING:
    from speechproc.stages.options import Options

MEMORY_PER_WORKER = 2 * 2**30  # what `auto` allows each worker (models, audio and analytics of a long call)
PARENT_CHECK_S = 0.5  # how often a worker looks whether its parent is still there
EXIT_ORPHANED = 3  # the exit status of a worker that ended because its parent was gone


@dataclass
class Finished:
    """A job that ended: its result, or why the process running it stopped without one."""

    index: int
    job: Job
    result: JobResult | None
    died: str | None = None


class Engine(Protocol):
    def free(self) -> int: ...
    def busy(self) -> int: ...
    def submit(self, index: int, job: Job) -> None: ...
    def wait(self, events: JobEvents) -> list[Finished]: ...
    def interrupt(self, events: JobEvents) -> list[Finished]: ...
    def close(self) -> None: ...


def available_memory() -> int:
    """Bytes of physical memory available now (Linux), or all of it where that is not known."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def plan_workers(requested: int | None, jobs: int, threads: int, cores: int | None = None,
                 memory: int | None = None, extra_memory: int = 0) -> tuple[int, int]:
    """(workers, recognition threads per worker). `requested` None is `auto`: one worker per core, as many as
    the available memory holds (MEMORY_PER_WORKER each, and `extra_memory` more: the insights model's). Never
    more workers than there are jobs. Threads: the configured `threads`, else the cores shared out, so that
    workers x threads does not exceed the cores."""
    cores = cores or os.cpu_count() or 1
    if requested is None:
        memory = available_memory() if memory is None else memory
        requested = min(cores, memory // (MEMORY_PER_WORKER + extra_memory))
    requested = max(1, min(requested, jobs))
    return requested, threads or max(1, cores // requested)


class InProcess:
    """Runs each job in this process, one at a time."""

    def __init__(self) -> None:
        self._queue: list[tuple[int, Job]] = []

    def free(self) -> int:
        return 0 if self._queue else 1

    def busy(self) -> int:
        return len(self._queue)

    def submit(self, index: int, job: Job) -> None:
        self._queue.append((index, job))

    def wait(self, events: JobEvents) -> list[Finished]:
        index, job = self._queue.pop(0)
        with traced("job"):
            return [Finished(index, job, run_job(job, events))]

    def interrupt(self, events: JobEvents) -> list[Finished]:
        """The jobs submitted and not yet run (a running one hears Ctrl-C itself and returns its result)."""
        stopped = [Finished(index, job, None, died=INTERRUPTED) for index, job in self._queue]
        self._queue.clear()
        return stopped

    def close(self) -> None:
        self._queue.clear()


@dataclass
class _Worker:
    process: Any  # multiprocessing.Process
    conn: Connection
    current: tuple[int, Job] | None = None


class LocalPool:
    """`workers` processes on this machine, each with `threads` recognition threads.

    With `shared` (the run's options) the workers are forked from multiprocessing's fork server, which has
    loaded the models of the later stages those options run (`batch.preload`), once for all of them;
    else, and where there is no fork server (Windows), each is a fresh interpreter (spawn) that loads its
    own. Either way a worker inherits no thread and no open catalog from the run's process."""

    STOP_WAIT_S = 60  # how long an interrupted worker has to record its job's failure

    def __init__(self, workers: int, threads: int, shared: Options | None = None) -> None:
        self._context, request = _worker_context(shared)
        self._threads = threads
        try:
            self._slots = [self._start() for _ in range(workers)]
        finally:  # the server reads it before it forks the first worker; one started earlier never does
            if request is not None:
                request.unlink(missing_ok=True)

    def _start(self) -> _Worker:
        ours, theirs = self._context.Pipe()
        # the environment of now: a fork server's child would have the server's, from when it started
        process = self._context.Process(target=_serve, args=(theirs, self._threads, dict(os.environ)), daemon=True,
                                        name="speechproc-worker")
        process.start()
        theirs.close()
        return _Worker(process, ours)

    def free(self) -> int:
        return sum(1 for w in self._slots if w.current is None)

    def busy(self) -> int:
        return sum(1 for w in self._slots if w.current is not None)

    def submit(self, index: int, job: Job) -> None:
        slot = next(k for k, w in enumerate(self._slots) if w.current is None)
        if not self._slots[slot].process.is_alive():  # it died while idle (killed, out of memory)
            self._replace(slot)
        try:
            self._slots[slot].conn.send(job)
        except OSError:  # it died just now
            self._replace(slot)
            self._slots[slot].conn.send(job)
        self._slots[slot].current = (index, job)

    def _replace(self, slot: int) -> None:
        """A new worker in the place of one that is gone."""
        old = self._slots[slot]
        old.process.join(timeout=1)
        if old.process.is_alive():
            old.process.kill()
            old.process.join()
        old.conn.close()
        self._slots[slot] = self._start()

    def wait(self, events: JobEvents) -> list[Finished]:
        busy = [w for w in self._slots if w.current is not None]
        with traced("waiting for the workers"):
            wait([w.conn for w in busy] + [w.process.sentinel for w in busy])
        finished = []
        for worker in busy:
            finished += self._collect(worker, events)
        return finished

    def _collect(self, worker: _Worker, events: JobEvents) -> list[Finished]:
        """Pass on what the worker said; its job if it ended, or died (the worker is replaced then)."""
        assert worker.current is not None
        index, job = worker.current
        try:
            while worker.conn.poll():
                message = worker.conn.recv()
                if message[0] == "done":
                    worker.current = None
                    return [Finished(index, job, message[1])]
                getattr(events, message[0])(*message[1:])
        except (EOFError, OSError):
            pass  # the pipe closed: the worker is gone
        if worker.process.is_alive():
            return []
        worker.process.join()
        worker.current = None
        why = _stopped(worker.process.exitcode)
        self._replace(self._slots.index(worker))
        return [Finished(index, job, None, died=why)]

    def interrupt(self, events: JobEvents) -> list[Finished]:
        """Ask every busy worker to stop its job; every job that was running, with its result when the
        worker answered within STOP_WAIT_S (else the worker is killed and the job has none)."""
        for worker in self._slots:
            if worker.current is not None and worker.process.is_alive():
                os.kill(worker.process.pid, signal.SIGTERM)
        finished: list[Finished] = []
        for worker in list(self._slots):
            while worker.current is not None:
                index, job = worker.current
                if not wait([worker.conn, worker.process.sentinel], timeout=self.STOP_WAIT_S):
                    worker.process.kill()
                    worker.process.join()
                    worker.current = None
                    finished.append(Finished(index, job, None, died=INTERRUPTED))
                    break
                ended = self._collect(worker, events)
                finished += [replace(f, died=INTERRUPTED) if f.result is None else f for f in ended]
                if ended:
                    break
        return finished

    def close(self) -> None:
        for worker in self._slots:
            try:
                worker.conn.send(None)
            except (OSError, ValueError):
                pass
        for worker in self._slots:
            worker.process.join(timeout=10)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.conn.close()


def _worker_context(shared: Options | None) -> tuple[Any, Path | None]:
    """(multiprocessing context, the file naming what the fork server loads or None): the fork server,
    started now with what it is to load (`shared`), where there is one; else spawn.

    The fork server is one per process: where an earlier pool of this process started it, its workers
    share what it loaded then, and load what else they need themselves."""
    if shared is None or "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn"), None
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([preload.__name__])
    request = preload.preload_file(shared)
    os.environ[preload.PRELOAD_ENV] = str(request)  # read by the server as it starts
    try:
        forkserver.ensure_running()
    except OSError:  # it could not start: fresh interpreters, as without it
        request.unlink(missing_ok=True)
        return multiprocessing.get_context("spawn"), None
    finally:
        os.environ.pop(preload.PRELOAD_ENV, None)
    return context, request


def _stopped(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        name = signal.Signals(-exitcode).name
        cause = " (out of memory, or killed by hand)" if -exitcode == signal.SIGKILL else ""
        return f"the worker process running it was killed by {name}{cause}"
    return f"the worker process running it stopped with exit status {exitcode}"


class MessageEvents(JobEvents):
    """A job's events as messages (tuples naming the JobEvents method), handed to `send` as they happen:
    down a worker's pipe, or into the queue an actor streams back."""

    def __init__(self, send: Callable[[tuple], None], parent_alive: Callable[[], bool] | None = None) -> None:
        self.send = send
        self.parent_alive = parent_alive  # None: the process has no parent to outlive (a Ray actor)

    def stage(self, media_id: str, tasks: list[dict[str, Any]]) -> None:
        self.send(("stage", media_id, tasks))

    def seconds(self, media_id: str, seconds: float) -> None:
        self.send(("seconds", media_id, seconds))

    def output(self, path: str, sha256: str, media_id: str | None) -> None:
        if self.parent_alive is not None and not self.parent_alive():
            os._exit(EXIT_ORPHANED)  # nobody would record the file: put nothing more in place
        self.send(("output", path, sha256, media_id))


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def prepare_worker(threads: int) -> None:
    """What a worker process (local or a Ray actor) sets before its first job: the native libraries' thread
    counts (so that workers x threads stays within the cores), and a thread lock for tqdm's progress bars
    (faster-whisper makes one, never shown, per call). tqdm's default lock is a named semaphore of the
    process; a worker killed outright would leave it behind, and the parent's resource tracker would warn
    of a leaked semaphore."""
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):  # for libraries loaded from now on
        os.environ[name] = str(threads)
    from threadpoolctl import threadpool_limits

    threadpool_limits(threads)  # numpy's BLAS, loaded already, read them at its start: tell it now
    from tqdm import tqdm

    tqdm.set_lock(threading.RLock())


def watch_parent(parent: int, every_s: float = PARENT_CHECK_S) -> None:
    """End this process (EXIT_ORPHANED) as soon as its parent `parent` is gone (it is then another's child)."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every_s)
        os._exit(EXIT_ORPHANED)

    threading.Thread(target=watch, name="speechproc-parent-watch", daemon=True).start()


def _serve(conn: Connection, threads: int, environment: dict[str, str]) -> None:
    """A worker: run the jobs the parent sends, one at a time, until it sends None or goes away. `environment`:
    the parent's, as it started this worker (the state folder, the trace folder, the libraries' settings)."""
    os.environ.clear()
    os.environ.update(environment)
    parent = os.getppid()
    watch_parent(parent)
    prepare_worker(threads)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what Ctrl-C stops
    signal.signal(signal.SIGTERM, _interrupt)
    events = MessageEvents(conn.send, lambda: os.getppid() == parent)
    started_up()
    while True:
        try:
            with traced("waiting for a job"):
                job = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        if job is None:
            return
        with traced("job"):
            result = run_job(job, events)
        try:
            conn.send(("done", result))
        except (OSError, KeyboardInterrupt):
            return
