"""A comparison's figures, as inline SVG (``bleu_lab.reports.plots.figure_svg``) with a text alternative for each:
the bucket bars, the figures' grid, and the metrics' scatter plot. Each figure is drawn where the grid places it:
without matplotlib (the base install, no "plots" extra) the grid is one line saying what to add.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial

import numpy as np

from ...commands import plots_missing_note
from ...reports import plots
from ...reports.templates import Markup
from ..results import BucketTable, ComparisonData
from .common import _float, fmeasure_or_none, tables


# --- figures (inline SVG, one figure style: plots.py) -------------------------------------------------------------
def _nan(value: float | None) -> float:
    return float("nan") if value is None else value


def _values_text(labels: list[str], series: dict[str, list[float]], intervals: dict | None, fmt: str,
                 counts: dict[str, list[int]] | None = None, empty: str = "no segment") -> str:
    """The numbers behind a figure, as text for its <desc>: per system, each bucket's value [interval]."""
    parts = []
    for name, values in series.items():
        cells = []
        for b, (label, value) in enumerate(zip(labels, values)):
            if counts is not None and not counts[name][b]:
                cells.append(f"{label}: {empty}")
                continue
            text = f"{label}: {fmt.format(value)}"
            if intervals:
                text += " [{}, {}]".format(*(fmt.format(x) for x in intervals[name][b]))
            cells.append(text)
        parts.append(f"{name}: " + "; ".join(cells))
    return ". ".join(parts) + "."


def _bucket_figure(t: BucketTable, title: str, xlabel: str, wide: bool = False) -> str:
    return _bars_figure(t.labels, {n: [s.bleu for s in scores] for n, scores in t.scores.items()},
                        {n: [s.interval for s in scores] for n, scores in t.scores.items()},
                        {n: [s.count for s in scores] for n, scores in t.scores.items()}, title, xlabel, "BLEU",
                        "Bar chart: BLEU of each system's segments in each bucket, error bars the 95% bootstrap "
                        "interval. ", "{:.1f}", "no segment", wide)


def _bars_figure(labels: list[str], series: dict[str, list[float]], intervals: dict, counts: dict[str, list[int]],
                 title: str, xlabel: str, ylabel: str, lead: str, fmt: str, empty: str, wide: bool) -> str:
    """A bucket figure: per bucket one bar per system with its 95% interval, no bar where ``counts`` is 0; the
    y axis starts at 0 unless a value or bound is below it. Its <desc> is ``lead`` and every number."""
    desc = (lead + _values_text(labels, series, intervals, fmt, counts, empty)
            + " The table below holds the same numbers.")
    values = [x for n in series for x in (*series[n], *(b for pair in intervals[n] for b in pair))
              if not math.isnan(x)]

    def draw(ax):
        plots.grouped_bars(ax, labels, series, None, intervals=intervals)
        if min(values, default=0.0) >= 0:
            ax.set_ylim(0, None)
        _legend(ax, list(series))
        if wide:
            _slant(ax)

    return plots.figure_svg(title, xlabel, ylabel, draw, desc, FIGSIZE, MARGINS)


def _figures_html(figures: list[tuple[Callable[[], str], str]]) -> str:
    """Figures (draw, caption) side by side, two to a row on a wide screen, each ``draw()`` giving its SVG ("" for
    none: matplotlib's, its text escaped by matplotlib's SVG writer; the caption is text); without matplotlib, one
    line in their place saying that they need it and the command that adds it."""
    if not figures:
        return ""
    if note := plots_missing_note():
        return str(tables().figures_missing(note))
    return str(tables().figures([(Markup(draw()), caption) for draw, caption in figures]))


FIGSIZE = (7.2, 3.6)  # inches; shown at most 691 px wide, two to a row on a 1280-px screen


MARGINS = (0.1, 0.3, 0.76, 0.9)  # left, bottom, right, top: room for slanted labels and the legend on the right


LEGEND_CHARS = 18  # a longer system name is cut in the legend (the tables and the text alternative give it whole)


def _legend(ax, names: list[str]) -> None:
    """The systems' legend right of the axes: every name as typed (matplotlib would read ``$...$`` as math and
    leave out a name starting with ``_``), long names cut."""
    from matplotlib.container import BarContainer

    bars = [c for c in ax.containers if isinstance(c, BarContainer)]
    labels = [n if len(n) <= LEGEND_CHARS else n[:LEGEND_CHARS - 1] + "…" for n in names]
    ax.legend(bars, [label.replace("$", r"\$") for label in labels], loc="upper left", bbox_to_anchor=(1.0, 1.0),
              frameon=False)


def _slant(ax) -> None:
    """Bucket labels slanted, each ending under its group, so long labels do not overlap."""
    for label in ax.get_xticklabels():
        label.set(rotation=40, ha="right", rotation_mode="anchor")


def figures_html(c: ComparisonData) -> str:
    """The report's figures: BLEU by reference length and by length difference (with 95% bootstrap intervals),
    word F-measure by frequency bucket, and the distribution of sentence BLEU."""
    w = c.word_accuracy
    fmeasure = {n: [_nan(fmeasure_or_none(w.counts[n], b)) for b in range(len(w.labels))] for n in c.names}
    ref_words = next(iter(w.counts.values())).reference
    word_desc = ("Bar chart: each system's word F-measure (0 to 1) in each frequency bucket. "
                 + _values_text(w.labels, fmeasure, None, "{:.3f}", {n: ref_words for n in c.names},
                                "no reference word") + " The table below holds the same numbers.")

    def draw_words(ax):
        plots.grouped_bars(ax, w.labels, fmeasure, None)
        ax.set_ylim(0, 1)
        _legend(ax, list(fmeasure))
        _slant(ax)

    bands = c.sentence_bleu_buckets
    shares = {n: [s.count for s in scores] for n, scores in bands.scores.items()}
    band_desc = ("Bar chart: how many segments of each system fall in each sentence-BLEU band. "
                 + _values_text(bands.labels, shares, None, "{:d}") + " The table below holds the same numbers.")

    def draw_bands(ax):
        plots.grouped_bars(ax, bands.labels, shares, None)
        _legend(ax, list(shares))
        _slant(ax)

    figures = [
        (partial(_bucket_figure, c.length_buckets, "BLEU by reference length", "tokens of the first reference"),
         "Segments grouped by the length of their first reference; error bars: 95% bootstrap intervals."),
        (partial(_bucket_figure, c.length_difference_merged or c.length_difference_buckets,
                 "BLEU by length difference", "output length − reference length (tokens)", wide=True),
         "Each system's segments grouped by how much longer (or shorter) its output is than the first reference; "
         "error bars: 95% bootstrap intervals. The figure merges the table's 17 buckets (compare-mt's) into "
         f"{len((c.length_difference_merged or c.length_difference_buckets).labels)} so the bars stay readable."),
        (partial(plots.figure_svg, "Word F-measure by frequency bucket", f"frequency in the {w.frequency_source}",
                 "F-measure", draw_words, word_desc, FIGSIZE, MARGINS),
         f"Words grouped by how often they occur in the {w.frequency_source}, rarest on the left."),
        (partial(plots.figure_svg, "Sentence-BLEU distribution", "sentence BLEU band", "segments", draw_bands,
                 band_desc, FIGSIZE, MARGINS),
         "How many segments of each system score in each band of sentence BLEU (sacrebleu's, effective order)."),
    ]
    return _figures_html(figures)


def scatter_html(c: ComparisonData) -> str:
    """Sentence BLEU against each --scores metric, one point per rated segment of every system."""
    figures = []
    for m in c.metrics:
        xs, ys = [], []
        for name in c.names:
            values = c.metric_scores[m.name].scores[name]
            keep = ~np.isnan(values)
            xs.extend(c.sentence_bleu[name][keep].tolist())
            ys.extend(values[keep].tolist())
        if not xs:
            continue
        tau = next((a.pooled.tau for a in c.agreement if {a.x, a.y} == {"BLEU", m.name}), float("nan"))
        distinct = len(set(ys))
        desc = (f"Scatter plot: {len(xs)} segments (every system's rated segments), sentence BLEU (0 to 100) across, "
                f"{m.name} ({m.direction}) up"
                + ("" if m.higher_is_better else ", its axis turned so that better is up, from the highest score at "
                   "the bottom to the lowest at the top")
                + f", from {min(ys):.2f} to {max(ys):.2f} with {distinct} distinct values"
                f"{', jittered so that equal values show as a band' if distinct < len(ys) / 4 else ''}. Kendall's τ_b "
                f"between them (no grouping): {_float(tau)}. The agreement table holds the numbers.")
        jitter = 0.15 if distinct < len(ys) / 4 else 0.0

        def draw(ax, xs=xs, ys=ys, jitter=jitter, turn=not m.higher_is_better):
            plots.segment_scatter(ax, xs, ys, jitter=jitter)
            ax.set_xlim(-2, 102)
            if turn:  # lower is better: better up, as for BLEU and as lesson 12 plots MQM
                ax.invert_yaxis()

        figures.append((partial(plots.figure_svg, f"Sentence BLEU and {m.name}", "sentence BLEU",
                                f"{m.name} (better ↑)", draw, desc, FIGSIZE, (0.12, 0.15, 0.96, 0.9)),
                        f"Each dot a segment of one system; {m.name} is {m.direction}"
                        + ("." if m.higher_is_better else ", so its axis is turned: better is up, as for BLEU.")))
    return _figures_html(figures)
