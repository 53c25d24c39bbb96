"""Recordings fetched from an http(s) URL (the v3 `mediaUrl`).

`parse` reads a URL once into a `Remote`: the whole URL, for the download alone, and its public form
(`scheme://host[:port]/path`: no user information, query string or fragment), the only form ever shown or
kept. `fetch` streams the body into a temporary file in the state folder within a size cap, a connect and
a total timeout and at most `MAX_REDIRECTS` redirects (each target checked again: http and https only),
checks it against its `Content-Length`, and probes the bytes as media (the type comes from them, never
from `Content-Type`). Given the validators of an earlier download (`ETag`, `Last-Modified`) the request
is conditional, and a 304 answer downloads nothing. Every error is a `SpeechprocError` with its v3 code,
whose message names the public form only.
"""
from __future__ import annotations

import base64
import hashlib
import http.client
import socket
import ssl
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, unquote, urljoin, urlsplit

from speechproc import __version__, media
from speechproc import errors as E
from speechproc.paths import remove_stale_temporaries, state_home, temporary
from speechproc.schema import Int, Num, Setting
from speechproc.urls import PRINTABLE, SCHEMES, Remote, parse

MAX_REDIRECTS = 5
REDIRECTS = (301, 302, 303, 307, 308)
BLOCK = 1 << 16
LONGER_BODY_WAIT_S = 0.5  # how long bytes that would follow the declared length are waited for


@dataclass(frozen=True, kw_only=True)
class DownloadOptions:
    """The local settings of fetching recordings from URLs."""

    max_bytes: int = Setting("maxDownloadBytes", 4 * 2**30, Int(minimum=1, maximum=2**40),
                             "A recording fetched from a URL may be at most this large (10800 otherwise).").field()
    connect_timeout: float = Setting("downloadConnectTimeoutSeconds", 10, Num(minimum=0.01, maximum=600),
                                     "The time connecting to a recording's host may take (10203 otherwise).").field()
    timeout: float = Setting("downloadTimeoutSeconds", 3600, Num(minimum=0.01, maximum=86400),
                             "The time one recording's download may take in all (10203 otherwise).").field()


# ------------------------------------------------------------------------------------------ downloads

@dataclass(frozen=True)
class Validators:
    """What tells a server which download we have: its answer's ETag and Last-Modified."""

    etag: str | None = None
    last_modified: str | None = None


@dataclass
class Fetched:
    """A recording downloaded into a temporary file of the state folder (`downloads/`); `discard` removes it,
    and a later run removes it when this process is gone."""

    path: Path
    sha256: str
    size: int
    validators: Validators
    content_type: str  # from the bytes
    _stack: ExitStack = field(repr=False, default_factory=ExitStack)

    def discard(self) -> None:
        self._stack.close()


def fetch(remote: Remote, options: DownloadOptions, validators: Validators | None = None,
          into: Path | None = None, clock: Callable[[], float] = time.monotonic) -> Fetched | None:
    """Download `remote` into a temporary file of `into` (default: `downloads/` in the state folder, where the
    leftovers of processes that are gone are removed first), its bytes probed as media. With `validators`
    the request is conditional: None when the server answers 304 (nothing downloaded).

    SpeechprocError: 10203 the host cannot be reached or the transfer fails (a timeout, a body shorter or
    longer than its Content-Length), 10207 a status that is not 2xx or a redirect not followed, 10800 a body
    over `options.max_bytes`, 10201 bytes that are not media. The temporary file is removed on any failure,
    Ctrl-C included."""
    if into is None:
        into = state_home() / "downloads"
        into.mkdir(mode=0o700, exist_ok=True)
        remove_stale_temporaries(into)
    stack = ExitStack()
    try:
        tmp = stack.enter_context(temporary(into / remote.name))
        got = _Transfer(remote, options, clock() + options.timeout, clock).into(tmp, validators or Validators())
        if got is None:
            stack.close()
            return None
        try:
            info = media.probe(tmp)
        except E.SpeechprocError as exc:
            raise E.SpeechprocError(E.MEDIA_UNREADABLE, exc.message.replace(str(tmp), remote.public)) from None
        return Fetched(tmp, got[0], got[1], got[2], info.content_type, stack)
    except E.SpeechprocError as exc:
        stack.close()
        raise E.SpeechprocError(exc.code, remote.scrub(exc.message), exc.status) from None
    except Exception as exc:  # never a message that might quote the URL's secrets
        stack.close()
        raise E.SpeechprocError(E.INTERNAL, remote.scrub(f"{remote.public}: {type(exc).__name__}: {exc}"), 500) \
            from None
    except BaseException:  # Ctrl-C: the temporary file goes too
        stack.close()
        raise


_FAILURES = (OSError, http.client.HTTPException, ValueError)  # what a request or a read may raise


class _Transfer:
    """One download: its requests (redirects followed), its deadline, its body streamed to a file."""

    def __init__(self, remote: Remote, options: DownloadOptions, deadline: float, clock: Callable[[], float]) -> None:
        self.remote, self.options, self.deadline, self.clock = remote, options, deadline, clock
        self.expired = False
        self.watchdog: threading.Timer | None = None  # ends the connection under way at the deadline
        self.sock: socket.socket | None = None  # the connection's socket (its answer keeps it once the headers are read)

    def into(self, tmp: Path, validators: Validators) -> tuple[str, int, Validators] | None:
        """(SHA-256, size, the answer's validators) of the body written to `tmp`; None for a 304 answer."""
        url, credentials = self.remote.url, _credentials(self.remote.url)
        for hop in range(MAX_REDIRECTS + 1):
            connection, answer = self.request(url, credentials, validators)
            try:
                if answer.status in REDIRECTS:
                    target = self.redirect(url, answer, hop)
                    if _origin(target) != _origin(url):
                        credentials = None  # user information goes to its own host only
                    url = target
                    continue
                if answer.status == 304 and (validators.etag or validators.last_modified):
                    return None
                if not 200 <= answer.status < 300:
                    raise self.refused(f"the server answered with status {answer.status} ({answer.reason})")
                digest, size = self.body(answer, tmp)
                return digest, size, Validators(answer.getheader("ETag"), answer.getheader("Last-Modified"))
            except _FAILURES as exc:
                raise self.broken(exc) from None
            finally:
                answer.close()  # the answer holds the socket open past the connection's close
                self.end(connection)
        raise AssertionError("the loop returns or raises")

    def redirect(self, url: str, answer: http.client.HTTPResponse, hop: int) -> str:
        """The checked target of a redirect; 10207 for one too many, one without a Location, and one to a URL
        that is not http(s) or is malformed (its target is never shown: it may hold secrets)."""
        status, location = answer.status, answer.getheader("Location")
        if hop == MAX_REDIRECTS:
            raise self.refused(f"more than {MAX_REDIRECTS} redirects (the last answered {status})")
        if not location:
            raise self.refused(f"the server answered with status {status} but no Location")
        target = urljoin(url, location.strip())
        scheme = target.partition(":")[0].lower() if ":" in target else "relative"
        if scheme not in SCHEMES:
            raise self.refused(f"the server answered with status {status}, a redirect to a {scheme}: URL, which "
                               "is not followed (only http and https are)")
        try:
            parse(target)
        except E.ConfigurationError:
            raise self.refused(f"the server answered with status {status}, a redirect to a malformed URL") from None
        return target

    def request(self, url: str, credentials: str | None,
                validators: Validators) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        """Connect (within the connect timeout) and send the GET; the answer's status line and headers."""
        parts = urlsplit(url)
        https, timeout = parts.scheme.lower() == "https", max(0.001, min(self.options.connect_timeout, self.left()))
        host, port = parts.hostname or "", parts.port or (443 if https else 80)
        connection = http.client.HTTPSConnection(host, port, timeout=timeout, context=ssl.create_default_context()) \
            if https else http.client.HTTPConnection(host, port, timeout=timeout)
        target = quote(parts.path or "/", safe=PRINTABLE) + (f"?{quote(parts.query, safe=PRINTABLE)}"
                                                              if parts.query else "")
        headers = {"User-Agent": f"speechproc/{__version__}", "Accept-Encoding": "identity", "Connection": "close",
                   "Authorization": f"Basic {credentials}" if credentials else None,
                   "If-None-Match": validators.etag, "If-Modified-Since": validators.last_modified}
        try:
            connection.connect()
        except TimeoutError:
            connection.close()
            raise (self.timed_out() if self.left() <= 0 else self.unreachable(
                f"no connection within {self.options.connect_timeout:g} s, speechproc.downloadConnectTimeoutSeconds")) \
                from None
        except _FAILURES as exc:
            connection.close()
            raise self.broken(exc) from None
        self.sock = connection.sock
        self.watchdog = threading.Timer(max(0.0, self.left()), self.cut)
        self.watchdog.daemon = True
        self.watchdog.start()
        try:
            self.tick()
            connection.request("GET", target, headers={k: v for k, v in headers.items() if v})
            return connection, connection.getresponse()
        except BaseException as exc:
            self.end(connection)
            if isinstance(exc, _FAILURES):
                raise self.broken(exc) from None
            raise

    def body(self, answer: http.client.HTTPResponse, tmp: Path) -> tuple[str, int]:
        """Stream the body to `tmp`; (SHA-256, size). A body over the cap, or shorter or longer than its
        Content-Length (read from the connection itself: the declared length is checked, not trusted), fails."""
        cap, value = self.options.max_bytes, (answer.getheader("Content-Length") or "").strip()
        declared = None if answer.chunked or not value else int(value) if value.isascii() and value.isdigit() else -1
        if declared == -1:
            raise self.unreachable(f"the Content-Length {value!r} is not a number")
        if declared is not None and declared > cap:
            raise self.too_large()
        digest, size, raw = hashlib.sha256(), 0, answer.fp
        with open(tmp, "wb") as out:
            while declared is None or size < declared:
                self.tick()
                want = BLOCK if declared is None else min(BLOCK, declared - size)
                block = answer.read(want) if declared is None else raw.read1(want)
                if not block:
                    if self.expired or self.left() <= 0:  # the deadline cut the connection: no short body
                        raise self.timed_out()
                    break
                size += len(block)
                if size > cap:
                    raise self.too_large()
                digest.update(block)
                try:
                    out.write(block)
                except OSError as exc:
                    raise self.fail(E.INTERNAL, f"the download cannot be written to the state folder "
                                    f"({exc.strerror or exc})", 500) from None
        if declared is not None and size < declared:
            raise self.unreachable(f"the body ended after {size} of the {declared} bytes its Content-Length declares")
        if declared is not None and self.more_follows(raw):
            raise self.unreachable(f"the body is longer than the {declared} bytes its Content-Length declares")
        return digest.hexdigest(), size

    def more_follows(self, raw) -> bool:
        """Whether bytes follow the declared length (the request asked the server to close after its answer)."""
        try:
            if self.sock is not None:
                self.sock.settimeout(max(0.001, min(LONGER_BODY_WAIT_S, self.left())))
            return raw is not None and bool(raw.peek(1))
        except (OSError, ValueError):  # a timeout included: nothing follows
            return False

    def tick(self) -> None:
        """Before each read: the deadline not passed, and the socket's timeout what is left of it."""
        if self.left() <= 0:
            raise self.timed_out()
        if self.sock is not None:
            self.sock.settimeout(max(0.001, self.left()))

    def left(self) -> float:
        return self.deadline - self.clock()

    def end(self, connection: http.client.HTTPConnection) -> None:
        if self.watchdog is not None:
            self.watchdog.cancel()
        connection.close()
        if self.sock is not None:
            self.sock.close()

    def cut(self) -> None:
        """At the deadline: end the connection, so that a read waiting on it ends now."""
        self.expired = True
        if self.sock is not None:
            try:
                self.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def fail(self, code: int, why: str, status: int = 400) -> E.SpeechprocError:
        return E.SpeechprocError(code, f"{self.remote.public}: {why}", status)

    def unreachable(self, why: str) -> E.SpeechprocError:
        return self.fail(E.MEDIA_URL_UNREACHABLE, f"the media url is unreachable ({why})")

    def refused(self, why: str) -> E.SpeechprocError:
        return self.fail(E.MEDIA_URL_STATUS, f"the recording could not be downloaded: {why}")

    def timed_out(self) -> E.SpeechprocError:
        return self.unreachable(f"the download did not finish within {self.options.timeout:g} s, "
                                "speechproc.downloadTimeoutSeconds")

    def too_large(self) -> E.SpeechprocError:
        return self.fail(E.PAYLOAD_TOO_LARGE, f"the payload is larger than {self.options.max_bytes} bytes "
                         "(speechproc.maxDownloadBytes)", 413)

    def broken(self, exc: BaseException) -> E.SpeechprocError:
        """A transfer that failed: a timeout, or the reason the system or the HTTP parser gives."""
        if isinstance(exc, E.SpeechprocError):
            return exc
        if self.expired or self.left() <= 0 or isinstance(exc, TimeoutError):
            return self.timed_out()
        if isinstance(exc, http.client.IncompleteRead):
            return self.unreachable("the connection ended in the middle of the body")
        if isinstance(exc, ssl.SSLError):
            return self.unreachable(f"TLS: {exc.reason or exc}")
        if isinstance(exc, OSError):
            return self.unreachable(exc.strerror or type(exc).__name__)
        return self.unreachable(f"the answer is not valid HTTP: {type(exc).__name__}")


def _credentials(url: str) -> str | None:
    """Basic credentials from the URL's user information (user:password@host), if it has any."""
    parts = urlsplit(url)
    if parts.username is None:
        return None
    return base64.b64encode(f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()).decode("ascii")


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    return parts.scheme.lower(), (parts.hostname or "").lower(), parts.port
