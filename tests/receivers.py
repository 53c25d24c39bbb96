"""A local HTTP receiver for the callback tests: a server on a free loopback port, in a thread, that records
every request (method, path, headers, body) and answers as a test tells it: a status per path, a sequence
of statuses (fail twice, then succeed), a redirect, or no answer at all until the test lets it go. Closing
it lets go of every held request and waits for every request under way: nothing is left running.

It also serves files for the tests of recordings fetched from URLs (`serve`): a body with its ETag and
Last-Modified (a conditional request that matches gets 304 and no body), or a `Content-Length` that lies."""
from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

STALL_AT_MOST_S = 60  # only a client that should have given up waits this long


@dataclass(frozen=True)
class Request:
    """One request as the receiver got it; `path` as sent, its query included."""

    method: str
    path: str
    headers: Message  # looked up without regard to case, as HTTP names are
    body: bytes

    @property
    def route(self) -> str:
        return self.path.split("?", 1)[0]

    @property
    def content_type(self) -> str | None:
        return self.headers.get("Content-Type")


class Receiver:
    """Answers 200 to every path unless told otherwise with `answer` or `stalling`; `requests` holds every
    request in the order they came."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._answers: dict[str, tuple[list[int], str | None]] = {}
        self._held: dict[str, threading.Event] = {}
        self._bodies: dict[str, Served] = {}
        self._closing = threading.Event()
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        server_class = type("Server", (_Server,), {"address_family": family})
        self._httpd = server_class((host, 0), _Handler)
        self._httpd.receiver = self
        shown = f"[{host}]" if ":" in host else host
        self.url = f"http://{shown}:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="receiver", daemon=True)
        self._thread.start()

    def answer(self, route: str, *statuses: int, location: str | None = None) -> None:
        """The statuses of the next requests to `route` (the path without its query), in order; the last one
        answers every request after them. `location` (a path of this receiver, or a URL) goes in a Location
        header: with a 3xx status, a redirect."""
        if not statuses:
            raise ValueError("answer needs at least one status")
        if location is not None and location.startswith("/"):
            location = self.url + location
        with self._lock:
            self._answers[route] = (list(statuses), location)

    @contextmanager
    def stalling(self, route: str) -> Iterator[None]:
        """Requests to `route` get no answer while the block runs (each is recorded when it comes); they are
        answered when it ends, to whoever still waits, or after STALL_AT_MOST_S: a client that never gives
        up then gets its answer, and the test that expected it to give up fails instead of hanging."""
        release = threading.Event()
        with self._lock:
            self._held[route] = release
        try:
            yield
        finally:
            with self._lock:
                self._held.pop(route, None)
            release.set()

    def serve(self, route: str, body: bytes, *, etag: str | None = None, last_modified: str | None = None,
              length: int | bool = True, content_type: str = "application/octet-stream",
              drip_s: float | None = None) -> None:
        """GET `route` answers 200 with `body` (unless `answer` tells it otherwise). `etag` and `last_modified`
        are sent as the ETag and Last-Modified headers; a request whose If-None-Match is `etag` (or, without
        one, whose If-Modified-Since is `last_modified`) gets 304 and no body. `length`: True, the real
        Content-Length; a number, that one whatever the body is (a lie); False, none (the body ends when
        the connection does). `drip_s`: the body is sent a byte at a time, this many seconds apart (a server that
        slows to a trickle), until it is all sent or the client hangs up."""
        with self._lock:
            self._bodies[route] = Served(body, etag, last_modified, length, content_type, drip_s)

    def requests_to(self, route: str) -> list[Request]:
        """The requests to `route`, whatever their query."""
        with self._lock:
            return [r for r in self.requests if r.route == route]

    def close(self) -> None:
        self._closing.set()
        with self._lock:
            held, self._held = list(self._held.values()), {}
        for release in held:
            release.set()
        self._httpd.shutdown()
        self._thread.join()
        self._httpd.server_close()  # waits for the requests under way

    def _take(self, request: Request) -> tuple[threading.Event | None, int, str | None]:
        """Record `request`; what holds it (if anything), its status and its Location."""
        with self._lock:
            self.requests.append(request)
            statuses, location = self._answers.get(request.route, ([200], None))
            status = statuses.pop(0) if len(statuses) > 1 else statuses[0]
            return self._held.get(request.route), status, location


@dataclass(frozen=True)
class Served:
    """What `Receiver.serve` answers on one route."""

    body: bytes
    etag: str | None
    last_modified: str | None
    length: int | bool
    content_type: str
    drip_s: float | None = None

    def not_modified(self, request: Request) -> bool:
        if self.etag is not None and "If-None-Match" in request.headers:
            return request.headers["If-None-Match"] == self.etag
        return self.last_modified is not None and request.headers.get("If-Modified-Since") == self.last_modified


class _Server(ThreadingHTTPServer):
    daemon_threads = False  # server_close joins the threads of requests under way
    block_on_close = True
    receiver: Receiver


class _Handler(BaseHTTPRequestHandler):
    timeout = 60  # a client that stops sending in the middle of a request ends its thread

    def _handle(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        receiver = self.server.receiver
        request = Request(self.command, self.path, self.headers, body)
        release, status, location = receiver._take(request)
        if release is not None:
            release.wait(STALL_AT_MOST_S)
        with receiver._lock:
            served = receiver._bodies.get(request.route) if self.command == "GET" and status == 200 else None
        if served is not None and served.not_modified(request):
            status, served = 304, None
        try:
            self.send_response(status)
            if location is not None:
                self.send_header("Location", location)
            if served is None:
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_header("Content-Type", served.content_type)
            for name, value in (("ETag", served.etag), ("Last-Modified", served.last_modified)):
                if value is not None:
                    self.send_header(name, value)
            if served.length is not False:
                self.send_header("Content-Length", str(len(served.body) if served.length is True else served.length))
            self.end_headers()
            if served.drip_s is None:
                self.wfile.write(served.body)
            for k in range(len(served.body) if served.drip_s is not None else 0):
                if receiver._closing.is_set():  # the test is over: a client that never hangs up ends nothing
                    break
                self.wfile.write(served.body[k:k + 1])
                self.wfile.flush()
                time.sleep(served.drip_s)
        except (BrokenPipeError, ConnectionResetError):  # a client that gave up waiting
            pass

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _handle  # noqa: N815 - http.server's names

    def log_message(self, *args) -> None:
        pass


@contextmanager
def receiving(host: str = "127.0.0.1") -> Iterator[Receiver]:
    """A Receiver on `host` (an IPv4 or IPv6 loopback address) while the block runs, closed after it."""
    receiver = Receiver(host)
    try:
        yield receiver
    finally:
        receiver.close()
