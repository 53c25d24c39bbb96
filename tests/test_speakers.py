"""Speakers by name: the matching rules, enrollment (with hostile input), naming in every output of one- and
two-channel recordings, roles on a one-channel call's metrics, and the setting that turns it off.

The voices are the sample calls' own: the agent and the caller of payment.flac (each channel alone) are
enrolled, and call.flac, another recording of the same two voices, is processed (as it is, and mixed down
to one channel)."""
from __future__ import annotations

import json
import sqlite3
import subprocess

import av
import numpy as np
import pytest
import yaml

from conftest import SAMPLES, invoke, write_wav
from speechproc import errors as E
from speechproc import media
from speechproc.stages.analytics.metrics import parties
from speechproc.stages.options import EnrolledSpeaker
from speechproc.stages.speakers import identify
from speechproc.store.registered import speakers as store


def unit(vector) -> np.ndarray:
    vector = np.asarray(vector, dtype=np.float64)
    return vector / np.linalg.norm(vector)


def person(name: str, *vectors, role: str | None = None) -> EnrolledSpeaker:
    return EnrolledSpeaker(name, role, tuple(tuple(float(x) for x in unit(v)) for v in vectors))


def names(found: list[EnrolledSpeaker | None]) -> list[str | None]:
    return [p.name if p is not None else None for p in found]


# ------------------------------------------------------------------ the matching rules

def test_each_voice_takes_its_own_best_match():
    people = [person("Ann", [1, 0.1, 0]), person("Bob", [0, 1, 0.1])]
    assert names(identify.identify([unit([0, 1, 0]), unit([1, 0, 0])], people, 0.5)) == ["Bob", "Ann"]


def test_a_voice_like_no_one_enrolled_keeps_its_own_name():
    assert names(identify.identify([unit([0, 0, 1])], [person("Ann", [1, 0, 0])], 0.5)) == [None]
    assert identify.identify([], [person("Ann", [1, 0, 0])], 0.5) == []
    assert identify.identify([unit([1, 0, 0])], [], 0.5) == [None]


def test_two_voices_never_take_one_name():  # a diarization that split one person in two names the better half
    people = [person("Ann", [1, 0, 0])]
    assert names(identify.identify([unit([1, 0.4, 0]), unit([1, 0.2, 0])], people, 0.5)) == [None, "Ann"]


def test_a_voice_between_two_people_takes_neither():
    people = [person("Ann", [1, 0.02, 0]), person("Bea", [1, 0, 0.02])]
    assert names(identify.identify([unit([1, 0.01, 0.01])], people, 0.5)) == [None]  # within the margin


def test_a_persons_best_exemplar_counts():  # another microphone, another line
    ann = person("Ann", [1, 0, 0], [0, 1, 0])
    assert names(identify.identify([unit([0, 1, 0.1])], [ann], 0.9)) == ["Ann"]
    assert names(identify.identify([unit([0, 1, 0.1])], [person("Ann", [1, 0, 0])], 0.9)) == [None]


def test_a_speaker_mixing_two_voices_is_named_after_neither():
    rng = np.random.default_rng(0)
    ann, bea = unit([1, 0, 0, 0]), unit([0, 1, 0, 0])

    def windows(centre, n):
        return np.array([unit(centre + 0.05 * rng.standard_normal(4)) for _ in range(n)], dtype=np.float32)

    people = [person("Ann", ann)]
    only_ann = windows(ann, 40)
    ann_and_bea = np.vstack([windows(ann, 25), windows(bea, 15)])  # its centroid still nearest Ann's voice
    voice = unit(ann_and_bea.mean(axis=0) + np.array([0.6, 0, 0, 0]))
    assert names(identify.identify([unit(only_ann.mean(axis=0))], people, 0.5, pieces=[only_ann])) == ["Ann"]
    assert names(identify.identify([voice], people, 0.5)) == ["Ann"]  # without its pieces, the blend is named
    assert names(identify.identify([voice], people, 0.5, pieces=[ann_and_bea])) == [None]
    assert names(identify.identify([voice], people, 0.5, pieces=[None])) == ["Ann"]
    stray = np.vstack([windows(ann, 36), windows(bea, 4)])  # a handful of another's windows: still Ann
    assert not identify.mixed(stray, people[0], 0.5) and identify.mixed(ann_and_bea, people[0], 0.5)
    assert not identify.mixed(only_ann[:1], people[0], 0.5)


def test_a_voiceprint_is_never_printed():
    shown = repr(person("Ann", [0.123456, 0.654321, 0]))
    assert "Ann" in shown and "0.1" not in shown and "0.6" not in shown


def test_roles_decide_the_parties_before_names_and_order():
    assert parties(["Dana", "Chris"]) == ("Dana", "Chris")
    assert parties(["Dana", "Chris"], {"Chris": "agent"}) == ("Chris", "Dana")
    assert parties(["Dana", "Chris"], {"Dana": "Customer"}) == ("Chris", "Dana")
    assert parties(["Caller", "Agent"], {}) == ("Agent", "Caller")
    assert parties(["Agent", "Dana"], {"Dana": "agent"}) == ("Dana", "Agent")


@pytest.mark.parametrize("name", ["../../etc/passwd", "a/b", "a\\b", "bell\x07", "Speaker 2", "speaker", "",
                                  "   ", "x" * 65, "..", "Dana\t", "\tDana", "Dana\nReyes", " Dana", "Dana ",
                                  "Dana  Reyes", "\u202eanaD", "Da\u200bna", "Dana\u00a0Reyes"])
def test_a_name_that_cannot_be_a_persons_is_refused(name):
    with pytest.raises(E.ConfigurationError):
        store.check_name(name)


@pytest.mark.parametrize("role", ["agent\t", " agent", "agent ", "a\u200bgent", "", "x" * 33])
def test_a_role_that_cannot_be_one_is_refused(role):
    with pytest.raises(E.ConfigurationError):
        store.check_role(role)


def test_names_are_kept_as_said():
    assert store.check_name("Dana Reyes") == "Dana Reyes"
    assert store.check_name("Zoë O'Brien-Łukasz") == "Zoë O'Brien-Łukasz"


# ------------------------------------------------------------------ enrollment

def music(seconds: int = 30, rate: int = 16000) -> np.ndarray:
    """Hold music: a note of four harmonics every half second, decaying, with a drum hit on each."""
    rng = np.random.default_rng(0)
    out = np.zeros(seconds * rate)
    half = np.arange(rate // 2) / rate
    for i in range(seconds * 2):
        note = rng.choice([220, 247, 262, 294, 330, 349, 392, 440])
        start = i * rate // 2
        out[start:start + len(half)] = sum(np.exp(-3 * half) * np.sin(2 * np.pi * note * h * half) / h for h in range(1, 5))
        out[start:start + 800] += 0.3 * rng.standard_normal(800)
    return 0.3 * out / np.max(np.abs(out))


@pytest.fixture(scope="module")
def voices(tmp_path_factory) -> dict:
    """The sample calls' voices as files: each channel of payment.flac and of call.flac alone, call.flac mixed down."""
    folder = tmp_path_factory.mktemp("voices")
    payment, call = media.decode(SAMPLES / "payment.flac"), media.decode(SAMPLES / "call.flac")
    return {"agent": write_wav(folder / "agent.wav", payment.samples[0], 16000),
            "caller": write_wav(folder / "caller.wav", payment.samples[1], 16000),
            "agent-again": write_wav(folder / "agent-again.wav", call.samples[0], 16000),
            "mono-call": write_wav(folder / "mono-call.wav", call.samples.mean(axis=0), 16000),
            "silence": write_wav(folder / "silence.wav", np.zeros(16000 * 30), 16000),
            "tone": write_wav(folder / "tone.wav", 0.3 * np.sin(2 * np.pi * 440 * np.arange(16000 * 30) / 16000),
                              16000),
            "music": write_wav(folder / "music.wav", music(), 16000),
            "folder": folder}


@pytest.mark.slow
def test_enroll_list_get_delete(voices, home):
    def stored_prints() -> set[str]:
        rows = sqlite3.connect(home / "catalog.sqlite3").execute(
            "SELECT body_json FROM definitions WHERE kind = 'speaker'").fetchall()
        return {e["embedding"][:40] for (body,) in rows for e in json.loads(body)["exemplars"]}

    code, out = invoke("speakers", "enroll", "Dana Reyes", str(voices["agent"]), "--role", "agent")
    assert code == 0 and out["voiceprint"] == "created" and out["recordings"] == 1, out
    ever = stored_prints()
    assert out["speakerRole"] == "agent" and out["speechSeconds"] >= identify.MIN_ENROLL_SPEECH_S
    assert invoke("speakers", "enroll", "Dana Reyes", str(voices["agent"]))[1]["voiceprint"] == "unchanged"
    code, out = invoke("speakers", "enroll", "Dana Reyes", str(voices["agent-again"]))
    assert out["voiceprint"] == "added" and out["recordings"] == 2 and out["speakerRole"] == "agent"
    ever |= stored_prints()
    code, out = invoke("speakers", "enroll", "Dana Reyes", str(voices["agent-again"]), "--replace")
    assert out["voiceprint"] == "replaced" and out["recordings"] == 1 and out["speakerRole"] == "agent"
    ever |= stored_prints()
    assert len(ever) == 2
    code, listed = invoke("speakers", "list")
    assert [p["speakerName"] for p in listed["speakers"]] == ["Dana Reyes"]
    code, got = invoke("speakers", "get", "Dana Reyes")
    assert code == 0 and set(got) == {"speakerName", "speakerRole", "recordings", "speechSeconds", "dateCreated",
                                      "dateModified"}  # never the voiceprint
    assert (home / "catalog.sqlite3").stat().st_mode & 0o777 == 0o600
    assert invoke("speakers", "delete", "Dana Reyes")[0] == 0
    assert invoke("speakers", "get", "Dana Reyes")[0] == 1
    assert invoke("speakers", "delete", "Dana Reyes")[0] == 1
    for path in home.glob("catalog.sqlite3*"):  # overwritten, the replaced exemplar too, not only unlinked
        assert not any(prefix.encode() in path.read_bytes() for prefix in ever), path.name


@pytest.mark.slow
def test_one_recording_is_one_persons_voice(voices, home):
    assert invoke("speakers", "enroll", "Dana", str(voices["agent"]))[0] == 0
    code, out = invoke("speakers", "enroll", "Chris", str(voices["agent"]))
    assert code == 2 and "enrolled as 'Dana'" in out["warnings"][0]["message"]
    assert [p["speakerName"] for p in invoke("speakers", "list")[1]["speakers"]] == ["Dana"]


@pytest.mark.slow
def test_one_voice_is_one_person_however_the_recording_is_encoded(voices, home, tmp_path):
    """The same voice re-encoded (FLAC) and 6 dB quieter is another file, but the same person: refused."""
    track = media.decode(voices["agent"])
    quieter = tmp_path / "agent-quieter.flac"
    with av.open(str(quieter), "w", format="flac") as out:
        stream = out.add_stream("flac", rate=16000, layout="mono")
        pcm = (track.samples[0] * 0.5 * 32767).astype(np.int16).reshape(1, -1)
        frame = av.AudioFrame.from_ndarray(pcm, format="s16", layout="mono")
        frame.sample_rate = 16000
        for packet in [*stream.encode(frame), *stream.encode(None)]:
            out.mux(packet)
    assert invoke("speakers", "enroll", "Dana", str(voices["agent"]))[0] == 0
    code, out = invoke("speakers", "enroll", "Chris", str(quieter))
    message = out["warnings"][0]["message"]
    assert code == 2 and "'Dana''s" in message and "similarity" in message, out
    assert [p["speakerName"] for p in invoke("speakers", "list")[1]["speakers"]] == ["Dana"]
    code, out = invoke("speakers", "enroll", "Dana", str(quieter))  # the same person may add it
    assert code == 0 and out["recordings"] == 2
    assert invoke("speakers", "enroll", "Chris", str(voices["caller"]))[0] == 0  # another voice is another person


@pytest.mark.slow
@pytest.mark.parametrize("what", ["silence", "tone", "music"])
def test_silence_or_a_tone_gives_no_voiceprint(voices, home, what):
    code, out = invoke("speakers", "enroll", "Dana", str(voices[what]))
    assert code == 2 and "of speech" in out["warnings"][0]["message"], out
    assert invoke("speakers", "list")[1]["speakers"] == []


def test_what_is_not_a_recording_is_refused(tmp_path, home):
    (tmp_path / "notes.txt").write_text("not audio")
    for args in (("Dana", str(tmp_path / "notes.txt")), ("Dana", str(tmp_path / "missing.wav")),
                 ("a/b", str(tmp_path / "notes.txt"))):
        code, out = invoke("speakers", "enroll", *args)
        assert code == 2, (args, out)
    assert invoke("speakers", "list")[1]["speakers"] == []


@pytest.mark.slow
def test_a_two_hour_recording_is_enrolled_from_its_first_minutes(voices, home):
    long = voices["folder"] / "two-hours.flac"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(voices["agent"]), "-af", "apad=whole_dur=7200",
                    "-c:a", "flac", str(long)], check=True)
    assert media.probe(long).length_ms >= 7_200_000
    code, out = invoke("speakers", "enroll", "Dana", str(long))
    assert code == 0 and out["voiceprint"] == "created", out


# ------------------------------------------------------------------ naming in recordings

def enroll_both(voices, agent_role: str = "agent", caller_role: str = "caller") -> None:
    assert invoke("speakers", "enroll", "Dana Reyes", str(voices["agent"]), "--role", agent_role)[0] == 0
    assert invoke("speakers", "enroll", "Chris", str(voices["caller"]), "--role", caller_role)[0] == 0


def process(path, out, config: dict | None = None) -> dict:
    config_file = out.parent / f"{out.name}.yaml"
    config_file.write_text(yaml.safe_dump(config or {}))
    code, result = invoke("run", str(path), "--out", str(out), "--config", str(config_file), "--report")
    assert code == 0, result
    return json.loads((out / (path.stem + ".v3.json")).read_text())


def turn_names(item: dict) -> set[str]:
    return {w["w"] for w in item["transcript"]["words"] if w.get("m") == "turn"}


ANALYTICS = {"metrics": [{"metricGroupName": "talk-time-and-rate"}, {"metricGroupName": "overtalk"}],
             "speakerSentiments": True}


@pytest.mark.slow
def test_enrolled_speakers_are_named_in_every_output_of_a_one_channel_call(voices, home, tmp_path):
    enroll_both(voices)
    item = process(voices["mono-call"], tmp_path / "out", ANALYTICS)
    assert turn_names(item) == {"Dana Reyes", "Chris"}
    assert {a["speakerName"] for a in item["transcript"]["voiceActivity"]} == {"Dana Reyes", "Chris"}
    assert {s["speakerName"] for s in item["speakerSentiments"]} == {"Dana Reyes", "Chris"}
    for suffix in (".txt", ".srt", ".vtt", ".dfxp", ".report.html"):
        text = (tmp_path / "out" / f"mono-call{suffix}").read_text()
        assert "Dana Reyes" in text and "Chris" in text and "Speaker 1" not in text, suffix
    stored = sqlite3.connect(home / "catalog.sqlite3").execute(
        "SELECT body_json FROM definitions WHERE kind = 'speaker'").fetchall()
    prints = [e["embedding"] for (body,) in stored for e in json.loads(body)["exemplars"]]
    written = b"".join(p.read_bytes() for p in (tmp_path / "out").iterdir())
    values = [repr(float(x))[:10] for e in prints for x in store._decoded(e)[:8] if abs(x) > 0.01]
    assert prints and not any(p[:40].encode() in written for p in prints)  # as stored
    assert not any(v.encode() in written for v in values)  # nor as numbers


@pytest.mark.slow
def test_roles_decide_which_speaker_the_agent_metrics_describe(voices, home, tmp_path):
    def values(item: dict) -> dict[str, float]:
        return {m["metricName"]: m["metricValue"] for g in item["metrics"] for m in g["metricValues"]}

    unknown = values(process(voices["mono-call"], tmp_path / "unknown", ANALYTICS))
    enroll_both(voices)
    known = values(process(voices["mono-call"], tmp_path / "known", ANALYTICS))
    enroll_both(voices, agent_role="caller", caller_role="agent")  # the same voices, their roles swapped
    swapped = values(process(voices["mono-call"], tmp_path / "swapped", ANALYTICS))
    per_party = [name.removeprefix("agent-") for name in known if name.startswith("agent-")
                 and f"caller-{name.removeprefix('agent-')}" in known]
    assert len(per_party) >= 5
    assert all(unknown[f"{party}-{name}"] == 0 for name in per_party for party in ("agent", "caller"))  # who is who?
    assert known["agent-talk-rate"] > 0 and known["caller-talk-rate"] > 0
    for name in per_party:
        assert swapped[f"agent-{name}"] == known[f"caller-{name}"], name
        assert swapped[f"caller-{name}"] == known[f"agent-{name}"], name
    assert any(known[f"agent-{name}"] != known[f"caller-{name}"] for name in per_party)  # the swap is visible


@pytest.mark.slow
def test_unnamed_channels_of_a_two_channel_call_are_named_and_configured_names_stay(voices, home, tmp_path):
    assert invoke("speakers", "enroll", "Dana Reyes", str(voices["agent"]))[0] == 0
    item = process(SAMPLES / "call.flac", tmp_path / "default")
    assert turn_names(item) == {"Dana Reyes", "Caller"}  # the caller is not enrolled
    configured = {"ingest": {"channels": [{"speakerName": "Front desk"}, {}]}}
    assert turn_names(process(SAMPLES / "call.flac", tmp_path / "named", configured)) == {"Front desk", "Speaker2"}


@pytest.mark.slow
def test_naming_is_turned_off_per_run(voices, home, tmp_path):
    enroll_both(voices)
    item = process(voices["mono-call"], tmp_path / "out", {"speechproc": {"speakerIdentification": False}})
    assert turn_names(item) == {"Speaker 1", "Speaker 2"}


@pytest.mark.slow
def test_speakers_diarized_with_the_other_backend_are_named_from_their_words_speech(voices, home, tmp_path):
    enroll_both(voices)
    item = process(voices["mono-call"], tmp_path / "out", {"speechproc": {"speakerEmbedding": "resemblyzer"}})
    assert turn_names(item) == {"Dana Reyes", "Chris"}


def test_naming_renames_the_overlapped_speech_and_keeps_configured_diarized_names():
    import numpy as np

    from speechproc.conversation import Channel, Conversation, RecognizedWord
    from speechproc.stages.options import IdentifyOptions

    def conversation() -> Conversation:
        conv = Conversation("00000000-0000-0000-0000-000000000000", length_ms=4000)
        conv.channels = [Channel(0, "Speaker", np.zeros(16000, dtype=np.float32), 16000, named=False,
                                 default_name=True)]
        conv.recognized = [RecognizedWord("hello", 0, 900, 0.9, "Speaker 1"), RecognizedWord("hi", 1000, 1900, 0.9,
                                                                                           "Speaker 2")]
        conv.diarized_speakers = ["Speaker 1", "Speaker 2"]
        conv.diarized_voices = {"Speaker 1": unit([1, 0, 0]), "Speaker 2": unit([0, 1, 0])}
        conv.overlapped = [(800, 1000, "Speaker 2"), (1800, 2000, "Speaker 1")]
        return conv

    options = IdentifyOptions(people=(person("Dana", [1, 0.1, 0], role="agent"),), threshold=0.5)
    conv = conversation()
    identify.run(conv, options)
    assert [w.speaker for w in conv.recognized] == ["Dana", "Speaker 2"]
    assert conv.overlapped == [(800, 1000, "Speaker 2"), (1800, 2000, "Dana")]
    assert conv.speaker_roles == {"Dana": "agent"} and conv.diarized_speakers == ["Dana", "Speaker 2"]
    conv = conversation()
    identify.run(conv, options, diarized_named=True)  # speechproc.speakerNames named them: kept as given
    assert [w.speaker for w in conv.recognized] == ["Speaker 1", "Speaker 2"] and conv.speaker_roles == {}
    conv = conversation()
    conv.diarized_voices["Speaker 2"] = np.full(3, np.nan)  # a voice of NaN neither matches nor blocks
    identify.run(conv, options)
    assert [w.speaker for w in conv.recognized] == ["Dana", "Speaker 2"]


@pytest.mark.slow
def test_an_aligned_transcript_keeps_the_enrolled_names_roles_and_channels(voices, home, tmp_path):
    assert invoke("speakers", "enroll", "Dana Reyes", str(voices["agent"]), "--role", "agent")[0] == 0
    config = {"speechModel": {"features": ["voiceFeatures"]}, "metrics": [{"metricGroupName": "talk-time-and-rate"}]}
    item = process(SAMPLES / "call.flac", tmp_path / "out", config)
    assert turn_names(item) == {"Dana Reyes", "Caller"}
    human = tmp_path / "human.txt"
    lines: list[str] = []
    for w in item["transcript"]["words"]:  # the machine's own words, a line per turn with its speaker
        if w.get("m") == "turn":
            lines.append(w["w"] + ":")
        elif w.get("m") is None:
            lines[-1] += " " + w["w"]
    human.write_text("\n".join(lines) + "\n")
    code, out = invoke("media", "align", item["mediaId"], str(human))
    assert code == 0, out
    aligned = json.loads((tmp_path / "out" / "call.v3.json").read_text())
    assert turn_names(aligned) == {"Dana Reyes", "Caller"}
    rates = {m["metricName"]: m["metricValue"] for g in aligned["metrics"] for m in g["metricValues"]}
    assert rates["agent-talk-rate"] > 0 and rates["caller-talk-rate"] > 0  # Dana's channel has her words
