"""Where a callback goes: a URL parsed once into a `Destination` (https, http to loopback, or a file under
`speechproc.callbackFileFolder`), and the rules checked on it at validation and again before sending."""
from __future__ import annotations

import ipaddress
import os
import re
import stat
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import SplitResult, unquote, urlsplit

from speechproc.delivery.deliveries import QueuedDelivery

_HOST_NAME = re.compile(r"[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
SCHEMES = "an https:// URL (or http:// to loopback, or file:// under speechproc.callbackFileFolder)"


class Refused(ValueError):
    """A callback URL that the destination rules do not allow; the message says why."""


@dataclass(frozen=True)
class Destination:
    """A callback URL parsed once. http(s): `host`, `port` and the request `target` (path and query).
    file: the configured `folder`, the path's `names` under it, and whether the URL names a folder."""

    scheme: str
    host: str = ""
    port: int | None = None
    target: str = "/"
    folder: str = ""
    names: tuple[str, ...] = ()
    into_folder: bool = False


def is_loopback(host: str) -> bool:
    """True for `localhost` and loopback IP addresses (127.0.0.0/8, ::1); any other host name is not."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def destination(url: str, *, allow_http: bool = False, file_folder: str | None = None) -> Destination:
    """Parse and check a callback URL; raise Refused with the reason when the rules do not allow it.

    https:// anywhere; http:// to loopback only unless `allow_http`; file:// only under `file_folder`.
    URLs with whitespace, control or non-ASCII characters, backslashes or user information are refused."""
    if any(not "!" <= ch <= "~" for ch in url):  # printable ASCII only: no space, control or other characters
        raise Refused("the URL holds whitespace, control or non-ASCII characters (percent-encode them)")
    if "\\" in url:
        raise Refused("the URL holds a backslash")
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise Refused(f"the URL cannot be parsed ({exc})") from None
    if parts.scheme in ("http", "https"):
        return _web(parts, allow_http)
    if parts.scheme == "file":
        return _file(parts, file_folder)
    raise Refused(f"must be {SCHEMES}")


def _web(parts: SplitResult, allow_http: bool) -> Destination:
    if "@" in parts.netloc:
        raise Refused("user information (user@host) is not allowed in a callback URL")
    host = parts.hostname or ""
    try:
        port = parts.port
    except ValueError:
        raise Refused("the port is not a number from 0 to 65535") from None
    if not _valid_host(host, bracketed=parts.netloc.startswith("[")):
        raise Refused(f"{host or 'an empty host'!r} is not a host name or an IP address")
    if parts.scheme == "http" and not allow_http and not is_loopback(host):
        raise Refused("http:// is allowed only to loopback addresses (127.0.0.0/8, [::1], localhost) unless "
                      "speechproc.allowHttpCallbacks is true; use https://")
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Destination(parts.scheme, host=host, port=port, target=target)


def _valid_host(host: str, bracketed: bool) -> bool:
    if bracketed:
        try:
            return "%" not in host and isinstance(ipaddress.ip_address(host), ipaddress.IPv6Address)
        except ValueError:
            return False
    with suppress(ValueError):
        return isinstance(ipaddress.ip_address(host), ipaddress.IPv4Address)
    return bool(_HOST_NAME.fullmatch(host)) and len(host) <= 253


def _names(path: str, what: str) -> list[str]:
    """The components of an absolute path; '.' and '..' are refused, not resolved."""
    if not path.startswith("/") or _CONTROL.search(path):
        raise Refused(f"{what} must be an absolute path without control characters")
    names = [n for n in path.split("/") if n]
    if any(n in (".", "..") for n in names):
        raise Refused(f"{what} must not hold '.' or '..'")
    return names


def check_file_folder(folder: str) -> None:
    """Raise Refused unless `folder` can be speechproc.callbackFileFolder: absolute, no '.' or '..'."""
    if not _names(folder, "the folder"):
        raise Refused("the folder must not be the root folder")


def _file(parts: SplitResult, file_folder: str | None) -> Destination:
    if parts.netloc.lower() not in ("", "localhost"):
        raise Refused(f"a file:// URL names a file on this machine: its host must be empty or localhost, "
                      f"not {parts.netloc!r}")
    if not file_folder:
        raise Refused("file:// callbacks are allowed only under the folder that speechproc.callbackFileFolder "
                      "names, and none is configured")
    if parts.query or parts.fragment:
        raise Refused("a file:// URL has no query or fragment")
    path = unquote(parts.path)
    names, folder = _names(path, "the file:// path"), _names(file_folder, "speechproc.callbackFileFolder")
    if names[:len(folder)] != folder:
        raise Refused(f"{path} is not under speechproc.callbackFileFolder ({file_folder})")
    inside = tuple(names[len(folder):])
    return Destination("file", folder="/" + "/".join(folder), names=inside,
                       into_folder=path.endswith("/") or not inside)


def inspect_folder(dest: Destination, must_exist: bool = True) -> None:
    """Check what exists of a file destination now: the folder exists (unless `must_exist` is False: a
    folder missing when sending is a failed attempt, retried, not a refusal), nothing under it on the
    way is a symbolic link, the folders on the way are folders. Raise Refused otherwise."""
    current = Path(dest.folder)
    if not current.is_dir():
        if not must_exist and not os.path.lexists(current):
            return
        raise Refused(f"speechproc.callbackFileFolder {dest.folder} is not an existing folder")
    for position, name in enumerate(dest.names, 1):
        current = current / name
        try:
            mode = current.lstat().st_mode
        except FileNotFoundError:
            return
        if stat.S_ISLNK(mode):
            raise Refused(f"{current} is a symbolic link; file callbacks do not follow links")
        if position < len(dest.names) and not stat.S_ISDIR(mode):
            raise Refused(f"{current} is not a folder")


def delivery_destination(delivery: QueuedDelivery) -> Destination:
    """A queued delivery's URL checked against the rules it was queued with (the strict rules when it
    was queued by a version that did not keep them)."""
    return destination(delivery["url"], allow_http=bool(delivery.get("allowHttp")),
                       file_folder=delivery.get("fileFolder"))
