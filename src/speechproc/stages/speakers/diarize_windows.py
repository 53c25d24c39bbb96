"""The windows pipeline of speaker diarization (`speechproc.diarizer: windows`, and always with Resemblyzer
embeddings), and the window embeddings and count rules the hybrid pipeline (`diarize_hybrid`) builds on:

1. Speech regions from the Silero VAD that faster-whisper ships, on a levelled copy.
2. Speaker embeddings over sliding windows inside each region (a region shorter than a window gets one
   window of its own), from the configured backend: CAM++ (`campplus.py`: the network run once over
   each region, its frame outputs pooled per window) or the Resemblyzer voice encoder. Window length
   and hop, and the count thresholds, are the backend's `Tuning`.
3. Spherical k-means of the window embeddings (seeded, so the labels are reproducible). The speaker
   count is the configured one, or estimated: k grows from 1 while the k-th cluster holds at least
   `min_share` of the speech (`further_share` from the third on; and `min_speaker_ms`), no two centroids are
   as alike as one voice (`same_similarity`), and the split accounts for a real share of the embeddings'
   spread: at least `min_gain` (`further_gain` from the third on), and `gain_windows / windows` for
   recordings with few windows, which any split of one voice explains well.
4. A change of speaker shorter than ISLAND_MS inside continuous speech is given back to the speaker
   around it (`smooth`). Each window labels the stretch of time nearest its centre; one speaker's
   stretches make a segment across pauses under BRIDGE_MS.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from speechproc.engines import campplus, resemblyzer
from speechproc.engines.models import load_campplus, load_voice_encoder
from speechproc.engines.resemblyzer import MEL_FRAME_MS
from speechproc.media import ASR_RATE, finite
from speechproc.stages.options import DEFAULT_MAX_SPEAKERS
from speechproc.stages.speakers.speaker_clusters import Diarized, Segment, renumbered

EMBEDDING = "campplus"
BRIDGE_MS = 300  # a shorter pause between one speaker's stretches is part of the same segment
ISLAND_MS = 800  # a shorter change of speaker inside continuous speech is taken back (`smooth`)
MAX_FIT_WINDOWS = 3000  # k-means is fitted on at most this many windows (about 20 minutes of speech)
KMEANS_INITS = 10
KMEANS_ROUNDS = 30

VAD_LEVEL = 0.1  # -20 dBFS


@dataclass(frozen=True)
class Tuning:
    """The windows, and the count rules: how much of the speech and of the embeddings' spread a further
    cluster must hold, and how alike two speakers' centroids may be."""

    window_s: float  # embedding window
    hop_s: float  # one window every hop
    gain_windows: float  # a further cluster must explain this / windows of the spread ...
    min_gain: float  # ... and at least this share (the second speaker)
    further_gain: float  # ... or this share (a third speaker or more)
    same_similarity: float  # centroids at least this alike are one speaker
    min_share: float = 0.15  # of the speech, for a second cluster to count as a speaker
    further_share: float = 0.10  # of the speech, for a third or further cluster (a meeting's quieter member)
    min_speaker_ms: int = 1000  # and at least this much speech, for any cluster


# fitted on ../shared/evaldata (benchmarks/speakers/diarization.py; docs/benchmarks.md#diarization)
TUNINGS = {"campplus": Tuning(1.5, 0.4, 4.75, 0.12, 0.08, 0.85), "resemblyzer": Tuning(1.6, 0.4, 5.0, 0.12, 0.12, 0.85)}


# --- features --------------------------------------------------------------------------------------------

POWER_BLOCK = 1 << 20  # samples whose frames' power is computed at once (no copy of a long recording)


def frame_power(samples: np.ndarray, frame: int) -> np.ndarray:
    """The mean square (float64) of each whole frame of `frame` samples, computed a block at a time."""
    count = len(samples) // frame
    power = np.empty(count)
    per_block = max(1, POWER_BLOCK // frame)
    for first in range(0, count, per_block):
        last = min(count, first + per_block)
        power[first:last] = np.mean(np.square(samples[first * frame:last * frame].reshape(last - first, frame),
                                              dtype=np.float64), axis=1)
    return power


def level_scale(samples: np.ndarray) -> float | None:
    """What brings the loud frames (90th percentile of 50 ms RMS) to -20 dBFS (Silero misses quiet speech);
    None for silence."""
    rms = np.sqrt(frame_power(samples, ASR_RATE // 20))
    if len(rms) == 0:
        return None
    loud = float(np.percentile(rms, 90))
    return VAD_LEVEL / loud if loud > 1e-6 else None


def speech_regions(samples: np.ndarray) -> list[tuple[int, int]]:
    """Speech spans in ms from the Silero VAD on levelled audio (short pauses bridged), streamed from the
    recording itself: neither the levelled audio nor a padded copy is ever held whole."""
    from faster_whisper.vad import VadOptions

    from speechproc.engines.lowmem import speech_timestamps

    options = VadOptions(min_silence_duration_ms=300, speech_pad_ms=60, min_speech_duration_ms=200)
    chunks = speech_timestamps(samples, options, sampling_rate=ASR_RATE, scale=level_scale(samples))
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


def load_backend(backend: str, weights: str | None = None) -> None:
    """Load the speaker network of `backend` (campplus, resemblyzer) with `weights`, as `embed` does."""
    if backend == "resemblyzer":
        load_voice_encoder(weights)
    else:
        load_campplus(weights)


def embed(samples: np.ndarray, regions: list[tuple[int, int]], windows: Windows, backend: str = EMBEDDING,
          weights: str | None = None, threads: int = 1) -> np.ndarray:
    """One L2-normalised speaker embedding per window, from the chosen backend (campplus, resemblyzer), the
    network's pieces of work computed `threads` at a time."""
    if backend == "resemblyzer":
        mel = resemblyzer.mel_spectrogram(resemblyzer.normalised(samples, regions))
        return resemblyzer.embed_windows(mel, windows.starts, windows.lengths, weights, threads)
    features = campplus.Filterbanks(samples)  # computed a block at a time, never held whole
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
    least_share = tuning.min_share if k == 2 else tuning.further_share
    if per_cluster.min() < tuning.min_speaker_ms or per_cluster.min() / max(float(durations.sum()), 1.0) < least_share:
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
    return diarized(samples, speakers, max_speakers, backend, weights, tuning, threads).segments


def diarized(samples: np.ndarray, speakers: int | None = None, max_speakers: int = DEFAULT_MAX_SPEAKERS,
             backend: str = EMBEDDING, weights: str | None = None, tuning: Tuning | None = None,
             threads: int = 1, min_speakers: int = 1, voices_needed: bool = True) -> Diarized:
    """`diarize`, with each label's voice (the normalised mean of the embeddings of the windows it was given)
    and those embeddings. Without `voices_needed` (nothing will name the speakers), a recording in which the count
    rules cannot find a second speaker is not embedded at all: one speaker, no voice."""
    tuning = tuning or TUNINGS[backend]
    samples = finite(samples)
    regions = speech_regions(samples)
    if not regions:
        return Diarized()
    return clustered(samples, regions, speakers, min_speakers, max_speakers, backend, weights, tuning, threads,
                     voices_needed)


def one_speaker_certain(windows: Windows, speakers: int | None, min_speakers: int, max_speakers: int,
                        tuning: Tuning) -> bool:
    """Whether `cluster` gives every window one label whatever the embeddings: one speaker asked for or the
    most allowed, or an estimate from too few windows for any split to explain the share of the spread the
    count rules ask (a split explains at most all of it), or from too little speech for two speakers of
    `min_speaker_ms` each."""
    if speakers:
        return speakers == 1
    if min_speakers > 1:
        return False
    labelled_ms = int(np.sum(windows.spans[:, 1] - windows.spans[:, 0]))
    count = len(windows.starts)
    return (max_speakers < 2 or count < 2 or tuning.gain_windows / count > 1.0
            or labelled_ms < 2 * tuning.min_speaker_ms)


def clustered(samples: np.ndarray, regions: list[tuple[int, int]], speakers: int | None, min_speakers: int,
              max_speakers: int, backend: str, weights: str | None, tuning: Tuning, threads: int,
              voices_needed: bool = True) -> Diarized:
    """Steps 2 to 4 over the speech `regions` (ms) of `samples` (without `voices_needed`, see `diarized`)."""
    windows = plan_windows(regions, tuning.window_s, tuning.hop_s)
    if not voices_needed and one_speaker_certain(windows, speakers, min_speakers, max_speakers, tuning):
        load_backend(backend, weights)  # loaded already, by the warm-up; one that cannot load fails here as it would
        return Diarized(segments_from(windows, np.zeros(len(windows.starts), dtype=int)), [], {},
                        min(1, len(windows.starts)), {})
    emb = embed(samples, regions, windows, backend, weights, threads)
    labels = smooth(windows.spans, cluster(emb, windows.spans, speakers, max_speakers, tuning, min_speakers))
    voices, pieces = {}, {}
    for label in np.unique(labels).tolist():
        mine = emb[labels == label]
        mean = mine.mean(axis=0)
        voices[label] = (mean / max(float(np.linalg.norm(mean)), 1e-12)).astype(np.float32)
        pieces[label] = mine.astype(np.float16)
    return Diarized(segments_from(windows, labels), [], voices, len(voices), pieces)
