"""Optional: our media item validates against VoiceBase's own OpenAPI definitions (when ../shared exists)."""
from __future__ import annotations

import pytest
import yaml

from conftest import SHARED

API = SHARED / "reference" / "voicebase-v3-api-3.0.11.yml"
# every test reads a processed call: slow
pytestmark = [pytest.mark.skipif(not API.exists(), reason="VoiceBase OpenAPI file not present"), pytest.mark.slow]


@pytest.fixture(scope="module")
def definitions() -> dict:
    return yaml.safe_load(API.read_text())["definitions"]


def validate(instance: dict, definition: str, definitions: dict) -> None:
    import jsonschema

    schema = {"definitions": definitions, "$ref": f"#/definitions/{definition}"}
    jsonschema.Draft4Validator(schema).validate(instance)


def test_media_item_matches_vbmedia(processed, definitions):
    item = processed["call.flac"]
    validate(item, "VbMedia", definitions)
    validate(item["transcript"], "VbTranscript", definitions)
    for word in item["transcript"]["words"]:
        validate(word, "VbWord", definitions)


def test_the_schema_check_is_real(processed, definitions):
    import jsonschema

    broken = dict(processed["voicemail.wav"], length="8614 ms")
    with pytest.raises(jsonschema.ValidationError):
        validate(broken, "VbMedia", definitions)


def test_analytics_sections_match_their_definitions(callcenter, definitions):
    validate(callcenter, "VbMedia", definitions)
    validate(callcenter["knowledge"], "VbKnowledge", definitions)
    for group in callcenter["metrics"]:
        validate(group, "VbMetricGroup", definitions)
