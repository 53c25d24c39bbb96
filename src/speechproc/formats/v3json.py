"""The v3 JSON spelling of the data model: media items, transcripts and words."""
from __future__ import annotations

import base64
from typing import Any

from .. import FORMAT_VERSION
from ..conversation import Conversation, Frequency, MediaItem, Word
from .writers import get_writer

ALTERNATE_ORDER = ("dfxp", "webvtt", "srt", "text")  # the order VoiceBase sends them in


def links(media_id: str) -> dict[str, Any]:
    base = f"/v3/media/{media_id}"
    return {"self": {"href": base}, "progress": {"href": f"{base}/progress"},
            "metadata": {"href": f"{base}/metadata"}}


def word_json(w: Word) -> dict[str, Any]:
    out: dict[str, Any] = {"p": w.p, "c": w.c, "s": w.s, "e": w.e}
    if w.m is not None:
        out["m"] = w.m
    if w.frq is not None:
        out["frq"] = [{"e": f.e, "f": f.f} for f in w.frq]
    if w.v is not None:
        out["v"] = w.v
    out["w"] = w.w
    return out


def words_from_json(items: list[dict[str, Any]]) -> list[Word]:
    """Words back from v3 JSON; a token's speaker is the name of the turn it is in."""
    words, speaker = [], ""
    for item in items:
        m = item.get("m")
        if m is not None and "turn" in m.split("|"):
            speaker = item["w"]
        frq = [Frequency(f=x["f"], e=x["e"]) for x in item["frq"]] if "frq" in item else None
        words.append(Word(p=item["p"], c=item["c"], s=item["s"], e=item["e"], w=item["w"], m=m,
                          v=item.get("v"), frq=frq, speaker=speaker))
    return words


def alternate_format(name: str, words: list[Word], lang: str = "en") -> dict[str, Any]:
    writer = get_writer(name, lang)
    data = writer.render(words).encode("utf-8")
    return {"format": name, "contentType": writer.content_type, "contentEncoding": "Base64",
            "charset": "utf-8", "data": base64.b64encode(data).decode("ascii")}


def with_alternate_formats(transcript: dict[str, Any], formats: list[str]) -> dict[str, Any]:
    """A copy of a transcript object with the requested alternate formats (VoiceBase's order)."""
    words = words_from_json(transcript.get("words", []))
    wanted = [f for f in ALTERNATE_ORDER if f in formats]
    out = {k: v for k, v in transcript.items() if k != "alternateFormats"}
    if wanted:
        out["alternateFormats"] = [alternate_format(f, words) for f in wanted]
    return out


def transcript_json(conv: Conversation) -> dict[str, Any]:
    return {
        "confidence": round(conv.confidence, 4),
        "words": [word_json(w) for w in conv.words],
        "voiceActivity": [
            {"speakerName": name, "occurrences": [{"s": s, "e": e} for s, e in spans]}
            for name, spans in conv.voice_activity.items()
        ],
    }


_RESULT_SLOTS = (("knowledge", "knowledge"), ("spotting", "spotting"), ("prediction", "prediction"),
                 ("metrics", "metrics"), ("categories", "categories"), ("conversation", "conversation"),
                 ("speakerSentiments", "speaker_sentiments"), ("streams", "streams"))


def media_item(item: MediaItem, conv: Conversation | None = None) -> dict[str, Any]:
    """The v3 media item: media-level fields, then every result the conversation holds."""
    out: dict[str, Any] = {
        "_links": links(item.media_id),
        "formatVersion": FORMAT_VERSION,
        "mediaId": item.media_id,
        "status": item.status,
        "dateCreated": item.date_created,
    }
    if item.date_finished:
        out["dateFinished"] = item.date_finished
    if item.content_type:
        out["mediaContentType"] = item.content_type
    if item.length_ms is not None:
        out["length"] = item.length_ms
    out["metadata"] = item.metadata or {}
    if conv is not None:
        out["transcript"] = transcript_json(conv)
        for key, attr in _RESULT_SLOTS:
            value = getattr(conv, attr)
            if value is not None:
                out[key] = value
    if item.errors:
        out["errors"] = [{"code": code, "error": msg} for code, msg in item.errors]
    if item.warnings:
        out["warnings"] = [{"code": code, "message": msg} for code, msg in item.warnings]
    return out


def summary(item_json: dict[str, Any]) -> dict[str, Any]:
    """A media item without its results, for listings."""
    keys = ("_links", "formatVersion", "mediaId", "status", "dateCreated", "dateFinished", "mediaContentType",
            "length", "metadata", "errors", "warnings")
    return {k: item_json[k] for k in keys if k in item_json}


def progress(media_id: str, status: str, tasks: list[dict[str, Any]]) -> dict[str, Any]:
    """The v3 job object (`GET /media/{id}/progress`) with one task per stage."""
    job_id = media_id
    ids = [t["taskId"] for t in tasks]
    task_status = {"accepted": "pending", "running": "started", "finished": "finished", "failed": "failed"}
    return {
        "_links": links(media_id),
        "mediaId": media_id,
        "status": status,
        "jobId": job_id,
        "progress": {
            "jobId": job_id,
            "start": ids[0] if ids else None,
            "finish": ids[-1] if ids else None,
            "status": task_status.get(status, status),
            "tasks": [{"taskId": t["taskId"], "display": t["display"], "phase": t["phase"], "status": t["status"],
                       "dependencies": ids[i - 1 : i], "dependents": ids[i + 1 : i + 2]}
                      for i, t in enumerate(tasks)],
        },
    }
