"""One figure style for every lesson and widget: titled, labelled, explicit size, closed after display.

Use ``new_figure`` to get a styled (fig, ax), draw with the plot functions below (or your own calls on
``ax``), then ``show(fig)`` in a notebook: it displays the figure once and closes it, so figures never
pile up or print twice.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure

FIGSIZE = (6.4, 3.6)
COLORS = {
    "main": "#1f5fa8",  # blue: the quantity being taught
    "accent": "#d9822b",  # orange: the current point / the student's value
    "match": "#2e7d32",  # green: matched n-grams
    "clipped": "#c62828",  # red: clipped-away or missing
    "muted": "#8a8a8a",  # grey: references, guides
}
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


def new_figure(title: str, xlabel: str, ylabel: str, figsize: tuple[float, float] = FIGSIZE) -> tuple[Figure, Axes]:
    """A styled figure with one axes, already titled and labelled."""
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
    plt.close(fig)


def bp_curve(ax: Axes, ratio_max: float = 2.0, current: tuple[int, int] | None = None) -> Axes:
    """Draw BP against c/r (hypothesis length over reference length); mark ``current = (c, r)`` if given."""
    from .brevity import brevity_penalty

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
