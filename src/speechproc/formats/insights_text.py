"""The call insights as plain text for people (`NAME.insights.txt`): what the media item's `insights` holds."""
from __future__ import annotations

from typing import Any

from speechproc.results import Insights

OUTCOMES = {"resolved": "resolved in the call", "unresolved": "not resolved", "followUp": "a follow-up was promised"}


def _at(ms: Any) -> str:
    if not isinstance(ms, int) or isinstance(ms, bool) or ms < 0:
        return ""
    minutes, seconds = divmod(ms // 1000, 60)
    return f"[{minutes:02d}:{seconds:02d}] "


def render(insights: Insights) -> str:
    """The insights of one call (the v3 JSON's `insights`) as lines of text, the times as [MM:SS]."""
    lines = []
    if "reason" in insights:
        lines.append(f"Reason for the call: {insights['reason']}")
    if "outcome" in insights:
        lines.append(f"Outcome: {OUTCOMES.get(insights['outcome'], insights['outcome'])}")
    if "summary" in insights:
        lines.append(f"Summary: {insights['summary']}")
    if "actionItems" in insights:
        lines += ["", "Promised for after the call:"]
        lines += [f"  {_at(a.get('s'))}{a.get('speaker', '')}: {a.get('text', '')}" for a in insights["actionItems"]]
        if not insights["actionItems"]:
            lines.append("  nothing")
    if "answers" in insights:
        lines += ["", "Quality questions:"]
        lines += [f"  {a.get('name', '')}: {a.get('answer', '')} {_at(a.get('s'))}- {a.get('question', '')}".replace(
            "  -", " -") for a in insights["answers"]]
    model = insights.get("model")
    if model and model.get("name"):
        lines += ["", f"Read by {model['name']}, a language model: it can be wrong; check the evidence in the call."]
    return "\n".join(lines) + "\n"
