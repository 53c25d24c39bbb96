#!/usr/bin/env python3
"""Spoken instructions: how many turns addressed to the transcript's reader the insights stage leaves out
(`spoken_instructions.instruction_start`), and how many ordinary turns it wrongly leaves out.

Sets, each committed before the stage was tried on it, each read once with everything fixed:
- `instructions_dev.json`: the instructions of the three insights call sets and turns written beside the
  rules, to shape them on;
- `instructions_heldout.json` (90 instructions, 180 ordinary turns), `instructions_last.json`,
  `instructions_fourth.json` and `instructions_fifth.json` (100 and 200 each): written by a hand that saw
  neither the rules nor the other sets. The rules grew after each read; the word model was fitted on the
  first four (`fit_instruction_words.py`); the fifth is held out;
- `instructions_sixth.json` (100 instructions, 300 ordinary turns, most of them long turns of 4-9 sentences),
  written the same way, to decide reading a turn's sentences in pairs instead of as a whole;
- `instructions_seventh.json` (100 instructions, 300 ordinary turns, most of them holding one long run-on
  sentence of 30-80 words), written the same way, to decide reading a long sentence in windows of its words;
- the ordinary turns of every scripted call in the repository (the insights calls of every read set and the
  personal-data calls, their spoken instructions left aside).
Each turn is read as written and as a recogniser without punctuation would give it (lower case, no marks).
The expression used before (one regular expression over the whole turn) is scored beside it.

Usage: python benchmarks/call_insights/instructions.py [--sets dev,heldout] [--json FILE] [--show]
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(HERE))

from insights import READ_SETS  # noqa: E402

from speechproc.stages.call_insights import spoken_instructions  # noqa: E402

# The rule before: one expression over the whole turn.
BEFORE = re.compile(
    r"\b(ignore|disregard|forget)\b[^.?!]{0,40}\b(instructions?|rules|prompts?|above|everything)\b"
    r"|\b(note|message|instructions?)\s+(to|for)\s+(the\s+)?(ai|assistant|model|bot|llm|chatbot)\b"
    r"|^\s*(ai|assistant|chatbot|language model|system)\s*[,:]"
    r"|\b(you are now|act as|pretend to be|system prompt)\b", re.IGNORECASE)

RULES = {"before": lambda text: bool(BEFORE.search(text)),
         "now": lambda text: spoken_instructions.instruction_start(text) is not None}


def unpunctuated(text: str) -> str:
    """A turn as a recogniser without punctuation writes it."""
    return re.sub(r"\s+", " ", re.sub(r"[^\w' ]+", " ", text.lower())).strip()


def call_turns(insights_sets: tuple[str, ...] = READ_SETS) -> list[str]:
    """The ordinary turns of the repository's scripted calls (spoken instructions left aside): the insights
    calls of `insights_sets` and the personal-data calls."""
    turns: list[str] = []
    for name in insights_sets:
        for call in json.loads((HERE / name).read_text())["calls"]:
            injected = call["truth"].get("injected") or {}
            said = (injected.get("said") or injected.get("text") or "").lower().rstrip(".")
            turns += [t["text"] for t in call["turns"] if not (said and said in t["text"].lower())]
    pii = json.loads((ROOT / "benchmarks" / "personal_data" / "pii_calls.json").read_text())
    for calls in pii.values():
        for call in calls:
            turns += [" ".join(piece for piece, _ in pieces) for _, pieces in call["script"]]
    return list(dict.fromkeys(turns))


def score(items: list[dict], flagged) -> dict:
    by_form: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for item in items:
        by_form[item["form"]][0] += bool(flagged(item["text"]))
        by_form[item["form"]][1] += 1
    hit = sum(n for n, _ in by_form.values())
    return {"flagged": hit, "of": len(items), "share": round(hit / len(items), 3) if items else None,
            "by_form": {form: f"{n}/{total}" for form, (n, total) in sorted(by_form.items())}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="dev,heldout,last,fourth,fifth,sixth,seventh",
                        help="comma-separated: dev, heldout, last, fourth, fifth, sixth, seventh")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--show", action="store_true", help="print the turns each rule gets wrong")
    args = parser.parse_args()
    out: dict = {"command": "python benchmarks/call_insights/instructions.py " + " ".join(sys.argv[1:]), "sets": {}}
    for name in args.sets.split(","):
        data = json.loads((HERE / f"instructions_{name}.json").read_text())
        result = {}
        for rule, flagged in RULES.items():
            for form, shape in (("as written", lambda t: t), ("unpunctuated", unpunctuated)):
                def read(text: str, flagged=flagged, shape=shape) -> bool:
                    return flagged(shape(text))

                caught = score(data["injections"], read)
                wrong = score(data["benign"], read)
                result[f"{rule}, {form}"] = {"instructions_caught": caught, "ordinary_flagged": wrong}
                if args.show and rule == "now":
                    for item in data["injections"]:
                        if not flagged(shape(item["text"])):
                            print(f"{name} {form} MISSED [{item['form']}] {shape(item['text'])}")
                    for item in data["benign"]:
                        if flagged(shape(item["text"])):
                            print(f"{name} {form} FLAGGED [{item['form']}] {shape(item['text'])}")
        out["sets"][name] = result
    turns = call_turns()
    out["call_turns"] = {rule: {"turns": len(turns), "flagged": [t for t in turns if flagged(t)]}
                         for rule, flagged in RULES.items()}
    for name, result in out["sets"].items():
        for key, figures in result.items():
            caught, wrong = figures["instructions_caught"], figures["ordinary_flagged"]
            print(f"{name:8} {key:22} instructions {caught['flagged']:3}/{caught['of']}  "
                  f"ordinary flagged {wrong['flagged']:3}/{wrong['of']}")
    for rule, figures in out["call_turns"].items():
        print(f"call turns {rule:6} flagged {len(figures['flagged'])}/{figures['turns']}: {figures['flagged'][:6]}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
