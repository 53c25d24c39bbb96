#!/usr/bin/env python3
"""The PII detector on recognised speech: how much of the personal data the recogniser heard is found, and how
much of the rest of the talk is kept.

Calls are built from espeak-ng speech (the agent on the left channel, the caller on the right, two voices
each drawn per call): the agent asks for the caller's name, date of birth, address, e-mail, phone and
account numbers, the caller answers with items drawn from seeded lists (names of several origins, dates said
as words or digits, street addresses with city and ZIP, e-mail addresses read out with "at" and "dot", phone
and account numbers read digit by digit), and the call goes on about a billing problem. Each call runs
through speechproc's pipeline (`api.process`, tiny.en) with `{"detectorName": "PII"}` and no redactor.

Scoring: the recognised words of each channel are aligned to the words said (Levenshtein); a recognised word
aligned to a word of a personal-data item is personal data heard, any other aligned word is other talk.
Recall per kind: the share of personal-data words heard that lie inside a detection of any kind; kept: the
share of other words outside every detection. A word the recogniser left out cannot leak and does not count.

Usage: python benchmarks/pii.py [--calls 12] [--seed 29] [--json benchmarks/pii.result.json]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import wave
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

FIRST = ["Dana", "Maria", "James", "Priya", "Oliver", "Fatima", "Lucas", "Mei", "Kwame", "Sofia", "Ahmed", "Grace"]
LAST = ["Reyes", "Johnson", "Kowalski", "Nguyen", "Okafor", "Schmidt", "Patel", "Brennan", "Lindqvist", "Moreau",
        "Haddad", "Tanaka"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
STREETS = ["Maple Street", "Oak Avenue", "Cedar Lane", "Lake Road", "Hill Drive", "Park Boulevard"]
CITIES = ["Springfield", "Riverside", "Fairview", "Madison", "Georgetown", "Clinton"]
DOMAINS = ["gmail", "yahoo", "outlook", "hotmail"]
DIGIT = "zero one two three four five six seven eight nine".split()
VOICES = [["-v", "en-us+m3", "-p", "35", "-s", "155"], ["-v", "en-us+f4", "-p", "70", "-s", "150"],
          ["-v", "en-us+m1", "-p", "45", "-s", "160"], ["-v", "en-us+f2", "-p", "60", "-s", "150"]]
RATE = 16000


def digits(n: int, rng: random.Random) -> str:
    return " ".join(DIGIT[rng.randrange(10)] for _ in range(n))


def call_script(rng: random.Random) -> list[tuple[str, list[tuple[str, str | None]]]]:
    """(speaker, [(text, kind or None)]) turns: the caller's answers carry their items' kinds."""
    first, last = rng.choice(FIRST), rng.choice(LAST)
    month, day, year = rng.choice(MONTHS), rng.randrange(1, 29), rng.randrange(1950, 2004)
    date = rng.choice([f"{month} {day}, {year}", f"{day:02d}/{MONTHS.index(month) + 1:02d}/{year}"])
    number = rng.randrange(10, 9999)
    street, city, zipcode = rng.choice(STREETS), rng.choice(CITIES), "".join(str(rng.randrange(10)) for _ in range(5))
    email = f"{first.lower()} dot {last.lower()} at {rng.choice(DOMAINS)} dot com"
    phone = f"{digits(3, rng)}, {digits(3, rng)}, {digits(4, rng)}"
    account = digits(8, rng)
    return [
        ("Agent", [("Thank you for calling customer support. Can I have your full name please?", None)]),
        ("Caller", [("Yes, it's", None), (f"{first} {last}.", "name")]),
        ("Agent", [("Thank you. Can you confirm your date of birth?", None)]),
        ("Caller", [("Sure, it's", None), (f"{date}.", "dateOfBirth")]),
        ("Agent", [("And the address on the account?", None)]),
        ("Caller", [("I live at", None), (f"{number} {street}, {city}, {zipcode}.", "address")]),
        ("Agent", [("What is the best email address for you?", None)]),
        ("Caller", [("It's", None), (f"{email}.", "email")]),
        ("Agent", [("And a phone number where we can reach you?", None)]),
        ("Caller", [(f"{phone}.", "phone")]),
        ("Agent", [("Thank you. Do you have your account number?", None)]),
        ("Caller", [("Yes, it is", None), (f"{account}.", "account")]),
        ("Agent", [("I see the problem. You were charged twice for your internet bill this month.", None)]),
        ("Caller", [("Yes, that's why I'm calling. I would like a refund please.", None)]),
        ("Agent", [("I have issued a refund. It should reach you in three to five business days.", None)]),
        ("Caller", [("That is great news. Thank you very much for your help today.", None)]),
    ]


def speak(text: str, voice: list[str], folder: Path) -> np.ndarray:
    raw, wav = folder / "raw.wav", folder / "turn.wav"
    subprocess.run(["espeak-ng", *voice, "-w", str(raw), text], check=True)
    subprocess.run(["sox", "-D", str(raw), "-r", str(RATE), "-c", "1", "-b", "16", str(wav)], check=True)
    with wave.open(str(wav)) as f:
        return np.frombuffer(f.readframes(f.getnframes()), dtype=np.int16).astype(np.float32) / 32768


def build_call(path: Path, script: list, voices: dict[str, list[str]], folder: Path) -> None:
    """Two channels (Agent left, Caller right), turn after turn with 0.6 s between."""
    channels = {"Agent": [], "Caller": []}
    for speaker, parts in script:
        audio = speak(" ".join(text for text, _ in parts), voices[speaker], folder)
        gap = np.zeros(int(0.6 * RATE), dtype=np.float32)
        for name in channels:
            channels[name] += [audio if name == speaker else np.zeros_like(audio), gap]
    left, right = np.concatenate(channels["Agent"]), np.concatenate(channels["Caller"])
    pcm = (np.stack([left, right], axis=1) * 32767).astype(np.int16)
    with wave.open(str(path), "wb") as f:
        f.setnchannels(2)
        f.setsampwidth(2)
        f.setframerate(RATE)
        f.writeframes(pcm.tobytes())


def reference(script: list, speaker: str) -> list[tuple[str, str | None]]:
    """The words one speaker said, each with its item's kind (None for other talk)."""
    from vocabulary import norm

    out = []
    for who, parts in script:
        if who == speaker:
            out += [(norm(word), kind) for text, kind in parts for word in text.split() if norm(word)]
    return out


def score(calls: list[tuple[list, dict]]) -> dict:
    from vocabulary import align, norm

    found = {kind: [0, 0] for kind in ("name", "dateOfBirth", "address", "email", "phone", "account")}
    kept = [0, 0]
    for script, item in calls:
        detections = [(seg["speakerName"], o["s"], o["e"]) for det in item["prediction"]["detectors"][0]["detections"]
                      for seg in det["detectedSegments"] for o in seg["occurrences"]]
        for speaker in ("Agent", "Caller"):
            heard = [w for w in item["_words"] if w["speaker"] == speaker]
            said = reference(script, speaker)
            hyp = [norm(w["w"]) for w in heard]
            pairs = align([word for word, _ in said], hyp)
            r = h = 0
            for ref_word, hyp_word in pairs:
                if ref_word is not None and hyp_word is not None:
                    kind = said[r][1]
                    w = heard[h]
                    inside = any(sp == speaker and (w["s"] < e and w["e"] > s or w["s"] == w["e"] and s <= w["s"] <= e)
                                 for sp, s, e in detections)  # as the redactor counts a word
                    if kind is None:
                        kept[0] += not inside
                        kept[1] += 1
                    else:
                        found[kind][0] += inside
                        found[kind][1] += 1
                r += ref_word is not None
                h += hyp_word is not None
    return {"recall": {k: round(a / b, 3) if b else None for k, (a, b) in found.items()},
            "personal_words_heard": {k: b for k, (_, b) in found.items()},
            "recall_all": round(sum(a for a, _ in found.values()) / max(1, sum(b for _, b in found.values())), 3),
            "other_words_kept": round(kept[0] / max(1, kept[1]), 3), "other_words": kept[1]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=12)
    parser.add_argument("--seed", type=int, default=29, help="draws the calls (29: the calls the rules were set on)")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--show", action="store_true", help="print each call's words, detections in [brackets]")
    args = parser.parse_args()
    from speechproc import api, results
    from speechproc.config import v3

    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["SPEECHPROC_HOME"] = str(Path(tmp) / "home")
        folder, scratch = Path(tmp) / "calls", Path(tmp) / "scratch"
        folder.mkdir()
        scratch.mkdir()
        scripts = {}
        for n in range(args.calls):
            script = call_script(rng)
            agent, caller = rng.sample(range(len(VOICES)), 2)
            build_call(folder / f"call{n:02d}.wav", script, {"Agent": VOICES[agent], "Caller": VOICES[caller]},
                       scratch)
            scripts[f"call{n:02d}.wav"] = script
        settings = v3.validate({"prediction": {"detectors": [{"detectorName": "PII"}]}})
        batch = api.process([folder], settings, out_dir=Path(tmp) / "out", force=True, deliver=False)
        calls = []
        for item in batch.items:
            media = results.load(item.outputs["json"])
            words, speaker = [], None
            for w in media["transcript"]["words"]:
                if w.get("m") == "turn":
                    speaker = w["w"]
                elif w.get("m") is None:
                    words.append({**w, "speaker": speaker})
            media["_words"] = words
            calls.append((scripts[Path(item.path).name], media))
    if args.show:
        for _, media in calls:
            spans = [(seg["speakerName"], o["s"], o["e"], det["detectorClassLabel"])
                     for det in media["prediction"]["detectors"][0]["detections"]
                     for seg in det["detectedSegments"] for o in seg["occurrences"]]
            print(" ".join(f"[{w['w']}]" if any(sp == w["speaker"] and (w["s"] < e and w["e"] > s or w["s"] == w["e"] and
                                                                  s <= w["s"] <= e) for sp, s, e, _ in spans)
                           else w["w"] for w in media["_words"]))
    result = {"command": f"python benchmarks/pii.py --calls {args.calls} --seed {args.seed}", "model": "tiny.en",
              "calls": args.calls, "seed": args.seed, **score(calls)}
    print(json.dumps(result, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
