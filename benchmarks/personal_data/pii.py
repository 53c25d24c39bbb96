#!/usr/bin/env python3
"""The PII detector on recognised speech: how much of the personal data the recogniser heard is found, and how
much of the rest of the talk is kept.

The calls are those of benchmarks/personal_data/pii_calls.json (`benchmarks/personal_data/pii_calls.py` wrote it: twelve
conversation flows, from data asked for and answered to data volunteered, read back, corrected, spelled, spread over turns,
said as a whole address in any order, banking details, identity documents, other people's names, and calls
with none), 36 dev calls to set the rules on and 36 test calls held back. Each is spoken by espeak-ng (the
agent on the left channel, the caller on the right, voices drawn per call) and runs through speechproc's
pipeline (`api.process`, tiny.en) with `{"detectorName": "PII"}` and no redactor.

Scoring: the recognised words of each channel are aligned to the words said (Levenshtein; a substitution
costs more the less alike the two words are, so that of equally short alignments the one pairing alike
words counts); a recognised word aligned to a word of a personal-data item is personal data heard, any
other aligned word is other talk. Per kind: recall, the share of its words heard that lie inside a detection
of any kind; wrongly taken, the other words inside a detection of that kind; leaks, the calls with a word of
that kind heard and left outside every detection. Kept: the share of other words outside every detection.
A word the recogniser left out cannot leak and does not count.

Usage: python benchmarks/personal_data/pii.py --split dev|test|all [--strictness strict] [--json FILE] [--keep DIR] [--show]
       python benchmarks/personal_data/pii.py --rescore DIR [--split ...]   # kept calls' recognised words, today's rules
       python benchmarks/personal_data/pii.py --rescore DIR --presidio      # Presidio's analyzer beside the rules
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import subprocess
import sys
import tempfile
import wave
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks" / "recognition"))  # vocabulary.py: norm, align

VOICES = [["-v", "en-us+m3", "-p", "35", "-s", "155"], ["-v", "en-us+f4", "-p", "70", "-s", "150"],
          ["-v", "en-us+m1", "-p", "45", "-s", "160"], ["-v", "en-us+f2", "-p", "60", "-s", "150"]]
RATE = 16000
CALLS = Path(__file__).resolve().parent / "pii_calls.json"
KINDS = ("name", "dateOfBirth", "address", "email", "phone", "account", "bankRouting", "pin", "driversLicense",
         "passport")
LEAK_KINDS = ("address", "dateOfBirth")  # kinds of which no call may leak a word


def scripted(split: str) -> list[dict]:
    """The calls of a half (dev, test) or of both (all), from benchmarks/personal_data/pii_calls.json."""
    halves = json.loads(CALLS.read_text())
    chosen = list(halves) if split == "all" else [split]
    return [{**call, "script": [(speaker, [tuple(part) for part in parts]) for speaker, parts in call["script"]]}
            for half in chosen for call in halves[half]]


def voice_args(voice: int | list[str]) -> list[str]:
    """espeak-ng's arguments for a call's voice: an index into VOICES, or the arguments themselves."""
    return VOICES[voice] if isinstance(voice, int) else [str(arg) for arg in voice]


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


def _spans(item: dict) -> list[tuple[str, str, int, int]]:
    """(label, speaker, start, end) of every detection's occurrence."""
    return [(det["detectorClassLabel"], seg["speakerName"], o["s"], o["e"])
            for detector in item["prediction"]["detectors"] for det in detector["detections"]
            for seg in det["detectedSegments"] for o in seg["occurrences"]]


def _inside(w: dict, speaker: str, spans: list[tuple[str, str, int, int]]) -> str | None:
    """The label of a detection that covers the word, as the redactor counts it (a word of no duration at its
    edge too), or None."""
    return next((label for label, sp, s, e in spans
                 if sp == speaker and (w["s"] < e and w["e"] > s or w["s"] == w["e"] and s <= w["s"] <= e)), None)


def _marked(script: list, item: dict) -> list[tuple[str, dict, str | None, str | None]]:
    """(speaker, recognised word, kind of the word said there or None, label of a detection covering it or
    None) for every recognised word aligned to a word said; a word the recogniser left out is not listed."""
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
    """Recall, words heard, words wrongly taken and calls leaking, per kind; other talk kept."""
    found = {kind: [0, 0] for kind in KINDS}
    wrong = dict.fromkeys(KINDS, 0)
    leaking = {kind: set() for kind in KINDS}
    kept = [0, 0]
    for n, (script, item) in enumerate(calls):
        for _, _, kind, label in _marked(script, item):
            if kind is None:
                kept[0] += label is None
                kept[1] += 1
                if label in wrong:
                    wrong[label] += 1
            else:
                found[kind][0] += label is not None
                found[kind][1] += 1
                if label is None:
                    leaking[kind].add(n)
    leaks = {k: len(v) for k, v in leaking.items()}
    return {"recall": {k: round(a / b, 4) if b else None for k, (a, b) in found.items()},
            "personal_words_heard": {k: b for k, (_, b) in found.items()},
            "other_words_taken": wrong, "calls_leaking": leaks,
            "calls_leaking_address_or_birth": len(set().union(*(leaking[k] for k in LEAK_KINDS))),
            "calls_leaking_any": len(set().union(*leaking.values())),
            "recall_all": round(sum(a for a, _ in found.values()) / max(1, sum(b for _, b in found.values())), 4),
            "other_words_kept": round(kept[0] / max(1, kept[1]), 4), "other_words": kept[1]}


def spoken(media: dict) -> list[dict]:
    """The transcript's words and punctuation, each with its speaker (from the turn markers)."""
    out, speaker = [], None
    for w in media["transcript"]["words"]:
        if w.get("m") == "turn":
            speaker = w["w"]
        else:
            out.append({**w, "speaker": speaker})
    return out


def rescored(kept: dict, finder=None, strictness: str = "balanced") -> tuple[list, dict]:
    """A kept call with its detections found again from its recognised words: by today's rules in the mode
    `strictness`, or by `finder(tokens)` (a list of DetectedClass)."""
    from speechproc.conversation import Token
    from speechproc.stages.personal_data.detect import personal_data

    media = kept["media"]
    media["_words"] = spoken(media)
    tokens = [Token(p=w["p"], c=w.get("c", 1.0), s=w["s"], e=w["e"], w=w["w"], m=w.get("m"), speaker=w["speaker"])
              for w in media["_words"]]
    tokens.sort(key=lambda w: (w.s, w.p))
    found = finder(tokens) if finder else personal_data(tokens, strict=strictness)
    media["prediction"]["detectors"] = [{"detections": [
        {"detectorClassLabel": d.label, "detectedSegments": [
            {"speakerName": speaker, "occurrences": [{"s": s, "e": e} for s, e in spans]}
            for speaker, spans in d.segments.items()]} for d in found]}]
    return [(speaker, [tuple(part) for part in parts]) for speaker, parts in kept["script"]], media


@functools.lru_cache(maxsize=1)
def names_finder(model: str, strictness: str):
    """The detector with another spaCy pipeline (a folder or an installed name) tagging the names."""
    import spacy

    from speechproc.stages.personal_data import pii
    from speechproc.stages.personal_data.detect import question_reader
    from speechproc.stages.personal_data.pii_questions import Askers
    from speechproc.stages.personal_data.pii_strict import STRICT_SIMILARITY

    nlp = spacy.load(model, exclude=["parser", "lemmatizer", "senter"])

    def find(tokens):
        askers = Askers(question_reader(), STRICT_SIMILARITY)
        return pii.find(tokens, pii.KINDS, nlp, askers.ask, strictness, askers.broad_ask)
    return find


def patterns_only(tokens):
    """The detector with its question patterns alone (no sentence encoder reading questions)."""
    from speechproc.stages.personal_data import pii
    from speechproc.stages.personal_data.detect import load_spacy

    return pii.find(tokens, pii.KINDS, load_spacy())


PRESIDIO_KINDS = {"PERSON": "name", "DATE_TIME": "dateOfBirth", "LOCATION": "address", "EMAIL_ADDRESS": "email",
                  "PHONE_NUMBER": "phone", "US_BANK_NUMBER": "account", "ABA_ROUTING_NUMBER": "bankRouting",
                  "US_DRIVER_LICENSE": "driversLicense", "US_PASSPORT": "passport"}


@functools.lru_cache(maxsize=2)
def presidio_finder(with_rules: bool):
    """Presidio's analyzer (its recognisers, the same spaCy English model) on each turn's words, alone or
    added to the rules."""
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider

    from speechproc.stages.personal_data.detect import load_spacy, personal_data
    from speechproc.stages.personal_data.pii_words import detection

    provider = NlpEngineProvider(nlp_configuration={
        "nlp_engine_name": "spacy", "models": [{"lang_code": "en", "model_name": str(load_spacy().path)}]})
    engine = AnalyzerEngine(nlp_engine=provider.create_engine())

    def find(tokens):
        words = [t for t in tokens if t.is_word]
        out = personal_data(tokens) if with_rules else []
        turn: list = []
        for w in words + [None]:
            if turn and (w is None or w.speaker != turn[0].speaker):
                text, offsets = "", []
                for t in turn:
                    offsets.append(len(text))
                    text += t.w + " "
                for hit in engine.analyze(text=text, language="en", entities=list(PRESIDIO_KINDS)):
                    covered = [t for t, o in zip(turn, offsets) if hit.start <= o < hit.end]
                    if covered:
                        out.append(detection(PRESIDIO_KINDS[hit.entity_type],
                                             [(covered[0].speaker, covered[0].s, covered[-1].e)]))
                turn = []
            if w is not None:
                turn.append(w)
        return out
    return find


def marked_text(script: list, item: dict) -> str:
    """The call's words turn by turn: personal data found [in brackets], personal data left <<like this>>,
    other talk taken for personal data {like this}; a word the alignment pairs with nothing said is in
    brackets when found."""
    marks = {id(w): (kind, label) for _, w, kind, label in _marked(script, item)}
    spans = _spans(item)
    lines, speaker = [], None
    for w in item["_words"]:
        if w.get("m") is not None:
            continue
        if w["speaker"] != speaker:
            speaker = w["speaker"]
            lines.append(f"{speaker[0]}:")
        kind, label = marks.get(id(w), (None, _inside(w, speaker, spans)))
        text = w["w"]
        if id(w) not in marks:  # a word the alignment pairs with nothing said: marked only when found
            lines[-1] += " " + (f"[{text}]" if label else text)
        else:
            lines[-1] += " " + (f"[{text}]" if kind and label else f"<<{text}>>" if kind else
                                "{" + text + "}" if label else text)
    return "\n".join(lines)


def recognised(calls: list[dict], keep: str | None, model: str = "tiny.en",
               strictness: str = "balanced") -> list[tuple[list, dict]]:
    """Each call spoken and run through the pipeline: (script, media item with `_words`)."""
    from speechproc import api, results
    from speechproc.config import v3

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["SPEECHPROC_HOME"] = str(Path(tmp) / "home")
        folder, scratch = Path(tmp) / "calls", Path(tmp) / "scratch"
        folder.mkdir()
        scratch.mkdir()
        by_file = {}
        for call in calls:
            agent, caller = (voice_args(v) for v in call["voices"])
            build_call(folder / f"{call['id']}.wav", call["script"], {"Agent": agent, "Caller": caller}, scratch)
            by_file[f"{call['id']}.wav"] = call
        pii = {"detectorName": "PII", "parameters": [{"parameter": "strictness", "value": strictness}]}
        settings = v3.validate({"prediction": {"detectors": [pii]}, "speechproc": {"model": model}})
        batch = api.process([folder], settings, out_dir=Path(tmp) / "out", force=True, deliver=False)
        out = []
        for item in batch.items:
            call = by_file[Path(item.path).name]
            media = results.load(item.outputs["json"])
            if keep:
                Path(keep).mkdir(parents=True, exist_ok=True)
                (Path(keep) / f"{call['id']}.json").write_text(json.dumps({**call, "media": media}))
            media["_words"] = spoken(media)
            out.append((call["script"], media))
    return out


HALVES = ("dev", "test", "fresh", "last", "fifth", "sixth", "seventh", "eighth")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=(*HALVES, "all"), default="dev",
                        help="which calls: dev (the rules are set on these), test (held back, then set on), "
                             "fresh (held back, then set on), last (read), fifth (strict mode was set on it "
                             "after it was read), sixth (read), seventh (read), eighth (read) or all (each "
                             "half scored apart; with --rescore, the halves kept)")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--model", default="tiny.en", help="the recogniser (speechproc.model): tiny.en or base")
    parser.add_argument("--strictness", choices=("balanced", "strict"), default="balanced",
                        help="the PII detector's mode (its strictness parameter)")
    parser.add_argument("--show", action="store_true", help="print each call's words, marked as found or left")
    parser.add_argument("--keep", help="keep each call's script and result here, for --rescore")
    parser.add_argument("--rescore", help="score the calls kept in this folder again, with the detector as it is now")
    parser.add_argument("--patterns-only", action="store_true",
                        help="with --rescore: also the detector without its sentence encoder reading questions")
    parser.add_argument("--names-model", help="with --rescore: also the detector with this spaCy pipeline (a folder "
                        "or a name) tagging names, beside the bundled one")
    parser.add_argument("--presidio", action="store_true",
                        help="with --rescore: Presidio's analyzer alone and added to the rules, beside the rules")
    args = parser.parse_args()
    halves = HALVES if args.split == "all" else (args.split,)
    results = {}
    for half in halves:
        wanted = scripted(half)
        if not args.rescore:
            results[half] = {"calls": len(wanted),
                             "rules": score_and_show(args, recognised(wanted, args.keep, args.model, args.strictness),
                                                    wanted)}
            continue
        ids = {call["id"] for call in wanted}
        kept = [k for k in (json.loads(path.read_text()) for path in sorted(Path(args.rescore).glob("*.json")))
                if k.get("id") in ids]
        if not kept and args.split == "all":
            print(f"{args.rescore}: no kept calls of the {half} half, left out", file=sys.stderr)
            continue
        if not kept:
            sys.exit(f"{args.rescore}: no kept calls of the {half} half (*.json written by --keep) there")
        results[half] = {"calls": len(kept), "rules": score_and_show(args, [rescored(k, strictness=args.strictness)
                                                                           for k in kept], kept)}
        if args.patterns_only:
            results[half]["patterns only"] = score_and_show(args, [rescored(k, patterns_only) for k in kept], kept,
                                                            show=False)
        if args.names_model:
            finder = names_finder(args.names_model, args.strictness)
            results[half]["names model"] = score_and_show(args, [rescored(k, finder) for k in kept], kept, show=False)
        if args.presidio:
            for name, with_rules in (("presidio", False), ("rules+presidio", True)):
                results[half][name] = score_and_show(args, [rescored(k, presidio_finder(with_rules)) for k in kept],
                                                     kept, show=False)
    finish(args, results)


def score_and_show(args: argparse.Namespace, calls: list[tuple[list, dict]], named: list[dict],
                   show: bool = True) -> dict:
    """The scores of `calls`; with --show, each call's words marked first."""
    if args.show and show:
        for (script, media), call in zip(calls, named):
            print(f"--- {call['id']}\n" + marked_text(script, media) + "\n")
    return score(calls)


def finish(args: argparse.Namespace, results: dict) -> None:
    options = " ".join(f"--{name.replace('_', '-')}" for name in ("patterns_only", "presidio") if getattr(args, name))
    parts = ["python benchmarks/personal_data/pii.py", f"--split {args.split}"]
    parts += ["--rescore DIR", options] if args.rescore else []
    model = "as kept" if args.rescore else args.model
    parts += [f"--model {args.model}"] if args.model != "tiny.en" and not args.rescore else []
    parts += [f"--strictness {args.strictness}"] if args.strictness != "balanced" else []
    command = " ".join(part for part in parts if part)
    result = {"command": command, "model": model, "strictness": args.strictness, **results}
    print(json.dumps(result, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
