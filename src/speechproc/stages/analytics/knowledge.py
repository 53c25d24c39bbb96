"""Keywords and topics (v3 `knowledge`, when `knowledge.enableDiscovery` is true).

Keywords: spaCy noun phrases (determiners, pronouns and stop words trimmed) scored KeyBERT-style:
relevance = 0.75 x similarity of the phrase's MiniLM embedding to the call's (the mean sentence
embedding) + 0.25 x its frequency relative to the most frequent candidate; picked by maximal marginal
relevance so near-duplicates do not crowd the list. Every occurrence of a keyword's lemmas is a mention.

Topics: a sentence's similarity to a topic is the larger of its similarity to the topic's description
and to its closest subtopic's; the topic's relevance is the mean over the call's three most similar
sentences. Topics at or above TOPIC_MIN are reported, with their subtopics and keywords.
"""
from __future__ import annotations

import bisect
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from speechproc import errors as E
from speechproc.conversation import Conversation, Discovery, KeyTerm, Mention, ScoredTopic, Token
from speechproc.engines import inventory, vector_cache
from speechproc.engines.models import (
    BUNDLED_SENTENCE_ENCODER,
    BUNDLED_SPACY,
    load_sentence_encoder,
    load_spacy,
    loaded_once,
    sentence_encoder_location,
)
from speechproc.stages.analytics import parsing, taxonomy
from speechproc.stages.analytics.parsing import ParsedTurn
from speechproc.stages.options import TextOptions
from speechproc.stages.recognition import char_offsets, embed, embeddings

MAX_KEYWORDS = 20
KEYWORD_MIN = 0.25  # relevance below this is not a keyword
MMR_LAMBDA = 0.7  # maximal marginal relevance: 1 = relevance only, 0 = diversity only
TOPIC_MIN = 0.35  # a topic is reported when its relevance reaches this
SUBTOPIC_MIN = 0.4
TOPIC_KEYWORD_MIN = 0.3  # a keyword belongs to a topic when their embeddings are this similar
TOP_SENTENCES = 3
MAX_PHRASE_TOKENS = 3
# nouns of courtesy and filler that every call has: never the head of a keyword
COURTESY_NOUNS = frozenset({"thank", "thanks", "help", "moment", "minute", "second", "day", "bit", "lot", "way",
                            "thing", "kind", "sort", "hello", "bye", "goodbye", "sir", "madam", "ma'am", "okay"})
_SKIP_POS = frozenset({"DET", "PRON", "NUM", "PUNCT", "PART", "CCONJ", "ADP", "INTJ", "SPACE"})


@dataclass
class Candidate:
    lemmas: tuple[str, ...]
    forms: Counter = field(default_factory=Counter)  # surface text -> count

    @property
    def text(self) -> str:
        return self.forms.most_common(1)[0][0]


def _phrase(chunk) -> list:  # chunk: spacy.tokens.Span -> tokens of the trimmed phrase
    tokens = [t for t in chunk if t.pos_ not in _SKIP_POS and not t.is_stop and t.is_alpha and len(t) > 1]
    if not tokens or tokens[-1].pos_ not in ("NOUN", "PROPN") or tokens[-1].lemma_.lower() in COURTESY_NOUNS:
        return []
    tokens = tokens[-MAX_PHRASE_TOKENS:]
    # keep only a contiguous tail: "my internet bill" -> "internet bill"
    while len(tokens) > 1 and tokens[0].i + len(tokens) - 1 != tokens[-1].i:
        tokens = tokens[1:]
    return tokens


def _form(tokens) -> str:
    return " ".join(t.text if t.pos_ == "PROPN" else t.lower_ for t in tokens)


def candidates(turns: Sequence[ParsedTurn]) -> dict[tuple[str, ...], Candidate]:
    """Noun phrases (and lone nouns outside phrases), keyed by their lemmas."""
    found: dict[tuple[str, ...], Candidate] = {}
    for turn in turns:
        for chunk in turn.doc.noun_chunks:
            tokens = _phrase(chunk)
            if tokens:
                key = tuple(t.lemma_.lower() for t in tokens)
                found.setdefault(key, Candidate(key)).forms[_form(tokens)] += 1
    return found


def mentions(turns: Sequence[ParsedTurn], lemmas: tuple[str, ...]) -> dict[str, list[Mention]]:
    """Every place a speaker said the lemma sequence, with its time span and exact words."""
    out: dict[str, list[Mention]] = defaultdict(list)
    n = len(lemmas)
    for turn in turns:
        starts = [i for i in turn.lemma_positions.get(lemmas[0], ()) if tuple(turn.lemmas[i: i + n]) == lemmas]
        if not starts:
            continue
        doc, offsets = turn.doc, char_offsets(turn.words)
        for i in starts:
            words = _words_between(turn.words, offsets, doc[i].idx, doc[i + n - 1].idx)
            out[turn.speaker].append(Mention(words[0].s, words[-1].e, doc[i: i + n].text))
    return {speaker: sorted(occ, key=lambda o: o.s) for speaker, occ in out.items()}


def _words_between(words: Sequence[Token], offsets: Sequence[int], first_char: int, last_char: int) -> list[Token]:
    i = bisect.bisect_right(offsets, first_char) - 1
    j = bisect.bisect_right(offsets, last_char) - 1
    return [w for w in words[i: j + 1] if w.is_word] or [words[i]]


def _mmr(relevance: np.ndarray, vectors: np.ndarray, k: int) -> list[int]:
    chosen: list[int] = []
    rest = list(np.argsort(-relevance))
    while rest and len(chosen) < k:
        if chosen:
            redundancy = (vectors[rest] @ vectors[chosen].T).max(axis=1)
            scores = MMR_LAMBDA * relevance[rest] - (1 - MMR_LAMBDA) * redundancy
            best = rest[int(np.argmax(scores))]
        else:
            best = rest[0]
        chosen.append(best)
        rest.remove(best)
    return chosen


def keywords(turns: Sequence[ParsedTurn], centroid: np.ndarray, encoder) -> tuple[list[KeyTerm], np.ndarray]:
    """The call's keywords, most relevant first, and their embeddings (rows)."""
    found = list(candidates(turns).values())
    if not found:
        return [], np.zeros((0, len(centroid)), dtype=np.float32)
    vectors = encoder.encode([c.text for c in found], batch_size=128)
    counts = np.array([sum(c.forms.values()) for c in found], dtype=np.float64)
    similarity = np.clip(vectors @ centroid, 0.0, 1.0)
    relevance = 0.75 * similarity + 0.25 * counts / counts.max()
    picked = sorted((i for i in _mmr(relevance, vectors, MAX_KEYWORDS) if relevance[i] >= KEYWORD_MIN),
                    key=lambda i: -relevance[i])
    out = [KeyTerm(found[i].text, round(float(relevance[i]), 4), mentions(turns, found[i].lemmas)) for i in picked]
    return out, vectors[picked]


@loaded_once(maxsize=4)
def _taxonomy_vectors(path: str | None, encoder_name: str) -> tuple[tuple, np.ndarray, list[np.ndarray]]:
    """The taxonomy's topics, their descriptions' embeddings, and each topic's subtopics' (an empty array for
    a topic without any). Kept on disk (`vector_cache`): a process computes them only when the taxonomy,
    the encoder or what runs it changed."""
    topics = taxonomy.load(path)
    encoder = load_sentence_encoder(encoder_name)
    model = vector_cache.encoder_model(sentence_encoder_location(encoder_name))
    groups = [[t.description for t in topics]] + [[s.description for s in t.subtopics] for t in topics if t.subtopics]
    vectors = iter(vector_cache.cached_groups(groups, model, encoder.encode))
    topic_vectors = next(vectors)
    sub_vectors = [next(vectors) if t.subtopics else np.zeros((0, 1)) for t in topics]
    return topics, topic_vectors, sub_vectors


def _top_mean(similarities: np.ndarray) -> np.ndarray:
    """Mean of the TOP_SENTENCES largest values of each column."""
    k = min(TOP_SENTENCES, similarities.shape[0])
    return np.sort(similarities, axis=0)[-k:].mean(axis=0)


def topics(sentence_vectors: np.ndarray, found: list[KeyTerm], keyword_vectors: np.ndarray,
           path: str | None, encoder_name: str) -> list[ScoredTopic]:
    """Topics of the taxonomy that the call's sentences are about, most relevant first."""
    if len(sentence_vectors) == 0:
        return []
    definitions, topic_vectors, sub_vectors = _taxonomy_vectors(path, encoder_name)
    # a sentence is as close to a topic as to its description or to the closest of its subtopics'
    per_sentence = sentence_vectors @ topic_vectors.T
    for i, vectors in enumerate(sub_vectors):
        if len(vectors):
            per_sentence[:, i] = np.maximum(per_sentence[:, i], (sentence_vectors @ vectors.T).max(axis=1))
    relevance = _top_mean(per_sentence)
    out = []
    for i in np.argsort(-relevance):
        if relevance[i] < TOPIC_MIN:
            break
        definition = definitions[i]
        subtopics = []
        if definition.subtopics:
            scores = _top_mean(sentence_vectors @ sub_vectors[i].T)
            subtopics = sorted(((s.name, round(float(v), 4)) for s, v in zip(definition.subtopics, scores)
                                if v >= SUBTOPIC_MIN), key=lambda x: -x[1])
        related = [kw for kw, v in zip(found, keyword_vectors @ topic_vectors[i]) if v >= TOPIC_KEYWORD_MIN]
        out.append(ScoredTopic(definition.name, round(float(relevance[i]), 4), subtopics, related))
    return out


def discover(conv: Conversation, options: TextOptions) -> Discovery:
    turns = parsing.parse(conv, options.spacy_model)
    if not conv.sentences:
        return Discovery([], [])
    embed(conv.sentences, options.sentence_encoder)
    sentence_vectors = embeddings(conv.sentences)
    centroid = sentence_vectors.mean(axis=0)
    centroid /= np.linalg.norm(centroid) or 1.0
    encoder = load_sentence_encoder(options.sentence_encoder)
    found, keyword_vectors = keywords(turns, centroid, encoder)
    return Discovery(found, topics(sentence_vectors, found, keyword_vectors, options.topic_taxonomy,
                                   options.sentence_encoder))


def needs(options: TextOptions) -> tuple[str, ...]:
    """The bundled parser and sentence encoder (`inventory` keys) when discovery is asked for in English."""
    if not options.enabled or not options.english:
        return ()
    return tuple(key for key, used in ((inventory.SPACY, options.spacy_model == BUNDLED_SPACY),
                                       (inventory.MINILM, options.sentence_encoder == BUNDLED_SENTENCE_ENCODER)) if used)


def prepare(options: TextOptions) -> None:
    """Load what `run` will need: the parser, the sentence encoder and the taxonomy's embeddings."""
    if options.english:
        load_spacy(options.spacy_model)
        _taxonomy_vectors(options.topic_taxonomy, options.sentence_encoder)


def run(conv: Conversation, options: TextOptions) -> None:
    if not options.english:
        conv.warn(E.DISCOVERY_NOT_SUPPORTED, f"keyword and topic discovery is not available for {options.language}")
        conv.knowledge = Discovery([], [])
        return
    conv.knowledge = discover(conv, options)
