"""One stored media item: its metadata replaced (`PUT /media/{id}/metadata`) and its streams listed
(`GET /media/{id}/streams`).

Replacing the metadata changes the item in the catalog and its analytic index entry together, then its
`.v3.json`, only when that file holds exactly what speechproc wrote there for the item (`ownership`): a
file someone replaced or edited is left as it is, and the answer says so in its `warnings`.
"""
from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from speechproc import answers, results
from speechproc import errors as E
from speechproc.formats import openpgp, v3json
from speechproc.paths import shown
from speechproc.store.database import Catalog
from speechproc.store.files import ownership
from speechproc.store.media_items.opening import using
from speechproc.store.media_items.reading import media_row

MAX_JSON_BYTES = 256 << 20  # a `.v3.json` larger than this is not read back to be rewritten


class ChangeWhileBusy(E.SpeechprocError):
    """A live process is working on the item: it is not changed under it."""

    def __init__(self, media_id: str, status: str, what: str) -> None:
        super().__init__(E.INVALID_VALUE, f"media {media_id} is {status}: its {what} cannot be changed until it "
                         "has finished; nothing was changed", 409)


def replace_metadata(media_id: str, metadata: dict[str, Any], catalog: Catalog | None = None) -> answers.MediaMetadata:
    """Put validated metadata in place of the item's; the `GET /media/{id}/metadata` answer, with
    `warnings` when the item's `.v3.json` was not rewritten (and why)."""
    with using(catalog) as cat:
        row = media_row(cat, media_id)
        item = row["item"]
        if openpgp.is_encrypted(item):
            raise openpgp.not_readable(media_id, "metadata")
        if cat.media.live_holder(media_id) is not None:
            raise ChangeWhileBusy(media_id, row["status"], "metadata")
        changed: results.MediaItem = {**item, "metadata": metadata}
        with cat.transaction():
            if not cat.media.replace_item(media_id, changed, unless_changed_from=item):
                raise E.SpeechprocError(E.INVALID_VALUE, f"media {media_id} changed while its metadata was being "
                                        "replaced; nothing was changed: try again", 409)
            cat.index.set_metadata(media_id, metadata)
        warnings = _rewrite_json(row["outputs"].get("json"), media_id, metadata, cat)
    answer: dict[str, object] = {"_links": v3json.links(media_id), **metadata}
    if warnings:
        answer["warnings"] = [{"code": E.INVALID_VALUE, "message": w} for w in warnings]
    return cast(answers.MediaMetadata, answer)  # the metadata as validated, with its links


def _rewrite_json(place: str | None, media_id: str, metadata: Mapping[str, Any], catalog: Catalog) -> list[str]:
    """Rewrite the item's `.v3.json` with the new metadata when it is speechproc's; why not, otherwise."""
    if place is None:
        return []
    path = Path(place)
    if not os.path.lexists(path):
        return [f"{shown(path)} is no longer there: only the catalog has the new metadata"]
    left = f"{shown(path)} was left as it is (it still holds the old metadata): "
    if not ownership.is_ours(path, catalog.written) or path.is_symlink():
        return [left + "it is not the file speechproc wrote for this item (it was replaced or changed since)"]
    try:
        if path.stat().st_size > MAX_JSON_BYTES:
            return [left + "it is too large to be rewritten"]
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return [left + f"it could not be read back ({exc})"]
    if not isinstance(document, dict) or document.get("mediaId") != media_id:
        return [left + "it does not hold this media item"]
    document["metadata"] = metadata
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    try:
        ownership.write(path, text, catalog.written, media_id)
    except (ownership.OutputConflict, OSError) as exc:
        return [left + str(getattr(exc, "message", exc))]
    return []


def streams(media_id: str, catalog: Catalog | None = None) -> answers.Streams:
    """`GET /media/{id}/streams`: {streams: [{streamName, streamLocation}]}, the location a file path.

    `original` is the recording; `redacted-audio` the redacted copy, when speechproc wrote one and it is
    still there. An encrypted item (its media item carries `encryption`) lists its encrypted files as
    `original-encrypted` and `redacted-encrypted` instead: only those speechproc wrote (a recording is
    never encrypted in place)."""
    with using(catalog) as cat:
        row = media_row(cat, media_id)
    outputs = row["outputs"]
    encrypted = openpgp.is_encrypted(row["item"])
    found: list[answers.StreamPlace] = []
    if encrypted:
        places = [("original-encrypted", outputs.get("original-encrypted")),
                  ("redacted-encrypted", outputs.get("redacted-audio"))]
    else:
        places = [("original", row["input_path"]), ("redacted-audio", outputs.get("redacted-audio"))]
    for name, place in places:
        if place is not None and os.path.exists(place):
            found.append({"streamName": name, "streamLocation": shown(Path(place))})
    return {"streams": found}
