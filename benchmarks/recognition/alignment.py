#!/usr/bin/env python3
"""How well a human transcript aligned to our recognition gets its word times.

For the three spontaneous monologues of ../shared/evaldata/mfa-tests (about 25 s each, with
fillers, cut-offs and a cold) that come with forced-aligner word timings (`textgrid/*.words.tsv`):
recognise the audio (tiny.en, the default configuration), align the reference text of the manifest
to the machine words (speechproc.stages.recognition.align), and compare each aligned word's start with the aligner's
start for the same word (words paired in order). Reported: median and 90th percentile absolute start
error, the share within 100 ms and 200 ms, and the same for the words the recogniser got right (their
machine times) as a baseline. The aligner's own timings are machine output; treat them with a
tolerance of 100-200 ms.

Usage: python benchmarks/recognition/alignment.py [--recognition batched|sequential] [--json OUT]
"""
from __future__ import annotations

import argparse
import csv
import json
import statistics
import tempfile
from difflib import SequenceMatcher
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MFA = ROOT.parent / "shared" / "evaldata" / "mfa-tests"
NAMES = ("acoustic_corpus", "cold_corpus", "cold_corpus3")


def reference_timings(name: str) -> list[tuple[str, int]]:
    with open(MFA / "textgrid" / f"{name}.words.tsv") as f:
        return [(row["word"], round(float(row["start"]) * 1000)) for row in csv.DictReader(f, delimiter="\t")
                if row["word"].strip()]


def manifest_text(name: str) -> str:
    with open(MFA / "manifest.tsv") as f:
        return next(row["text"] for row in csv.DictReader(f, delimiter="\t") if Path(row["file"]).stem == name)


def errors(words: list[tuple[str, int]], truth: list[tuple[str, int]]) -> list[int]:
    from speechproc.query.tree import normalise_word

    a = [normalise_word(w) for w, _ in words]
    b = [normalise_word(w) for w, _ in truth]
    out = []
    for block in SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks():
        out += [abs(words[block.a + k][1] - truth[block.b + k][1]) for k in range(block.size)]
    return out


def summary(errs: list[int], total: int) -> dict:
    ordered = sorted(errs)
    return {"words": len(errs), "of": total, "median_ms": statistics.median(ordered) if ordered else None,
            "p90_ms": ordered[int(0.9 * (len(ordered) - 1))] if ordered else None,
            "within_100ms": round(sum(e <= 100 for e in errs) / len(errs), 3) if errs else None,
            "within_200ms": round(sum(e <= 200 for e in errs) / len(errs), 3) if errs else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--recognition", choices=("batched", "sequential"), default="batched",
                        help="speechproc's recognition path (default: batched, the default of speechproc)")
    args = parser.parse_args()

    from speechproc import api
    from speechproc.config import v3 as config
    from speechproc.formats import v3json
    from speechproc.stages.recognition import align
    from speechproc.store.database.catalog import Catalog

    raw = {"speechproc": {"batched": args.recognition == "batched"}}
    aligned_errs, machine_errs, total = [], [], 0
    from cpu_path import describe  # the machine words' times hold for this CPU path of CTranslate2

    result: dict = {"recognition": args.recognition, "cpu_path": describe(), "files": {}}
    with tempfile.TemporaryDirectory() as tmp, Catalog(Path(tmp) / "catalog.sqlite3") as catalog:
        for name in NAMES:
            batch = api.process([MFA / "audio" / f"{name}.wav"], config.validate(raw), out_dir=Path(tmp) / name,
                                catalog=catalog, deliver=False)
            item = json.loads(Path(batch.items[0].outputs["json"]).read_text())
            machine = [w for w in v3json.words_from_json(item["transcript"]["words"]) if w.is_word]
            truth = reference_timings(name)
            result_words = align.align_text(manifest_text(name), machine)
            aligned = [(w.text, w.s) for w in result_words.words]
            a_errs = errors(aligned, truth)
            m_errs = errors([(w.w, w.s) for w in machine], truth)
            aligned_errs += a_errs
            machine_errs += m_errs
            total += len(truth)
            result["files"][name] = {"aligned": summary(a_errs, len(truth)), "machine_words": summary(m_errs, len(truth)),
                                     "matched_share": round(result_words.matched_share, 3)}
            print(name, result["files"][name])
    result["aligned"] = summary(aligned_errs, total)
    result["machine_words"] = summary(machine_errs, total)
    print("aligned reference words:", result["aligned"])
    print("recognised words (baseline):", result["machine_words"])
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
