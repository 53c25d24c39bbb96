"""The call report's section on detections and classifiers: each detector's stretches by kind and speaker,
then every detection one by one with the words the transcript holds there (for review: with redaction on,
those words are the replacement), and each classifier's prediction."""
from __future__ import annotations

from collections.abc import Sequence

from speechproc.formats.detected import Found
from speechproc.report.page import Linker, Moment, Section, esc, number, table
from speechproc.report.player import is_redacted
from speechproc.results import DetectorResult, MediaItem

MAX_ROWS = 500  # detections listed one by one; the rest are counted


def _by_detector(detectors: Sequence[DetectorResult], anchors: Linker, found: Sequence[Found]) -> str:
    rows = []
    for d in detectors:
        name = str(d.get("detectorName", ""))
        mine = [x for x in found if x.detector == name]
        by_speaker: dict[tuple[str, str], list[Moment]] = {}
        for x in mine:
            by_speaker.setdefault((x.label, x.speaker), []).append((x.s, None))
        where = "".join(f"<div>{esc(f'{label} · {speaker}' if label else speaker)}: "
                        f"{anchors.links(moments, speaker)}</div>"
                        for (label, speaker), moments in by_speaker.items())
        shown = str(d.get("detectorDisplayName") or name)
        if isinstance(d.get("strictness"), str):
            shown += f" ({d['strictness']})"
        rows.append((esc(shown), str(len(mine)), where or "none"))
    return "<h3>Detections</h3>" + table(["Detector", "Stretches", "Where"], rows, numeric=(1,))


def _one_by_one(anchors: Linker, found: Sequence[Found], strict: bool) -> str:
    """Every detection with its words; with a PII detector in strict mode, a column saying which of them its
    strict mode alone found."""
    rows = [(anchors.link(x.s, None, x.speaker), esc(x.detector), esc(x.label), esc(x.speaker), esc(x.words))
            + (("strict only" if x.strict_only else "",) if strict else ()) for x in found[:MAX_ROWS]]
    more = len(found) - MAX_ROWS
    header = ["When", "Detector", "Kind", "Speaker", "Words"] + (["Found by"] if strict else [])
    return ("<h3>Each detection</h3>" + table(header, rows)
            + (f'<p class="note">and {more} more, in the .v3.json</p>' if more > 0 else ""))


def predictions_section(item: MediaItem, anchors: Linker, found: Sequence[Found]) -> Section | None:
    """Detections (by detector, then one by one) and classifiers; None when the item has neither. The item
    is a readable one (see `speechproc.results.reading.readable`)."""
    prediction = item.get("prediction", {})
    detectors = prediction.get("detectors", [])
    classifiers = prediction.get("classifiers", [])
    if not detectors and not classifiers:
        return None
    body = ""
    if detectors:
        body += _by_detector(detectors, anchors, found)
        if found:
            body += _one_by_one(anchors, found, any(d.get("strictness") == "strict" for d in detectors))
        body += ('<p class="note">Detected stretches are underlined in the transcript'
                 + ("; the redacted audio has them replaced by a tone." if is_redacted(item) else ".") + "</p>")
    if classifiers:
        rows = [(esc(c.get("classifierDisplayName") or c.get("classifierName", "")), esc(c.get("predictedClassLabel", "")),
                 number(c.get("predictionScore"))) for c in classifiers]
        body += "<h3>Classifiers</h3>" + table(["Classifier", "Prediction", "Score"], rows, numeric=(2,))
    return Section("predictions", "Detections and classifiers", body)
