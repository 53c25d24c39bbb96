"""Detectors on hand-built transcripts: card numbers said many ways, near-misses, SSNs, numbers, levels."""
from __future__ import annotations

import uuid

import pytest

from speechproc.config import v3 as config
from speechproc.errors import ConfigurationError
from speechproc.stages.personal_data import detect, numbers
from text_helpers import conversation, stage_options

CARD = "4539148803436467"  # Luhn-valid test number


def found(name: str, *turns: tuple[str, str], level: str | None = None) -> list:
    conv = conversation(*turns)
    return detect.detect(conv, name, {"detectionLevel": level} if level else {})


def runs(text: str) -> list[str]:
    return [r.digits for r in numbers.digit_runs(conversation(("Caller", text)).words)]


@pytest.mark.parametrize("text, digits", [
    ("four five three nine one four eight eight zero three four three six four six seven", CARD),
    ("4539 1488 0343 6467", CARD),
    ("4539, 1488, 0343, 6467.", CARD),
    ("4539-1488-0343-6467", CARD),
    ("four five three nine, 1488, oh three four three, six four six seven", CARD),
    ("four triple one, double one double one, one one one one, one one one one", "4111111111111111"),
    ("it is uh four five three nine dash one four eight eight", "45391488"),
    ("twenty seven", "27"),
    ("oh four, twenty", "0420"),
])
def test_spoken_digits_become_one_run(text, digits):
    assert runs(text) == [digits]


@pytest.mark.parametrize("text", ["it was forty dollars", "the total is $1,234", "one hundred twenty dollars",
                                  "I have two questions"])
def test_amounts_of_money_and_counts_are_not_digit_runs(text):
    assert [d for d in runs(text) if len(d) >= 2] == []


def test_runs_break_at_long_pauses_and_other_words():
    assert runs("four five then six seven") == ["45", "67"]


def test_luhn():
    assert numbers.luhn(CARD) and numbers.luhn("378282246310005") and not numbers.luhn("4539148803436468")


@pytest.mark.parametrize("text", [
    "Sure, it is four five three nine, one four eight eight, zero three four three, six four six seven.",
    "4539 1488 0343 6467",
    "three seven eight two, eight two two four six three, one double oh oh five",  # Amex, 15 digits
])
def test_a_luhn_valid_card_number_fires_without_context(text):
    detections = found("PCI", ("Caller", text))
    assert len(detections) == 1 and detections[0].label == "PCI"
    assert list(detections[0].segments) == ["Caller"]


def test_a_luhn_failure_fires_only_after_card_talk():
    order = "4539 1488 0343 6468"
    assert found("PCI", ("Caller", f"My order number is {order}.")) == []
    assert len(found("PCI", ("Agent", "Please read me the card number."), ("Caller", order))) == 1


@pytest.mark.parametrize("text", [
    "My phone number is five five five, two one two, four four three nine.",
    "The total was one thousand two hundred dollars.",
    "It costs $4,539.14 and the reference is 88215.",
    "Call me on 650-897-5170.",
])
def test_near_misses_do_not_fire_pci(text):
    assert found("PCI", ("Agent", "Can I have your card details?"), ("Caller", text)) == []


PAYMENT = (("Agent", "Please read me the card number."),
           ("Caller", "It is 4539 1488 0343 6467."),
           ("Agent", "And the expiration date?"),
           ("Caller", "Oh four, twenty seven."),
           ("Agent", "And the three digit security code on the back?"),
           ("Caller", "Seven three one."),
           ("Agent", "Thank you. Your payment is complete and your confirmation number is 88215."))


def words_of(conv, speaker: str, texts: list[str]) -> list:
    return [w for w in conv.words if w.speaker == speaker and w.is_word and w.w in texts]


def test_numbers_only_covers_the_card_the_expiry_and_the_code():
    conv = conversation(*PAYMENT)
    [detection] = detect.detect(conv, "PCI", {"detectionLevel": "numbersOnly"})
    caller = [w for w in conv.words if w.speaker == "Caller" and w.is_word]
    at = {w.w: w for w in caller}
    card = (at["4539"].s, at["6467"].e)
    expiry = (at["Oh"].s, at["seven"].e)  # "Oh four, twenty seven"
    code = (at["Seven"].s, caller[-1].e)  # "Seven three one"
    assert detection.segments == {"Caller": [card, expiry, code]}


def test_an_expiry_and_code_heard_as_one_number_are_both_card_data_and_a_later_number_is_not():
    """Read out in one breath, "oh four twenty seven, seven three one" may come back as one 7-digit number;
    the 4-digit confirmation number the agent reads after it is then no security code."""
    conv = conversation(("Agent", "Please read me the card number."),
                        ("Caller", "It is 4539 1488 0343 6467."),
                        ("Agent", "The expiration date and the three digit security code on the back?"),
                        ("Caller", "0427 731"),
                        ("Agent", "Thank you. Your confirmation number is eight two one five."))
    [detection] = detect.detect(conv, "PCI", {"detectionLevel": "numbersOnly"})
    at = {w.w: w for w in conv.words if w.is_word}
    assert detection.segments == {"Caller": [(at["4539"].s, at["6467"].e), (at["0427"].s, at["731"].e)]}
    [region] = detect.detect(conv, "PCI", {})
    assert max(e for spans in region.segments.values() for _, e in spans) < at["eight"].s + detect.REGION_BUFFER_MS


def test_detection_levels_nest():
    conv = conversation(*PAYMENT)
    spans = {level: detect.detect(conv, "PCI", {"detectionLevel": level})[0].segments
             for level in ("numbersOnly", "probableNumbers", "entireRegion")}
    assert len(spans["numbersOnly"]["Caller"]) == 3
    for (s0, e0), (s1, e1) in zip(spans["numbersOnly"]["Caller"], spans["probableNumbers"]["Caller"]):
        assert (s1, e1) == (s0 - 300, e0 + 300)
    region = spans["entireRegion"]
    assert set(region) == {"Agent", "Caller"}  # the card conversation, both parties
    agent_card_talk = words_of(conv, "Agent", ["card"])[0]
    assert region["Agent"][0][0] <= agent_card_talk.s
    confirmation = words_of(conv, "Agent", ["88215"])[0]
    assert region["Agent"][0][1] < confirmation.s  # the region ends one second after the code


def test_transcript_redaction_replaces_every_word_of_the_region():
    conv = conversation(*PAYMENT)
    wanted = stage_options({"prediction": {"detectors": [
        {"detectorName": "PCI", "redactor": {"transcript": {"replacement": "[redacted]"}}}]}})
    detect.run(conv, wanted.detect)
    said = " ".join(w.w for w in conv.words if w.is_word)
    for digits in ("4539", "1488", "0343", "6467", "twenty", "Seven"):
        assert digits not in said
    assert "88215" in said and said.count("[redacted]") > 10
    [result] = conv.detectors
    assert result.detector_id == str(uuid.uuid5(uuid.UUID("6c1d1a36-0b6e-4b8e-9d1f-3f7e5a0c2b10"), "PCI"))


@pytest.mark.parametrize("turns, count", [
    ((("Caller", "My social security number is 123 45 6789."),), 1),
    ((("Agent", "Can I have your social?"), ("Caller", "one two three four five six seven eight nine")), 1),
    ((("Caller", "My member number is 123 45 6789."),), 0),  # no social security talk
    ((("Caller", "My social security number is 123 45 678."),), 0),  # 8 digits
])
def test_ssn(turns, count):
    detections = found("SSN", *turns)
    assert len(detections) == count and all(d.label == "ssn" for d in detections)


def test_number_detector_fires_on_four_or_more_digits_but_not_money():
    conv = conversation(("Caller", "My order is 88215 and the code is 731."), ("Agent", "That was $1,250 in total."))
    [detection] = detect.detect(conv, "Number", {})
    number = words_of(conv, "Caller", ["88215"])[0]
    assert detection.label == "Number" and detection.segments == {"Caller": [(number.s, number.e)]}


@pytest.mark.parametrize("detector, message", [
    ({"detectorName": "Passport"}, "unknown detector"),
    ({"detectorId": "00000000-0000-0000-0000-000000000000"}, "unknown detector id"),
    ({"detectorName": "PCI", "parameters": [{"parameter": "detectionLevel", "value": "everything"}]}, "detectionLevel"),
    ({"detectorName": "SSN", "parameters": [{"parameter": "detectionLevel", "value": "numbersOnly"}]}, "unknown parameter"),
    ({"detectorName": "PCI", "redactor": {}}, "needs audio or transcript"),
])
def test_bad_detector_configurations(detector, message):
    with pytest.raises(ConfigurationError, match=message):
        config.validate({"prediction": {"detectors": [detector]}})


def test_a_detector_by_id():
    wanted = stage_options({"prediction": {"detectors": [{"detectorId": config.detector_id("Number")}]}})
    assert [d.name for d in wanted.detect.detectors] == ["Number"]
