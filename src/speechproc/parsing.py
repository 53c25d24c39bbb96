"""The spaCy parse of a conversation, made once and shared by the stages that read syntax."""
from __future__ import annotations

from dataclasses import dataclass

from .conversation import Conversation, Sentence, Word, text_of
from .models import load_spacy


@dataclass
class ParsedTurn:
    """Consecutive sentences of one speaker parsed as one text; token characters map back to `words`."""

    speaker: str
    words: list[Word]
    doc: object  # spacy.tokens.Doc


def group_turns(sentences: list[Sentence]) -> list[tuple[str, list[Word]]]:
    """Consecutive sentences of one speaker, joined, so that each is parsed with its context."""
    groups: list[tuple[str, list[Word]]] = []
    for sentence in sentences:
        if groups and groups[-1][0] == sentence.speaker:
            groups[-1][1].extend(sentence.words)
        else:
            groups.append((sentence.speaker, list(sentence.words)))
    return groups


def parse(conv: Conversation, model: str) -> list[ParsedTurn]:
    """The parsed turns of the conversation (cached on it: the parse is made once per recording)."""
    if conv.parsed is None:
        nlp = load_spacy(model)
        groups = group_turns(conv.sentences)
        with nlp.select_pipes(disable=[p for p in ("ner",) if p in nlp.pipe_names]):
            docs = nlp.pipe([text_of(words) for _, words in groups], batch_size=64)
            conv.parsed = [ParsedTurn(speaker, words, doc) for (speaker, words), doc in zip(groups, docs)]
    return conv.parsed
