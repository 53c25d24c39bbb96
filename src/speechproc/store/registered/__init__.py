"""What is registered in the catalog besides media: category and keyword-group definitions checked
(`definitions`), custom vocabularies (`vocabularies`), people enrolled by voice (`speakers`), and the
public keys of client-supplied encryption (`keys`).

Its modules import the foundation, `query/`, `formats/`, `stages/options.py` and what `stages.speakers` exports
(voiceprint similarities), and of the other sub-packages of `store/` only what `store.database` and
`store.media_items` export. Everyone else imports only the names below.
"""
from __future__ import annotations

from speechproc.store.registered import definitions, keys, speakers, vocabularies

__all__ = ["definitions", "keys", "speakers", "vocabularies"]
