"""A conversation or an indexed media item as a query `Document`, and the compact form the index keeps."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from speechproc.conversation import Conversation, Mention
from speechproc.query import Document, Hit
from speechproc.query.evaluator import DocTurn, DocumentFields


def metric_values(conv: Conversation) -> dict[str, float]:
    return {name: float(value) for group in conv.metrics or [] for name, value in group.values.items()}


def insights_fields(conv: Conversation) -> dict[str, str]:
    """A conversation's insights as queries read them: outcome, reason, summary, answer.NAME."""
    found = conv.insights
    if found is None:
        return {}
    out: dict[str, str] = {k: v for k, v in (("outcome", found.outcome), ("reason", found.reason),
                                             ("summary", found.summary)) if v is not None}
    out |= {f"answer.{a.name}": a.answer for a in found.answers or []}
    return out


def from_conversation(conv: Conversation, status: str = "finished") -> Document:
    """The transcript of a processed conversation, turn by turn, with its media fields, metadata, metrics and
    insights."""
    tokens = ((turn.speaker, w.w, w.s, w.e, i == 0)
              for turn in conv.turns for i, w in enumerate(x for x in turn.words if x.is_word))
    doc = Document.from_tokens(tokens, length_ms=conv.length_ms, metadata=conv.metadata,
                               metrics=metric_values(conv),
                               fields={"mediaId": conv.media_id, "dateCreated": conv.date_created,
                                       "status": status})
    doc.insights = insights_fields(conv)
    return doc


def compact(doc: Document) -> list[list[Any]]:
    """The turns as the index stores them (`DocTurn.packed`)."""
    return [t.packed() for t in doc.turns]


def from_index(summary: Mapping[str, Any], load_turns: Callable[[], list[list[Any]]]) -> Document:
    """An indexed media item: its summary row from the catalog; its compact turns are read when first needed."""
    fields: DocumentFields = {"mediaId": summary["mediaId"], "dateCreated": summary["dateCreated"],
                              "status": summary["status"], "length": summary["length"], "wordCount": summary["wordCount"]}
    return Document(length_ms=summary["length"], fields=fields, metadata=summary["metadata"],
                    metrics=summary["metrics"], loader=lambda: [DocTurn(*t) for t in load_turns()],
                    insights=summary.get("insights") or {})


def occurrences(hits: Iterable[Hit]) -> dict[str, list[Mention]]:
    """Hits grouped by speaker, in time order, as v3 occurrences."""
    out: dict[str, list[Mention]] = {}
    for hit in sorted(hits):
        out.setdefault(hit.speaker, []).append(Mention(hit.s, hit.e, hit.exact))
    return out


def index_entry(conv: Conversation, status: str = "finished") -> dict[str, Any]:
    """A processed conversation's entry in the analytic index: the keyword arguments of `IndexTable.put`."""
    doc = from_conversation(conv, status)
    text = " ".join(" ".join(t.words) for t in doc.turns)
    return {"fields": doc.fields, "metadata": conv.metadata, "metrics": doc.metrics,
            "turns": compact(doc), "text": text, "insights": doc.insights}
