"""The v3 JSON spelling of the data model: media items, transcripts and words."""
from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any, cast

from speechproc import FORMAT_VERSION
from speechproc import results as v3
from speechproc.conversation import (
    CallInsights,
    CategoryResult,
    Conversation,
    DetectedClass,
    DetectorFindings,
    Discovery,
    FrequencyPeak,
    KeyTerm,
    KeywordGroupResult,
    MediaFacts,
    Mention,
    MetricValues,
    Sentence,
    Token,
    VerbNoun,
)

ALTERNATE_ORDER = ("dfxp", "webvtt", "srt", "text")  # the order VoiceBase sends them in


# The analytics callback body: the media-level fields it always has, and the item keys each `include`
# name adds (all of them when `include` is omitted); the old v2-beta contract's names of the same.
CALLBACK_ALWAYS = ("_links", "formatVersion", "mediaId", "accountId", "accountName", "status", "dateCreated",
                   "dateFinished", "mediaContentType", "length", "encryption")
CALLBACK_SECTIONS = {"metadata": ("metadata",), "transcript": ("transcript",), "knowledge": ("knowledge",),
                     "prediction": ("prediction",), "spotting": ("spotting",), "streams": ("streams",),
                     "metrics": ("metrics",), "speakerSentiments": ("speakerSentiments",),
                     "conversation": ("conversation",), "categories": ("categories",), "insights": ("insights",),
                     "messages": ("warnings", "errors")}
V2_SECTIONS = {"metadata": "metadata", "transcript": "transcripts", "knowledge": "keywords", "prediction": "predictions"}

def iso(moment: datetime) -> str:
    """ISO 8601 UTC with milliseconds, e.g. 2026-11-21T19:22:03.123Z."""
    moment = moment.astimezone(timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def utc_now() -> str:
    return iso(datetime.now(timezone.utc))


def links(media_id: str) -> v3.MediaLinks:
    base = f"/v3/media/{media_id}"
    return {"self": {"href": base}, "progress": {"href": f"{base}/progress"},
            "metadata": {"href": f"{base}/metadata"}}


def word_json(w: Token) -> v3.Word:
    details: v3.WordDetails = {}
    if w.m is not None:
        details["m"] = w.m
    if w.frq is not None:
        details["frq"] = [{"e": f.e, "f": f.f} for f in w.frq]
    if w.v is not None:
        details["v"] = w.v
    return {"p": w.p, "c": w.c, "s": w.s, "e": w.e, **details, "w": w.w}  # the word last, as VoiceBase writes it


def words_from_json(items: list[v3.Word]) -> list[Token]:
    """Words back from v3 JSON; a token's speaker is the name of the turn it is in."""
    words, speaker = [], ""
    for item in items:
        m = item.get("m")
        if m is not None and "turn" in m.split("|"):
            speaker = item["w"]
        frq = [FrequencyPeak(f=x["f"], e=x["e"]) for x in item["frq"]] if "frq" in item else None
        words.append(Token(p=item["p"], c=item["c"], s=item["s"], e=item["e"], w=item["w"], m=m,
                          v=item.get("v"), frq=frq, speaker=speaker))
    return words


def transcript_json(conv: Conversation) -> v3.Transcript:
    return {
        "confidence": round(conv.confidence, 4),
        "words": [word_json(w) for w in conv.words],
        "voiceActivity": [
            {"speakerName": name, "occurrences": [{"s": s, "e": e} for s, e in spans]}
            for name, spans in conv.voice_activity.items()
        ],
    }


def mentions_json(mentions: dict[str, list[Mention]]) -> list[v3.SpeakerMentions]:
    return [{"speakerName": speaker, "occurrences": [{"s": o.s, "e": o.e, "exact": o.exact} for o in occurrences]}
            for speaker, occurrences in mentions.items()]


def keyword_json(k: KeyTerm) -> v3.Keyword:
    if k.relevance is None:
        return {"keyword": k.keyword, "mentions": mentions_json(k.mentions)}
    return {"keyword": k.keyword, "relevance": k.relevance, "mentions": mentions_json(k.mentions)}


def categories_json(results: list[CategoryResult]) -> list[v3.Category]:
    out: list[v3.Category] = []
    for r in results:
        item: v3.Category = {"categoryName": r.name, "categoryValue": 1 if r.matched else 0}
        if r.matched and r.matches:
            item["categoryMatches"] = mentions_json(r.matches)
        out.append(item)
    return out


def spotting_json(groups: list[KeywordGroupResult]) -> v3.Spotting:
    # the specification types `score` as a string (VoiceBase sent "0.4439")
    return {"groups": [{"groupName": g.name, "spotted": g.spotted, "score": f"{g.score:.4f}",
                        "spottedKeywords": [keyword_json(k) for k in g.keywords]} for g in groups]}


def knowledge_json(k: Discovery) -> v3.Knowledge:
    return {
        "keywords": [keyword_json(kw) for kw in k.keywords],
        "topics": [{"topicName": t.name, "relevance": t.relevance,
                    "subtopics": [{"name": name, "score": score} for name, score in t.subtopics],
                    "keywords": [keyword_json(kw) for kw in t.keywords]} for t in k.topics],
    }


def metrics_json(groups: list[MetricValues]) -> list[v3.MetricGroup]:
    # VoiceBase sends every metric value as a double, counts included
    return [{"metricGroupName": g.name,
             "metricValues": [{"metricName": name, "metricValue": float(value)} for name, value in g.values.items()]}
            for g in groups]


def verb_noun_json(pairs_by_speaker: dict[str, list[VerbNoun]]) -> v3.ConversationResult:
    def pair(p: VerbNoun) -> v3.VerbNounPair:
        out: v3.VerbNounPair = {"s": p.s, "e": p.e, "verb": p.verb, "noun": p.noun}
        if p.verb_neg:
            out["verbNeg"] = p.verb_neg
        if p.noun_neg:
            out["nounNeg"] = p.noun_neg
        if p.question:
            out["question"] = True
        return out

    return {"speakerVerbNounPairs": [{"speakerName": speaker, "verbNounPairs": [pair(p) for p in pairs]}
                                     for speaker, pairs in pairs_by_speaker.items()]}


def speaker_sentiments_json(sentences: list[Sentence], speakers: list[str]) -> list[v3.SpeakerSentiment]:
    return [{"speakerName": speaker,
             "sentimentValues": [{"s": s.s, "e": s.e, "v": s.sentiment} for s in sentences
                                 if s.speaker == speaker and s.sentiment is not None]}
            for speaker in speakers]


def prediction_json(conv: Conversation) -> v3.Prediction:
    return {
        "classifiers": [{"classifierId": c.classifier_id, "classifierName": c.name, "classifierVersion": c.version,
                         "classifierDisplayName": c.display_name, "classifierType": c.type,
                         "predictedClassLabel": c.label, "predictionScore": c.score,
                         "predictedClass": c.predicted_class} for c in conv.classifiers or []],
        "detectors": [_detector_json(d) for d in conv.detectors or []],
    }


def _detection_json(x: DetectedClass) -> v3.Detection:
    out: v3.Detection = {"detectorClass": x.detector_class, "detectorClassLabel": x.label,
                         "detectedSegments": [{"speakerName": speaker, "occurrences": [{"s": s, "e": e} for s, e in spans]}
                                              for speaker, spans in x.segments.items()]}
    if x.strict_only:
        out["strictOnly"] = True
    return out


def _detector_json(d: DetectorFindings) -> v3.DetectorResult:
    """One detector's result; the PII detector's also says its `strictness`, and marks `strictOnly` what its
    strict mode alone found."""
    out: v3.DetectorResult = {
        "detectorId": d.detector_id, "detectorName": d.name, "detectorVersion": d.version,
        "detectorDisplayName": d.display_name, "detectorType": "binary",
        "detections": [_detection_json(x) for x in d.detections]}
    if d.strictness is not None:
        out["strictness"] = d.strictness
    return out


def insights_json(found: CallInsights) -> v3.Insights:
    """speechproc's `insights`: the parts the model gave, then the model that read the call."""
    out: v3.Insights = {}
    if found.summary is not None:
        out["summary"] = found.summary
    if found.reason is not None:
        out["reason"] = found.reason
    if found.outcome is not None:
        out["outcome"] = found.outcome
    if found.action_items is not None:
        out["actionItems"] = [{"text": a.text, "speaker": a.speaker, "s": a.s, "e": a.e} for a in found.action_items]
    if found.answers is not None:
        out["answers"] = []
        for a in found.answers:
            answer: v3.Answer = {"name": a.name, "question": a.question, "answer": a.answer}
            if a.s is not None and a.e is not None:
                answer["s"], answer["e"] = a.s, a.e
            out["answers"].append(answer)
    if found.model is not None:
        out["model"] = found.model.copy()
    return out


def results_json(conv: Conversation) -> v3.Results:
    """The analytics sections the conversation holds, each present only when it was asked for."""
    out: v3.Results = {}
    if conv.knowledge is not None:
        out["knowledge"] = knowledge_json(conv.knowledge)
    if conv.spotting is not None:
        out["spotting"] = spotting_json(conv.spotting)
    if conv.detectors is not None or conv.classifiers is not None:
        out["prediction"] = prediction_json(conv)
    if conv.metrics is not None:
        out["metrics"] = metrics_json(conv.metrics)
    if conv.categories is not None:
        out["categories"] = categories_json(conv.categories)
    if conv.verb_noun_pairs is not None:
        out["conversation"] = verb_noun_json(conv.verb_noun_pairs)
    if conv.speaker_sentiments:
        out["speakerSentiments"] = speaker_sentiments_json(conv.sentences, conv.speakers)
    if conv.streams is not None:
        out["streams"] = [{"streamName": name, "streamLocation": location, "status": status}
                          for name, location, status in conv.streams]
    if conv.insights is not None:
        out["insights"] = insights_json(conv.insights)
    return out


def media_item(item: MediaFacts, conv: Conversation | None = None) -> v3.MediaItem:
    """The v3 media item: media-level fields, then every result the conversation holds."""
    out: v3.MediaItem = {
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
        out |= results_json(conv)
    if item.errors:
        out["errors"] = [{"code": code, "error": msg} for code, msg in item.errors]
    if item.warnings:
        out["warnings"] = [{"code": code, "message": msg} for code, msg in item.warnings]
    return out


def summary(item: v3.MediaItem) -> v3.MediaSummary:
    """A media item without its results, for listings."""
    item_json: Mapping[str, object] = item
    keys = ("_links", "formatVersion", "mediaId", "status", "dateCreated", "dateFinished", "timeToLiveInSeconds",
            "expiresOn", "mediaContentType", "length", "metadata", "errors", "warnings", "encryption")
    return cast(v3.MediaSummary, {k: item_json[k] for k in keys if k in item_json})


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
