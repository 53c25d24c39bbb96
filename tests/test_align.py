"""Aligning a human transcript: exact text, corrections, insertions, deletions, speakers, the wrong
recording, and `speechproc media align` end to end (recomputation, the 404 while it runs)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import SAMPLES, invoke
from speechproc import api
from speechproc.conversation import text_of
from speechproc.stages.recognition import align
from text_helpers import conversation

CALL = conversation(("Agent", "Thank you for calling Acme. How can I help?"),
                    ("Caller", "I want to cancel my plan, it costs too much."))
MACHINE = [w for w in CALL.words if w.is_word]


def test_the_exact_text_keeps_every_machine_time():
    text = "\n".join(text_of(t.words) for t in CALL.turns)
    result = align.align_text(text, CALL.words)
    assert [(w.s, w.e, w.speaker) for w in result.words] == [(w.s, w.e, w.speaker) for w in MACHINE]
    assert result.matched == result.total == len(MACHINE)


def test_corrections_insertions_and_deletions_align_monotonically():
    human = ("Thank you so much for calling Acme support. How may I help?\n"  # two added, one changed
             "I want to cancel my plan, it costs too much money.")  # "it" kept, one added at the end
    result = align.align_text(human.replace("I want to cancel", "I want cancel"), CALL.words)  # one deleted
    starts = [w.s for w in result.words]
    assert starts == sorted(starts) and all(w.e >= w.s for w in result.words)
    by_word: dict = {}
    for w in result.words:
        by_word.setdefault(w.text.strip(".,?"), w)  # the first time each word is said
    acme = next(w for w in MACHINE if w.w == "Acme")
    assert (by_word["Acme"].s, by_word["Acme"].e) == (acme.s, acme.e)  # a matched word keeps its time
    thank, you = (next(w for w in MACHINE if w.w == x) for x in ("Thank", "you"))
    so, much = by_word["so"], by_word["much"]
    assert you.e <= so.s <= much.s <= next(w for w in MACHINE if w.w == "for").s  # added words sit in the gap
    may = by_word["may"]
    can = next(w for w in MACHINE if w.w == "can")
    assert (may.s, may.e) == (can.s, can.e)  # a changed word takes the time of the word it replaces
    assert by_word["money"].s >= MACHINE[-1].e  # added at the very end, after the last word
    assert [w.speaker for w in result.words if w.text.startswith("money")] == ["Caller"]


def test_speaker_prefixes_name_the_speakers():
    result = align.align_text("Rep: Thank you for calling Acme. How can I help?\nCustomer: I want to cancel my plan.",
                              CALL.words)
    assert {w.speaker for w in result.words[:8]} == {"Rep"} and result.words[-1].speaker == "Customer"
    assert align.parse("10:30 is the time")[0].text == "10:30"  # a time is not a speaker


def test_a_transcript_of_another_recording_is_refused():
    with pytest.raises(align.TranscriptMismatch, match="not a transcript of this recording"):
        align.align_text("The weather in the mountains will be sunny with light winds all week long.", CALL.words)
    with pytest.raises(align.TranscriptMismatch, match="no words"):
        align.align_text("  \n ", CALL.words)


@pytest.fixture(scope="module")
def voicemail(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("align")
    shutil.copy(SAMPLES / "voicemail.wav", folder / "v.wav")
    (folder / "c.json").write_text(json.dumps({"conversation": {"verbNounPairsEnabled": True},
                                               "speechModel": {"features": ["advancedPunctuation"]}}))
    code, out = invoke("run", str(folder / "v.wav"), "--config", str(folder / "c.json"), "--quiet")
    assert code == 0, out
    return {"folder": folder, "id": out["media"][0]["mediaId"], "outputs": out["media"][0]["outputs"],
            "item": json.loads((folder / "v.v3.json").read_text())}


@pytest.mark.slow
def test_align_rewrites_the_outputs_and_recomputes_the_analytics(voicemail, monkeypatch):
    from speechproc.stages.recognition import turns

    seen = []
    real = turns.run

    def spy(conv):  # while the stages run, the transcript is not available
        try:
            api.get_transcript(voicemail["id"])
            seen.append("available")
        except api.TranscriptNotReady:
            seen.append("404")
        real(conv)

    monkeypatch.setattr(turns, "run", spy)
    human = voicemail["folder"] / "human.txt"
    human.write_text("Maria: Hello, this is Maria from the billing department. Please call me back when you have "
                     "a free moment. Thank you, and have a lovely day.\n")
    code, out = invoke("media", "align", voicemail["id"], str(human))
    assert code == 0, out
    assert seen == ["404"]
    assert out["status"] == "finished" and out["alignment"]["matched"] >= 18
    text = Path(voicemail["outputs"]["text"]).read_text()
    assert text.startswith("Maria: Hello, this is Maria from the billing department.") and "lovely day" in text
    item = json.loads(Path(voicemail["outputs"]["json"]).read_text())
    assert item["mediaId"] == voicemail["id"] and item["dateCreated"] == voicemail["item"]["dateCreated"]
    words = [w for w in item["transcript"]["words"] if "m" not in w]
    assert [w["s"] for w in words] == sorted(w["s"] for w in words)
    pairs = [(p["verb"], p["noun"]) for s in item["conversation"]["speakerVerbNounPairs"] for p in s["verbNounPairs"]]
    assert ("have", "moment") in pairs  # verb-noun pairs recomputed from the human words
    assert api.get_transcript(voicemail["id"], "text").startswith("Maria: Hello")


@pytest.mark.slow
def test_align_refuses_the_wrong_transcript_and_changes_nothing(voicemail, tmp_path):
    before = Path(voicemail["outputs"]["json"]).read_text()
    wrong = tmp_path / "wrong.txt"
    wrong.write_text("Four score and seven years ago our fathers brought forth on this continent a new nation.")
    code, out = invoke("media", "align", voicemail["id"], str(wrong))
    assert code == 2 and "not a transcript of this recording" in out["warnings"][0]["message"]
    assert Path(voicemail["outputs"]["json"]).read_text() == before
    assert invoke("media", "get", voicemail["id"])[1]["status"] == "finished"


def test_align_of_an_unknown_item_is_a_404(tmp_path):
    (tmp_path / "t.txt").write_text("hello")
    code, out = invoke("media", "align", "00000000-0000-4000-8000-000000000000", str(tmp_path / "t.txt"))
    assert code == 1 and out["status"] == 404
