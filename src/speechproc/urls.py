"""Recordings named by URL: a URL checked and parsed once (`parse`), the form of it that may be shown or
kept (without user information, query string and fragment), and the file name its outputs take."""
from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from urllib.parse import SplitResult, quote, unquote, urlsplit

from speechproc import errors as E

SCHEMES = ("http", "https")
MAX_NAME_BYTES = 120  # the outputs add their suffixes (`.report.html`) and a clash number to it
FALLBACK_NAME = "download"  # the file name of a URL whose path has no last segment
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]+)://")
_HOST_NAME = re.compile(r"[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?")
_NOT_IN_NAMES = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|]')
PRINTABLE = "".join(chr(c) for c in range(0x21, 0x7f))  # kept as they are in a request; the rest %-encoded


def looks_like_url(text: str) -> bool:
    """Whether a recording named on the command line or in a manifest is a URL (`scheme://...`), not a file;
    http and https are fetched, `parse` refuses any other scheme."""
    return _SCHEME.match(text) is not None


def without_secrets(text: str) -> str:
    """A URL as it may be shown before it is parsed: user information, query and fragment removed. User
    information whose password holds `/`, `?` or `#` unencoded ends at the last `@` before the path."""
    if (found := _SCHEME.match(text)) and _tangled_user_information(text[found.end():]):
        text = found[0] + text[found.end():].rpartition("@")[2]
    text = re.split(r"[?#]", text, maxsplit=1)[0]
    if found := _SCHEME.match(text):
        host, slash, path = text[found.end():].partition("/")
        text = found[0] + host.rpartition("@")[2] + slash + path
    return "".join(ch if "!" <= ch <= "~" else _quoted(ch) for ch in text)


def _tangled_user_information(rest: str) -> bool:
    """Whether user information (`name:password@`) holds a `/`, `?` or `#` that would end the host early, so
    that a URL parser would read part of the password as the host, port or path."""
    before = rest.rpartition("@")[0]
    return bool(before) and ":" in before and any(ch in before for ch in "/?#")


def _quoted(ch: str) -> str:
    """A character percent-encoded for showing; one that was a byte of a name that is not UTF-8, as that byte."""
    try:
        return quote(ch.encode("utf-8", "surrogateescape"))
    except UnicodeEncodeError:
        return quote(ch.encode("utf-8", "replace"))


def _location(parts: SplitResult) -> str:
    """host[:port] of a parsed URL, the host in lower case, a default port left out."""
    host, port = parts.hostname or "", parts.port
    default = 443 if parts.scheme.lower() == "https" else 80
    return (f"[{host}]" if ":" in host else host) + (f":{port}" if port not in (None, default) else "")


@dataclass(frozen=True)
class Remote:
    """A recording's URL, parsed once. `url` (secrets and all) is for the request alone: every message, note
    and record uses `public`; `name` is the file name its outputs are named after."""

    url: str = field(repr=False)
    public: str
    name: str

    @property
    def whole(self) -> str:
        """The whole URL (secret) without its fragment, its scheme and host in lower case and a default port
        left out: two spellings of one URL are one here (how a manifest row finds its URL)."""
        parts = urlsplit(self.url)
        user = parts.netloc.rpartition("@")[0]
        return (f"{parts.scheme.lower()}://{user + '@' if user else ''}{_location(parts)}{parts.path or '/'}"
                + (f"?{parts.query}" if parts.query else ""))

    def scrub(self, text: str) -> str:
        """`text` with every piece of the URL that may be secret (the URL, its user information, query and
        fragment) replaced by `...`: for messages of libraries that might quote them."""
        parts = urlsplit(self.url)
        for secret in (self.url, self.whole, parts.query, parts.fragment, parts.password, parts.username):
            if secret and len(secret) > 2 and secret != self.public:
                text = text.replace(secret, "...")
        return text


def malformed(shown: str, why: str) -> E.ConfigurationError:
    return E.ConfigurationError(E.MEDIA_URL_MALFORMED, f"{shown}: the media url is malformed ({why})")


def parse(text: str) -> Remote:
    """Check a recording's URL and parse it; ConfigurationError 10204 saying why it is malformed (the message
    shows the URL without its secrets)."""
    shown = without_secrets(text)
    if any(ch <= " " or "\x7f" <= ch <= "\x9f" for ch in text):
        raise malformed(shown, "it holds whitespace or control characters; percent-encode them")
    if "\\" in text:
        raise malformed(shown, "it holds a backslash")
    if any("\ud800" <= ch <= "\udfff" for ch in text):
        raise malformed(shown, "it is not UTF-8 text")
    found = _SCHEME.match(text)
    if found is not None and _tangled_user_information(text[found.end():]):
        raise malformed(shown, "its user information holds '/', '?' or '#': percent-encode them (%2F, %3F, %23)")
    found = _SCHEME.match(text)
    if found is None or found[1].lower() not in SCHEMES:
        scheme = f"{found[1]}:// is not fetched: " if found else ""
        raise malformed(shown, scheme + "only http:// and https:// URLs are")
    try:
        parts = urlsplit(text)
    except ValueError:
        raise malformed(shown, "it cannot be parsed as a URL (an IPv6 address goes in brackets)") from None
    try:
        if parts.port == 0:
            raise ValueError
    except ValueError:
        raise malformed(shown, "the port is not a number from 1 to 65535") from None
    _check_host(parts, shown)
    path = quote(parts.path, safe=PRINTABLE) or "/"
    return Remote(text, f"{parts.scheme}://{_location(parts)}{path}", file_name(parts.path))


def _check_host(parts: SplitResult, shown: str) -> None:
    host = parts.hostname or ""
    if not host:
        raise malformed(shown, "it names no host")
    if parts.netloc.rpartition("@")[2].startswith("["):
        try:
            if "%" not in host and isinstance(ipaddress.ip_address(host), ipaddress.IPv6Address):
                return
        except ValueError:
            pass
        raise malformed(shown, f"[{host}] is not an IPv6 address")
    try:
        ascii_host = host.encode("idna").decode("ascii")
    except UnicodeError:
        ascii_host = ""
    if not _HOST_NAME.fullmatch(ascii_host) or len(ascii_host) > 253:
        raise malformed(shown, f"{host!r} is not a host name or an IP address")


def file_name(path: str) -> str:
    """The last segment of a URL path as a safe file name: percent-decoded; separators, control and format
    characters (a right-to-left override, a zero-width space: a name that shows other than it is), other
    separators than the space, and those other systems refuse made `_`; no leading dot (hidden), no `.` or
    `..`; at most MAX_NAME_BYTES bytes (its extension kept); FALLBACK_NAME when nothing is left."""
    decoded = unquote(path.rstrip("/").rpartition("/")[2], errors="replace")
    shown = "".join(ch if ch == " " or ch.isprintable() else "_" for ch in decoded)  # format characters too
    name = _NOT_IN_NAMES.sub("_", shown).strip(" .")
    if len(name.encode()) > MAX_NAME_BYTES:
        stem, dot, suffix = name.rpartition(".")
        suffix = (dot + suffix) if dot and len(suffix.encode()) <= 16 else ""
        keep = (stem if suffix else name).encode()[: MAX_NAME_BYTES - len(suffix.encode())]
        name = keep.decode("utf-8", "ignore").rstrip(" .") + suffix
    return name or FALLBACK_NAME
