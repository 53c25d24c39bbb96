"""Verb-noun pairs: each direct object and its verb, per speaker, from a spaCy dependency parse."""
from __future__ import annotations

import bisect
from collections.abc import Sequence

from speechproc import errors as E
from speechproc.conversation import Conversation, Token, VerbNoun
from speechproc.engines import inventory
from speechproc.engines.models import BUNDLED_SPACY, load_spacy
from speechproc.stages.analytics import parsing
from speechproc.stages.analytics.parsing import ParsedTurn
from speechproc.stages.options import TextOptions
from speechproc.stages.recognition import char_offsets

OBJECT_DEPS = frozenset({"dobj", "obj"})
NOUN_POS = frozenset({"NOUN", "PROPN"})
NEGATING_DETERMINERS = frozenset({"no", "neither"})
WH_WORDS = frozenset({"what", "which", "who", "whom", "whose", "where", "when", "why", "how"})


def _negation(token) -> str | None:  # token: spacy.tokens.Token
    for child in token.children:
        if child.dep_ == "neg":
            return "not" if child.lower_ == "n't" else child.lower_
    return None


def _noun_negation(noun) -> str | None:
    for child in noun.children:
        if child.dep_ == "det" and child.lower_ in NEGATING_DETERMINERS:
            return child.lower_
    return _negation(noun)


def _is_question(sent) -> bool:  # sent: spacy.tokens.Span
    """A question mark, a wh-word first, or an auxiliary before the subject (\"can you ...\")."""
    words = [t for t in sent if not t.is_punct]
    if not words:
        return False
    if sent[-1].text == "?" or words[0].lower_ in WH_WORDS:
        return True
    first = words[0]
    return first.pos_ == "AUX" and any(c.dep_ in ("nsubj", "expl") and c.i > first.i for c in first.head.children)


def _verb_of(noun):
    """The verb a direct object hangs from, following coordination (\"cancel the plan and the card\")."""
    head, dep = noun.head, noun.dep_
    while dep == "conj" and head.dep_ in OBJECT_DEPS | {"conj"}:
        dep, head = head.dep_, head.head
    return head if dep in OBJECT_DEPS and head.pos_ in ("VERB", "AUX") else None


def pairs_in(doc, tokens: Sequence[Token]) -> list[VerbNoun]:
    """Verb-noun pairs of a parsed text whose characters came from `tokens` (via `text_of`)."""
    offsets = char_offsets(list(tokens))
    word_at = lambda char: tokens[bisect.bisect_right(offsets, char) - 1]  # noqa: E731
    out: list[VerbNoun] = []
    for sent in doc.sents:
        question = _is_question(sent)
        for tok in sent:
            if tok.pos_ not in NOUN_POS or tok.dep_ not in OBJECT_DEPS | {"conj"}:
                continue
            verb = _verb_of(tok)
            if verb is None:
                continue
            first, last = sorted((word_at(verb.idx), word_at(tok.idx)), key=lambda w: w.s)
            out.append(VerbNoun(s=first.s, e=last.e, verb=verb.lemma_.lower(), noun=tok.lemma_.lower(),
                                    verb_neg=_negation(verb), noun_neg=_noun_negation(tok), question=question))
    return out


def extract(turns: Sequence[ParsedTurn]) -> dict[str, list[VerbNoun]]:
    """Pairs per speaker, in time order."""
    out: dict[str, list[VerbNoun]] = {}
    for turn in turns:
        out.setdefault(turn.speaker, []).extend(pairs_in(turn.doc, turn.words))
    for pairs in out.values():
        pairs.sort(key=lambda p: (p.s, p.e))
    return out


def needs(options: TextOptions) -> tuple[str, ...]:
    """The bundled spaCy pipeline (`inventory` key) when verb-noun pairs are asked for in English."""
    return (inventory.SPACY,) if options.enabled and options.english and options.spacy_model == BUNDLED_SPACY else ()


def prepare(options: TextOptions) -> None:
    """Load what `run` will need: the parser."""
    if options.english:
        load_spacy(options.spacy_model)


def run(conv: Conversation, options: TextOptions) -> None:
    if not options.english:
        conv.warn(E.FEATURE_NOT_AVAILABLE, f"verb-noun pairs are not available for {options.language}")
        conv.verb_noun_pairs = {}
        return
    found = extract(parsing.parse(conv, options.spacy_model))
    conv.verb_noun_pairs = {speaker: found.get(speaker, []) for speaker in dict.fromkeys(conv.speakers + list(found))}
