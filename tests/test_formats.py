"""Writers against golden files, cue rules, and real parsers reading our captions back."""
from __future__ import annotations

import base64
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from speechproc.conversation import Token
from speechproc.formats import get_writer, v3json
from speechproc.formats.cues import MAX_CUE_CHARS, MAX_CUE_MS, build_cues, clock, wrap
from speechproc.formats.stored import stored_transcript

GOLDEN = Path(__file__).parent / "golden"


def turn(speaker: str, text: str, start: int, step: int = 400) -> list[Token]:
    """A turn marker and words with punctuation tokens; each word lasts `step` - 50 ms."""
    toks: list[Token] = []
    t = start
    for raw in text.split():
        core, mark = raw.rstrip(".,?"), raw[len(raw.rstrip(".,?")):]
        toks.append(Token(0, 0.9, t, t + step - 50, core, speaker=speaker))
        if mark:
            toks.append(Token(0, 0.0, t + step - 50, t + step - 50, mark, m="punc", speaker=speaker))
        t += step
    real = [w for w in toks if w.m is None]
    return [Token(0, 1.0, real[0].s, real[-1].e, speaker, m="turn", speaker=speaker), *toks]


def sample_words() -> list[Token]:
    words = (turn("Agent", "Thank you for calling Acme & Sons support. My name is John. How can I help you "
                           "today? Our hours are <nine> to five, Monday to Friday.", 2499)
             + turn("Caller", "Hi John, I was charged twice.", 3_599_000)
             + turn("Agent", "Sorry.", 3_603_000))
    for p, w in enumerate(words):
        w.p = p
    return words


@pytest.mark.parametrize("fmt, filename", [("text", "sample.txt"), ("srt", "sample.srt"),
                                           ("webvtt", "sample.vtt"), ("dfxp", "sample.dfxp")])
def test_writer_matches_golden_file(fmt, filename):
    rendered = get_writer(fmt).render(sample_words())
    golden = GOLDEN / filename
    expected = golden.read_text(encoding="utf-8") if golden.exists() else None  # read before any rewrite
    if os.environ.get("UPDATE_GOLDEN") and rendered != expected:
        golden.write_text(rendered, encoding="utf-8")
        pytest.fail(f"golden file {golden.name} rewritten: review the diff, then run again without UPDATE_GOLDEN")
    assert rendered == expected


def test_cues_start_at_turns_and_respect_time_and_length_limits():
    cues = build_cues(sample_words())
    assert cues[0].text.startswith("Agent: ") and cues[0].start == 2499
    assert sum(c.text.startswith("Agent: ") for c in cues) == 2  # only the first cue of each agent turn
    assert sum(c.text.startswith("Caller: ") for c in cues) == 1
    for cue in cues:
        assert cue.end - cue.start <= MAX_CUE_MS + 400
        assert len(cue.text) <= MAX_CUE_CHARS
        assert 1 <= len(cue.lines) <= 2


def test_a_long_cue_breaks_after_a_sentence_in_its_second_half():
    first = build_cues(sample_words())[0]
    assert first.text.endswith("My name is John.")


def test_wrap_breaks_at_the_space_nearest_the_middle():
    assert wrap("short line") == ["short line"]
    assert wrap("Caller: All the fuel spoke, I'm just making it to scoff.") == \
        ["Caller: All the fuel spoke,", "I'm just making it to scoff."]


@pytest.mark.parametrize("ms, sep, text", [(0, ",", "00:00:00,000"), (2499, ",", "00:00:02,499"),
                                           (7710, ".", "00:00:07.710"), (3_723_004, ".", "01:02:03.004")])
def test_clock_has_three_fraction_digits(ms, sep, text):
    assert clock(ms, sep) == text


def test_dfxp_is_ttml_in_the_2006_namespace_with_escaped_text():
    root = ET.fromstring(get_writer("dfxp").render(sample_words()))
    ns = "{http://www.w3.org/2006/04/ttaf1}"
    assert root.tag == f"{ns}tt"
    paragraphs = root.iter(f"{ns}p")
    first = next(paragraphs)
    assert first.get("begin") == "00:00:02.499"
    assert "".join(first.itertext()).endswith("Acme& Sons support. My name is John.")  # <br/> between lines


def test_alternate_format_objects_carry_base64_of_the_writer_output():
    words = sample_words()
    transcript = {"confidence": 0.9, "words": [v3json.word_json(w) for w in words], "voiceActivity": []}
    stored = stored_transcript({"transcript": transcript}, "en-US")
    out = stored.with_alternate_formats(transcript, ["text", "srt", "webvtt", "dfxp"])
    assert [a["format"] for a in out["alternateFormats"]] == ["dfxp", "webvtt", "srt", "text"]
    srt = next(a for a in out["alternateFormats"] if a["format"] == "srt")
    assert {k: srt[k] for k in ("contentType", "contentEncoding", "charset")} == \
        {"contentType": "text/srt", "contentEncoding": "Base64", "charset": "utf-8"}
    assert base64.b64decode(srt["data"]).decode() == get_writer("srt").render(words)
    assert "alternateFormats" not in stored.with_alternate_formats(transcript, [])


def test_words_survive_a_round_trip_through_v3_json():
    words = sample_words()
    back = v3json.words_from_json([v3json.word_json(w) for w in words])
    assert [(w.p, w.c, w.s, w.e, w.w, w.m, w.speaker) for w in back] == \
        [(w.p, w.c, w.s, w.e, w.w, w.m, w.speaker) for w in words]


def _ffmpeg_cue_times(path: Path) -> list[tuple[int, int]]:
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-f", "webvtt", "-"],
                         capture_output=True, text=True, check=True).stdout
    times = []
    for a, b in re.findall(r"^([\d:.]+) --> ([\d:.]+)", out, flags=re.M):
        times.append((_ms(a), _ms(b)))
    return times


def _ms(stamp: str) -> int:
    parts = [float(x) for x in stamp.split(":")]
    seconds = sum(v * 60 ** i for i, v in enumerate(reversed(parts)))
    return round(seconds * 1000)


@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="ffmpeg is not installed")
@pytest.mark.parametrize("fmt, suffix", [("srt", ".srt"), ("webvtt", ".vtt")])
def test_ffmpeg_reads_our_captions_with_the_same_cue_times(tmp_path, fmt, suffix):
    words = sample_words()
    path = tmp_path / f"captions{suffix}"
    path.write_text(get_writer(fmt).render(words), encoding="utf-8")
    assert _ffmpeg_cue_times(path) == [(c.start, c.end) for c in build_cues(words)]


def overlapping_words() -> list[Token]:
    """Two parties talking over each other (the second turn starts inside the first's second cue), and
    words the recogniser gave no duration, one of them a turn of its own."""
    words = (turn("Agent", "Thank you for calling. Let me look that up for you right now while you wait on the "
                           "line with me.", 10_000)
             + turn("Caller", "Okay, sure.", 15_500)
             + [Token(0, 1.0, 12_060, 12_060, "Caller", m="turn", speaker="Caller"),
                Token(0, 0.9, 12_060, 12_060, "I", speaker="Caller")]
             + turn("Agent", "Found it.", 19_000))
    zero = next(w for w in words if w.w == "Okay")
    zero.e = zero.s  # a zero-length first word of a cue
    for p, w in enumerate(words):
        w.p = p
    return words


def _cue_times(fmt: str, text: str) -> list[tuple[int, int]]:
    if fmt == "dfxp":
        ns = {"tt": "http://www.w3.org/2006/04/ttaf1"}
        return [(_ms(p.get("begin")), _ms(p.get("end"))) for p in ET.fromstring(text).iterfind(".//tt:p", ns)]
    stamp = r"(\d\d:\d\d:\d\d[.,]\d{3})"
    return [(_ms(a.replace(",", ".")), _ms(b.replace(",", "."))) for a, b in re.findall(stamp + " --> " + stamp, text)]


@pytest.mark.parametrize("fmt", ["srt", "webvtt", "dfxp"])
def test_every_cue_ends_after_it_starts_and_none_starts_before_the_previous_one(fmt):
    for words in (overlapping_words(), sample_words()):
        times = _cue_times(fmt, get_writer(fmt).render(words))
        assert len(times) == len(build_cues(words)) >= 4
        assert all(end > start for start, end in times), times
        assert [start for start, _ in times] == sorted(start for start, _ in times), times
    # the overlapping turns interleave by start, and every word is still there once
    text = get_writer(fmt).render(overlapping_words())
    assert text.count("Found it.") == 1 and text.count("Okay, sure.") == 1 and text.count("Caller: I") == 1


def test_a_cue_after_another_speakers_cue_names_its_speaker_again():
    cues = build_cues(overlapping_words())
    for before, cue in zip(cues, cues[1:]):
        if cue.speaker != before.speaker:
            assert cue.text.startswith(f"{cue.speaker}: "), [(c.start, c.text) for c in cues]
    agent = [c for c in cues if c.speaker == "Agent"]
    assert len(agent) >= 3 and sum(c.text.startswith("Agent: ") for c in agent) >= 2  # named again after the caller
