"""Whether an earlier result can stand in for processing a file again: the one place that decides.

A finished media item is reused when the file's content (SHA-256), the effective configuration (with the
definitions it names), the metadata, the output place and the speechproc version are all unchanged, and
its outputs are all still there. The catalog looks the item up by these keys while it claims the input.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from speechproc import __version__
from speechproc.config.settings import Settings
from speechproc.media import file_hash


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


def still_there(row: dict[str, Any]) -> bool:
    """Whether a finished item's outputs all still exist (else the file is processed again); its HTML
    report is not needed: `run --report` writes a missing one from the stored result."""
    return all(Path(p).exists() for name, p in row["outputs"].items() if name != "report")
