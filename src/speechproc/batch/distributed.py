"""Jobs on a Ray cluster (`speechproc run --engine ray`): one actor per worker, each loading its models once.

An actor runs one job at a time in a thread of its own and streams what the job reports (stage
statuses, each output just before it is put in place, recognised seconds) back to this process as
a Ray generator, ending with the job's result; this process alone writes the catalog, as with
local workers. Inputs and output places are paths: every node must see them at the same paths
(shared storage). An actor that dies (its node lost, killed, out of memory) fails only the job it was
running, and a new actor takes its place. Ctrl-C asks each busy actor to stop its job, which then
removes its partial outputs and returns an interrupted result.

Needs the `ray` extra: pip install 'speechproc[ray]'.
"""
from __future__ import annotations

import ctypes
import logging
import queue
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from speechproc import errors as E
from speechproc.batch.jobs import INTERRUPTED, Job, JobEvents, JobResult, run_job
from speechproc.batch.workers import Finished, MessageEvents, prepare_worker

LOCAL_OBJECT_STORE = 256 * 2**20  # jobs and results are small: a local cluster needs little shared memory


CONNECT_TIMEOUT_S = 10  # Ray itself keeps trying an address that does not answer for minutes


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise E.ConfigurationError(E.INVALID_VALUE, "--engine ray needs Ray: pip install 'speechproc[ray]'") from None
    return ray


def check_address(address: str) -> None:
    """Refuse, within CONNECT_TIMEOUT_S, a cluster address that is malformed or where nothing answers.
    `auto` (the cluster started on this machine) is left to Ray, which answers at once."""
    if address == "auto":
        return
    where = address.removeprefix("ray://")
    host, _, port = where.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536 or any(c.isspace() for c in where):
        raise E.ConfigurationError(E.INVALID_VALUE, f"--ray-address {address!r} is not HOST:PORT, "
                                   "ray://HOST:PORT or auto")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        raise E.ConfigurationError(E.INVALID_VALUE, f"--ray-address {address}: no Ray cluster answers there "
                                   f"({exc}); start one with `ray start --head`") from None


def require_ray(address: str | None) -> None:
    """A clear error now if Ray is not installed or nothing answers at `address`."""
    _ray()
    if address is not None:
        check_address(address)


class Worker:
    """The actor: runs the jobs it is given, one at a time, in a thread that Ctrl-C can interrupt."""

    def __init__(self, threads: int) -> None:
        prepare_worker(threads)
        self._job_thread: threading.Thread | None = None

    def run(self, job: Job) -> Iterator[tuple]:
        """The job's events as they happen, then ("done", JobResult)."""
        messages: queue.Queue = queue.Queue()

        def work() -> None:
            result: JobResult | None = None
            try:
                result = run_job(job, MessageEvents(messages.put))
            except BaseException:  # an interruption that arrived after run_job returned
                pass
            messages.put(("done", result))

        self._job_thread = threading.Thread(target=work, name="speechproc-job", daemon=True)
        self._job_thread.start()
        while True:
            message = messages.get()
            yield message
            if message[0] == "done":
                return

    def interrupt(self) -> bool:
        """Raise KeyboardInterrupt in the running job (as Ctrl-C would); False when none is running."""
        thread = self._job_thread
        if thread is None or not thread.is_alive() or thread.ident is None:
            return False
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(KeyboardInterrupt))
        return True


@dataclass
class _Running:
    index: int
    job: Job
    stream: Any  # ray.ObjectRefGenerator


class RayPool:
    """Workers as Ray actors on the cluster at `address` (None: a local one, started and stopped here)."""

    STOP_WAIT_S = 60  # how long an interrupted actor has to return its job's result

    def __init__(self, address: str | None, workers: int | None, threads: int) -> None:
        ray = self._ray = _ray()
        self._started_here = not ray.is_initialized()
        if self._started_here:
            if address is not None:
                check_address(address)
            try:
                ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False,
                         include_dashboard=False, **({} if address else {"object_store_memory": LOCAL_OBJECT_STORE}))
            except (ConnectionError, RuntimeError, ValueError) as exc:
                where = f"the Ray cluster at {address}" if address else "a local Ray cluster"
                raise E.ConfigurationError(E.INVALID_VALUE, f"cannot connect to {where}: {exc}") from None
        self._threads = threads
        self._actor_class = ray.remote(num_cpus=threads, max_concurrency=2)(Worker)
        count = workers or max(1, int(ray.cluster_resources().get("CPU", 1)) // threads)
        self._actors: list[Any] = [self._actor_class.remote(threads) for _ in range(count)]
        self._running: dict[int, _Running] = {}  # actor slot -> its job

    @property
    def size(self) -> int:
        return len(self._actors)

    def free(self) -> int:
        return len(self._actors) - len(self._running)

    def busy(self) -> int:
        return len(self._running)

    def submit(self, index: int, job: Job) -> None:
        slot = next(k for k in range(len(self._actors)) if k not in self._running)
        stream = self._actors[slot].run.options(num_returns="streaming").remote(job)
        self._running[slot] = _Running(index, job, stream)

    def wait(self, events: JobEvents, timeout: float | None = None) -> list[Finished]:
        streams = [r.stream for r in self._running.values()]
        ready, _ = self._ray.wait(streams, num_returns=1, timeout=timeout)
        finished = []
        for slot, running in list(self._running.items()):
            if any(running.stream is r for r in ready):
                finished += self._collect(slot, events)
        return finished

    def _collect(self, slot: int, events: JobEvents) -> list[Finished]:
        """Pass on what the actor has said; its job if it ended, or died (the actor is replaced then)."""
        ray, running = self._ray, self._running[slot]
        try:
            while self._ray.wait([running.stream], timeout=0)[0]:
                message = ray.get(next(running.stream))
                if message[0] == "done":
                    del self._running[slot]
                    died = None if message[1] is not None else INTERRUPTED
                    return [Finished(running.index, running.job, message[1], died=died)]
                getattr(events, message[0])(*message[1:])
        except StopIteration:
            pass
        except ray.exceptions.RayError as exc:  # the actor, or its node, is gone
            del self._running[slot]
            ray.kill(self._actors[slot])
            self._actors[slot] = self._actor_class.remote(self._threads)
            return [Finished(running.index, running.job, None, died=_lost(exc))]
        return []

    def interrupt(self, events: JobEvents) -> list[Finished]:
        """Ask every busy actor to stop its job; every job that was running, with its result when the actor
        answered within STOP_WAIT_S (else the actor is killed and the job has none)."""
        for slot in self._running:
            self._actors[slot].interrupt.remote()
        finished: list[Finished] = []
        waited = 0.0
        while self._running and waited < self.STOP_WAIT_S:
            ended = self.wait(events, timeout=1.0)
            finished += [f if f.result is not None else Finished(f.index, f.job, None, INTERRUPTED) for f in ended]
            waited += 1.0
        for slot, running in list(self._running.items()):
            self._ray.kill(self._actors[slot])
            finished.append(Finished(running.index, running.job, None, died=INTERRUPTED))
        self._running.clear()
        return finished

    def close(self) -> None:
        for actor in self._actors:
            self._ray.kill(actor)
        self._actors.clear()
        if self._started_here:
            self._ray.shutdown()


def _lost(exc: Exception) -> str:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return f"the Ray actor running it was lost ({type(exc).__name__}: {first})"
