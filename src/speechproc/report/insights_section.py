"""The call report's section on the call insights: reason, outcome, summary, what was promised for after the
call and the quality questions' answers, each piece of evidence linked to its moment."""
from __future__ import annotations

from speechproc.report.page import Linker, Section, esc, facts, table
from speechproc.results import MediaItem

OUTCOMES_SHOWN = {"resolved": "resolved in the call", "unresolved": "not resolved", "followUp": "follow-up promised"}


def insights_section(item: MediaItem, anchors: Linker) -> Section | None:
    """What happened in the call (speechproc's `insights`): each piece of evidence linked to its moment. The
    item is a readable one (see `speechproc.results.reading.readable`)."""
    found = item.get("insights", {})
    if not found:
        return None
    shown = []
    outcome = found.get("outcome")
    for label, value in (("Reason for the call", found.get("reason")),
                         ("Outcome", OUTCOMES_SHOWN.get(outcome, outcome) if isinstance(outcome, str) else None),
                         ("Summary", found.get("summary"))):
        if isinstance(value, str):
            shown.append((label, esc(value)))
    body = facts(shown) if shown else ""
    actions = found.get("actionItems", [])
    if "actionItems" in found:
        rows = [(anchors.link(a.get("s"), None, str(a.get("speaker", ""))), esc(a.get("speaker", "")),
                 esc(a.get("text", ""))) for a in actions]
        body += "<h3>Promised for after the call</h3>" + (
            table(["When", "Who", "What"], rows) if rows else '<p class="note">Nothing was promised.</p>')
    answers = found.get("answers", [])
    if answers:
        rows = [(esc(a.get("question", "")), _answer(a.get("answer")),
                 anchors.link(a["s"]) if "s" in a else "") for a in answers]
        body += "<h3>Quality questions</h3>" + table(["Question", "Answer", "Shown at"], rows)
    model = found.get("model", {})
    if model.get("name"):
        body += f'<p class="note">Read by {esc(model["name"])}: a language model, which can be wrong.</p>'
    return Section("insights", "What happened in the call", body)


def _answer(value: object) -> str:
    return '<span class="yes">yes</span>' if value == "yes" else esc(value if value in ("no", "unclear") else "")
