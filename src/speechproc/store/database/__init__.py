"""The catalog's database: one SQLite connection with its tables created or migrated (`catalog`), the
tables by schema version (`tables`), and one owner per table that alone speaks its SQL (`media_rows`,
`definitions_table`, `index_table`, `outbox_table`, `written`), with the v3 listing filters the media
table applies (`listing`).

Its modules import the foundation (`results`, `paths`) and no other sub-package of `store/`. Everyone
else imports only the names below.
"""
from __future__ import annotations

from speechproc.store.database import listing
from speechproc.store.database.catalog import Catalog
from speechproc.store.database.index_table import IndexSummary
from speechproc.store.database.media_rows import FetchedRow, MediaRow, Source
from speechproc.store.database.written import EXPORT_OWNER

__all__ = ["Catalog", "EXPORT_OWNER", "FetchedRow", "IndexSummary", "MediaRow", "Source", "listing"]
