#!/usr/bin/env python3
"""The offer of further help (`checks.further_help`) on the ends of calls: whether the agent's "Is there anything
else I can help you with?" is found however many turns follow it, and not found where "anything else" means
something else, the agent only closes warmly, or the caller is the one who offers.

`closings.json`: 48 call endings (the last 14-26 turns), each with the truth (the agent offered further help as
the call wound up, or not) and a group: offers within the agent's last 2 turns, 3-4, 5-7 or 8 or more turns
before the end; no offer, with "anything else" in another sense, a warm close, or the caller offering. Written
by a writer who saw neither the check nor any other set, and committed before the check was tried on it.

`closings_second.json` (`--items`): 60 more call endings, written the same way by another writer and committed
before anything was tried on it: 36 offers, each in its own wording, within the agent's last 2, 3-4, 5-7 or 8 or
more turns, and 24 endings without one. Its brief named 24 example wordings of an offer; 22 of its offers
(closing2-01, 02, 04, 06, 07, 08, 09, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 22, 25, 27, 28, 34) are worded as
one of those, the other 14 are the writer's own (`--own-wordings` scores the endings without the named ones).

`--turns N` reads the agent's last N turns instead of `checks.FURTHER_HELP_TURNS` (several: side by side).

Reading the agent's last 5 turns instead of 3 was shaped on the read call sets (597 of 604 calls answered right
against 590: offers followed by small talk) and is decided here, by a rule set before this set was read: take 5
if it answers at least 2 more items right and takes at most 1 more "no" item for a yes.

More wordings of the offer ("Is that everything for today, Mr Rahman?", "Does that cover everything you needed?",
"Have I answered all your questions?", "Was there anything else you were after?", "... while you've got me?")
were shaped on `closings.json` (36 of 48 right before, 39 after, no "no" item taken) and the read call sets (one
more call right, none wrong), and are decided on `closings_second.json` by the same rule, set before it was read.

Usage: python benchmarks/call_insights/closings.py [--items FILE] [--own-wordings] [--turns 3,5] [--json FILE] [--show]
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "src"))
sys.path.insert(0, str(HERE))

from insights import conversation  # noqa: E402

from speechproc.stages.call_insights import checks, grounding  # noqa: E402

# The endings of closings_second.json whose offer is worded as one of its brief's examples.
NAMED_IN_BRIEF = frozenset(f"closing2-{n:02d}" for n in (1, 2, 4, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
                                                          22, 25, 27, 28, 34))


def agent_lines(item: dict) -> list[grounding.Line]:
    """The agent's turns of an item as the stage reads them (`grounding.lines_of`)."""
    return [line for line in grounding.lines_of(conversation(item)) if line.speaker == "Agent" and line.text]


def scored(items: list[dict], turns: int, show: bool) -> dict:
    """Right answers per group and in all, with the agent's last `turns` turns read."""
    groups: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for item in items:
        found = "yes" if checks.further_help(agent_lines(item), last=turns) else "no"
        groups[item["group"]][0] += found == item["truth"]
        groups[item["group"]][1] += 1
        if show and found != item["truth"]:
            print(f"turns {turns}: {item['id']} [{item['group']}] found {found}, truth {item['truth']}")
    right = sum(n for n, _ in groups.values())
    false_yes = sum(total - n for group, (n, total) in groups.items() if group.startswith("no"))
    return {"right": right, "of": len(items), "false_yes": false_yes,
            "by_group": {group: f"{n}/{total}" for group, (n, total) in sorted(groups.items())}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", default=str(checks.FURTHER_HELP_TURNS),
                        help="comma-separated: how many of the agent's last turns are read")
    parser.add_argument("--items", type=Path, default=HERE / "closings.json")
    parser.add_argument("--own-wordings", action="store_true",
                        help="leave out the endings whose offer is worded as an example of the set's brief "
                             "(closings_second.json only)")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--show", action="store_true", help="print each item answered wrongly")
    args = parser.parse_args()
    try:
        counts = [int(n) for n in args.turns.split(",")]
    except ValueError:
        parser.error(f"--turns: whole numbers separated by commas, not {args.turns!r}")
    if any(n < 1 for n in counts):
        parser.error("--turns: each count is at least 1")
    try:
        items = json.loads(args.items.read_text(encoding="utf-8"))["items"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        parser.error(f"--items {args.items}: not a set of call endings ({type(exc).__name__}: {exc})")
    if args.own_wordings:
        if not any(item.get("id") in NAMED_IN_BRIEF for item in items):
            parser.error(f"--own-wordings: only for closings_second.json, whose brief named wordings; not {args.items}")
        items = [item for item in items if item.get("id") not in NAMED_IN_BRIEF]
    out = {"command": "python benchmarks/call_insights/closings.py " + " ".join(sys.argv[1:]),
           "turns": {str(n): scored(items, n, args.show) for n in counts}}
    for n, figures in out["turns"].items():
        print(f"agent's last {n} turns: right {figures['right']}/{figures['of']}, false yes {figures['false_yes']}, "
              f"{figures['by_group']}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
