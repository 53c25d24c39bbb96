"""Personal data said in any way, in any turn: addresses as a whole in any order, data volunteered, read back,
corrected, spelled and split over turns, the newer kinds (bank routing numbers, PINs, driver's licence and
passport numbers), anyone's name; and each detection shown in the call report and the export."""
from __future__ import annotations

import json

import pytest
import yaml

from conftest import SAMPLES, invoke
from speechproc.formats import detected
from speechproc.stages.personal_data import pii
from test_pii import found, punctuated, said

pytestmark = pytest.mark.slow  # spaCy tags the names


def plain(text: str) -> str:
    return " ".join(w.strip(".,?!") for w in text.split())


def covered(words, kinds=pii.KINDS) -> set[str]:
    """The words inside any detection, without the punctuation a recogniser writes after them."""
    return {w.rstrip(".,?!") for _, text in found(words, kinds) for w in text.split()}


def assert_all_found(words, personal: str, kinds=pii.KINDS) -> None:
    taken = covered(words, kinds)
    left = [w for w in personal.split() if w.rstrip(".,?!") not in taken]
    assert not left, f"left: {left}; found: {found(words, kinds)}"


@pytest.mark.parametrize("text, personal", [
    ("I'm in Portland, Oregon, nine seven two one one, at 218 Maple Street, apartment 4B, if that helps.",
     "Portland, Oregon, nine seven two one one, 218 Maple Street, apartment 4B,"),
    ("He lives at 218 Maple Street in Portland.", "218 Maple Street Portland."),
    ("The new place is 14 Station Road, Leeds, LS6 2AB, United Kingdom.",
     "14 Station Road, Leeds, LS6 2AB, United Kingdom."),
    ("We moved to 77 King Street West, Toronto, Ontario, M5V 2T6 last month.",
     "77 King Street West, Toronto, Ontario, M5V 2T6"),
])
def test_an_address_is_found_whole_in_any_order(text, personal):
    words = punctuated(("Caller", text))
    assert_all_found(words, personal)
    assert not {"month", "helps", "if"} & covered(words)


def test_a_postcode_said_again_and_a_city_asked_for():
    words = punctuated(("Agent", "And your street address?"), ("Caller", "3830 Mill Street."),
                       ("Agent", "And the city?"), ("Caller", "Tampa, Florida."),
                       ("Agent", "And is that in the USA?"), ("Caller", "Yes. The post code again is three three six zero two."))
    assert_all_found(words, "3830 Mill Street. Tampa, Florida. USA? three three six zero two.")


@pytest.mark.parametrize("turns, personal", [
    # volunteered in the middle of other talk
    ([("Caller", "Oh, and before I forget, my new number is 503 555 0142, so please update that.")], "503 555 0142,"),
    # read back and spelled back by the agent
    ([("Agent", "Who am I speaking with today?"), ("Caller", "Margaret Olsen."),
      ("Agent", "So that's M A R G A R E T?")], "Margaret Olsen. M A R G A R E T?"),
    # corrected
    ([("Agent", "What's the best number to call you back on?"),
      ("Caller", "It's 412 555 0199. No, sorry, it's four one two, not four two one.")],
     "412 555 0199. four one two, four two one."),
    # spread over turns, the agent's "okay" between
    ([("Agent", "What's a good phone number for you?"), ("Caller", "It's five five five,"), ("Agent", "Okay."),
      ("Caller", "two one eight,"), ("Agent", "Uh huh."), ("Caller", "four four nine seven.")],
     "five five five, two one eight, four four nine seven."),
    # spelled with no question before it
    ([("Caller", "It's Kowalski, K O W A L S K I, with a K.")], "Kowalski, K O W A L S K I,"),
    # the names of other people
    ([("Caller", "I spoke with your colleague Sarah Mitchell last week and she said it was fixed.")], "Sarah Mitchell"),
    ([("Caller", "It's in my husband's name, David Chen. He asked me to call.")], "David Chen."),
    # a name the talk told was one, said again later
    ([("Agent", "Can I have your full name please?"), ("Caller", "Yes, it's priya nair."),
      ("Agent", "Thank you, Priya. I see the charge now.")], "priya nair. Priya."),
])
def test_personal_data_said_in_any_turn(turns, personal):
    words = punctuated(*turns)
    assert_all_found(words, personal)
    assert not {"please", "update", "week", "fixed", "asked", "charge", "now"} & covered(words)


@pytest.mark.parametrize("turns, kind, personal", [
    ([("Caller", "Okay, my routing number is 0 2 1 0 0 0 0 2 1, and the account is 8 2 2 1 7 8 6 4.")],
     "bankRouting", "0 2 1 0 0 0 0 2 1,"),
    ([("Agent", "And to verify, what's your PIN?"), ("Caller", "It's 4 4 1 9.")], "pin", "4 4 1 9."),
    ([("Caller", "My PIN is 7 7 3 0.")], "pin", "7 7 3 0."),
    ([("Caller", "Yes, the license number is D 4 4 1 9 2 7 3.")], "driversLicense", "D 4 4 1 9 2 7 3."),
    ([("Agent", "Do you have your driver's license number?"), ("Caller", "Yes, it's K2576912.")],
     "driversLicense", "K2576912."),
    ([("Caller", "Sure, my passport number is 5 3 3 8 2 4 9 8 9.")], "passport", "5 3 3 8 2 4 9 8 9."),
])
def test_the_newer_kinds_each_with_its_label(turns, kind, personal):
    words = punctuated(*turns)
    assert_all_found(words, personal, (kind,))
    assert kind in {k for k, _ in found(words)}
    assert {k for k, _ in found(words, ("name",))} <= {"name"}  # entityTypes narrows to the kinds named


@pytest.mark.parametrize("turns", [
    [("Caller", "Thank you. Have a great day.")], [("Caller", "Thanks. Bye.")],
    [("Caller", "Can I speak to a manager? This is ridiculous.")], [("Caller", "I called. Nobody answered.")],
    [("Agent", "What name is the account under?")], [("Agent", "Whose name is on the bill?")],
    [("Agent", "What's your phone number?"), ("Caller", "555 218 4497."), ("Agent", "Okay, so let's see what we have here.")],
    [("Agent", "Can I have your full name?"), ("Caller", "Dana Reyes."), ("Agent", "Great, so that's all set then.")],
    [("Agent", "What's your phone number?"), ("Caller", "555 218 4497."), ("Agent", "Your order 4471 ships tomorrow.")],
    [("Agent", "How many lines do you have?"), ("Caller", "Two.")],
    [("Agent", "Is that your bank's routing number or the 800 number?")],
    [("Caller", "The new one is 300 dollars.")], [("Caller", "My passport expires in 2027.")],
    [("Caller", "I called the IRS a week ago and the ATM I used ate my card. My DVR I think is broken. I tried the D V R.")],
    [("Caller", "I'm in a meeting until 3 today.")], [("Caller", "I'm at 40 percent battery.")],
    [("Agent", "What's the state of my refund?"), ("Caller", "It was processed on March third, I think.")],
])
def test_ordinary_talk_around_data_is_not_taken_for_it(turns):
    words = punctuated(*turns)
    taken = {w for _, text in found(words) for w in text.split()}
    ordinary = {"Have", "Bye", "This", "Nobody", "account", "bill", "what", "all", "4471", "Two", "800", "300",
                "expires", "2027", "IRS", "ATM", "DVR", "D", "meeting", "3", "40", "processed", "March"}
    assert not taken & ordinary, found(words)


def test_an_address_stops_where_other_talk_goes_on():
    words = punctuated(("Caller", "I live at 218 Maple Street, and last week the Comcast guy came out, he said the "
                                  "Netgear box was fine."), ("Caller", "I live in Texas and I've got 3 kids."))
    assert {(k, text) for k, text in found(words)} == {("address", "218 Maple Street"), ("address", "Texas")}
    zip_again = punctuated(("Caller", "I live at 218 Maple Street, Springfield, 62704."), ("Caller", "My PIN is 4 4 1 9."),
                           ("Caller", "I've been a customer since 2009."), ("Caller", "The zip again is 62704."))
    assert ("address", "62704") in found(zip_again) and ("address", "4 4 1 9") not in found(zip_again)
    assert ("address", "2009") not in found(zip_again)


@pytest.mark.parametrize("text", [
    "They watch all of us, and the games convey another message.",
    "CARE about it? YAY, HAPPY day, WTF.",
    "The printer in the office stopped working again after the update, so we moved it to the other room.",
    "I was charged twice, forty dollars each time, three days ago, and it should reach me in three to five days.",
])
def test_talk_without_personal_data_stays(text):
    assert found(punctuated(("Caller", text))) == []


def test_hostile_transcripts_end_in_reasonable_time():
    regions = said(("Caller", "in " + " ".join(["Portland", "Oregon", "Texas", "Canada", "M5V", "2T6"] * 800)))
    assert {k for k, _ in found(regions)} == {"address"}
    letters = said(("Caller", " ".join("ABCDEFGHJKLMNOPQRSTUVWXYZ" * 200)))
    assert {k for k, _ in found(letters)} <= {"name"}
    corrections = said(("Caller", "my PIN is 1 2 3 4 " + "no sorry 4 3 2 1 not 1 2 3 4 " * 300))
    assert "pin" in {k for k, _ in found(corrections)}


# --------------------------------------------------------------- each detection shown, redaction off

CALL = [("Agent", 1000, "Can I have your full name please?"), ("Caller", 4000, "Yes, it's Dana Reyes."),
        ("Agent", 7000, "And the address on the account?"),
        ("Caller", 10000, "I live at 218 Maple Street in Portland, Oregon."),
        ("Agent", 15000, "Thank you. I have issued a refund for the double charge on your internet bill."),
        ("Caller", 21000, "Great, thank you very much for your help today.")]


@pytest.fixture
def unredacted_call(tmp_path, home, monkeypatch) -> dict:
    import shutil

    from speechproc.batch import jobs
    from speechproc.conversation import RecognizedWord

    real = jobs.analyse

    def words():
        return [RecognizedWord(piece, start + i * 350, start + i * 350 + 300, 0.95, speaker)
                for speaker, start, text in CALL for i, piece in enumerate(text.split())]

    monkeypatch.setattr(jobs, "analyse", lambda path, options, conv, on_stage, on_seconds=None, given=None:
                        real(path, options, conv, on_stage, on_seconds, words()))
    shutil.copy(SAMPLES / "call.flac", tmp_path / "call.flac")
    settings = {"prediction": {"detectors": [{"detectorName": "PII"}]}}
    (tmp_path / "pii.yaml").write_text(yaml.safe_dump(settings))
    code, out = invoke("run", str(tmp_path / "call.flac"), "--config", str(tmp_path / "pii.yaml"),
                       "--out", str(tmp_path / "out"), "--report")
    assert code == 0, out
    return {"out": tmp_path / "out", "tmp": tmp_path}


def test_each_detection_is_shown_with_its_words_in_the_report_and_the_export(unredacted_call):
    item = json.loads((unredacted_call["out"] / "call.v3.json").read_text())
    shown = {x.label: x.words for x in detected.found(item)}  # as punctuated by the pipeline
    assert plain(shown["name"]) == "Dana Reyes" and plain(shown["address"]) == "218 Maple Street in Portland Oregon"
    report = (unredacted_call["out"] / "call.report.html").read_text()
    assert "Each detection" in report and shown["address"] in report
    code, out = invoke("export", "--format", "jsonl", "-o", str(unredacted_call["tmp"] / "calls.jsonl"))
    assert code == 0, out
    [row] = [json.loads(line) for line in (unredacted_call["tmp"] / "calls.jsonl").read_text().splitlines()]
    assert row["detections.PII.name"] >= 1 and shown["name"] in row["detected.PII.name"].split(" | ")
    assert shown["address"] in row["detected.PII.address"].split(" | ")
    assert row["detections.PII"] == sum(v for k, v in row.items() if k.startswith("detections.PII."))


def test_detections_read_from_a_hand_made_item_are_safe():
    item = {"prediction": {"detectors": [{"detectorName": "PII", "detections": [
        {"detectorClassLabel": "name", "detectedSegments": [
            {"speakerName": "A", "occurrences": [{"s": 0, "e": 100}, {"s": "x"}, {"s": 5, "e": 1}, None]}]},
        "junk"]}, 7]},
        "transcript": {"words": [{"p": 0, "s": 0, "e": 50, "w": "A", "m": "turn"}, {"p": 1, "s": 0, "e": 50, "w": "Dana"},
                                 {"p": 2, "s": float("nan"), "e": 60, "w": "x"}]}}
    assert detected.found(item) == [detected.Found("PII", "name", "A", 0, 100, "Dana")]
    assert detected.found({"prediction": "nonsense"}) == []


def test_entity_types_name_the_newer_kinds_and_refuse_unknown_ones():
    from speechproc import errors as E
    from speechproc.config import v3 as config

    def settings(value):
        return {"prediction": {"detectors": [{"detectorName": "PII", "parameters": [
            {"parameter": "entityTypes", "value": value}]}]}}

    assert config.validate(settings("bankRouting, pin,driversLicense,passport"))
    for value in ("PIN", "passports", "pin;passport", "pin,\u202epassport"):
        with pytest.raises(E.ConfigurationError, match="entityTypes"):
            config.validate(settings(value))


def test_a_turn_too_long_for_the_tagger_is_read_in_pieces():
    words = said(("Caller", "My name is Dana Reyes " + "5" * 1_100_000 + " " + "and so on " * 12_000))
    assert ("name", "Dana Reyes") in found(words)


def test_the_export_has_kind_columns_only_for_detectors_that_label_by_kind():
    from speechproc.store.collection.export import row

    def detector(name, label):
        return {"detectorName": name, "detections": [{"detectorClassLabel": label, "detectedSegments": [
            {"speakerName": "Caller", "occurrences": [{"s": 0, "e": 500}]}]}]}

    item = {"mediaId": "m", "prediction": {"detectors": [detector("SSN", "ssn"), detector("PCI", "PCI"),
                                                         detector("PII", "name")]},
            "transcript": {"words": [{"p": 0, "s": 0, "e": 0, "w": "Caller", "m": "turn"},
                                     {"p": 1, "s": 0, "e": 400, "w": "Dana"}]}}
    out = row({"item": item, "media_id": "m", "input_path": "call.wav", "status": "finished"})
    assert out["detections.SSN"] == 1 and out["detections.PII.name"] == 1 and out["detected.PII.name"] == "Dana"
    assert not [c for c in out if c.startswith(("detections.SSN.", "detected.SSN", "detections.PCI.", "detected.PCI"))]
