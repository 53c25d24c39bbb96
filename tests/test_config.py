"""Configuration validation: every section the spec defines, errors that name the key path."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import SHARED
from speechproc import errors
from speechproc.config import v3 as config


def reject(raw: dict) -> errors.ConfigurationError:
    with pytest.raises(errors.ConfigurationError) as info:
        config.validate(raw)
    return info.value


def test_empty_configuration_gives_the_defaults():
    s = config.validate({})
    assert (s.language, s.whisper_language, s.local("model"), s.local("beamSize"), s.local("vad")) == \
        ("en-US", "en", "tiny.en", 5, True)
    assert not s.advanced_punctuation and not s.voice_features


def test_unknown_key_is_refused_with_its_path():
    err = reject({"speechModel": {"langauge": "en-US"}})
    assert err.code == errors.UNKNOWN_PROPERTY
    assert "speechModel.langauge" in err.message and "speechModel configuration" in err.message


def test_wrong_type_names_the_key_path():
    err = reject({"publish": {"enableAnalyticIndexing": "yes"}})
    assert "publish.enableAnalyticIndexing" in err.message and "true or false" in err.message


@pytest.mark.parametrize("features", [["voiceFeatures"], ["advancedPunctuation", "voiceFeatures"], []])
def test_known_features_are_accepted(features):
    assert config.validate({"speechModel": {"features": features}}).features == frozenset(features)


def test_unknown_feature_is_refused():
    err = reject({"speechModel": {"features": ["advancedPunctuation", "karaoke"]}})
    assert "speechModel.features[1]" in err.message and "karaoke" in err.message


def test_metric_groups_one_to_four_by_exact_name():
    groups = [{"metricGroupName": n} for n in config.METRIC_GROUPS]
    config.validate({"metrics": groups})
    assert "at least 1" in reject({"metrics": []}).message
    assert "at most 4" in reject({"metrics": groups + groups[:1]}).message
    assert "listed twice" in reject({"metrics": groups[:1] * 2}).message
    assert "metrics[0].metricGroupName" in reject({"metrics": [{"metricGroupName": "Overtalk"}]}).message


def test_both_category_forms_and_no_mixture():
    config.validate({"categories": [{"allCategories": True}]})
    config.validate({"categories": [{"categoryName": "alfa"}, {"categoryName": "beta"}]})
    assert "only element" in reject({"categories": [{"allCategories": True}, {"categoryName": "a"}]}).message
    assert "categories[0]" in reject({"categories": [{"allCategories": True, "categoryName": "a"}]}).message
    assert "must be true" in reject({"categories": [{"allCategories": False}]}).message


@pytest.mark.parametrize("callback, code", [
    ({"method": "POST"}, errors.CALLBACK_NO_URL),
    ({"url": "ftp://example.com/x"}, errors.CALLBACK_BAD_PROTOCOL),
    ({"url": "http://example.com/x"}, errors.CALLBACK_BAD_PROTOCOL),
    ({"url": "https://example.com", "method": "GET"}, errors.CALLBACK_BAD_METHOD),
    ({"url": "https://example.com", "type": "email"}, errors.CALLBACK_BAD_TYPE),
    ({"url": "https://example.com", "type": "transcript", "format": "docx"}, errors.CALLBACK_BAD_FORMAT),
    ({"url": "https://example.com", "type": "transcript"}, errors.CALLBACK_PROPERTY_MISSING),
    ({"url": "https://example.com", "format": "srt"}, errors.CALLBACK_PROPERTY_NOT_ALLOWED),
    ({"url": "https://example.com", "type": "media", "stream": "video"}, errors.CALLBACK_BAD_STREAM),
    ({"url": "https://example.com", "include": ["transcript", "gossip"]}, errors.CALLBACK_BAD_INCLUDE),
])
def test_callback_fields_are_checked_with_documented_codes(callback, code):
    err = reject({"publish": {"callbacks": [callback]}})
    assert err.code == code, err.message
    assert err.message.startswith("publish.callbacks[0]")


def test_good_callbacks_pass(tmp_path):
    config.validate({"speechproc": {"callbackFileFolder": str(tmp_path)}, "publish": {"callbacks": [
        {"url": "https://example.com/hook", "method": "put"},
        {"url": "http://127.0.0.1:8080/hook", "type": "transcript", "format": "srt"},
        {"url": (tmp_path / "out").as_uri(), "type": "media", "stream": "redacted-audio"},
        {"url": "https://example.com", "include": ["metadata", "transcript", "metrics"]},
    ]}})
    config.validate({"speechproc": {"allowHttpCallbacks": True},
                     "publish": {"callbacks": [{"url": "http://example.com"}]}})


def test_ingest_forms_are_mutually_exclusive_and_stereo_needs_both_sides():
    assert reject({"ingest": {"speakerName": "A", "channels": [{}]}}).code == errors.INGEST_FORMS_EXCLUSIVE
    assert reject({"ingest": {"stereo": {"left": {"speakerName": "A"}}}}).code == errors.INGEST_STEREO_INCOMPLETE
    assert reject({"ingest": {"channels": [{"ignore": True}, {"ignore": True}]}}).code == errors.INGEST_ALL_IGNORED
    config.validate({"ingest": {"stereo": {"left": {"speakerName": "Agent"}, "right": {"speakerName": "Caller"}}}})


def test_language_must_be_a_supported_code():
    assert reject({"speechModel": {"language": "en"}}).code == errors.UNSUPPORTED_LANGUAGE
    assert config.validate({"speechModel": {"language": "es-MX"}}).whisper_language == "es"


def test_vocabulary_rules():
    assert reject({"vocabularies": [{"vocabularyName": "x", "terms": [{"term": "a"}]}]}).code == \
        errors.VOCABULARY_NAME_AND_TERMS
    assert reject({"vocabularies": [{"terms": [{"term": "Acme"}, {"term": "acme"}]}]}).code == \
        errors.VOCABULARY_DUPLICATE_TERMS
    assert reject({"vocabularies": [{"terms": [{"term": "a", "weight": 6}]}]}).code == errors.VOCABULARY_BAD_WEIGHT
    s = config.validate({"vocabularies": [{"terms": [{"term": "Acme", "weight": 3}]}]})
    assert [t["term"] for t in s.vocabulary_terms] == ["Acme"]


def test_detector_and_redactor_rules():
    assert reject({"prediction": {"detectors": [{"parameters": []}]}}).code == errors.DETECTOR_WITHOUT_ID
    assert reject({"prediction": {"detectors": [{"detectorName": "PCI", "redactor": {}}]}}).code == \
        errors.REDACTOR_EMPTY


def test_yaml_and_json_files_load(tmp_path):
    (tmp_path / "c.yaml").write_text("speechModel:\n  features: [advancedPunctuation]\n")
    (tmp_path / "c.json").write_text('{"speechModel": {"language": "en-AU"}}')
    assert config.load(tmp_path / "c.yaml").advanced_punctuation
    assert config.load(tmp_path / "c.json").language == "en-AU"


def test_duplicated_keys_and_unparseable_files_are_refused(tmp_path):
    (tmp_path / "dup.json").write_text('{"priority": "low", "priority": "high"}')
    (tmp_path / "dup.yaml").write_text("priority: low\npriority: high\n")
    (tmp_path / "bad.yaml").write_text("speechModel: [unclosed\n")
    for name, code in (("dup.json", errors.DUPLICATED_PROPERTY), ("dup.yaml", errors.DUPLICATED_PROPERTY),
                       ("bad.yaml", errors.CONFIG_NOT_PARSEABLE)):
        with pytest.raises(errors.ConfigurationError) as info:
            config.load(tmp_path / name)
        assert info.value.code == code


def test_v2_beta_wrapped_configuration_is_explained(tmp_path):
    (tmp_path / "old.json").write_text('{"configuration": {"executor": "v2"}}')
    with pytest.raises(errors.ConfigurationError, match="v2-beta"):
        config.load(tmp_path / "old.json")


def test_metadata_fields():
    assert config.validate_metadata({"title": "t", "externalId": "x", "extended": {"a": {"b": 1}}})
    with pytest.raises(errors.ConfigurationError) as info:
        config.validate_metadata({"externalId": " "})
    assert info.value.code == errors.EXTERNAL_ID_EMPTY
    with pytest.raises(errors.ConfigurationError, match="metadata.owner"):
        config.validate_metadata({"owner": "me"})


@pytest.mark.skipif(not (SHARED / "reference").exists(), reason="reference configurations not present")
def test_voicebase_reference_configurations_validate():
    for path in sorted((SHARED / "reference" / "voicebase-configs").glob("*.json")):
        raw = json.loads(path.read_text())
        for cb in raw.get("publish", {}).get("callbacks", []):
            cb["url"] = cb["url"].replace("http://", "https://")  # plain http is refused unless allowed
        config.validate(raw)


CONFIGS = sorted(p for p in (Path(__file__).parent.parent / "configs").glob("*.yaml") if p.name != "topics.yaml")


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_shipped_configurations_validate(path):
    settings = config.load(path)
    assert settings.language == "en-US"


def test_the_taxonomy_in_configs_is_the_bundled_one():
    from speechproc.stages.analytics import taxonomy

    shipped = Path(__file__).parent.parent / "configs" / "topics.yaml"
    assert taxonomy.load(shipped) == taxonomy.load()


@pytest.mark.parametrize("local, message", [
    ({"sentimentEngine": "bert"}, "sentimentEngine"),
    ({"topicTaxonomy": "/nonexistent/topics.yaml"}, "not found"),
    ({"spacyModel": ""}, "spacyModel"),
])
def test_bad_analytics_choices_are_configuration_errors(local, message):
    with pytest.raises(errors.ConfigurationError, match=message):
        config.validate({"speechproc": local})
