"""The on-disk cache of fixed texts' embeddings: the same arrays back, recomputed when anything they depend on
changes or the entry is damaged, and never in the way when the state folder cannot be written."""
from __future__ import annotations

import os

import numpy as np
import pytest

from speechproc.engines import models, vector_cache
from speechproc.stages.analytics import knowledge

GROUPS = [["billing and payments", "technical support"], ["a late fee", "a refund"], ["no signal"]]
MODEL = {"location": "/models/encoder", "files": [["model.safetensors", 10, 1]], "torch": "x"}


class CountingEncoder:
    """Deterministic vectors of each text, counting the texts it was asked to encode."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.calls.append(texts)
        rows = [np.random.default_rng(list(t.encode())).standard_normal(8) for t in texts]
        return np.asarray(rows, dtype=np.float32).reshape(len(texts), 8)


def test_a_second_call_reads_the_very_arrays_the_first_computed(tmp_path):
    encode = CountingEncoder()
    first = vector_cache.cached_groups(GROUPS, MODEL, encode, tmp_path)
    again = vector_cache.cached_groups(GROUPS, MODEL, CountingEncoder(), tmp_path)
    assert len(encode.calls) == 3  # one call per group, as the caller would make them
    assert [a.tobytes() for a in again] == [a.tobytes() for a in first]
    assert [a.dtype for a in again] == [np.float32] * 3
    assert len(list(tmp_path.glob("*.npz"))) == 1


@pytest.mark.parametrize("changed", [
    [["billing and payments", "technical support"], ["a late fee", "a refund", "no signal"]],  # grouped otherwise
    [["billing and payments", "technical support"], ["a late fee", "a refund"], ["no signal!"]],  # a text
    [["technical support", "billing and payments"], ["a late fee", "a refund"], ["no signal"]],  # the order
])
def test_other_texts_or_groups_are_another_entry(tmp_path, changed):
    vector_cache.cached_groups(GROUPS, MODEL, CountingEncoder(), tmp_path)
    encode = CountingEncoder()
    vector_cache.cached_groups(changed, MODEL, encode, tmp_path)
    assert len(encode.calls) == len(changed)


@pytest.mark.parametrize("field, value", [("files", [["model.safetensors", 10, 2]]), ("location", "/elsewhere"),
                                          ("torch", "y")])
def test_another_model_file_place_or_library_is_another_entry(tmp_path, field, value):
    vector_cache.cached_groups(GROUPS, MODEL, CountingEncoder(), tmp_path)
    encode = CountingEncoder()
    vector_cache.cached_groups(GROUPS, {**MODEL, field: value}, encode, tmp_path)
    assert len(encode.calls) == 3


@pytest.mark.parametrize("damage", [b"", b"not a zip file at all", "truncated", "other arrays"])
def test_a_damaged_entry_is_computed_again_and_rewritten(tmp_path, damage):
    first = vector_cache.cached_groups(GROUPS, MODEL, CountingEncoder(), tmp_path)
    (entry,) = tmp_path.glob("*.npz")
    if damage == "truncated":
        entry.write_bytes(entry.read_bytes()[:200])
    elif damage == "other arrays":
        np.savez(entry, group0=np.zeros((2, 8), dtype=np.float32))
    else:
        entry.write_bytes(damage)
    encode = CountingEncoder()
    again = vector_cache.cached_groups(GROUPS, MODEL, encode, tmp_path)
    assert len(encode.calls) == 3
    assert [a.tobytes() for a in again] == [a.tobytes() for a in first]
    assert [a.tobytes() for a in vector_cache.cached_groups(GROUPS, MODEL, CountingEncoder(), tmp_path)] == \
        [a.tobytes() for a in first]  # rewritten whole


def test_an_entry_with_too_few_rows_is_not_believed(tmp_path):
    vector_cache.cached_groups(GROUPS, MODEL, CountingEncoder(), tmp_path)
    (entry,) = tmp_path.glob("*.npz")
    np.savez(entry, group0=np.zeros((1, 8), np.float32), group1=np.zeros((2, 8), np.float32),
             group2=np.zeros((1, 8), np.float32))
    encode = CountingEncoder()
    vector_cache.cached_groups(GROUPS, MODEL, encode, tmp_path)
    assert len(encode.calls) == 3


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_a_folder_that_cannot_be_written_leaves_the_vectors_computed(tmp_path):
    folder = tmp_path / "vectors"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        encode = CountingEncoder()
        assert len(vector_cache.cached_groups(GROUPS, MODEL, encode, folder)) == 3
        assert len(encode.calls) == 3
    finally:
        folder.chmod(0o700)


def test_a_path_that_is_a_file_leaves_the_vectors_computed(tmp_path):
    blocker = tmp_path / "vectors"
    blocker.write_text("a file where the folder would be")
    encode = CountingEncoder()
    assert [len(a) for a in vector_cache.cached_groups(GROUPS, MODEL, encode, blocker)] == [2, 2, 1]
    assert blocker.read_text() == "a file where the folder would be"


def test_an_encoder_nothing_on_disk_identifies_is_never_cached(tmp_path):
    encode = CountingEncoder()
    vector_cache.cached_groups(GROUPS, None, encode, tmp_path)
    vector_cache.cached_groups(GROUPS, None, encode, tmp_path)
    assert len(encode.calls) == 6
    assert not list(tmp_path.iterdir())


def test_only_the_newest_entries_are_kept(tmp_path):
    for k in range(vector_cache.KEEP + 5):
        vector_cache.cached_groups([[f"text {k}"]], MODEL, CountingEncoder(), tmp_path)
        newest = max(tmp_path.glob("*.npz"), key=lambda p: p.stat().st_mtime_ns)
        os.utime(newest, ns=(k * 10**9, k * 10**9))  # written a second apart
    kept = list(tmp_path.glob("*.npz"))
    assert len(kept) == vector_cache.KEEP
    encode = CountingEncoder()
    vector_cache.cached_groups([[f"text {vector_cache.KEEP + 4}"]], MODEL, encode, tmp_path)
    assert encode.calls == []  # the newest is still there


def test_a_model_folder_fingerprint_changes_when_a_file_does(tmp_path):
    (tmp_path / "model.safetensors").write_bytes(b"weights")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "config.json").write_text("{}")
    before = vector_cache.folder_fingerprint(tmp_path)
    assert [name for name, _, _ in before] == ["model.safetensors", "sub/config.json"]
    (tmp_path / "model.safetensors").write_bytes(b"other weights")
    assert vector_cache.folder_fingerprint(tmp_path) != before
    assert vector_cache.folder_fingerprint(tmp_path / "absent") is None


@pytest.mark.slow
def test_the_taxonomy_vectors_read_back_are_those_the_encoder_gives(tmp_path, monkeypatch):
    monkeypatch.setenv("SPEECHPROC_HOME", str(tmp_path))
    knowledge._taxonomy_vectors.cache_clear()
    computed = knowledge._taxonomy_vectors(None, models.BUNDLED_SENTENCE_ENCODER)
    assert len(list((tmp_path / vector_cache.FOLDER).glob("*.npz"))) == 1
    knowledge._taxonomy_vectors.cache_clear()
    read = knowledge._taxonomy_vectors(None, models.BUNDLED_SENTENCE_ENCODER)
    knowledge._taxonomy_vectors.cache_clear()
    encoder = models.load_sentence_encoder(models.BUNDLED_SENTENCE_ENCODER)
    topics = read[0]
    assert read[1].tobytes() == computed[1].tobytes() == encoder.encode([t.description for t in topics]).tobytes()
    for topic, vectors, first in zip(topics, read[2], computed[2]):
        if topic.subtopics:
            assert vectors.tobytes() == first.tobytes() == encoder.encode([s.description for s in topic.subtopics]).tobytes()
        else:
            assert vectors.shape == first.shape == (0, 1)


def test_a_setting_that_chooses_kernels_is_part_of_what_names_an_entry(monkeypatch):
    monkeypatch.delenv("ONEDNN_MAX_CPU_ISA", raising=False)
    before = vector_cache.numeric_library()
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "AVX2")
    after = vector_cache.numeric_library()
    assert before != after and vector_cache.entry_key(GROUPS, before) != vector_cache.entry_key(GROUPS, after)
    assert {"torch", "capability", "processor", "instructions"} <= set(after)
