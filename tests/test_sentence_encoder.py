"""Sentence embeddings: the bundled MiniLM run directly gives sentence-transformers' embeddings; a model of
another shape goes through sentence-transformers."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from speechproc.engines.models import _bundled_minilm, load_sentence_encoder
from speechproc.engines.sentence_encoder import BertSentenceEncoder, SentenceTransformersEncoder, fits

TEXTS = ["Hello, I would like to pay my bill.", "cancel", "  the account number is five five five  ",
         "word " * 400,  # past the 256-token limit: truncated as sentence-transformers truncates
         "Ünïcödé café résumé naïve", "", "I'm not happy with the service!!! Can I speak to a manager?"]


@pytest.fixture(scope="module")
def bundled() -> Path:
    return Path(_bundled_minilm())


def copy_of(folder: Path, tmp_path: Path) -> Path:
    target = tmp_path / "model"
    shutil.copytree(folder, target)
    return target


def edit(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def test_the_bundled_model_fits_the_direct_encoder(bundled):
    assert fits(bundled)


@pytest.mark.parametrize("damage", [
    lambda m: edit(m / "1_Pooling" / "config.json",
                   lambda c: c.update(pooling_mode_mean_tokens=False, pooling_mode_cls_token=True)),
    lambda m: edit(m / "1_Pooling" / "config.json", lambda c: c.update(pooling_mode_max_tokens=True)),
    lambda m: edit(m / "modules.json", lambda c: c.pop()),  # no normalisation
    lambda m: edit(m / "config.json", lambda c: c.update(model_type="roberta")),
    lambda m: edit(m / "config.json", lambda c: c.update(position_embedding_type="relative_key")),
    lambda m: (m / "model.safetensors").unlink(),
    lambda m: (m / "tokenizer.json").unlink(),
    lambda m: (m / "modules.json").write_text("{not json"),
    lambda m: (m / "config.json").write_text("[]"),
])
def test_a_model_of_another_shape_does_not_fit(bundled, tmp_path, damage):
    model = copy_of(bundled, tmp_path)
    damage(model)
    assert not fits(model)


def test_an_empty_list_of_texts_gives_no_rows(bundled):
    assert BertSentenceEncoder(bundled).encode([]).shape == (0, 384)


@pytest.mark.slow
def test_the_direct_encoder_gives_sentence_transformers_embeddings(bundled):
    from sentence_transformers import SentenceTransformer

    ours = load_sentence_encoder()
    assert isinstance(ours, BertSentenceEncoder)
    reference = SentenceTransformer(str(bundled), device="cpu").encode(TEXTS, normalize_embeddings=True,
                                                                         convert_to_numpy=True, batch_size=3)
    for batch_size in (1, 3, 64):  # padding inside a batch changes nothing
        found = ours.encode(TEXTS, batch_size=batch_size)
        assert found.dtype == np.float32 and found.shape == (len(TEXTS), 384)
        assert np.abs(found - reference).max() < 1e-5
        assert np.allclose(np.linalg.norm(found, axis=1), 1.0, atol=1e-5)


@pytest.mark.slow
def test_a_model_folder_of_another_shape_goes_through_sentence_transformers(bundled, tmp_path):
    from sentence_transformers import SentenceTransformer

    model = copy_of(bundled, tmp_path)
    edit(model / "1_Pooling" / "config.json", lambda c: c.update(pooling_mode_mean_tokens=False,
                                                                 pooling_mode_cls_token=True))
    encoder = load_sentence_encoder(str(model))
    assert isinstance(encoder, SentenceTransformersEncoder)
    reference = SentenceTransformer(str(model), device="cpu").encode(TEXTS, normalize_embeddings=True)
    assert np.abs(encoder.encode(TEXTS) - reference).max() < 1e-5
    direct = BertSentenceEncoder(bundled).encode(TEXTS)
    assert np.abs(encoder.encode(TEXTS) - direct).max() > 0.05  # CLS pooling really is another model
