"""The spaCy parse of a conversation, made once and shared by the stages that read syntax."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from speechproc.conversation import Conversation, Token, text_of
from speechproc.engines.models import load_spacy

if TYPE_CHECKING:
    from spacy.tokens import Doc


@dataclass
class ParsedTurn:
    """One speaker turn parsed as one text (its sentences keep their context); token characters map back
    to `words`."""

    speaker: str
    words: list[Token]
    doc: Doc

    @cached_property
    def lemma_positions(self) -> dict[str, list[int]]:
        """Each lower-cased lemma of the turn -> the token positions it is at, in order."""
        positions: dict[str, list[int]] = {}
        for i, lemma in enumerate(self.lemmas):
            positions.setdefault(lemma, []).append(i)
        return positions

    @cached_property
    def lemmas(self) -> list[str]:
        """The lower-cased lemma of each token."""
        return [token.lemma_.lower() for token in self.doc]


def parse(conv: Conversation, model: str) -> list[ParsedTurn]:
    """The parsed turns of the conversation (cached on it: the parse is made once per recording)."""
    if conv.parsed is None:
        nlp = load_spacy(model)
        groups = [(turn.speaker, turn.words) for turn in conv.turns if any(w.is_word for w in turn.words)]
        with nlp.select_pipes(disable=[p for p in ("ner",) if p in nlp.pipe_names]):
            docs = nlp.pipe([text_of(words) for _, words in groups], batch_size=64)
            conv.parsed = [ParsedTurn(speaker, words, doc) for (speaker, words), doc in zip(groups, docs)]
    return conv.parsed
