#!/usr/bin/env python3
"""Simulated conversations of 1 to 8 speakers from real single-speaker speech, for tuning and scoring
diarization: the list (`benchmarks/speakers/diarization_sim.json`) and the builder of its recordings.

Speech: the LibriSpeech readers of Resemblyzer's `audio_data/` (251 train-clean-100 readers with one
utterance each, 10 test-other readers with ten; CC BY 4.0). The readers are split into a dev and a test half
by the list's seed before anything is tried on them: no reader of one half speaks in the other.

Timing: turn lengths, pauses and overlaps are drawn from the turns of real conversations, one reference file
per simulated conversation (public reference texts, timing only; the dev half draws from one part of each
corpus, the test half from another):
  telephone  CallHome English (pyannote-db-callhome's mdtm files)
  meeting    AMI (BUTSpeechFIT/AMI-diarization-setup, only_words RTTMs)
  broadcast  VoxConverse (joonson/voxconverse RTTMs)
  wild       MSDWILD (X-LANCE/MSDWILD RTTMs)
A reference's speaker segments closer than TURN_GAP_S are one turn; its turn lengths, the gaps between
consecutive turns (negative: the next one starts before the last one ends) and how often a speaker goes on
after a pause are sampled. The next speaker is drawn among those with speech left, in proportion to what is
left, so every speaker's speech is used and each speaker's share is the share of speech it was given.

Variants (one per conversation):
  clean       16 kHz, each speaker at its own level (+-6 dB)
  telephone   the mix through a telephone band (300-3400 Hz), 8 kHz mu-law WAV
  farfield    each speaker through its own synthetic room response (RT60 0.3-0.9 s) and pink noise at 5-20 dB SNR
  unbalanced  one speaker (a test-other reader) holds 70 % of the speech

The reference of each recording is every speaker's speech as the Silero VAD finds it in the clean utterance
(min_silence_duration_ms=300, speech_pad_ms=30, as for the two-channel references of
benchmarks/speakers/diarization.py), placed where the utterance was placed.

A **fresh** test half (`benchmarks/speakers/diarization_sim_fresh.json`, its own seed) was added after both
halves above had been read, so that a later setting can be read on speakers nobody tuned on: the same 96
conversations' make-up (12 per number of speakers, the same variants, timing from the test part of each
corpus), spoken by the 128 adults of speechocean762 (OpenSLR 101: Mandarin speakers reading English sentences
of 2-6 s, 20-30 each; CC BY 4.0), none of whom speaks in the LibriSpeech halves. By the fresh list's seed, 20
of them are long readers (the unbalanced variant's dominant speaker and the longer one-speaker readings, as
the test-other readers are above), each of the others reads 4-8 of their sentences whenever they speak.

The sources are read from one folder holding each repository at its listed commit under its name:
  SOURCES/Resemblyzer/audio_data/...   SOURCES/AMI-diarization-setup/only_words/rttms/...
  SOURCES/voxconverse/{dev,test}/...    SOURCES/MSDWILD/rttms/...   SOURCES/pyannote-db-callhome/CallHome/data/...
  SOURCES/speechocean762/{WAVE,train,test}/...   (the fresh half only)

Usage: python benchmarks/speakers/diarization_sim.py --sources SOURCES --out DIR [--split dev|test|all]   (build)
       python benchmarks/speakers/diarization_sim.py --sources SOURCES --out DIR --list diarization_sim_fresh.json
       python benchmarks/speakers/diarization_sim.py --sources SOURCES --make-list [--fresh]   (write a list from its seed)
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

LIST = Path(__file__).resolve().parent / "diarization_sim.json"
FRESH_LIST = LIST.with_name("diarization_sim_fresh.json")
RATE = 16000
SEED = 20261128
FRESH_SEED = 20261201
FRESH_LONG_READERS = 20  # of the fresh half's adults, those who read long (as the test-other readers do)
FRESH_SENTENCES = (4, 8)  # sentences each other fresh speaker reads, fewest and most
ADULT_AGE = 18
PER_COUNT = 12  # conversations per number of speakers and half
COUNTS = range(1, 9)
VARIANTS = ("clean", "telephone", "farfield", "unbalanced")
TURN_GAP_S = 0.3  # a speaker's segments closer than this are one turn
GAP_RANGE_S = (-3.0, 4.0)  # gaps between turns are clipped to this
MIN_UTTERANCE_S = 5.0  # shorter train-clean utterances are not used
SPEECH_DBFS = -26.0  # each utterance's active speech level before the speaker's gain
DOMINANT_SHARE = 0.7  # of the speech, in the unbalanced variant

SOURCES = {
    "speech": {"repo": "resemble-ai/Resemblyzer", "commit": "15d828edebe06bc72b9cabc8ef8ca5ab2cb457ce",
               "folder": "Resemblyzer", "license": "LibriSpeech, CC BY 4.0"},
    "meeting": {"repo": "BUTSpeechFIT/AMI-diarization-setup", "commit": "2509d8933721023fab4def2618aabd5c28eb82e9",
                "folder": "AMI-diarization-setup", "license": "AMI, CC BY 4.0 (timing only)",
                "dev": ["only_words/rttms/train/*.rttm"], "test": ["only_words/rttms/dev/*.rttm",
                                                                   "only_words/rttms/test/*.rttm"]},
    "broadcast": {"repo": "joonson/voxconverse", "commit": "24bf60be297701cd7e4ef18550c6d390c1b87365",
                  "folder": "voxconverse", "license": "VoxConverse, CC BY 4.0 (timing only)",
                  "dev": ["dev/*.rttm"], "test": ["test/*.rttm"]},
    "telephone": {"repo": "pkorshunov/pyannote-db-callhome", "commit": "1c52586c990b41f468d9765d4a6961f1b50bb837",
                  "folder": "pyannote-db-callhome", "license": "CallHome English transcripts (timing only)",
                  "dev": ["CallHome/data/callhome.train.mdtm"],
                  "test": ["CallHome/data/callhome.test.mdtm", "CallHome/data/callhome.validation.mdtm"]},
    "speech_fresh": {"repo": "jimbozhang/speechocean762", "commit": "613968e3b0b789fc33936fb5eba1973176ba7d11",
                     "folder": "speechocean762", "license": "speechocean762 (OpenSLR 101), CC BY 4.0; adults only"},
    "wild": {"repo": "X-LANCE/MSDWILD", "commit": "b9f97946f7001e86f643d893811fbded918407bc",
             "folder": "MSDWILD", "license": "MSDWILD (timing only)",
             "dev": ["rttms/few.val.rttm"], "test": ["rttms/many.val.rttm"]},
}
TIMING_OF_VARIANT = {"clean": ("broadcast", "wild"), "telephone": ("telephone",), "farfield": ("meeting",),
                     "unbalanced": ("telephone", "meeting", "broadcast", "wild")}


# --- reference timing ------------------------------------------------------------------------------------

def read_segments(path: Path) -> dict[str, list[tuple[float, float, str]]]:
    """(start s, end s, speaker) per recording of an RTTM or mdtm file."""
    out: dict[str, list[tuple[float, float, str]]] = {}
    for line in path.read_text().splitlines():
        fields = line.split()
        if len(fields) >= 8 and fields[0] == "SPEAKER":  # RTTM
            uri, start, length, speaker = fields[1], float(fields[3]), float(fields[4]), fields[7]
        elif len(fields) >= 8 and fields[4] == "speaker":  # mdtm: uri channel start duration speaker NA gender label
            uri, start, length, speaker = fields[0], float(fields[2]), float(fields[3]), fields[7]
        else:
            continue
        if length > 0:
            out.setdefault(uri, []).append((start, start + length, speaker))
    return out


@dataclass
class Timing:
    """What is sampled from one reference conversation."""

    durations: np.ndarray  # turn lengths, s
    gaps: np.ndarray  # from the end of the latest turn to the next speaker's start, s (negative: overlap)
    pauses: np.ndarray  # from a speaker's turn to the same speaker's next turn, s
    same: float  # how often the next turn is the same speaker's (after a pause)


def timing_of(segments: list[tuple[float, float, str]]) -> Timing | None:
    """The turns of one reference conversation (a speaker's segments closer than TURN_GAP_S joined)."""
    turns: list[list] = []
    last_of: dict[str, list] = {}
    for start, end, speaker in sorted(segments):
        mine = last_of.get(speaker)
        if mine is not None and start - mine[1] < TURN_GAP_S and mine is turns[-1]:
            mine[1] = max(mine[1], end)
            continue
        turns.append([start, end, speaker])
        last_of[speaker] = turns[-1]
    if len(turns) < 10:
        return None
    durations = np.array([e - s for s, e, _ in turns])
    gaps, pauses, same, latest = [], [], [], turns[0][1]
    for before, turn in zip(turns, turns[1:]):
        (pauses if turn[2] == before[2] else gaps).append(turn[0] - latest)
        same.append(turn[2] == before[2])
        latest = max(latest, turn[1])
    if not gaps:
        return None
    return Timing(durations[durations >= 0.2], np.clip(gaps, *GAP_RANGE_S),
                  np.clip(pauses or [TURN_GAP_S], TURN_GAP_S, GAP_RANGE_S[1]), float(np.mean(same)))


def timing_files(sources: Path, corpus: str, half: str) -> dict[str, list[tuple[float, float, str]]]:
    """Every reference conversation of a corpus's half: {"file:uri": segments}."""
    info = SOURCES[corpus]
    out = {}
    for pattern in info[half]:
        for path in sorted((sources / info["folder"]).glob(pattern)):
            for uri, segments in read_segments(path).items():
                out[f"{path.relative_to(sources / info['folder'])}:{uri}"] = segments
    return out


# --- the list --------------------------------------------------------------------------------------------

def readers(sources: Path) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(train-clean readers -> [utterance], test-other readers -> [utterances]), paths relative to the
    speech folder; train-clean utterances under MIN_UTTERANCE_S are left out."""
    import soundfile as sf

    root = sources / SOURCES["speech"]["folder"]
    clean = {}
    for path in sorted((root / "audio_data" / "librispeech_train-clean-100").glob("*.flac")):
        if sf.info(str(path)).duration >= MIN_UTTERANCE_S:
            clean[path.stem.split("-")[0]] = [str(path.relative_to(root))]
    other: dict[str, list[str]] = {}
    for path in sorted((root / "audio_data" / "librispeech_test-other").glob("*/*.flac")):
        other.setdefault(path.parent.name, []).append(str(path.relative_to(root)))
    return clean, other


def make_list(sources: Path) -> dict:
    """The conversations of both halves, drawn from SEED."""
    rng = np.random.default_rng(SEED)
    clean, other = readers(sources)
    clean_ids, other_ids = sorted(clean), sorted(other)
    rng.shuffle(clean_ids)
    rng.shuffle(other_ids)
    halves = {"dev": (clean_ids[: len(clean_ids) // 2], other_ids[: len(other_ids) // 2]),
              "test": (clean_ids[len(clean_ids) // 2:], other_ids[len(other_ids) // 2:])}
    conversations = []
    for half, (clean_half, other_half) in halves.items():
        conversations += _half(rng, half, "test" if half == "test" else "dev", sources, clean_half, other_half,
                               clean, other)
    return {"about": "Simulated conversations of 1 to 8 speakers for benchmarks/speakers/diarization_public.py --list, built by "
                     "benchmarks/speakers/diarization_sim.py from the sources below. The readers' split and every "
                     "conversation were drawn from the seed before any setting was tried on them: settings are "
                     "chosen on the dev half only; the test half is read with everything fixed.",
            "seed": SEED, "sources": SOURCES,
            "readers": {half: {"train-clean-100": sorted(c), "test-other": sorted(o)}
                        for half, (c, o) in halves.items()},
            "conversations": conversations}


def _half(rng: np.random.Generator, half: str, timing_half: str, sources: Path, clean_half: list[str],
          other_half: list[str], clean: dict, other: dict) -> list[dict]:
    """PER_COUNT conversations of each number of speakers, the variants in turn, timed after `timing_half`'s
    reference files."""
    timing = {corpus: sorted(k for k, v in timing_files(sources, corpus, timing_half).items() if timing_of(v))
              for corpus in ("telephone", "meeting", "broadcast", "wild")}
    conversations = []
    for count in COUNTS:
        variants = [v for v in VARIANTS if count > 1 or v != "unbalanced"]
        for k in range(PER_COUNT):
            variant = variants[k % len(variants)]
            conversations.append(_conversation(rng, half, count, k, variant, clean_half, other_half, clean, other,
                                               timing))
    return conversations


def fresh_adults(sources: Path) -> dict[str, list[str]]:
    """speechocean762's adult speakers ("so" and its number) -> their sentences (paths relative to its folder)."""
    root = sources / SOURCES["speech_fresh"]["folder"]
    if not (root / "train" / "spk2age").is_file():
        raise SystemExit(f"{root}: no speechocean762 here (train/spk2age missing); see the docstring for SOURCES")
    ages = {}
    for part in ("train", "test"):
        for line in (root / part / "spk2age").read_text().splitlines():
            speaker, age = line.split()
            ages[speaker] = int(age)
    adults = {}
    for speaker in sorted(s for s, age in ages.items() if age >= ADULT_AGE):
        sentences = sorted((root / "WAVE" / f"SPEAKER{speaker}").glob("*.WAV"))
        if sentences:
            adults[f"so{speaker}"] = [str(path.relative_to(root)) for path in sentences]
    return adults


def make_fresh_list(sources: Path) -> dict:
    """The fresh test half's conversations, drawn from FRESH_SEED: speechocean762's adults, timed after the
    test part of each corpus."""
    rng = np.random.default_rng(FRESH_SEED)
    adults = fresh_adults(sources)
    ids = sorted(adults)
    rng.shuffle(ids)
    long_ids, short_ids = ids[:FRESH_LONG_READERS], ids[FRESH_LONG_READERS:]
    short = {}
    for speaker in short_ids:
        n = int(rng.integers(FRESH_SENTENCES[0], FRESH_SENTENCES[1] + 1))
        short[speaker] = [adults[speaker][i] for i in sorted(rng.choice(len(adults[speaker]), n, replace=False))]
    long_ = {speaker: adults[speaker] for speaker in long_ids}
    conversations = _half(rng, "fresh", "test", sources, sorted(short), sorted(long_), short, long_)
    for entry in conversations:
        entry["speech"] = "speech_fresh"
    return {"about": "A fresh test half of simulated conversations of 1 to 8 speakers for "
                     "benchmarks/speakers/diarization_public.py --list, built by benchmarks/speakers/diarization_sim.py "
                     "--list diarization_sim_fresh.json from the sources below: speechocean762's adults, none of "
                     "whom speaks in diarization_sim.json. Drawn from its seed and committed after both halves of "
                     "diarization_sim.json had been read and before any setting was tried on it: it is read once, "
                     "with everything fixed.",
            "seed": FRESH_SEED, "sources": {k: v for k, v in SOURCES.items() if k != "speech"},
            "readers": {"fresh": {"sentences": short, "long": sorted(long_)}},
            "conversations": conversations}


def _conversation(rng: np.random.Generator, half: str, count: int, k: int, variant: str, clean_half: list[str],
                  other_half: list[str], clean: dict, other: dict, timing: dict) -> dict:
    """One conversation's entry: who speaks (and which utterances), at what level, timed after which file."""
    talkers = []
    if variant == "unbalanced":
        dominant = other_half[int(rng.integers(len(other_half)))]
        talkers.append({"reader": dominant, "utterances": list(other[dominant])})
        picked = rng.choice(clean_half, size=count - 1, replace=False).tolist()
    elif count == 1 and k % 2 == 1:  # half the one-speaker recordings are a longer reading
        reader = other_half[int(rng.integers(len(other_half)))]
        chosen = sorted(rng.choice(len(other[reader]), size=int(rng.integers(3, 7)), replace=False).tolist())
        talkers.append({"reader": reader, "utterances": [other[reader][i] for i in chosen]})
        picked = []
    else:
        picked = rng.choice(clean_half, size=count, replace=False).tolist()
    talkers += [{"reader": r, "utterances": list(clean[r])} for r in picked]
    for talker in talkers:
        talker["gain_db"] = round(float(rng.uniform(-6, 6)), 1)
    corpus = str(rng.choice(TIMING_OF_VARIANT[variant]))
    files = timing[corpus]
    return {"id": f"sim_{half}_{count}spk_{k:02d}_{variant}", "split": half, "speakers": count,
            "variant": variant, "timing": {"corpus": corpus, "file": files[int(rng.integers(len(files)))]},
            "seed": int(rng.integers(2**31)), "talkers": talkers}


# --- building one recording ------------------------------------------------------------------------------

def _load(path: Path) -> np.ndarray:
    import soundfile as sf

    audio, rate = sf.read(str(path), dtype="float32", always_2d=True)
    if rate != RATE:
        raise SystemExit(f"{path}: {rate} Hz, expected {RATE}")
    return audio.mean(axis=1)


def _active_level(audio: np.ndarray) -> float:
    """RMS of the louder half of the 50 ms frames: the level of the speech, not of its pauses."""
    frame = RATE // 20
    n = len(audio) // frame
    rms = np.sqrt(np.mean(audio[: n * frame].reshape(n, frame) ** 2, axis=1))
    loud = rms[rms >= np.median(rms)]
    return float(np.sqrt(np.mean(loud ** 2))) if len(loud) else 1e-9


def _trimmed(audio: np.ndarray) -> np.ndarray:
    """Without the silence before the first and after the last 20 ms frame above -50 dB of the peak."""
    frame = RATE // 50
    n = len(audio) // frame
    rms = np.sqrt(np.mean(audio[: n * frame].reshape(n, frame) ** 2, axis=1))
    loud = np.flatnonzero(rms > rms.max() * 10 ** (-50 / 20))
    return audio[loud[0] * frame:(loud[-1] + 1) * frame] if len(loud) else audio


def _speech_of(audio: np.ndarray) -> list[tuple[int, int]]:
    """Speech spans (samples) of clean audio, by the Silero VAD."""
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    chunks = get_speech_timestamps(audio, VadOptions(min_silence_duration_ms=300, speech_pad_ms=30))
    return [(c["start"], c["end"]) for c in chunks]


@dataclass
class Pool:
    """One speaker's speech, used front to back: the utterances joined, and where the VAD finds speech."""

    audio: np.ndarray
    speech: list[tuple[int, int]]
    used: int = 0

    @property
    def left(self) -> int:
        return len(self.audio) - self.used

    def take(self, samples: int) -> tuple[np.ndarray, list[tuple[int, int]]]:
        """About `samples` of the next speech, cut at the quietest 20 ms within 0.4 s of the target, with the
        VAD spans inside it (relative to the piece)."""
        target = self.used + samples
        if self.left - samples < RATE // 2:
            end = len(self.audio)
        else:
            lo, hi = max(self.used + RATE // 4, target - int(0.4 * RATE)), min(len(self.audio), target + int(0.4 * RATE))
            frame = RATE // 50
            starts = np.arange(lo, max(lo + 1, hi - frame), frame // 2)
            energy = [float(np.sum(self.audio[s:s + frame] ** 2)) for s in starts]
            end = int(starts[int(np.argmin(energy))] + frame // 2)
        piece = self.audio[self.used:end].copy()
        spans = [(max(s, self.used) - self.used, min(e, end) - self.used) for s, e in self.speech
                 if e > self.used and s < end]
        self.used = end
        fade = min(len(piece) // 2, RATE // 100)
        if fade:
            ramp = np.linspace(0, 1, fade, dtype=np.float32)
            piece[:fade] *= ramp
            piece[-fade:] *= ramp[::-1]
        return piece, spans


def _pools(entry: dict, speech_root: Path) -> list[Pool]:
    """Each talker's speech at its level; in the unbalanced variant the others cut so that the first holds
    DOMINANT_SHARE of it all."""
    pools = []
    for talker in entry["talkers"]:
        pieces, spans, offset = [], [], 0
        for name in talker["utterances"]:
            audio = _trimmed(_load(speech_root / name))
            audio = audio * np.float32(10 ** (SPEECH_DBFS / 20) / _active_level(audio) * 10 ** (talker["gain_db"] / 20))
            spans += [(s + offset, e + offset) for s, e in _speech_of(audio)]
            pieces.append(audio)
            offset += len(audio)
        pools.append(Pool(np.concatenate(pieces).astype(np.float32), spans))
    if entry["variant"] == "unbalanced" and len(pools) > 1:
        others = sum(len(p.audio) for p in pools[1:])
        wanted_others = len(pools[0].audio) * (1 - DOMINANT_SHARE) / DOMINANT_SHARE
        if others > wanted_others:  # the others are cut down
            for pool in pools[1:]:
                keep = int(len(pool.audio) * wanted_others / others)
                pool.audio, pool.speech = pool.audio[:keep], [(s, min(e, keep)) for s, e in pool.speech if s < keep]
        else:  # the dominant one is cut down
            keep = int(others * DOMINANT_SHARE / (1 - DOMINANT_SHARE))
            pool = pools[0]
            pool.audio, pool.speech = pool.audio[:keep], [(s, min(e, keep)) for s, e in pool.speech if s < keep]
    return pools


def timeline(entry: dict, pools: list[Pool], timing: Timing) -> list[tuple[int, int, np.ndarray, list]]:
    """(speaker, start sample, piece, its speech spans) for each turn, until every speaker's speech is used."""
    rng = np.random.default_rng(entry["seed"])
    placed: list[tuple[int, int, np.ndarray, list]] = []
    latest_end, previous = 0, None
    own_end = [0] * len(pools)
    while any(p.left > RATE // 4 for p in pools):
        speaking = [i for i, p in enumerate(pools) if p.left > RATE // 4]
        if previous in speaking and (len(speaking) == 1 or rng.random() < timing.same):
            who = previous
        else:
            others = [i for i in speaking if i != previous] or speaking
            weights = np.array([pools[i].left for i in others], dtype=float)
            who = others[int(rng.choice(len(others), p=weights / weights.sum()))]
        length = int(float(rng.choice(timing.durations)) * RATE)
        piece, spans = pools[who].take(max(length, RATE // 4))
        gap = float(rng.choice(timing.pauses if who == previous else timing.gaps))
        if not placed:
            start = int(rng.uniform(0.2, 1.0) * RATE)
        else:
            start = latest_end + int(gap * RATE)
            start = max(start, placed[-1][1] + RATE // 4, own_end[who] + int(TURN_GAP_S * RATE))
        placed.append((who, start, piece, spans))
        own_end[who] = start + len(piece)
        latest_end = max(latest_end, start + len(piece))
        previous = who
    return placed


def _room_response(rng: np.random.Generator) -> np.ndarray:
    """A synthetic room impulse response: the direct sound, then an exponentially decaying noise tail
    (RT60 0.3-0.9 s) at a direct-to-reverberant ratio of 0-10 dB."""
    rt60 = rng.uniform(0.3, 0.9)
    n = int(rt60 * RATE)
    t = np.arange(n) / RATE
    tail = rng.standard_normal(n) * np.exp(-6.9 * t / rt60)
    tail[: int(0.002 * RATE)] = 0
    drr_db = rng.uniform(0, 10)
    tail *= np.sqrt(1.0 / np.sum(tail ** 2) / 10 ** (drr_db / 10))
    tail[0] = 1.0
    return tail.astype(np.float32)


def _pink(rng: np.random.Generator, n: int) -> np.ndarray:
    spectrum = np.fft.rfft(rng.standard_normal(n))
    spectrum /= np.sqrt(np.maximum(np.arange(len(spectrum)), 1))
    noise = np.fft.irfft(spectrum, n)
    return (noise / np.sqrt(np.mean(noise ** 2))).astype(np.float32)


def _telephone(mix: np.ndarray) -> np.ndarray:
    """The mix through a telephone band, at 8 kHz."""
    from scipy.signal import butter, resample_poly, sosfilt

    band = sosfilt(butter(6, (300, 3400), btype="bandpass", fs=RATE, output="sos"), mix)
    return resample_poly(band, 1, 2).astype(np.float32)


def render(entry: dict, sources: Path) -> tuple[np.ndarray, int, list[tuple[int, int, int]]]:
    """(audio, its rate, reference (start ms, end ms, speaker)) of one conversation."""
    speech_root = sources / SOURCES[entry.get("speech", "speech")]["folder"]
    corpus, key = entry["timing"]["corpus"], entry["timing"]["file"]
    path, uri = key.rsplit(":", 1)
    timing = timing_of(read_segments(sources / SOURCES[corpus]["folder"] / path)[uri])
    if timing is None:
        raise SystemExit(f"{entry['id']}: the timing reference {key} has too few turns")
    pools = _pools(entry, speech_root)
    placed = timeline(entry, pools, timing)
    rng = np.random.default_rng(entry["seed"] + 1)
    length = max(start + len(piece) for _, start, piece, _ in placed) + int(rng.uniform(0.3, 1.5) * RATE)
    rooms = [_room_response(rng) for _ in pools] if entry["variant"] == "farfield" else None
    tracks = np.zeros((len(pools), length), dtype=np.float32)
    reference = []
    for who, start, piece, spans in placed:
        tracks[who, start:start + len(piece)] += piece
        reference += [((start + s) * 1000 // RATE, (start + e) * 1000 // RATE, who) for s, e in spans if e > s]
    if rooms is not None:
        from scipy.signal import fftconvolve

        tracks = np.stack([fftconvolve(track, room)[:length] for track, room in zip(tracks, rooms)]).astype(np.float32)
    mix = tracks.sum(axis=0)
    if entry["variant"] == "farfield":
        snr_db = rng.uniform(5, 20)
        mix += _pink(rng, length) * np.float32(_active_level(mix) * 10 ** (-snr_db / 20))
    rate = RATE
    if entry["variant"] == "telephone":
        mix, rate = _telephone(mix), RATE // 2
    peak = float(np.max(np.abs(mix))) if len(mix) else 0.0
    if peak > 0.89:
        mix *= np.float32(0.89 / peak)
    return mix, rate, sorted(reference)


def write(entry: dict, audio: np.ndarray, rate: int, reference: list[tuple[int, int, int]], out: Path) -> Path:
    """`<id>.flac` (16 kHz) or `<id>.wav` (8 kHz mu-law), and `<id>.rttm`."""
    import soundfile as sf

    telephone = entry["variant"] == "telephone"
    path = out / f"{entry['id']}.{'wav' if telephone else 'flac'}"
    sf.write(str(path), audio, rate, subtype="ULAW" if telephone else "PCM_16")
    lines = [f"SPEAKER {entry['id']} 1 {s / 1000:.3f} {(e - s) / 1000:.3f} <NA> <NA> "
             f"{entry['talkers'][who]['reader']} <NA> <NA>" for s, e, who in reference]
    (out / f"{entry['id']}.rttm").write_text("\n".join(lines) + "\n")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sources", type=Path, required=True, help="the source repositories, each under its name")
    parser.add_argument("--out", type=Path, help="where the recordings and their RTTM go")
    parser.add_argument("--split", choices=("dev", "test", "fresh", "all"), default="all")
    parser.add_argument("--list", type=Path, default=LIST,
                        help=f"the list to build (default {LIST.name}; {FRESH_LIST.name} for the fresh test half)")
    parser.add_argument("--make-list", action="store_true", help=f"write {LIST.name} from the seed and exit")
    parser.add_argument("--fresh", action="store_true", help=f"with --make-list: write {FRESH_LIST.name} instead")
    args = parser.parse_args()
    if args.fresh and not args.make_list:
        parser.error("--fresh goes with --make-list; build the fresh half with --list " + FRESH_LIST.name)
    if args.make_list:
        listed, made = (FRESH_LIST, make_fresh_list) if args.fresh else (LIST, make_list)
        listed.write_text(json.dumps(made(args.sources), indent=1) + "\n")
        return 0
    if args.out is None:
        parser.error("--out is needed to build")
    try:
        conversations = json.loads(args.list.read_text())["conversations"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        parser.error(f"--list {args.list}: not a list of simulated conversations ({type(exc).__name__}: {exc})")
    conversations = [entry for entry in conversations if args.split in ("all", entry.get("split"))]
    if not conversations:
        parser.error(f"--split {args.split}: no conversation of it in {args.list}")
    args.out.mkdir(parents=True, exist_ok=True)
    for entry in conversations:
        audio, rate, reference = render(entry, args.sources)
        path = write(entry, audio, rate, reference, args.out)
        print(f"{path.name}: {len(audio) / rate:.1f} s", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
