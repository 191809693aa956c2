"""The chrF explain view: one ``ChrfExplanation`` as compact HTML for notebooks, in the BLEU view's style.

Top to bottom: the score and its signature; the hypothesis and each reference with its chrF (the kept one
marked ✓ in words too); one row per order with P_n and R_n as fractions and whether the order is averaged; the
n-gram table of each order (✓ matched, ✂ clipped, ✗ not in the reference); P, R and the F-beta formula with the
numbers in. Colour is never the only signal, all user text is escaped, long text wraps, and huge input is shown
in proportion (row caps with a "… N more" note). Nothing here computes chrF: the numbers come from explain_chrf.py.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Protocol

from .chrf import ChrfOptions
from .explain_html import (
    BOX,
    CELL,
    CLIPPED,
    MATCH,
    MAX_ROWS,
    MISS,
    MONO,
    STATUS_STYLES,
    SYMBOLS,
    TABLE,
    badge,
    count_rows_html,
)

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
    """The whole chrF explain view as one self-contained HTML fragment (inline styles only)."""
    legend = LEGEND_TEXT + (" · ␣ = a space (⇥ tab, ↵ line break)" if expl.options.whitespace else "")
    parts = [
        _score_html(expl),
        _references_html(expl, max_rows, max_chars),
        _orders_html(expl),
        _tables_html(expl, max_rows),
        "".join(f"<div style='margin:4px 0'>{html.escape(line)}</div>" for line in expl.averages()),
        f"<div style='margin:4px 0;{MONO}'><b>{html.escape(expl.formula())}</b></div>",
        "".join(f"<div style='margin-top:4px'>{badge('i')} <i>note:</i> {html.escape(n)}</div>" for n in expl.notes),
        f"<div style='margin-top:6px;font-size:0.85em;color:#555'>{html.escape(legend)}</div>",
    ]
    return f"<div class='chrf-explain' data-score='{expl.score!r}' style=\"{BOX}\">" + "".join(parts) + "</div>"


def _head(*cells: str) -> str:
    return "<tr>" + "".join(f"<th scope='col' style='{CELL}'>{c}</th>" for c in cells) + "</tr>"


def _caption(text: str) -> str:
    return f"<caption style='text-align:left;caption-side:top;padding:2px 0'>{text}</caption>"


def _score_html(expl: ChrfExplanationLike) -> str:
    return (
        f"<div style='font-size:1.35em'><b>{expl.name} = <span class='chrf-score'>{expl.score:.4f}</span></b>"
        " <span style='font-size:0.7em;color:#555'>(0–100; sacrebleu's CHRF().sentence_score)</span></div>"
        f"<div style='font-size:0.85em;color:#555'>signature <code>{html.escape(expl.signature)}</code></div>"
    )


def _references_html(expl: ChrfExplanationLike, max_rows: int, max_chars: int) -> str:
    """The hypothesis, then a table of the references with the chrF of each and which one is kept."""

    def text(value: str) -> str:
        return html.escape(shown_text(readable(value, expl.options.whitespace), max_chars))

    shown = shown_references(len(expl.references), expl.chosen, max_rows)
    rows = []
    for i in shown:
        kept = i == expl.chosen
        rows.append(
            f"<tr style='{STATUS_STYLES[MATCH if kept else MISS]}'><th scope='row' style='{CELL}'>{i + 1}</th>"
            f"<td style='{CELL};{MONO}'>{text(expl.references[i]) or '<i>(empty)</i>'}</td>"
            f"<td style='{CELL};text-align:right'>{expl.reference_scores[i]:.4f}</td>"
            f"<td style='{CELL}'>{f'{SYMBOLS[MATCH]} kept (best {expl.name})' if kept else 'not kept'}</td></tr>"
        )
    if len(expl.references) > len(shown):
        more = len(expl.references) - len(shown)
        rows.append(f"<tr><td colspan='4' style='{CELL}'>… {more} more references</td></tr>")
    several = len(expl.references) > 1
    caption = "chrF against each reference; the statistics of the best one are kept" if several else "the reference"
    return (
        f"<div style='margin:6px 0'>hypothesis ({len(expl.hypothesis)} characters): "
        f"<span style='{MONO}'>{text(expl.hypothesis) or '<i>(empty)</i>'}</span></div>"
        f"<table style='{TABLE}'>{_caption(caption)}{_head('#', 'reference', expl.name, 'kept?')}"
        f"{''.join(rows)}</table>"
    )


def _orders_html(expl: ChrfExplanationLike) -> str:
    """One row per order: P_n and R_n as fractions, F_n with eps_smoothing, and whether the order counts."""
    eps = expl.options.eps_smoothing
    num = f"{CELL};white-space:nowrap"
    rows = []
    for o in expl.orders:
        status = f"{SYMBOLS[MISS]} {html.escape(o.reason)}"
        if o.counted:
            status = f"{SYMBOLS[MATCH]} {'in the mean of F' if eps else 'averaged'}"
        f_cell = f"<td style='{num};text-align:right'>{o.f:.4g}</td>" if eps else ""
        rows.append(
            f"<tr style='{STATUS_STYLES[MATCH if o.counted else MISS]}'>"
            f"<th scope='row' style='{num};text-align:left'>{o.label}</th>"
            f"<td style='{num}'>{fraction_text(o.matches, o.hyp)}</td>"
            f"<td style='{num}'>{fraction_text(o.matches, o.ref)}</td>{f_cell}<td style='{CELL}'>{status}</td></tr>"
        )
    heads = ["order", "P<sub>n</sub>", "R<sub>n</sub>", *(["F<sub>n</sub>"] if eps else []), "status"]
    caption = "per order: P<sub>n</sub> = matched / hypothesis n-grams, R<sub>n</sub> = matched / reference n-grams"
    return (
        "<div style='overflow-x:auto;margin:6px 0' tabindex='0' role='region' aria-label='precision and recall "
        f"per order'><table style='{TABLE}'>{_caption(caption)}{_head(*heads)}{''.join(rows)}</table></div>"
    )


def _tables_html(expl: ChrfExplanationLike, max_rows: int) -> str:
    tables = []
    for o in expl.orders:
        show = visible if o.kind == "character" and expl.options.whitespace else str
        rows = [(show(r.text), r.count, r.ref_count, r.matched) for r in o.rows]
        body = count_rows_html(rows, max_rows, o.label, f"no {o.label} in the hypothesis", WORDS)
        caption = (f"<b>{o.label}</b> &nbsp; P = {fraction_text(o.matches, o.hyp)}, "
                   f"R = {fraction_text(o.matches, o.ref)}")
        tables.append(
            f"<div style='margin:0 12px 6px 0'><table style='{TABLE}'>{_caption(caption)}"
            f"{_head('n-gram', 'hyp', 'ref', 'matched', 'status')}{body}</table></div>"
        )
    return (
        "<details open style='margin:4px 0'><summary>n-gram tables against the kept reference: "
        "matched = min(hyp, ref)</summary>"
        "<div style='display:flex;flex-wrap:wrap;align-items:flex-start;max-height:24em;overflow:auto' tabindex='0' "
        "role='region' aria-label='n-gram tables, one per order'>"
        f"{''.join(tables)}</div></details>"
    )
