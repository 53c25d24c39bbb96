"""One cue builder shared by the caption writers (SRT, WebVTT, DFXP) and the text writer."""
from __future__ import annotations

from dataclasses import dataclass, field

from speechproc.conversation import PUNC, TURN, Token

MAX_CUE_MS = 5000
MIN_CUE_MS = 500  # a cue whose words take no time (the recogniser gives some words s == e) shows this long
MAX_CUE_CHARS = 80
ONE_LINE_CHARS = 42  # a cue up to this long stays on one line; longer ones wrap onto two


@dataclass
class Cue:
    start: int
    end: int
    text: str
    speaker: str = ""

    @property
    def lines(self) -> list[str]:
        return wrap(self.text)


@dataclass
class TurnText:
    """A turn as text: the speaker and its words with punctuation attached."""

    speaker: str
    pieces: list[tuple[str, int, int]] = field(default_factory=list)  # (text, s, e)


def wrap(text: str) -> list[str]:
    """At most two lines, broken at the space nearest the middle."""
    if len(text) <= ONE_LINE_CHARS or " " not in text:
        return [text]
    middle = len(text) // 2
    spaces = [i for i, ch in enumerate(text) if ch == " "]
    cut = min(spaces, key=lambda i: abs(i - middle))
    return [text[:cut], text[cut + 1 :]]


def turn_texts(words: list[Token]) -> list[TurnText]:
    """Group tokens by turn; punctuation is glued to the word before it."""
    turns: list[TurnText] = []
    for w in words:
        if w.m is not None and TURN in w.m.split("|"):
            turns.append(TurnText(w.w))
            continue
        if not turns:
            turns.append(TurnText(w.speaker))
        pieces = turns[-1].pieces
        if w.m == PUNC:
            if pieces:
                text, s, e = pieces[-1]
                pieces[-1] = (text + w.w, s, e)
        else:
            pieces.append((w.w, w.s, w.e))
    return [t for t in turns if t.pieces]


def _break_point(pieces: list[tuple[str, int, int]]) -> int:
    """How many pieces to keep in a full cue: up to the last sentence end in its second half, else all."""
    for i in range(len(pieces) - 1, len(pieces) // 2 - 1, -1):
        if pieces[i][0][-1:] in ".?!":
            return i + 1
    return len(pieces)


def _cue(pieces: list[tuple[str, int, int]], prefix: str, speaker: str) -> Cue:
    return Cue(pieces[0][1], max(e for _, _, e in pieces), prefix + " ".join(t for t, _, _ in pieces), speaker)


def build_cues(words: list[Token]) -> list[Cue]:
    """New cue at every turn (first cue prefixed 'Speaker: '), at most ~5 s or 80 characters each.

    A full cue ends at its last sentence end when one lies in its second half, so cues follow sentences.
    Cues are in order of start: when turns overlap their cues interleave, and a cue that follows
    another speaker's is prefixed with its own speaker again. Every cue ends after it starts: one whose
    words take no time shows MIN_CUE_MS, or until the next cue starts.
    """
    cues = sorted(_turn_cues(words), key=lambda cue: cue.start)
    out: list[Cue] = []
    for i, cue in enumerate(cues):
        text = cue.text
        if cue.speaker and i > 0 and cues[i - 1].speaker != cue.speaker and not text.startswith(f"{cue.speaker}: "):
            text = f"{cue.speaker}: {text}"
        end = cue.end
        if end <= cue.start:
            later = [c.start for c in cues[i + 1:] if c.start > cue.start]
            end = min([cue.start + MIN_CUE_MS, *later[:1]])
        out.append(Cue(cue.start, end, text, cue.speaker))
    return out


def _turn_cues(words: list[Token]) -> list[Cue]:
    cues: list[Cue] = []
    for turn in turn_texts(words):
        prefix = f"{turn.speaker}: " if turn.speaker else ""
        current: list[tuple[str, int, int]] = []
        for piece in turn.pieces:
            text, _, e = piece
            length = len(prefix) + sum(len(t) + 1 for t, _, _ in current) + len(text)
            if current and (e - current[0][1] > MAX_CUE_MS or length > MAX_CUE_CHARS):
                keep = _break_point(current)
                cues.append(_cue(current[:keep], prefix, turn.speaker))
                prefix, current = "", current[keep:]
            current.append(piece)
        if current:
            cues.append(_cue(current, prefix, turn.speaker))
    return cues


def clock(ms: int, separator: str) -> str:
    """HH:MM:SS<sep>mmm with three fraction digits."""
    ms = max(0, int(ms))
    hours, rest = divmod(ms, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, millis = divmod(rest, 1000)
    return f"{hours:02d}:{minutes:02d}:{seconds:02d}{separator}{millis:03d}"
