"""Speaker diarization for one channel that holds several speakers (the mono fallback): the stage, and the
windows pipeline (`speechproc.diarizer: windows`, the default, and always with Resemblyzer embeddings). The
pipeline driven by segmentation-3.0 (`diarizer: segmentation`) is `diarize_segmentation`; both end in
`attribute`.

The windows pipeline:

1. Speech regions from the Silero VAD that faster-whisper ships, on a levelled copy.
2. Speaker embeddings over sliding windows inside each region (a region shorter than a window gets one
   window of its own), from the configured backend: CAM++ (`campplus.py`: the network run once over
   each region, its frame outputs pooled per window) or the Resemblyzer voice encoder. Window length
   and hop, and the count thresholds, are the backend's `Tuning`.
3. Spherical k-means of the window embeddings (seeded, so the labels are reproducible). The speaker
   count is the configured one, or estimated: k grows from 1 while the k-th cluster holds at least
   MIN_SPEAKER_SHARE of the speech (MIN_FURTHER_SHARE from the third on; and MIN_SPEAKER_MS), no two
   centroids are as alike as one voice (`same_similarity`), and the split accounts for a real share of
   the embeddings' spread: at least `min_gain` (`further_gain` from the third on), and
   `gain_windows / windows` for recordings with few windows, which any split of one voice explains well.
4. A change of speaker shorter than ISLAND_MS inside continuous speech is given back to the speaker
   around it (`smooth`). Each window labels the stretch of time nearest its centre; one speaker's
   stretches make a segment across pauses under BRIDGE_MS.
5. Each recognised word takes the speaker whose segments cover most of it; a word without duration or
   outside every segment takes the speech around it, and a lone weakly covered word joins its
   neighbours (`attribute`). Words are never split: turn boundaries fall between words.
"""
from __future__ import annotations

import bisect
import functools
from dataclasses import dataclass
from typing import cast

import numpy as np

from speechproc.conversation import Conversation
from speechproc.engines import campplus, inventory, resemblyzer
from speechproc.engines.models import default_threads, load_campplus, load_segmentation, load_voice_encoder
from speechproc.engines.resemblyzer import MEL_FRAME_MS
from speechproc.engines.segmentation import overlap_regions
from speechproc.media import ASR_RATE, finite
from speechproc.stages import diarize_segmentation
from speechproc.stages.options import DEFAULT_MAX_SPEAKERS, DiarizationOptions
from speechproc.stages.speaker_clusters import Segment, renumbered

EMBEDDING = "campplus"
MIN_SPEAKER_SHARE = 0.15  # of the speech, for a second cluster to count as a speaker
MIN_FURTHER_SHARE = 0.10  # of the speech, for a third or further cluster (a meeting's quieter member)
MIN_SPEAKER_MS = 1000  # and at least this much of it
BRIDGE_MS = 300  # a shorter pause between one speaker's stretches is part of the same segment
ISLAND_MS = 800  # a shorter change of speaker inside continuous speech is taken back (`smooth`)
WEAK_SUPPORT = 0.5  # a lone word whose speaker covers less of it than this joins its neighbours' speaker
MAX_FIT_WINDOWS = 3000  # k-means is fitted on at most this many windows (about 20 minutes of speech)
KMEANS_INITS = 10
KMEANS_ROUNDS = 30

VAD_LEVEL = 0.1  # -20 dBFS


@dataclass(frozen=True)
class Tuning:
    """What depends on the embedding backend: the windows, and how alike two speakers' centroids may be."""

    window_s: float  # embedding window
    hop_s: float  # one window every hop
    gain_windows: float  # a further cluster must explain this / windows of the spread ...
    min_gain: float  # ... and at least this share (the second speaker)
    further_gain: float  # ... or this share (a third speaker or more)
    same_similarity: float  # centroids at least this alike are one speaker


# fitted on ../shared/evaldata (benchmarks/diarization.py; docs/benchmarks.md#diarization)
TUNINGS = {"campplus": Tuning(1.5, 0.4, 4.75, 0.12, 0.08, 0.85), "resemblyzer": Tuning(1.6, 0.4, 5.0, 0.12, 0.12, 0.85)}


# --- features --------------------------------------------------------------------------------------------

def _levelled(samples: np.ndarray) -> np.ndarray:
    """Scale so the loud frames (90th percentile of 50 ms RMS) sit at -20 dBFS: Silero misses quiet speech."""
    frame = ASR_RATE // 20
    n = len(samples) // frame
    if n == 0:
        return samples
    rms = np.sqrt(np.mean(np.square(samples[: n * frame].reshape(n, frame), dtype=np.float64), axis=1))
    loud = float(np.percentile(rms, 90))
    return samples * np.float32(VAD_LEVEL / loud) if loud > 1e-6 else samples


def speech_regions(samples: np.ndarray) -> list[tuple[int, int]]:
    """Speech spans in ms from the Silero VAD on levelled audio (short pauses bridged)."""
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    options = VadOptions(min_silence_duration_ms=300, speech_pad_ms=60, min_speech_duration_ms=200)
    chunks = get_speech_timestamps(_levelled(samples), options, sampling_rate=ASR_RATE)
    return [(c["start"] * 1000 // ASR_RATE, c["end"] * 1000 // ASR_RATE) for c in chunks]


@dataclass
class Windows:
    starts: np.ndarray  # first mel frame of each window
    lengths: np.ndarray  # frames in each window
    spans: np.ndarray  # (n, 2) ms of time each window labels


def plan_windows(regions: list[tuple[int, int]], window_s: float, hop_s: float) -> Windows:
    """Sliding windows inside each region; each labels the stretch nearest its centre."""
    win, hop = round(window_s * 1000), round(hop_s * 1000)
    planned: list[tuple[int, int, int, int]] = []  # (start, length, labelled from, labelled to) in ms
    for s, e in regions:
        if e - s <= win:
            planned.append((s, e - s, s, e))
            continue
        firsts = list(range(s, e - win + 1, hop))
        if firsts[-1] + win < e:
            firsts.append(e - win)
        centres = [f + win // 2 for f in firsts]
        bounds = [s] + [(a + b) // 2 for a, b in zip(centres, centres[1:])] + [e]
        planned += [(f, win, bounds[k], bounds[k + 1]) for k, f in enumerate(firsts)]
    table = np.array(planned, dtype=np.int64).reshape(-1, 4)
    return Windows(table[:, 0] // MEL_FRAME_MS, np.maximum(table[:, 1] // MEL_FRAME_MS, 1), table[:, 2:])


def embed(samples: np.ndarray, regions: list[tuple[int, int]], windows: Windows, backend: str = EMBEDDING,
          weights: str | None = None, threads: int = 1) -> np.ndarray:
    """One L2-normalised speaker embedding per window, from the chosen backend (campplus, resemblyzer), the
    network's pieces of work computed `threads` at a time."""
    if backend == "resemblyzer":
        mel = resemblyzer.mel_spectrogram(resemblyzer.normalised(samples, regions))
        return resemblyzer.embed_windows(mel, windows.starts, windows.lengths, weights, threads)
    features = campplus.fbank(samples)
    frames = [(s // MEL_FRAME_MS, e // MEL_FRAME_MS) for s, e in regions]
    return campplus.embed_spans(load_campplus(weights), features, frames, windows.starts, windows.lengths,
                                threads=threads)


# --- clustering ------------------------------------------------------------------------------------------

def kmeans(emb: np.ndarray, k: int, inits: int = KMEANS_INITS, rounds: int = KMEANS_ROUNDS) -> np.ndarray:
    """Spherical k-means (cosine) of L2-normalised embeddings: the best of `inits` k-means++ starts from a
    fixed seed, so the same embeddings always give the same labels. Fitted on at most MAX_FIT_WINDOWS
    windows spread evenly over the recording; every window then joins its nearest centroid."""
    if k <= 1 or len(emb) <= 1:
        return np.zeros(len(emb), dtype=int)
    fit = emb[np.linspace(0, len(emb) - 1, min(len(emb), MAX_FIT_WINDOWS)).round().astype(int)]
    rng = np.random.default_rng(0)
    best_score, best = -np.inf, None
    for _ in range(inits):
        centroids = fit[[rng.integers(len(fit))]]
        for _ in range(1, k):  # k-means++: the next start far (in cosine) from those chosen
            far = np.maximum(1.0 - (fit @ centroids.T).max(axis=1), 0.0)
            pick = rng.choice(len(fit), p=far / far.sum()) if far.sum() > 0 else rng.integers(len(fit))
            centroids = np.vstack([centroids, fit[pick]])
        for _ in range(rounds):
            labels = np.argmax(fit @ centroids.T, axis=1)
            moved = np.stack([fit[labels == c].mean(axis=0) if np.any(labels == c) else centroids[c]
                              for c in range(k)])
            moved /= np.maximum(np.linalg.norm(moved, axis=1, keepdims=True), 1e-9)
            if np.allclose(moved, centroids):
                break
            centroids = moved
        score = float(np.sum(fit * centroids[np.argmax(fit @ centroids.T, axis=1)]))
        if best is None or score > best_score:
            best_score, best = score, centroids
    if best is None:
        raise ValueError("k-means needs at least one start (inits >= 1)")
    return np.argmax(emb @ best.T, axis=1)


def explained(emb: np.ndarray, labels: np.ndarray) -> float:
    """The share of the embeddings' spread that the clusters account for (between / total scatter)."""
    total = float(np.sum((emb - emb.mean(axis=0)) ** 2))
    within = sum(float(np.sum((emb[labels == c] - emb[labels == c].mean(axis=0)) ** 2)) for c in set(labels.tolist()))
    return 1.0 - within / total if total > 0 else 0.0


def _split_is_real(emb: np.ndarray, spans: np.ndarray, labels: np.ndarray, k: int, gain: float,
                   tuning: Tuning) -> bool:
    """Whether the k-th cluster is a speaker: each of the k holds a real share of the speech, no two
    centroids are as alike as one voice, and the split accounts for more of the embeddings' spread
    than splitting one voice would (a fixed share, more for few windows, which any split explains well)."""
    if len(set(labels.tolist())) < k:
        return False
    durations = spans[:, 1] - spans[:, 0]
    per_cluster = np.bincount(labels, weights=durations, minlength=k)
    least_share = MIN_SPEAKER_SHARE if k == 2 else MIN_FURTHER_SHARE
    if per_cluster.min() < MIN_SPEAKER_MS or per_cluster.min() / max(float(durations.sum()), 1.0) < least_share:
        return False
    centroids = np.stack([emb[labels == c].mean(axis=0) for c in range(k)])
    centroids /= np.maximum(np.linalg.norm(centroids, axis=1, keepdims=True), 1e-9)
    if float(np.max((centroids @ centroids.T)[np.triu_indices(k, 1)])) >= tuning.same_similarity:
        return False
    return gain >= max(tuning.gain_windows / len(emb), tuning.min_gain if k == 2 else tuning.further_gain)


def cluster(emb: np.ndarray, spans: np.ndarray, speakers: int | None = None,
            max_speakers: int = DEFAULT_MAX_SPEAKERS, tuning: Tuning = TUNINGS[EMBEDDING],
            min_speakers: int = 1) -> np.ndarray:
    """A speaker label per window, 0-based, numbered by first appearance. The count is `speakers`, or
    estimated: k grows from 1 while the k-th cluster passes `_split_is_real`, and at least `min_speakers`."""
    if len(emb) == 0:
        return np.zeros(0, dtype=int)
    if speakers:
        labels = kmeans(emb, min(speakers, len(emb)))
    else:
        labels, share = np.zeros(len(emb), dtype=int), 0.0
        for k in range(2, min(max_speakers, len(emb)) + 1):
            candidate = kmeans(emb, k)
            gain = explained(emb, candidate) - share
            if not _split_is_real(emb, spans, candidate, k, gain, tuning):
                break
            labels, share = candidate, share + gain
        if len(set(labels.tolist())) < min_speakers:
            labels = kmeans(emb, min(min_speakers, len(emb)))
    return renumbered(labels)


def estimate_speakers(emb: np.ndarray, spans: np.ndarray, max_speakers: int = DEFAULT_MAX_SPEAKERS,
                      tuning: Tuning = TUNINGS[EMBEDDING]) -> int:
    """How many speakers `cluster` finds when no count is given."""
    return len(set(cluster(emb, spans, None, max_speakers, tuning).tolist()))


def smooth(spans: np.ndarray, labels: np.ndarray, island_ms: int = ISLAND_MS) -> np.ndarray:
    """Give back to the surrounding speaker a run of windows shorter than `island_ms` inside one stretch of
    speech that one other speaker holds on both sides: the voice holding the floor keeps its turn through
    a brief overlap or a misheard window, so the turn of the word being spoken does not flip."""
    labels = labels.copy()
    runs: list[list[int]] = []  # [first window, last window] of each run of one label within a region
    for i, lab in enumerate(labels.tolist()):
        joined = i > 0 and spans[i, 0] - spans[i - 1, 1] <= 1
        if runs and joined and labels[runs[-1][0]] == lab:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    for before, run, after in zip(runs, runs[1:], runs[2:]):
        first, last = run
        inside = spans[first, 0] - spans[before[1], 1] <= 1 and spans[after[0], 0] - spans[last, 1] <= 1
        short = spans[last, 1] - spans[first, 0] < island_ms
        if inside and short and labels[before[1]] == labels[after[0]]:
            labels[first: last + 1] = labels[before[1]]
    return labels


def segments_from(windows: Windows, labels: np.ndarray) -> list[Segment]:
    """Merge consecutive stretches with one label into segments, across pauses under BRIDGE_MS."""
    out: list[Segment] = []
    for (s, e), lab in zip(windows.spans.tolist(), labels.tolist()):
        if out and out[-1].speaker == lab and s - out[-1].e < BRIDGE_MS:
            out[-1] = Segment(out[-1].s, e, lab)
        else:
            out.append(Segment(s, e, lab))
    return out


def diarize(samples: np.ndarray, speakers: int | None = None, max_speakers: int = DEFAULT_MAX_SPEAKERS,
            backend: str = EMBEDDING, weights: str | None = None, tuning: Tuning | None = None,
            threads: int = 1) -> list[Segment]:
    """Who spoke when in 16 kHz mono audio: segments labelled 0..k-1 by first appearance. `threads`: how many
    pieces of the embedding network's work run side by side (the result is the same for any number)."""
    return diarize_voices(samples, speakers, max_speakers, backend, weights, tuning, threads)[0]


def diarize_voices(samples: np.ndarray, speakers: int | None = None, max_speakers: int = DEFAULT_MAX_SPEAKERS,
                   backend: str = EMBEDDING, weights: str | None = None, tuning: Tuning | None = None,
                   threads: int = 1, min_speakers: int = 1) -> tuple[list[Segment], dict[int, np.ndarray]]:
    """`diarize`, and each label's voice: the normalised mean of the embeddings of the windows it was given."""
    tuning = tuning or TUNINGS[backend]
    samples = finite(samples)
    regions = speech_regions(samples)
    if not regions:
        return [], {}
    windows = plan_windows(regions, tuning.window_s, tuning.hop_s)
    emb = embed(samples, regions, windows, backend, weights, threads)
    labels = smooth(windows.spans, cluster(emb, windows.spans, speakers, max_speakers, tuning, min_speakers))
    voices = {}
    for label in np.unique(labels):
        mean = emb[labels == label].mean(axis=0)
        voices[int(label)] = (mean / max(float(np.linalg.norm(mean)), 1e-12)).astype(np.float32)
    return segments_from(windows, labels), voices


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


def segmented(options: DiarizationOptions) -> bool:
    """Whether the segmentation pipeline (`diarize_segmentation`) finds the speakers: asked for, with CAM++."""
    return options.diarizer == "segmentation" and options.embedding == "campplus"


def needs(options: DiarizationOptions) -> tuple[str, ...]:
    """The bundled models `run` may load (`inventory` keys): the speaker encoder unless the user gives its
    weights, the segmentation network for the segmentation pipeline or overlapped speech."""
    if not options.enabled or options.speakers == 1:
        return ()
    keys = []
    if options.encoder is None:
        keys.append(inventory.RESEMBLYZER if options.embedding == "resemblyzer" else inventory.CAMPPLUS)
    if options.overlap or segmented(options):
        keys.append(inventory.SEGMENTATION)
    return tuple(keys)


def prepare(options: DiarizationOptions) -> None:
    """Load what `run` will need: the speaker encoder (and the segmentation network)."""
    if options.embedding == "resemblyzer":
        load_voice_encoder(options.encoder)
    else:
        load_campplus(options.encoder)
    if options.overlap or segmented(options):
        load_segmentation()


def _nearness(segment: Segment, s: int, e: int) -> tuple[int, int]:
    """How far (ms) `segment` is from the stretch s..e (0 when they overlap), then its start: a sort key."""
    return (0 if segment.s < e and segment.e > s else min(abs(segment.s - e), abs(s - segment.e))), segment.s


def second_speakers(segments: list[Segment], overlaps: list[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """(start, end, speaker) for every stretch where two speakers talk at once: the one talking there besides
    the speaker whose segments hold it, taken to be the nearest other speaker in time (most often the one just
    before or after, who starts early or ends late)."""
    out = []
    for s, e in overlaps:
        held: dict[int, int] = {}
        for g in segments:
            if g.s < e and g.e > s:
                held[g.speaker] = held.get(g.speaker, 0) + min(e, g.e) - max(s, g.s)
        main = max(held, key=lambda k: (held[k], -k)) if held else None

        nearest = sorted(segments, key=functools.partial(_nearness, s=s, e=e))
        other = next((g.speaker for g in nearest if g.speaker != main), None)
        if other is not None:
            out.append((s, e, other))
    return out


def run(conv: Conversation, options: DiarizationOptions) -> None:
    """Give every recognised word of a multi-speaker mono recording its speaker (see `applies`); keep each
    speaker's voice (CAM++ embeddings) for naming the speakers (`identify`)."""
    if not conv.recognized:
        return
    channel = conv.channels[0]
    samples = finite(channel.live_samples())  # a float recording may hold NaN or infinity: silence there
    threads = options.threads or default_threads()
    overlapped: list[tuple[int, int, int]] = []
    if segmented(options):
        found = diarize_segmentation.diarize(samples, load_segmentation(), load_campplus(options.encoder),
                                             options.speakers, options.min_speakers, options.max_speakers,
                                             threads=threads)
        segments, voices, overlapped = found.segments, found.voices, found.overlaps
    else:
        segments, voices = diarize_voices(samples, options.speakers, options.max_speakers,
                                          options.embedding, options.encoder, threads=threads,
                                          min_speakers=options.min_speakers)
        if options.overlap:
            overlapped = second_speakers(segments, overlap_regions(load_segmentation(), samples))
    if not segments:
        return
    labels = attribute([(w.s, w.e) for w in conv.recognized], segments)
    # renumber by first appearance in the words, so Speaker 1 is the first to speak
    order = {old: new for new, old in enumerate(dict.fromkeys(labels))}
    names = speaker_names(len(order), options.speaker_names, channel.speaker_name)
    for w, label in zip(conv.recognized, labels):
        w.speaker = names[order[label]]
    conv.diarized_speakers = names
    if options.overlap:
        conv.overlapped = [(s, e, names[order[k]]) for s, e, k in overlapped if k in order]
    if options.embedding == "campplus" and options.encoder is None:  # the voiceprints' own network
        conv.diarized_voices = {names[order[label]]: voices[label] for label in order if label in voices}
