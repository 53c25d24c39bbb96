"""Hand-built transcripts: text to word tokens with made-up times (one word every 500 ms), and the sample
media's known words (truth.json) as recognised words."""
from __future__ import annotations

import re
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from speechproc.config import options
from speechproc.config import v3 as config
from speechproc.conversation import PUNC, Conversation, RecognizedWord, SpeakerTurn, Token
from speechproc.stages import pipeline
from speechproc.stages.recognition.sentences import split


def tokens(text: str, speaker: str = "Agent", start: int = 0) -> list[Token]:
    out: list[Token] = []
    t = start
    for piece in re.findall(r"[\w'$%-]+|[.,?!]", text):
        if piece in ".,?!":
            out.append(Token(p=0, c=0.0, s=out[-1].e, e=out[-1].e, w=piece, m=PUNC, speaker=speaker))
        else:
            out.append(Token(p=0, c=0.9, s=t, e=t + 400, w=piece, speaker=speaker))
            t += 500
    return out


def conversation(*turns: tuple[str, str]) -> Conversation:
    """A conversation of (speaker, text) turns, one after another."""
    conv = Conversation("00000000-0000-0000-0000-000000000000", length_ms=0)
    t = 0
    for speaker, text in turns:
        toks = tokens(text, speaker, t)
        conv.turns.append(SpeakerTurn(speaker, toks[0].s, toks[-1].e, toks))
        conv.words += toks
        t = toks[-1].e + 600
    conv.length_ms = t
    conv.sentences = split(conv.turns)
    return conv


def truth_words(recording: dict) -> list[RecognizedWord]:
    """A recording's words from sample_media/truth.json as a recogniser would give them (punctuation attached,
    probability 1): each turn's words share out its time span by length, in time order."""
    out: list[RecognizedWord] = []
    for turn in recording["turns"]:
        pieces = turn["text"].split()
        weights = [len(p) + 1 for p in pieces]
        total, cursor = sum(weights), float(turn["s"])
        for piece, weight in zip(pieces, weights):
            end = cursor + (turn["e"] - turn["s"]) * weight / total
            out.append(RecognizedWord(piece, round(cursor), round(end), 1.0, turn["speaker"]))
            cursor = end
    return sorted(out, key=lambda w: w.s)


def stage_options(raw: dict[str, Any] | config.Settings | None = None) -> options.Options:
    """Every stage's options from a configuration (a raw one is validated first)."""
    settings = raw if isinstance(raw, config.Settings) else config.validate(raw or {})
    return options.build(settings)


def run_stage(name: str, conv: Conversation, raw: dict[str, Any] | config.Settings | None = None,
              path: Path | None = None) -> bool:
    """Run one stage of the pipeline's table on `conv` as the pipeline would; whether its predicate let it run."""
    run = pipeline.Run(path or Path("unused"), stage_options(raw), conv, None, None)
    stage = next(st for st in pipeline.STAGES if st.name == name)
    if not stage.runs(run):
        return False
    stage.step(run)
    return True


def recognised(path: Path, media_id: str) -> Conversation:
    """`path` decoded and recognised with the default configuration, as the pipeline leaves it for diarization."""
    from speechproc.stages.recognition import asr, ingest

    wanted = stage_options({})
    conv = Conversation(media_id)
    ingest.load_channels(path, wanted.ingest, conv)
    asr.run(conv, wanted.recognition)
    return conv


RANDOM_PARTS = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"  # ids
                          r"|\d{4}-\d{2}-\d{2}t\d{2}:\d{2}:\d{2}(?:\.\d+)?z?")  # times


def holds(text: str, secret: str) -> bool:
    """Whether lower-cased `text` holds `secret`; a secret of digits only as a number of its own, outside the
    run's random ids and times (a media id or a time's milliseconds may hold "742" by chance)."""
    if not secret.isdigit():
        return secret.lower() in text
    return re.search(rf"(?<![\d.]){secret}(?!\d)", RANDOM_PARTS.sub(" ", text)) is not None


class WordsEncoder:
    """A sentence encoder's stand-in: each text as the unit vector of its lower-case words' counts."""

    def encode(self, texts, batch_size=64):
        vocabulary: dict[str, int] = {}
        counts = [[vocabulary.setdefault(w, len(vocabulary)) for w in re.findall(r"[a-z']+", t.lower())] for t in texts]
        out = np.zeros((len(texts), max(1, len(vocabulary))), dtype=np.float32)
        for row, words in enumerate(counts):
            np.add.at(out[row], words, 1.0)
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


class HashEncoder:
    """A sentence encoder's stand-in with a fixed width: each text as the unit vector of its lower-case words
    hashed into 64 dimensions."""

    def encode(self, texts, batch_size=64):
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z']+", text.lower()):
                out[row, zlib.crc32(word.encode()) % 64] += 1.0
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)
