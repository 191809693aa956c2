"""Step 6 — combining: BLEU is the brevity penalty times a weighted geometric mean of the precisions.

    BLEU = BP * exp( sum_n w_n * log p_n )        (uniform weights w_n = 1/N give BLEU-N)

A geometric mean is zero as soon as one p_n is zero (``geometric_mean``), so one missing 4-gram match sinks a
sentence; that is what smoothing (next step) is for. ``bleu_from_precisions`` is nltk's final step instead: it
expects positive precisions (smoothing has already replaced every zero) and silently leaves out any p_n <= 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from numbers import Real

from .validation import check_weights

LOG_ZERO = -9999999999  # sacrebleu's stand-in for log(0)
TOO_LARGE = ("weights are too large: the weighted sum of log p_n overflows; use weights that sum to about 1, "
             "e.g. (0.25, 0.25, 0.25, 0.25)")


def weighted_log_sum(weights: Sequence[float], precisions: Sequence[float]) -> float:
    """``sum_n w_n * log p_n`` with math.fsum, skipping any p_n <= 0 exactly as nltk does.

    (nltk leaves out an order whose smoothed precision is 0 instead of returning 0; orders beyond
    ``len(weights)`` or ``len(precisions)`` are ignored.)
    """
    terms = [w * math.log(p) for w, p in zip(weights, precisions) if p > 0]
    try:
        return math.fsum(terms)
    except OverflowError:  # weights around 1e308: the plain sum reaches -inf (score 0) or +inf
        total = sum(terms)
        if math.isnan(total) or total > 0:
            raise ValueError(TOO_LARGE) from None
        return total


def geometric_mean(precisions: Sequence[float], weights: Sequence[float] | None = None) -> float:
    """The weighted geometric mean ``prod_n p_n ** w_n`` (uniform weights 1/N by default): 0 if any p_n is 0.

    ``geometric_mean([0.9, 0.9, 0.9, 0])`` is 0.0: the plain mathematics, with no smoothing and nothing left out.
    An order whose weight is 0 does not count.
    """
    ps = _check_precisions(precisions)
    ws = (1 / len(ps),) * len(ps) if weights is None else check_weights(weights)
    if len(ws) != len(ps):
        raise ValueError(f"weights must have one weight per precision (got {len(ws)} weights, {len(ps)} precisions)")
    if any(p == 0 and w > 0 for p, w in zip(ps, ws)):
        return 0.0
    return bleu_from_precisions(1.0, ws, ps)


def _check_precisions(precisions: object) -> list[float]:
    """``precisions`` as a non-empty list of finite numbers >= 0, or a ValueError/TypeError naming the argument."""
    if hasattr(precisions, "tolist"):
        precisions = precisions.tolist()  # a NumPy array
    if isinstance(precisions, (str, bytes)) or not isinstance(precisions, Sequence):
        raise TypeError("precisions must be a sequence of numbers p_1 ... p_N, e.g. [0.9, 0.9, 0.9, 0]")
    if not precisions:
        raise ValueError("precisions is empty: give at least one p_n")
    for i, p in enumerate(precisions):
        if isinstance(p, bool) or not isinstance(p, Real):
            raise TypeError(f"precisions[{i}] must be a number, not {type(p).__name__}")
        if not 0 <= p < math.inf:
            raise ValueError(f"precisions[{i}] must be a finite number >= 0, got {p}")
    return [float(p) for p in precisions]


def bleu_from_precisions(bp: float, weights: Sequence[float], precisions: Sequence[float]) -> float:
    """``BP * exp(sum_n w_n log p_n)`` on a 0–1 scale, over the p_n > 0 only (nltk's final step).

    Not a plain geometric mean when some p_n is 0: like nltk's ``corpus_bleu`` it skips that order, so
    ``bleu_from_precisions(1.0, [0.25] * 4, [0.9, 0.9, 0.9, 0])`` is 0.9 ** 0.75 = 0.924, not 0. Smooth the
    precisions first (step 7), or use ``geometric_mean``, which is 0 there.
    """
    try:
        return bp * math.exp(weighted_log_sum(weights, precisions))
    except OverflowError:  # only with p_n above 1 (nltk's methods 5 and 7) and huge weights
        raise ValueError(TOO_LARGE) from None


def uniform_log_mean(precisions_percent: Sequence[float], order: int) -> float:
    """``sum_{n<=order} log p_n / order`` with log(0) floored to -9999999999 (sacrebleu's formula, p_n in %)."""
    return sum([math.log(p) if p != 0.0 else LOG_ZERO for p in precisions_percent[:order]]) / order
