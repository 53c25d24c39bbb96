"""Classifiers: registration, safe loading, bad model files, results in the media item."""
from __future__ import annotations

import json
import os
import pickle
import runpy
import shutil
from pathlib import Path

import pytest

from conftest import ROOT, SAMPLES, invoke
from speechproc import api
from speechproc.config import v3 as config
from speechproc.config.resolving import resolve
from speechproc.engines import classifiers
from speechproc.errors import ConfigurationError
from speechproc.stages.matching import classify
from speechproc.store.database.catalog import Catalog
from text_helpers import conversation

TRAINER = ROOT / "configs" / "classifiers" / "train_cancellation.py"


@pytest.fixture(scope="module")
def model_file(tmp_path_factory) -> Path:
    """The example classifier, trained by the shipped script."""
    path = tmp_path_factory.mktemp("model") / "cancellation.skops"
    runpy.run_path(str(TRAINER))["main"](str(path))
    return path


@pytest.fixture(scope="module")
def registered(model_file):
    """The example classifier registered as "cancellation"; deleted again after the module."""
    try:
        code, out = invoke("classifiers", "put", "cancellation", str(model_file), "--display-name",
                           "Call is about cancellation")
        assert code == 0, out
        yield out
    finally:
        invoke("classifiers", "delete", "cancellation")


def test_registration_prints_the_classifier(registered):
    assert registered["classifierName"] == "cancellation" and registered["classifierType"] == "binary"
    assert registered["classifierDisplayName"] == "Call is about cancellation"
    assert registered["classes"] == ["cancellation", "other"] and registered["classifierVersion"] == "1"
    assert invoke("classifiers", "get", "cancellation")[1]["classifierId"] == registered["classifierId"]
    assert "cancellation" in [c["classifierName"] for c in invoke("classifiers", "list")[1]["classifiers"]]


def test_a_new_version_keeps_the_id_and_the_display_name(registered, model_file):
    code, out = invoke("classifiers", "put", "cancellation", str(model_file))
    assert code == 0 and out["classifierVersion"] == "2" and out["classifierId"] == registered["classifierId"]
    assert out["classifierDisplayName"] == "Call is about cancellation"


def test_predictions_on_hand_built_calls(registered):
    with Catalog() as catalog:
        settings = resolve(config.validate({"prediction": {"classifiers": [{"classifierName": "cancellation"}]}}),
                               catalog)
    cancel = conversation(("Agent", "Thank you for calling, how can I help?"),
                          ("Caller", "I want to cancel my subscription, it is too expensive."))
    other = conversation(("Agent", "Thank you for calling, how can I help?"),
                         ("Caller", "My internet keeps dropping every evening."))
    classify.run(cancel, settings.classifiers)
    classify.run(other, settings.classifiers)
    assert (cancel.classifiers[0].label, cancel.classifiers[0].predicted_class) == ("cancellation", 0)
    assert (other.classifiers[0].label, other.classifiers[0].predicted_class) == ("other", 1)
    assert 0.5 < cancel.classifiers[0].score <= 1


@pytest.mark.slow
def test_results_in_the_media_item(registered, tmp_path):
    shutil.copy(SAMPLES / "voicemail.wav", tmp_path / "v.wav")
    (tmp_path / "c.json").write_text(json.dumps({"prediction": {"classifiers": [{"classifierId": registered["classifierId"]}]}}))
    code, out = invoke("run", str(tmp_path / "v.wav"), "--config", str(tmp_path / "c.json"), "--quiet")
    assert code == 0, out
    item = json.loads((tmp_path / "v.v3.json").read_text())
    [result] = item["prediction"]["classifiers"]
    assert set(result) == {"classifierId", "classifierName", "classifierVersion", "classifierDisplayName",
                           "classifierType", "predictedClassLabel", "predictionScore", "predictedClass"}
    heard = " ".join(w["w"] for w in item["transcript"]["words"] if "m" not in w)  # whatever the model heard
    index, label, score = classifiers.predict(classifiers.model("cancellation"), heard)
    assert (result["predictedClass"], result["predictedClassLabel"]) == (index, label)
    assert result["predictionScore"] == score and 0.5 <= score <= 1
    assert registered["classes"][index] == label


def test_an_unknown_classifier_stops_the_run(tmp_path):
    (tmp_path / "c.json").write_text(json.dumps({"prediction": {"classifiers": [{"classifierName": "nope"}]}}))
    shutil.copy(SAMPLES / "voicemail.wav", tmp_path / "v.wav")
    code, out = invoke("run", str(tmp_path / "v.wav"), "--config", str(tmp_path / "c.json"), "--quiet")
    assert code == 2 and "not registered" in out["warnings"][0]["message"]


def _dump(obj, path: Path) -> Path:
    from skops.io import dump

    dump(obj, path)
    return path


@pytest.mark.parametrize("make, message", [
    (lambda d: _dump(__import__("sklearn.preprocessing").preprocessing.FunctionTransformer(func=eval), d / "m.skops"),
     "not trusted: builtins.eval"),
    (lambda d: _dump(__import__("sklearn.preprocessing").preprocessing.FunctionTransformer(func=os.system), d / "m.skops"),
     "not trusted"),
    (lambda d: (d / "m.pkl").write_bytes(pickle.dumps({"a": 1})) and d / "m.pkl", "not a skops model file"),
    (lambda d: (d / "m.skops").write_text("hello") and d / "m.skops", "not a skops model file"),
    (lambda d: _dump(__import__("sklearn.linear_model").linear_model.LinearRegression(), d / "m.skops"),
     "not a fitted binary classifier"),
    (lambda d: d / "missing.skops", "no such model file"),
])
def test_bad_model_files_are_refused_and_nothing_is_stored(tmp_path, make, message):
    path = make(tmp_path)
    with pytest.raises(ConfigurationError, match=message):
        api.put_definition("classifier", "bad-model", path)
    assert not classifiers.stored_path("bad-model").exists()
    code, _ = invoke("classifiers", "get", "bad-model")
    assert code == 1


def test_delete_removes_the_model_file(model_file):
    try:
        assert invoke("classifiers", "put", "temporary", str(model_file))[0] == 0
        assert classifiers.stored_path("temporary").exists()
        assert invoke("classifiers", "delete", "temporary")[0] == 0
        assert not classifiers.stored_path("temporary").exists()
    finally:
        invoke("classifiers", "delete", "temporary")
