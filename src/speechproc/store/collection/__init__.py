"""The catalog as a collection of calls: corpus queries over the analytic index and indexing an item
(`corpus`), stored definitions, classifiers and corpus queries for `api` (`registry`), the export of one
row per item (`export`), and call drivers across many calls (`drivers`).

Its modules import the foundation, `query/`, `engines/`, `formats/`, and of the other sub-packages of
`store/` only what `store.database`, `store.files`, `store.media_items` and `store.registered` export.
Everyone else imports only the names below.
"""
from __future__ import annotations

from speechproc.store.collection import drivers, export, registry
from speechproc.store.collection.corpus import searchable
from speechproc.store.collection.export import records, refuse, write_requested

__all__ = ["drivers", "export", "records", "refuse", "registry", "searchable", "write_requested"]
