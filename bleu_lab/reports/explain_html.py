"""The explain view: one ``Explanation`` as compact HTML for notebooks and widgets, or as plain text.

What it shows, top to bottom: the score; the hypothesis with every token marked by the longest matching
n-gram through it; a grid of which n-gram at each position matched (✓), was clipped away (✂) or is in no
reference (✗); the clip table of each order with p_n as a fraction; c, r and BP; the formula with the
numbers plugged in. Colour is never the only signal: every mark is also a symbol or a superscript, so the
view reads in print and for colour-blind students. The markup is in templates/explain.html.j2 and
explain_parts.html.j2 (autoescaped: all user text is HTML-escaped); this module passes them data.

Nothing here computes BLEU: every number comes from the ``Explanation`` (see explain.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Protocol

from .templates import Markup, macros, render

# This module only renders; it does not import explain.py (which imports it). What it needs of an explanation:


class ClipRowLike(Protocol):
    text: str
    count: int
    max_ref_count: int
    clipped: int


class OrderReport(Protocol):
    """What the view reads of one order of an ``explain.OrderReport``."""

    n: int
    rows: Sequence[ClipRowLike]
    matches: int
    denominator: int
    precision: float
    smoothed: float | None
    weight: float
    occurrences: Sequence[str]


class Explanation(Protocol):
    """What the view reads of an ``explain.Explanation``."""

    hypothesis: Sequence[str]
    references: Sequence[Sequence[str]]
    orders: Sequence[OrderReport]
    hyp_len: int
    ref_lens: Sequence[int]
    ref_len: int
    bp: float
    smoothing: str
    flavour: str
    score: float
    notes: Sequence[str]

    def token_levels(self) -> list[int]: ...

CountRow = tuple[str, int, int, int]  # a table row: n-gram text, count, count in the reference(s), credited count
MATCH, CLIPPED, MISS = "match", "clipped", "miss"  # how each hypothesis n-gram fared (explain.py uses these)
SYMBOLS = {MATCH: "✓", CLIPPED: "✂", MISS: "✗"}
WORDS = {MATCH: "counted", CLIPPED: "clipped away", MISS: "in no reference"}
# A single-hue ramp (light to dark): the order is readable in greyscale too, and the superscript repeats it.
LEVEL_STYLES = {
    1: "background:#deebf7;color:#08306b",
    2: "background:#9ecae1;color:#08306b",
    3: "background:#2171b5;color:#ffffff",  # white on it: 5.1:1 (WCAG AA needs 4.5:1)
    4: "background:#08519c;color:#ffffff",
}
STATUS_STYLES = {
    MATCH: "background:#e5f5e0;color:#1b5e20",
    CLIPPED: "background:#fde0c5;color:#8a3b00",
    MISS: "background:#f0f0f0;color:#555555",
}
SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
MAX_TOKENS = 200  # tokens shown in the token line
MAX_GRID_TOKENS = 60  # tokens shown in the per-order grid
MAX_ROWS = 25  # clip-table rows shown per order
LEGEND_TEXT = (
    "ⁿ = longest matching n-gram through the token · ✂ = clipped away (counted per n-gram, marked on its later "
    "copies) · ✗ = in no reference"
)

# Inline styles of the explain views (BLEU here, chrF in explain_chrf_html.py): the box, tables, cells, monospace.
BOX = (
    "font-family:system-ui,-apple-system,'Segoe UI',sans-serif;font-size:0.95em;line-height:1.5;"
    "color:#1a1a1a;background:#ffffff;border:1px solid #d0d7de;border-radius:6px;padding:10px 12px;max-width:100%;"
    "box-sizing:border-box;overflow-wrap:anywhere;word-break:break-word"  # a 3,000-character token wraps too
)
TABLE = "border-collapse:collapse;font-size:0.9em;margin:2px 0"
CELL = "border:1px solid #d0d7de;padding:1px 6px"
MONO = "font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace"


def badge(letter: str) -> str:
    """A letter in a circle (e.g. 'i' for a note, '!' for a warning): a marker that needs no special font."""
    return str(_parts().badge(letter))


@dataclass(frozen=True)
class TokenMark:
    """How one hypothesis token fared: the longest counted n-gram through it, and its unigram status."""

    token: str
    level: int  # 0 = no counted n-gram covers it
    status: str  # the token's own unigram: "match", "clipped" or "miss"

    @property
    def marker(self) -> str:
        """The textual mark: superscript order (e.g. '²'), plus '✂' if clipped, or '✗' if in no reference."""
        return self.sup_text.translate(SUPERSCRIPTS)

    @property
    def sup_text(self) -> str:
        """The same mark with plain digits (for an HTML ``<sup>``), e.g. '2✂'."""
        return (str(self.level) if self.level else "") + ("" if self.status == MATCH else SYMBOLS[self.status])


def token_marks(expl: Explanation) -> list[TokenMark]:
    """One ``TokenMark`` per hypothesis token (from ``Explanation.token_levels`` and the unigram occurrences)."""
    levels = expl.token_levels()
    unigrams = expl.orders[0].occurrences if expl.orders and expl.orders[0].n == 1 else ()
    return [
        TokenMark(tok, level, unigrams[i] if i < len(unigrams) else MISS)
        for i, (tok, level) in enumerate(zip(expl.hypothesis, levels))
    ]


def marked_tokens_text(expl: Explanation, max_tokens: int = MAX_TOKENS) -> str:
    """The hypothesis as plain text with marks, e.g. ``the² cat² and✗ the¹✂`` (for terminals)."""
    marks = token_marks(expl)
    text = " ".join(m.token + m.marker for m in marks[:max_tokens])
    if len(marks) > max_tokens:
        text += f" … ({len(marks) - max_tokens} more tokens)"
    return text


def explanation_html(
    expl: Explanation, *, max_tokens: int = MAX_TOKENS, max_rows: int = MAX_ROWS, legend: bool = True
) -> str:
    """The whole explain view as one self-contained HTML fragment (inline styles only; templates/explain.html.j2)."""
    marks = token_marks(expl)
    hyp = expl.hypothesis
    grid_tokens = hyp[:MAX_GRID_TOKENS]
    grid = [
        (o.n, [_GridCell(o.occurrences[i], " ".join(hyp[i : i + o.n])) if i < len(o.occurrences) else None
               for i in range(len(grid_tokens))])
        for o in expl.orders
    ]
    references = [_ShownReference(len(r), " ".join(r[:max_tokens]), len(r) > max_tokens) for r in expl.references]
    return render(
        "explain.html.j2", **view_constants(), score=expl.score, flavour=expl.flavour, smoothing=expl.smoothing,
        marks=marks, max_tokens=max_tokens, hyp_len=expl.hyp_len, references=references, grid_tokens=grid_tokens,
        grid=grid, orders=[_order_data(o) for o in expl.orders], max_rows=max_rows, ref_len=expl.ref_len,
        ref_lens=expl.ref_lens, bp=expl.bp, notes=expl.notes, legend=LEGEND_TEXT if legend else "",
    )


def order_table_html(order: OrderReport, max_rows: int = MAX_ROWS) -> str:
    """The clip table of one order: n-gram, count, max reference count, clipped, with a ✓/✂/✗ column."""
    return str(_parts().order_table(_order_data(order), max_rows))


def row_status(count: int, ref_count: int, credited: int) -> str:
    """MATCH when every copy earns credit, CLIPPED when the reference has fewer copies, MISS when it has none."""
    return MATCH if credited == count else (CLIPPED if ref_count else MISS)


def count_rows_html(
    rows: Sequence[CountRow], max_rows: int, noun: str, empty: str, words: Mapping[str, str] = WORDS
) -> str:
    """Table rows of n-gram counts (credited in bold) and a ✓/✂/✗ status in ``words``; '… N more {noun}' past
    ``max_rows``; ``empty`` when there are none."""
    return str(_parts().count_rows(_with_status(rows), max_rows, noun, empty, words))


def count_rows_text(rows: Sequence[CountRow], max_rows: int = 50) -> list[str]:
    """The same rows as plain-text lines (columns 5, 7, 7 wide after a 31-wide n-gram), '... N more' past max_rows."""
    lines = [f"  {text[:28]:<28} {count:5d}  {ref_count:7d}  {credited:7d}" for text, count, ref_count, credited
             in rows[:max_rows]]
    if len(rows) > max_rows:
        lines.append(f"  ... {len(rows) - max_rows} more")
    return lines


def chip_legend_html() -> str:
    """What the chips' colours and marks mean, each on a sample chip: a legend to show before the chips."""
    samples = [[TokenMark(f"{n}-gram", n, MATCH) for n in range(1, 5)], [TokenMark("word", 1, CLIPPED)],
               [TokenMark("word", 0, MISS)]]
    return str(_parts().chip_legend(samples))


def token_chips_html(expl: Explanation, max_tokens: int = MAX_TOKENS) -> str:
    """The hypothesis as marked chips (one per token, the explain view's token line), e.g. for side-by-side views."""
    return str(_parts().chips(token_marks(expl), max_tokens))


# -- what the templates read


@dataclass(frozen=True)
class _GridCell:
    status: str  # what happened to the n-gram starting at this token
    gram: str  # that n-gram's text


@dataclass(frozen=True)
class _ShownReference:
    length: int  # tokens in the reference
    text: str  # its first tokens, joined by spaces
    cut: bool  # True when more tokens were left out


@dataclass(frozen=True)
class _OrderData:
    n: int
    rows: list[tuple[str, int, int, int, str]]  # CountRow + status
    matches: int
    denominator: int
    precision: float | None
    smoothed: float | None
    smoothing_changes: bool  # the value used differs from p_n
    weight: float


def _with_status(rows: Sequence[CountRow]) -> list[tuple[str, int, int, int, str]]:
    return [(text, count, ref_count, credited, row_status(count, ref_count, credited))
            for text, count, ref_count, credited in rows]


def _order_data(order: OrderReport) -> _OrderData:
    precision = None if order.precision is None else float(order.precision)
    changes = order.smoothed is not None and (precision is None or abs(order.smoothed - precision) > 1e-12)
    rows = _with_status([(row.text, row.count, row.max_ref_count, row.clipped) for row in order.rows])
    return _OrderData(order.n, rows, order.matches, order.denominator, precision, order.smoothed, changes,
                      order.weight)


def view_constants() -> dict[str, object]:
    """The views' constants, as the templates read them (explain_parts.html.j2 lists them)."""
    return {"symbols": SYMBOLS, "words": WORDS, "status_styles": STATUS_STYLES, "level_styles": LEVEL_STYLES,
            "cell": CELL, "mono": MONO, "table": TABLE, "match": MATCH,
            "box": Markup(BOX)}  # our own CSS, not user text: written as it is (its quotes unescaped)


@cache
def _parts():
    """The macros of explain_parts.html.j2 (badge, chip, chips, chip_legend, count_rows, precision, order_table)."""
    return macros("explain_parts.html.j2", **view_constants())
