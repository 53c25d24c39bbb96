"""Each detection of a v3 media item one by one, with the words its transcript holds there: what the call
report and the export show for review (with redaction on, those words are the replacement)."""
from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from speechproc.results import MediaItem
from speechproc.results.reading import as_dict, dicts, is_number

MAX_WORDS = 60  # words shown of one detected stretch; a PCI region can span a minute of talk
MAX_WORD_MS = 10000  # no recognised word lasts longer


@dataclass(frozen=True)
class Found:
    """One occurrence of one detection: its detector, class label, speaker, times (ms) and the words there;
    whether the PII detector's strict mode alone found it."""

    detector: str
    label: str
    speaker: str
    s: int
    e: int
    words: str
    strict_only: bool = False


def _spoken(item: MediaItem) -> list[tuple[str | None, int, int, str]]:
    """(speaker, s, e, word) of the transcript's words proper, each with the speaker of its turn and the
    punctuation written after it."""
    words = dicts(as_dict(item.get("transcript")).get("words"))
    out: list[tuple[str | None, int, int, str]] = []
    speaker = None
    for w in words:
        flags = str(w.get("m") or "").split("|")
        if "turn" in flags:
            speaker = str(w.get("w", ""))
        elif "punc" in flags and out and out[-1][0] == speaker:
            out[-1] = (*out[-1][:3], out[-1][3] + str(w.get("w", "")))  # "Reyes" "." as "Reyes."
        elif flags == [""] and is_number(w.get("s")) and is_number(w.get("e")):
            out.append((speaker, int(w["s"]), int(w["e"]), str(w.get("w", ""))))
    return out


def _words_in(spoken: Sequence[tuple[str | None, int, int, str]], starts: Sequence[int], speaker: str, s: int,
              e: int) -> str:
    """The speaker's words overlapping [s, e] (a word without duration at its edge too), as the redactor counts;
    `starts` are the words' start times, in order."""
    first = bisect.bisect_left(starts, s - MAX_WORD_MS)
    inside = [w for sp, ws, we, w in spoken[first:bisect.bisect_right(starts, e)]
              if sp in (speaker, None) and (ws < e and we > s or ws == we and s <= ws <= e)]
    return " ".join(inside[:MAX_WORDS]) + (" …" if len(inside) > MAX_WORDS else "")


def found(item: MediaItem) -> list[Found]:
    """Every occurrence of every detection of the item, in time order."""
    detectors = dicts(as_dict(item.get("prediction")).get("detectors"))
    spoken = sorted(_spoken(item), key=lambda w: w[1])
    starts = [w[1] for w in spoken]
    out = []
    for detector in detectors:
        for detection in dicts(detector.get("detections")):
            for segment in dicts(detection.get("detectedSegments")):
                speaker = str(segment.get("speakerName", ""))
                for o in dicts(segment.get("occurrences")):
                    if is_number(o.get("s")) and is_number(o.get("e")) and o["e"] >= o["s"]:
                        s, e = int(o["s"]), int(o["e"])
                        out.append(Found(str(detector.get("detectorName", "")),
                                         str(detection.get("detectorClassLabel", "")), speaker, s, e,
                                         _words_in(spoken, starts, speaker, s, e),
                                         detection.get("strictOnly") is True))
    return sorted(out, key=lambda f: (f.s, f.e, f.detector, f.label))
