"""Speaker turns, turn markers, positions, voice activity and overall confidence."""
from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Sequence

from speechproc.conversation import TURN, Conversation, SpeakerTurn, Token
from speechproc.stages.recognition import sentences

TURN_PAUSE_MS = 1000  # a pause this long ends an utterance
ACTIVITY_GAP_MS = 500  # words closer than this form one voice-activity span


def _someone_spoke_within(others: list[tuple[int, int]], starts: list[int], start: int, end: int) -> bool:
    """True if one of `others` (sorted (s, e) word spans) lies wholly inside [start, end]."""
    i = bisect.bisect_left(starts, start)
    while i < len(others) and others[i][0] < end:
        if others[i][1] <= end:
            return True
        i += 1
    return False


def _utterances(tokens: list[Token], others: list[tuple[int, int]]) -> list[list[Token]]:
    """Split one speaker's tokens at long pauses and wherever another speaker said a whole word in a gap."""
    starts = [s for s, _ in others]
    result: list[list[Token]] = [[tokens[0]]]
    last_word = tokens[0]
    for tok in tokens[1:]:
        if tok.m is None:
            gap_start, gap_end = last_word.e, tok.s
            interrupted = _someone_spoke_within(others, starts, gap_start, gap_end)
            if gap_end - gap_start >= TURN_PAUSE_MS or interrupted:
                result.append([])
            last_word = tok
        result[-1].append(tok)
    return [u for u in result if u]


def build_turns(words: list[Token], speaker_order: list[str]) -> list[SpeakerTurn]:
    """Turns ordered by start: one party's speech until another party speaks."""
    by_speaker: dict[str, list[Token]] = defaultdict(list)
    for w in words:
        by_speaker[w.speaker].append(w)
    rank = {name: i for i, name in enumerate(speaker_order)}
    utterances: list[list[Token]] = []
    for speaker, toks in by_speaker.items():
        # tokens keep the recogniser's order: a punctuation token shares its time with the next word
        others = sorted((w.s, w.e) for w in words if w.speaker != speaker and w.m is None)
        utterances += _utterances(toks, others)
    utterances.sort(key=lambda u: (u[0].s, rank.get(u[0].speaker, len(rank))))
    turns: list[SpeakerTurn] = []
    for utt in utterances:
        if turns and turns[-1].speaker == utt[0].speaker:
            turns[-1].words += utt
        else:
            turns.append(SpeakerTurn(utt[0].speaker, 0, 0, list(utt)))
    for turn in turns:
        real = [w for w in turn.words if w.m is None] or turn.words
        turn.s, turn.e = real[0].s, max(w.e for w in real)
    return turns


def flatten(turns: list[SpeakerTurn]) -> list[Token]:
    """The flat v3 word list: a turn marker, then the turn's tokens; p consecutive from 0."""
    flat: list[Token] = []
    for turn in turns:
        flat.append(Token(p=0, c=1.0, s=turn.s, e=turn.e, w=turn.speaker, m=TURN, speaker=turn.speaker))
        flat += turn.words
    for p, w in enumerate(flat):
        w.p = p
    return flat


def voice_activity(words: list[Token], speakers: list[str], overlapped: Sequence[tuple[int, int, str]] = ()
                   ) -> dict[str, list[tuple[int, int]]]:
    """Speech spans per speaker: the speaker's words, and the stretches where they talk over another
    (`overlapped`, from diarization), merged across short gaps."""
    spans: dict[str, list[tuple[int, int]]] = {name: [] for name in speakers}
    heard = [(w.s, w.e, w.speaker) for w in words if w.m is None] + [o for o in overlapped if o[2] in spans]
    for s, e, speaker in sorted(heard):
        runs = spans.setdefault(speaker, [])
        if runs and s - runs[-1][1] < ACTIVITY_GAP_MS:
            runs[-1] = (runs[-1][0], max(runs[-1][1], e))
        else:
            runs.append((s, e))
    return spans


def run(conv: Conversation) -> None:
    tokens = [w for w in conv.words if w.m != TURN]
    conv.turns = build_turns(tokens, conv.speakers) if tokens else []
    conv.words = flatten(conv.turns)
    conv.voice_activity = voice_activity(conv.words, conv.speakers, conv.overlapped)
    conv.sentences = sentences.split(conv.turns)
    confidences = [w.c for w in conv.words if w.m is None]
    conv.confidence = sum(confidences) / len(confidences) if confidences else 0.0
