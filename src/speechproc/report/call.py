"""The call report: one media item as a self-contained HTML page (see `report_page`).

Sections, each only when the item has what it shows: a summary (and a player when the recording is
reachable), the speakers' turns on a timeline with overtalk, silences over 4 s and detected stretches,
sentence sentiment over time, the metrics by group, keywords and topics, categories, spotted keyword
groups, detections and classifiers, the call insights, verb-noun pairs, and the transcript. Every match, mention and
detection links to its moment in the transcript; with a player, a click on it or on a word plays the
recording from there.
"""
from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from speechproc.conversation import SILENCE_INCIDENT_MS, merge
from speechproc.formats.detected import Found
from speechproc.formats.detected import found as found_detections
from speechproc.formats.flat import Cell, flatten
from speechproc.paths import printable
from speechproc.report import charts
from speechproc.report.detections_section import predictions_section
from speechproc.report.insights_section import insights_section
from speechproc.report.page import Moment, Section, chart, clock, esc, facts, number, page, plural, table
from speechproc.report.player import audio_address, choose_recording, is_redacted
from speechproc.results import Keyword, MediaItem, Occurrence, Span, SpeakerMentions, Word
from speechproc.results.reading import readable

METRIC_GROUPS = ("overtalk", "talk-time-and-rate", "talk-style-tone-and-volume", "sentiment")  # the spec's order
MAX_LINKS = 12  # occurrences linked per keyword, match or detection; the rest are counted
PARAGRAPH_PAUSE_MS = 3000  # a pause this long starts a new paragraph of one speaker's words
PARAGRAPH_WORDS = 120
MAX_LANES = 12  # speakers drawn on the timeline one lane each; the rest share one lane
MAX_TRANSCRIPT_WORDS = 200_000  # about 20 hours of speech; the rest stays in the .v3.json
MAX_LENGTH_MS = 10**11  # a length beyond about 3 years is no recording's: the speech's end is used


@dataclass(frozen=True)
class _Word:
    p: int
    s: int
    e: int
    speaker: str | None


class _Anchors:
    """The transcript's words by time, to link a moment (a match, a mention) to the word said then."""

    def __init__(self, words: Sequence[_Word]) -> None:
        self.words = sorted(words, key=lambda w: (w.s, w.p))
        self.starts = [w.s for w in self.words]

    def word_at(self, ms: int, speaker: str | None = None) -> _Word | None:
        """The first word starting at `ms` or later (of `speaker` when one of theirs is that close)."""
        if not self.words:
            return None
        i = bisect.bisect_left(self.starts, ms - 50)
        for w in self.words[i:i + 40]:
            if w.e >= ms and (speaker is None or w.speaker == speaker):
                return w
        return self.words[min(i, len(self.words) - 1)]

    def link(self, s: float | None, text: str | None = None, speaker: str | None = None) -> str:
        """A link to the word said at `s` ms (labelled `text`, then the time; or the time alone)."""
        if s is None:
            return esc(text or "")
        label = esc(text) + f' <span class="note">{clock(s)}</span>' if text else clock(s)
        word = self.word_at(int(s), speaker)
        target = f' href="#w{word.p}"' if word is not None else ""
        return f"<a{target} data-s={int(s)}>{label}</a>"

    def links(self, moments: Sequence[Moment], speaker: str | None = None) -> str:
        """Links to the first MAX_LINKS moments (each labelled, or its time alone), and how many more there are."""
        shown = [self.link(s, label, speaker) for s, label in moments[:MAX_LINKS]]
        more = len(moments) - MAX_LINKS
        return '<span class="chips">' + "".join(f"<span>{x}</span>" for x in shown) + (
            f'<span class="note">and {more} more</span>' if more > 0 else "") + "</span>"


def _spoken(words: Sequence[Word]) -> list[_Word]:
    """The words proper (not turns or punctuation), each with the speaker of the turn it is in."""
    out, speaker = [], None
    for w in words:
        flags = str(w.get("m", ""))
        if "turn" in flags.split("|"):
            speaker = str(w.get("w", ""))
            continue
        if flags or not all(k in w for k in ("p", "s", "e")):
            continue
        out.append(_Word(int(w["p"]), int(w["s"]), int(w["e"]), speaker))
    return out


def _spans(occurrences: Iterable[Span]) -> list[tuple[int, int]]:
    return [(int(o["s"]), int(o["e"])) for o in occurrences if "s" in o and "e" in o and o["e"] >= o["s"]]


def voice_activity(item: MediaItem, words: Sequence[_Word]) -> list[tuple[str, list[tuple[int, int]]]]:
    """Each speaker's speech spans (ms): the transcript's voiceActivity, else the spans of their words."""
    activity = item.get("transcript", {}).get("voiceActivity", [])
    lanes = [(str(a.get("speakerName", "")), merge(_spans(a.get("occurrences", [])))) for a in activity]
    if lanes:
        return lanes
    by_speaker: dict[str, list[tuple[int, int]]] = {}
    for w in words:
        by_speaker.setdefault(w.speaker or "speech", []).append((w.s, w.e))
    return [(name, merge(spans)) for name, spans in by_speaker.items()]


def overtalk_spans(lanes: Sequence[tuple[str, Sequence[tuple[int, int]]]]) -> list[tuple[int, int]]:
    """Where two or more speakers talk at once: one sweep over every speaker's merged spans in time order
    (a span's end before a start at the same moment, so touching spans are no overtalk)."""
    events = sorted((t, step) for _, spans in lanes for s, e in merge(spans) for t, step in ((s, 1), (e, -1)))
    out: list[tuple[int, int]] = []
    talking, since = 0, 0
    for t, step in events:
        if step > 0 and talking == 1:
            since = t
        elif step < 0 and talking == 2 and t > since:
            out.append((since, t))
        talking += step
    return merge(out)


def silence_spans(lanes: Sequence[tuple[str, Sequence[tuple[int, int]]]]) -> list[tuple[int, int]]:
    """Silences longer than 4 s between the first and the last speech (as the silence-incidents metric)."""
    speech = merge(s for _, spans in lanes for s in spans)
    return [(e, s) for (_, e), (s, _) in zip(speech, speech[1:]) if s - e > SILENCE_INCIDENT_MS]


def _seconds(spans: Iterable[tuple[int, int]]) -> list[tuple[float, float]]:
    return [(s / 1000, e / 1000) for s, e in spans]


# ------------------------------------------------------------------------------------------ sections


def _summary(item: MediaItem, lanes, words: Sequence[_Word], audio: str | None, source: str | None,
             redacted: bool) -> Section:
    length = item.get("length")
    pairs = [("Media id", esc(item.get("mediaId", ""))), ("Status", esc(item.get("status", "")))]
    if source:
        pairs.append(("Recording", esc(source)))
    pairs += [("Length", clock(length) if length is not None else "unknown"),
              ("Created", esc(item.get("dateCreated", ""))), ("Finished", esc(item.get("dateFinished", "") or ""))]
    talk = {name: sum(e - s for s, e in spans) for name, spans in lanes}
    said: dict[str | None, int] = {}
    for w in words:
        said[w.speaker] = said.get(w.speaker, 0) + 1
    for name, ms in talk.items():
        pairs.append((f"{name}", f"{clock(ms)} talking, {said.get(name, 0)} words"))
    body = facts(pairs)
    metadata = item.get("metadata", {})
    flat: dict[str, Cell] = {}
    for key, value in metadata.items():
        flatten(str(key), value, flat)
    if flat:
        body += "<h3>Metadata</h3>" + table(["Field", "Value"], [(esc(k), esc(v)) for k, v in flat.items()])
    for error in item.get("errors", []):
        body += f'<p class="yes">Error {esc(error.get("code", ""))}: {esc(error.get("error", ""))}</p>'
    if not audio and is_redacted(item):
        body += ('<p class="note">No player: the recording was redacted, and its redacted copy is not '
                 "reachable from here (the original is never played).</p>")
    if audio:
        kind = "the redacted copy of the recording" if redacted else "the recording"
        body += (f'<audio id="player" controls preload="metadata" src="{esc(audio)}"></audio>'
                 f'<p class="note">Playing {kind}; click a word, match or detection to play from there.</p>')
    return Section("summary", "Summary", body)


Detected = Sequence[Found]


def _timeline(lanes, length_ms: int, detected: Detected) -> Section | None:
    if not any(spans for _, spans in lanes):
        return None
    overtalk, silences = overtalk_spans(lanes), silence_spans(lanes)
    detections = merge((x.s, x.e) for x in detected)
    drawn = charts.timeline([(name, _seconds(spans)) for name, spans in _drawn_lanes(lanes)], _seconds(overtalk),
                            _seconds(silences), _seconds(detections), length_ms / 1000, "timeline",
                            "Speaker turns, overtalk, silences over 4 s and detections over the call")
    note = (f'<p class="note">Overtalk: {plural(len(overtalk), "stretch", "stretches")}, '
            f"{sum(e - s for s, e in overtalk) / 1000:.1f} s in all; {plural(len(silences), 'silence')} over 4 s"
            + (f"; {plural(len(detections), 'detected stretch', 'detected stretches')}" if detections else "")
            + ".</p>")
    return Section("timeline", "Timeline", chart(drawn) + note)


def _drawn_lanes(lanes: Sequence[tuple[str, list[tuple[int, int]]]]) -> list[tuple[str, list[tuple[int, int]]]]:
    """The speakers who talk most, one lane each (at most MAX_LANES), in their order; the others in one."""
    if len(lanes) <= MAX_LANES:
        return list(lanes)
    ranked = sorted(range(len(lanes)), key=lambda i: -sum(e - s for s, e in lanes[i][1]))
    kept = sorted(ranked[:MAX_LANES - 1])
    rest = merge(span for i in ranked[MAX_LANES - 1:] for span in lanes[i][1])
    return [lanes[i] for i in kept] + [(f"{len(lanes) - len(kept)} other speakers", rest)]


def _sentiment(item: MediaItem, length_ms: int) -> Section | None:
    series = []
    for entry in item.get("speakerSentiments", []):
        values = [v for v in entry.get("sentimentValues", []) if "s" in v and "e" in v and "v" in v]
        series.append((str(entry.get("speakerName", "")), [((v["s"] + v["e"]) / 2000, float(v["v"])) for v in values]))
    if not any(points for _, points in series):
        return None
    series = sorted(series, key=lambda sp: -len(sp[1]))[:MAX_LANES]
    drawn = charts.sentiment(series, length_ms / 1000, "sentiment", "Sentence sentiment per speaker over time")
    return Section("sentiment", "Sentiment", chart(drawn) + '<p class="note">One point per sentence, from -1 (very negative) '
                   "to 1 (very positive), at the sentence's middle.</p>")


def _metrics(item: MediaItem) -> Section | None:
    rank: dict[object, int] = {name: i for i, name in enumerate(METRIC_GROUPS)}
    groups = sorted(item.get("metrics", []), key=lambda g: rank.get(g.get("metricGroupName"), len(rank)))
    if not groups:
        return None
    body = ""
    for group in groups:
        rows = [(esc(m.get("metricName", "")), number(m.get("metricValue"))) for m in group.get("metricValues", [])]
        heading = f"<h3>{esc(group.get('metricGroupName', ''))}</h3>"
        body += f"<div>{heading}{table(['Metric', 'Value'], rows, numeric=(1,))}</div>"
    return Section("metrics", "Metrics", f'<div class="groups">{body}</div>')


def _by_speaker(mentions: Sequence[SpeakerMentions], anchors: _Anchors, exact: bool = True) -> str:
    """Each speaker's occurrences (v3 mentions or matches: {speakerName, occurrences}) as linked moments,
    each labelled with the words as said (`exact`) or with its time alone."""
    return "".join(f"<div>{esc(m.get('speakerName', ''))}: "
                   f"{anchors.links(_moments(m.get('occurrences', []), exact), m.get('speakerName'))}</div>"
                   for m in mentions)


def _moments(occurrences: Sequence[Occurrence], exact: bool) -> list[Moment]:
    return [(o.get("s"), o.get("exact") if exact else None) for o in occurrences]


def _mentions(keyword: Keyword, anchors: _Anchors) -> str:
    return _by_speaker(keyword.get("mentions", []), anchors, exact=False)


def _yes(flag: object) -> str:
    return '<span class="yes">yes</span>' if flag else "no"


def _knowledge(item: MediaItem, anchors: _Anchors) -> Section | None:
    knowledge = item.get("knowledge", {})
    keywords = knowledge.get("keywords", [])
    topics = knowledge.get("topics", [])
    if not keywords and not topics:
        return None
    body = ""
    if keywords:
        rows = [(esc(k.get("keyword", "")), number(k.get("relevance")), _mentions(k, anchors)) for k in keywords]
        body += "<h3>Keywords</h3>" + table(["Keyword", "Relevance", "Mentions"], rows, numeric=(1,))
    if topics:
        rows = [(esc(t.get("topicName", "")), number(t.get("relevance")),
                 esc(", ".join(str(k.get("keyword", "")) for k in t.get("keywords", []))))
                for t in topics]
        body += "<h3>Topics</h3>" + table(["Topic", "Relevance", "Keywords"], rows, numeric=(1,))
    return Section("knowledge", "Keywords and topics", body)


def _categories(item: MediaItem, anchors: _Anchors) -> Section | None:
    categories = item.get("categories", [])
    if not categories:
        return None
    rows = []
    for c in categories:
        matches = _by_speaker(c.get("categoryMatches", []), anchors)
        rows.append((esc(c.get("categoryName", "")), _yes(c.get("categoryValue")), matches))
    hits = sum(1 for c in categories if c.get("categoryValue"))
    return Section("categories", "Categories", f'<p class="note">{hits} of {len(categories)} matched.</p>'
                   + table(["Category", "Matched", "Matches"], rows))


def _spotting(item: MediaItem, anchors: _Anchors) -> Section | None:
    groups = item.get("spotting", {}).get("groups", [])
    if not groups:
        return None
    rows = []
    for g in groups:
        said = "".join(f"<div><b>{esc(k.get('keyword', ''))}</b> {_mentions(k, anchors)}</div>"
                       for k in g.get("spottedKeywords", []))
        rows.append((esc(g.get("groupName", "")), _yes(g.get("spotted")),
                     esc(g.get("score", "")), said))
    return Section("spotting", "Keyword groups", table(["Group", "Spotted", "Score", "Keywords said"], rows,
                                                       numeric=(2,)))


def _verb_nouns(item: MediaItem, anchors: _Anchors) -> Section | None:
    rows = []
    for entry in item.get("conversation", {}).get("speakerVerbNounPairs", []):
        speaker = str(entry.get("speakerName", ""))
        for pair in entry.get("verbNounPairs", []):
            text = " ".join(str(x) for x in ("not" if pair.get("verbNeg") else "", pair.get("verb", ""),
                                             "no" if pair.get("nounNeg") else "", pair.get("noun", "")) if x)
            label = text + ("?" if pair.get("question") else "")
            rows.append((pair.get("s", 0), esc(speaker), anchors.link(pair.get("s"), label, speaker)))
    if not rows:
        return None
    rows.sort(key=lambda r: r[0])
    return Section("verbnouns", "Verb-noun pairs", table(["Speaker", "Pair"], [r[1:] for r in rows]))


def _transcript(words: Sequence[Word], detected: Detected) -> Section | None:
    if not any(not w.get("m") for w in words):
        return None
    regions = merge((x.s, x.e) for x in detected)
    starts = [s for s, _ in regions]

    def is_detected(s: int, e: int) -> bool:
        i = bisect.bisect_left(starts, e) - 1  # the last region starting before the word ends
        return i >= 0 and regions[i][1] > s

    parts: list[str] = []
    speaker, open_paragraph, count, last_end = None, False, 0, None

    def start(at: int) -> None:
        nonlocal open_paragraph, count
        if open_paragraph:
            parts.append("</p>")
        who = f'<span class="who">{esc(speaker)}</span>' if speaker else ""
        parts.append(f"<p>{who}<time>{clock(at)}</time>")
        open_paragraph, count = True, 0

    shown = 0
    for w in words:
        if shown >= MAX_TRANSCRIPT_WORDS:
            parts.append(f'</p><p class="note">The first {MAX_TRANSCRIPT_WORDS:,} words are shown; the rest are in '
                         "the item's .v3.json.")
            break
        flags = str(w.get("m", "")).split("|")
        text = esc(w.get("w", ""))
        if "turn" in flags:
            speaker = str(w.get("w", ""))
            if open_paragraph:
                parts.append("</p>")
            open_paragraph = False
            continue
        if "punc" in flags:
            if open_paragraph:
                parts.append(text)
            continue
        if not all(k in w for k in ("p", "s", "e")):
            continue
        s, e = int(w["s"]), int(w["e"])
        if (not open_paragraph or (last_end is not None and s - last_end >= PARAGRAPH_PAUSE_MS)
                or count >= PARAGRAPH_WORDS):
            start(s)
        mark = " class=det" if regions and is_detected(s, e) else ""
        parts.append(f" <span id=w{int(w['p'])} data-s={s}{mark}>{text}</span>")
        count, last_end, shown = count + 1, e, shown + 1
    if open_paragraph:
        parts.append("</p>")
    return Section("transcript", "Transcript", f'<div class="words">{"".join(parts)}</div>')


def sections(item: MediaItem, audio: str | None = None, source: str | None = None,
             redacted_audio: bool = False) -> list[Section]:
    """The report's sections for a v3 media item, in order, each only when the item has what it shows.

    `audio`: the recording's address relative to the report (None: no player); `source`: the
    recording's name as shown."""
    return _sections(readable(item), audio, source, redacted_audio)


def _sections(item: MediaItem, audio: str | None, source: str | None, redacted_audio: bool) -> list[Section]:
    """`sections` of a readable item (see `readable`): its parts have the shapes they should."""
    raw_words = item.get("transcript", {}).get("words", [])
    words = _spoken(raw_words)
    anchors = _Anchors(words)
    lanes = voice_activity(item, words)
    ends = [e for _, spans in lanes for _, e in spans] + [w.e for w in words]
    length = item.get("length")
    length_ms = int(length) if length is not None and 0 < length <= MAX_LENGTH_MS else max(ends, default=0)
    detected = found_detections(item)
    built = [_summary(item, lanes, words, audio, source, redacted_audio), _timeline(lanes, length_ms, detected),
             insights_section(item, anchors), _sentiment(item, length_ms), _metrics(item), _knowledge(item, anchors),
             _categories(item, anchors),
             _spotting(item, anchors), predictions_section(item, anchors, detected), _verb_nouns(item, anchors),
             _transcript(raw_words, detected)]
    return [s for s in built if s is not None]


def build(item: MediaItem, audio: str | None = None, source: str | None = None,
          redacted_audio: bool = False) -> tuple[str, list[str]]:
    """The call report of a v3 media item as one HTML document (see `sections`), and its sections' ids."""
    return _document(readable(item), audio, source, redacted_audio)


def _document(item: MediaItem, audio: str | None, source: str | None, redacted_audio: bool) -> tuple[str, list[str]]:
    """`build` of a readable item."""
    title = str(item.get("metadata", {}).get("title") or source or item.get("mediaId") or "call")
    subtitle = esc(f"Call report · media {item.get('mediaId', '')}")
    parts = _sections(item, audio, source, redacted_audio)
    return page(title, subtitle, parts, script=audio is not None), [s.id for s in parts]


def render(item: MediaItem, audio: str | None = None, source: str | None = None,
           redacted_audio: bool = False) -> str:
    """The call report of a v3 media item as one HTML document (see `sections`)."""
    return build(item, audio, source, redacted_audio)[0]


def page_at(item: MediaItem, place: Path, source: Path | None, beside: Path | None = None,
            redacted_audio: bool = False) -> str:
    """The call report to be written at `place` for an item processed from the recording `source`: its
    player plays the recording `choose_recording` picks, by a path relative to `place`."""
    readable_item = readable(item)
    recording, redacted = choose_recording(readable_item, source, beside, redacted_audio)
    return _document(readable_item, audio_address(recording, place),
                     printable(source.name) if source is not None else None, redacted)[0]
