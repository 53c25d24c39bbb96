#!/usr/bin/env python3
"""Promised actions: which of the action items a model lists the insights stage keeps (`promises.promised`,
judged on the clause of the turn the item comes from), against the rule before (a future anywhere in the
turn).

- `--items FILE` (default `actions_heldout.json`): action items written apart from the rules, each with its
  turn, its speaker and whether it is a promise of a step after the call; kept promises and kept
  non-promises, by kind.
- The insights benchmark's stored results (`insights.result.json`, `insights.fresh.result.json`): the action
  items the default model listed for the dev, test and third sets, each found again in its call's turns
  as the stage finds it, and kept or dropped; promised actions found and false actions, as
  `benchmarks/call_insights/insights.py` counts them. These are the calls the rules were written on.

Usage: python benchmarks/call_insights/actions.py [--items FILE] [--json FILE] [--show]
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

from speechproc.stages.call_insights import grounding, insights, promises  # noqa: E402

# The rule before: a future anywhere in the item's turn.
BEFORE = re.compile(r"\b(will|shall|going to|gonna|promise|\w+'ll|once|as soon as|when it (arrives|comes)|"
                    r"(by|on|until|within|next) (tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
                    r"next|the|a|two|three|four|five|ten|\d+))\b", re.IGNORECASE)
RULES = {"before": lambda text, turn, speaker: bool(BEFORE.search(turn)), "now": promises.promised}
STORED = (("insights_calls.json", "insights.result.json"), ("insights_fresh.json", "insights.fresh.result.json"))


def items_scores(items: list[dict], keep, show: bool) -> dict:
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for item in items:
        kept = keep(item["text"], item["turn"], item["speaker"])
        by_kind[("promise: " if item["promise"] else "not: ") + item["kind"]][0] += kept
        by_kind[("promise: " if item["promise"] else "not: ") + item["kind"]][1] += 1
        if show and kept != item["promise"]:
            print(f"{'KEPT' if kept else 'DROPPED'} [{item['kind']}] {item['speaker']}: {item['text']} | {item['turn']}")
    kept_promises = sum(n for kind, (n, _) in by_kind.items() if kind.startswith("promise"))
    kept_others = sum(n for kind, (n, _) in by_kind.items() if kind.startswith("not"))
    return {"promises_kept": kept_promises, "promises": sum(1 for i in items if i["promise"]),
            "others_kept": kept_others, "others": sum(1 for i in items if not i["promise"]),
            "by_kind": {kind: f"{n}/{total}" for kind, (n, total) in sorted(by_kind.items())}}


def stored_scores(keep, show: bool) -> dict:
    """Actions found and false actions of the stored results, the items kept by `keep`, per split."""
    out: dict[str, dict[str, int]] = defaultdict(lambda: {"found": 0, "actions": 0, "false": 0, "calls": 0})
    for calls_file, results_file in STORED:
        calls = {call["id"]: call for call in json.loads((HERE / calls_file).read_text())["calls"]}
        for row in json.loads((HERE / results_file).read_text())["calls"]:
            call = calls[row["id"]]
            reader = insights.Reader(None, grounding.lines_of(bench.conversation(call)))  # type: ignore[arg-type]
            kept = []
            for item in row["action_items"]:
                speaker, text = item.split(": ", 1)
                line = reader.quoted(text, None, speaker)
                if line is not None and keep(text, line.text, line.speaker):
                    kept.append(text)
                elif show:
                    print(f"{row['id']} DROPPED {item}")
            truth = call["truth"]["actions"]
            split = out[row["split"]]
            split["calls"] += 1
            split["actions"] += len(truth)
            split["found"] += sum(any(bench.names_promise(text, stems) for text in kept) for stems in truth)
            split["false"] += sum(not any(bench.names_promise(text, stems) for stems in truth) for text in kept)
    return dict(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=Path, default=HERE / "actions_heldout.json")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--show", action="store_true", help="print what the rules now get wrong")
    args = parser.parse_args()
    items = json.loads(args.items.read_text())["items"]
    out: dict = {"command": "python benchmarks/call_insights/actions.py " + " ".join(sys.argv[1:]), "items": {},
                 "stored": {}}
    for name, keep in RULES.items():
        out["items"][name] = items_scores(items, keep, args.show and name == "now")
        out["stored"][name] = stored_scores(keep, args.show and name == "now")
        figures = out["items"][name]
        print(f"{name:6} items: promises kept {figures['promises_kept']}/{figures['promises']}, "
              f"others kept {figures['others_kept']}/{figures['others']}")
        for split, s in out["stored"][name].items():
            print(f"{name:6} stored {split:5}: actions found {s['found']}/{s['actions']}, false {s['false']} "
                  f"in {s['calls']} calls")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
