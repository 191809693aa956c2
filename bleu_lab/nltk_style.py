"""The nltk front door: BLEU on token lists, scores in 0–1, with nltk's exact semantics.

``sentence_bleu`` and ``corpus_bleu`` reproduce ``nltk.translate.bleu_score`` (3.10) number for number,
built from the steps before: statistics -> modified precisions -> smoothing -> BP x geometric mean.

Where bleu_lab differs on purpose:
- a string hypothesis or reference is split on whitespace (nltk would silently score characters);
- smoothing is a name, "method0" ... "method7", not a function object;
- at corpus level nltk's methods 5-7 read the *last* segment (its 5-gram precision, its length); here they
  use the pooled corpus statistics, so the result does not depend on segment order (methods 0-4 agree);
- auto_reweigh applies when the weights equal (0.25,)*4 whatever sequence type holds them
  (nltk only when they are that exact tuple);
- impossible requests raise ValueError/TypeError instead of AssertionError or IndexError.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .brevity import brevity_penalty
from .geometric_mean import bleu_from_precisions
from .precision import ModifiedPrecision
from .smoothing import NLTK_METHODS, NLTK_SMOOTHING, stats_order_needed
from .statistics import BleuStats, corpus_stats
from .validation import (
    as_reference_list,
    as_sequence,
    as_tokens,
    check_choice,
    check_same_length,
    check_weights,
)

UNIFORM_4 = (0.25, 0.25, 0.25, 0.25)


class NoMatchWarning(UserWarning):
    """Warned, as nltk warns, when some n-gram order has no match: unsmoothed BLEU is then 0.

    A ``UserWarning`` subclass, so code written for nltk catches it; lessons silence it with
    ``warnings.simplefilter("ignore", bl.NoMatchWarning)``.
    """


def sentence_bleu(
    references: Sequence,
    hypothesis: Sequence[str] | str,
    weights: Sequence[float] = UNIFORM_4,
    smoothing: str | None = None,
    auto_reweigh: bool = False,
) -> float:
    """BLEU of one hypothesis against its references, 0–1, exactly as nltk's ``sentence_bleu``.

    BLEU = BP * exp(sum_n w_n log p_n), with p_n the modified precisions (optionally smoothed).
    ``references``: list of token lists or strings; ``hypothesis``: a token list or a string.
    An empty hypothesis, or one with no unigram match, scores 0.
    """
    weights = check_weights(weights)
    smoothing_name = _check_smoothing(smoothing)
    refs = as_reference_list(references, "references")
    hyp = as_tokens(hypothesis, "hypothesis")
    stats = corpus_stats([refs], [hyp], stats_order_needed(smoothing_name, len(weights)))
    return bleu_from_stats(stats, weights, smoothing_name, auto_reweigh)


def corpus_bleu(
    list_of_references: Sequence[Sequence],
    hypotheses: Sequence,
    weights: Sequence[float] = UNIFORM_4,
    smoothing: str | None = None,
    auto_reweigh: bool = False,
) -> float:
    """Corpus BLEU, 0–1, exactly as nltk's ``corpus_bleu`` (smoothing methods 0–4; see module notes for 5–7).

    Matches, totals and lengths are summed over all segments first; then
    BLEU = BP(sum r, sum c) * exp(sum_n w_n log(sum matches_n / sum max(1, total_n))).
    """
    weights = check_weights(weights)
    smoothing_name = _check_smoothing(smoothing)
    as_sequence(list_of_references, "list_of_references", "reference lists (one list per hypothesis)")
    as_sequence(hypotheses, "hypotheses", "hypotheses (token lists or strings)")
    check_same_length(list_of_references, "list_of_references", hypotheses, "hypotheses")
    refs = [as_reference_list(r, f"list_of_references[{i}]") for i, r in enumerate(list_of_references)]
    hyps = [as_tokens(h, f"hypotheses[{i}]") for i, h in enumerate(hypotheses)]
    stats = corpus_stats(refs, hyps, stats_order_needed(smoothing_name, len(weights)))
    return bleu_from_stats(stats, weights, smoothing_name, auto_reweigh)


@dataclass(frozen=True)
class NltkBreakdown:
    """The intermediate values of nltk's formula: raw p_n, smoothed p_n, weights used, BP and the score."""

    precisions: tuple[ModifiedPrecision, ...]
    smoothed: tuple[float, ...]
    weights: tuple[float, ...]
    bp: float
    score: float


def nltk_breakdown(
    stats: BleuStats, weights: Sequence[float] = UNIFORM_4, smoothing: str = "method0", auto_reweigh: bool = False
) -> NltkBreakdown:
    """Every intermediate value of nltk's BLEU for pooled statistics (``stats`` must hold len(weights) orders)."""
    p_n = nltk_precisions(stats, len(weights))
    bp = brevity_penalty(stats.ref_len, stats.hyp_len)
    weights = reweighed(weights, stats.hyp_len) if auto_reweigh else tuple(weights)
    if p_n[0].numerator == 0:  # no unigram matches: nltk returns 0 before smoothing
        return NltkBreakdown(tuple(p_n), tuple(float(p) for p in p_n), weights, bp, 0.0)
    smoothed = NLTK_SMOOTHING[smoothing](p_n, stats)
    score = bleu_from_precisions(bp, weights, smoothed)
    return NltkBreakdown(tuple(p_n), tuple(float(p) for p in smoothed), weights, bp, score)


def bleu_from_stats(
    stats: BleuStats, weights: Sequence[float] = UNIFORM_4, smoothing: str = "method0", auto_reweigh: bool = False
) -> float:
    """nltk's BLEU (0–1) from pooled statistics; ``stats`` must hold at least ``len(weights)`` orders."""
    return nltk_breakdown(stats, weights, smoothing, auto_reweigh).score


def nltk_precisions(stats: BleuStats, max_order: int) -> list[ModifiedPrecision]:
    """p_1 ... p_N with nltk's denominators (a hypothesis shorter than n still counts 1 n-gram)."""
    if stats.max_order < max_order:
        raise ValueError(f"stats hold {stats.max_order} n-gram orders but {max_order} are needed")
    denominators = stats.nltk_denominators
    return [ModifiedPrecision(stats.matches[i], denominators[i]) for i in range(max_order)]


def reweighed(weights: Sequence[float], hyp_len: int) -> tuple[float, ...]:
    """nltk's auto_reweigh: default 4-gram weights become 1/c each for a hypothesis of c < 4 tokens."""
    if 0 < hyp_len < 4 and tuple(weights) == UNIFORM_4:
        return (1 / hyp_len,) * hyp_len
    return tuple(weights)


def _check_smoothing(smoothing: object) -> str:
    if smoothing is None:
        return "method0"
    if callable(smoothing):
        raise TypeError(
            "smoothing must be a method name such as 'method1' (bleu_lab's own pure functions), "
            "not an nltk SmoothingFunction method"
        )
    return check_choice(smoothing, "smoothing", NLTK_METHODS)
