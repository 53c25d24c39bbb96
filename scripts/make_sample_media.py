#!/usr/bin/env python3
"""Synthesise the committed sample recordings with espeak-ng and sox.

Writes into sample_media/:
  call.flac       stereo call, agent on the left channel, caller on the right
  voicemail.wav   short mono clip, one speaker
  payment.flac    stereo call in which the caller reads out a (test) payment card number, its expiry
                  date and security code, then a phone number: for the detectors and redaction
  truth.json      the exact text and the timing (ms) of every synthesised turn

`--only NAME...` rebuilds just those recordings (call, voicemail, payment) and keeps the others' truth.

Re-running gives the same text and timings; the audio bytes depend on the
installed espeak-ng version.  Needs: espeak-ng, sox, numpy.
"""
from __future__ import annotations

import json
import subprocess
import tempfile
import wave
from pathlib import Path

import numpy as np

RATE = 22050  # espeak-ng's native rate; kept so later stages see a rate above 16 kHz
OUT = Path(__file__).resolve().parent.parent / "sample_media"
VOICES = {
    "Agent": ["-v", "en-us+m3", "-p", "35", "-s", "165"],
    "Caller": ["-v", "en-us+f4", "-p", "75", "-s", "155"],
    "Speaker": ["-v", "en-gb+m1", "-p", "50", "-s", "160"],
}

# (speaker, text, gap in ms before the turn starts; negative = overlaps the previous turn)
CALL_SCRIPT = [
    ("Agent", "Thank you for calling Acme support. My name is John. How can I help you today?", 600),
    ("Caller", "Hi John. I was charged twice for my internet bill this month, and I would like a refund.", 700),
    ("Agent", "I am sorry to hear that. Could you give me your account number, please?", 600),
    ("Caller", "Sure. It is four five seven two nine one.", 700),
    ("Agent", "Thank you. Let me check that for you. Please hold for a moment.", 600),
    ("Agent", "Thanks for waiting. I can see the double charge on your account.", 5200),
    ("Caller", "Oh good, I knew it.", -900),
    ("Agent", "I have issued a refund of forty dollars. It should reach you in three to five business days.", 700),
    ("Caller", "Thank you. Can you tell me why this happened?", 700),
    ("Agent", "It was an error in our billing system. It has been fixed now, so it will not happen again.", 600),
    ("Caller", "That is great news. Will I get an email confirmation?", 700),
    ("Agent", "Yes, you will receive an email within the hour. Is there anything else I can help you with?", 600),
    ("Caller", "No, that is all. Thank you very much for your help.", 700),
    ("Agent", "You are welcome. Have a wonderful day. Goodbye.", 600),
]
PAYMENT_SCRIPT = [
    ("Agent", "Thank you for calling Acme billing. How can I help you?", 600),
    ("Caller", "Hi. I would like to pay my bill by credit card.", 700),
    ("Agent", "Of course. Please read me the card number.", 600),
    # 4539 1488 0343 6467: a Luhn-valid test number, not a real card
    ("Caller", "It is four five three nine, one four eight eight, zero three four three, six four six seven.", 700),
    ("Agent", "Thank you. And the expiration date?", 600),
    ("Caller", "Oh four, twenty seven.", 700),
    ("Agent", "And the three digit security code on the back?", 600),
    ("Caller", "Seven three one.", 700),
    ("Agent", "Thank you. Your payment is complete. Your confirmation number is eight eight two one five.", 600),
    ("Caller", "Great. My phone number is five five five, two one two, four four three nine.", 700),
    ("Agent", "Noted. Have a nice day. Goodbye.", 600),
]
PAYMENT_CARD = "4539148803436467"
CHANNEL = {"Agent": 0, "Caller": 1}
VOICEMAIL_TEXT = (
    "Hello, this is Maria from the billing department. Please call me back "
    "when you have a moment. Thank you, and have a nice day."
)


def synthesise(speaker: str, text: str, workdir: Path) -> np.ndarray:
    """Speak `text` with the speaker's voice; return float32 samples trimmed of silence."""
    raw = workdir / "turn.wav"
    resampled = workdir / "turn22k.wav"
    subprocess.run(["espeak-ng", *VOICES[speaker], "-w", str(raw), text], check=True)
    subprocess.run(["sox", str(raw), "-r", str(RATE), "-c", "1", "-b", "16", str(resampled)], check=True)
    with wave.open(str(resampled)) as w:
        pcm = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float32) / 32768
    loud = np.flatnonzero(np.abs(pcm) > 0.01)
    return pcm[loud[0] : loud[-1] + 1]


def write_wav(path: Path, channels: list[np.ndarray]) -> None:
    data = np.stack(channels, axis=1)
    pcm = np.clip(np.round(data * 32767), -32768, 32767).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(len(channels))
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(pcm.tobytes())


def ms(samples: int) -> int:
    return round(samples * 1000 / RATE)


def make_call(workdir: Path, script: list | None = None, name: str = "call.flac") -> dict:
    clips = [(spk, text, gap, synthesise(spk, text, workdir)) for spk, text, gap in script or CALL_SCRIPT]
    turns, cursor = [], RATE // 2  # half a second of lead-in
    for spk, text, gap, pcm in clips:
        start = cursor + gap * RATE // 1000
        turns.append({"speaker": spk, "channel": CHANNEL[spk], "start": start, "pcm": pcm, "text": text})
        cursor = max(cursor, start + len(pcm))
    total = cursor + RATE  # one second of tail
    tracks = [np.zeros(total, np.float32), np.zeros(total, np.float32)]
    for t in turns:
        tracks[t["channel"]][t["start"] : t["start"] + len(t["pcm"])] += t["pcm"] * 0.8
    wav = workdir / "call.wav"
    write_wav(wav, tracks)
    subprocess.run(["sox", str(wav), str(OUT / name)], check=True)
    return {
        "file": name,
        "channels": 2,
        "sample_rate": RATE,
        "length_ms": ms(total),
        "speakers": {"0": "Agent", "1": "Caller"},
        "turns": [
            {"speaker": t["speaker"], "channel": t["channel"], "s": ms(t["start"]),
             "e": ms(t["start"] + len(t["pcm"])), "text": t["text"]}
            for t in turns
        ],
    }


def make_voicemail(workdir: Path) -> dict:
    pcm = synthesise("Speaker", VOICEMAIL_TEXT, workdir)
    lead = RATE // 2
    track = np.zeros(len(pcm) + 2 * lead, np.float32)
    track[lead : lead + len(pcm)] = pcm * 0.8
    wav = workdir / "voicemail22k.wav"
    write_wav(wav, [track])
    subprocess.run(["sox", str(wav), "-r", "16000", str(OUT / "voicemail.wav")], check=True)
    return {
        "file": "voicemail.wav",
        "channels": 1,
        "sample_rate": 16000,
        "length_ms": ms(len(track)),
        "speakers": {"0": "Speaker"},
        "turns": [{"speaker": "Speaker", "channel": 0, "s": ms(lead), "e": ms(lead + len(pcm)), "text": VOICEMAIL_TEXT}],
    }


def make_payment(workdir: Path) -> dict:
    return {**make_call(workdir, PAYMENT_SCRIPT, "payment.flac"), "card_number": PAYMENT_CARD}


MAKERS = {"call": make_call, "voicemail": make_voicemail, "payment": make_payment}


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="+", choices=sorted(MAKERS), help="rebuild only these recordings")
    wanted = parser.parse_args().only or list(MAKERS)
    OUT.mkdir(exist_ok=True)
    truth_file = OUT / "truth.json"
    old = {r["file"]: r for r in json.loads(truth_file.read_text())["recordings"]} if truth_file.exists() else {}
    files = {"call": "call.flac", "voicemail": "voicemail.wav", "payment": "payment.flac"}
    recordings = []
    with tempfile.TemporaryDirectory() as tmp:
        for key, make in MAKERS.items():
            if key in wanted:
                recordings.append(make(Path(tmp)))
            elif files[key] in old:
                recordings.append(old[files[key]])
    truth_file.write_text(json.dumps({"recordings": recordings}, indent=2) + "\n")
    for rec in recordings:
        print(f"{rec['file']}: {rec['length_ms'] / 1000:.1f} s, {len(rec['turns'])} turns")


if __name__ == "__main__":
    main()
