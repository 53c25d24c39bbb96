"""Conversation metrics: the four v3 metric groups, each metric a small pure function.

Times are milliseconds in, seconds or ratios out. Spans are (start, end) pairs. The parties are the
agent and the caller (see `parties`); metrics about one party need a recording whose channels belong
to one speaker each, and are 0 otherwise, as the v3 specification says.
"""
from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence

from speechproc import errors as E
from speechproc.conversation import SILENCE_INCIDENT_MS, Conversation, MetricValues, Sentence, Span, Token, merge
from speechproc.stages.options import MetricsOptions, english

AGENT_NAMES = ("agent", "service", "representative", "operator", "salesperson", "callcenter", "contactcenter")
CALLER_NAMES = ("caller", "client", "customer", "prospect")
STREAK_PAUSE_MS = 3000  # a pause this long ends a talking streak
AGENT_VOLUME_REFERENCE = 4.33
CALLER_VOLUME_REFERENCE = 7.57


# ---------------------------------------------------------------- spans

def total(spans: Iterable[Span]) -> int:
    return sum(e - s for s, e in spans)


def intersect(a: Sequence[Span], b: Sequence[Span]) -> list[Span]:
    """The time both sets of disjoint sorted spans cover, as spans."""
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        s, e = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if s < e:
            out.append((s, e))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def subtract(a: Sequence[Span], b: Sequence[Span]) -> list[Span]:
    """The parts of disjoint sorted spans `a` that `b` does not cover."""
    out: list[Span] = []
    for s, e in a:
        cursor = s
        for bs, be in b:
            if be <= cursor or bs >= e:
                continue
            if bs > cursor:
                out.append((cursor, bs))
            cursor = max(cursor, be)
        if cursor < e:
            out.append((cursor, e))
    return out


def clip(spans: Sequence[Span], start: int, end: int) -> list[Span]:
    return [(max(s, start), min(e, end)) for s, e in spans if min(e, end) > max(s, start)]


def _ratio(part: float, whole: float) -> float:
    return round(part / whole, 2) if whole > 0 else 0.0


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


# ---------------------------------------------------------------- parties

def _plain(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


def parties(speakers: Sequence[str], roles: Mapping[str, str] | None = None) -> tuple[str | None, str | None]:
    """(agent, caller): by an enrolled speaker's role when one says so (`roles`, name -> role), then by name
    (agent, service, ... / caller, client, ...), else the first speaker is the agent and the second the caller."""
    def said(names: Sequence[str], speaker: str) -> bool:
        return _plain(roles.get(speaker, "") if roles else "") in names

    agent = next((s for s in speakers if said(AGENT_NAMES, s)), None)
    caller = next((s for s in speakers if said(CALLER_NAMES, s) and s != agent), None)
    if agent is None:
        agent = next((s for s in speakers if _plain(s) in AGENT_NAMES and s != caller), None)
    if caller is None:
        caller = next((s for s in speakers if _plain(s) in CALLER_NAMES and s != agent), None)
    rest = [s for s in speakers if s not in (agent, caller)]
    if agent is None and rest:
        agent = rest.pop(0)
    if caller is None and rest:
        caller = rest.pop(0)
    return agent, caller


# ---------------------------------------------------------------- overtalk

def overtalk(agent: Sequence[Span], caller: Sequence[Span], length_ms: int) -> dict[str, float]:
    """Overtalk incidents and ratios between two parties' speech spans.

    Each stretch where both talk is one incident; it belongs to the party who started while the
    other was already talking (to neither when both started at the same moment)."""
    a, c = merge(agent), merge(caller)
    overlaps = intersect(a, c)
    agent_in = caller_in = 0
    agent_ms = caller_ms = 0
    for s, e in overlaps:
        agent_start = next(x for x, y in a if x <= s < y)
        caller_start = next(x for x, y in c if x <= s < y)
        if agent_start > caller_start:  # the caller was talking; the agent cut in
            agent_in, agent_ms = agent_in + 1, agent_ms + e - s
        elif caller_start > agent_start:
            caller_in, caller_ms = caller_in + 1, caller_ms + e - s
    both = total(overlaps)
    return {
        "overtalk-incidents": len(overlaps),
        "agent-overtalk-incidents": agent_in,
        "caller-overtalk-incidents": caller_in,
        "overtalk-ratio": _ratio(both, length_ms),
        "agent-overtalk-ratio": _ratio(agent_ms, both),
        "caller-overtalk-ratio": _ratio(caller_ms, both),
    }


# ---------------------------------------------------------------- talk time and rate

def streaks(words: Sequence[Span]) -> list[Span]:
    """Talking streaks: runs of words with no pause of STREAK_PAUSE_MS or more between them."""
    out: list[Span] = []
    for s, e in sorted(words):
        if out and s - out[-1][1] < STREAK_PAUSE_MS:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def streak_stats(words: Sequence[Span]) -> tuple[float, float, float]:
    """(average, longest, median) streak in seconds, 0.01 resolution."""
    lengths = [(e - s) / 1000 for s, e in streaks(words)]
    if not lengths:
        return 0.0, 0.0, 0.0
    return round(_mean(lengths), 2), round(max(lengths), 2), round(statistics.median(lengths), 2)


def silence_incidents(speech: Sequence[Span]) -> int:
    """Silences longer than SILENCE_INCIDENT_MS between the first and the last speech."""
    joined = merge(speech)
    return sum(1 for (_, e), (s, _) in zip(joined, joined[1:]) if s - e > SILENCE_INCIDENT_MS)


def talk_rate(words: Sequence[Span], other: Sequence[Span], start: int = 0, end: int | None = None) -> float:
    """Words per minute of a party: words starting in [start, end) over the party's talking time
    there (its streaks, less the other party's speech)."""
    end = max((e for _, e in words), default=0) if end is None else end
    counted = [w for w in words if start <= w[0] < end]
    talking = clip(subtract(streaks(words), merge(other)), start, end)
    minutes = total(talking) / 60000
    return len(counted) / minutes if minutes > 0 else 0.0


def change_in_talk_rate(words: Sequence[Span], other: Sequence[Span], length_ms: int) -> float:
    """Talk rate in the last third of the call over the first third (0 when the first third has none)."""
    third = length_ms / 3
    first = talk_rate(words, other, 0, int(third))
    last = talk_rate(words, other, int(length_ms - third), length_ms + 1)
    return round(last / first, 2) if first > 0 else 0.0


def talk_time_and_rate(agent_words: Sequence[Span], caller_words: Sequence[Span], agent: Sequence[Span],
                       caller: Sequence[Span], length_ms: int) -> dict[str, float]:
    """The talk-time-and-rate group from each party's word spans and speech spans."""
    speech = merge(list(agent) + list(caller))
    talking = total(clip(speech, 0, max(length_ms, speech[-1][1] if speech else 0)))
    agent_rate = talk_rate(agent_words, caller)
    caller_rate = talk_rate(caller_words, agent)
    a_avg, a_long, a_med = streak_stats(agent_words)
    c_avg, c_long, c_med = streak_stats(caller_words)
    avg, long, med = streak_stats(list(agent_words) + list(caller_words))
    return {
        "agent-talk-ratio": _ratio(total(merge(agent)), talking),
        "caller-talk-ratio": _ratio(total(merge(caller)), talking),
        "silence-ratio": _ratio(max(length_ms - talking, 0), length_ms),
        "silence-incidents": silence_incidents(speech),
        "agent-talk-rate": round(agent_rate),
        "caller-talk-rate": round(caller_rate),
        "agent-to-caller-talk-rate-ratio": _ratio(agent_rate, caller_rate),
        "agent-intra-call-change-in-talk-rate": change_in_talk_rate(agent_words, caller, length_ms),
        "caller-intra-call-change-in-talk-rate": change_in_talk_rate(caller_words, agent, length_ms),
        "agent-average-streak": a_avg,
        "caller-average-streak": c_avg,
        "agent-longest-streak": a_long,
        "caller-longest-streak": c_long,
        "agent-median-streak": a_med,
        "caller-median-streak": c_med,
        "average-streak": avg,
        "longest-streak": long,
        "median-streak": med,
    }


# ---------------------------------------------------------------- talk style, tone and volume

def _thirds(values: Sequence[float]) -> tuple[Sequence[float], Sequence[float]]:
    k = len(values) // 3
    return (values[:k], values[-k:]) if k else ((), ())


def change_over_thirds(values: Sequence[float]) -> float:
    """Mean of the last third of the values over the mean of the first third (0 when undefined)."""
    first, last = _thirds(values)
    return round(_mean(last) / _mean(first), 2) if first and _mean(first) > 0 else 0.0


def talk_style(agent_words: Sequence[Token], caller_words: Sequence[Token]) -> dict[str, float]:
    """The talk-style-tone-and-volume group from each party's words (with voice features)."""
    out: dict[str, float] = {}
    for party, words in (("agent", agent_words), ("caller", caller_words)):
        pitches = [w.pitch for w in words if w.pitch]
        out[f"{party}-intra-call-change-in-pitch"] = change_over_thirds(pitches)
    for party, words in (("agent", agent_words), ("caller", caller_words)):
        volumes = [w.v for w in words if w.v is not None]
        out[f"{party}-intra-call-change-in-relative-voice-volume-energy"] = change_over_thirds(volumes)
    for party, words, reference in (("agent", agent_words, AGENT_VOLUME_REFERENCE),
                                    ("caller", caller_words, CALLER_VOLUME_REFERENCE)):
        volumes = [w.v for w in words if w.v is not None]
        out[f"{party}-relative-voice-volume-energy"] = round(_mean(volumes) / reference, 2)
    for party, words in (("agent", agent_words), ("caller", caller_words)):
        volumes = [w.v for w in words if w.v is not None]
        out[f"{party}-voice-dynamism-std-dev-score"] = round(statistics.pstdev(volumes), 2) if volumes else 0.0
    return out


# ---------------------------------------------------------------- sentiment

def sentiment_names(prefix: str) -> tuple[str, str, str, str]:
    """The (overall, start, end, change) metric names for "call" or a party ("agent", "caller").

    The whole call's names do not follow the parties' pattern: `start-sentiment`, not
    `call-start-sentiment`, and `call-change-in-sentiment` without "intra"."""
    if prefix == "call":
        return "call-sentiment", "start-sentiment", "end-sentiment", "call-change-in-sentiment"
    return (f"{prefix}-sentiment", f"{prefix}-start-sentiment", f"{prefix}-end-sentiment",
            f"{prefix}-intra-call-change-in-sentiment")


def sentiment_summary(values: Sequence[float], prefix: str) -> dict[str, float]:
    """Mean sentiment over all sentences, the first and last thirds, and start minus end, named as
    `sentiment_names(prefix)` says."""
    if not values:
        start = end = overall = 0.0
    else:
        k = max(1, len(values) // 3)
        overall, start, end = _mean(values), _mean(values[:k]), _mean(values[-k:])
    return dict(zip(sentiment_names(prefix), (round(overall, 2), round(start, 2), round(end, 2), round(start - end, 2))))


def sentiment(sentences: Sequence[Sentence], agent: str | None, caller: str | None) -> dict[str, float]:
    """The sentiment group from scored sentences in transcript order."""
    scored = sorted(((s, s.sentiment) for s in sentences if s.sentiment is not None), key=lambda pair: pair[0].s)
    out = sentiment_summary([v for _, v in scored], "call")
    out |= sentiment_summary([v for s, v in scored if s.speaker == agent], "agent") if agent else \
        sentiment_summary([], "agent")
    out |= sentiment_summary([v for s, v in scored if s.speaker == caller], "caller") if caller else \
        sentiment_summary([], "caller")
    return out


# ---------------------------------------------------------------- the groups

PER_PARTY_PREFIXES = ("agent-", "caller-")


def _zero_per_party(values: dict[str, float]) -> dict[str, float]:
    return {k: (0 if k.startswith(PER_PARTY_PREFIXES) else v) for k, v in values.items()}


def _zeros(values: dict[str, float]) -> dict[str, float]:
    return {k: 0 for k in values}


def compute(conv: Conversation, groups: Sequence[str], voice_features: bool, language: str) -> list[MetricValues]:
    """The requested groups, in the order asked for; warnings on the conversation say what was 0 and why."""
    agent, caller = parties(conv.speakers, conv.speaker_roles)
    # the parties are known on one channel too when an enrolled speaker's role says who is who
    separate = conv.multichannel or any(_plain(conv.speaker_roles.get(s, "")) in AGENT_NAMES + CALLER_NAMES
                                        for s in (agent, caller) if s is not None)
    words = [w for w in conv.words if w.is_word]
    agent_words = [w for w in words if w.speaker == agent]
    caller_words = [w for w in words if w.speaker == caller]
    agent_spans = conv.voice_activity.get(agent, []) if agent else []
    caller_spans = conv.voice_activity.get(caller, []) if caller else []
    if not separate:  # one channel: every span is "speech" and there are no parties to compare
        agent_spans = merge(s for spans in conv.voice_activity.values() for s in spans)
        caller_spans = []
    spans_of = lambda ws: [(w.s, w.e) for w in ws]  # noqa: E731
    out: list[MetricValues] = []
    for group in groups:
        if group == "overtalk":
            values = overtalk(agent_spans, caller_spans, conv.length_ms)
        elif group == "talk-time-and-rate":
            if separate:
                values = talk_time_and_rate(spans_of(agent_words), spans_of(caller_words), agent_spans,
                                            caller_spans, conv.length_ms)
            else:
                values = talk_time_and_rate(spans_of(words), [], agent_spans, [], conv.length_ms)
        elif group == "talk-style-tone-and-volume":
            values = talk_style(agent_words, caller_words)
            if not voice_features:
                values = _zeros(values)
                conv.warn(E.FEATURE_NOT_AVAILABLE, "talk-style-tone-and-volume metrics need "
                          "speechModel.features [voiceFeatures]; they are 0")
        else:
            values = sentiment(conv.sentences, agent, caller)
            if not english(language):
                values = _zeros(values)
        if not separate:
            values = _zero_per_party(values)
        out.append(MetricValues(group, values))
    if not separate and groups:
        conv.warn(E.FEATURE_NOT_AVAILABLE, "agent and caller metrics need a recording with one channel per "
                  "speaker, or an enrolled speaker whose role is agent or caller; on this one-channel recording "
                  "they are 0")
    return out


def run(conv: Conversation, options: MetricsOptions) -> None:
    conv.metrics = compute(conv, options.groups, options.voice_features, options.language)
