"""Word error rate for tests: lowercase, digits and money spelled out, punctuation dropped."""
from __future__ import annotations

import json
import os
import re

from num2words import num2words


def normalize(text: str) -> list[str]:
    t = text.lower().replace("-", " ")
    t = re.sub(r"\$(\d+)", r"\1 dollars", t)
    t = re.sub(r"\d+", lambda m: " " + num2words(int(m.group())) + " ", t)
    t = re.sub(r"[^a-z' ]", " ", t.replace("-", " "))
    return t.replace("'", "").split()


def word_errors(ref: list[str], hyp: list[str]) -> int:
    row = list(range(len(hyp) + 1))
    for i in range(1, len(ref) + 1):
        prev, row[0] = row[0], i
        for j in range(1, len(hyp) + 1):
            cur = min(row[j] + 1, row[j - 1] + 1, prev + (ref[i - 1] != hyp[j - 1]))
            prev, row[j] = row[j], cur
    return row[len(hyp)]


def wer(reference: str, hypothesis: str) -> float:
    """The word error rate of `hypothesis`. With WER_LOG set, each one measured is also appended to that file
    with the test that measured it: how the thresholds of the recognition tests were set from runs under
    every CPU path (see docs/scaling.md, Reproducibility)."""
    ref = normalize(reference)
    rate = word_errors(ref, normalize(hypothesis)) / max(1, len(ref))
    if os.environ.get("WER_LOG"):
        test = os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0]
        with open(os.environ["WER_LOG"], "a", encoding="utf-8") as log:
            log.write(json.dumps({"test": test, "wer": round(rate, 4)}) + "\n")
    return rate
