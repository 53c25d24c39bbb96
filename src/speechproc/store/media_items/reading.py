"""Reading media items from the catalog: the v3 `GET /media` endpoints."""
from __future__ import annotations

from typing import cast

from speechproc import answers
from speechproc import errors as E
from speechproc.formats import openpgp, v3json
from speechproc.results import MediaItem, MediaListing
from speechproc.store.database import Catalog, MediaRow, listing
from speechproc.store.media_items.opening import using


def media_row(catalog: Catalog, media_id: str) -> MediaRow:
    """One media item; NotFoundError when the catalog has none of that id."""
    row = catalog.media.get(media_id)
    if row is None:
        raise E.NotFoundError(E.RESOURCE_NOT_FOUND, f"media {media_id} was not found in the catalog")
    return row


def list_media(limit: int = listing.DEFAULT_LIMIT, catalog: Catalog | None = None, *, sort_order: str = "desc",
               query: str | None = None, external_id: str | None = None, after: str | None = None,
               before: str | None = None, on_or_after_date: str | None = None, on_or_before_date: str | None = None,
               extended_filter: list[str] | tuple[str, ...] = ()) -> MediaListing:
    """`GET /media`: media items without their results, newest first unless `sort_order` is `asc`.

    The v3 filters: full-text `query`, `externalId`, `after`/`before` (mediaId cursors),
    `onOrAfterDate`/`onOrBeforeDate`, `extendedFilter` (`Name;Value`); `limit` is 1-1000.
    Raise ConfigurationError for a bad parameter, NotFoundError for an unknown cursor."""
    selection = listing.media_filter(limit, sort_order, query, external_id, after, before, on_or_after_date,
                                     on_or_before_date, extended_filter)
    with using(catalog) as cat:
        rows = cat.media.find(selection)
    if rows is None:
        raise E.NotFoundError(E.RESOURCE_NOT_FOUND, f"media {after if after is not None else before} (given as "
                              f"{'after' if after is not None else 'before'}) was not found in the catalog")
    given = {"query": query, "externalId": external_id, "after": after, "before": before,
             "onOrAfterDate": on_or_after_date, "onOrBeforeDate": on_or_before_date, "sortOrder": sort_order,
             "extendedFilter": tuple(extended_filter)}
    return {"_links": {"self": {"href": "/v3/media?" + listing.query_string(selection, given)}},
            "media": [v3json.summary(r["item"]) for r in rows],
            "pagination": {"limit": selection.limit,
                           "sortOrder": [{"field": "dateCreated", "direction": sort_order}]}}


def get_media(media_id: str, catalog: Catalog | None = None) -> MediaItem:
    """`GET /media/{id}`: the media item with every result."""
    with using(catalog) as cat:
        return media_row(cat, media_id)["item"]


def get_progress(media_id: str, catalog: Catalog | None = None) -> answers.Progress:
    """`GET /media/{id}/progress`: the job with one task per stage."""
    with using(catalog) as cat:
        row = media_row(cat, media_id)
    return cast(answers.Progress, v3json.progress(media_id, row["status"], row["tasks"]))


def get_metadata(media_id: str, catalog: Catalog | None = None) -> answers.MediaMetadata:
    """`GET /media/{id}/metadata`."""
    with using(catalog) as cat:
        item = media_row(cat, media_id)["item"]
    if openpgp.is_encrypted(item):
        raise openpgp.not_readable(media_id, "metadata")
    return cast(answers.MediaMetadata, {"_links": v3json.links(media_id), **item.get("metadata", {})})
