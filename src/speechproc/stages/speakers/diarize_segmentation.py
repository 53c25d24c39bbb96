"""Segmentation-driven diarization (`speechproc.diarizer: segmentation`), the pipeline of pyannote 3.1 built from
the networks speechproc carries:

1. pyannote's segmentation-3.0 (`engines.segmentation`) decides who speaks when inside each 10 s chunk (one
   every `step_s`): up to three local speakers per chunk, two at once where they overlap.
2. One CAM++ embedding per (chunk, local speaker), pooled from the network's frame outputs over that speaker's
   frames alone (those where nobody else in the chunk speaks, when there are enough of them). The network runs
   once over the recording (`campplus.frame_outputs`); each embedding costs only its pooling.
3. The embeddings of the local speakers with enough speech are clustered across the recording
   (`speaker_clusters.agglomerate`): the number of speakers is what comes out, within the bounds given.
4. Every local speaker joins a cluster, two of one chunk never the same one (`speaker_clusters.assign`), and
   the chunks are put back together per frame (`speaker_clusters.reconstruct`): the most active speaker of a
   frame holds it, a second one there is overlapped speech, found by the same pass.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from speechproc.engines import campplus, segmentation
from speechproc.media import finite
from speechproc.stages.options import DEFAULT_MAX_SPEAKERS
from speechproc.stages.speakers import speaker_clusters as clusters
from speechproc.stages.speakers.speaker_clusters import Diarized, Segment


@dataclass(frozen=True)
class SegmentationTuning:
    """The pipeline's settings."""

    step_s: float = 2.5  # one 10 s chunk every step_s
    threshold: float = 0.6  # centroids further apart (Euclidean, unit vectors) are different speakers
    min_cluster_size: int = 2  # (chunk, local speaker) embeddings a cluster needs to be a speaker of its own
    min_embedding_s: float = 0.4  # speech a local speaker needs for its embedding to shape the clusters
    min_clean_s: float = 0.4  # speech alone a local speaker needs for its embedding to use only that
    unlinked_similarity: float | None = 0.55  # clusters this alike (cosine) that never share a chunk merge


TUNING = SegmentationTuning()


@dataclass
class Embedded:
    """The segmentation of a recording and an embedding per (chunk, local speaker): what the clustering reads."""

    activity: segmentation.LocalActivity
    duration_ms: int  # of the recording
    emb: np.ndarray  # (chunks, local speakers, dim) unit vectors (zeros where `has` is False)
    has: np.ndarray  # (chunks, local speakers) the local speaker speaks, and has an embedding
    trains: np.ndarray  # (chunks, local speakers) with enough speech to shape the clusters


def diarize(samples: np.ndarray, segmenter, encoder, speakers: int | None = None, min_speakers: int = 1,
            max_speakers: int = DEFAULT_MAX_SPEAKERS, tuning: SegmentationTuning = TUNING, threads: int = 1) -> Diarized:
    """Who spoke when in 16 kHz mono `samples`, with the segmentation network `segmenter` and the CAM++
    network `encoder`. `speakers` fixes the count; otherwise it comes out of the clustering, within
    `min_speakers`..`max_speakers`. `threads`: pieces of CAM++'s work side by side (same result for any)."""
    return clustered(embedded(samples, segmenter, encoder, tuning, threads), speakers, min_speakers, max_speakers,
                     tuning)


def embedded(samples: np.ndarray, segmenter, encoder, tuning: SegmentationTuning = TUNING,
             threads: int = 1) -> Embedded:
    """Steps 1 and 2: the segmentation, and the embeddings of its local speakers."""
    samples = finite(samples)
    duration_ms = len(samples) * 1000 // segmentation.RATE
    activity = segmentation.local_activity(segmenter, samples, tuning.step_s, threads)
    if not activity.active.any():
        none = np.zeros(activity.active.shape[::2], dtype=bool)
        empty = np.zeros((*none.shape, campplus.EMBEDDING_SIZE), dtype=np.float32)
        return Embedded(activity, duration_ms, empty, none, none)
    features = campplus.fbank(samples)
    frames, rows = campplus.frame_outputs(encoder, features, speech_regions(activity, len(features)),
                                          threads=threads)
    return Embedded(activity, duration_ms, *_embeddings(encoder, frames, rows, activity, tuning))


SPEECH_PAD_S = 0.15  # CAM++ runs over the speech the segmentation found, this much around it


def speech_regions(activity: segmentation.LocalActivity, features: int) -> list[tuple[int, int]]:
    """(first, end) feature frames (10 ms, even) where some chunk has someone speaking, padded and merged."""
    spoken = np.zeros(activity.frames + activity.active.shape[1], dtype=bool)
    for first, chunk in zip(activity.firsts.tolist(), activity.active):
        spoken[first:first + len(chunk)] |= chunk.any(axis=1)
    edges = np.flatnonzero(np.diff(np.r_[0, spoken.astype(np.int8), 0]))
    step, span, last = segmentation.FRAME_STEP_S, segmentation.FRAME_SPAN_S, features - features % 2
    out: list[tuple[int, int]] = []
    for a, b in zip(edges[::2], edges[1::2]):  # in pairs of feature frames (20 ms), so that regions are even
        lo = max(0, int((a * step - SPEECH_PAD_S) * 50)) * 2
        hi = min(last, int(np.ceil((b * step + span + SPEECH_PAD_S) * 50)) * 2)
        if hi <= lo:
            continue
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def clustered(found: Embedded, speakers: int | None = None, min_speakers: int = 1, max_speakers: int = DEFAULT_MAX_SPEAKERS,
              tuning: SegmentationTuning = TUNING) -> Diarized:
    """Steps 3 and 4: the speakers across the recording, and who of them speaks when."""
    if not found.has.any():
        return Diarized()
    trains = found.trains if found.trains.any() else found.has
    low, high = (speakers, speakers) if speakers else (min_speakers, max_speakers)
    chunk_of = np.broadcast_to(np.arange(len(trains))[:, None], trains.shape)[trains]
    labels = clusters.agglomerate(found.emb[trains], tuning.threshold, tuning.min_cluster_size, low, high,
                                  chunk_of, tuning.unlinked_similarity)
    centroids = clusters.centroids_of(found.emb[trains], labels)
    similarity = np.where(found.has[..., None], found.emb @ centroids.T, -np.inf)
    assigned = clusters.assign(similarity, found.has)
    active = found.activity.active * found.has[:, None, :]
    who = clusters.reconstruct(active, found.activity.firsts, assigned, found.activity.frames)
    return _timeline(who, centroids, found.duration_ms)


def _embeddings(encoder, frames: np.ndarray, rows: np.ndarray, activity: segmentation.LocalActivity,
                tuning: SegmentationTuning) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(embeddings (chunks, local, dim), which local speakers have one, which have enough speech to shape the
    clusters). A local speaker's CAM++ frames are those whose moment falls in its active segmentation frames,
    only the ones where it speaks alone when there are at least `min_clean_s` of them."""
    chunks, span, local = activity.active.shape
    step_ms = campplus.OUTPUT_STEP_MS
    least_clean = round(tuning.min_clean_s * 1000 / step_ms)
    least_training = round(tuning.min_embedding_s * 1000 / step_ms)
    masks, where, trains = [], [], []
    for c, first in enumerate(activity.firsts.tolist()):
        start_ms = first * segmentation.FRAME_STEP_S * 1000
        outputs = np.arange(int(start_ms // step_ms),
                            int((start_ms + span * segmentation.FRAME_STEP_S * 1000) // step_ms))
        outputs = outputs[outputs < len(rows)]  # CAM++ output frames of the chunk, of the whole recording
        at = np.rint(((outputs + 0.5) * step_ms / 1000 - segmentation.FRAME_SPAN_S / 2) / segmentation.FRAME_STEP_S)
        f = at.astype(int) - first  # the chunk's segmentation frame at each
        inside = (f >= 0) & (f < span)
        kept, f = rows[outputs[inside]], f[inside]  # rows of `frames` (-1: not computed, outside the speech)
        kept, f = kept[kept >= 0], f[kept >= 0]
        chunk = activity.active[c][f]  # (frames here, local)
        alone = chunk.sum(axis=1) == 1
        for k in range(local):
            speaking = chunk[:, k] == 1
            if speaking.sum() < 2:
                continue
            clean = speaking & alone
            mask = kept[clean] if clean.sum() >= least_clean else kept[speaking]
            masks.append(mask)
            where.append((c, k))
            trains.append(len(mask) >= least_training)
    dim = campplus.EMBEDDING_SIZE
    emb = np.zeros((chunks, local, dim), dtype=np.float32)
    has = np.zeros((chunks, local), dtype=bool)
    train = np.zeros((chunks, local), dtype=bool)
    for (c, k), vector, enough in zip(where, campplus.pooled_embeddings(encoder, frames, masks), trains):
        if np.all(np.isfinite(vector)):
            emb[c, k], has[c, k], train[c, k] = vector, True, enough
    return emb, has, train


def _ms(frame: int, end: bool = False) -> int:
    """The start (or end) of a segmentation frame of the recording, in ms."""
    centre = frame * segmentation.FRAME_STEP_S + segmentation.FRAME_SPAN_S / 2
    return round((centre + (0.5 if end else -0.5) * segmentation.FRAME_STEP_S) * 1000)


def _runs(labels: np.ndarray) -> list[tuple[int, int, int]]:
    """(first frame, end frame, label) of each run of one label, NOT_ASSIGNED runs left out."""
    edges = np.flatnonzero(np.diff(labels)) + 1
    bounds = np.r_[0, edges, len(labels)]
    return [(int(a), int(b), int(labels[a])) for a, b in zip(bounds[:-1], bounds[1:])
            if labels[a] != clusters.NOT_ASSIGNED]


def _timeline(who: np.ndarray, centroids: np.ndarray, duration_ms: int) -> Diarized:
    """Segments of the most active speaker, overlaps of the second, speakers renumbered by first appearance;
    nothing past the end of the recording."""
    def span(a: int, b: int) -> tuple[int, int]:
        return min(_ms(a), duration_ms), min(_ms(b - 1, end=True), duration_ms)

    main = [(a, b, label) for a, b, label in _runs(who[:, 0]) if span(a, b)[0] < span(a, b)[1]]
    order = {old: new for new, old in enumerate(dict.fromkeys(label for _, _, label in main))}
    segments = [Segment(*span(a, b), order[label]) for a, b, label in main]
    overlaps = [(*span(a, b), order[label]) for a, b, label in _runs(who[:, 1])
                if label in order and span(a, b)[0] < span(a, b)[1]] if who.shape[1] > 1 else []
    voices = {new: centroids[old].astype(np.float32) for old, new in order.items()}
    return Diarized(segments, overlaps, voices, len(centroids))
