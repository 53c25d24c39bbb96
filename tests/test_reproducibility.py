"""The same numbers whatever the threads: the recogniser's features, the speaker embeddings and the sentence
embeddings are bit-identical in this process and in a worker process with one thread, and for any number of
pieces computed side by side (the end-to-end checks are in test_workers.py and test_distributed.py)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import SAMPLES
from speechproc import media
from speechproc.concurrency import one_thread_each
from speechproc.engines.lowmem import BlockFeatureExtractor


def test_the_recognisers_features_do_not_depend_on_blas_threads():
    """faster-whisper's own Mel projection goes through numpy's BLAS, whose sums round differently on one thread
    and on two; ours does not."""
    from threadpoolctl import threadpool_limits

    agent = np.ascontiguousarray(media.decode(SAMPLES / "call.flac").samples[0][: 30 * media.ASR_RATE])
    found = []
    for threads in (1, 2, 4):
        with threadpool_limits(threads):
            found.append(BlockFeatureExtractor()(agent, chunk_length=30))
    assert all(np.array_equal(found[0], other) for other in found[1:])


def test_kernels_run_on_one_thread_inside_the_block_and_get_their_threads_back():
    import threading

    import scipy.linalg  # noqa: F401  (its own BLAS, loaded before the counts are read)
    import torch
    from threadpoolctl import threadpool_info

    before = torch.get_num_threads()
    blas_before = [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"]
    seen = []
    with one_thread_each():
        seen.append(torch.get_num_threads())
        thread = threading.Thread(target=lambda: seen.append(torch.get_num_threads()))
        thread.start()
        thread.join()
        assert {info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"} == {1}
    assert seen == [1, 1]  # this thread, and a thread started inside the block
    assert torch.get_num_threads() == before
    assert [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"] == blas_before


# torch imported inside the block, by a model load: the block did not import it, the load limits it, and it
# gets its own count back at the end.
TORCH_LOADED_INSIDE = """
import sys
from speechproc.concurrency import one_thread_each
from speechproc.engines.models import loaded_once
@loaded_once(maxsize=1)
def load_something():
    import torch
    return torch.get_num_threads()
with one_thread_each():
    assert "torch" not in sys.modules, "the block imported torch"
    before = load_something()
    import torch
    inside = torch.get_num_threads()
print(before, inside, torch.get_num_threads())
"""


def test_torch_loaded_inside_the_block_runs_on_one_thread():
    result = subprocess.run([sys.executable, "-c", TORCH_LOADED_INSIDE], capture_output=True, text=True,
                            env={**os.environ, "OMP_NUM_THREADS": "2"}, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    before, inside, after = map(int, result.stdout.split())
    assert (before, inside, after) == (2, 1, 2)


# Computes, under one_thread_each, a digest of the recogniser's features of the sample call, of its CAM++ window
# embeddings (their pieces computed `threads` at a time) and of MiniLM sentence embeddings.
DIGESTS = """
import hashlib, json, sys
import numpy as np
from speechproc import media
from speechproc.engines import campplus
from speechproc.concurrency import one_thread_each
from speechproc.engines.lowmem import BlockFeatureExtractor
from speechproc.engines.models import load_campplus, load_sentence_encoder
track = media.decode(sys.argv[1])
mono = np.ascontiguousarray(np.tile(track.samples.mean(axis=0), 2))
found = {}
with one_thread_each():
    found["features"] = BlockFeatureExtractor()(mono[: 60 * media.ASR_RATE])
    features = campplus.fbank(mono)
    starts = np.arange(0, len(features) - 150, 40)
    for threads in (1, 2, 3):
        found[f"campplus-{threads}"] = campplus.embed_spans(
            load_campplus(), features, [(0, len(features))], starts, np.full(len(starts), 150), threads=threads)
    found["minilm"] = load_sentence_encoder().encode(["I was charged twice.", "Thank you for your help!"] * 40)
print(json.dumps({k: hashlib.sha256(np.ascontiguousarray(v).tobytes()).hexdigest() for k, v in found.items()}))
"""


def digests(threads_env: dict[str, str]) -> dict[str, str]:
    result = subprocess.run([sys.executable, "-c", DIGESTS, str(SAMPLES / "call.flac")], capture_output=True,
                            text=True, env={**os.environ, **threads_env}, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_features_and_embeddings_are_the_same_in_a_worker_with_one_thread():
    """A process with every core (as `--workers 1` runs) and one started as a worker with one thread (as each of
    `--workers 2` on two cores), and the speaker embeddings' pieces one, two or three at a time."""
    everywhere = digests({})
    one_thread = digests({name: "1" for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")})
    assert everywhere == one_thread
    assert everywhere["campplus-1"] == everywhere["campplus-2"] == everywhere["campplus-3"]

