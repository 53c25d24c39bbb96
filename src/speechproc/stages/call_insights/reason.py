"""The reason for a call as the model gives it, kept to what the call says (`kept_reason`).

The model answers in at most `REASON_CHARS` characters and names the turn it copied from. Its answer used to be
dropped whole when one word of it was not in the call or its turn was not one it read; most such answers were
right up to that word: a word cut off at the length limit ("a rental car from Saltm"), a place the caller never
named ("Galveston, Texas"), a turn number that points at a spoken instruction. Now:
- a reason that still names what the call does not hold keeps only its words before the first such name or
  number, without the small words that led to it ("issued in Abuja in 2020" -> "issued in Abuja"), and before
  words in another script than the call's, even written on to an English word ("due to the home住址" -> "due to
  the home");
- a named turn that holds no words the model read is replaced by the turn that shares most words with the
  reason (at least `MIN_SHARED`);
- what is left of a cut reason must hold at least `MIN_WORDS` words of more than three letters besides the
  small ones ("the caller called to report" holds one), and any reason must rest on a turn; otherwise the call
  has no reason.
Nothing is added to the model's words, so a reason still holds no name or number the call does not.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from speechproc.stages.call_insights.grounding import OTHER_SCRIPT, Line, ungrounded

REASON_CHARS = 120
MIN_WORDS = 2  # of more than three letters, not counting the small words
MIN_SHARED = 2
_WORD = re.compile(r"[A-Za-z0-9']+")
# Words that say nothing of a reason alone: left off the end of a cut reason, and not counted as shared.
_SMALL = frozenset("a an the and or but of for in on at by to from with about which who that this their his her its "
                   "they them he she it was were is are be been has have had there's there as so than then "
                   "caller called call calling want wants wanted".split())


def grounded_part(text: str, said: str) -> str:
    """`text` up to its first name or number that `said` does not hold (`grounding.ungrounded`), without the
    small words and punctuation that led to it; all of `text` when it holds none."""
    missing = ungrounded(text, said)
    if not missing:
        return text
    found = [at for at in (_position(word, text) for word in missing) if at is not None]
    if not found:  # not to be found as written: nothing of the text can be told apart from it
        return ""
    words = text[:min(found)].split()
    while words and (words[-1].lower().strip(",;:-") in _SMALL or not _WORD.search(words[-1])):
        words.pop()
    return " ".join(words).rstrip(" ,;:-")


def _position(missing: str, text: str) -> int | None:
    """Where `missing` (a word, digits, or number words as `ungrounded` joins them: "two thousand fifteen" for
    "two thousand and fifteen") begins in `text`, case aside; None when it cannot be found."""
    parts = [re.escape(part) for part in missing.split()]
    if not parts:
        return None
    match = re.search(r"(?<!\w)" + r"[\s,-]+(?:and[\s-]+)?".join(parts) + r"(?!\w)", text, re.IGNORECASE)
    if match is None and OTHER_SCRIPT.fullmatch(missing):  # letters of another script, written on to a word ("the客服")
        at = text.find(missing)
        return at if at >= 0 else None
    return match.start() if match else None


def _content(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 3 and w not in _SMALL}


def evidence_line(text: str, lines: Sequence[Line]) -> Line | None:
    """The line with words that shares most words of more than three letters with `text`, when at least
    `MIN_SHARED`; the first of those tied."""
    words = _content(text)
    best = max((line for line in lines if line.text), key=lambda line: len(words & _content(line.text)), default=None)
    return best if best is not None and len(words & _content(best.text)) >= MIN_SHARED else None


def kept_reason(text: str, said: str, named: Line | None, lines: Sequence[Line]) -> str | None:
    """The model's reason `text` kept to what `said` holds (see the module), or None: `named` is the turn it
    named when that holds words the model read, `lines` the turns it read."""
    whole = text.strip()
    kept = grounded_part(whole, said)
    if not kept or (kept != whole and len(_content(kept)) < MIN_WORDS):
        return None
    return kept if named is not None or evidence_line(kept, lines) is not None else None
