"""Speakers by name: the voices of a recording matched to the voiceprints of enrolled people.

A voice is the mean of the unit CAM++ embeddings of speech windows (the diarization's windows: 1.5 s every
0.4 s), normalised: for a person enrolled, one per enrolled recording (an exemplar); in a recording, one per
speaker that diarization found (the windows it gave that speaker) or one per channel (a channel the
configuration named keeps its name, but its voice competes for the names). A person's similarity to a
voice is the cosine of their best exemplar, so several exemplars (another microphone, another line) only
widen who is recognised.

A voice takes a person's name only when (`identify`):
- the similarity is at least the threshold (calibrated: `docs/benchmarks.md#speakers-by-name`), and
- the person is the voice's best match by at least MARGIN over the next person, and
- the voice is the person's best match among the recording's voices (mutual best): two voices never take
  one name, and a diarization that split one person in two names only the better half, and
- where the diarization kept the embeddings a speaker's voice was made of (its windows), the speaker is
  one voice, or every part of it is the person (`mixed`): split in two by k-means, two parts that each hold
  at least MIXED_SHARE of it and are not as alike as one voice (SAME_VOICE) must both reach the threshold.
  A cluster that mixes two people is named after neither.
A voice that matches no one keeps its `Speaker N`.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from speechproc import errors as E
from speechproc.conversation import Conversation
from speechproc.engines import inventory
from speechproc.engines.models import default_threads
from speechproc.media import finite
from speechproc.stages.options import EnrolledSpeaker, IdentifyOptions
from speechproc.stages.speakers import diarize_windows

MARGIN = 0.05  # the best person's similarity over the second best's, for a name to be given
MIXED_SHARE = 0.2  # a part of a speaker's windows this large ...
SAME_VOICE = 0.85  # ... whose centroid is less alike to the other part's than this is another voice
MIN_ENROLL_SPEECH_S = 5.0  # speech an enrollment needs, in all its recordings together
MIN_EXEMPLAR_SPEECH_S = 2.0  # and each of them
MAX_VOICE_SPEECH_S = 180.0  # a voice is computed from at most this much speech of a recording (its first)


@dataclass(frozen=True)
class Voice:
    """A voice heard: its unit embedding and the seconds of speech it was computed from."""

    embedding: np.ndarray
    speech_s: float


def _capped(regions: list[tuple[int, int]], seconds: float) -> list[tuple[int, int]]:
    """The first `seconds` of speech of `regions` (ms)."""
    out, left = [], int(seconds * 1000)
    for s, e in regions:
        if left <= 0:
            break
        out.append((s, min(e, s + left)))
        left -= out[-1][1] - s
    return out


def unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return (vector / norm).astype(np.float32) if norm > 0 else vector.astype(np.float32)


def voice_of(samples: np.ndarray, encoder: str | None = None, threads: int = 1,
             regions: list[tuple[int, int]] | None = None) -> Voice | None:
    """The voice of 16 kHz mono `samples` (its speech, as the VAD finds it, or `regions` in ms), from at most
    MAX_VOICE_SPEECH_S of speech; None when there is no speech."""
    samples = finite(samples)
    found = _capped(regions if regions is not None else diarize_windows.speech_regions(samples), MAX_VOICE_SPEECH_S)
    if not found:
        return None
    tuning = diarize_windows.TUNINGS["campplus"]
    windows = diarize_windows.plan_windows(found, tuning.window_s, tuning.hop_s)
    embeddings = diarize_windows.embed(samples, found, windows, "campplus", encoder, threads)
    return Voice(unit(embeddings.mean(axis=0)), sum(e - s for s, e in found) / 1000)


def similarities(voices: Sequence[np.ndarray], people: Sequence[EnrolledSpeaker]) -> np.ndarray:
    """(voices x people): each person's best exemplar's cosine similarity to each voice (-1 for what is not a
    number: a voice of NaN never matches, nor blocks another voice's match)."""
    out = np.full((len(voices), len(people)), -1.0)
    for j, person in enumerate(people):
        exemplars = np.asarray(person.exemplars, dtype=np.float32).reshape(-1, len(voices[0]) if voices else 1)
        for i, heard in enumerate(voices):
            out[i, j] = float(np.max(exemplars @ heard))
    return np.nan_to_num(out, nan=-1.0)


def identify(voices: Sequence[np.ndarray], people: Sequence[EnrolledSpeaker], threshold: float,
             margin: float = MARGIN, pieces: Sequence[np.ndarray | None] | None = None) -> list[EnrolledSpeaker | None]:
    """For each voice, the person it is (see the module's rules), or None. `pieces`: for each voice, the unit
    embeddings it was made of (None where not kept), for the rule against mixed speakers."""
    if not voices or not people:
        return [None] * len(voices)
    scores = similarities(voices, people)
    named: list[EnrolledSpeaker | None] = []
    for i in range(len(voices)):
        ranked = np.argsort(-scores[i], kind="stable")
        best = int(ranked[0])
        second = scores[i, ranked[1]] if len(people) > 1 else -1.0
        mutual = int(np.argmax(scores[:, best])) == i
        good = scores[i, best] >= threshold and scores[i, best] - second >= margin and mutual
        parts = pieces[i] if pieces is not None else None
        if good and parts is not None and mixed(parts, people[best], threshold):
            good = False
        named.append(people[best] if good else None)
    return named


def mixed(pieces: np.ndarray, person: EnrolledSpeaker, threshold: float) -> bool:
    """Whether a speaker made of the unit embeddings `pieces` holds a voice that is not `person`'s: split in two
    by k-means, both parts hold MIXED_SHARE of it, are less alike than SAME_VOICE, and one of them is under the
    threshold to the person's best exemplar."""
    emb = np.nan_to_num(np.asarray(pieces, dtype=np.float32))
    if len(emb) < 2:
        return False
    halves = diarize_windows.kmeans(emb, 2)
    shares = np.bincount(halves, minlength=2) / len(halves)
    if shares.min() < MIXED_SHARE:
        return False
    centroids = np.stack([unit(emb[halves == k].mean(axis=0)) for k in (0, 1)])
    if float(centroids[0] @ centroids[1]) >= SAME_VOICE:
        return False
    exemplars = np.asarray(person.exemplars, dtype=np.float32).reshape(-1, emb.shape[1])
    return float(np.min(np.max(centroids @ exemplars.T, axis=1))) < threshold


def enrollment_voices(recordings: Sequence[np.ndarray], names: Sequence[str], encoder: str | None = None,
                      threads: int = 1) -> list[Voice]:
    """The exemplar of each of one person's recordings of them alone (`names` say which file each is);
    ConfigurationError when one holds less than MIN_EXEMPLAR_SPEECH_S of speech (a poor exemplar would widen
    who matches the person) or all together less than MIN_ENROLL_SPEECH_S (silence, music, noise)."""
    voices = [voice_of(samples, encoder, threads) for samples in recordings]
    heard = sum(v.speech_s for v in voices if v is not None)
    if heard < MIN_ENROLL_SPEECH_S:
        raise E.ConfigurationError(E.INVALID_VALUE, f"the recordings hold {heard:.1f} s of speech; a voiceprint needs "
                                   f"at least {MIN_ENROLL_SPEECH_S:.0f} s of the person speaking alone")
    for voice, name in zip(voices, names):
        if voice is None or voice.speech_s < MIN_EXEMPLAR_SPEECH_S:
            seconds = voice.speech_s if voice is not None else 0.0
            raise E.ConfigurationError(E.INVALID_VALUE, f"{name} holds {seconds:.1f} s of speech; each recording "
                                       f"enrolled needs at least {MIN_EXEMPLAR_SPEECH_S:.0f} s")
    return [v for v in voices if v is not None]


# --- the stage -------------------------------------------------------------------------------------------

def needs(options: IdentifyOptions) -> tuple[str, ...]:
    """CAM++ (`inventory` key) when someone is enrolled and identification is on."""
    return (inventory.CAMPPLUS,) if names_anyone(options) else ()


def names_anyone(options: IdentifyOptions) -> bool:
    """Whether identification is on and someone is enrolled (else no voice of a recording is compared)."""
    return options.enabled and bool(options.people)


def applies(conv: Conversation, options: IdentifyOptions) -> bool:
    """Name speakers when someone is enrolled, identification is on, and a voice was left unnamed."""
    return names_anyone(options) and bool(conv.recognized) and any(c.default_name for c in conv.channels)


def _speaker_regions(conv: Conversation, speaker: str) -> list[tuple[int, int]]:
    """The spans (ms) of one speaker's words, merged across pauses under diarize_windows.BRIDGE_MS."""
    spans: list[tuple[int, int]] = []
    for word in conv.recognized:
        if word.speaker != speaker or word.e <= word.s:
            continue
        if spans and word.s - spans[-1][1] < diarize_windows.BRIDGE_MS:
            spans[-1] = (spans[-1][0], max(spans[-1][1], word.e))
        else:
            spans.append((word.s, word.e))
    return spans


def voices(conv: Conversation, threads: int) -> tuple[dict[str, np.ndarray], set[str]]:
    """The voices of the recording by the speaker name they have now, and which of them may be renamed: the
    diarized speakers' (their windows' CAM++ embeddings when the diarization computed them, else the speech of
    their words), or every channel's (a channel named by the configuration keeps its name, but its voice
    still competes: a voice that is more like an enrolled person than any unnamed one leaves that name unused)."""
    if conv.diarized_speakers and len(conv.channels) == 1:
        if conv.diarized_voices:
            return dict(conv.diarized_voices), set(conv.diarized_voices)
        samples = conv.channels[0].live_samples()
        spoken = {name: voice_of(samples, None, threads, _speaker_regions(conv, name)) for name in conv.diarized_speakers}
        heard = {name: v.embedding for name, v in spoken.items() if v is not None}
        return heard, set(heard)
    heard, renameable = {}, set()
    for channel in conv.channels:
        voice = voice_of(channel.live_samples(), None, threads)
        if voice is not None:
            heard[channel.speaker_name] = voice.embedding
            if channel.default_name:
                renameable.add(channel.speaker_name)
    return heard, renameable


def run(conv: Conversation, options: IdentifyOptions, diarized_named: bool = False) -> None:
    """Rename every voice of `conv` that is an enrolled person; record the people's roles on `conv`.
    `diarized_named`: the diarized speakers were named by the configuration (they keep those names)."""
    heard, renameable = voices(conv, options.threads or default_threads())
    if diarized_named and conv.diarized_speakers:
        renameable = set()
    names = list(heard)
    pieces = [conv.diarized_pieces.get(n) for n in names]
    people = identify([heard[n] for n in names], options.people, options.threshold, pieces=pieces)
    renamed = {old: person.name for old, person in zip(names, people) if person is not None and old in renameable}
    taken = set(conv.speakers) - set(renamed)
    renamed = {old: new for old, new in renamed.items() if new not in taken}  # a configured name stays its own
    if not renamed:
        return
    for word in conv.recognized:
        word.speaker = renamed.get(word.speaker, word.speaker)
    if conv.diarized_speakers:
        conv.diarized_speakers = [renamed.get(n, n) for n in conv.diarized_speakers]
    for channel in conv.channels:
        channel.speaker_name = renamed.get(channel.speaker_name, channel.speaker_name)
    conv.overlapped = [(s, e, renamed.get(name, name)) for s, e, name in conv.overlapped]
    for person in people:
        if person is not None and person.name in renamed.values() and person.role:
            conv.speaker_roles[person.name] = person.role
