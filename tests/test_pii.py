"""The PII detector: each kind on transcripts written as a recogniser writes them, `entityTypes`, hostile input,
and a redacted call in which no personal data survives in any output (JSON, text, captions, report, export,
the search index, callbacks)."""
from __future__ import annotations

import json
import shutil

import pytest
import yaml

from conftest import SAMPLES, invoke
from speechproc import errors as E
from speechproc.batch import jobs
from speechproc.config import v3 as config
from speechproc.conversation import RecognizedWord, Token
from speechproc.engines.models import load_spacy
from speechproc.stages.personal_data import pii
from text_helpers import holds

pytestmark = pytest.mark.slow  # spaCy tags the names


def said(*turns: tuple[str, str]) -> list[Token]:
    """Words of (speaker, text) turns, 300 ms each with 100 ms between, 800 ms between turns."""
    out: list[Token] = []
    t = 0
    for speaker, text in turns:
        for piece in text.split():
            out.append(Token(p=len(out), c=0.9, s=t, e=t + 300, w=piece, speaker=speaker))
            t += 400
        t += 800
    return out


def punctuated(*turns: tuple[str, str]) -> list[Token]:
    """As `said`, with punctuation as a recogniser's transcript has it: a token of its own (m="punc") at
    the end of the word before it."""
    out: list[Token] = []
    for w in said(*turns):
        text = w.w.rstrip(".,?!")
        out.append(Token(p=len(out), c=w.c, s=w.s, e=w.e, w=text, speaker=w.speaker))
        if text != w.w:
            out.append(Token(p=len(out), c=0.0, s=w.e, e=w.e, w=w.w[len(text):][:1], m="punc", speaker=w.speaker))
    return out


def found(words: list[Token], kinds=pii.KINDS) -> list[tuple[str, str]]:
    """(kind, the words it covers) for every detection."""
    out = []
    for detection in pii.find(words, kinds, load_spacy()):
        for speaker, spans in detection.segments.items():
            for s, e in spans:
                out.append((detection.label, " ".join(w.w for w in words if w.speaker == speaker and w.s >= s
                                                      and w.e <= e and w.is_word)))
    return out


@pytest.mark.parametrize("turns, expected", [
    ([("Agent", "Can I have your full name please?"), ("Caller", "Yes, it's Dana Reyes.")],
     ("name", "Dana Reyes.")),
    ([("Caller", "Hi, my name is Will Turner and I will pay the bill.")], ("name", "Will Turner")),
    ([("Agent", "Could you spell your last name?"), ("Caller", "R E Y E S")], ("name", "R E Y E S")),
    ([("Agent", "Can you confirm your date of birth?"), ("Caller", "March 14th, 1985.")],
     ("dateOfBirth", "March 14th, 1985.")),
    ([("Agent", "And your date of birth?"), ("Caller", "It's 03/14/1985.")], ("dateOfBirth", "03/14/1985.")),
    ([("Caller", "I was born on the fourteenth of March nineteen eighty five.")],
     ("dateOfBirth", "the fourteenth of March nineteen eighty five.")),
    ([("Caller", "I live at 218 Maple Street, Springfield, Illinois 62704.")],
     ("address", "218 Maple Street, Springfield, Illinois 62704.")),
    ([("Caller", "My email is dan dot smith at gmail dot com.")], ("email", "dan dot smith at gmail dot com.")),
    ([("Caller", "Write to dan.smith@gmail.com please.")], ("email", "dan.smith@gmail.com")),
    ([("Agent", "What's the best phone number to reach you?"), ("Caller", "555 218 4497.")],
     ("phone", "555 218 4497.")),
    ([("Caller", "It's five five five, two one eight, four four nine seven.")],
     ("phone", "five five five, two one eight, four four nine seven.")),
    ([("Caller", "My account number is 4 5 7 2 9 1.")], ("account", "4 5 7 2 9 1.")),
    ([("Caller", "The member ID is AB12345.")], ("account", "AB12345.")),
])
def test_each_kind_is_found_as_a_recogniser_writes_it(turns, expected):
    assert expected in found(said(*turns))


def test_the_answer_to_a_question_about_personal_data_is_that_data_however_it_was_heard():
    words = said(("Agent", "And the address on the account?"), ("Caller", "Yes, I live at O Cam a new fair new 4 9 7"),
                 ("Agent", "What's the best email for you?"), ("Caller", "It's Sofia not Mora who not come"),
                 ("Agent", "And the phone number where we can reach you?"), ("Caller", "Sure."))
    kinds = found(words)
    assert ("address", "O Cam a new fair new 4 9 7") in kinds
    assert ("email", "Sofia not Mora who not come") in kinds
    assert not any("phone number" in text for _, text in kinds)  # the agent's question is no answer


def test_what_the_agent_reads_back_is_the_same_data():
    answered = punctuated(("Agent", "Can I have your full name please?"), ("Caller", "Yes, it's Mei Haddad."),
                          ("Agent", "Let me read that back, May Hadad, is that correct?"),
                          ("Caller", "Yes, that's right."))
    assert ("name", "May Hadad") in found(answered)
    # no answer found before it (the question garbled): the kind from what is read back
    unasked = punctuated(("Agent", "And may I rest on the account?"), ("Caller", "Sure, it's fine."),
                         ("Agent", "Let me read that Mac. two to nine three nine seven zero six eight six. Is that "
                                   "correct?"))
    assert ("phone", "two to nine three nine seven zero six eight six") in found(unasked)
    assert not any("Mac" in text or "correct" in text for _, text in found(unasked))
    # "to confirm" reads back only up to a confirming question
    checked = found(punctuated(("Caller", "Yes, it's Dana Reyes."),
                               ("Agent", "I just need to confirm one more thing for you today.")))
    assert not any("thing" in text for _, text in checked)


def test_an_answer_ends_where_the_caller_goes_on_to_other_talk():
    words = punctuated(("Agent", "Can I have your full name please?"),
                       ("Caller", "Yes, it's Maria Patel. Also, I was born on twenty two slash zero one slash "
                                  "nineteen ninety two, in case you need it."))
    kinds = found(words)
    assert ("name", "Maria Patel") in kinds
    assert ("dateOfBirth", "twenty two slash zero one slash nineteen ninety two") in kinds
    assert not any("Also" in text or "case" in text for _, text in kinds)


@pytest.mark.parametrize("text, expected", [
    ("I moved to 5 Hill Drive, Springfield 71118 last month, by the way.",
     ("address", "5 Hill Drive Springfield 71118")),
    ("Please send the receipt to mr dot nata dot edu via nat dot com when it's done.",
     ("email", "mr dot nata dot edu via nat dot com")),
    ("You can write to P R I Y A dot R E Y E S at gmail dot com.",
     ("email", "P R I Y A dot R E Y E S at gmail dot com")),
    ("You can call me Mac at two to nine three nine seven zero six eight six if we get cut off.",
     ("phone", "two to nine three nine seven zero six eight six")),
])
def test_personal_data_said_unprompted(text, expected):
    kinds = found(punctuated(("Caller", text)))
    assert expected in kinds
    assert not any(word in text for _, text in kinds for word in ("way", "month", "done", "receipt", "cut"))


def test_a_word_without_duration_at_a_detections_edge_is_redacted():
    from speechproc.stages.personal_data.detect import redact_words

    words = [Token(p=0, c=0.9, s=1000, e=1000, w="1985", speaker="Caller"),
             Token(p=1, c=0.9, s=2000, e=2000, w="thanks", speaker="Caller")]
    assert redact_words(words, {"Caller": [(0, 1000)]}, "[x]") == 1
    assert [w.w for w in words] == ["[x]", "thanks"]


@pytest.mark.parametrize("text", [
    "I would like to cancel my plan and get a refund please.",
    "I will pay the bill on Monday and then we can talk about it.",
    "The printer in the office stopped working again after the update.",
    "I was charged twice, forty dollars each time, three days ago.",
    "It was born out of frustration, honestly.",
    "It's Friday already and it's March, so I'm happy to wait.",
])
def test_talk_without_personal_data_is_left_alone(text):
    assert found(said(("Caller", text))) == []


def test_a_question_that_asks_for_nothing_personal_takes_no_answer():
    words = said(("Caller", "Will I get an email confirmation?"),
                 ("Agent", "Yes, you will receive an email within the hour. Is there anything else I can help with?"),
                 ("Caller", "No, that's all. Thank you very much for your help."),
                 ("Agent", "My name is John. How can I help you today?"),
                 ("Agent", "Thank you for calling My name is John How can I help you"))  # as a recogniser may
    assert found(words) == [("name", "John."), ("name", "John")]




def test_entity_types_narrow_the_kinds():
    words = said(("Caller", "My name is Dana Reyes and my phone number is 555 218 4497."))
    assert {kind for kind, _ in found(words)} == {"name", "phone"}
    assert {kind for kind, _ in found(words, ("phone",))} == {"phone"}
    assert config.validate({"prediction": {"detectors": [{"detectorName": "PII", "parameters": [
        {"parameter": "entityTypes", "value": "name, phone"}]}]}})
    for value in ("names", "", "phone,ssn"):
        with pytest.raises(E.ConfigurationError, match="entityTypes"):
            config.validate({"prediction": {"detectors": [{"detectorName": "PII", "parameters": [
                {"parameter": "entityTypes", "value": value}]}]}})


def test_hostile_transcripts():
    numbers = said(("Caller", " ".join(str(n) for n in range(1, 200))))
    assert [kind for kind, _ in found(numbers)] == []  # a count, not an account or a phone
    crowd = said(("Caller", "my name is " + " ".join(["Smith", "Jones", "Garcia", "Nguyen"] * 2500)))
    assert "name" in {kind for kind, _ in found(crowd)}  # 10,000 names: found, in reasonable time
    assert found(said(("Caller", "Bill will call. Will will bill."))) == [] or \
        all(kind == "name" for kind, _ in found(said(("Caller", "Bill will call. Will will bill.")))), \
        "only names, if anything"


# ------------------------------------------------------------------ a redacted call, every output

PII_WORDS = ["Dana", "Reyes", "Maple", "Springfield", "Illinois", "smith", "gmail", "4497", "1985", "021000021",
             "Sarah", "Mitchell", "5 3 3 8 2"]
CALL = [
    ("Agent", 1000, "Thank you for calling. Can I have your full name please?"),
    ("Caller", 4000, "Yes, it's Dana Reyes."),
    ("Agent", 6000, "And the address on the account?"),
    ("Caller", 8500, "I live at 218 Maple Street, Springfield, Illinois."),
    ("Agent", 12000, "What is the best phone number to reach you?"),
    ("Caller", 15000, "555 218 4497."),
    ("Agent", 17000, "And an email address?"),
    ("Caller", 19000, "dan dot smith at gmail dot com."),
    ("Agent", 22000, "For the direct debit, what is your routing number?"),
    ("Caller", 25500, "My routing number is 021000021."),
    ("Agent", 28000, "And to verify, your PIN?"),
    ("Caller", 30000, "It's 4 4 1 9."),
    ("Agent", 32000, "Do you have a driver's license?"),
    ("Caller", 34000, "Yes, the number is D 4 4 1 9 2 7 3."),
    ("Agent", 38000, "And your passport number?"),
    ("Caller", 40000, "It is 5 3 3 8 2 4 9 8 9."),
    ("Agent", 44000, "Thank you. Can you confirm your date of birth?"),
    ("Caller", 47000, "March 14th, 1985."),
    ("Caller", 51000, "Oh, I spoke with your colleague Sarah Mitchell yesterday."),
    ("Agent", 55000, "Thank you. I have issued a refund for the double charge on your internet bill."),
    ("Caller", 61000, "Great, thank you very much for your help today."),
]


def call_words() -> list[RecognizedWord]:
    out = []
    for speaker, start, text in CALL:
        for i, piece in enumerate(text.split()):
            out.append(RecognizedWord(piece, start + i * 350, start + i * 350 + 300, 0.95, speaker))
    return out


@pytest.fixture
def redacted_call(tmp_path, home, monkeypatch) -> dict:
    real = jobs.analyse

    def analyse(path, options, conv, on_stage, on_seconds=None, given=None):
        real(path, options, conv, on_stage, on_seconds, call_words())

    monkeypatch.setattr(jobs, "analyse", analyse)
    shutil.copy(SAMPLES / "call.flac", tmp_path / "call.flac")
    drop = tmp_path / "drop"
    drop.mkdir()
    settings = {"prediction": {"detectors": [{"detectorName": "PII", "redactor": {
        "transcript": {"replacement": "[redacted]"}, "audio": {"tone": 270}}}]}, "knowledge": {"enableDiscovery": True},
        "publish": {"enableAnalyticIndexing": True, "callbacks": [{"url": drop.as_uri() + "/"}]},
        "speechproc": {"callbackFileFolder": str(drop)}}
    (tmp_path / "pii.yaml").write_text(yaml.safe_dump(settings))
    code, out = invoke("run", str(tmp_path / "call.flac"), "--config", str(tmp_path / "pii.yaml"),
                       "--out", str(tmp_path / "out"), "--report")
    assert code == 0, out
    return {"out": tmp_path / "out", "drop": drop, "item": out["media"][0], "tmp": tmp_path}


def test_no_personal_data_survives_in_any_output(redacted_call):
    item = json.loads((redacted_call["out"] / "call.v3.json").read_text())
    [detector] = item["prediction"]["detectors"]
    assert {d["detectorClassLabel"] for d in detector["detections"]} == set(pii.KINDS) - {"account"}
    words = [w["w"] for w in item["transcript"]["words"] if w.get("m") is None]
    assert "[redacted]" in words and "refund" in words and "internet" in words  # the rest of the talk stays
    kept = sum(w != "[redacted]" for w in words) / len(words)
    assert kept >= 0.6
    files = list(redacted_call["out"].iterdir()) + [p for p in redacted_call["drop"].rglob("*") if p.is_file()]
    code, exported = invoke("export", "--format", "jsonl", "-o", str(redacted_call["tmp"] / "export.jsonl"))
    assert code == 0, exported
    files.append(redacted_call["tmp"] / "export.jsonl")
    for path in files:
        text = path.read_text(errors="replace").lower()
        for word in PII_WORDS:
            assert not holds(text, word), (path.name, word)
    for word in ("Reyes", "Maple", "gmail"):
        code, result = invoke("query", f"SELECT mediaId FROM media MATCH '{word}'")
        assert code == 0 and result["totalResults"] == 0, (word, result)
    code, result = invoke("query", "SELECT mediaId FROM media MATCH 'refund'")
    assert result["totalResults"] == 1  # the index holds the rest


def test_the_audio_redactor_puts_the_tone_over_every_detection(redacted_call):
    import numpy as np

    from speechproc.formats import audio

    item = json.loads((redacted_call["out"] / "call.v3.json").read_text())
    original, rate, _, _ = audio.read_pcm(SAMPLES / "call.flac")
    copy, _, _, _ = audio.read_pcm(redacted_call["out"] / "call.redacted.flac")
    spans = [(o["s"], o["e"]) for det in item["prediction"]["detectors"][0]["detections"]
             for seg in det["detectedSegments"] for o in seg["occurrences"]]
    inside = np.zeros(original.shape[1], bool)
    for s, e in spans:
        inside[s * rate // 1000: e * rate // 1000] = True
    assert inside.sum() > rate  # the name, date, address, phone and e-mail: seconds of tone
    assert np.array_equal(copy[:, ~inside], original[:, ~inside])
    tone = 0.5 * np.sin(2 * np.pi * 270 * np.flatnonzero(inside) / rate)
    assert np.max(np.abs(copy[:, inside].astype(np.float64) / 32767 - tone)) < 1e-3


def test_a_read_back_of_two_kinds_heard_as_often_takes_the_first_heard_whatever_the_hash_seed():
    from speechproc.stages.personal_data import pii_talk
    from speechproc.stages.personal_data.pii_words import detection, words_span

    words = said(("Caller", "My PIN is 4 4 1 9 and my account number is 7 7 3 1"),
                 ("Agent", "Let me read that back 4 4 1 9 7 7 3 1 is that correct"))
    caller = [w for w in words if w.speaker == "Caller"]
    found = [detection("pin", [words_span(caller[3:7])]), detection("account", [words_span(caller[12:16])])]
    assert [d.label for d in pii_talk.read_backs(words, found, ("pin", "account"))] == ["pin"]
    assert [d.label for d in pii_talk.read_backs(words, found[::-1], ("pin", "account"))] == ["account"]
