"""Every step of one chrF score, as plain data: what ``print`` shows and the notebook view draws.

``explain_chrf(hypothesis, references)`` returns a ``ChrfExplanation``: for each order (characters 1..char_order,
then words 1..word_order) every hypothesis n-gram with its count, the reference's count and the matched
(clipped) count; P_n = matches / hypothesis n-grams and R_n = matches / reference n-grams as fractions; which
orders are empty and why; the chrF against each reference and the one kept (the best); then

    P, R = averages of P_n, R_n over the orders where both sides have n-grams
    chrF_beta = 100 * (1 + beta^2) * P * R / (beta^2 * P + R)

with the numbers in (``eps_smoothing=True``: 100 * the mean of the per-order F_beta instead). Every number comes
from chrf.py's functions, so the score is ``sentence_chrf``'s exactly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..clipping import clip_counts
from ..metrics.chrf import (
    ChrfOptions,
    average_precision_recall,
    best_reference,
    counted_orders,
    f_beta,
    f_score,
    ngram_profile,
    order_triples,
    precision_recall,
    reference_statistics,
    sentence_inputs,
)
from .explain_chrf_html import (
    MAX_CHARS,
    chrf_explanation_html,
    fraction_text,
    readable,
    shown_references,
    shown_text,
    visible,
)
from .explain_html import count_rows_text

MAX_TEXT_ROWS = 50  # n-gram rows per order in the printed form
MAX_REFERENCES = 20  # references listed (the kept one always is)


@dataclass(frozen=True)
class ChrfRow:
    """One distinct hypothesis n-gram: its count, the kept reference's count, and the matched count (the smaller)."""

    text: str
    count: int
    ref_count: int
    matched: int


@dataclass(frozen=True)
class ChrfOrder:
    """One order of a chrF explanation: its n-grams and P_n, R_n, F_n as chrF computes them."""

    kind: str  # "character" or "word"
    n: int
    rows: tuple[ChrfRow, ...]  # one per distinct hypothesis n-gram, in order of first appearance
    hyp: int  # hypothesis n-grams as the statistics count them (0 when the reference has none, as sacrebleu)
    ref: int  # reference n-grams
    matches: int  # sum of the matched counts
    precision: float  # P_n = matches / hyp (1e-16 when hyp = 0)
    recall: float  # R_n = matches / ref (1e-16 when ref = 0)
    f: float  # F_beta(P_n, R_n): what eps_smoothing=True averages
    counted: bool  # both sides have n-grams: P_n and R_n enter the averages
    reason: str  # why the order is empty, and what that does to the score ("" when counted)

    @property
    def label(self) -> str:
        """E.g. 'character 3-grams' or 'word 1-grams'."""
        return f"{self.kind} {self.n}-grams"

    @property
    def precision_text(self) -> str:
        """P_n as raw counts, e.g. '5/7' (or '0/0')."""
        return f"{self.matches}/{self.hyp}"

    @property
    def recall_text(self) -> str:
        """R_n as raw counts, e.g. '5/8'."""
        return f"{self.matches}/{self.ref}"


@dataclass(frozen=True)
class ChrfExplanation:
    """A full, printable account of one sentence-level chrF score (0–100)."""

    hypothesis: str
    references: tuple[str, ...]
    options: ChrfOptions
    reference_scores: tuple[float, ...]  # chrF against each reference alone
    chosen: int  # the reference kept (0-based): the best chrF, the first on a tie
    stats: tuple[int, ...]  # [hyp, ref, match] per order against the kept reference (== sentence_chrf(...).stats)
    orders: tuple[ChrfOrder, ...]
    precision: float  # P, the average of P_n over the counted orders
    recall: float  # R, likewise
    score: float
    notes: tuple[str, ...]

    @property
    def name(self) -> str:
        """'chrF2', or 'chrF2++' with word 2-grams."""
        return self.options.name

    @property
    def signature(self) -> str:
        """sacrebleu's signature of this score."""
        return self.options.signature(len(self.references))

    def __repr__(self) -> str:
        return (
            f"ChrfExplanation(score={self.score:.6g}, name={self.name!r}, "
            f"hypothesis={shown_text(self.hypothesis, 60)!r}, references={len(self.references)}, chosen={self.chosen}, "
            f"P_n=[{', '.join(o.precision_text for o in self.orders)}], "
            f"R_n=[{', '.join(o.recall_text for o in self.orders)}])"
        )

    def averages(self) -> tuple[str, str]:
        """P and R as text: the mean of the counted orders' fractions, e.g. 'P = (2/3 + 1/2) / 2 = 0.583333'."""
        used = [o for o in self.orders if o.counted]
        if not used:
            return "P = 0 (no order has n-grams on both sides)", "R = 0"
        p = " + ".join(o.precision_text for o in used)
        r = " + ".join(o.recall_text for o in used)
        return f"P = ({p}) / {len(used)} = {self.precision:.6g}", f"R = ({r}) / {len(used)} = {self.recall:.6g}"

    def formula(self) -> str:
        """The last step with the numbers in, ending in the score."""
        b, factor = self.options.beta, self.options.beta ** 2
        if self.options.eps_smoothing:
            terms, n = " + ".join(f"{o.f:.4g}" for o in self.orders), len(self.orders)
            return f"{self.name} = 100 * (F_1 + ... + F_{n}) / {n} = 100 * ({terms}) / {n} = {self.score:.4f}"
        if not self.precision + self.recall:
            return f"{self.name} = 0 (P + R = 0: no n-gram matches)"
        p, r = f"{self.precision:.6g}", f"{self.recall:.6g}"
        return (
            f"{self.name} = 100 * (1 + {b}^2) * P * R / ({b}^2 * P + R) = "
            f"100 * {1 + factor} * {p} * {r} / ({factor} * {p} + {r}) = {self.score:.4f}"
        )

    def __str__(self) -> str:
        o = self.options
        lines = [
            f"{self.name} = {self.score:.4f}  (char_order={o.char_order}, word_order={o.word_order}, beta={o.beta}, "
            f"lowercase={o.lowercase}, whitespace={o.whitespace}, eps_smoothing={o.eps_smoothing})",
            f"Hypothesis: {shown_text(readable(self.hypothesis, o.whitespace), MAX_CHARS)}",
            "References (chrF against each; the best is kept):" if len(self.references) > 1 else "Reference:",
        ]
        shown = shown_references(len(self.references), self.chosen, MAX_REFERENCES)
        for i in shown:
            kept = "  ✓ kept" if i == self.chosen and len(self.references) > 1 else ""
            lines.append(f"  {i + 1}: {shown_text(readable(self.references[i], o.whitespace), MAX_CHARS)}  "
                         f"({self.name} = {self.reference_scores[i]:.4f}){kept}")
        if len(self.references) > len(shown):
            lines.append(f"  ... {len(self.references) - len(shown)} more references")
        for order in self.orders:
            show = visible if order.kind == "character" and o.whitespace else str
            lines += ["", f"{order.label:<31}{'hyp':>5}  {'ref':>7}  {'matched':>7}"]
            lines += count_rows_text([(show(r.text), r.count, r.ref_count, r.matched) for r in order.rows],
                                     MAX_TEXT_ROWS) or ["  (none in the hypothesis)"]
            f_n = f", F = {order.f:.4g}" if o.eps_smoothing else ""
            lines.append(f"  P = {fraction_text(order.matches, order.hyp)}, "
                         f"R = {fraction_text(order.matches, order.ref)}{f_n}")
            if order.reason:
                lines.append(f"  {order.reason}")
        lines += ["", *self.averages(), self.formula()]
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        return chrf_explanation_html(self)


def explain_chrf(
    hypothesis: str,
    references: Sequence[str],
    *,
    char_order: int = 6,
    word_order: int = 0,
    beta: int = 2,
    lowercase: bool = False,
    whitespace: bool = False,
    eps_smoothing: bool = False,
) -> ChrfExplanation:
    """Explain ``sentence_chrf(hypothesis, references, ...)`` step by step; same options, same score."""
    hypothesis, refs = sentence_inputs(hypothesis, references)
    options = ChrfOptions(char_order, word_order, beta, lowercase, whitespace, eps_smoothing)
    candidates = reference_statistics(hypothesis, refs, options)
    chosen = best_reference(candidates, options)
    stats = candidates[chosen]
    counted, triples = set(counted_orders(stats)), order_triples(stats)
    kinds = [("character", n) for n in range(1, char_order + 1)] + [("word", n) for n in range(1, word_order + 1)]
    profiles = zip(ngram_profile(hypothesis, options), ngram_profile(refs[chosen], options))
    orders = tuple(
        _order(kind, n, hyp, ref, triples[i], i in counted, options)
        for i, ((kind, n), (hyp, ref)) in enumerate(zip(kinds, profiles))
    )
    precision, recall = average_precision_recall(stats)
    score = f_score(stats, options)
    return ChrfExplanation(
        hypothesis, tuple(refs), options, tuple(f_score(c, options) for c in candidates), chosen, tuple(stats),
        orders, precision, recall, score, tuple(_notes(orders, options, len(refs), chosen)),
    )


def _order(kind: str, n: int, hyp: Counter[str], ref: Counter[str], triple: Sequence[int], counted: bool,
           options: ChrfOptions) -> ChrfOrder:
    matched = clip_counts(hyp, ref)
    rows = tuple(ChrfRow(g, count, ref.get(g, 0), matched[g]) for g, count in hyp.items())
    prec, rec = precision_recall(*triple)
    f = f_beta(prec, rec, options.beta)
    n_hyp, n_ref, n_match = triple
    reason = "" if counted else _reason(f"{kind} {n}-grams", sum(hyp.values()), n_ref, f, options.eps_smoothing)
    return ChrfOrder(kind, n, rows, n_hyp, n_ref, n_match, prec, rec, f, counted, reason)


def _reason(label: str, own_hyp: int, n_ref: int, f: float, eps_smoothing: bool) -> str:
    """Why an order has no P_n/R_n to average, and what sacrebleu does with it."""
    if n_ref == 0 and own_hyp:
        why = f"the reference has no {label}, so sacrebleu counts the hypothesis's {own_hyp} as 0 too"
    elif n_ref == 0:
        why = f"neither side has {label}"
    else:
        why = f"the hypothesis has no {label}"
    if eps_smoothing:
        return f"{why}: F = {f:.3g} still enters the mean (eps_smoothing=True)"
    return f"{why}: left out of the averages (eps_smoothing=False)"


def _notes(orders: Sequence[ChrfOrder], options: ChrfOptions, nrefs: int, chosen: int) -> list[str]:
    notes = ["characters: spaces kept, shown as ␣ (whitespace=True)" if options.whitespace
             else "characters: taken with the spaces removed (whitespace=False)"]
    if options.word_order:
        notes.append("words: split on whitespace, one punctuation mark split off the end (or else the start)")
    if options.lowercase:
        notes.append("both sides lowercased before counting (lowercase=True)")
    if nrefs > 1:
        notes.append(f"{nrefs} references: the statistics of the best one are kept (the first on a tie), "
                     f"here reference {chosen + 1}")
    if options.eps_smoothing:
        notes.append("eps_smoothing=True: the score is the mean of the per-order F over all orders (1e-16 stands "
                     "in for an undefined P_n or R_n), as chrF++.py, nltk and Moses; P and R are shown, not used")
    elif not any(o.counted for o in orders):
        notes.append("no order has n-grams on both sides: chrF is 0")
    return notes
