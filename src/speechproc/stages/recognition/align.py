"""Alignment of a human transcript to the machine words of a recording.

The human text is the truth for the words; the machine transcript gives the times. Words are
matched with difflib's longest-matching-blocks on normalised words (case and punctuation ignored):
a matched word keeps its machine word's times; words the human changed share out the time of the
machine words they replace (by length); words the human added share out the gap they fall in (or sit
at its edge when there is none). So every word gets a time, and where the machine times run forward
(one speaker's words) the aligned times do too. Speakers
come from `Name:` prefixes at the start of lines, else from the machine words they match.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from speechproc.conversation import RecognizedWord, Token
from speechproc.query.tree import normalise_word

MIN_MATCHED = 0.3  # below this share of matched words, the transcript is for another recording
ADDED_WORD_MS = 600  # an added word takes at most this much of the gap it falls in
_PREFIX = re.compile(r"^\s*([^:\n]{1,40}?):\s+")


@dataclass
class HumanWord:
    text: str  # as typed, punctuation attached
    norm: str
    speaker: str | None


@dataclass
class WordAlignment:
    words: list[RecognizedWord]
    matched: int  # human words found among the machine words
    total: int

    @property
    def matched_share(self) -> float:
        return self.matched / self.total if self.total else 0.0


class TranscriptMismatch(ValueError):
    """The human transcript does not belong to this recording."""


def parse(text: str) -> list[HumanWord]:
    """Words of a plain-text transcript; a line starting `Name: ` is said by Name (until the next prefix)."""
    out: list[HumanWord] = []
    speaker: str | None = None
    for line in text.splitlines():
        match = _PREFIX.match(line)
        if match and not match.group(1).strip().isdigit():  # "10:30" is a time, not a speaker
            speaker = match.group(1).strip()
            line = line[match.end():]
        for token in line.split():
            norm = normalise_word(token)
            if norm:
                out.append(HumanWord(token, norm, speaker))
            elif out:  # punctuation standing alone belongs to the word before
                out[-1].text += token
    return out


def _spread(words: Sequence[HumanWord], start: int, end: int) -> list[tuple[int, int]]:
    """Times for words sharing [start, end] in proportion to their length (zero-length at start if empty)."""
    if end <= start:
        return [(start, start)] * len(words)
    weights = [len(w.norm) + 1 for w in words]
    total, cursor, out = sum(weights), float(start), []
    for weight in weights:
        nxt = cursor + (end - start) * weight / total
        out.append((round(cursor), round(nxt)))
        cursor = nxt
    return out


def align(human: Sequence[HumanWord], machine: Sequence[Token]) -> WordAlignment:
    """Human words with times and speakers from the machine words (word tokens, in transcript order)."""
    machine = [w for w in machine if w.is_word]
    matcher = SequenceMatcher(None, [h.norm for h in human], [normalise_word(m.w) for m in machine], autojunk=False)
    times: list[tuple[int, int]] = [(0, 0)] * len(human)
    speakers: list[str | None] = [h.speaker for h in human]
    confidence: list[float] = [1.0] * len(human)
    matched = 0
    last_end = 0
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            for k in range(i2 - i1):
                m = machine[j1 + k]
                times[i1 + k] = (m.s, m.e)  # exactly the machine's, even where two speakers overlap
                speakers[i1 + k] = speakers[i1 + k] or m.speaker
                confidence[i1 + k] = m.c
                last_end = max(last_end, m.e)
            matched += i2 - i1
        elif op == "replace":
            times[i1:i2] = _spread(human[i1:i2], machine[j1].s, machine[j2 - 1].e)
            for k in range(i1, i2):
                speakers[k] = speakers[k] or machine[min(j1 + (k - i1), j2 - 1)].speaker
            last_end = max(last_end, times[i2 - 1][1])
        elif op == "delete":  # in difflib's terms the human words are "deleted": they have no machine word
            nxt = machine[j1].s if j1 < len(machine) else last_end + ADDED_WORD_MS * (i2 - i1)
            end = min(max(nxt, last_end), last_end + ADDED_WORD_MS * (i2 - i1))
            times[i1:i2] = _spread(human[i1:i2], last_end, end)
            for k in range(i1, i2):
                speakers[k] = speakers[k] or (speakers[k - 1] if k else (machine[0].speaker if machine else ""))
            last_end = max(last_end, times[i2 - 1][1])
        # "insert": machine words the human left out are dropped
    words = [RecognizedWord(h.text, s, e, c, speaker or "")
             for h, (s, e), c, speaker in zip(human, times, confidence, speakers)]
    return WordAlignment(words, matched, len(human))


def align_text(text: str, machine: Sequence[Token]) -> WordAlignment:
    """Parse and align; raise TranscriptMismatch when the text is empty or for another recording."""
    human = parse(text)
    if not human:
        raise TranscriptMismatch("the transcript has no words")
    result = align(human, machine)
    if result.matched_share < MIN_MATCHED:
        raise TranscriptMismatch(
            f"only {result.matched} of the transcript's {result.total} words ({100 * result.matched_share:.0f} %) are "
            f"in the machine transcript; at least {100 * MIN_MATCHED:.0f} % are needed, so it is not a transcript "
            "of this recording")
    return result
