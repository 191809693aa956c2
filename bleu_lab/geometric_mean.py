"""Step 6 — combining: BLEU is the brevity penalty times a weighted geometric mean of the precisions.

    BLEU = BP * exp( sum_n w_n * log p_n )        (uniform weights w_n = 1/N give BLEU-N)

A geometric mean is zero as soon as one p_n is zero, so one missing 4-gram match sinks a sentence;
that is what smoothing (next step) is for.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

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


def bleu_from_precisions(bp: float, weights: Sequence[float], precisions: Sequence[float]) -> float:
    """``BP * exp(sum_n w_n log p_n)`` on a 0–1 scale (nltk's formula)."""
    try:
        return bp * math.exp(weighted_log_sum(weights, precisions))
    except OverflowError:  # only with p_n above 1 (nltk's methods 5 and 7) and huge weights
        raise ValueError(TOO_LARGE) from None


def uniform_log_mean(precisions_percent: Sequence[float], order: int) -> float:
    """``sum_{n<=order} log p_n / order`` with log(0) floored to -9999999999 (sacrebleu's formula, p_n in %)."""
    return sum([math.log(p) if p != 0.0 else LOG_ZERO for p in precisions_percent[:order]]) / order
