#!/usr/bin/env python3
"""Speed of the query language: 50 categories on a one-hour call, and corpus queries over 10,000 calls.

1. Categories: the sample call's script (sample_media/truth.json, 14 turns) repeated to one hour
   (52 copies: 9,360 words, 728 turns, 84 minutes) is evaluated against 50 category queries that use every
   construct (phrases, wildcards, slop, turn scope, whole-call AND/OR/NOT, time windows, fields).
   Timed: the categories stage as the pipeline runs it (building the query document included).
2. Corpus: 10,000 synthetic two-party calls (3-8 minutes, 350-900 words, from a contact-centre
   vocabulary with topic phrases spread at known rates) are indexed in a fresh catalog; then each
   query below is timed through `speechproc.api.query` (FTS5 narrowing, then the evaluator).

Usage: python benchmarks/matching/query_speed.py [--calls 10000] [--json OUT]
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

FILLER = ("okay so the we you it that this is was have can will just i my your our account please thank "
          "thanks yes no well right sure let me check see number order today yesterday time day week month "
          "system service team call calling help question problem issue information details address email "
          "phone name date moment again also really very good great fine sorry understand know think need want "
          "like would could should about with from into for on in at by to of and or but because if then").split()
TOPICS = {  # phrase -> share of calls that contain it
    "i would like a refund": 0.12, "cancel my subscription": 0.05, "speak to a supervisor": 0.01,
    "this call may be recorded": 0.30, "charged twice": 0.03, "my internet is down": 0.08,
    "change my password": 0.06, "thank you for calling": 0.6,
}
QUERIES = [
    'SELECT mediaId FROM media WHERE "Agent" SAYS "refund*"',
    'SELECT mediaId, hits() FROM media WHERE "Caller" SAYS "cancel* subscription"/1 AND NOT "renew*"',
    'SELECT mediaId FROM media WHERE "Caller" SAYS "supervisor*" && ("speak*" || "talk*")',
    'SELECT mediaId, hits() FROM media WHERE "Agent" SAYS "may be recorded"/1 [0s, 60s]',
    'SELECT * FROM media MATCH \'charged twice\'',
    'SELECT mediaId FROM media WHERE * SAYS "thank* for calling"/2 AND metadata.extended.queue = "billing"',
    'SELECT mediaId FROM media WHERE metrics:"agent-talk-ratio" > 0.6 AND wordCount > 600 ORDER BY wordCount DESC',
    'SELECT mediaId FROM media WHERE * SAYS "password" AND NOT "internet" LIMIT 50',
]


def one_hour_call():
    from text_helpers import conversation

    truth = json.loads((ROOT / "sample_media" / "truth.json").read_text())["recordings"][0]["turns"]
    turns = [(t["speaker"], t["text"]) for t in truth] * 52
    conv = conversation(*turns)
    conv.channels = []
    return conv


def fifty_categories() -> tuple[dict, ...]:
    words = ["refund*", "bill*", "charg*", "account", "email", "help", "sorry", "error", "fixed", "thank*",
             "number", "moment", "hold", "wonderful", "confirm*", "receive", "business days", "double charge",
             "internet", "system", "great", "anything else", "happen*", "twice", "check"]
    rng = random.Random(1)
    queries = [(ROOT / "configs" / "categories" / f"{n}.yaml") for n in
               ("greeting", "recording-disclosure", "cancellation-intent", "escalation-request",
                "payment-discussed", "agent-apology")]
    import yaml

    defs = [{"categoryName": p.stem, "query": yaml.safe_load(p.read_text())["query"]} for p in queries]
    shapes = ['"Agent" SAYS "{a}" && "{b}"', '* SAYS "{a} {b}"/3', '"Caller" SAYS "{a}" AND NOT "{b}"',
              '* SAYS ("{a}" || "{b}") [-120s,]', '"Agent" SAYS "{a}" && ! "{b}"', '* SAYS "{a}" OR "{b}" [0s, 300s]',
              '"Caller" SAYS "{a}" AND wordCount > 1000', '* SAYS "{a}" AND "{b}" AND "{c}"']
    while len(defs) < 50:
        a, b, c = rng.sample(words, 3)
        defs.append({"categoryName": f"c{len(defs)}", "query": rng.choice(shapes).format(a=a, b=b, c=c)})
    return tuple(defs)


def time_categories() -> dict:
    from speechproc.stages.matching import categories

    conv = one_hour_call()
    definitions = fifty_categories()
    categories.evaluate_all(conv, definitions)  # parse the queries once, as a long run would
    runs = []
    for _ in range(5):
        started = time.perf_counter()
        results = categories.evaluate_all(conv, definitions)
        runs.append(time.perf_counter() - started)
    words = sum(1 for w in conv.words if w.m is None)
    return {"words": words, "turns": len(conv.turns), "length_s": conv.length_ms / 1000, "categories": 50,
            "matched": sum(r.matched for r in results), "seconds_median": round(statistics.median(runs), 3)}


def synthetic_call(rng: random.Random, i: int):
    from speechproc.query.evaluator import DocTurn

    turns, t = [], 1000
    total = rng.randint(350, 900)
    phrases = [p for p, share in TOPICS.items() if rng.random() < share]
    said = 0
    speaker_words = {"Agent": 0, "Caller": 0}
    while said < total:
        speaker = "Agent" if len(turns) % 2 == 0 else "Caller"
        words = [rng.choice(FILLER) for _ in range(rng.randint(4, 30))]
        if phrases and rng.random() < 0.3:
            words[rng.randrange(len(words)):0] = phrases.pop().split()
        starts = [t + k * 350 for k in range(len(words))]
        turns.append(DocTurn(speaker, words, None, starts, [s + 300 for s in starts]))
        t = starts[-1] + 300 + rng.randint(300, 2500)
        said += len(words)
        speaker_words[speaker] += len(words)
    return turns, t, speaker_words["Agent"] / said


def build_corpus(catalog, calls: int) -> float:
    from speechproc.query import Document, documents

    rng = random.Random(7)
    started = time.perf_counter()
    for i in range(calls):
        turns, length, agent_share = synthetic_call(rng, i)
        doc = Document(turns, length_ms=length)
        media_id = f"00000000-0000-4000-8000-{i:012d}"
        fields = {"dateCreated": f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}T00:00:00.000Z", "status": "finished",
                  "length": length, "wordCount": doc.fields["wordCount"]}
        metadata = {"title": f"call {i}", "extended": {"queue": rng.choice(["billing", "tech", "sales"])}}
        catalog.index.put(media_id, fields, metadata, {"agent-talk-ratio": round(agent_share, 2)},
                          documents.compact(doc), " ".join(" ".join(t.words) for t in turns))
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=10000)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    from speechproc import api
    from speechproc.store.database.catalog import Catalog

    result = {"categories_one_hour_call": time_categories()}
    print("50 categories on a one-hour call:", result["categories_one_hour_call"])
    with tempfile.TemporaryDirectory() as tmp:
        with Catalog(Path(tmp) / "catalog.sqlite3") as catalog:
            seconds = build_corpus(catalog, args.calls)
            result["corpus"] = {"calls": args.calls, "index_seconds": round(seconds, 1),
                                "database_mb": round((Path(tmp) / "catalog.sqlite3").stat().st_size / 2**20, 1),
                                "queries": []}
            print(f"indexed {args.calls} calls in {seconds:.1f} s")
            for query in QUERIES:
                api.query(query, catalog)  # warm the page cache once
                runs = []
                for _ in range(3):
                    started = time.perf_counter()
                    out = api.query(query, catalog)
                    runs.append(time.perf_counter() - started)
                row = {"query": query, "totalResults": out["totalResults"], "seconds_median": round(statistics.median(runs), 3)}
                result["corpus"]["queries"].append(row)
                print(f"{row['seconds_median']:6.3f} s  {row['totalResults']:5d} results  {query}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
