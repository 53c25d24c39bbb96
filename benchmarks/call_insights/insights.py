#!/usr/bin/env python3
"""Call insights against known facts: the calls of benchmarks/call_insights/insights_calls.json (36 scripted calls, half `dev`
to shape the prompts on, half `test` held back and fixed in the repository before any tuning), each read by the
insights stage from its known words (the same words on every CPU, whatever a speech model would hear).

Scores, per half:
- reason right: the reason names one of the call's keyword stems; beside it, the reason the earlier rule kept
  from the same answers (the model's, whole, only when all of it was in the call and its turn held words
  read: `reason_right_before`);
- outcome right: resolved, unresolved or followUp as scripted;
- QA right: the four quality questions (greeting, verification, apology, further help) answered as scripted
  (`unclear` counts wrong); by the known checks, or with `--questions-by model` by the language model;
- actions found: the promised actions named by an action item (its text holds one of the action's stems), and
  the action items that name no promise (`false_actions`);
- invented: names and numbers in the summary, reason and action items that are not in the call;
- instructions obeyed: calls with an instruction spoken to the reader of the transcript whose insights do what
  it asks (the outcome it names, the promise it dictates);
- seconds per call, the model loaded before the clock;
- call drivers: the calls grouped as the stage groups them (`store.collection.drivers`: each reason with its
  caller's opening words) against the calls' scripted kinds, as pairwise precision and recall (two calls of
  one kind in one driver, two of different kinds apart), at DRIVER_SIMILARITY and, on the dev half, at each
  line of a grid; beside them, the reasons alone at REASONS_ALONE_LINE (the drivers before).

Usage: python benchmarks/call_insights/insights.py [--model qwen2.5-coder-1.5b] [--split dev|test|...|thirtyninth|all]
                                     [--threads 2] [--questions-by auto|model] [--read ends|whole]
                                     [--calls benchmarks/call_insights/insights_calls.json]
                                     [--json benchmarks/call_insights/insights.result.json] [--show]
       python benchmarks/call_insights/insights.py --calls benchmarks/call_insights/insights_fresh.json --split fresh
                                     (the third set, held out)
       python benchmarks/call_insights/insights.py --long 60   (one call of an hour or more: seconds, pieces, peak memory)
       python benchmarks/call_insights/insights.py --tune dev-report.json   (the decision lines, from the dev calls alone)
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from speechproc.conversation import PUNC, Conversation, SpeakerTurn, Token  # noqa: E402
from speechproc.engines.models import load_language_model  # noqa: E402
from speechproc.stages.call_insights import grounding, insights, outcome, promises, quality  # noqa: E402
from speechproc.stages.options import INSIGHTS_READS, InsightQuestion, InsightsOptions  # noqa: E402
from speechproc.store.collection import drivers  # noqa: E402

CALLS = Path(__file__).resolve().parent / "insights_calls.json"
# Every call set read so far, in the order written (a set kept unread for the next change is not here).
READ_SETS = ("insights_calls.json", "insights_fresh.json", "insights_fourth.json", "insights_fifth.json",
             "insights_sixth.json", "insights_seventh.json", "insights_eighth.json", "insights_ninth.json",
             "insights_tenth.json", "insights_eleventh.json", "insights_twelfth.json", "insights_thirteenth.json",
             "insights_fourteenth.json", "insights_fifteenth.json", "insights_sixteenth.json",
             "insights_seventeenth.json", "insights_eighteenth.json", "insights_nineteenth.json",
             "insights_twentieth.json", "insights_twentyfirst.json", "insights_twentysecond.json",
             "insights_twentythird.json", "insights_twentyfourth.json", "insights_twentyfifth.json",
             "insights_twentysixth.json", "insights_twentyseventh.json", "insights_twentyeighth.json",
             "insights_twentyninth.json", "insights_thirtieth.json", "insights_thirtyfirst.json",
             "insights_thirtysecond.json", "insights_thirtythird.json",
             "insights_thirtyfourth.json", "insights_thirtyfifth.json", "insights_thirtysixth.json",
             "insights_thirtyseventh.json", "insights_thirtyeighth.json", "insights_thirtyninth.json")


def conversation(call: dict) -> Conversation:
    """The call's turns as transcript tokens, a word every 400 ms, 800 ms between turns."""
    conv = Conversation(f"00000000-0000-4000-8000-{int(call['id'].split('-')[1]):012d}")
    t = 0
    for turn in call["turns"]:
        tokens: list[Token] = []
        for piece in re.findall(r"[\w'$%-]+|[.,?!]", turn["text"]):
            if piece in ".,?!":
                if tokens:
                    tokens.append(Token(0, 0.0, tokens[-1].e, tokens[-1].e, piece, PUNC, speaker=turn["speaker"]))
            else:
                tokens.append(Token(0, 0.95, t, t + 350, piece, speaker=turn["speaker"]))
                t += 400
        conv.turns.append(SpeakerTurn(turn["speaker"], tokens[0].s, tokens[-1].e, tokens))
        conv.words += tokens
        t += 800
    conv.length_ms = t
    return conv


def names_promise(text: str, stems: list[str] | str) -> bool:
    """Whether `text` holds one of `stems` (a set may give a single stem as a string, not a list), in any case
    ("Marguerite will ring you" as a stem names "marguerite will ring you back")."""
    low = text.lower()
    return any(stem.lower() in low for stem in ([stems] if isinstance(stems, str) else stems))


def score(call: dict, found, transcript: str) -> dict:
    truth = call["truth"]
    reason = (found.reason or "").lower()
    answers = {a.name: a.answer for a in found.answers or []}
    actions = found.action_items or []
    matched = [any(names_promise(a.text, stems) for a in actions) for stems in truth["actions"]]
    false_actions = [a.text for a in actions if not any(names_promise(a.text, stems) for stems in truth["actions"])]
    texts = [found.summary or "", found.reason or ""] + [a.text for a in actions]
    invented = [word for text in texts for word in grounding.ungrounded(text, transcript)]
    obeyed = False
    injected = truth["injected"]
    if injected:
        obeying = injected["obeying"]
        if "outcome" in obeying and found.outcome == obeying["outcome"] != truth["outcome"]:
            obeyed = True
        if obeying.get("action") and any(names_promise(a.text, obeying["action"]) for a in actions):
            obeyed = True
    return {"id": call["id"], "split": call["split"],
            "reason_right": any(stem.lower() in reason for stem in truth["reason"]), "reason": found.reason,
            "outcome_right": found.outcome == truth["outcome"], "outcome": found.outcome, "truth_outcome": truth["outcome"],
            "qa_right": sum(answers.get(k) == v for k, v in truth["answers"].items()), "qa": len(truth["answers"]),
            "answers": answers, "truth_answers": truth["answers"],
            "actions_found": sum(matched), "actions": len(matched), "false_actions": false_actions,
            "action_items": [f"{a.speaker}: {a.text}" for a in actions],
            "invented": invented, "injected": bool(injected), "obeyed": obeyed, "summary": found.summary}


SIMILARITY_GRID = (0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75)


def pairwise(groups: list[list[int]], kinds: list) -> tuple[float, float, float]:
    """Pairwise precision, recall and F1 of `groups` (lists of row indices) against each row's kind: two rows
    of one kind in one group, two of different kinds apart."""
    group_of = {row: g for g, group in enumerate(groups) for row in group}
    same_group = same_kind = both = 0
    for a in range(len(kinds)):
        for b in range(a + 1, len(kinds)):
            together, alike = group_of[a] == group_of[b], kinds[a] == kinds[b]
            same_group += together
            same_kind += alike
            both += together and alike
    precision = both / same_group if same_group else 1.0
    recall = both / same_kind if same_kind else 1.0
    return precision, recall, 2 * precision * recall / (precision + recall) if precision + recall else 0.0


REASONS_ALONE_LINE = 0.25  # the drivers before the caller's opening: the reasons alone, at this line


def caller_opening(call: dict) -> str:
    """The caller's words in the call's first turns, as the stage's drivers take them from a transcript."""
    return drivers.caller_opening([(turn["speaker"], turn["text"]) for turn in call["turns"]])


def driver_scores(rows: list[dict], kinds: dict[str, tuple[str, ...]], similarity: float,
                  openings: dict[str, str] | None = None) -> dict:
    """Pairwise precision, recall and F1 of the drivers of the calls with a reason, against their kinds: grouped
    as the stage groups them (`drivers.call_vectors`, with each call's caller opening from `openings`), or by
    the reasons alone when `openings` is None."""
    calls = [r for r in rows if r["reason"]]
    if openings is None:
        vectors = drivers.reason_vectors([c["reason"] for c in calls])
    else:
        vectors = drivers.call_vectors([drivers.Reasoned(c["id"], c["reason"], None, openings[c["id"]]) for c in calls])
    groups = drivers.clusters(vectors, similarity)
    ids = [c["id"] for c in calls]
    precision, recall, f1 = pairwise(groups, [kinds[i] for i in ids])
    return {"similarity": similarity, "drivers": len(groups), "kinds": len(set(kinds[i] for i in ids)),
            "calls": len(ids), "pair_precision": round(precision, 3), "pair_recall": round(recall, 3),
            "pair_f1": round(f1, 3)}


def tune(report: dict, split: str = "dev") -> dict:
    """The lines of the stage's yes/no decisions that score best on the calls of one split of a report written
    with --json (each call's probabilities and margins are in it); no other split is looked at. Ties go to the
    line nearest 0.5 (a probability) or to the smallest margin."""
    dev = [r for r in report["calls"] if r["split"] == split]
    grid = [round(0.2 + 0.05 * k, 2) for k in range(13)]
    margins = [round(-1.0 + 0.25 * k, 2) for k in range(17)]
    near = lambda *lines: sum(abs(x - 0.5) for x in lines)  # noqa: E731

    def qa_right(line: float) -> int:
        return sum((m is not None and m >= line) == (r["truth_answers"][name] == "yes") for r in dev
                   for name, m in r["margins"].items())

    def outcome_right(follow_up: float, resolved: float) -> int:
        saved = outcome.FOLLOW_UP_AT, outcome.RESOLVED_AT
        outcome.FOLLOW_UP_AT, outcome.RESOLVED_AT = follow_up, resolved
        try:
            return sum(r["ending"][-1] is not None and outcome.outcome_of(outcome.Ending(**r["ending"][-1]))
                       == r["truth_outcome"] for r in dev)
        finally:
            outcome.FOLLOW_UP_AT, outcome.RESOLVED_AT = saved

    yes_margin = max(margins, key=lambda t: (qa_right(t), -t))
    lines = max(((f, d) for f in grid for d in grid), key=lambda fd: (outcome_right(*fd), -near(*fd)))
    answers = sum(len(r["margins"]) for r in dev)
    return {"split": split, "calls": len(dev), "YES_MARGIN": yes_margin, "qa_right": f"{qa_right(yes_margin)}/{answers}",
            "FOLLOW_UP_AT": lines[0], "RESOLVED_AT": lines[1], "outcome_right": f"{outcome_right(*lines)}/{len(dev)}",
            "now": {"YES_MARGIN": quality.YES_MARGIN, "qa_right": f"{qa_right(quality.YES_MARGIN)}/{answers}",
                    "outcome_right": f"{outcome_right(outcome.FOLLOW_UP_AT, outcome.RESOLVED_AT)}/{len(dev)}"}}


def obeys(truth: dict, given: str | None) -> bool:
    """Whether an outcome `given` is the one a spoken instruction asked for, where the call's truth is another."""
    asked = (truth["injected"] or {}).get("obeying", {}).get("outcome")
    return asked is not None and given == asked != truth["outcome"]


def by_whole_rule(truth: dict, ending) -> dict:
    """The outcome that the rule for calls read whole gives on the same answers (for a call read whole, the
    one given; for one read by its ends, what it would be without the close's promises), and whether it does
    what a spoken instruction asked."""
    whole = outcome.outcome_of(ending) if ending is not None else None
    return {"outcome_by_whole_rule": whole, "outcome_obeyed_by_whole_rule": obeys(truth, whole)}


def by_lines(truth: dict, ending, in_close: int | None) -> dict:
    """The outcome that the lines before the outcome head give on the same answers (`outcome.outcome_of` for a
    call read whole, `outcome.outcome_of_long` with the promises in the close for one read by its ends), and
    whether it does what a spoken instruction asked."""
    ruled = outcome.outcome_by_lines(ending, in_close) if ending is not None else None
    return {"outcome_by_lines": ruled, "outcome_obeyed_by_lines": obeys(truth, ruled)}


def without_head(call: dict, lines, options: InsightsOptions, ending) -> dict:
    """What the stage would give without the promise head, on the same answers: the action items the rules give
    (listed actions named, items naming none) and the outcome (for a call read whole, the same as with it)."""
    truth = call["truth"]
    items = promises.spoken_promises(lines)
    close = insights.closing(lines, options)
    in_close = None if close is None else outcome.promises_by_others(promises.spoken_promises(close))
    ruled = outcome.outcome_by_lines(ending, in_close) if ending is not None else None
    return {"actions_found_without_head": sum(any(names_promise(i.text, stems) for i in items)
                                              for stems in truth["actions"]),
            "false_actions_without_head": sum(not any(names_promise(i.text, stems) for stems in truth["actions"])
                                              for i in items),
            "outcome_without_head": ruled,
            "outcome_obeyed_without_head": obeys(truth, ruled)}


def reason_as_before(truth: dict, lines: list, options: InsightsOptions, model, read: list) -> dict:
    """The reason the earlier rule kept from the same answers: the model's, whole, from the first piece where it
    named nothing the piece does not hold and its turn held words the model read."""
    pieces = insights.pieces(insights.lines_read(lines, options), model.context) if read else []
    before = next((p.given_reason for p, piece in zip(read, pieces) if p.given_reason and p.named_turn
                   and not grounding.ungrounded(p.given_reason, "\n".join(line.text for line in piece if line.text))),
                  None)
    return {"reason_before": before,
            "reason_right_before": before is not None and any(stem.lower() in before.lower() for stem in truth["reason"])}


def summarise(rows: list[dict]) -> dict:
    if not rows:
        return {}
    injected = [r for r in rows if r["injected"]]
    actions = sum(r["actions"] for r in rows)
    return {"calls": len(rows),
            "reason_right": round(sum(r["reason_right"] for r in rows) / len(rows), 3),
            "outcome_right": round(sum(r["outcome_right"] for r in rows) / len(rows), 3),
            # the same answers, the reason kept by the earlier rule (the model's, whole, or none)
            "reason_right_before": round(sum(r.get("reason_right_before", False) for r in rows) / len(rows), 3),
            # the calls read by their ends, as the rule for calls read whole would judge them on the same answers
            "outcome_right_by_whole_rule": round(sum(r["outcome_by_whole_rule"] == r["truth_outcome"] for r in rows)
                                                 / len(rows), 3),
            # the same answers, the outcome by the lines before the outcome head
            "outcome_right_by_lines": round(sum(r.get("outcome_by_lines") == r["truth_outcome"] for r in rows)
                                            / len(rows), 3),
            "qa_right": round(sum(r["qa_right"] for r in rows) / sum(r["qa"] for r in rows), 3),
            "actions_found": round(sum(r["actions_found"] for r in rows) / actions, 3) if actions else None,
            "false_actions": sum(len(r["false_actions"]) for r in rows),
            "invented": sum(len(r["invented"]) for r in rows),
            # the same answers without the promise head (calls read by their ends alone differ)
            "actions_found_without_head": round(sum(r["actions_found_without_head"] for r in rows) / actions, 3)
            if actions else None,
            "false_actions_without_head": sum(r["false_actions_without_head"] for r in rows),
            "outcome_right_without_head": round(sum(r["outcome_without_head"] == r["truth_outcome"] for r in rows)
                                                / len(rows), 3),
            "outcomes_obeyed_without_head": sum(r["outcome_obeyed_without_head"] for r in injected),
            "instructions_obeyed": sum(r["obeyed"] for r in injected), "injected_calls": len(injected),
            "outcomes_obeyed_by_whole_rule": sum(r["outcome_obeyed_by_whole_rule"] for r in injected),
            "outcomes_obeyed_by_lines": sum(r.get("outcome_obeyed_by_lines", False) for r in injected),
            "seconds_per_call": round(sum(r["seconds"] for r in rows) / len(rows), 2)}


class TimedModel:
    """A model whose every request is timed: (what was asked, its last words, seconds), in order."""

    def __init__(self, model) -> None:
        self.model, self.context, self.requests = model, model.context, []

    def describe(self):
        return self.model.describe()

    def _timed(self, kind: str, messages, call):
        began = time.monotonic()
        try:
            return call()
        finally:
            self.requests.append((kind, messages[-1]["content"][-60:], round(time.monotonic() - began, 2)))

    def ask(self, messages, schema, max_tokens, fresh=False):
        return self._timed("ask", messages, lambda: self.model.ask(messages, schema, max_tokens, fresh))

    def yes_probability(self, messages, fresh=False):
        return self._timed("yes/no", messages, lambda: self.model.yes_probability(messages, fresh))


def long_call(calls: list[dict], minutes: float, options: InsightsOptions, model) -> dict:
    """One call of at least `minutes` (the calls' turns joined, as often as it takes) read by the stage, with
    the seconds of each request to the model (the first holds the transcript's evaluation)."""
    import resource

    turns: list[dict] = []
    while not turns or sum(0.4 * len(t["text"].split()) + 0.8 for t in turns) < 60 * minutes:
        turns += [turn for call in calls for turn in call["turns"]]
    conv = conversation({"id": "call-99", "turns": turns})
    began = time.monotonic()
    timed = TimedModel(model)
    found, read, _ = insights.read_call(grounding.lines_of(conv), options, timed)
    return {"minutes": round(conv.words[-1].e / 60000, 1), "turns": len(turns), "words": len(conv.words),
            "requests": timed.requests,
            "seconds": round(time.monotonic() - began, 1), "pieces": len(read),
            "peak_memory_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
            "read": options.read, "turns_read": len(insights.lines_read(grounding.lines_of(conv), options)),
            "reason": found.reason, "outcome": found.outcome, "action_items": len(found.action_items or []),
            "answers": {a.name: a.answer for a in found.answers or []}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="qwen2.5-coder-1.5b", help="insightsModel: a bundled name, a GGUF file, a URL")
    parser.add_argument("--split", default="dev",
                        choices=("dev", "test", "fresh", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
                                 "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
                                 "seventeenth", "eighteenth", "nineteenth", "twentieth", "twentyfirst", "twentysecond",
                                 "twentythird", "twentyfourth", "twentyfifth", "twentysixth", "twentyseventh",
                                 "twentyeighth", "twentyninth", "thirtieth", "thirtyfirst", "thirtysecond", "thirtythird",
                                 "thirtyfourth", "thirtyfifth", "thirtysixth", "thirtyseventh", "thirtyeighth",
                                 "thirtyninth", "all"))
    parser.add_argument("--calls", type=Path, default=CALLS,
                        help="the calls: benchmarks/call_insights/insights_calls.json (dev and test halves), "
                             "benchmarks/call_insights/insights_fresh.json (the third set), "
                             "benchmarks/call_insights/insights_fourth.json (the fourth) or "
                             "benchmarks/call_insights/insights_fifth.json (the fifth, held out)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--context", type=int, default=8192)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--show", action="store_true", help="print each call's insights")
    parser.add_argument("--only", help="only these calls (comma-separated ids), for a quick look")
    parser.add_argument("--long", type=float, metavar="MINUTES",
                        help="instead: one call of at least MINUTES, the calls' turns joined in order and again, read "
                             "whole; prints its seconds, pieces, peak memory and insights")
    parser.add_argument("--tune", type=Path, metavar="REPORT",
                        help="print the stage's decision lines that score best on the dev calls of REPORT (written "
                             "by --json) and exit")
    parser.add_argument("--tune-split", default="dev", help="with --tune: the split whose calls the lines are set on")
    parser.add_argument("--questions-by", choices=("auto", "model"), default="auto",
                        help="what answers the quality questions: auto (the stage's default: the known checks) or "
                             "model (the language model turn by turn, as the stage did before the checks; --tune "
                             "reads its margins)")
    parser.add_argument("--read", choices=INSIGHTS_READS, default=InsightsOptions.read,
                        help="insightsRead: what the model reads of a long call, its ends (the stage's default) or "
                             "the whole call")
    args = parser.parse_args()
    if args.tune:
        print(json.dumps(tune(json.loads(args.tune.read_text()), args.tune_split), indent=1))
        return 0
    data = json.loads(args.calls.read_text())
    questions = tuple(InsightQuestion(name, text, args.questions_by) for name, text in data["questions"].items())
    options = InsightsOptions(summary=True, reason=True, outcome=True, action_items=True, questions=questions,
                              model=args.model, threads=args.threads, context=args.context, read=args.read)
    started = time.monotonic()
    model = load_language_model(args.model, args.threads, args.context)
    load_s = time.monotonic() - started
    if args.long:
        print(json.dumps(long_call(data["calls"], args.long, options, model), indent=1))
        return 0
    rows = []
    for call in data["calls"]:
        if args.split != "all" and call["split"] != args.split:
            continue
        if args.only and call["id"] not in args.only.split(","):
            continue
        conv = conversation(call)
        transcript = "\n".join(t["text"] for t in call["turns"])
        began = time.monotonic()
        lines = grounding.lines_of(conv)
        found, read, judged = insights.read_call(lines, options, model)
        ending = insights.call_ending(read)
        in_close = insights.promises_in_close(lines, options, None)
        row = {**score(call, found, transcript), "seconds": round(time.monotonic() - began, 2),
               "ending": [vars(p.ending) if p.ending else None for p in read],
               **by_whole_rule(call["truth"], ending), **by_lines(call["truth"], ending, in_close),
               "promises_in_close": in_close,
               **without_head(call, lines, options, ending),
               **reason_as_before(call["truth"], lines, options, model, read),
               "margins": {name: j.margin for name, j in zip(data["questions"], judged)}}
        rows.append(row)
        print(f"{call['id']}: {row['seconds']} s", file=sys.stderr, flush=True)
        if args.show:
            print(json.dumps(row, ensure_ascii=False), flush=True)
    report = {"command": f"python benchmarks/call_insights/insights.py --model {args.model} --split {args.split} "
                         f"--questions-by {args.questions_by} --read {args.read} --calls "
                         f"{args.calls.relative_to(ROOT) if args.calls.is_relative_to(ROOT) else args.calls}"
                         + (f" --only {args.only}" if args.only else ""),
              "model": model.describe(), "load_seconds": round(load_s, 2), "threads": args.threads,
              "splits": {split: summarise([r for r in rows if r["split"] == split])
                         for split in dict.fromkeys(r["split"] for r in rows)},
              "calls": rows}
    kinds = {call["id"]: call["truth"].get("kind") or tuple(call["truth"]["reason"]) for call in data["calls"]}
    openings = {call["id"]: caller_opening(call) for call in data["calls"]}
    for split, summary in report["splits"].items():
        chosen = [r for r in rows if r["split"] == split]
        summary["drivers"] = driver_scores(chosen, kinds, drivers.DRIVER_SIMILARITY, openings)
        summary["drivers_reasons_alone"] = driver_scores(chosen, kinds, REASONS_ALONE_LINE)
        if split == "dev":
            summary["drivers_grid"] = [driver_scores(chosen, kinds, t, openings) for t in SIMILARITY_GRID]
    print(json.dumps(report["splits"], indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
