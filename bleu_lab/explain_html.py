"""The explain view: one ``Explanation`` as compact HTML for notebooks and widgets, or as plain text.

What it shows, top to bottom: the score; the hypothesis with every token marked by the longest matching
n-gram through it; a grid of which n-gram at each position matched (✓), was clipped away (✂) or is in no
reference (✗); the clip table of each order with p_n as a fraction; c, r and BP; the formula with the
numbers plugged in. Colour is never the only signal: every mark is also a symbol or a superscript, so the
view reads in print and for colour-blind students. All user text is HTML-escaped.

Nothing here computes BLEU: every number comes from the ``Explanation`` (see explain.py).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

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
    return (
        "<span style='display:inline-block;min-width:1.25em;line-height:1.2em;border:1.5px solid currentColor;"
        f"border-radius:50%;text-align:center;font-weight:bold;font-style:normal'>{html.escape(letter)}</span>"
    )


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
    """The whole explain view as one self-contained HTML fragment (inline styles only)."""
    parts = [
        _score_html(expl),
        _tokens_html(expl, max_tokens),
        _grid_html(expl),
        _tables_html(expl, max_rows),
        _lengths_html(expl),
        _formula_html(expl),
        "".join(f"<div style='margin-top:4px'>{badge('i')} <i>note:</i> {html.escape(n)}</div>" for n in expl.notes),
        f"<div style='margin-top:6px;font-size:0.85em;color:#555'>{html.escape(LEGEND_TEXT)}</div>" if legend else "",
    ]
    return (
        f"<div class='bleu-explain' data-score='{expl.score:.6g}' style=\"{BOX}\">" + "".join(parts) + "</div>"
    )


def order_table_html(order: OrderReport, max_rows: int = MAX_ROWS) -> str:
    """The clip table of one order: n-gram, count, max reference count, clipped, with a ✓/✂/✗ column."""
    head = "".join(f"<th style='{CELL}'>{h}</th>" for h in ("n-gram", "count", "max ref", "clipped", "status"))
    rows = [(row.text, row.count, row.max_ref_count, row.clipped) for row in order.rows]
    body = count_rows_html(rows, max_rows, f"{order.n}-grams", f"no {order.n}-grams (the hypothesis is too short)")
    return (
        f"<div style='margin:0 12px 6px 0'><div><b>{order.n}-grams</b> &nbsp; {_precision_html(order)}</div>"
        f"<table style='{TABLE}'><tr>{head}</tr>{body}</table></div>"
    )


def row_status(count: int, ref_count: int, credited: int) -> str:
    """MATCH when every copy earns credit, CLIPPED when the reference has fewer copies, MISS when it has none."""
    return MATCH if credited == count else (CLIPPED if ref_count else MISS)


def count_rows_html(
    rows: Sequence[CountRow], max_rows: int, noun: str, empty: str, words: Mapping[str, str] = WORDS
) -> str:
    """Table rows of n-gram counts (credited in bold) and a ✓/✂/✗ status in ``words``; '… N more {noun}' past
    ``max_rows``; ``empty`` when there are none."""
    esc = html.escape
    body = []
    for text, count, ref_count, credited in rows[:max_rows]:
        status = row_status(count, ref_count, credited)
        body.append(
            f"<tr style='{STATUS_STYLES[status]}'><td style='{CELL};{MONO}'>{esc(text)}</td>"
            f"<td style='{CELL};text-align:right'>{count}</td>"
            f"<td style='{CELL};text-align:right'>{ref_count}</td>"
            f"<td style='{CELL};text-align:right'><b>{credited}</b></td>"
            f"<td style='{CELL}' title='{words[status]}'>{SYMBOLS[status]} <small>{words[status]}</small></td></tr>"
        )
    if len(rows) > max_rows:
        body.append(f"<tr><td colspan='5' style='{CELL}'>… {len(rows) - max_rows} more {noun}</td></tr>")
    if not rows:
        body.append(f"<tr><td colspan='5' style='{CELL}'>{empty}</td></tr>")
    return "".join(body)


def count_rows_text(rows: Sequence[CountRow], max_rows: int = 50) -> list[str]:
    """The same rows as plain-text lines (columns 5, 7, 7 wide after a 31-wide n-gram), '... N more' past max_rows."""
    lines = [f"  {text[:28]:<28} {count:5d}  {ref_count:7d}  {credited:7d}" for text, count, ref_count, credited
             in rows[:max_rows]]
    if len(rows) > max_rows:
        lines.append(f"  ... {len(rows) - max_rows} more")
    return lines


def _precision_html(order: OrderReport) -> str:
    """``p₂ = 4/7 = 0.571`` plus the smoothed value when it differs (or 'not used')."""
    p = f"p<sub>{order.n}</sub> = {order.matches}/{order.denominator}"
    if order.precision is not None:
        p += f" = {float(order.precision):.4g}"
    if order.smoothed is None:
        return p + " <i>(not used)</i>"
    if order.precision is None or abs(order.smoothed - float(order.precision)) > 1e-12:
        p += f" → used as {order.smoothed:.4g}"
    return p


def _score_html(expl: Explanation) -> str:
    how = "nltk's sentence_bleu" if expl.flavour == "nltk" else "sacrebleu's sentence_score / 100"
    return (
        f"<div style='font-size:1.35em'><b>BLEU = <span class='bleu-score'>{expl.score:.4f}</span></b>"
        f" <span style='font-size:0.7em;color:#555'>({expl.score * 100:.2f} on the 0–100 scale; {how}, "
        f"smoothing {html.escape(expl.smoothing)})</span></div>"
    )


def _chip(mark: TokenMark) -> str:
    style = LEVEL_STYLES.get(min(mark.level, 4), "background:#ffffff;color:#555555")
    deco = {MATCH: "", CLIPPED: ";text-decoration:underline wavy #c62828", MISS: ";text-decoration:underline dotted"}
    title = f"longest counted match: {mark.level}-gram" if mark.level else "not part of any counted match"
    if mark.status != MATCH:
        title += f"; this occurrence is {WORDS[mark.status]}"
    return (
        f"<span class='bleu-tok' title='{title}' aria-label='{html.escape(mark.token)}: {title}' "
        f"style='{style}{deco[mark.status]};padding:0 3px;border-radius:3px;margin:0 2px 0 0;white-space:pre-wrap;"
        f"overflow-wrap:anywhere;display:inline-block;max-width:100%'>{html.escape(mark.token)}"
        f"<sup style='font-size:0.75em;font-weight:bold'>{html.escape(mark.sup_text)}</sup></span>"
    )


def chip_legend_html() -> str:
    """What the chips' colours and marks mean, each on a sample chip: a legend to show before the chips."""
    items = [
        ("".join(_chip(TokenMark(f"{n}-gram", n, MATCH)) for n in range(1, 5)),
         "colour and number: the longest n-gram through the token that the references count"),
        (_chip(TokenMark("word", 1, CLIPPED)),
         "✂ clipped away: a copy beyond the reference's count (counted per n-gram, marked on its later copies)"),
        (_chip(TokenMark("word", 0, MISS)), "✗ in no reference"),
    ]
    lis = "".join(f"<li style='margin:2px 0'>{chips} {html.escape(text)}</li>" for chips, text in items)
    return f"<ul style='list-style:none;padding:0;margin:2px 0'>{lis}</ul>"


def token_chips_html(expl: Explanation, max_tokens: int = MAX_TOKENS) -> str:
    """The hypothesis as marked chips (one per token, the explain view's token line), e.g. for side-by-side views."""
    marks = token_marks(expl)
    more = f" <i>… {len(marks) - max_tokens} more tokens not shown</i>" if len(marks) > max_tokens else ""
    return "".join(map(_chip, marks[:max_tokens])) + more


def _tokens_html(expl: Explanation, max_tokens: int) -> str:
    marks = token_marks(expl)
    if not marks:
        return "<div style='margin:6px 0'><i>(empty hypothesis)</i></div>"
    refs = "".join(
        f"<div style='color:#444'>reference {i} ({len(r)} tokens): <span style='{MONO}'>"
        f"{html.escape(' '.join(r[:max_tokens]))}{' …' if len(r) > max_tokens else ''}</span></div>"
        for i, r in enumerate(expl.references, 1)
    )
    return (
        f"<div style='margin:6px 0'><div>hypothesis ({expl.hyp_len} tokens):</div>"
        f"<div class='bleu-tokens' style='line-height:2;{MONO}'>{token_chips_html(expl, max_tokens)}</div>"
        f"{refs}</div>"
    )


def _grid_html(expl: Explanation) -> str:
    """Rows = orders, columns = tokens; the cell under token i says what happened to the n-gram starting there."""
    toks = expl.hypothesis[:MAX_GRID_TOKENS]
    if not toks:
        return ""
    head = "".join(f"<th style='{CELL};{MONO};font-weight:normal'>{html.escape(t)}</th>" for t in toks)
    rows = []
    for o in expl.orders:
        cells = []
        for i in range(len(toks)):
            if i < len(o.occurrences):
                st = o.occurrences[i]
                gram = html.escape(" ".join(expl.hypothesis[i : i + o.n]), quote=True)
                cells.append(
                    f"<td style='{CELL};{STATUS_STYLES[st]};text-align:center' title='{gram}: {WORDS[st]}'>"
                    f"{SYMBOLS[st]}</td>"
                )
            else:
                cells.append(f"<td style='{CELL}'></td>")
        rows.append(f"<tr><th style='{CELL};white-space:nowrap'>{o.n}-gram</th>{''.join(cells)}</tr>")
    more = (
        f"<div style='font-size:0.85em'><i>grid shows the first {MAX_GRID_TOKENS} of {expl.hyp_len} tokens</i></div>"
        if expl.hyp_len > MAX_GRID_TOKENS
        else ""
    )
    return (
        "<details open style='margin:4px 0'><summary>n-gram starting at each token: ✓ counted, "
        "✂ clipped away, ✗ in no reference</summary>"
        f"<div style='overflow-x:auto' tabindex='0' role='region' aria-label='which n-gram at each position matched'>"
        f"<table style='{TABLE}'><tr><th style='{CELL}'>order</th>{head}</tr>"
        f"{''.join(rows)}</table></div>{more}</details>"
    )


def _tables_html(expl: Explanation, max_rows: int) -> str:
    tables = "".join(order_table_html(o, max_rows) for o in expl.orders)
    return (
        "<details open style='margin:4px 0'><summary>clip tables: count, the most any one reference has, "
        "clipped = min(count, max ref)</summary>"
        f"<div style='display:flex;flex-wrap:wrap;align-items:flex-start;max-height:24em;overflow:auto' tabindex='0' "
        "role='region' aria-label='clip tables, one per n-gram order'>"
        f"{tables}</div></details>"
    )


def _lengths_html(expl: Explanation) -> str:
    lens = ", ".join(map(str, expl.ref_lens))
    c, r = expl.hyp_len, expl.ref_len
    if c == 0:
        rule = "the hypothesis is empty, so BP = 0"
    elif c > r:
        rule = "c &gt; r, so no penalty: BP = 1"
    else:
        rule = f"c ≤ r, so BP = exp(1 − r/c) = exp(1 − {r}/{c}) = {expl.bp:.4g}"
    return (
        f"<div style='margin:4px 0'>c = <b>{c}</b> (hypothesis length), r = <b>{r}</b> "
        f"(the closest of the reference lengths {lens}); {rule}</div>"
    )


def _formula_html(expl: Explanation) -> str:
    used = [o for o in expl.orders if o.smoothed is not None and o.weight > 0]
    terms = " + ".join(f"{o.weight:.4g}·log({o.smoothed:.4g})" for o in used) or "0"
    tail = f" = {expl.bp:.4g} × {expl.score / expl.bp:.4g} = <b>{expl.score:.4g}</b>" if expl.bp else " = <b>0</b>"
    return (
        "<div style='margin:4px 0'>BLEU = BP × exp(Σ w<sub>n</sub> log p<sub>n</sub>) = "
        f"<span style='{MONO}'>{expl.bp:.4g} × exp({terms})</span>{tail}</div>"
    )
