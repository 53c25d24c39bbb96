"""Matching a call against what the user defined: categories, each a query evaluated on the
transcript (`categories`), registered classifiers' predictions (`classify`), keyword groups
(`spotting`).

Its modules import the foundation, `query/` and `engines/`, and no other sub-package of `stages/`.
Everyone else imports only the names below: the stage modules that `stages/pipeline.py` walks.
"""
from __future__ import annotations

from speechproc.stages.matching import categories, classify, spotting

__all__ = ["categories", "classify", "spotting"]
