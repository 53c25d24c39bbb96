"""The reports' charts: matplotlib figures written as inline SVG (no script, no request, text kept as text).

Every chart is a pure function of plain data that returns one `<svg>` element, scaled to the width of
the page. Colours are the Okabe-Ito palette, which stays distinct for the common kinds of colour
blindness; marks also differ by hatching or shape, so no meaning rests on colour alone.
"""
from __future__ import annotations

import functools
import io
import re
from collections.abc import Callable, Sequence

from speechproc.report.page import clock

# Okabe & Ito, "Color Universal Design": distinct under protanopia, deuteranopia and tritanopia
SPEAKER_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
OVERTALK_COLOUR = "#D55E00"
SILENCE_COLOUR = "#999999"
DETECTION_COLOUR = "#000000"
WIDTH_IN = 9.0

Span = tuple[float, float]  # (start, end), seconds


def speaker_colour(index: int) -> str:
    """The colour of the index-th speaker (or series)."""
    return SPEAKER_COLOURS[index % len(SPEAKER_COLOURS)]


def drawn(chart: Callable[..., str]) -> Callable[..., str]:
    """Draw a chart with text taken as it is: a speaker named "$x$" is not matplotlib's math notation
    (which would change the label, or fail on an odd number of dollars)."""
    @functools.wraps(chart)
    def plain(*args, **kwargs) -> str:
        import matplotlib

        with matplotlib.rc_context({"text.parse_math": False, "svg.fonttype": "none", "font.size": 9}):
            return chart(*args, **kwargs)
    return plain


def _figure(height_in: float):
    from matplotlib.figure import Figure  # the import takes most of a second: only when a chart is drawn

    fig = Figure(figsize=(WIDTH_IN, height_in), layout="constrained")
    return fig


def _time_axis(ax, length_s: float) -> None:
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    ax.set_xlim(0, max(length_s, 1.0))
    ax.xaxis.set_major_locator(MaxNLocator(nbins=10, steps=[1, 2, 3, 5, 6, 10]))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda seconds, _pos: clock(round(seconds) * 1000)))
    ax.set_xlabel("time (m:ss)")


def svg(fig, name: str, title: str | None = None) -> str:
    """The figure as an `<svg>` element that scales to the page: no XML prologue, ids unique to `name`,
    `title` (default: `name`) as its accessible name."""
    from html import escape

    import matplotlib

    with matplotlib.rc_context({"svg.hashsalt": name}):
        out = io.StringIO()
        fig.savefig(out, format="svg", metadata={"Date": None, "Creator": None})
    text = out.getvalue()
    text = text[text.index("<svg"):]
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, count=1, flags=re.S)
    text = re.sub(r"font-family: [^;\"]*", "font-family: sans-serif", text)
    # the page sets the size: drop the fixed width and height, keep the viewBox
    text = re.sub(r'<svg([^>]*?) width="[^"]*" height="[^"]*"', r'<svg\1', text, count=1)
    text = text.replace("<svg", f'<svg role="img" aria-labelledby="{name}-title" class="chart"', 1)
    # matplotlib's own element ids ("figure_1", "patch_2") repeat in every chart: make them the chart's own
    text = re.sub(r'id="((?:figure|axes|patch|line2d|text|matplotlib\.axis|xtick|ytick|PolyCollection|'
                  r'LineCollection|PathCollection|legend|BarContainer|FancyBboxPatch)[^"]*)"',
                  lambda m: f'id="{name}-{m.group(1)}"', text)
    return text.replace(">", f'><title id="{name}-title">{escape(title or name)}</title>', 1)


@drawn
def timeline(lanes: Sequence[tuple[str, Sequence[Span]]], overtalk: Sequence[Span], silences: Sequence[Span],
             detections: Sequence[Span], length_s: float, name: str = "timeline", title: str | None = None) -> str:
    """One lane per speaker with their turns, then overtalk, silences and detected (redacted) stretches."""
    rows: list[tuple[str, Sequence[Span], dict]] = []
    for index, (speaker, spans) in enumerate(lanes):
        rows.append((speaker, spans, {"facecolor": speaker_colour(index)}))
    rows.append(("overtalk", overtalk, {"facecolor": OVERTALK_COLOUR, "hatch": "////", "edgecolor": "white",
                                        "linewidth": 0}))
    rows.append(("silence > 4 s", silences, {"facecolor": "#e6e6e6", "edgecolor": SILENCE_COLOUR, "hatch": "--",
                                             "linewidth": 0.8}))
    if detections:
        rows.append(("detected", detections, {"facecolor": DETECTION_COLOUR, "hatch": "xx", "edgecolor": "white",
                                              "linewidth": 0}))
    fig = _figure(0.55 + 0.32 * len(rows))
    ax = fig.add_subplot()
    for y, (_, spans, style) in enumerate(reversed(rows)):
        if spans:
            ax.broken_barh([(s, max(e - s, length_s / 2000)) for s, e in spans], (y + 0.15, 0.7), **style)
    ax.set_yticks([y + 0.5 for y in range(len(rows))], [label for label, _, _ in reversed(rows)])
    ax.set_ylim(0, len(rows))
    ax.tick_params(axis="y", length=0)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    _time_axis(ax, length_s)
    ax.grid(axis="x", color="#dddddd", linewidth=0.5)
    ax.set_axisbelow(True)
    return svg(fig, name, title)


MARKERS = ("o", "s", "^", "D", "v", "P", "X")


@drawn
def sentiment(series: Sequence[tuple[str, Sequence[tuple[float, float]]]], length_s: float,
              name: str = "sentiment", title: str | None = None) -> str:
    """Sentence sentiment (-1 to 1) over time, one line and marker shape per speaker."""
    fig = _figure(2.6)
    ax = fig.add_subplot()
    ax.axhline(0, color="#777777", linewidth=0.6)
    for index, (speaker, points) in enumerate(series):
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        ax.plot(xs, ys, color=speaker_colour(index), marker=MARKERS[index % len(MARKERS)], markersize=3.5,
                linewidth=1.1, label=speaker, linestyle="-" if index % 2 == 0 else "--")
    ax.set_ylim(-1.05, 1.05)
    ax.set_ylabel("sentiment")
    _time_axis(ax, length_s)
    if series:
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return svg(fig, name, title)


@drawn
def histograms(values_by_name: Sequence[tuple[str, Sequence[float]]], name: str = "distributions",
               title: str | None = None) -> str:
    """Small multiples: one histogram per metric, three to a row."""
    columns = 3
    rows = max(1, -(-len(values_by_name) // columns))
    fig = _figure(1.9 * rows + 0.2)
    axes = fig.subplots(rows, columns, squeeze=False)
    for index, ax in enumerate(axes.flat):
        if index >= len(values_by_name):
            ax.set_visible(False)
            continue
        metric, values = values_by_name[index]
        ax.hist(values, bins=min(20, max(5, len(set(values)))), color=SPEAKER_COLOURS[index % 5],
                edgecolor="white", linewidth=0.5)
        ax.set_title(metric, fontsize=8.5)
        ax.tick_params(labelsize=7.5)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    return svg(fig, name, title)


@drawn
def rates(labels: Sequence[str], values: Sequence[float], name: str = "rates", title: str | None = None) -> str:
    """Horizontal bars of shares (0 to 1), one per label, labelled with their percentage."""
    fig = _figure(0.45 + 0.26 * max(len(labels), 1))
    ax = fig.add_subplot()
    ys = list(range(len(labels)))[::-1]
    ax.barh(ys, values, color=SPEAKER_COLOURS[0], height=0.65)
    for y, value in zip(ys, values):
        ax.text(min(value, 1.0) + 0.01, y, f"{value:.0%}", va="center", fontsize=8)
    ax.set_yticks(ys, labels)
    ax.set_xlim(0, 1.12)
    ax.set_xlabel("share of calls")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return svg(fig, name, title)


@drawn
def trends(buckets: Sequence[str], series: Sequence[tuple[str, Sequence[float | None]]], ylabel: str,
           name: str = "trend", title: str | None = None) -> str:
    """Lines over time buckets (labels in order); None leaves a gap."""
    fig = _figure(2.5)
    ax = fig.add_subplot()
    xs = list(range(len(buckets)))
    for index, (label, values) in enumerate(series):
        ys = [float("nan") if v is None else v for v in values]
        ax.plot(xs, ys, color=speaker_colour(index), marker=MARKERS[index % len(MARKERS)], markersize=3.5,
                linewidth=1.1, label=label, linestyle="-" if index % 2 == 0 else "--")
    step = max(1, len(buckets) // 12)
    ax.set_xticks(xs[::step], list(buckets)[::step], rotation=30, ha="right", fontsize=7.5)
    ax.set_ylabel(ylabel)
    if len(series) > 1:
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False, fontsize=7.5)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return svg(fig, name, title)
