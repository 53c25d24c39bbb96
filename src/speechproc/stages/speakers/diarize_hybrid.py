"""The hybrid diarizer (`speechproc.diarizer: hybrid`): segmentation-3.0 says where there is speech and where two
speakers talk at once; the windows pipeline's CAM++ embeddings and count rules (`diarize_windows`) say who.

1. **Speech.** segmentation-3.0 reads 10 s chunks, one every `step_s` (5 s); for every 17 ms frame the
   probability that someone speaks, and that two speakers talk at once, is averaged over the chunks that hold
   it. Speech is where the first is over `speech_threshold`, pauses under `bridge_ms` bridged, pieces under
   `min_speech_ms` dropped. The network bridges pauses a VAD would not (it was trained on speaker turns), so
   quiet stretches are cut out: runs of at least `quiet_ms` of 20 ms frames whose level lies in the lowest
   `quiet_share` of the recording's range (from its 5th to its 95th percentile, in dB). Unlike the Silero VAD
   of the windows pipeline, it keeps telephone speech (8 kHz, mu-law) whole.
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
    regions = speech_regions(heard.speech, samples, tuning)
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
