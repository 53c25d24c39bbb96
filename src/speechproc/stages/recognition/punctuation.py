"""Split the recogniser's attached punctuation into separate `punc` tokens."""
from __future__ import annotations

import re

from speechproc.conversation import PUNC, Conversation, RecognizedWord, Token

_TRAILING = re.compile(r"[\s.,?!;:…\"'”’)\]}»-]+$")
_LEADING = re.compile(r"^[\s\"'“‘(\[{«¿¡-]+")
_ABBREVIATIONS = {"mr", "mrs", "ms", "dr", "st", "vs", "jr", "sr", "etc", "inc", "ltd", "co", "no", "prof"}
_DOTTED = re.compile(r"^(?:[A-Za-z]\.){2,}$")  # U.S., e.g.


def _mark(trailing: str, advanced: bool) -> str | None:
    """The punctuation token for a word's trailing characters, by mode."""
    if "?" in trailing:
        return "?" if advanced else "."
    if any(ch in trailing for ch in ".!…"):
        return "."
    if any(ch in trailing for ch in ",;:"):
        return "," if advanced else None
    return None


def split_word(word: RecognizedWord, advanced: bool) -> tuple[str, str | None]:
    """The bare word and its punctuation mark (None when it has none)."""
    text = _LEADING.sub("", word.text)
    match = _TRAILING.search(text)
    trailing = match.group() if match else ""
    core = text[: len(text) - len(trailing)]
    if trailing.startswith(".") and (core.lower() in _ABBREVIATIONS or _DOTTED.match(core + ".")):
        core, trailing = core + ".", trailing[1:]
    return core, _mark(trailing, advanced)


def tokens(recognized: list[RecognizedWord], advanced: bool) -> list[Token]:
    """Word tokens with separate punctuation tokens (p is set later, when turns are built)."""
    out: list[Token] = []
    for rw in recognized:
        core, mark = split_word(rw, advanced)
        if core:
            out.append(Token(p=-1, c=round(rw.probability, 3), s=rw.s, e=rw.e, w=core, speaker=rw.speaker))
        if mark and out and out[-1].speaker == rw.speaker and out[-1].m is None:
            out.append(Token(p=-1, c=0.0, s=out[-1].e, e=out[-1].e, w=mark, m=PUNC, speaker=rw.speaker))
    return out


def run(conv: Conversation, advanced: bool) -> None:
    """The transcript's tokens from the recognised words; `advanced` keeps ? and ! (advancedPunctuation)."""
    conv.words = tokens(conv.recognized, advanced)
