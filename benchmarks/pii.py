#!/usr/bin/env python3
"""The PII detector on recognised speech: how much of the personal data the recogniser heard is found, and how
much of the rest of the talk is kept.

Calls are built from espeak-ng speech (the agent on the left channel, the caller on the right, two voices
each drawn per call). Six items of the caller's come up in each call: name, date of birth, address, e-mail,
phone and account number, drawn from seeded lists (names of several origins, dates said as words or digits,
street addresses with city and ZIP, e-mail addresses read out with "at" and "dot" or spelled letter by
letter, phone numbers in groups or in one run, account numbers digit by digit). Each item comes up one of
three ways, drawn per item: the agent asks and the caller answers; the caller says it unprompted in a
sentence of their own ("You can call me back at ..."); or the agent asks, then reads it back ("Let me read
that back: ... Is that correct?"), the agent's words counting as personal data too. The call then goes on
about a billing problem. Each call runs through speechproc's pipeline (`api.process`, tiny.en) with
`{"detectorName": "PII"}` and no redactor.

Scoring: the recognised words of each channel are aligned to the words said (Levenshtein; a substitution
costs more the less alike the two words are, so that of equally short alignments the one pairing alike
words counts); a recognised word aligned to a word of a personal-data item is personal data heard, any
other aligned word is other talk. Recall per kind: the share of personal-data words heard that lie inside
a detection of any kind; kept: the share of other words outside every detection. A word the recogniser left
out cannot leak and does not count.

Usage: python benchmarks/pii.py [--calls 16] [--seed 41] [--json benchmarks/pii.result.json] [--keep DIR]
       python benchmarks/pii.py --rescore DIR    # the kept calls' recognised words through today's rules
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


FORMS = ("asked", "asked", "volunteered", "read back")  # how each item comes up in a call, drawn per item


def spelled(word: str) -> str:
    return " ".join(word.upper())


def call_script(rng: random.Random) -> list[tuple[str, list[tuple[str, str | None]]]]:
    """(speaker, [(text, kind or None)]) turns; the words of a personal-data item carry its kind, whoever says
    them. Each item comes up in one of three ways, drawn per item: the agent asks and the caller answers;
    the caller says it unprompted in a sentence of their own; or the agent asks and then reads it back."""
    first, last = rng.choice(FIRST), rng.choice(LAST)
    month, day, year = rng.choice(MONTHS), rng.randrange(1, 29), rng.randrange(1950, 2004)
    date = rng.choice([f"{month} {day}, {year}", f"{day:02d}/{MONTHS.index(month) + 1:02d}/{year}"])
    number = rng.randrange(10, 9999)
    street, city, zipcode = rng.choice(STREETS), rng.choice(CITIES), "".join(str(rng.randrange(10)) for _ in range(5))
    domain = rng.choice(DOMAINS)
    email = rng.choice([f"{first.lower()} dot {last.lower()} at {domain} dot com",
                        f"{spelled(first)} dot {spelled(last)} at {domain} dot com"])
    phone = rng.choice([f"{digits(3, rng)}, {digits(3, rng)}, {digits(4, rng)}", digits(10, rng)])
    account = digits(8, rng)
    items = {  # kind: (value, agent's question, caller's preamble, a sentence saying it unprompted)
        "name": (f"{first} {last}", "Can I have your full name please?", "Yes, it's",
                 ("Hi, this is", "and I'm calling about my internet bill.")),
        "dateOfBirth": (date, "Can you confirm your date of birth?", "Sure, it's",
                        ("Also, I was born on", "in case you need it.")),
        "address": (f"{number} {street}, {city}, {zipcode}", "And the address on the account?", "I live at",
                    ("I moved to", "last month, by the way.")),
        "email": (email, "What is the best email address for you?", "It's",
                  ("Please send the receipt to", "when it's done.")),
        "phone": (phone, "And a phone number where we can reach you?", "",
                  ("You can call me back at", "if we get cut off.")),
        "account": (account, "Do you have your account number?", "Yes, it is",
                    ("My account number is", "if that helps.")),
    }
    script: list[tuple[str, list[tuple[str, str | None]]]] = [
        ("Agent", [("Thank you for calling customer support. How can I help you today?", None)])]
    for kind, (value, question, preamble, (before, after)) in items.items():
        form = rng.choice(FORMS)
        if form == "volunteered":
            script.append(("Caller", [(before, None), (f"{value},", kind), (after, None)]))
            script.append(("Agent", [("Okay, thank you.", None)]))
            continue
        script.append(("Agent", [(question, None)]))
        script.append(("Caller", [(preamble, None), (f"{value}.", kind)] if preamble else [(f"{value}.", kind)]))
        if form == "read back":
            script.append(("Agent", [("Let me read that back.", None), (f"{value}.", kind),
                                     ("Is that correct?", None)]))
            script.append(("Caller", [("Yes, that's right.", None)]))
    script += [
        ("Agent", [("I see the problem. You were charged twice for your internet bill this month.", None)]),
        ("Caller", [("Yes, that's why I'm calling. I would like a refund please.", None)]),
        ("Agent", [("I have issued a refund. It should reach you in three to five business days.", None)]),
        ("Caller", [("That is great news. Thank you very much for your help today.", None)]),
    ]
    return script


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
            out += [(norm(word), kind) for text, kind in parts for word in text.replace("/", " ").split() if norm(word)]
    return out


def unlikeness(a: str, b: str) -> float:
    """What pairing two words costs in the alignment: 0 alike, else 1 to 1.9 by how unlike they are (below an
    insertion and a deletion, 2): of the equally short alignments, the one that pairs alike words ("It's"
    with "It's", not with a spelled letter the recogniser dropped)."""
    from difflib import SequenceMatcher

    return 0.0 if a == b else 1.9 - 0.9 * SequenceMatcher(None, a, b).ratio()


def _spans(item: dict) -> list[tuple[str, int, int]]:
    return [(seg["speakerName"], o["s"], o["e"]) for det in item["prediction"]["detectors"][0]["detections"]
            for seg in det["detectedSegments"] for o in seg["occurrences"]]


def _inside(w: dict, speaker: str, spans: list[tuple[str, int, int]]) -> bool:
    """Whether a detection covers the word, as the redactor counts it (a word of no duration at its edge too)."""
    return any(sp == speaker and (w["s"] < e and w["e"] > s or w["s"] == w["e"] and s <= w["s"] <= e)
               for sp, s, e in spans)


def _marked(script: list, item: dict) -> list[tuple[str, dict, str | None, bool]]:
    """(speaker, recognised word, kind of the word said there or None, inside a detection) for every
    recognised word aligned to a word said; a word the recogniser left out cannot leak and is not listed."""
    from vocabulary import align, norm

    spans = _spans(item)
    out = []
    for speaker in ("Agent", "Caller"):
        heard = [w for w in item["_words"] if w["speaker"] == speaker and w.get("m") is None]
        said = reference(script, speaker)
        pairs = align([word for word, _ in said], [norm(w["w"]) for w in heard], unlikeness)
        r = h = 0
        for ref_word, hyp_word in pairs:
            if ref_word is not None and hyp_word is not None:
                out.append((speaker, heard[h], said[r][1], _inside(heard[h], speaker, spans)))
            r += ref_word is not None
            h += hyp_word is not None
    return out


def score(calls: list[tuple[list, dict]]) -> dict:
    found = {kind: [0, 0] for kind in ("name", "dateOfBirth", "address", "email", "phone", "account")}
    kept = [0, 0]
    for script, item in calls:
        for _, _, kind, inside in _marked(script, item):
            if kind is None:
                kept[0] += not inside
                kept[1] += 1
            else:
                found[kind][0] += inside
                found[kind][1] += 1
    return {"recall": {k: round(a / b, 3) if b else None for k, (a, b) in found.items()},
            "personal_words_heard": {k: b for k, (_, b) in found.items()},
            "recall_all": round(sum(a for a, _ in found.values()) / max(1, sum(b for _, b in found.values())), 3),
            "other_words_kept": round(kept[0] / max(1, kept[1]), 3), "other_words": kept[1]}


def spoken(media: dict) -> list[dict]:
    """The transcript's words and punctuation, each with its speaker (from the turn markers)."""
    out, speaker = [], None
    for w in media["transcript"]["words"]:
        if w.get("m") == "turn":
            speaker = w["w"]
        else:
            out.append({**w, "speaker": speaker})
    return out


def rescored(kept: dict) -> tuple[list, dict]:
    """A kept call with its detections found again from its recognised words."""
    from speechproc.conversation import Word
    from speechproc.stages import pii
    from speechproc.stages.detect import load_spacy

    media = kept["media"]
    media["_words"] = spoken(media)
    tokens = [Word(p=w["p"], c=w.get("c", 1.0), s=w["s"], e=w["e"], w=w["w"], m=w.get("m"), speaker=w["speaker"])
              for w in media["_words"]]
    tokens.sort(key=lambda w: (w.s, w.p))
    media["prediction"]["detectors"][0]["detections"] = [
        {"detectorClassLabel": d.label, "detectedSegments": [
            {"speakerName": speaker, "occurrences": [{"s": s, "e": e} for s, e in spans]}
            for speaker, spans in d.segments.items()]} for d in pii.find(tokens, pii.KINDS, load_spacy())]
    return [tuple(turn[0:1]) + ([tuple(part) for part in turn[1]],) for turn in kept["script"]], media


def show(script: list, item: dict) -> str:
    """The call's words turn by turn: personal data found [in brackets], personal data left <<like this>>,
    other talk taken for personal data {like this}; a word the alignment pairs with nothing said is in
    brackets when found."""
    marks = {id(w): (kind, inside) for _, w, kind, inside in _marked(script, item)}
    spans = _spans(item)
    lines, speaker = [], None
    for w in item["_words"]:
        if w.get("m") is not None:
            continue
        if w["speaker"] != speaker:
            speaker = w["speaker"]
            lines.append(f"{speaker[0]}:")
        kind, inside = marks.get(id(w), (None, _inside(w, speaker, spans)))
        text = w["w"]
        if id(w) not in marks:  # a word the alignment pairs with nothing said: marked only when found
            lines[-1] += " " + (f"[{text}]" if inside else text)
        else:
            lines[-1] += " " + (f"[{text}]" if kind and inside else f"<<{text}>>" if kind else
                                "{" + text + "}" if inside else text)
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=16)
    parser.add_argument("--seed", type=int, default=41,
                        help="draws the calls (41, 31, 53, 67, 71: calls the rules were set on; 83: held out)")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--show", action="store_true", help="print each call's words, marked as found or left")
    parser.add_argument("--keep", help="keep each call's script and result here, for --rescore")
    parser.add_argument("--rescore", help="score the calls kept in this folder again, with the detector as it is now")
    args = parser.parse_args()
    if args.rescore:
        kept = sorted(Path(args.rescore).glob("*.json"))
        if not kept:
            sys.exit(f"{args.rescore}: no kept calls (*.json written by --keep) there")
        calls = [rescored(json.loads(path.read_text())) for path in kept]
        finish(args, calls)
        return
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
            media["_words"] = spoken(media)
            calls.append((scripts[Path(item.path).name], media))
            if args.keep:
                Path(args.keep).mkdir(parents=True, exist_ok=True)
                kept = {"script": scripts[Path(item.path).name], "media": media}
                (Path(args.keep) / f"{Path(item.path).stem}.json").write_text(json.dumps(kept))
    finish(args, calls)


def finish(args: argparse.Namespace, calls: list[tuple[list, dict]]) -> None:
    if args.show:
        for script, media in calls:
            print(show(script, media) + "\n")
    command = f"--rescore {args.rescore}" if args.rescore else f"--calls {args.calls} --seed {args.seed}"
    result = {"command": f"python benchmarks/pii.py {command}", "model": "tiny.en",
              "calls": args.calls, "seed": args.seed, **score(calls)}
    print(json.dumps(result, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
