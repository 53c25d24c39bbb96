#!/usr/bin/env python3
"""Promised actions found in the speakers' own words (`promises.spoken_promises`), without the language model.

- `--items FILE` (default `actions_heldout.json`): action items written apart from the rules, each with its
  turn, its speaker and whether it is a promise of a step after the call. An item counts as found when the
  clause of its turn it comes from is one the stage finds (`promises.promises_in`); beside it, the rule of
  the first insights stage (a future anywhere in the turn). Found promises and found non-promises, by kind.
- The insights calls (`--calls`, every set by default): the action items the stage finds in each call's
  known words (on a call read by its ends, those the promise head believes; beside them, the promise rules'
  alone), scored as `benchmarks/call_insights/insights.py` scores them (a promised action is found when an
  item holds one of its stems; an item that names none is false), per split.

The figures of the stage's earlier reading (the model's list, kept by a rule) are those of its stored
results (`insights.*.result.json`), measured with the model.

Usage: python benchmarks/call_insights/actions.py [--items FILE] [--calls FILE ...] [--json FILE] [--show]
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(HERE))

import insights as bench  # noqa: E402

from speechproc.engines.models import BUNDLED_SENTENCE_ENCODER, load_sentence_encoder  # noqa: E402
from speechproc.stages.call_insights import grounding, insights, promises  # noqa: E402
from speechproc.stages.options import InsightsOptions  # noqa: E402

# The first stage's rule: a future anywhere in the item's turn.
BEFORE = re.compile(r"\b(will|shall|going to|gonna|promise|\w+'ll|once|as soon as|when it (arrives|comes)|"
                    r"(by|on|until|within|next) (tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
                    r"next|the|a|two|three|four|five|ten|\d+))\b", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9']+")


def quoted_clause(text: str, turn: str) -> str:
    """The clause of `turn` that holds most of the item `text`'s words."""
    words = set(_WORD.findall(text.lower()))
    parts = promises.clauses(turn) or [turn]
    return max(parts, key=lambda part: len(words & set(_WORD.findall(part.lower()))))


def found_now(text: str, turn: str, speaker: str) -> bool:
    clause = quoted_clause(text, turn)
    return promises.is_promise(clause, speaker)


RULES = {"future anywhere in the turn": lambda text, turn, speaker: bool(BEFORE.search(turn)), "now": found_now}


def items_scores(items: list[dict], found, show: bool) -> dict:
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for item in items:
        kept = found(item["text"], item["turn"], item["speaker"])
        by_kind[("promise: " if item["promise"] else "not: ") + item["kind"]][0] += kept
        by_kind[("promise: " if item["promise"] else "not: ") + item["kind"]][1] += 1
        if show and kept != item["promise"]:
            print(f"{'FOUND' if kept else 'MISSED'} [{item['kind']}] {item['speaker']}: {item['text']} | {item['turn']}")
    found_promises = sum(n for kind, (n, _) in by_kind.items() if kind.startswith("promise"))
    found_others = sum(n for kind, (n, _) in by_kind.items() if kind.startswith("not"))
    return {"promises_found": found_promises, "promises": sum(1 for i in items if i["promise"]),
            "others_found": found_others, "others": sum(1 for i in items if not i["promise"]),
            "by_kind": {kind: f"{n}/{total}" for kind, (n, total) in sorted(by_kind.items())}}


def calls_scores(call_files: list[Path], show: bool) -> dict:
    """Actions found and false actions of the stage's items in the calls' known words, per split: as the stage
    gives them (on a call read by its ends, those the promise head believes) and by the promise rules alone."""
    out: dict[str, dict[str, int]] = defaultdict(lambda: {"found": 0, "actions": 0, "false": 0, "calls": 0,
                                                          "found_by_rules": 0, "false_by_rules": 0})
    options = InsightsOptions(action_items=True)
    encoder = load_sentence_encoder(BUNDLED_SENTENCE_ENCODER)
    for calls_file in call_files:
        for call in json.loads(calls_file.read_text())["calls"]:
            lines = grounding.lines_of(bench.conversation(call))
            items = [item.text for item in insights.action_items(lines, options, encoder)]
            by_rules = [item.text for item in promises.spoken_promises(lines)]
            truth = call["truth"]["actions"]
            split = out[call["split"]]
            split["calls"] += 1
            split["actions"] += len(truth)
            split["found"] += sum(any(bench.names_promise(text, stems) for text in items) for stems in truth)
            split["found_by_rules"] += sum(any(bench.names_promise(text, stems) for text in by_rules) for stems in truth)
            split["false_by_rules"] += sum(not any(bench.names_promise(t, stems) for stems in truth) for t in by_rules)
            false = [text for text in items if not any(bench.names_promise(text, stems) for stems in truth)]
            split["false"] += len(false)
            if show:
                for text in false:
                    print(f"{call['id']} FALSE {text}")
                for stems in truth:
                    if not any(bench.names_promise(text, stems) for text in items):
                        print(f"{call['id']} MISSED {stems}")
    return dict(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=Path, default=HERE / "actions_heldout.json")
    parser.add_argument("--calls", type=Path, nargs="+", default=[HERE / name for name in bench.READ_SETS])
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--show", action="store_true", help="print what the rules get wrong")
    args = parser.parse_args()
    items = json.loads(args.items.read_text())["items"]
    out: dict = {"command": "python benchmarks/call_insights/actions.py " + " ".join(sys.argv[1:]), "items": {}}
    for name, found in RULES.items():
        figures = out["items"][name] = items_scores(items, found, args.show and name == "now")
        print(f"items, {name}: promises found {figures['promises_found']}/{figures['promises']}, "
              f"others found {figures['others_found']}/{figures['others']}")
    out["calls"] = calls_scores(args.calls, args.show)
    for split, s in out["calls"].items():
        print(f"calls {split:6}: actions found {s['found']}/{s['actions']}, false {s['false']} in {s['calls']} calls "
              f"(the rules alone: {s['found_by_rules']}, false {s['false_by_rules']})")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
