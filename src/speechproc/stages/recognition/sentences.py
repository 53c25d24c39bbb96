"""Sentences of the transcript, the unit that sentiment, verb-noun pairs and topics work on."""
from __future__ import annotations

import numpy as np

from speechproc.conversation import PUNC, Sentence, SpeakerTurn, Token
from speechproc.engines.models import load_sentence_encoder

SENTENCE_ENDS = frozenset({".", "?", "!"})
PAUSE_MS = 1000  # without punctuation, a pause this long inside a turn also ends a sentence


def split(turns: list[SpeakerTurn]) -> list[Sentence]:
    """Sentences in transcript order: each turn cut after `.`, `?` or `!`, and at long pauses."""
    out: list[Sentence] = []
    for turn in turns:
        current: list[Token] = []
        last_end: int | None = None
        for tok in turn.words:
            if tok.m is None and current and last_end is not None and tok.s - last_end >= PAUSE_MS:
                out.append(Sentence(turn.speaker, current))
                current = []
            current.append(tok)
            if tok.m is None:
                last_end = tok.e
            if tok.m == PUNC and tok.w in SENTENCE_ENDS:
                out.append(Sentence(turn.speaker, current))
                current = []
        if current:
            out.append(Sentence(turn.speaker, current))
    return [s for s in out if any(w.m is None for w in s.words)]


def char_offsets(tokens: list[Token]) -> list[int]:
    """The start offset of each token in `text_of(tokens)`."""
    offsets, pos = [], 0
    for i, w in enumerate(tokens):
        if i and w.m != PUNC:
            pos += 1
        offsets.append(pos)
        pos += len(w.w)
    return offsets


def embed(sentences: list[Sentence], encoder: str) -> None:
    """Give every sentence its normalised embedding, once; the stages that need one share it."""
    todo = [s for s in sentences if s.embedding is None]
    if not todo:
        return
    vectors = load_sentence_encoder(encoder).encode([s.text for s in todo], batch_size=64)
    for sentence, vector in zip(todo, vectors):
        sentence.embedding = vector


def embeddings(sentences: list[Sentence]) -> np.ndarray:
    """The sentences' embeddings (`embed` gave them), one row each."""
    rows: list[np.ndarray] = []
    for sentence in sentences:
        if sentence.embedding is None:
            raise ValueError("a sentence has no embedding: embed the sentences first")
        rows.append(sentence.embedding)
    return np.stack(rows)
