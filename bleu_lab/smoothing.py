"""Step 7 — smoothing: what to do when some p_n is zero, so short sentences still get a useful score.

nltk's methods come from Chen & Cherry (2014); each is a pure function of the precisions and the
statistics it needs (so, unlike nltk's, none reads hidden state from the last segment of a corpus):

  method0  no smoothing: a zero p_n becomes the tiniest float (score ~1e-77 instead of 0)
  method1  add epsilon (0.1) to zero match counts:            p_n = 0.1 / total_n
  method2  add 1 to numerator and denominator for n >= 2:     p_n = (m_n + 1) / (total_n + 1)
  method3  NIST geometric: the k-th zero p_n becomes          1 / (2^k * total_n)
  method4  nltk's reading: method3 scaled by ln(c) / K:      1 / (2^k * K / ln c) / total_n   (K = 5)
  method5  average each p_n with its neighbours:              (p'_{n-1} + p_n + p_{n+1}) / 3
  method6  interpolate with a prior p_{n-1}^2 / p_{n-2}:      (m_n + a*prior) / (l_n + a)        (a = 5)
  method7  method4 then method5

sacrebleu's methods (percent scale, see ``sacrebleu_precisions``): 'none', 'floor' (zero p_n = value/total),
'add-k' (add k to matches and totals for n >= 2) and 'exp' (the k-th zero p_n = 100 / (2^k total_n)).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence

from .precision import ModifiedPrecision
from .statistics import BleuStats

Precision = ModifiedPrecision | float
NLTK_METHODS = tuple(f"method{i}" for i in range(8))
SACREBLEU_METHODS = ("exp", "floor", "add-k", "none")
SACREBLEU_DEFAULTS: dict[str, float | None] = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}
EPSILON, ALPHA, K = 0.1, 5, 5  # nltk's SmoothingFunction defaults


def method0(p_n: Sequence[ModifiedPrecision], stats: BleuStats) -> list[Precision]:
    """No smoothing: a zero p_n becomes sys.float_info.min, so log p_n = -708 and the score ~1e-77."""
    return [p if p.numerator != 0 else sys.float_info.min for p in p_n]


def method1(p_n: Sequence[ModifiedPrecision], stats: BleuStats, epsilon: float = EPSILON) -> list[Precision]:
    """Zero p_n -> (0 + epsilon) / total_n."""
    return [(p.numerator + epsilon) / p.denominator if p.numerator == 0 else p for p in p_n]


def method2(p_n: Sequence[ModifiedPrecision], stats: BleuStats) -> list[Precision]:
    """p_n -> (m_n + 1) / (total_n + 1) for every n >= 2 (Lin & Och 2004); p_1 unchanged."""
    return [p_n[0]] + [ModifiedPrecision(p.numerator + 1, p.denominator + 1) for p in p_n[1:]]


def method3(p_n: Sequence[ModifiedPrecision], stats: BleuStats) -> list[Precision]:
    """The k-th zero p_n (k = 1, 2, ...) -> 1 / (2^k * total_n) (NIST mteval-v13a)."""
    smoothed: list[Precision] = []
    k = 1
    for p in p_n:
        if p.numerator == 0:
            smoothed.append(1 / (2**k * p.denominator))
            k += 1
        else:
            smoothed.append(p)
    return smoothed


def method4(p_n: Sequence[ModifiedPrecision], stats: BleuStats, k: float = K) -> list[Precision]:
    """The i-th zero p_n -> (1 / (2^i * K / ln c)) / total_n = (1/2^i) * (ln c / K) / total_n.

    This is nltk's reading, not Chen & Cherry's smoothing 4: nltk 3.10.4's docstring says "Instead of scaling to
    1/(2^k), Chen and Cherry suggests dividing by 1/ln(len(T))", yet its code keeps the 1/2^k and scales it by
    ln(c)/K: ``numerator = 1 / (2**incvnt * self.k / math.log(hyp_len))`` (nltk/translate/bleu_score.py; see nltk
    issues #2341 and #2676). bleu_lab reproduces nltk, so shorter hypotheses get smaller counts as in nltk.
    """
    smoothed: list[Precision] = []
    i = 1
    for p in p_n:
        if p.numerator == 0 and stats.hyp_len > 1:
            smoothed.append(1 / (2**i * k / math.log(stats.hyp_len)) / p.denominator)
            i += 1
        else:
            smoothed.append(p)
    return smoothed


def method5(p_n: Sequence[Precision], stats: BleuStats) -> list[Precision]:
    """p'_n = (p'_{n-1} + p_n + p_{n+1}) / 3 with p'_0 = p_1 + 1; the last order's neighbour is p_5.

    (nltk always appends the 5-gram precision as the "next" one, whatever the number of orders.)
    """
    following = list(p_n[1:]) + [fifth_order_precision(stats)]
    smoothed: list[Precision] = []
    previous = p_n[0] + 1
    for p, nxt in zip(p_n, following):
        previous = (previous + p + nxt) / 3
        smoothed.append(previous)
    return smoothed


def method6(p_n: Sequence[ModifiedPrecision], stats: BleuStats, alpha: float = ALPHA) -> list[Precision]:
    """For n >= 3: p_n -> (m_n + alpha * prior) / (l_n + alpha) with prior = p_{n-1}^2 / p_{n-2} (Gao & He 2013).

    l_n is the number of hypothesis n-grams. Needs p_3 > 0 (nltk stops with an AssertionError otherwise;
    here it is a ValueError that says so).
    """
    if len(p_n) < 3:
        raise ValueError("smoothing 'method6' needs at least 3 n-gram orders (weights of length >= 3)")
    if p_n[2].numerator == 0:
        raise ValueError(
            "smoothing 'method6' needs at least one matching trigram (p_3 > 0) and this input has none; "
            "nltk fails here too (AssertionError). Choose another method, e.g. 'method4'"
        )
    smoothed: list[Precision] = list(p_n)
    for i in range(2, len(p_n)):
        prior = 0 if smoothed[i - 2] == 0 else smoothed[i - 1] ** 2 / smoothed[i - 2]
        smoothed[i] = (p_n[i].numerator + alpha * prior) / (stats.totals[i] + alpha)
    return smoothed


def method7(p_n: Sequence[ModifiedPrecision], stats: BleuStats) -> list[Precision]:
    """method4, then method5 on its result."""
    return method5(method4(p_n, stats), stats)


NLTK_SMOOTHING: dict[str, Callable[[Sequence, BleuStats], list[Precision]]] = {
    "method0": method0, "method1": method1, "method2": method2, "method3": method3,
    "method4": method4, "method5": method5, "method6": method6, "method7": method7,
}


def stats_order_needed(smoothing: str, max_order: int) -> int:
    """How many n-gram orders the statistics must hold: method5 and method7 also look at 5-grams."""
    return max(max_order, 5) if smoothing in ("method5", "method7") else max_order


def fifth_order_precision(stats: BleuStats) -> ModifiedPrecision:
    """nltk's 5-gram modified precision (clipped 5-gram matches / max(1, 5-grams) per segment)."""
    return ModifiedPrecision(stats.matches[4], stats.nltk_denominators[4])


def sacrebleu_precisions(
    matches: Sequence[int], totals: Sequence[int], method: str, value: float | None, effective_order: bool
) -> tuple[list[float], int]:
    """sacrebleu's p_n in percent after smoothing, and the number of orders to average over.

    - 'exp':   the k-th order with no match gets 100 / (2^k * total_n)
    - 'floor': an order with no match gets 100 * value / total_n           (value defaults to 0.1)
    - 'add-k': for n >= 2, value is added to both matches and totals       (value defaults to 1)
    - 'none':  a zero p_n stays 0 (and makes the score 0)
    Orders the hypothesis is too short for stop the loop; with ``effective_order`` the mean is taken
    only over the orders before that point.
    """
    if value is None:
        value = SACREBLEU_DEFAULTS[method]
    max_order = len(matches)
    correct, total = list(matches), list(totals)
    precisions = [0.0] * max_order
    smooth_mteval = 1.0
    eff_order = max_order
    for n in range(1, max_order + 1):
        if method == "add-k" and n > 1:
            correct[n - 1] += value
            total[n - 1] += value
        if total[n - 1] == 0:
            break
        if effective_order:
            eff_order = n
        if correct[n - 1] == 0:
            if method == "exp":
                smooth_mteval *= 2
                precisions[n - 1] = 100.0 / (smooth_mteval * total[n - 1])
            elif method == "floor":
                precisions[n - 1] = 100.0 * value / total[n - 1]
        else:
            precisions[n - 1] = 100.0 * correct[n - 1] / total[n - 1]
    return precisions, eff_order
