"""Segmentation-driven diarization: the clustering and reconstruction on arrays, then the pipeline on the
sample call mixed down to one channel."""
from __future__ import annotations

import numpy as np
import pytest

from speechproc.config import v3 as config
from speechproc.stages.speakers import speaker_clusters as clusters

# --- clustering ------------------------------------------------------------------------------------------


def voices(counts: list[int], spread: float = 0.05, dim: int = 32, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Unit embeddings around len(counts) orthogonal voices, `counts[k]` of voice k, and their true labels."""
    rng = np.random.default_rng(seed)
    rows, truth = [], []
    for k, n in enumerate(counts):
        centre = np.zeros(dim)
        centre[k] = 1.0
        rows.append(centre + spread * rng.standard_normal((n, dim)))
        truth += [k] * n
    emb = np.concatenate(rows)
    return emb / np.linalg.norm(emb, axis=1, keepdims=True), np.array(truth)


def same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    return len(set(zip(a.tolist(), b.tolist()))) == len(set(a.tolist())) == len(set(b.tolist()))


@pytest.mark.parametrize("counts", [[40], [30, 30], [30, 20, 25], [20, 20, 20, 20, 20]])
def test_the_number_of_speakers_comes_out_of_the_clustering(counts):
    emb, truth = voices(counts)
    labels = clusters.agglomerate(emb, threshold=0.7, min_size=12)
    assert same_partition(labels, truth)
    assert labels[0] == 0  # numbered by first appearance


def test_bounds_move_the_count_to_the_nearest_one():
    emb, truth = voices([30, 20, 25])
    assert len(set(clusters.agglomerate(emb, 0.7, 12, max_speakers=2).tolist())) == 2
    assert len(set(clusters.agglomerate(emb, 0.7, 12, min_speakers=4).tolist())) == 4
    assert same_partition(clusters.agglomerate(emb, 0.7, 12, min_speakers=3, max_speakers=3), truth)
    one, _ = voices([40])
    assert len(set(clusters.agglomerate(one, 0.7, 12, min_speakers=2, max_speakers=2).tolist())) == 2


def test_a_small_cluster_is_no_speaker_and_joins_the_nearest_large_one():
    emb, _ = voices([30, 30])
    stray = np.zeros((3, emb.shape[1]))
    stray[:, 0], stray[:, 5] = 0.8, 0.6  # near voice 0, far from both by the threshold
    labels = clusters.agglomerate(np.vstack([emb, stray]), threshold=0.3, min_size=12)
    assert len(set(labels.tolist())) == 2
    assert set(labels[-3:].tolist()) == {labels[0]}


def test_one_embedding_or_none_is_one_speaker():
    assert clusters.agglomerate(np.ones((1, 4)) / 2, 0.7, 12).tolist() == [0]
    assert clusters.agglomerate(np.zeros((0, 4)), 0.7, 12).tolist() == []


def test_two_local_speakers_of_one_chunk_never_join_one_cluster():
    similarity = np.array([[[0.9, 0.1], [0.8, 0.7], [0.0, 0.0]]])  # both like cluster 0 best
    active = np.array([[True, True, False]])
    assert clusters.assign(similarity, active).tolist() == [[0, 1, clusters.NOT_ASSIGNED]]
    crowded = np.array([[[0.9], [0.8], [0.1]]])  # three speaking, one cluster: each takes its most similar
    assert clusters.assign(crowded, np.array([[True, True, True]])).tolist() == [[0, 0, 0]]


def test_chunks_are_put_back_together_frame_by_frame():
    # two chunks of 6 frames, 3 frames apart: A speaks 0-4, B 3-8, both at 3-4
    active = np.zeros((2, 6, 3), dtype=np.uint8)
    active[0, 0:5, 0] = 1  # chunk 0 (frames 0-5): A as local 0
    active[0, 3:6, 1] = 1  # B as local 1
    active[1, 0:2, 2] = 1  # chunk 1 (frames 3-8): A as local 2 (frames 3-4)
    active[1, 0:6, 0] = 1  # B as local 0
    assigned = np.array([[0, 1, clusters.NOT_ASSIGNED], [1, clusters.NOT_ASSIGNED, 0]])
    who = clusters.reconstruct(active, np.array([0, 3]), assigned, 9)
    assert who[:, 0].tolist() == [0, 0, 0, 0, 0, 1, 1, 1, 1]
    assert who[:, 1].tolist() == [-1, -1, -1, 1, 1, -1, -1, -1, -1]
    assert (who[:, 2] == clusters.NOT_ASSIGNED).all()


def test_nothing_assigned_is_nobody_speaking():
    active = np.zeros((1, 4, 3), dtype=np.uint8)
    who = clusters.reconstruct(active, np.array([0]), np.full((1, 3), clusters.NOT_ASSIGNED), 4)
    assert (who == clusters.NOT_ASSIGNED).all()


@pytest.mark.parametrize("raw", [
    {"speechproc": {"minSpeakers": 0}},
    {"speechproc": {"minSpeakers": 3, "maxSpeakers": 2}},
    {"speechproc": {"minSpeakers": 9}},  # more than the default maxSpeakers (8)
    {"speechproc": {"minSpeakers": 3, "speakers": 2}},
    {"speechproc": {"minSpeakers": 3, "maxSpeakers": 2, "diarization": False}},
    {"speechproc": {"minSpeakers": "3"}},
    {"speechproc": {"minSpeakers": 2.5}},
    {"speechproc": {"diarizer": ""}},
    {"speechproc": {"diarizer": None}},
    {"speechproc": {"diarizer": "kmeans"}},
    {"speechproc": {"diarizer": "segmentation", "speakerEmbedding": "resemblyzer"}},
])
def test_bad_bounds_or_diarizers_are_refused(raw):
    from speechproc import errors

    with pytest.raises(errors.ConfigurationError, match="speechproc"):
        config.validate(raw)


def test_good_bounds_and_diarizers_are_taken():
    from speechproc.config.options import build

    options = build(config.validate({"speechproc": {"minSpeakers": 3, "maxSpeakers": 3, "diarizer": "segmentation"}}))
    assert (options.diarization.min_speakers, options.diarization.max_speakers) == (3, 3)
    assert options.diarization.diarizer == "segmentation"
    assert build(config.validate({})).diarization.diarizer == "windows"  # the better on held-out recordings
    config.validate({"speechproc": {"minSpeakers": 3, "speakers": 1}})  # one speaker: diarization is off
    config.validate({"speechproc": {"minSpeakers": 3, "speakers": 2, "diarization": False}})


# --- the downmixed sample call ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def downmixed_samples(downmix):
    from speechproc import media

    return np.ascontiguousarray(media.decode(downmix).samples.mean(axis=0, dtype=np.float32))


@pytest.fixture(scope="module")
def networks():
    from speechproc.engines.models import load_campplus, load_segmentation

    return load_segmentation(), load_campplus()


@pytest.mark.slow
def test_the_downmixed_call_has_two_speakers_with_their_voices(downmixed_samples, networks):
    from speechproc.stages.speakers import diarize_segmentation

    found = diarize_segmentation.diarize(downmixed_samples, *networks)
    assert {g.speaker for g in found.segments} == {0, 1} == set(found.voices)
    assert found.segments[0].speaker == 0
    assert all(a.e <= b.s for a, b in zip(found.segments, found.segments[1:]))  # one speaker at a time
    similarity = found.voices[0] @ found.voices[1]
    assert similarity < 0.9 and all(abs(np.linalg.norm(v) - 1) < 1e-5 for v in found.voices.values())


@pytest.mark.slow
def test_the_same_speakers_for_any_number_of_threads(downmixed_samples, networks):
    from speechproc.concurrency import one_thread_each
    from speechproc.stages.speakers import diarize_segmentation

    with one_thread_each():  # as the pipeline runs it
        one = diarize_segmentation.diarize(downmixed_samples, *networks, threads=1)
        two = diarize_segmentation.diarize(downmixed_samples, *networks, threads=2)
    assert one.segments == two.segments and one.overlaps == two.overlaps


@pytest.mark.slow
def test_bounds_and_a_fixed_count_hold_on_real_speech(downmixed_samples, networks):
    from speechproc.stages.speakers import diarize_segmentation

    for bounds in ({"min_speakers": 3}, {"speakers": 3}):
        found = diarize_segmentation.diarize(downmixed_samples, *networks, **bounds)
        assert found.clusters == 3 and 2 <= len(found.voices) <= 3  # a cluster that never holds the floor: no words
    one = diarize_segmentation.diarize(downmixed_samples, *networks, max_speakers=1)
    assert one.clusters == len(one.voices) == 1


@pytest.mark.slow
def test_nan_or_infinite_samples_are_silence_not_a_failure(downmixed_samples, networks):
    from speechproc.stages.speakers import diarize_segmentation

    broken = downmixed_samples.copy()
    broken[[16000 * 10, 16000 * 20 + 7, 16000 * 30]] = [np.nan, np.inf, -np.inf]
    found = diarize_segmentation.diarize(broken, *networks)
    clean = diarize_segmentation.diarize(np.nan_to_num(broken, nan=0.0, posinf=0.0, neginf=0.0), *networks)
    assert found.segments == clean.segments and len(found.voices) == 2


@pytest.mark.slow
@pytest.mark.parametrize("seconds", [0.5, 2.0, 9.9, 10.1])
def test_no_segment_runs_past_the_end_of_a_short_recording(downmixed_samples, networks, seconds):
    from speechproc.stages.speakers import diarize_segmentation

    clip = downmixed_samples[16000 * 2: 16000 * 2 + int(16000 * seconds)]  # speech from its first sample
    found = diarize_segmentation.diarize(clip, *networks)
    ends = [g.e for g in found.segments] + [e for _, e, _ in found.overlaps]
    assert all(end <= seconds * 1000 for end in ends) and all(g.s < g.e for g in found.segments)


@pytest.mark.slow
def test_silence_has_no_speakers(networks):
    from speechproc.stages.speakers import diarize_segmentation

    found = diarize_segmentation.diarize(np.zeros(16000 * 12, dtype=np.float32), *networks)
    assert found.segments == [] and found.overlaps == [] and found.voices == {}


@pytest.mark.slow
def test_overlapped_speech_comes_from_the_same_pass(downmix, monkeypatch):
    """With the segmentation diarizer, `overlappedSpeech` costs no second pass of the network."""
    import copy

    from speechproc.stages.speakers import diarize
    from text_helpers import recognised, run_stage

    conv = recognised(downmix, "00000000-0000-0000-0000-00000000001d")
    calls = []
    monkeypatch.setattr(diarize, "overlap_regions", lambda *a: calls.append(a) or [])
    run_stage("diarize", copy.copy(conv), {"speechproc": {"overlappedSpeech": True, "diarizer": "segmentation"}})
    assert calls == []
    run_stage("diarize", copy.copy(conv), {"speechproc": {"overlappedSpeech": True}})  # windows: a second pass
    assert len(calls) == 1


@pytest.mark.slow
def test_chunks_cut_one_batch_at_a_time_are_those_of_the_padded_recording(downmixed_samples, networks):
    import torch

    from speechproc.engines import segmentation

    clip = downmixed_samples[: 16000 * 23 + 123]  # the last chunk runs past the end
    starts = segmentation.chunk_starts(len(clip), 5.0)
    padded = np.zeros(starts[-1] + segmentation.CHUNK, dtype=np.float32)
    padded[: len(clip)] = clip
    with torch.inference_mode():
        batch = torch.stack([torch.from_numpy(padded[s:s + segmentation.CHUNK]) for s in starts])[:, None]
        expected = networks[0](batch).exp().double().numpy()
    found = list(segmentation._chunk_probabilities(networks[0], clip, 5.0))
    assert [f for f, _ in found] == [round(s / 16000 / segmentation.FRAME_STEP_S) for s in starts]
    assert np.allclose(np.stack([c for _, c in found]), expected, rtol=0, atol=1e-6)
    probabilities = segmentation.frame_probabilities(networks[0], clip, 5.0)
    assert len(probabilities.speech) == len(probabilities.two) == segmentation.frames_of(len(clip))
    assert probabilities.alone.shape == (len(starts), 3) and (probabilities.alone <= 10.0).all()
