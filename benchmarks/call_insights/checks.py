#!/usr/bin/env python3
"""The four common quality checks answered by rule (`call_insights.checks`), without the language model, on
every set of insights calls: each set's own wording of the four questions (each must be recognised as its
check), each call's known words, answers scored against the script. Beside them, the model's answers to the
same questions as stored in the set's result file (`MODEL_RESULTS`, measured with the model).

Usage: python benchmarks/call_insights/checks.py [--calls FILE ...] [--json FILE] [--show]
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(HERE))

import insights as bench  # noqa: E402

from speechproc.stages.call_insights import checks, grounding, quality  # noqa: E402
from speechproc.stages.options import InsightQuestion  # noqa: E402

CALL_SETS = ("insights_calls.json", "insights_fresh.json", "insights_fourth.json", "insights_fifth.json",
             "insights_sixth.json", "insights_seventh.json", "insights_eighth.json",
             "insights_ninth.json", "insights_tenth.json", "insights_eleventh.json", "insights_twelfth.json",
             "insights_thirteenth.json", "insights_fourteenth.json")
# Where each split's model answers are stored: the stage of the model turn by turn, before the checks
# (dev and test: the whole-transcript reading that came before it).
MODEL_RESULTS = {"dev": "insights.result.json", "test": "insights.result.json", "fresh": "insights.fresh.result.json",
                 "fourth": "insights.fourth.result.json", "fifth": "insights.fifth.result.json",
                 "sixth": "insights.sixth.result.json", "seventh": "insights.seventh.before.result.json",
                 "eighth": "insights.eighth.before.result.json"}


def model_answers(split: str) -> dict[str, dict[str, str]]:
    path = HERE / MODEL_RESULTS.get(split, "")
    if not path.is_file():
        return {}
    return {call["id"]: call.get("answers", {}) for call in json.loads(path.read_text())["calls"]}


def set_scores(calls_file: Path, show: bool) -> dict[str, dict]:
    """Per split of one set: per question, the checks' right answers, the model's, and the calls."""
    data = json.loads(calls_file.read_text())
    questions = [InsightQuestion(name, text) for name, text in data["questions"].items()]
    for question in questions:
        check = checks.check_of(question)
        if check is None or check.name != question.name:
            raise SystemExit(f"{calls_file.name}: {question.question!r} is not recognised as {question.name}")
    out: dict[str, dict] = defaultdict(lambda: {q.name: {"checks": 0, "model": 0, "calls": 0} for q in questions})
    stored: dict[str, dict] = {}
    for call in data["calls"]:
        split = call["split"]
        if split not in stored:
            stored[split] = model_answers(split)
        lines = grounding.lines_of(bench.conversation(call))
        for question in questions:
            truth = call["truth"]["answers"][question.name]
            found = checks.answer(checks.check_of(question), lines, quality.subject(question.question, lines))
            answer = "yes" if found else "no"
            score = out[split][question.name]
            score["checks"] += answer == truth
            score["model"] += stored[split].get(call["id"], {}).get(question.name) == truth
            score["calls"] += 1
            if show and answer != truth:
                print(f"{call['id']} {question.name}: {answer}, scripted {truth}" + (f" | {found.text}" if found else ""))
    return dict(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=Path, nargs="+", default=[HERE / name for name in CALL_SETS])
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--show", action="store_true", help="print what the checks get wrong")
    args = parser.parse_args()
    out: dict = {"command": "python benchmarks/call_insights/checks.py " + " ".join(sys.argv[1:]), "splits": {},
                 "model_results": MODEL_RESULTS}
    for calls_file in args.calls:
        out["splits"].update(set_scores(calls_file, args.show))
    for split, scores in out["splits"].items():
        right = sum(s["checks"] for s in scores.values())
        model = sum(s["model"] for s in scores.values())
        total = sum(s["calls"] for s in scores.values())
        each = ", ".join(f"{name} {s['checks']}" for name, s in scores.items())
        stored = f"{model}/{total}" if model_answers(split) else "not run"
        print(f"{split:8} checks {right}/{total} ({each}); the model as stored {stored}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
