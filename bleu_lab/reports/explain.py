"""Every step of one BLEU score, as plain data: what the lessons print and the widgets draw.

``explain(references, hypothesis)`` returns an ``Explanation``: per n-gram order the clip table
(each n-gram, its count, the most any reference has, the clipped count), p_n as a fraction, the
smoothed value used, the weight; the lengths c and r, BP, and the final score. Its score is computed
by the same functions as ``sentence_bleu`` (nltk smoothing names) or ``sentence_score`` (sacrebleu's).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..brevity import closest_length
from ..clipping import ClipRow, clip_counts, max_reference_counts
from ..ngrams import count_ngrams, ngrams
from ..nltk_style import UNIFORM_4, nltk_breakdown
from ..sacrebleu_style import ScoreOptions, score_from_stats
from ..smoothing import NLTK_METHODS, SACREBLEU_METHODS, stats_order_needed
from ..statistics import segment_stats
from ..tokenization import ALL_TOKENIZERS, make_preprocessor
from ..validation import as_reference_list, as_tokens, check_choice, check_flag, check_weights
from .explain_html import (
    CLIPPED,
    LEGEND_TEXT,
    MATCH,
    MAX_TOKENS,
    MISS,
    count_rows_text,
    explanation_html,
    marked_tokens_text,
)


@dataclass(frozen=True)
class OrderReport:
    """One n-gram order of an explanation."""

    n: int
    rows: tuple[ClipRow, ...]  # one per distinct hypothesis n-gram, in order of first appearance
    occurrences: tuple[str, ...]  # per n-gram position in the hypothesis: "match", "clipped" or "miss"
    matches: int  # sum of clipped counts
    total: int  # number of hypothesis n-grams
    precision: Fraction | None  # matches / denominator (None when sacrebleu has no n-grams to divide by)
    denominator: int  # nltk: max(1, total); sacrebleu: total
    smoothed: float | None  # the p_n value that enters the geometric mean (0-1); None if the order is not used
    weight: float

    @property
    def precision_text(self) -> str:
        """``'5/8'``-style text of p_n (raw counts), or ``'0/0'``."""
        return f"{self.matches}/{self.denominator}"


@dataclass(frozen=True)
class Explanation:
    """A full, printable account of a sentence-level BLEU score (score on the 0–1 scale)."""

    hypothesis: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]
    orders: tuple[OrderReport, ...]
    hyp_len: int
    ref_lens: tuple[int, ...]
    ref_len: int  # closest reference length r
    bp: float
    smoothing: str
    flavour: str  # "nltk" or "sacrebleu": whose formula produced the score
    score: float
    notes: tuple[str, ...]

    def __repr__(self) -> str:
        hyp = " ".join(self.hypothesis)
        hyp = hyp if len(hyp) <= 60 else hyp[:57] + "..."
        return (
            f"Explanation(score={self.score:.6g}, hypothesis={hyp!r}, references={len(self.references)}, "
            f"p_n=[{', '.join(o.precision_text for o in self.orders)}], bp={self.bp:.6g}, "
            f"smoothing={self.smoothing!r})"
        )

    @property
    def precisions(self) -> tuple[Fraction | None, ...]:
        """p_1 ... p_N as fractions."""
        return tuple(o.precision for o in self.orders)

    def token_levels(self) -> list[int]:
        """For each hypothesis token, the highest order n of a *counted* n-gram match covering it (0 = none)."""
        levels = [0] * self.hyp_len
        for order in self.orders:
            for start, status in enumerate(order.occurrences):
                if status == MATCH:
                    for i in range(start, start + order.n):
                        levels[i] = max(levels[i], order.n)
        return levels

    def formula(self) -> str:
        """The score formula with the numbers plugged in."""
        terms = " + ".join(
            f"{o.weight:g}*log({o.smoothed:.4g})" for o in self.orders if o.smoothed is not None and o.smoothed > 0
        )
        return f"BLEU = BP * exp({terms or '0'}) = {self.bp:.4g} * exp(...) = {self.score:.6g}"

    def __str__(self) -> str:
        lines = [f"Hypothesis ({self.hyp_len} tokens): {_shown(self.hypothesis)}"]
        if self.hyp_len:
            lines += [f"  matches: {marked_tokens_text(self)}", f"  ({LEGEND_TEXT})"]
        lines.append("References:")
        for i, ref in enumerate(self.references, 1):
            lines.append(f"  {i} ({len(ref)} tokens): {_shown(ref)}")
        for o in self.orders:
            lines.append("")
            lines.append(f"{o.n}-grams" + " " * 24 + "count  max ref  clipped")
            lines += count_rows_text([(row.text, row.count, row.max_ref_count, row.clipped) for row in o.rows])
            used = "not used" if o.smoothed is None else f"used as {o.smoothed:.6g}"
            lines.append(f"  p_{o.n} = {o.precision_text} ({used}, weight {o.weight:g})")
        lines.append("")
        rule = "c > r, no penalty" if self.hyp_len > self.ref_len else "c <= r: BP = exp(1 - r/c)"
        if self.hyp_len == 0:
            rule = "empty hypothesis: BP = 0"
        lines.append(f"c = {self.hyp_len}, r = {self.ref_len} (closest reference length)")
        lines.append(f"BP = {self.bp:.6g} ({rule})")
        lines.append(self.formula())
        lines.extend(f"note: {n}" for n in self.notes)
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        return explanation_html(self)


def _shown(tokens: Sequence[str], limit: int = MAX_TOKENS) -> str:
    """The tokens as text, cut after ``limit`` of them for display (the numbers always count them all)."""
    if len(tokens) <= limit:
        return " ".join(tokens)
    return " ".join(tokens[:limit]) + f" … ({len(tokens) - limit:,} more tokens, all counted)"


def explain(
    references: Sequence,
    hypothesis: Sequence[str] | str,
    *,
    weights: Sequence[float] = UNIFORM_4,
    smoothing: str | None = None,
    auto_reweigh: bool = False,
    tokenize: str | None = None,
    lowercase: bool = False,
    smooth_value: float | None = None,
    effective_order: bool | None = None,
) -> Explanation:
    """Explain the sentence BLEU of ``hypothesis`` against ``references`` step by step.

    ``tokenize=None`` splits strings on whitespace (token lists are used as given); a sacrebleu tokenizer
    name ('13a', 'intl', 'char', 'zh', 'none'; 'ja-mecab', 'ko-mecab' with the mecab extra) tokenizes raw strings
    as ``sentence_score`` does.
    ``smoothing`` None or 'method0'...'method7' uses nltk's formula (score = ``sentence_bleu``);
    'exp', 'floor', 'add-k' or 'none' uses sacrebleu's (score = ``sentence_score(...).score / 100``,
    with N = len(weights) uniform orders and ``smooth_value``/``effective_order`` (default True) as there).
    Options of the other formula (``smooth_value``/``effective_order`` with an nltk method, ``auto_reweigh`` with a
    sacrebleu one) are an error rather than silently ignored.
    """
    weights = check_weights(weights)
    name = "method0" if smoothing is None else check_choice(smoothing, "smoothing", NLTK_METHODS + SACREBLEU_METHODS)
    check_flag(auto_reweigh, "auto_reweigh")
    check_flag(lowercase, "lowercase")
    if name in SACREBLEU_METHODS:
        effective_order = True if effective_order is None else check_flag(effective_order, "effective_order")
        if auto_reweigh:
            raise ValueError(f"auto_reweigh is nltk's option; sacrebleu's {name!r} uses effective_order instead")
    else:
        for option, value in (("smooth_value", smooth_value), ("effective_order", effective_order)):
            if value is not None:
                raise ValueError(f"{option} is an option of sacrebleu's smoothing ('exp', 'floor', 'add-k', 'none'), "
                                 f"not of nltk's {name!r}: leave it out, or choose a sacrebleu method")
    hyp, refs = _tokens(references, hypothesis, tokenize, lowercase)
    max_order = len(weights)
    stats = segment_stats(refs, hyp, stats_order_needed(name, max_order))
    if name in SACREBLEU_METHODS:
        if len(set(weights)) != 1:
            raise ValueError("sacrebleu's formula uses uniform weights; pass equal weights, e.g. (0.25,) * 4")
        options = ScoreOptions(tokenize or "none", lowercase, name, smooth_value, effective_order, max_order)
        result = score_from_stats(stats.truncated(max_order), options, nrefs=len(refs))
        smoothed = [p / 100 if i < result.orders else None for i, p in enumerate(result.precisions)]
        used_weights = [1 / result.orders] * max_order
        denominators, flavour, bp, score = stats.totals[:max_order], "sacrebleu", result.bp, result.score / 100
    else:
        br = nltk_breakdown(stats, weights, name, auto_reweigh)
        smoothed = [br.smoothed[i] if i < len(br.weights) else None for i in range(max_order)]
        used_weights = [br.weights[i] if i < len(br.weights) else 0.0 for i in range(max_order)]
        denominators, flavour, bp, score = stats.nltk_denominators[:max_order], "nltk", br.bp, br.score
    orders = tuple(
        _order_report(refs, hyp, n, denominators[n - 1], smoothed[n - 1], used_weights[n - 1])
        for n in range(1, max_order + 1)
    )
    return Explanation(
        tuple(hyp), tuple(map(tuple, refs)), orders, stats.hyp_len, tuple(len(r) for r in refs),
        closest_length([len(r) for r in refs], len(hyp)), bp, name, flavour, score, tuple(_notes(orders, name, hyp)),
    )


def _tokens(references: Sequence, hypothesis: object, tokenize: str | None, lowercase: bool):
    if tokenize is None:
        hyp = as_tokens(hypothesis, "hypothesis")
        refs = as_reference_list(references, "references")
        if lowercase:
            hyp, refs = [t.lower() for t in hyp], [[t.lower() for t in r] for r in refs]
        return hyp, refs
    check_choice(tokenize, "tokenize", ALL_TOKENIZERS)
    if not isinstance(hypothesis, str):
        raise TypeError("with tokenize=..., hypothesis must be a raw string (tokenization happens here)")
    prep = make_preprocessor(tokenize, lowercase)
    raw_refs = as_reference_list(references, "references")  # validates shape; strings were split, so re-read
    refs = [prep(r) if isinstance(r, str) else prep(" ".join(t)) for r, t in zip(references, raw_refs)]
    return prep(hypothesis), refs


def _order_report(refs, hyp, n, denominator, smoothed, weight) -> OrderReport:
    counts = count_ngrams(hyp, n)
    max_refs = max_reference_counts(refs, n)
    clipped = clip_counts(counts, max_refs)
    rows = tuple(ClipRow(g, c, max_refs.get(g, 0), clipped[g]) for g, c in counts.items())
    seen: dict = {}
    occurrences = []
    for g in ngrams(hyp, n):
        seen[g] = seen.get(g, 0) + 1
        occurrences.append(MATCH if seen[g] <= clipped[g] else (CLIPPED if max_refs.get(g, 0) else MISS))
    matches = sum(clipped.values())
    total = sum(counts.values())
    precision = Fraction(matches, denominator) if denominator else None
    return OrderReport(n, rows, tuple(occurrences), matches, total, precision, denominator, smoothed, weight)


def _notes(orders: Sequence[OrderReport], smoothing: str, hyp: Sequence[str]) -> list[str]:
    notes = []
    if not hyp:
        notes.append("the hypothesis is empty: BLEU is 0")
    zero = [o.n for o in orders if o.matches == 0 and o.weight > 0]
    if hyp and zero and smoothing == "method0":
        tiny = math.log(2.2250738585072014e-308)
        notes.append(
            f"no matching {', '.join(map(str, zero))}-grams: without smoothing nltk puts log p = {tiny:.0f} "
            "in the mean, so the score is vanishingly small (about 1e-77 per missing order); try smoothing"
        )
    if hyp and zero and smoothing == "none":
        notes.append(f"no matching {', '.join(map(str, zero))}-grams: with smooth_method='none' the score is 0")
    return notes
