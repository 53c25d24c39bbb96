"""Whether an earlier result can stand in for processing a recording again: the one place that decides.

A finished media item is reused when the file's content (SHA-256), the effective configuration (with the
definitions it names), the metadata, the output place and the speechproc version are all unchanged, and
its outputs are all still there. The catalog looks the item up by these keys while it claims the input.

A URL is the same: its content is known once it is downloaded (`fetch_unless_unchanged`). When a finished
item of this very URL (its whole text, query included, by `url_key`) and configuration kept the
server's validators (`ETag`, `Last-Modified`) and its outputs are still there, the request is conditional:
a 304 answer says the content is unchanged, and nothing is downloaded.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from speechproc import __version__, download, urls
from speechproc import errors as E
from speechproc.config.settings import Settings
from speechproc.media import file_hash
from speechproc.paths import publish, state_home, temporary, write_bytes
from speechproc.store.database import Catalog, FetchedRow, MediaRow, Source


def settings_key(settings: Settings, metadata: dict[str, Any], out_dir: Path | None) -> str:
    """What besides the content decides reuse: configuration, definitions, metadata, output place, version."""
    defined = [{k: v for k, v in d.items() if k not in ("dateCreated", "dateModified")}
               for d in settings.categories + settings.groups + settings.classifiers]
    if settings.named_vocabularies:  # the stored lists as they read now (inline terms are in the fingerprint)
        defined.append({"vocabulary": list(settings.vocabulary_terms)})
    blob = json.dumps([settings.fingerprint(), defined, metadata, str(out_dir), __version__], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def content_key(path: Path) -> str | None:
    """SHA-256 of a regular file's content; None for anything else or a file that cannot be read (then
    processing it fails with the reason, and nothing is ever reused for it)."""
    try:
        return file_hash(path) if path.is_file() else None
    except OSError:
        return None


def still_there(row: MediaRow) -> bool:
    """Whether a finished item's outputs all still exist (else the file is processed again); its HTML
    report is not needed: `run --report` writes a missing one from the stored result."""
    return all(Path(p).exists() for name, p in row["outputs"].items() if name != "report")


@dataclass
class Fetch:
    """What became of a URL input before its claim: unchanged since `earlier` (the server answered 304),
    downloaded (`fetched`, with what the catalog keeps of it, `source`), or the `problem` that fails it."""

    earlier: FetchedRow | None = None
    fetched: download.Fetched | None = None
    source: Source | None = None
    problem: E.SpeechprocError | None = None


def url_key(remote: urls.Remote) -> str:
    """What tells this very URL (its query included) from others of the same public form, as the catalog may
    keep it: an HMAC of the whole URL under a random key of the state folder (`url-key`), so that the
    catalog alone reveals nothing of a secret, however short."""
    place = state_home() / "url-key"
    if not place.exists():
        with temporary(place) as tmp:
            os.chmod(tmp, 0o600)
            write_bytes(tmp, secrets.token_bytes(32))
            try:
                publish(tmp, place, replace=False)
            except FileExistsError:  # an overlapping run made it first
                pass
    return hmac.new(place.read_bytes(), remote.whole.encode("utf-8", "surrogateescape"), hashlib.sha256).hexdigest()


def fetch_unless_unchanged(remote: urls.Remote, catalog: Catalog, config_hash: str, force: bool,
                           options: download.DownloadOptions) -> Fetch:
    """Download a URL input, conditionally when an earlier finished item of the same URL and configuration
    may stand in for it (never with `force`); the download's failure is the item's, not the batch's."""
    key = url_key(remote)
    earlier = None if force else catalog.media.find_fetched(remote.public, config_hash, key)
    if earlier is not None and not still_there(earlier):
        earlier = None
    validators = download.Validators(earlier["etag"], earlier["lastModified"]) if earlier else None
    try:
        fetched = download.fetch(remote, options, validators)
    except E.SpeechprocError as exc:
        return Fetch(problem=exc)
    if fetched is None:
        return Fetch(earlier=earlier)
    return Fetch(fetched=fetched, source=(fetched.validators.etag, fetched.validators.last_modified, key))
