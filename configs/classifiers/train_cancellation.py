#!/usr/bin/env python3
"""Train the example classifier "call is about cancellation" and save it with skops.

The transcripts are generated here from templates: calls where the caller wants to cancel (a
subscription, a plan, an account, ...) against calls about billing questions, technical problems,
deliveries and address changes. The model is a scikit-learn pipeline (TF-IDF words and word pairs,
then logistic regression) whose classes are "cancellation" and "other".

Usage:
  python configs/classifiers/train_cancellation.py cancellation.skops
  speechproc classifiers put cancellation cancellation.skops --display-name "Call is about cancellation"
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

OPENINGS = ["Thank you for calling Acme, how can I help you today?", "Hello, you are through to customer service.",
            "Good morning, this is Sam, what can I do for you?"]
CANCEL = ["I want to cancel my {thing}.", "Please cancel my {thing} today.", "I would like to close my {thing}.",
          "I need to terminate my {thing}, it is too expensive.", "How do I stop my {thing}? I do not want it anymore.",
          "I am switching to another provider so please end my {thing}."]
THINGS = ["subscription", "plan", "account", "membership", "contract", "service"]
RETENTION = ["I am sorry to hear that. Can I offer you a discount to stay?", "Before I cancel it, may I ask why?",
             "I can process the cancellation now.", "Your {thing} will end at the end of the month."]
OTHER = ["I was charged twice for my bill this month.", "My internet keeps dropping every evening.",
         "Where is my order? It was due yesterday.", "I need to change the address on my account.",
         "Can you explain this fee on my invoice?", "The app shows an error when I log in.",
         "I forgot my password and cannot log in.", "I would like to upgrade to a faster plan."]
ANSWERS = ["Let me check that for you.", "I can help with that.", "Please hold for a moment.",
           "I have fixed that for you now.", "Is there anything else I can help with?"]
CLOSINGS = ["Thank you, goodbye.", "Have a nice day.", "Thanks for your help."]


def transcript(rng: random.Random, cancellation: bool) -> str:
    thing = rng.choice(THINGS)
    parts = [rng.choice(OPENINGS)]
    if cancellation:
        parts += [rng.choice(CANCEL).format(thing=thing), rng.choice(RETENTION).format(thing=thing)]
    else:
        parts += [rng.choice(OTHER), rng.choice(ANSWERS)]
    parts += [rng.choice(ANSWERS), rng.choice(CLOSINGS)]
    return " ".join(parts)


def training_set(n: int = 400, seed: int = 0) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    labels = ["cancellation" if i % 2 else "other" for i in range(n)]
    return [transcript(rng, label == "cancellation") for label in labels], labels


def build_model():
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    texts, labels = training_set()
    return make_pipeline(TfidfVectorizer(ngram_range=(1, 2), min_df=2), LogisticRegression(max_iter=1000)).fit(
        texts, labels)


def main(out: str) -> None:
    from skops.io import dump

    dump(build_model(), out)
    print(f"saved to {Path(out).resolve()}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
