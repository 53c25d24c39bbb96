"""The expiry that `timeToLiveInSeconds` gives a media item: its `expiresOn` is its `dateFinished` plus
its time to live, as the v3 media item and its callbacks show both."""
from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta, timezone
from typing import Any

from speechproc.formats import v3json

LATEST = datetime.max.replace(tzinfo=timezone.utc)


def expiry(item: Mapping[str, Any], ttl: int | None) -> dict[str, Any]:
    """`timeToLiveInSeconds` and `expiresOn` of an item with this time to live; an expiry past the year
    9999 is the last moment of 9999, and one that cannot be computed (no or an unreadable dateFinished)
    is left out. {} when there is no time to live."""
    if isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or not item.get("dateFinished"):
        return {}
    try:
        finished = datetime.strptime(item["dateFinished"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    except (TypeError, ValueError):
        return {"timeToLiveInSeconds": ttl}
    try:
        expires = finished + timedelta(seconds=ttl)
    except (OverflowError, ValueError):
        expires = LATEST if ttl > 0 else finished
    return {"timeToLiveInSeconds": ttl, "expiresOn": v3json.iso(expires)}


def with_expiry(item: Mapping[str, Any], ttl: int | None) -> dict[str, Any]:
    """The item with its `timeToLiveInSeconds` and `expiresOn` right after `dateFinished` (as a v3 media
    summary lists them); the item as it is when there is no time to live."""
    fields = expiry(item, ttl)
    if not fields:
        return dict(item)
    out: dict[str, Any] = {}
    for key, value in item.items():
        if key not in fields:
            out[key] = value
        if key == "dateFinished":
            out |= fields
    return out
