"""The chrF explain view: one ``ChrfExplanation`` as compact HTML for notebooks, in the BLEU view's style.

Top to bottom: the score and its signature; the hypothesis and each reference with its chrF (the kept one
marked ✓ in words too); one row per order with P_n and R_n as fractions and whether the order is averaged; the
n-gram table of each order (✓ matched, ✂ clipped, ✗ not in the reference); P, R and the F-beta formula with the
numbers in. The markup is in templates/chrf_explain.html.j2 (autoescaped: all user text is escaped). Colour is
never the only signal, long text wraps, and huge input is shown in proportion (row caps with a "… N more" note).
Nothing here computes chrF: the numbers come from explain_chrf.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ..metrics.chrf import ChrfOptions
from .explain_html import (
    CLIPPED,
    MATCH,
    MAX_ROWS,
    MISS,
    row_status,
    view_constants,
)
from .templates import render

MAX_CHARS = 2000  # characters of the hypothesis and of each reference shown
SPACE_SYMBOLS = {"\t": "⇥", "\n": "↵", "\r": "↵"}  # any other whitespace shows as ␣
WORDS = {MATCH: "matched", CLIPPED: "clipped (the reference has fewer)", MISS: "not in the reference"}
LEGEND_TEXT = "✓ = every copy matched · ✂ = clipped: the reference has fewer copies · ✗ = not in the reference"


class ChrfRowLike(Protocol):
    text: str
    count: int
    ref_count: int
    matched: int


class ChrfOrderLike(Protocol):
    """What the view reads of an ``explain_chrf.ChrfOrder``."""

    kind: str
    n: int
    rows: Sequence[ChrfRowLike]
    hyp: int
    ref: int
    matches: int
    f: float
    counted: bool
    reason: str
    label: str


class ChrfExplanationLike(Protocol):
    """What the view reads of an ``explain_chrf.ChrfExplanation``."""

    hypothesis: str
    references: Sequence[str]
    options: ChrfOptions
    reference_scores: Sequence[float]
    chosen: int
    orders: Sequence[ChrfOrderLike]
    score: float
    notes: Sequence[str]
    name: str
    signature: str

    def averages(self) -> tuple[str, str]: ...

    def formula(self) -> str: ...


def visible(text: str) -> str:
    """``text`` with each whitespace character shown: ␣ for a space, ⇥ a tab, ↵ a line break."""
    return "".join(SPACE_SYMBOLS.get(c, "␣") if c.isspace() else c for c in text)


def readable(text: str, whitespace: bool) -> str:
    """``text`` as chrF reads it: whitespace made visible when it counts, else runs of it as one space."""
    return visible(text) if whitespace else " ".join(text.split())


def shown_text(text: str, limit: int) -> str:
    """``text`` cut after ``limit`` characters for display (the numbers always count them all)."""
    if len(text) <= limit:
        return text
    return text[:limit] + f" … ({len(text) - limit:,} more characters, all counted)"


def shown_references(count: int, chosen: int, limit: int) -> list[int]:
    """The indices of the references to list: the first ``limit``, and the kept one wherever it is."""
    return sorted(set(range(min(count, limit))) | {chosen})


def fraction_text(top: int, bottom: int) -> str:
    """'5/7 = 0.7143', or '0/0' with nothing to divide by."""
    return f"{top}/{bottom} = {top / bottom:.4g}" if bottom else f"{top}/{bottom}"


def chrf_explanation_html(expl: ChrfExplanationLike, *, max_rows: int = MAX_ROWS, max_chars: int = MAX_CHARS) -> str:
    """The whole chrF explain view as one self-contained HTML fragment (inline styles only;
    templates/chrf_explain.html.j2)."""
    whitespace = expl.options.whitespace

    def text(value: str) -> str:
        return shown_text(readable(value, whitespace), max_chars)

    references = [_ShownReference(i + 1, text(expl.references[i]), expl.reference_scores[i], i == expl.chosen)
                  for i in shown_references(len(expl.references), expl.chosen, max_rows)]
    orders = [
        _OrderData(o.label, fraction_text(o.matches, o.hyp), fraction_text(o.matches, o.ref), o.f, o.counted,
                   o.reason, [(visible(r.text) if o.kind == "character" and whitespace else r.text, r.count,
                               r.ref_count, r.matched, row_status(r.count, r.ref_count, r.matched)) for r in o.rows])
        for o in expl.orders
    ]
    legend = LEGEND_TEXT + (" · ␣ = a space (⇥ tab, ↵ line break)" if whitespace else "")
    return render(
        "chrf_explain.html.j2", **view_constants(), row_words=WORDS, score=expl.score, name=expl.name,
        signature=expl.signature, hyp_chars=len(expl.hypothesis), hypothesis=text(expl.hypothesis),
        references=references, references_total=len(expl.references), eps_smoothing=expl.options.eps_smoothing,
        orders=orders, max_rows=max_rows, averages=expl.averages(), formula=expl.formula(), notes=expl.notes,
        legend=legend,
    )


@dataclass(frozen=True)
class _ShownReference:
    number: int  # 1-based
    text: str  # as chrF reads it, cut for display
    score: float  # chrF against this reference
    kept: bool  # the reference whose statistics are kept


@dataclass(frozen=True)
class _OrderData:
    label: str
    precision: str  # P_n as a fraction
    recall: str  # R_n as a fraction
    f: float
    counted: bool
    reason: str  # why it is not averaged
    rows: list[tuple[str, int, int, int, str]]  # n-gram, hyp count, ref count, matched, status
