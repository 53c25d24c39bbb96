"""Keyword spotting: which keywords of each configured group were said, by whom and when.

A keyword matches as a phrase of whole words (case and punctuation ignored). A group is `spotted`
when any of its keywords was said; its `score` is the share of its keywords that were said.
"""
from __future__ import annotations

from collections.abc import Sequence

from speechproc.configuration import KeywordGroupDefinition
from speechproc.conversation import Conversation, KeyTerm, KeywordGroupResult
from speechproc.query import Document, documents
from speechproc.query.evaluator import term_hits
from speechproc.query.tree import Phrase, normalise_word


def spot(doc: Document, group: KeywordGroupDefinition) -> KeywordGroupResult:
    said: list[KeyTerm] = []
    for keyword in group["keywords"]:
        words = tuple(w for w in (normalise_word(x) for x in keyword.split()) if w)
        hits = [h for found in term_hits(Phrase(words), doc).values() for h in found]
        if hits:
            said.append(KeyTerm(keyword, None, documents.occurrences(hits)))
    return KeywordGroupResult(group["groupName"], bool(said), round(len(said) / len(group["keywords"]), 4), said)


def run(conv: Conversation, groups: Sequence[KeywordGroupDefinition]) -> None:
    """Spot every keyword group (definitions as stored) in the transcript."""
    doc = documents.from_conversation(conv)
    conv.spotting = [spot(doc, group) for group in groups]
