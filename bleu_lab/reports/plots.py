"""One figure style for every lesson and widget: titled, labelled, explicit size, closed after display.

Use ``new_figure`` to get a styled (fig, ax), draw with the plot functions below (or your own calls on
``ax``), then ``show(fig)`` in a notebook: it displays the figure once and closes it, so figures never
pile up or print twice.

matplotlib (the "plots" extra, which the lessons' extra includes) is imported where a function draws, not with this
module: the base install, without it, imports every report module and writes the HTML report without its figures.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

FIGSIZE = (6.4, 3.6)
# Okabe & Ito's colour-blind-safe palette (https://jfly.uni-koeln.de/color/); series that must be told
# apart also differ in hatching, marker or line style, never in colour alone.
COLORS = {
    "main": "#0072B2",  # blue: the quantity being taught
    "accent": "#E69F00",  # orange: the current point / the student's value
    "match": "#009E73",  # bluish green: matched n-grams
    "clipped": "#D55E00",  # vermillion: clipped-away or missing
    "muted": "#7F7F7F",  # grey: references, guides
    "extra": "#CC79A7",  # reddish purple: a further series
    "sky": "#56B4E9",  # sky blue: a further series
}
PALETTE = [COLORS["main"], COLORS["accent"], COLORS["match"], COLORS["clipped"], COLORS["muted"], COLORS["extra"],
           COLORS["sky"]]
HATCHES = ["", "//", "..", "xx", "\\\\", "++", "oo", "--"]
STYLE = {
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 12,
    "axes.labelsize": 10,
    "font.size": 10,
    "figure.dpi": 100,
}


# Figures of the HTML reports: larger text, to stay readable on a projector.
REPORT_STYLE = {"axes.titlesize": 14, "axes.labelsize": 12, "xtick.labelsize": 11, "ytick.labelsize": 11,
                "legend.fontsize": 11, "font.size": 12, "font.sans-serif": ["DejaVu Sans", "Arial", "Helvetica"]}


def _pyplot():
    """matplotlib.pyplot, imported on first use: the widgets draw without it (a faster start in classroom mode)."""
    import matplotlib.pyplot as plt

    return plt


def new_figure(title: str, xlabel: str, ylabel: str, figsize: tuple[float, float] = FIGSIZE) -> tuple[Figure, Axes]:
    """A styled figure with one axes, already titled and labelled."""
    plt = _pyplot()
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=figsize)
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=STYLE["grid.alpha"])
        ax.spines[["top", "right"]].set_visible(False)
    return fig, ax


def show(fig: Figure) -> None:
    """Display ``fig`` once (in a notebook) and close it."""
    from IPython.display import display

    fig.tight_layout()
    display(fig)
    _pyplot().close(fig)


def bp_curve(ax: Axes, ratio_max: float = 2.0, current: tuple[int, int] | None = None) -> Axes:
    """Draw BP against c/r (hypothesis length over reference length); mark ``current = (c, r)`` if given."""
    from ..brevity import brevity_penalty

    r = 1000
    cs = range(1, int(ratio_max * r) + 1, 5)
    ax.plot([c / r for c in cs], [brevity_penalty(r, c) for c in cs], color=COLORS["main"], label="BP = exp(1 - r/c)")
    ax.axvline(1.0, color=COLORS["muted"], linestyle="--", linewidth=1, label="c = r")
    if current is not None:
        c, ref = current
        if ref > 0:
            ax.plot([c / ref], [brevity_penalty(ref, c)], "o", color=COLORS["accent"], markersize=9,
                    label=f"c = {c}, r = {ref}: BP = {brevity_penalty(ref, c):.3f}")
    ax.set_xlim(0, ratio_max)
    ax.set_ylim(0, 1.05)
    ax.legend(loc="lower right")
    return ax


def precision_bars(ax: Axes, precisions: Sequence[float | None], labels: Sequence[str] | None = None) -> Axes:
    """Bar chart of p_1 ... p_N (0–1); a missing order (None) is drawn as an empty, labelled slot."""
    xs = list(range(1, len(precisions) + 1))
    values = [0.0 if p is None or math.isnan(p) else float(p) for p in precisions]
    bars = ax.bar(xs, values, color=COLORS["main"], width=0.6)
    for bar, text in zip(bars, labels or [f"{v:.2f}" for v in values]):
        ax.annotate(text, (bar.get_x() + bar.get_width() / 2, bar.get_height()), ha="center", va="bottom",
                    xytext=(0, 2), textcoords="offset points")
    ax.set_xticks(xs, [f"p{n}" for n in xs])
    ax.set_ylim(0, 1.1)
    return ax


class LiveFigure:
    """A figure for widgets that redraw on every keystroke: the axes are drawn once, then only the
    changing artists are redrawn (blitting) and encoded as PNG, a few ms instead of ~100 ms.

    Off pyplot (nothing to close, nothing piles up); subclasses draw the static part in ``__init__``,
    register their changing artists with ``_animate`` and call ``_png()`` after updating them.
    """

    def __init__(self, title: str, xlabel: str, ylabel: str, figsize: tuple[float, float], dpi: int = 100):
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        with matplotlib.rc_context(STYLE):
            self.fig = Figure(figsize=figsize, dpi=dpi)
            FigureCanvasAgg(self.fig)
            self.ax = self.fig.add_subplot()
            self.ax.set_title(title)
            self.ax.set_xlabel(xlabel)
            self.ax.set_ylabel(ylabel)
            self.ax.grid(True, alpha=STYLE["grid.alpha"])
            self.ax.spines[["top", "right"]].set_visible(False)
        self._artists: list = []
        self._background = None

    def _animate(self, artist):
        """Mark ``artist`` as changing: left out of the background, redrawn on every ``_png()``."""
        artist.set_animated(True)
        self._artists.append(artist)
        return artist

    def _png(self) -> bytes:
        import io

        from PIL import Image

        canvas = self.fig.canvas
        if self._background is None:
            self.fig.tight_layout()
            canvas.draw()  # animated artists are skipped: this is the static background
            self._background = canvas.copy_from_bbox(self.fig.bbox)
        canvas.restore_region(self._background)
        for artist in self._artists:
            if artist.get_visible():
                self.ax.draw_artist(artist)
        buf = io.BytesIO()
        Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba()).save(buf, "PNG", compress_level=1)
        return buf.getvalue()


class LivePrecisionBars(LiveFigure):
    """``precision_bars`` for widgets: p_1 ... p_N (0–1) with text labels, updated fast by ``png(...)``."""

    def __init__(self, max_n: int = 4, figsize: tuple[float, float] = (4.2, 3.0), dpi: int = 100):
        super().__init__("Modified precisions p_n", "n-gram order", "p_n", figsize, dpi)
        xs = list(range(1, max_n + 1))
        self.ax.set_xticks(xs, [f"p{n}" for n in xs])
        self.ax.set_xlim(0.4, max_n + 0.6)
        self.ax.set_ylim(0, 1.15)
        bars = self.ax.bar(xs, [0.0] * max_n, color=COLORS["main"], width=0.6)
        self.bars = [self._animate(bar) for bar in bars]
        self.labels = [self._animate(self.ax.text(x, 0, "", ha="center", va="bottom")) for x in xs]

    def png(self, precisions: Sequence[float | None], labels: Sequence[str] | None = None) -> bytes:
        """PNG bytes of the bars for ``precisions`` (None = order not used: an empty slot labelled 'n/a')."""
        for i, (bar, text) in enumerate(zip(self.bars, self.labels)):
            p = precisions[i] if i < len(precisions) else None
            value = 0.0 if p is None or math.isnan(p) else float(p)
            bar.set_height(value)
            text.set_position((bar.get_x() + bar.get_width() / 2, value + 0.02))
            text.set_text(labels[i] if labels and i < len(labels) else ("n/a" if p is None else f"{value:.2f}"))
        return self._png()


class LiveBpCurve(LiveFigure):
    """``bp_curve`` for widgets: the curve is drawn once; ``png(c, r)`` marks the current point fast."""

    def __init__(self, ratio_max: float = 2.0, figsize: tuple[float, float] = (4.2, 3.0), dpi: int = 100):
        super().__init__("Brevity penalty", "c / r (hypothesis length / reference length)", "BP", figsize, dpi)
        self.ratio_max = ratio_max
        bp_curve(self.ax, ratio_max)
        self.ax.legend(loc="lower right", fontsize=8)
        self.point = self._animate(self.ax.plot([], [], "o", color=COLORS["accent"], markersize=9)[0])
        self.label = self._animate(self.ax.text(0.55, 0.8, "", transform=self.ax.transAxes, va="top", fontsize=9,
                                                bbox={"facecolor": "white", "edgecolor": COLORS["accent"]}))

    def png(self, c: int, r: int) -> bytes:
        """PNG bytes of the curve with the point (c/r, BP) marked (none if r = 0; at the edge if off the axis)."""
        from ..brevity import brevity_penalty

        if r > 0:
            bp = brevity_penalty(r, c)
            ratio = c / r
            self.point.set_data([min(ratio, self.ratio_max)], [bp])
            self.point.set_marker("o" if ratio <= self.ratio_max else ">")
            self.label.set_text(f"c = {c}, r = {r}\nc/r = {ratio:.2f}, BP = {bp:.3f}")
        else:
            self.point.set_data([], [])
            self.label.set_text("no lengths to show")
        return self._png()


def grouped_bars(
    ax: Axes,
    groups: Sequence[str],
    series: dict[str, Sequence[float]],
    value_format: str | None = "{:.2f}",
    colors: Sequence[str] | None = None,
    intervals: dict[str, Sequence[tuple[float, float]]] | None = None,
) -> Axes:
    """Bars side by side: one group per label in ``groups``, one bar per entry of ``series`` (name -> values).

    Each bar is labelled with its value (``value_format``; None: no labels); e.g. scores per smoothing method for a
    few sentences. ``intervals[name][g] = (lower, upper)`` draws that bar's interval as an error bar from lower to
    upper. A NaN value
    (e.g. an empty bucket) draws no bar. Series differ in hatching as well as colour, so they stay apart in
    greyscale and for colour-blind readers.
    """
    palette = list(colors or PALETTE)
    width = 0.8 / max(1, len(series))
    for i, (name, values) in enumerate(series.items()):
        xs = [g + (i - (len(series) - 1) / 2) * width for g in range(len(groups))]
        heights = [0.0 if math.isnan(v) else float(v) for v in values]
        bars = ax.bar(xs, heights, width=width * 0.95, label=name, color=palette[i % len(palette)],
                      hatch=HATCHES[i % len(HATCHES)], edgecolor="black", linewidth=0.4)
        if intervals and name in intervals:
            drawn = [(x, v, lo, hi) for x, v, (lo, hi) in zip(xs, values, intervals[name])
                     if not (math.isnan(v) or math.isnan(lo) or math.isnan(hi))]
            if drawn:  # from lower to upper bound (a percentile interval need not contain the value itself)
                xs_drawn = [d[0] for d in drawn]
                ax.vlines(xs_drawn, [d[2] for d in drawn], [d[3] for d in drawn], colors="black", linewidth=0.9)
                for k in (2, 3):
                    ax.plot(xs_drawn, [d[k] for d in drawn], "_", color="black", markersize=4)
        if value_format is not None:
            for bar, value in zip(bars, values):
                if not math.isnan(value):
                    ax.annotate(value_format.format(value), (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                                ha="center", va="bottom", xytext=(0, 2), textcoords="offset points", fontsize=7)
    ax.set_xticks(range(len(groups)), groups)
    ax.legend(fontsize=8)
    return ax


def figure_svg(
    title: str,
    xlabel: str,
    ylabel: str,
    draw: Callable[[Axes], object],
    description: str,
    figsize: tuple[float, float] = (7.2, 3.4),
    margins: tuple[float, float, float, float] | None = None,
) -> str:
    """A styled figure as inline SVG for HTML reports: ``draw(ax)`` fills the axes.

    Offline and script-free: no external reference, no ``<style>`` element (it would style the whole page), text
    kept as text (``svg.fonttype: none``) so it scales sharply when projected. For screen readers the ``<svg>`` is
    ``role="img"`` named by ``title`` (``aria-label`` and ``<title>``) and described by ``description`` (``<desc>``).
    Every element id is prefixed with a hash of the title and description, so several figures can share one page.
    ``margins = (left, bottom, right, top)``, as fractions of the figure, place the axes at once; without them the
    layout is tight, which costs matplotlib a second drawing pass.
    """
    import hashlib
    import io
    import re

    import matplotlib
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure

    from .templates import render

    salt = hashlib.sha256(f"{title}\n{description}".encode()).hexdigest()[:12]
    with matplotlib.rc_context({**STYLE, **REPORT_STYLE, "svg.fonttype": "none", "svg.hashsalt": salt}):
        fig = Figure(figsize=figsize)
        FigureCanvasSVG(fig)
        ax = fig.add_subplot()
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=STYLE["grid.alpha"])
        ax.spines[["top", "right"]].set_visible(False)
        draw(ax)
        if margins is None:
            fig.set_layout_engine("tight")
        else:
            left, bottom, right, top = margins
            fig.subplots_adjust(left=left, bottom=bottom, right=right, top=top)
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)
    text = re.sub(r"<style type=\"text/css\">.*?</style>", "", text, flags=re.S)
    text = re.sub(r"<defs>\s*</defs>\s*", "", text)
    text = re.sub(r' (d|x|y|transform)="([^"]*)"', _compact, text)
    prefix = f"f{salt}-"  # every id and every reference to one, unique to this figure
    text = re.sub(r' id="([^"]+)"', lambda m: f' id="{prefix}{m.group(1)}"', text)
    text = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}{m.group(1)})", text)
    text = re.sub(r'href="#([^"]+)"', lambda m: f'href="#{prefix}{m.group(1)}"', text)
    width = float(re.search(r'width="([\d.]+)pt"', text).group(1)) * 4 / 3  # points to CSS pixels
    view_box = re.search(r'viewBox="([^"]+)"', text).group(1)
    root = render("figure.html.j2", view_box=view_box, width_px=width, title=title, description=description)
    return root + text[text.index(">") + 1:].strip()  # matplotlib's drawing under our own root element


def _compact(match) -> str:
    """A geometry attribute with its numbers cut to one decimal (0.1 pt) and its whitespace collapsed."""
    import re

    value = re.sub(r"\s+", " ", re.sub(r"(\.\d)\d+", r"\1", match.group(2))).strip()
    return f' {match.group(1)}="{value}"'


# --- corpus level (lessons 8-9): sentence-score distributions, bootstrap intervals, randomization ---------


def new_grid(
    title: str, nrows: int, ncols: int, xlabel: str, ylabel: str, figsize: tuple[float, float] = (9.6, 5.4)
) -> tuple[Figure, list[Axes]]:
    """A styled figure with an ``nrows`` x ``ncols`` grid of axes sharing x and y (small multiples).

    ``title`` goes on the figure; every axes gets the axis labels (set each one's own title for its panel).
    Returns the figure and the axes as a flat list, row by row.
    """
    plt = _pyplot()
    with plt.rc_context(STYLE):
        fig, grid = plt.subplots(nrows, ncols, figsize=figsize, sharex=True, sharey=True, squeeze=False)
        fig.suptitle(title)
        axes = [ax for row in grid for ax in row]
        for ax in axes:
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
            ax.grid(True, alpha=STYLE["grid.alpha"])
            ax.spines[["top", "right"]].set_visible(False)
            ax.label_outer()
    return fig, axes


def score_histogram(
    ax: Axes,
    scores: Sequence[float],
    corpus_score: float | None = None,
    mean_score: float | None = None,
    bin_width: float = 5.0,
    color: str | None = None,
) -> Axes:
    """Histogram of sentence BLEU scores (0–100) in bins of ``bin_width``; the corpus BLEU and the mean of the
    sentence scores, if given, as vertical lines (they differ: corpus BLEU pools the statistics first)."""
    edges = [i * bin_width for i in range(int(math.ceil(100 / bin_width)) + 1)]
    ax.hist(list(scores), bins=edges, color=color or COLORS["main"], edgecolor="white", linewidth=0.5)
    if corpus_score is not None:
        ax.axvline(corpus_score, color=COLORS["accent"], linewidth=2, label=f"corpus BLEU {corpus_score:.1f}")
    if mean_score is not None:
        ax.axvline(mean_score, color=COLORS["muted"], linewidth=2, linestyle="--",
                   label=f"mean sentence BLEU {mean_score:.1f}")
    ax.set_xlim(0, 100)
    if corpus_score is not None or mean_score is not None:
        ax.legend(fontsize=7, loc="best", framealpha=0.9)
    return ax


def bootstrap_distributions(
    ax: Axes,
    samples: dict[str, Sequence[float]],
    intervals: dict[str, tuple[float, float]] | None = None,
    bins: int = 40,
) -> Axes:
    """Each system's bootstrap scores as a step histogram (own colour and line style); ``intervals[name] =
    (lower, upper)`` shades that system's 95% percentile interval between its bounds."""
    palette = [COLORS["main"], COLORS["accent"], COLORS["match"], COLORS["clipped"], COLORS["muted"]]
    styles = ["-", "--", "-.", ":"]
    values = [float(v) for s in samples.values() for v in s]
    if not values:
        return ax
    lo, hi = min(values), max(values)
    width = (hi - lo) / bins if hi > lo else 1.0
    edges = [lo + i * width for i in range(bins + 1)]
    for i, (name, scores) in enumerate(samples.items()):
        color, style = palette[i % len(palette)], styles[i % len(styles)]
        label = name
        if intervals and name in intervals:
            low, high = intervals[name]
            ax.axvspan(low, high, color=color, alpha=0.10)
            for bound in (low, high):
                ax.axvline(bound, color=color, linestyle=style, linewidth=1)
            label = f"{name}: 95% interval [{low:.2f}, {high:.2f}]"
        ax.hist([float(v) for v in scores], bins=edges, histtype="step", color=color, linestyle=style, linewidth=2,
                label=label)
    ax.legend(fontsize=8)
    return ax


def ci_error_bars(
    ax: Axes,
    names: Sequence[str],
    intervals: Sequence[tuple[float, float]],
    scores: Sequence[float] | None = None,
) -> Axes:
    """One horizontal bar per system from the lower to the upper bound of its 95% bootstrap interval; ``scores``
    (the full-test-set BLEU) as diamonds. Overlapping bars say little on their own: a paired test decides."""
    ys = list(range(len(names)))
    for y, (low, high) in zip(ys, intervals):
        ax.plot([low, high], [y, y], color=COLORS["main"], linewidth=2, solid_capstyle="butt",
                label="95% bootstrap interval" if y == 0 else None)
        ax.plot([low, high], [y, y], "|", color=COLORS["main"], markersize=10)
    if scores is not None:
        ax.plot(list(scores), ys, "D", color=COLORS["accent"], markersize=5, zorder=3,
                label="BLEU on the full test set")
    ax.set_yticks(ys, list(names))
    ax.set_ylim(-0.6, len(names) - 0.4)
    ax.legend(fontsize=8, loc="best", framealpha=0.9)
    return ax


def randomization_null(ax: Axes, differences: Sequence[float], observed: float, bins: int = 40) -> Axes:
    """Histogram of |BLEU_a - BLEU_b| over the shuffled trials of approximate randomization, with the observed
    gap marked; the trials beyond it (what the p-value counts) in red."""
    values = [float(d) for d in differences]
    hi = max([*values, abs(observed)]) or 1.0
    width = hi / bins
    start = abs(observed) - width * math.floor(abs(observed) / width)  # the observed gap falls on a bin edge
    edges = ([0.0] if start > 0 else []) + [start + width * i for i in range(math.ceil((hi - start) / width) + 2)]
    below = [d for d in values if d <= abs(observed)]
    above = [d for d in values if d > abs(observed)]
    ax.hist(below, bins=edges, color=COLORS["main"], label="shuffles with a smaller gap")
    ax.hist(above, bins=edges, color=COLORS["clipped"], label=f"shuffles with a larger gap ({len(above)})")
    ax.axvline(abs(observed), color=COLORS["accent"], linewidth=2, label=f"observed gap {abs(observed):.2f}")
    ax.legend(fontsize=8)
    return ax


def false_alarm_bars(ax: Axes, rates: dict[str, float], alpha: float = 0.05) -> Axes:
    """One bar per test: the share of equally good pairs it called significant; a dashed line at ``alpha``, the share
    a valid test promises. Bars differ in hatching as well as colour."""
    palette = [COLORS["main"], COLORS["match"], COLORS["clipped"], COLORS["accent"]]
    hatches = ["", "//", "xx", ".."]
    xs = list(range(len(rates)))
    for x, rate in zip(xs, rates.values()):
        ax.bar(x, rate, width=0.6, color=palette[x % len(palette)], hatch=hatches[x % len(hatches)],
               edgecolor="black", linewidth=0.5)
        ax.text(x, rate, f"{rate:.0%}", ha="center", va="bottom", fontsize=9)
    ax.axhline(alpha, color=COLORS["muted"], linestyle="--", linewidth=1.5, label=f"promised: {alpha:.0%}")
    ax.set_xticks(xs, [name.replace(", ", ",\n") for name in rates], fontsize=8)
    ax.set_ylim(0, max([alpha * 2, *rates.values()]) * 1.25)
    ax.legend(fontsize=8, loc="upper left")
    return ax


def paired_gaps(ax: Axes, gaps: Sequence[float], observed: float, bins: int = 40) -> Axes:
    """Histogram of the per-resample gaps BLEU_system - BLEU_baseline of a paired bootstrap, with 0 and the
    observed gap marked: the paired view that two separate confidence intervals cannot give."""
    values = [float(g) for g in gaps]
    below = sum(1 for g in values if g < 0)
    ax.hist(values, bins=bins, color=COLORS["main"], label=f"resampled gaps ({below} of {len(values)} below 0)")
    ax.axvline(0, color=COLORS["muted"], linewidth=1.5, linestyle="--", label="no difference")
    ax.axvline(observed, color=COLORS["accent"], linewidth=2, label=f"observed gap {observed:+.2f}")
    ax.legend(fontsize=8, loc="best", framealpha=0.9)
    return ax


def figure_png(
    title: str,
    xlabel: str,
    ylabel: str,
    draw: Callable[[Axes], object],
    figsize: tuple[float, float] = (5.6, 3.2),
    dpi: int = 100,
) -> bytes:
    """PNG bytes of a styled figure off pyplot (nothing to close): ``draw(ax)`` fills the axes. For widgets
    whose picture changes completely on every update (histograms), where ``LiveFigure``'s blitting cannot help."""
    figure = LiveFigure(title, xlabel, ylabel, figsize, dpi)
    draw(figure.ax)
    return figure._png()


# --- metrics against people (lesson 10) -------------------------------------------------------------


def labelled_scatter(
    ax: Axes,
    x: Sequence[float],
    y: Sequence[float],
    labels: Sequence[str],
    highlight: Sequence[str] = (),
) -> Axes:
    """One point per system with its name beside it; the names in ``highlight`` drawn as orange squares
    (the others as blue circles), so they stand out without colour too."""
    for xi, yi, label in zip(x, y, labels):
        special = label in highlight
        ax.plot(xi, yi, "s" if special else "o", color=COLORS["accent" if special else "main"], markersize=7,
                markeredgecolor="black", markeredgewidth=0.5, zorder=3)
        ax.annotate(label, (xi, yi), xytext=(5, 3), textcoords="offset points", fontsize=8)
    return ax


def segment_scatter(
    ax: Axes,
    x: Sequence[float],
    y: Sequence[float],
    highlight: dict[str, tuple[float, float]] | None = None,
    jitter: float = 0.0,
    seed: int = 0,
) -> Axes:
    """One translucent point per segment (x = a metric, y = people's score), and the named points of ``highlight``
    (label -> (x, y)) as orange squares with their labels. ``jitter`` spreads y by up to ±jitter (seeded), so that
    many segments on one value (MQM's 0) show as a band, not one dot."""
    rng = np.random.default_rng(seed)
    ys = np.asarray(y, dtype=float) + (rng.uniform(-jitter, jitter, len(y)) if jitter else 0.0)
    ax.plot(x, ys, "o", color=COLORS["main"], alpha=0.35, markersize=4, markeredgewidth=0, zorder=2)
    for label, (xi, yi) in (highlight or {}).items():
        ax.plot(xi, yi, "s", color=COLORS["accent"], markersize=8, markeredgecolor="black", markeredgewidth=0.6,
                zorder=3)
        ax.annotate(label, (xi, yi), xytext=(5, 4), textcoords="offset points", fontsize=8)
    return ax
