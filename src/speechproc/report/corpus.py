"""The corpus report: many media items at once as a self-contained HTML page (see `report_page`).

Counts and durations; the distribution of the main metrics over the finished items; how often each
category matched and each keyword group was spotted; and their trend over time, by `dateCreated` or
a date in the metadata (`extended.callDate`). Only numbers computed from the items: nothing is sampled.
"""
from __future__ import annotations

import datetime as dt
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from speechproc import errors as E
from speechproc.paths import printable
from speechproc.report import charts
from speechproc.report.page import Section, chart, clock, esc, facts, number, page, plural, table
from speechproc.results import MediaItem
from speechproc.results.reading import as_dict, is_number
from speechproc.store.collection import drivers
from speechproc.store.database import MediaRow

# the metrics an analyst compares calls by, in the order shown
MAIN_METRICS = ("agent-talk-ratio", "caller-talk-ratio", "silence-ratio", "silence-incidents", "overtalk-ratio",
                "overtalk-incidents", "agent-talk-rate", "caller-talk-rate", "call-sentiment", "agent-sentiment",
                "caller-sentiment")
TREND_METRICS = (("talk and silence", ("agent-talk-ratio", "caller-talk-ratio", "silence-ratio", "overtalk-ratio")),
                 ("sentiment", ("call-sentiment", "agent-sentiment", "caller-sentiment")))
ITEM_DATES = ("dateCreated", "dateFinished")
DATE_FIELD = re.compile(r"[A-Za-z0-9_\-]+(\.[A-Za-z0-9_\-]+)*")
MAX_TREND_LINES = 6  # categories or groups drawn on a trend chart: the most often hit
MAX_LISTED = 500  # items listed at the end
MAX_DRIVERS = 20  # call drivers shown
MAX_BUCKETS = 400  # points of a trend with its empty periods kept


@dataclass
class Corpus:
    """What the report shows, computed from the catalog records."""

    items: list[MediaItem]
    statuses: dict[str, int] = field(default_factory=dict)
    lengths_ms: list[int] = field(default_factory=list)
    metrics: dict[str, list[float]] = field(default_factory=dict)
    categories: dict[str, list[int]] = field(default_factory=dict)  # name -> [hits, items that computed it]
    groups: dict[str, list[int]] = field(default_factory=dict)
    dates: list[dt.date | None] = field(default_factory=list)  # per item, in `items` order


def check_date_field(name: str) -> str:
    """The date field as given: `dateCreated`, `dateFinished`, or a metadata field path
    (`extended.callDate`); ConfigurationError else."""
    if name in ITEM_DATES or (DATE_FIELD.fullmatch(name) and len(name) <= 200):
        return name
    raise E.ConfigurationError(E.INVALID_VALUE, printable(
        f"--date-field {name!r}: give dateCreated, dateFinished or a metadata field such as extended.callDate"))


def field_value(item: MediaItem, name: str) -> Any:
    """The item's dateCreated or dateFinished, or the value at a metadata field path (None when absent)."""
    if name in ITEM_DATES:
        return item.get(name)
    value: Any = item.get("metadata") or {}
    for part in (name[len("metadata."):] if name.startswith("metadata.") else name).split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def parse_date(value: Any) -> dt.date | None:
    """The calendar day of an ISO 8601 date or date-time (`2026-03-01`, `2026-03-01T09:30:00Z`); None else."""
    if not isinstance(value, str) or not 8 <= len(value.strip()) <= 40:
        return None
    text = value.strip()
    try:
        return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).date()
    except ValueError:
        pass
    try:
        return dt.date.fromisoformat(text[:10])
    except ValueError:
        return None


def gather(records: Sequence[MediaRow], date_field: str = "dateCreated") -> Corpus:
    """The corpus of catalog records: statuses, lengths, metric values, hits, dates."""
    corpus = Corpus([r["item"] for r in records])
    for item in corpus.items:
        status = str(item.get("status", "unknown"))
        corpus.statuses[status] = corpus.statuses.get(status, 0) + 1
        corpus.dates.append(parse_date(field_value(item, date_field)))
        if is_number(item.get("length")):
            corpus.lengths_ms.append(int(item["length"]))
        if status != "finished":
            continue
        for group in item.get("metrics") or []:
            for metric in group.get("metricValues") or []:
                if is_number(metric.get("metricValue")):
                    corpus.metrics.setdefault(str(metric.get("metricName")), []).append(float(metric["metricValue"]))
        for category in item.get("categories") or []:
            counts = corpus.categories.setdefault(str(category.get("categoryName")), [0, 0])
            counts[0] += 1 if category.get("categoryValue") else 0
            counts[1] += 1
        for spotted in as_dict(item.get("spotting")).get("groups") or []:
            counts = corpus.groups.setdefault(str(spotted.get("groupName")), [0, 0])
            counts[0] += 1 if spotted.get("spotted") else 0
            counts[1] += 1
    return corpus


def bucket_of(day: dt.date, unit: str) -> str:
    """The label of the day's bucket: the day, its ISO week's Monday, its month or its year."""
    if unit == "day":
        return day.isoformat()
    if unit == "week":
        return (day - dt.timedelta(days=day.weekday())).isoformat()
    return f"{day.year:04d}-{day.month:02d}" if unit == "month" else f"{day.year:04d}"


def bucket_unit(days: Sequence[dt.date]) -> str:
    """Days for up to two months, weeks for up to a year, months for up to ten years, else years."""
    span = (max(days) - min(days)).days if days else 0
    return "day" if span <= 62 else "week" if span <= 366 else "month" if span <= 3660 else "year"


def _index(day: dt.date, unit: str) -> int:
    """The bucket's number on an even scale of its unit."""
    if unit == "day":
        return day.toordinal()
    if unit == "week":
        return (day.toordinal() - 1) // 7  # ordinal 1 (0001-01-01) is a Monday
    return day.year * 12 + day.month - 1 if unit == "month" else day.year


def _label(index: int, unit: str) -> str:
    """The label of the bucket numbered `index` (the inverse of `_index`, as `bucket_of` spells it)."""
    if unit == "day":
        return dt.date.fromordinal(index).isoformat()
    if unit == "week":
        return dt.date.fromordinal(index * 7 + 1).isoformat()
    return f"{index // 12:04d}-{index % 12 + 1:02d}" if unit == "month" else f"{index:04d}"


def _buckets(days: Sequence[dt.date], unit: str) -> list[str]:
    """Every bucket from the first day's to the last's, empty ones included so time stays even; when that
    would be more than MAX_BUCKETS (dates centuries apart), only the buckets that hold an item."""
    first, last = _index(min(days), unit), _index(max(days), unit)
    if last - first + 1 > MAX_BUCKETS:
        return [_label(i, unit) for i in sorted({_index(d, unit) for d in days})]
    return [_label(i, unit) for i in range(first, last + 1)]


# ------------------------------------------------------------------------------------------ sections


def _overview(corpus: Corpus, selection: str) -> Section:
    lengths = corpus.lengths_ms
    pairs = [("Media items", str(len(corpus.items))), ("Selected", esc(selection))]
    pairs += [(f"Status {status}", str(n)) for status, n in sorted(corpus.statuses.items())]
    if lengths:
        pairs += [("Total length", clock(sum(lengths))), ("Mean length", clock(statistics.fmean(lengths))),
                  ("Median length", clock(statistics.median(lengths))), ("Longest", clock(max(lengths)))]
    days = [d for d in corpus.dates if d is not None]
    if days:
        pairs.append(("Dates", f"{min(days).isoformat()} to {max(days).isoformat()}"))
    return Section("overview", "Overview", facts(pairs))


def _distributions(corpus: Corpus) -> Section | None:
    shown = [(name, corpus.metrics[name]) for name in MAIN_METRICS if corpus.metrics.get(name)]
    if not shown:
        return None
    rows = [(esc(name), str(len(v)), number(statistics.fmean(v)), number(statistics.median(v)),
             number(float(np.percentile(v, 10))), number(float(np.percentile(v, 90))), number(min(v)), number(max(v)))
            for name, v in shown]
    drawn = charts.histograms(shown, "distributions", "Distributions of the main metrics over the finished items")
    others = sorted(set(corpus.metrics) - set(MAIN_METRICS))
    rest = [(esc(name), str(len(corpus.metrics[name])), number(statistics.fmean(corpus.metrics[name])),
             number(statistics.median(corpus.metrics[name]))) for name in others]
    body = chart(drawn) + table(["Metric", "Items", "Mean", "Median", "10th pct", "90th pct", "Min", "Max"], rows,
                                numeric=range(1, 8))
    if rest:
        body += "<h3>Other metrics</h3>" + table(["Metric", "Items", "Mean", "Median"], rest, numeric=(1, 2, 3))
    return Section("distributions", "Metric distributions", body)


def _hit_rates(counts: dict[str, list[int]], ident: str, title: str, noun: str) -> Section | None:
    if not counts:
        return None
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1][0] / kv[1][1], kv[0]))
    drawn = charts.rates([name for name, _ in ordered], [hits / n for _, (hits, n) in ordered], ident,
                         f"Share of calls where each {noun} was hit")
    rows = [(esc(name), str(hits), str(n), f"{hits / n:.1%}") for name, (hits, n) in ordered]
    return Section(ident, title, chart(drawn) + table([noun.capitalize(), "Hits", "Items", "Rate"], rows,
                                                       numeric=(1, 2, 3)))


def _trend(corpus: Corpus, date_field: str) -> Section | None:
    dated = [(d, item) for d, item in zip(corpus.dates, corpus.items) if d is not None]
    if not dated:
        return None
    unit = bucket_unit([d for d, _ in dated])
    labels = _buckets([d for d, _ in dated], unit)
    index = {label: i for i, label in enumerate(labels)}
    per_bucket: list[list[MediaItem]] = [[] for _ in labels]
    for day, item in dated:
        per_bucket[index[bucket_of(day, unit)]].append(item)
    undated = len(corpus.items) - len(dated)
    body = (f'<p class="note">By {esc(date_field)}, one point per {unit}'
            + (f"; {plural(undated, 'item')} without a date in that field left out" if undated else "") + ".</p>")
    if _index(max(d for d, _ in dated), unit) - _index(min(d for d, _ in dated), unit) + 1 > MAX_BUCKETS:
        body += f'<p class="note">The dates span more than {MAX_BUCKETS} {unit}s: only those holding an item are shown.</p>'
    if len(labels) < 2:
        return Section("trend", "Trend over time", body + f'<p class="note">Every dated item falls on {labels[0]}: '
                       "there is no trend to draw yet.</p>")
    body += chart(charts.trends(labels, [("media items", [float(len(b)) for b in per_bucket])], "media items",
                                "trend-count", f"Media items per {unit}"))
    finished = [[i for i in b if i.get("status") == "finished"] for b in per_bucket]
    for title, names in TREND_METRICS:
        series = [(name, [_mean_metric(b, name) for b in finished]) for name in names if corpus.metrics.get(name)]
        if series:
            ident = "trend-" + title.split()[0]
            body += f"<h3>{esc(title.capitalize())}</h3>" + chart(charts.trends(
                labels, series, "mean", ident, f"Mean {title} per {unit}"))
    for key, noun, counts in (("categories", "category", corpus.categories), ("spotting", "group", corpus.groups)):
        top = sorted(counts, key=lambda name: (-counts[name][0], name))[:MAX_TREND_LINES]
        if top:
            series = [(name, [_hit_rate(b, key, name) for b in finished]) for name in top]
            body += f"<h3>{esc(noun.capitalize())} hit rate</h3>" + chart(charts.trends(
                labels, series, "share of calls", f"trend-{key}", f"{noun.capitalize()} hit rate per {unit}"))
    return Section("trend", "Trend over time", body)


def _mean_metric(items: Sequence[MediaItem], name: str) -> float | None:
    values = [m["metricValue"] for item in items for g in item.get("metrics") or [] for m in g.get("metricValues") or []
              if m.get("metricName") == name and is_number(m.get("metricValue"))]
    return statistics.fmean(values) if values else None


def _hit_rate(items: Sequence[MediaItem], key: str, name: str) -> float | None:
    if key == "categories":
        hits = [bool(c.get("categoryValue")) for i in items for c in i.get("categories") or []
                if c.get("categoryName") == name]
    else:
        hits = [bool(g.get("spotted")) for i in items for g in as_dict(i.get("spotting")).get("groups") or []
                if g.get("groupName") == name]
    return sum(hits) / len(hits) if hits else None


def _drivers(corpus: Corpus) -> Section | None:
    """Call drivers: the reasons of the calls with insights, grouped (`store.collection.drivers`)."""
    calls = drivers.of_items([i for i in corpus.items if i.get("status") == "finished"])
    if not calls:
        return None
    found = drivers.drivers(calls)
    rows = []
    for d in found["drivers"][:MAX_DRIVERS]:
        rates = d["outcomes"]
        shown = [f"{round(100 * rates[k])} %" if k in rates else "" for k in drivers.OUTCOMES]
        examples = ", ".join(esc(e["mediaId"][:8]) for e in d["examples"])
        rows.append((esc(d["driver"]), str(d["calls"]), f"{round(100 * d['share'])} %", *shown, examples))
    more = len(found["drivers"]) - MAX_DRIVERS
    note = f'<p class="note">The {MAX_DRIVERS} largest of {len(found["drivers"])} drivers.</p>' if more > 0 else ""
    return Section("drivers", "Call drivers", note + table(
        ["Driver (its most typical reason)", "Calls", "Share", "Resolved", "Unresolved", "Follow-up", "Examples"],
        rows, numeric=(1, 2, 3, 4, 5)))


def _listing(records: Sequence[MediaRow], corpus: Corpus) -> Section:
    rows = []
    for record, day in list(zip(records, corpus.dates))[:MAX_LISTED]:
        item = record["item"]
        title = (item.get("metadata") or {}).get("title") or printable(record.get("input_path", ""))
        rows.append((esc(item.get("mediaId", "")), esc(title), day.isoformat() if day else "",
                     clock(item.get("length")), esc(item.get("status", ""))))
    more = len(records) - MAX_LISTED
    note = f'<p class="note">The first {MAX_LISTED} of {len(records)} items.</p>' if more > 0 else ""
    return Section("items", "Media items", note + table(["Media id", "Title or recording", "Date", "Length", "Status"],
                                                         rows, numeric=(3,)))


def sections(records: Sequence[MediaRow], date_field: str = "dateCreated",
             selection: str = "every item") -> list[Section]:
    """The corpus report's sections for catalog records, each only when there is something to show."""
    corpus = gather(records, date_field)
    built = [_overview(corpus, selection), _drivers(corpus), _distributions(corpus),
             _hit_rates(corpus.categories, "categories", "Category hit rates", "category"),
             _hit_rates(corpus.groups, "spotting", "Keyword group hit rates", "group"),
             _trend(corpus, date_field), _listing(records, corpus) if records else None]
    return [s for s in built if s is not None]


def render(records: Sequence[MediaRow], date_field: str = "dateCreated", selection: str = "every item",
           parts: Sequence[Section] | None = None) -> str:
    """The corpus report as one HTML document (`parts`: its sections, when already built)."""
    subtitle = esc(f"Corpus report · {plural(len(records), 'media item')} · {selection}")
    return page("Corpus report", subtitle, parts if parts is not None else sections(records, date_field, selection))
