"""Analytics over the words: the conversation metrics (`metrics`), sentence sentiment (`sentiment`),
keywords and topics (`knowledge`, with the topic taxonomies of `taxonomy`), verb-noun pairs
(`verbnoun`), and the spaCy parse they share (`parsing`).

Its modules import the foundation, `engines/`, `stages/options.py` and, of the other sub-packages of
`stages/`, only what `stages.recognition` exports (the sentences' embeddings and offsets). Everyone
else imports only the names below: the stage modules that `stages/pipeline.py` walks, and the taxonomy
loader (for `config/v3.py`, which checks a configuration's taxonomy file).
"""
from __future__ import annotations

from speechproc.stages.analytics import knowledge, metrics, sentiment, verbnoun
from speechproc.stages.analytics.taxonomy import load as load_taxonomy

__all__ = ["knowledge", "load_taxonomy", "metrics", "sentiment", "verbnoun"]
