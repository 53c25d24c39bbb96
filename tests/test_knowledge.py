"""Keywords and topics: candidates, mentions with times, taxonomy matching, the user's taxonomy."""
from __future__ import annotations

import pytest

from speechproc.config import v3 as config
from speechproc.errors import ConfigurationError
from speechproc.formats.v3json import results_json
from speechproc.stages.analytics import knowledge, taxonomy
from text_helpers import conversation, run_stage, stage_options

BILLING_CALL = (
    ("Agent", "Thank you for calling. How can I help you today?"),
    ("Caller", "I was charged twice for my internet bill this month and I want a refund."),
    ("Agent", "I can see the double charge on your internet bill. I will issue a refund today."),
    ("Caller", "Thank you. Will the refund reach my bank account this week?"),
)
SETTINGS = stage_options({"knowledge": {"enableDiscovery": True}}).discovery


@pytest.fixture(scope="module")
def billing():
    conv = conversation(*BILLING_CALL)
    knowledge.run(conv, SETTINGS)
    return conv


@pytest.mark.slow
def test_keywords_are_the_calls_noun_phrases_with_every_mention(billing):
    found = {k.keyword: k for k in billing.knowledge.keywords}
    assert {"refund", "internet bill", "double charge"} <= set(found)
    refund = found["refund"]
    assert set(refund.mentions) == {"Caller", "Agent"}
    assert [o.exact for o in refund.mentions["Caller"]] == ["refund", "refund"]
    spoken = [w for w in billing.words if w.w == "refund" and w.speaker == "Agent"]
    assert [(o.s, o.e) for o in refund.mentions["Agent"]] == [(w.s, w.e) for w in spoken]
    bill = found["internet bill"].mentions
    assert sum(len(v) for v in bill.values()) == 2 and all(o.e > o.s for v in bill.values() for o in v)
    assert all(0 < k.relevance <= 1 for k in billing.knowledge.keywords)
    assert "you" not in found and "today" not in found  # pronouns and non-nouns are not keywords


@pytest.mark.slow
def test_billing_call_is_about_billing_first(billing):
    topics = billing.knowledge.topics
    assert topics and topics[0].name == "Billing"
    assert {"Refund", "Double charge"} <= {name for name, _ in topics[0].subtopics}
    assert "refund" in {k.keyword for k in topics[0].keywords}
    assert all(t.relevance >= knowledge.TOPIC_MIN for t in topics)


@pytest.mark.slow
def test_v3_shape_of_knowledge(billing):
    body = results_json(billing)["knowledge"]
    keyword = body["keywords"][0]
    assert set(keyword) == {"keyword", "relevance", "mentions"}
    assert set(keyword["mentions"][0]) == {"speakerName", "occurrences"}
    assert set(keyword["mentions"][0]["occurrences"][0]) == {"s", "e", "exact"}
    assert set(body["topics"][0]) == {"topicName", "relevance", "subtopics", "keywords"}
    assert set(body["topics"][0]["subtopics"][0]) == {"name", "score"}


@pytest.mark.slow
def test_a_call_about_something_else_does_not_get_billing():
    conv = conversation(("Caller", "My router keeps dropping the wifi connection and the internet is very slow."),
                        ("Agent", "Let us restart the router and run a speed test on the connection."))
    knowledge.run(conv, SETTINGS)
    names = [t.name for t in conv.knowledge.topics]
    assert names and names[0] == "Technical support" and "Billing" not in names


def test_discovery_is_off_unless_enabled():
    conv = conversation(*BILLING_CALL)
    assert not run_stage("knowledge", conv, {"knowledge": {"enableExternalDataSources": True}})
    assert conv.knowledge is None and "knowledge" not in results_json(conv)


@pytest.mark.slow
def test_a_users_taxonomy_replaces_the_bundled_one(tmp_path):
    own = tmp_path / "topics.yaml"
    own.write_text("topics:\n  - topicName: Pets\n    description: Dogs, cats and their food and vets.\n"
                   "  - topicName: Money back\n    description: The customer asks for a refund of a charge.\n")
    conv = conversation(*BILLING_CALL)
    knowledge.run(conv, stage_options({"knowledge": {"enableDiscovery": True},
                                       "speechproc": {"topicTaxonomy": str(own)}}).discovery)
    assert [t.name for t in conv.knowledge.topics] == ["Money back"]


@pytest.mark.parametrize("text, message", [
    ("topics: []\n", "non-empty list"),
    ("topics:\n  - topicName: A\n", "description"),
    ("topics:\n  - {topicName: A, description: x}\n  - {topicName: A, description: y}\n", "listed twice"),
    ("topics:\n  - {topicName: A, description: x, colour: red}\n", "unknown keys"),
    ("topics: [\n", "not YAML"),
])
def test_a_bad_taxonomy_is_a_configuration_error(tmp_path, text, message):
    own = tmp_path / "topics.yaml"
    own.write_text(text)
    with pytest.raises(ConfigurationError, match=message):
        config.validate({"speechproc": {"topicTaxonomy": str(own)}})


def test_the_bundled_taxonomy_has_the_contact_centre_topics():
    names = {t.name for t in taxonomy.load()}
    assert {"Billing", "Cancellation", "Technical support", "Delivery", "Account access"} <= names
    with pytest.raises(ValueError, match="not found"):
        taxonomy.load("/nonexistent/topics.yaml")
