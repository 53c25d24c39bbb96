"""Speakers across a recording from the local speakers of its chunks: the clustering and the reconstruction
of segmentation-driven diarization (`diarize_segmentation`), on plain arrays.

- `agglomerate`: centroid-linkage agglomerative clustering of the unit embeddings of (chunk, local speaker)
  pairs, cut where the centroids are `threshold` apart (Euclidean, on unit vectors); clusters smaller than
  `min_size` are not speakers of their own and join the nearest large one. The number of speakers is what
  comes out, moved to the nearest bound when it falls outside `min_speakers`..`max_speakers` (the cut with
  that many large clusters, else the cut into that many clusters of any size).
- `assign`: every local speaker of a chunk to a cluster, two local speakers of one chunk never to the same
  one (they talk at the same time, or are told apart by the network inside 10 s).
- `reconstruct`: per frame of the recording, how many speak (the chunks' count, averaged and rounded) and
  which clusters (the most active, averaged over the chunks that hold the frame).
- `second_speakers`: who talks besides the speaker holding the floor where two talk at once, for pipelines
  that find overlapped speech apart from who speaks when.

`Diarized` is what every diarization pipeline gives the stage.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field

import numpy as np

NOT_ASSIGNED = -1  # a local speaker that is silent in its chunk


@dataclass(frozen=True)
class Segment:
    """A stretch of one speaker's speech."""

    s: int  # ms
    e: int
    speaker: int  # 0-based, numbered by first appearance


@dataclass
class Diarized:
    """Who spoke when: one speaker at a time (`segments`), the second voice where two speak (`overlaps`), each
    speaker's voice (the unit centroid of its embeddings) and the unit embeddings it was made of (`pieces`,
    where the pipeline keeps them: how alike a speaker's own speech is, for naming). Speakers 0..k-1 by
    first appearance."""

    segments: list[Segment] = field(default_factory=list)
    overlaps: list[tuple[int, int, int]] = field(default_factory=list)  # (start ms, end ms, speaker)
    voices: dict[int, np.ndarray] = field(default_factory=dict)
    clusters: int = 0  # the speakers the clustering found (one that never holds the floor has no segment)
    pieces: dict[int, np.ndarray] = field(default_factory=dict)


def agglomerate(emb: np.ndarray, threshold: float, min_size: int, min_speakers: int = 1,
                max_speakers: int = 20, chunks: np.ndarray | None = None,
                unlinked_similarity: float | None = None) -> np.ndarray:
    """A cluster label (0-based) per row of `emb` (unit vectors). See the module's docstring. With `chunks` (the
    chunk of each row) and `unlinked_similarity`, clusters are then merged by `merge_unlinked`."""
    from scipy.cluster.hierarchy import fcluster, linkage

    n = len(emb)
    if n < 2:
        return np.zeros(n, dtype=int)
    min_size = min(min_size, max(1, round(0.1 * n)))
    tree = linkage(emb.astype(np.float64), method="centroid", metric="euclidean")
    labels = fcluster(tree, threshold, criterion="distance") - 1
    wanted = min(max(_large_count(labels, min_size), min_speakers), max_speakers, n)
    if _large_count(labels, min_size) != wanted:
        labels = _cut_for(tree, wanted, min_size, n)
        if _large_count(labels, min_size) != wanted:  # no cut has that many large ones: `wanted` of any size
            labels, min_size = fcluster(tree, wanted, criterion="maxclust") - 1, 1
    labels = _merge_small(emb, labels, min_size)
    if chunks is not None and unlinked_similarity is not None:
        labels = merge_unlinked(emb, labels, chunks, unlinked_similarity, max(min_speakers, 1))
    return labels


def merge_unlinked(emb: np.ndarray, labels: np.ndarray, chunks: np.ndarray, similarity: float,
                   least: int = 1) -> np.ndarray:
    """Merge, most alike first, two clusters whose centroids are at least `similarity` alike (cosine) and that
    never speak in one chunk: two local speakers of one chunk are two people, so clusters that share a chunk
    are kept apart, while one voice split in two (a telephone line, a voice that changes) never shares one
    with itself. Stops at `least` clusters. Labels renumbered in order of first row."""
    labels = labels.copy()
    while len(set(labels.tolist())) > least:
        names = sorted(set(labels.tolist()))
        centroids = _unit(np.stack([emb[labels == k].mean(axis=0) for k in names]))
        present = [set(chunks[labels == k].tolist()) for k in names]
        best, best_similarity = None, similarity
        for a, b in zip(*np.triu_indices(len(names), 1)):
            alike = float(centroids[a] @ centroids[b])
            if alike >= best_similarity and not present[a] & present[b]:
                best, best_similarity = (names[a], names[b]), alike
        if best is None:
            break
        labels[labels == best[1]] = best[0]
    return renumbered(labels)


def _large_count(labels: np.ndarray, min_size: int) -> int:
    return int(np.sum(np.bincount(labels) >= min_size))


def _cut_for(tree: np.ndarray, wanted: int, min_size: int, n: int) -> np.ndarray:
    """The cut of the tree whose number of large clusters is nearest `wanted` (the fewest clusters that reach
    it): cut into k clusters for k from `wanted` up."""
    from scipy.cluster.hierarchy import fcluster

    best, best_miss = None, None
    for k in range(max(1, wanted), n + 1):
        labels = fcluster(tree, k, criterion="maxclust") - 1
        miss = abs(_large_count(labels, min_size) - wanted)
        if best_miss is None or miss < best_miss:
            best, best_miss = labels, miss
        if miss == 0:
            break
    return best if best is not None else np.zeros(n, dtype=int)


def _merge_small(emb: np.ndarray, labels: np.ndarray, min_size: int) -> np.ndarray:
    """Clusters under `min_size` join the large cluster of the nearest centroid (cosine); labels renumbered
    0..k-1 in order of first row. With no large cluster, one cluster."""
    sizes = np.bincount(labels)
    large = np.flatnonzero(sizes >= min_size)
    if len(large) == 0:
        return np.zeros(len(labels), dtype=int)
    centroids = _unit(np.stack([emb[labels == k].mean(axis=0) for k in range(len(sizes))]))
    nearest = large[np.argmax(centroids @ centroids[large].T, axis=1)]
    return renumbered(np.where(np.isin(labels, large), labels, nearest[labels]))


def renumbered(labels: np.ndarray) -> np.ndarray:
    """The labels as 0..k-1 in order of first appearance."""
    order = {old: new for new, old in enumerate(dict.fromkeys(labels.tolist()))}
    return np.array([order[x] for x in labels.tolist()], dtype=int)


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


def centroids_of(emb: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The unit mean of each cluster's embeddings, (clusters, dim)."""
    return _unit(np.stack([emb[labels == k].mean(axis=0) for k in range(int(labels.max()) + 1)]))


def assign(similarity: np.ndarray, active: np.ndarray) -> np.ndarray:
    """(chunks, local speakers) -> cluster, from `similarity` (chunks, local speakers, clusters): per chunk the
    assignment of its active local speakers to distinct clusters of the largest total similarity (Hungarian
    method); a local speaker left without a cluster (more active than clusters) takes its most similar one.
    Silent local speakers are NOT_ASSIGNED."""
    from scipy.optimize import linear_sum_assignment

    chunks, local, _ = similarity.shape
    out = np.full((chunks, local), NOT_ASSIGNED, dtype=int)
    for c in range(chunks):
        speaking = np.flatnonzero(active[c])
        if not len(speaking):
            continue
        rows, cols = linear_sum_assignment(-similarity[c, speaking])
        out[c, speaking[rows]] = cols
        for j in speaking:
            if out[c, j] == NOT_ASSIGNED:
                out[c, j] = int(np.argmax(similarity[c, j]))
    return out


def reconstruct(active: np.ndarray, firsts: np.ndarray, clusters: np.ndarray, frames: int) -> np.ndarray:
    """(frames, local speakers): who of the clusters speaks in each frame of the recording, the most active
    first, NOT_ASSIGNED where fewer speak.

    `active` (chunks, chunk frames, local speakers) 0/1 and `firsts` (the first frame of each chunk) are the
    segmentation; `clusters` (chunks, local speakers) the assignment. A frame's count of speakers is the number
    of local speakers active there, averaged over the chunks holding it and rounded; the speakers are that many
    of the clusters most active there, averaged over the chunks in which the cluster has a local speaker."""
    local = active.shape[2] if active.ndim == 3 else 0
    out = np.full((frames, local), NOT_ASSIGNED, dtype=int)
    k = int(clusters.max()) + 1 if clusters.size else 0
    if k <= 0 or frames == 0:
        return out
    span = active.shape[1]
    length = max(int(firsts.max()) + span, frames)
    count = np.zeros(length)
    chunks_at = np.zeros(length)
    level = np.zeros((length, k))
    present = np.zeros((length, k))
    for c, first in enumerate(firsts.tolist()):
        count[first:first + span] += active[c].sum(axis=1)
        chunks_at[first:first + span] += 1
        for cluster in set(clusters[c].tolist()) - {NOT_ASSIGNED}:
            level[first:first + span, cluster] += active[c][:, clusters[c] == cluster].max(axis=1)
            present[first:first + span, cluster] += 1
    speakers = np.rint(count / np.maximum(chunks_at, 1)).astype(int)[:frames]
    level = (level / np.maximum(present, 1))[:frames]
    ranked = np.argsort(-level, axis=1, kind="stable")
    for n in range(min(k, local)):
        rows = np.flatnonzero(speakers > n)
        picked = ranked[rows, n]
        speaking = level[rows, picked] > 0
        out[rows[speaking], n] = picked[speaking]
    return out


def second_speakers(segments: list[Segment], overlaps: list[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """(start, end, speaker) for every stretch where two speakers talk at once: the one talking there besides
    the speaker whose segments hold it, taken to be the nearest other speaker in time (most often the one just
    before or after, who starts early or ends late; of two as near, the earlier). `segments` hold one speaker
    at a time (none overlaps another)."""
    ordered = sorted(segments, key=lambda g: (g.s, g.e))
    starts, ends = [g.s for g in ordered], [g.e for g in ordered]
    out = []
    for s, e in overlaps:
        first, end = bisect.bisect_right(ends, s), bisect.bisect_left(starts, e)  # ordered[first:end] meet s..e
        held: dict[int, int] = {}
        for g in ordered[first:end]:
            held[g.speaker] = held.get(g.speaker, 0) + min(e, g.e) - max(s, g.s)
        main = max(held, key=lambda k: (held[k], -k)) if held else None
        other = next((g.speaker for g in ordered[first:end] if g.speaker != main), None)
        left, right = first - 1, end
        while other is None and (left >= 0 or right < len(ordered)):
            take_left = right >= len(ordered) or (left >= 0 and s - ordered[left].e <= ordered[right].s - e)
            g = ordered[left] if take_left else ordered[right]
            left, right = (left - 1, right) if take_left else (left, right + 1)
            if g.speaker != main:
                other = g.speaker
        if other is not None:
            out.append((s, e, other))
    return out
