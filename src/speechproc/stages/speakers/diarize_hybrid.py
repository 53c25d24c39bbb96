"""The hybrid diarizer (`speechproc.diarizer: hybrid`): segmentation-3.0 says where there is speech and where two
speakers talk at once; the windows pipeline's CAM++ embeddings and count rules (`diarize_windows`) say who.

1. **Speech.** segmentation-3.0 reads 10 s chunks, one every `step_s` (5 s); for every 17 ms frame the
   probability that someone speaks, and that two speakers talk at once, is averaged over the chunks that hold
   it. Speech is where the first is over `speech_threshold`, pauses under `bridge_ms` bridged, pieces under
   `min_speech_ms` dropped. The network bridges pauses a VAD would not (it was trained on speaker turns), so
   quiet stretches are cut out: runs of at least `quiet_ms` of 20 ms frames whose level lies in the lowest
   `quiet_share` of the recording's range (from its 5th to its 95th percentile, in dB). Unlike the Silero VAD
   of the windows pipeline, it keeps telephone speech (8 kHz, mu-law) whole.
   The speech is then cut where the network hears one voice give way to another (`speaker_changes`): inside
   a chunk, a local speaker who talks alone for `change_run_frames` (100 ms) after another one did. So
   that no embedding window straddles two people, each piece gets its own windows (`cut_at`; pieces under
   `min_piece_ms` are not made). Without it, windows that hold the end of one turn and the start of the
   next were given to the wrong speaker: most of the error on conversations of many speakers.
2. **Who.** CAM++ embeddings of 1.5 s windows every 0.4 s inside that speech, spherical k-means, the count
   grown while each further cluster holds enough speech and spread (`diarize_windows.cluster`, with
   `TUNING.windows`: a third or further speaker needs 3 % of the speech and 3 % of the spread, where the
   windows pipeline asks 10 % and 8 %, so that the quieter members of a larger group are counted; every
   speaker 3 s of speech). The count is at least the most local speakers of one chunk who each talk alone
   for `alone_s` (2 s): the network tells two parties of a telephone line apart where their embeddings are
   alike.
3. **Timeline.** Short changes of speaker inside continuous speech are taken back, windows make segments
   (`diarize_windows.smooth`, `segments_from`); where two speakers talk at once, the second voice is the
   nearest other speaker in time (`speaker_clusters.second_speakers`), found by the same pass of the network.

The settings were chosen on the dev half of simulated conversations of 1 to 8 speakers, the dev half of public
recordings, two-party cuts of a real call and one-speaker files (`benchmarks/speakers/diarization_public.py`;
docs/benchmarks.md#diarization-on-public-recordings).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from speechproc.engines import segmentation
from speechproc.media import ASR_RATE, finite
from speechproc.stages.options import DEFAULT_MAX_SPEAKERS
from speechproc.stages.speakers import diarize_windows
from speechproc.stages.speakers.diarize_windows import Tuning
from speechproc.stages.speakers.speaker_clusters import Diarized, second_speakers

QUIET_FRAME_MS = 20


@dataclass(frozen=True)
class HybridTuning:
    """The pipeline's settings."""

    step_s: float = 5.0  # one 10 s chunk of the segmentation network every step_s
    speech_threshold: float = 0.5  # a frame is speech when someone speaks in it with this probability
    overlap_threshold: float = 0.5  # ... and two speakers at once
    bridge_ms: int = 300  # shorter pauses inside speech are bridged
    min_speech_ms: int = 200  # shorter pieces of speech are dropped
    quiet_share: float = 0.2  # a 20 ms frame is quiet in the lowest share of the level range (dB) ...
    quiet_ms: int = 300  # ... and this much of quiet frames is a pause
    alone_s: float = 2.0  # local speakers of one chunk who each talk alone this long are that many people at least
    change_run_frames: int = 6  # a local speaker alone this many frames (17 ms each) after another: a change ...
    change_edge_frames: int = 30  # ... unless within this many frames of its chunk's edges, where the network is unsure
    change_merge_ms: int = 300  # a change this close after the one before joins it (overlapping chunks hear both)
    min_piece_ms: int = 500  # speech is not cut into pieces shorter than this
    windows: Tuning = field(default_factory=lambda: Tuning(1.5, 0.4, 4.75, 0.10, 0.03, 0.85, min_share=0.10,
                                                           further_share=0.03, min_speaker_ms=3000))


TUNING = HybridTuning()


def diarize(samples: np.ndarray, segmenter, weights: str | None = None, speakers: int | None = None,
            min_speakers: int = 1, max_speakers: int = DEFAULT_MAX_SPEAKERS, tuning: HybridTuning = TUNING,
            threads: int = 1) -> Diarized:
    """Who spoke when in 16 kHz mono `samples`, with the segmentation network `segmenter` and the CAM++ weights
    `weights` (None: the bundled ones). `speakers` fixes the count; otherwise it is estimated within
    `min_speakers`..`max_speakers`. `threads`: pieces of the networks' work side by side (same result for any)."""
    samples = finite(samples)
    if len(samples) == 0:
        return Diarized()
    heard = segmentation.frame_probabilities(segmenter, np.ascontiguousarray(samples, dtype=np.float32),
                                             tuning.step_s, threads)
    regions = cut_at(speech_regions(heard.speech, samples, tuning), speaker_changes(heard, tuning), tuning.min_piece_ms)
    if not regions:
        return Diarized()
    least = min(max(min_speakers, fewest_speakers(heard.alone, tuning.alone_s)), max_speakers)
    found = diarize_windows.clustered(samples, regions, speakers, least, max_speakers, "campplus", weights,
                                      tuning.windows, threads)
    found.overlaps = second_speakers(found.segments,
                                     segmentation.spans_above(heard.two, tuning.overlap_threshold))
    return found


def fewest_speakers(alone: np.ndarray, seconds: float) -> int:
    """The most local speakers of one chunk who each talk alone at least `seconds`: a floor for the count (the
    network tells apart voices that the embeddings of a telephone line can make alike)."""
    return int((alone >= seconds).sum(axis=1).max()) if len(alone) else 0


def chunk_changes(classes: np.ndarray, run: int, edge: int) -> list[float]:
    """The frames of one chunk (its most likely powerset `classes`) where one local speaker gives way to another:
    halfway between the end of a run of at least `run` frames of one local speaker alone and the start of the
    next such run of another, when the first run ends after the chunk's first `edge` frames and the second
    run's first `run` frames end before its last `edge` frames (the network is unsure at a chunk's edges)."""
    alone = np.where((classes >= 1) & (classes <= segmentation.LOCAL_SPEAKERS), classes.astype(np.int64) - 1, -1)
    starts = np.flatnonzero(np.diff(np.r_[-2, alone]))  # the first frame of every run of one value
    ends = np.r_[starts[1:], len(alone)] - 1
    long = [(int(alone[a]), int(a), int(b)) for a, b in zip(starts, ends) if alone[a] >= 0 and b - a + 1 >= run]
    return [(before_end + start) / 2 for (before, _, before_end), (speaker, start, _) in zip(long, long[1:])
            if speaker != before and before_end >= edge and start + run <= len(alone) - edge]


def speaker_changes(heard: segmentation.FrameProbabilities, tuning: HybridTuning = TUNING) -> list[int]:
    """The ms where one voice gives way to another, from every chunk (`chunk_changes`), in order; a change less
    than `change_merge_ms` after the one before it joins that one's group (so a quick run of changes is one),
    and each group is one change, at its mean."""
    found = sorted(round((segmentation.FRAME_SPAN_S / 2 + (int(first) + frame) * segmentation.FRAME_STEP_S) * 1000)
                   for first, classes in zip(heard.firsts, heard.classes)
                   for frame in chunk_changes(classes, tuning.change_run_frames, tuning.change_edge_frames))
    groups: list[list[int]] = []
    for ms in found:
        if groups and ms - groups[-1][-1] < tuning.change_merge_ms:
            groups[-1].append(ms)
        else:
            groups.append([ms])
    return [int(np.mean(group)) for group in groups]


def cut_at(regions: list[tuple[int, int]], changes: list[int], min_piece_ms: int) -> list[tuple[int, int]]:
    """`regions` (ms, sorted) cut at each of `changes` (ms, sorted) that leaves both sides `min_piece_ms` long."""
    out: list[tuple[int, int]] = []
    points = np.asarray(changes, dtype=np.int64)
    for s, e in regions:
        bounds = [s]
        for ms in points[np.searchsorted(points, s, "right"):np.searchsorted(points, e, "left")].tolist():
            if ms - bounds[-1] >= min_piece_ms and e - ms >= min_piece_ms:
                bounds.append(ms)
        out += list(zip(bounds, bounds[1:] + [e]))
    return out


def speech_regions(speech: np.ndarray, samples: np.ndarray, tuning: HybridTuning = TUNING) -> list[tuple[int, int]]:
    """(start, end) ms of speech: the frames whose `speech` probability is over the threshold, short pauses
    bridged and short pieces dropped, quiet stretches of `samples` cut out (the module's step 1)."""
    bridged: list[tuple[int, int]] = []
    for s, e in segmentation.spans_above(speech, tuning.speech_threshold):
        if bridged and s - bridged[-1][1] < tuning.bridge_ms:
            bridged[-1] = (bridged[-1][0], e)
        else:
            bridged.append((s, e))
    length_ms = len(samples) * 1000 // ASR_RATE
    spoken = [(s, min(e, length_ms)) for s, e in bridged if min(e, length_ms) - s >= tuning.min_speech_ms]
    return without(spoken, quiet_runs(samples, tuning), tuning.min_speech_ms)


def frame_levels(samples: np.ndarray, frame_ms: int = QUIET_FRAME_MS) -> np.ndarray:
    """The level (dB) of each whole frame of `samples`, computed a block at a time."""
    return 10 * np.log10(diarize_windows.frame_power(samples, ASR_RATE * frame_ms // 1000) + 1e-18)


def quiet_runs(samples: np.ndarray, tuning: HybridTuning = TUNING) -> list[tuple[int, int]]:
    """(start, end) ms of every run of at least `quiet_ms` of quiet frames (see the module's step 1)."""
    levels = frame_levels(samples)
    if len(levels) == 0:
        return []
    floor, loud = np.percentile(levels, [5, 95])
    quiet = levels < floor + tuning.quiet_share * (loud - floor)
    edges = np.flatnonzero(np.diff(np.r_[0, quiet.astype(np.int8), 0]))
    return [(int(a) * QUIET_FRAME_MS, int(b) * QUIET_FRAME_MS) for a, b in zip(edges[::2], edges[1::2])
            if (b - a) * QUIET_FRAME_MS >= tuning.quiet_ms]


def without(regions: list[tuple[int, int]], holes: list[tuple[int, int]], min_ms: int) -> list[tuple[int, int]]:
    """`regions` (sorted, apart) less `holes` (sorted, apart), pieces under `min_ms` dropped."""
    out: list[tuple[int, int]] = []
    h = 0
    for s, e in regions:
        while h < len(holes) and holes[h][1] <= s:
            h += 1
        cursor, k = s, h
        while k < len(holes) and holes[k][0] < e:
            if holes[k][0] > cursor:
                out.append((cursor, holes[k][0]))
            cursor = max(cursor, holes[k][1])
            k += 1
        if cursor < e:
            out.append((cursor, e))
    return [(s, e) for s, e in out if e - s >= min_ms]
