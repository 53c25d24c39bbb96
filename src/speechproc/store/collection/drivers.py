"""Call drivers: the reasons of many calls (their `insights.reason`) grouped into the few things people call
about, each with how many calls, how they ended, and example calls.

Each call is placed by what its caller wanted (`call_vectors`): the gist of its reason (what was wanted or went
wrong, without "The caller wanted to" or what the agent did) and the caller's own words in the call's first
turns (`caller_opening`), each embedded with the bundled sentence encoder (MiniLM), summed and scaled to
length one. The calls are grouped by agglomerative clustering (average linkage over cosine distance), cut
where the groups' calls are less alike than DRIVER_SIMILARITY (the line with the best mean pairwise F1 over
the insights benchmark's read sets, among those that keep a dominant kind of call together; checked on a
set held out: docs/benchmarks.md, "Call drivers: the caller's opening"). A driver is named by its most
typical reason (the call closest to the group's centroid); its examples are its most typical calls.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict, cast

import numpy as np

from speechproc import answers
from speechproc.engines.models import BUNDLED_SENTENCE_ENCODER, load_sentence_encoder
from speechproc.results import MediaItem, reading
from speechproc.results.reading import as_dict, dicts, text_of

DRIVER_SIMILARITY = 0.35  # calls at least this alike on average (cosine) make one driver
OPENING_TURNS = 4  # the call's first turns, whose caller's words say what they want
OPENING_CHARS = 300
MAX_EXAMPLES = 3
MAX_GROUPED = 5000  # calls grouped at most (their distances take MAX_GROUPED² floats): an even sample beyond
OUTCOMES = ("resolved", "unresolved", "followUp")


class _GroupedRequired(TypedDict):
    calls: int
    drivers: list[answers.Driver]


class Grouped(_GroupedRequired, total=False):
    """The drivers of the calls, the biggest first; `grouped`: how many were grouped when only a sample was."""

    grouped: int


@dataclass(frozen=True)
class Reasoned:
    """One call with a reason: its media id, reason and outcome (None when not asked for)."""

    media_id: str
    reason: str
    outcome: str | None
    opening: str = ""  # the caller's words in the call's first turns (`caller_opening`); "" when not known


def of_items(items: Sequence[Mapping[str, Any]]) -> list[Reasoned]:
    """The calls among media items (v3 JSON) whose insights name a reason, each with its caller's opening words."""
    out = []
    for item in items:
        found: Mapping[str, Any] = item["insights"] if isinstance(item.get("insights"), dict) else {}
        if isinstance(found.get("reason"), str) and found["reason"].strip():
            outcome = found.get("outcome") if found.get("outcome") in OUTCOMES else None
            opening = caller_opening(turns_of(item))
            out.append(Reasoned(str(item.get("mediaId", "")), found["reason"].strip(), outcome, opening))
    return out


def turns_of(item: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(speaker, text) of each turn of a media item's transcript (v3 JSON) that holds a word (`reading.turns`,
    `reading.text_of`). Tokens without a text, or with flags that are not text, are left out; their times are
    not read here."""
    tokens = [{**word, "s": 0, "e": 0} for word in dicts(as_dict(item.get("transcript")).get("words"))
              if isinstance(word.get("w"), str) and isinstance(word.get("m") or "", str)]
    found = reading.turns(cast(MediaItem, {"transcript": {"words": tokens}}))
    return [(turn["speaker"], text_of(turn["words"])) for turn in found if any(not w.get("m") for w in turn["words"])]


def caller_opening(turns: Sequence[tuple[str, str]]) -> str:
    """What the caller says in the call's first OPENING_TURNS turns ((speaker, text) pairs), at most
    OPENING_CHARS characters: the turns of the speaker named Caller; when no speaker is, those of every
    speaker but the one who speaks first (who answers the call); a recording of one speaker, theirs."""
    first = list(turns[:OPENING_TURNS])
    if not first:
        return ""
    if any(speaker.strip().lower() == "caller" for speaker, _ in turns):
        said = [text for speaker, text in first if speaker.strip().lower() == "caller"]
    else:
        said = [text for speaker, text in first if speaker != first[0][0]] or [text for _, text in first]
    return " ".join(said)[:OPENING_CHARS].strip()


# What a reason says about the call rather than what the caller wanted: "The caller wanted to", ", and the
# agent ...". Left out before the reasons are compared, so that they are alike by what was wanted.
_PREAMBLE = re.compile(r"^\s*(the\s+)?(caller|customer)\s+(was\s+|is\s+)?(wanted|wants|called|calls|would like|"
                       r"needed|needs|asked|asks|reported|reports|said|says|unable|trying|tried)?\s*"
                       r"(to\s+|that\s+|about\s+|for\s+)?(report\s+(that\s+)?)?", re.IGNORECASE)
_AFTERWORD = re.compile(r"\s*(,\s*(and|but|which|so)\b|\bbut\b|\band the agent\b|\bwhich\b).*$", re.IGNORECASE)


def gist(reason: str) -> str:
    """The part of a reason that says what was wanted or what went wrong (what drivers are grouped by)."""
    core = _AFTERWORD.sub("", _PREAMBLE.sub("", reason, count=1)).strip(" .,")
    return core or reason


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """`vectors` with each row scaled to length one (a row of zeros stays zeros)."""
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


def reason_vectors(reasons: Sequence[str], encoder: str = BUNDLED_SENTENCE_ENCODER) -> np.ndarray:
    """The reasons' gists embedded by `encoder`, each of length one: what drivers are grouped by."""
    return unit_rows(np.asarray(load_sentence_encoder(encoder).encode([gist(r) for r in reasons]), dtype=np.float32))


def call_vectors(calls: Sequence[Reasoned], encoder: str = BUNDLED_SENTENCE_ENCODER) -> np.ndarray:
    """What drivers are grouped by, a unit row per call: its reason's vector (`reason_vectors`) plus the unit
    vector of its caller's opening words, scaled to length one; the reason's alone where the opening is not
    known."""
    vectors = reason_vectors([c.reason for c in calls], encoder)
    known = [k for k, c in enumerate(calls) if c.opening.strip()]
    if known:
        openings = unit_rows(np.asarray(load_sentence_encoder(encoder).encode([calls[k].opening for k in known]),
                                        dtype=np.float32))
        vectors[known] = unit_rows(vectors[known] + openings)
    return vectors


def clusters(vectors: np.ndarray, similarity: float = DRIVER_SIMILARITY) -> list[list[int]]:
    """Groups of row indices of unit `vectors`: average-linkage agglomerative clustering cut at `similarity`;
    the largest group first, ties in order of first row (the same groups for the same rows, every run)."""
    count = len(vectors)
    if count == 0:
        return []
    if count == 1:
        return [[0]]
    from scipy.cluster.hierarchy import fcluster, linkage

    distances = np.clip(1.0 - vectors @ vectors.T, 0.0, 2.0)
    condensed = distances[np.triu_indices(count, k=1)]
    labels = fcluster(linkage(condensed, method="average"), t=1.0 - similarity, criterion="distance")
    groups: dict[int, list[int]] = {}
    for row, label in enumerate(labels):
        groups.setdefault(int(label), []).append(row)
    return sorted(groups.values(), key=lambda g: (-len(g), g[0]))


def drivers(calls: Sequence[Reasoned], encoder: str = BUNDLED_SENTENCE_ENCODER,
            similarity: float = DRIVER_SIMILARITY) -> Grouped:
    """`{calls, drivers: [{driver, calls, share, outcomes: {resolved, unresolved, followUp} (shares of the
    calls whose outcome is known), examples: [{mediaId, reason}]}]}`, the biggest driver first. Beyond
    MAX_GROUPED calls an even sample of them is grouped, and `grouped` says how many."""
    if not calls:
        return {"calls": 0, "drivers": []}
    total = len(calls)
    if total > MAX_GROUPED:  # an even sample, the same every time: shares hold, counts are of the sample
        calls = [calls[k * total // MAX_GROUPED] for k in range(MAX_GROUPED)]
    vectors = call_vectors(calls, encoder)
    found: list[answers.Driver] = []
    for group in clusters(vectors, similarity):
        centroid = vectors[group].mean(axis=0)
        typical = sorted(group, key=lambda k: (-float(vectors[k] @ centroid), k))
        known = [calls[k].outcome for k in group if calls[k].outcome is not None]
        outcomes = {name: round(known.count(name) / len(known), 3) for name in OUTCOMES} if known else {}
        found.append({"driver": calls[typical[0]].reason, "calls": len(group),
                      "share": round(len(group) / len(calls), 3), "outcomes": outcomes,
                      "examples": [{"mediaId": calls[k].media_id, "reason": calls[k].reason}
                                   for k in typical[:MAX_EXAMPLES]]})
    out: Grouped = {"calls": total, "drivers": found}
    if total > len(calls):
        out["grouped"] = len(calls)
    return out
