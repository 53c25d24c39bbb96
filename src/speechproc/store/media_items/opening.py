"""Opening the catalog for a command: the caller's, or the default one, which first deletes the media items
whose time to live has passed (`retention`), so that what expired is gone before anything reads it."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from speechproc.store.database import Catalog
from speechproc.store.media_items import retention


@contextmanager
def using(catalog: Catalog | None, purge_expired: bool = True) -> Iterator[Catalog]:
    """The caller's catalog (left open), or the default one, closed afterwards. Opening the default one
    first deletes the media items whose time to live has passed (one indexed query when nothing is due),
    unless `purge_expired` is False (the commands that delete items themselves)."""
    if catalog is not None:
        yield catalog
        return
    with Catalog() as own:
        if purge_expired:
            retention.purge_quietly(own)
        yield own
