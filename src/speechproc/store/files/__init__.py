"""The files speechproc writes: the one decision whether an output file may be written and the one
way it is (`ownership`), and the intents a writer without the catalog leaves beside an output before its
rename (`intents`).

Its modules import the foundation and `formats/` (encryption), and no other sub-package of `store/`:
the catalog's record of written files reaches them as an `OutputRecord`. Everyone else imports only the
names below.
"""
from __future__ import annotations

from speechproc.store.files import intents, ownership
from speechproc.store.files.ownership import OutputRecord, Sealable, canonical

__all__ = ["OutputRecord", "Sealable", "canonical", "intents", "ownership"]
