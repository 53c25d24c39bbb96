"""The media items of the catalog: the catalog opened for a command with what expired purged first
(`opening`), items read (`reading`, the `GET /media` endpoints), an item's metadata replaced and its
streams listed (`items`), and retention: expiry and deletion with every file written for an item
(`retention`).

Its modules import the foundation, `formats/`, and of the other sub-packages of `store/` only what
`store.database` and `store.files` export. Everyone else imports only the names below.
"""
from __future__ import annotations

from speechproc.store.media_items import items, reading, retention
from speechproc.store.media_items.opening import using
from speechproc.store.media_items.reading import media_row

__all__ = ["items", "media_row", "reading", "retention", "using"]
