"""Finding vocabulary terms the recogniser misheard: runs of transcript words that sound like a term.

Every term (one word or several) is indexed once by a phonetic key: a Metaphone-like spelling of its
consonants in which voiced and voiceless pairs share a letter (b/p, d/t, g/k, v/f, z/s), so that "Corbin"
and "Quorvane" both read KRPN/KRFN. The index holds each key and each key less one letter, so a run's
candidates (keys at most one edit away) are a handful of dictionary look-ups, whatever the number of terms.
A candidate is scored by the similarity of the keys and of the letters (1 - edit distance / length), and the
best run wins where runs overlap. Only runs whose every word is replaceable take part: a common word heard
with high confidence is never changed (`correct`).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

MIN_LETTERS = 5  # a term shorter than this is never matched by sound (too many near-misses among short words)
MAX_RUN = 3  # a term of n words may be heard as up to n + MAX_RUN - 1 words ("Draxilon" as "drag sealer")
MAX_GAP_MS = 1000  # words further apart than this are not one run
MIN_SCORE = 0.72  # the least similarity (0-1) of a replacement
KEY_WEIGHT = 0.6  # the key's share of the score; the letters' the rest
AMBIGUOUS = 0.02  # a second term scoring within this of the best leaves the run alone
CONFIDENT = 0.6  # a common word heard with at least this probability is kept as heard
SPOT_SCORE = 0.6  # the least similarity of a term spotted for the second pass's hint

_VOWELS = frozenset("aeiouy")
# two-letter spellings first, then single letters; a vowel or h/w/y inside a word is dropped afterwards
_PAIRS = (("ph", "f"), ("ck", "k"), ("qu", "k"), ("sh", "x"), ("ch", "x"), ("th", "0"), ("gh", ""), ("wr", "r"),
          ("kn", "n"), ("gn", "n"), ("ps", "s"), ("wh", "w"), ("dg", "j"))
_LETTERS = {"b": "p", "c": "k", "d": "t", "g": "k", "q": "k", "v": "f", "z": "s", "x": "ks", "j": "j"}
_SOFT = re.compile(r"c(?=[eiy])")
_NOT_LETTER = re.compile(r"[^a-z0-9]")


def letters(text: str) -> str:
    """The lower-case letters and digits of a word or phrase: how words are compared."""
    return _NOT_LETTER.sub("", text.casefold())


@lru_cache(maxsize=1 << 16)
def phonetic_key(text: str) -> str:
    """A Metaphone-like key of `text` (letters only): consonant sounds, voicing merged, repeats collapsed, a
    leading vowel kept as A."""
    word = letters(text)
    if not word:
        return ""
    word = _SOFT.sub("s", word)
    for pair, sound in _PAIRS:
        word = word.replace(pair, sound)
    out: list[str] = []
    for i, ch in enumerate(word):
        if ch in _VOWELS or ch in "hw":
            if i == 0 and ch in _VOWELS:
                out.append("a")
            continue
        out.append(_LETTERS.get(ch, ch))
    key = "".join(out)
    return re.sub(r"(.)\1+", r"\1", key).upper()


def distance(a: str, b: str) -> int:
    """The edit distance (insertions, deletions, substitutions) between two short strings."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def similarity(a: str, b: str) -> float:
    return 1.0 - distance(a, b) / max(len(a), len(b), 1)


def _deletes(key: str) -> Iterable[str]:
    yield key
    for i in range(len(key)):
        yield key[:i] + key[i + 1:]


@dataclass(frozen=True)
class Entry:
    term: str
    letters: str
    key: str
    words: int


@dataclass(frozen=True)
class Match:
    start: int  # index of the run's first word
    end: int  # index after its last word
    term: str
    score: float


class TermIndex:
    """The terms of a vocabulary indexed once by phonetic key (each key and each key less one letter)."""

    def __init__(self, terms: Iterable[str], min_letters: int = MIN_LETTERS) -> None:
        self.entries: list[Entry] = []
        self._by_key: dict[str, list[int]] = {}
        for term in terms:
            spelled = letters(term)
            key = phonetic_key(spelled)
            if len(spelled) < min_letters or len(key) < 3:
                continue
            index = len(self.entries)
            self.entries.append(Entry(term, spelled, key, len(term.split())))
            for variant in set(_deletes(key)):
                self._by_key.setdefault(variant, []).append(index)
        self.max_words = max((e.words for e in self.entries), default=0) + MAX_RUN - 1
        self._seen: dict[str, tuple[Entry, float] | None] = {}  # what `best` found for a run heard before

    def __len__(self) -> int:
        return len(self.entries)

    def best(self, heard: str) -> tuple[Entry, float] | None:
        """The term that `heard` (letters of a run of words) sounds most like, with its score; None when no
        term scores MIN_SCORE or two different terms score about the same."""
        if heard not in self._seen:
            if len(self._seen) >= 1 << 16:
                self._seen.clear()
            self._seen[heard] = self._best(heard)
        return self._seen[heard]

    def scored(self, heard: str) -> list[tuple[float, Entry]]:
        """Every term `heard` (letters of a run of words) may be, with its score, most alike first."""
        key = phonetic_key(heard)
        if len(key) < 3:
            return []
        found: set[int] = set()
        for variant in _deletes(key):
            found.update(self._by_key.get(variant, ()))
        scored = []
        for index in found:
            entry = self.entries[index]
            if not 0.6 <= len(heard) / len(entry.letters) <= 1.6 or distance(key, entry.key) > 1 + len(key) // 7:
                continue
            score = KEY_WEIGHT * similarity(key, entry.key) + (1 - KEY_WEIGHT) * similarity(heard, entry.letters)
            scored.append((score, entry))
        return sorted(scored, key=lambda pair: -pair[0])

    def _best(self, heard: str) -> tuple[Entry, float] | None:
        scored = self.scored(heard)
        if not scored:
            return None
        score, entry = scored[0]
        if score < MIN_SCORE or (len(scored) > 1 and scored[1][1].letters != entry.letters
                                 and score - scored[1][0] < AMBIGUOUS):
            return None
        return entry, score


def matches(texts: list[str], replaceable: list[bool], joined: Callable[[int, int], bool], index: TermIndex
            ) -> list[Match]:
    """The runs of `texts` to replace with a term, not overlapping, best first. `replaceable[i]` says whether
    word i may change; `joined(i, j)` whether words i..j-1 may form one run (one speaker, no long gap)."""
    found: list[Match] = []
    for start in range(len(texts)):
        if not replaceable[start]:
            continue
        heard = ""
        for end in range(start + 1, min(len(texts), start + index.max_words) + 1):
            if not replaceable[end - 1] or not joined(start, end):
                break
            heard += letters(texts[end - 1])
            best = index.best(heard) if heard else None
            if best is not None and end - start <= best[0].words + MAX_RUN - 1:
                found.append(Match(start, end, best[0].term, best[1]))
    chosen: list[Match] = []
    taken: set[int] = set()
    for match in sorted(found, key=lambda m: (-m.score, m.start)):
        span = set(range(match.start, match.end))
        if not span & taken:
            chosen.append(match)
            taken |= span
    return sorted(chosen, key=lambda m: m.start)


def spotted(texts: list[str], joined: Callable[[int, int], bool], index: TermIndex,
            floor: float = SPOT_SCORE) -> list[str]:
    """The terms that some run of `texts` may be, whatever the words' confidence, most alike first: what a
    second pass of recognition is told to listen for (a wrong guess costs only room in its hint)."""
    best: dict[str, float] = {}
    for start in range(len(texts)):
        heard = ""
        for end in range(start + 1, min(len(texts), start + index.max_words) + 1):
            if not joined(start, end):
                break
            heard += letters(texts[end - 1])
            for score, entry in index.scored(heard):
                if score < floor:
                    break
                if end - start <= entry.words + MAX_RUN - 1 and score > best.get(entry.term, 0.0):
                    best[entry.term] = score
    return sorted(best, key=lambda term: -best[term])
