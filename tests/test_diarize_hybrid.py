"""The hybrid diarizer: its speech on plain arrays (spans, quiet stretches, the count's floor), then the pipeline on
the sample call mixed down to one channel, and the stage choosing it."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import truth_for
from speechproc import errors
from speechproc.config import v3 as config
from speechproc.engines import segmentation
from speechproc.stages.speakers import diarize_hybrid as hybrid
from speechproc.stages.speakers import diarize_windows
from speechproc.stages.speakers.diarize_hybrid import HybridTuning

RATE = 16000


# --- speech on arrays ------------------------------------------------------------------------------------

def frames_ms(start_ms: float) -> int:
    """The frame whose centre is nearest `start_ms`."""
    return round((start_ms / 1000 - segmentation.FRAME_SPAN_S / 2) / segmentation.FRAME_STEP_S)


def test_spans_above_run_from_centre_to_centre():
    probability = np.zeros(100)
    probability[10:20] = 0.9
    probability[95:] = 0.8  # to the end
    spans = segmentation.spans_above(probability, 0.5)
    centre, step = segmentation.FRAME_SPAN_S / 2, segmentation.FRAME_STEP_S
    assert spans == [(round((centre + 10 * step) * 1000), round((centre + 20 * step) * 1000)),
                     (round((centre + 95 * step) * 1000), round((centre + 99 * step) * 1000))]
    assert segmentation.spans_above(np.zeros(5), 0.5) == []


def test_holes_are_cut_out_of_regions_and_small_pieces_dropped():
    regions = [(0, 1000), (2000, 5000), (6000, 6300)]
    holes = [(-50, 100), (900, 2100), (3000, 3050), (4990, 6100)]
    assert hybrid.without(regions, holes, min_ms=0) == [(100, 900), (2100, 3000), (3050, 4990), (6100, 6300)]
    assert hybrid.without(regions, holes, min_ms=250) == [(100, 900), (2100, 3000), (3050, 4990)]
    assert hybrid.without(regions, [], 0) == regions and hybrid.without([], holes, 0) == []


def test_quiet_stretches_are_the_lowest_share_of_the_level_range():
    rng = np.random.default_rng(0)
    loud = 0.3 * rng.standard_normal(RATE).astype(np.float32)
    quiet = 0.003 * rng.standard_normal(RATE // 2).astype(np.float32)  # 40 dB down: a pause
    blip = 0.003 * rng.standard_normal(RATE // 10).astype(np.float32)  # 100 ms: too short to be one
    samples = np.concatenate([loud, quiet, loud, blip, loud])
    runs = hybrid.quiet_runs(samples)
    assert len(runs) == 1 and abs(runs[0][0] - 1000) <= 20 and abs(runs[0][1] - 1500) <= 20
    assert hybrid.quiet_runs(np.zeros(100, dtype=np.float32)) == []  # shorter than a frame


def test_frame_levels_do_not_depend_on_the_block():
    samples = np.random.default_rng(1).standard_normal(RATE * 3).astype(np.float32)
    whole = hybrid.frame_levels(samples)
    old, diarize_windows.POWER_BLOCK = diarize_windows.POWER_BLOCK, 1000
    try:
        assert np.array_equal(hybrid.frame_levels(samples), whole)
    finally:
        diarize_windows.POWER_BLOCK = old


def test_speech_is_the_probable_frames_with_short_pauses_bridged():
    samples = 0.1 * np.ones(RATE * 6, dtype=np.float32)  # level everywhere: no quiet stretch
    speech = np.zeros(segmentation.frames_of(len(samples)))
    speech[frames_ms(500):frames_ms(2000)] = 0.9
    speech[frames_ms(2200):frames_ms(3000)] = 0.9  # 200 ms after: bridged
    speech[frames_ms(4000):frames_ms(4100)] = 0.9  # 100 ms: dropped
    speech[frames_ms(5000):] = 0.9
    regions = hybrid.speech_regions(speech, samples)
    assert len(regions) == 2
    (s1, e1), (s2, e2) = regions
    assert abs(s1 - 500) <= 20 and abs(e1 - 3000) <= 20 and abs(s2 - 5000) <= 20 and e2 <= 6000


def test_the_count_is_at_least_the_local_speakers_who_each_talk_alone_long_enough():
    alone = np.array([[5.0, 0.0, 0.0], [4.0, 2.5, 0.1], [1.0, 1.9, 2.0]])
    assert hybrid.fewest_speakers(alone, 2.0) == 2
    assert hybrid.fewest_speakers(alone, 1.0) == 3
    assert hybrid.fewest_speakers(np.zeros((0, 3)), 2.0) == 0


def chunk_of(*runs: tuple[int, int]) -> np.ndarray:
    """A chunk's most likely classes: (class, frames) runs, padded with silence (class 0) to a whole chunk."""
    classes = np.concatenate([np.full(n, c, dtype=np.int8) for c, n in runs])
    return np.r_[classes, np.zeros(segmentation.FRAMES_PER_CHUNK - len(classes), dtype=np.int8)]


def test_a_change_is_halfway_between_one_voice_and_the_next():
    # local speaker 0 alone to frame 99, silence, speaker 1 alone from frame 110: a change at 104.5
    classes = chunk_of((0, 40), (1, 60), (0, 10), (2, 50))
    assert hybrid.chunk_changes(classes, run=6, edge=30) == [104.5]
    # through an overlap (class 4: speakers 0 and 1 at once) the same
    assert hybrid.chunk_changes(chunk_of((0, 40), (1, 60), (4, 10), (2, 50)), 6, 30) == [104.5]


def test_no_change_for_a_voice_that_comes_back_a_blip_or_the_chunks_edges():
    assert hybrid.chunk_changes(chunk_of((0, 40), (1, 60), (0, 20), (1, 60)), 6, 30) == []  # the same voice again
    assert hybrid.chunk_changes(chunk_of((0, 40), (1, 60), (2, 5), (1, 60)), 6, 30) == []  # 5 frames of another
    assert hybrid.chunk_changes(chunk_of((1, 20), (2, 60)), 6, 30) == []  # the first voice ends inside the edge
    near_end = chunk_of((0, 40), (1, 520), (3, 29))  # the second voice starts 29 frames before the end
    assert hybrid.chunk_changes(near_end, 6, 30) == []
    assert hybrid.chunk_changes(near_end, 6, 10) == [559.5]
    assert hybrid.chunk_changes(np.zeros(segmentation.FRAMES_PER_CHUNK, dtype=np.int8), 6, 30) == []


def test_a_quick_run_of_changes_is_one_change():
    quick = chunk_of((0, 40), (1, 60), (2, 12), (1, 12), (2, 60))  # changes 12 frames (200 ms) apart
    assert hybrid.chunk_changes(quick, 6, 30) == [99.5, 111.5, 123.5]
    heard = segmentation.FrameProbabilities(np.zeros(1), np.zeros(1), np.zeros((1, 3)), np.array([0]), quick[None])
    at = [round((segmentation.FRAME_SPAN_S / 2 + f * segmentation.FRAME_STEP_S) * 1000) for f in (99.5, 111.5, 123.5)]
    assert hybrid.speaker_changes(heard) == [int(np.mean(at))]


def test_changes_heard_by_overlapping_chunks_are_one():
    one = chunk_of((0, 40), (1, 60), (0, 10), (2, 50))  # a change at frame 104.5 of the chunk
    heard = segmentation.FrameProbabilities(np.zeros(1), np.zeros(1), np.zeros((3, 3)), np.array([0, 2, 1000]),
                                            np.stack([one, one, one]))
    at = [round((segmentation.FRAME_SPAN_S / 2 + (first + 104.5) * segmentation.FRAME_STEP_S) * 1000)
          for first in (0, 2, 1000)]
    assert hybrid.speaker_changes(heard) == [int(np.mean(at[:2])), at[2]]  # 34 ms apart: one; 17 s later: another


def test_speech_is_cut_at_changes_that_leave_both_pieces_long_enough():
    regions = [(0, 3000), (4000, 4800), (6000, 9000)]
    changes = [0, 1000, 1300, 2700, 4400, 7000, 9000]
    assert hybrid.cut_at(regions, changes, min_piece_ms=500) == [(0, 1000), (1000, 3000), (4000, 4800),
                                                                 (6000, 7000), (7000, 9000)]
    assert hybrid.cut_at(regions, changes, min_piece_ms=200) == [(0, 1000), (1000, 1300), (1300, 2700), (2700, 3000),
                                                                 (4000, 4400), (4400, 4800), (6000, 7000), (7000, 9000)]
    assert hybrid.cut_at(regions, [], 500) == regions and hybrid.cut_at([], changes, 500) == []


def test_the_hybrid_diarizer_needs_campplus():
    with pytest.raises(errors.ConfigurationError, match="hybrid diarizer uses CAM"):
        config.validate({"speechproc": {"diarizer": "hybrid", "speakerEmbedding": "resemblyzer"}})
    config.validate({"speechproc": {"diarizer": "hybrid"}})


# --- the pipeline on real speech -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def downmixed_samples(downmix):
    from speechproc import media

    return np.ascontiguousarray(media.decode(downmix).samples.mean(axis=0, dtype=np.float32))


@pytest.fixture(scope="module")
def segmenter():
    from speechproc.engines.models import load_campplus, load_segmentation

    load_campplus()
    return load_segmentation()


@pytest.mark.slow
def test_the_downmixed_call_has_its_two_speakers_at_their_turns(downmixed_samples, segmenter):
    found = hybrid.diarize(downmixed_samples, segmenter)
    assert {g.speaker for g in found.segments} == {0, 1} == set(found.voices) == set(found.pieces)
    assert all(a.e <= b.s for a, b in zip(found.segments, found.segments[1:]))  # one speaker at a time
    turns = truth_for("call.flac")["turns"]
    agreeing = total = 0
    mapping: dict[int, set] = {0: set(), 1: set()}
    for g in found.segments:
        middle = (g.s + g.e) / 2
        holders = [t["speaker"] for t in turns if t["s"] <= middle <= t["e"]]
        if len(holders) == 1:
            mapping[g.speaker].add(holders[0])
    assert all(len(v) == 1 for v in mapping.values()) and mapping[0] != mapping[1]  # each label is one party
    for g in found.segments:
        for t in turns:
            overlap = min(g.e, t["e"]) - max(g.s, t["s"])
            if overlap > 0:
                total += overlap
                agreeing += overlap if t["speaker"] in mapping[g.speaker] else 0
    assert agreeing / total > 0.95
    assert all(p.dtype == np.float16 and p.shape[1] == 192 for p in found.pieces.values())


@pytest.mark.slow
def test_speech_is_cut_where_one_voice_follows_another_without_a_pause(downmixed_samples, segmenter, monkeypatch):
    embedded = []  # the pieces the pipeline embeds
    real = diarize_windows.clustered
    monkeypatch.setattr(diarize_windows, "clustered", lambda samples, regions, *rest: embedded.append(regions) or
                        real(samples, regions, *rest))
    turns = truth_for("call.flac")["turns"][:7]
    joins = 0
    for before, after in zip(turns, turns[1:]):
        if before["speaker"] == after["speaker"]:
            continue
        joined = np.concatenate([downmixed_samples[before["s"] * 16:before["e"] * 16],
                                 downmixed_samples[after["s"] * 16:after["e"] * 16]])  # no pause between them
        join_ms = before["e"] - before["s"]
        embedded.clear()
        hybrid.diarize(joined, segmenter)
        pieces = embedded[0]
        cuts = [e for (_, e), (s, _) in zip(pieces, pieces[1:]) if e == s]  # where one piece runs into the next
        assert [ms for ms in cuts if abs(ms - join_ms) <= 150], (join_ms, pieces)
        cut = min(cuts, key=lambda ms: abs(ms - join_ms))
        windows = diarize_windows.plan_windows(pieces, 1.5, 0.4)
        frame = 10  # ms of a mel frame: a window's first and last frames may hold the cut's few ms
        assert not any(frame * (f + 1) < cut < frame * (f + n - 1)
                       for f, n in zip(windows.starts.tolist(), windows.lengths.tolist()))
        joins += 1
    assert joins == 5


@pytest.mark.slow
def test_the_same_speakers_for_any_number_of_threads(downmixed_samples, segmenter):
    from speechproc.concurrency import one_thread_each

    with one_thread_each():  # as the pipeline runs it
        one = hybrid.diarize(downmixed_samples, segmenter, threads=1)
        two = hybrid.diarize(downmixed_samples, segmenter, threads=2)
    assert one.segments == two.segments and one.overlaps == two.overlaps


@pytest.mark.slow
def test_bounds_and_a_fixed_count_hold(downmixed_samples, segmenter):
    assert len(hybrid.diarize(downmixed_samples, segmenter, speakers=3).voices) == 3
    assert len(hybrid.diarize(downmixed_samples, segmenter, min_speakers=3).voices) == 3
    assert len(hybrid.diarize(downmixed_samples, segmenter, max_speakers=1).voices) == 1


@pytest.mark.slow
def test_silence_noise_and_nothing_have_no_speakers(segmenter):
    assert hybrid.diarize(np.zeros(RATE * 12, dtype=np.float32), segmenter).segments == []
    assert hybrid.diarize(np.zeros(0, dtype=np.float32), segmenter).segments == []
    broken = np.full(RATE * 3, np.nan, dtype=np.float32)
    assert hybrid.diarize(broken, segmenter).segments == []


@pytest.mark.slow
@pytest.mark.parametrize("seconds", [0.5, 2.0, 10.1])
def test_no_segment_runs_past_the_end_of_a_short_recording(downmixed_samples, segmenter, seconds):
    clip = downmixed_samples[RATE * 2: RATE * 2 + int(RATE * seconds)]
    found = hybrid.diarize(clip, segmenter)
    ends = [g.e for g in found.segments] + [e for _, e, _ in found.overlaps]
    assert all(end <= seconds * 1000 for end in ends) and all(g.s < g.e for g in found.segments)


@pytest.mark.slow
def test_the_stage_runs_the_configured_pipeline(downmix, monkeypatch):
    import copy

    from speechproc.stages.speakers import diarize
    from text_helpers import recognised, run_stage, stage_options

    conv = recognised(downmix, "00000000-0000-0000-0000-00000000001e")
    chosen = []
    real = hybrid.diarize
    monkeypatch.setattr(hybrid, "diarize", lambda *a, **k: chosen.append("hybrid") or real(*a, **k))
    done = copy.copy(conv)
    run_stage("diarize", done, {"speechproc": {"diarizer": "hybrid", "overlappedSpeech": True}})
    assert chosen == ["hybrid"] and done.diarized_speakers == ["Speaker 1", "Speaker 2"]
    assert set(done.diarized_pieces) == set(done.diarized_voices) == {"Speaker 1", "Speaker 2"}
    assert diarize.needs(stage_options({"speechproc": {"diarizer": "hybrid"}}).diarization)[-1] == "segmentation-3.0"
    assert HybridTuning().step_s == 5.0
