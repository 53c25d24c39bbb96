"""Speaker diarization for one channel that holds several speakers (the mono fallback): the stage. It runs one
of three pipelines (`speechproc.diarizer`), each giving who spoke when (`speaker_clusters.Diarized`):

- `windows` (the default, and the only one with Resemblyzer embeddings): `diarize_windows`, embeddings of
  sliding windows inside the Silero VAD's speech, k-means with count rules;
- `hybrid`: `diarize_hybrid`, segmentation-3.0's speech and overlapped speech, the windows' embeddings
  and count rules inside it;
- `segmentation`: `diarize_segmentation`, segmentation-3.0's local speakers per chunk, clustered.

Then every recognised word takes a speaker (`attribute`): the one whose segments cover most of it; a word
without duration or outside every segment takes the speech around it, and a lone weakly covered word joins
its neighbours. Words are never split: turn boundaries fall between words.
"""
from __future__ import annotations

import bisect
from typing import cast

import numpy as np

from speechproc.conversation import Conversation
from speechproc.engines import inventory
from speechproc.engines.models import default_threads, load_campplus, load_segmentation
from speechproc.engines.segmentation import overlap_regions
from speechproc.media import finite
from speechproc.stages.options import DiarizationOptions
from speechproc.stages.speakers import diarize_hybrid, diarize_segmentation, diarize_windows
from speechproc.stages.speakers.speaker_clusters import Diarized, Segment, second_speakers

WEAK_SUPPORT = 0.5  # a lone word whose speaker covers less of it than this joins its neighbours' speaker


# --- words to speakers -----------------------------------------------------------------------------------

def _overlaps(s: int, e: int, segments: list[Segment], starts: list[int]) -> dict[int, int]:
    """Milliseconds of [s, e] each speaker's segments cover."""
    i = max(0, bisect.bisect_right(starts, s) - 1)
    overlap: dict[int, int] = {}
    while i < len(segments) and segments[i].s < e:
        amount = min(e, segments[i].e) - max(s, segments[i].s)
        if amount > 0:
            overlap[segments[i].speaker] = overlap.get(segments[i].speaker, 0) + amount
        i += 1
    return overlap


def _speaker_at(t: int, segments: list[Segment], starts: list[int]) -> int | None:
    """The speaker of the segment that holds moment t, if any."""
    i = bisect.bisect_right(starts, t) - 1
    return segments[i].speaker if i >= 0 and segments[i].s <= t < segments[i].e else None


def attribute(spans: list[tuple[int, int]], segments: list[Segment]) -> list[int]:
    """A speaker for each word span (s, e) in ms, in the words' order, from the diarized segments.

    A word takes the speaker whose segments cover most of it. A word that no segment covers, or that
    has no duration (the recogniser gives some words s == e), takes the speaker of the speech around it:
    its previous or next word's speaker, whichever the segment at its moment agrees with, else the
    previous word's; so such a word never makes a turn of its own. A lone word between two words of
    another speaker, weakly covered by its own (less than WEAK_SUPPORT of it), joins them.
    """
    starts = [seg.s for seg in segments]
    labels: list[int | None] = []
    support: list[float] = []
    for s, e in spans:
        overlap = _overlaps(s, e, segments, starts) if e > s else {}
        if overlap:
            best = max(overlap, key=lambda k: (overlap[k], -k))
            labels.append(best)
            support.append(overlap[best] / (e - s))
        else:
            labels.append(None)
            support.append(0.0)
    known = [i for i, lab in enumerate(labels) if lab is not None]
    if not known:
        nearest = [_speaker_at(s, segments, starts) for s, _ in spans]
        return [lab if lab is not None else (segments[0].speaker if segments else 0) for lab in nearest]
    for i, lab in enumerate(labels):
        if lab is not None:
            continue
        before = labels[i - 1] if i > 0 else None  # already settled
        after = labels[known[bisect.bisect_right(known, i)]] if known[-1] > i else None
        here = _speaker_at(spans[i][0], segments, starts)
        labels[i] = here if here is not None and here in (before, after) else (before if before is not None else after)
    for i in range(1, len(labels) - 1):
        if labels[i - 1] == labels[i + 1] != labels[i] and support[i] < WEAK_SUPPORT:
            labels[i] = labels[i - 1]
    return [int(lab) for lab in cast("list[int]", labels)]  # every word has its speaker by now


# --- the stage -------------------------------------------------------------------------------------------

def applies(conv: Conversation, options: DiarizationOptions) -> bool:
    """Diarize only one channel whose speaker was not named by the configuration, unless switched off."""
    return (options.enabled and len(conv.channels) == 1 and not conv.channels[0].named
            and options.speakers != 1)


def speaker_names(count: int, given: tuple[str, ...], default: str) -> list[str]:
    """Configured names in order of first appearance, then `Speaker N`; a single speaker keeps `default`."""
    if count == 1:
        return [given[0] if given else default]
    return [given[i] if i < len(given) else f"Speaker {i + 1}" for i in range(count)]


def pipeline(options: DiarizationOptions) -> str:
    """The pipeline that finds the speakers: the configured `diarizer`; `windows` with Resemblyzer embeddings."""
    return options.diarizer if options.embedding == "campplus" else "windows"


def needs(options: DiarizationOptions) -> tuple[str, ...]:
    """The bundled models `run` may load (`inventory` keys): the speaker encoder unless the user gives its
    weights, the segmentation network for the segmentation and hybrid pipelines or overlapped speech."""
    if not options.enabled or options.speakers == 1:
        return ()
    keys = []
    if options.encoder is None:
        keys.append(inventory.RESEMBLYZER if options.embedding == "resemblyzer" else inventory.CAMPPLUS)
    if options.overlap or pipeline(options) != "windows":
        keys.append(inventory.SEGMENTATION)
    return tuple(keys)


def prepare(options: DiarizationOptions) -> None:
    """Load what `run` will need: the speaker encoder (and the segmentation network)."""
    diarize_windows.load_backend(options.embedding, options.encoder)
    if options.overlap or pipeline(options) != "windows":
        load_segmentation()


def diarized(samples: np.ndarray, options: DiarizationOptions, threads: int, voices_needed: bool = True) -> Diarized:
    """Who spoke when in 16 kHz mono `samples`, by the configured pipeline; overlapped speech only where asked
    for (the windows pipeline needs a second pass of the segmentation network for it). Without
    `voices_needed` (nothing will name the speakers) the windows pipeline may leave out the speakers' voices."""
    chosen = pipeline(options)
    if chosen == "segmentation":
        return diarize_segmentation.diarize(samples, load_segmentation(), load_campplus(options.encoder),
                                            options.speakers, options.min_speakers, options.max_speakers,
                                            threads=threads)
    if chosen == "hybrid":
        return diarize_hybrid.diarize(samples, load_segmentation(), options.encoder, options.speakers,
                                      options.min_speakers, options.max_speakers, threads=threads)
    found = diarize_windows.diarized(samples, options.speakers, options.max_speakers, options.embedding,
                                     options.encoder, threads=threads, min_speakers=options.min_speakers,
                                     voices_needed=voices_needed)
    if options.overlap:
        found.overlaps = second_speakers(found.segments, overlap_regions(load_segmentation(), samples))
    return found


def run(conv: Conversation, options: DiarizationOptions, voices_needed: bool = True) -> None:
    """Give every recognised word of a multi-speaker mono recording its speaker (see `applies`); with
    `voices_needed`, keep each speaker's voice (CAM++ embeddings) for naming the speakers (`identify`)."""
    if not conv.recognized:
        return
    channel = conv.channels[0]
    samples = finite(channel.live_samples())  # a float recording may hold NaN or infinity: silence there
    found = diarized(samples, options, options.threads or default_threads(), voices_needed)
    if not found.segments:
        return
    labels = attribute([(w.s, w.e) for w in conv.recognized], found.segments)
    # renumber by first appearance in the words, so Speaker 1 is the first to speak
    order = {old: new for new, old in enumerate(dict.fromkeys(labels))}
    names = speaker_names(len(order), options.speaker_names, channel.speaker_name)
    for w, label in zip(conv.recognized, labels):
        w.speaker = names[order[label]]
    conv.diarized_speakers = names
    if options.overlap:
        conv.overlapped = [(s, e, names[order[k]]) for s, e, k in found.overlaps if k in order]
    if options.embedding == "campplus" and options.encoder is None:  # the voiceprints' own network
        conv.diarized_voices = {names[order[label]]: found.voices[label] for label in order if label in found.voices}
        conv.diarized_pieces = {names[order[label]]: found.pieces[label] for label in order if label in found.pieces}
