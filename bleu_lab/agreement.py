"""Does a metric agree with people? System-level agreement between metric scores and human judgements.

Given one metric score and one human score per system (higher = better for both), look at every pair of
systems (a, b) and compare the signs of the two differences:

    pairwise accuracy = #{pairs with sign(metric_a - metric_b) == sign(human_a - human_b)} / #pairs

(Kocmi et al. 2021, https://aclanthology.org/2021.wmt-1.57/: how often the metric makes the decision a person
would make about a pair of systems.) Ties need a rule, and the sources differ (``TIE_RULES``): by default a pair
counts as agreeing when both signs are equal, so a pair both judges tie agrees and a pair one of them ties does not
(mt-metrics-eval's ``stats.Agreement``); Kocmi et al.'s released code leaves out the pairs people tie and counts a
metric tie as a disagreement; one can also leave out every tied pair, or count every tie as a disagreement.
Kendall's tau counts the same pairs with a sign:

    tau_b = (C - D) / sqrt((P - T_x) * (P - T_y))

with C concordant and D discordant pairs, P all pairs, T_x and T_y the pairs tied in x and in y (tau-b, the
variant scipy.stats.kendalltau computes by default). Without ties, tau = 2 * accuracy - 1.
The same counts work segment by segment (lesson 12): ``pair_counts`` sorts every pair of segments into
concordant, discordant, tied in x only, in y only, or in both, the five counts from which Deutsch et al. (2023,
"Ties Matter", https://aclanthology.org/2023.emnlp-main.798/) build every variant; their acc_eq,
(C + T_xy) / P, is ``pairwise_accuracy`` with the default rule.
Scores where lower is better (an MQM error score, TER) must be negated first.

How sure is an accuracy measured on a few systems? ``resampled_pairwise_accuracy`` redraws the systems with
replacement (a bootstrap over systems) and computes the accuracy of each draw; the spread of those values shows how
much the number owes to which systems happened to be in the table, and with one seed two metrics get the same draws,
so the differences of their values are a paired comparison.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from numbers import Real

import numpy as np


@dataclass(frozen=True)
class PairDecision:
    """One pair of systems: which one the metric prefers, which one people prefer, and whether they agree."""

    first: str
    second: str
    metric_difference: float  # metric(first) - metric(second)
    human_difference: float  # human(first) - human(second)

    @property
    def agree(self) -> bool:
        """Both differences have the same sign (both zero counts as agreeing: ``TIE_RULES['sign']``)."""
        return _sign(self.metric_difference) == _sign(self.human_difference)

    def __str__(self) -> str:
        mark = "agree" if self.agree else "DISAGREE"
        return (f"{self.first} vs {self.second}: metric {self.metric_difference:+.3f}, "
                f"people {self.human_difference:+.3f} -> {mark}")


def pair_decisions(names: Sequence[str], metric: Sequence[float], human: Sequence[float]) -> list[PairDecision]:
    """Every pair of systems (in the order given) with its metric and human differences."""
    metric, human = _check_scores(names, metric, human)
    return [PairDecision(names[i], names[j], metric[i] - metric[j], human[i] - human[j])
            for i, j in combinations(range(len(names)), 2)]


# How a pair tied in one list or both counts (see the module's docstring): rule -> what it does.
TIE_RULES = {
    "sign": "all pairs; agree when sign(metric difference) == sign(human difference): a pair both tie agrees, a pair "
            "one ties disagrees (mt-metrics-eval's stats.Agreement)",
    "kocmi": "pairs people tie are left out; a metric tie counts as a disagreement (Kocmi et al.'s released code, "
             "github.com/MicrosoftTranslator/ToShipOrNotToShip, evaluation/analysis.py and tools.py)",
    "exclude": "every pair tied in either list is left out",
    "strict": "all pairs; a tie in either list counts as a disagreement",
}


def pairwise_accuracy(metric: Sequence[float], human: Sequence[float], *, ties: str = "sign") -> float:
    """Share of system pairs that the metric orders as people do (Kocmi et al. 2021), ties counted by ``ties``, one
    of ``TIE_RULES``: #{pairs that agree} / #{pairs counted}."""
    if ties not in TIE_RULES:
        raise ValueError(f"ties must be one of {', '.join(map(repr, TIE_RULES))}, not {ties!r}")
    decisions = pair_decisions(_index_names(metric), metric, human)
    counted = [d for d in decisions if not _left_out(d, ties)]
    if not counted:
        raise ValueError(f"every pair is tied, and ties={ties!r} leaves tied pairs out: no pair to count")
    agree = sum(d.agree and not (ties == "strict" and d.metric_difference == 0) for d in counted)
    return agree / len(counted)


MAX_RESAMPLED_PAIRS = 100_000_000  # n_samples x systems²: about a second of numpy work; more is refused first


def resampled_pairwise_accuracy(metric: Sequence[float], human: Sequence[float], *, n_samples: int = 1000,
                                seed: int = 0) -> np.ndarray:
    """Pairwise accuracy (ties by the default ``"sign"`` rule) on ``n_samples`` bootstrap draws of the systems.

    A draw picks as many systems as there are, with replacement (``numpy.random.default_rng(seed)``), and counts
    every pair of two *different* systems in it, a pair drawn k and l times k·l times: accuracy = sum of k·l over
    agreeing pairs / sum of k·l over all pairs. A draw of one system only has no pair and is drawn again. The draws
    depend on the number of systems and the seed alone, so two metrics resampled with one seed meet the same draws.
    """
    metric, human = _check_scores(_index_names(metric), metric, human)
    if isinstance(n_samples, bool) or not isinstance(n_samples, int) or n_samples < 1:
        raise ValueError(f"n_samples must be a whole number >= 1, not {n_samples!r}")
    n = len(metric)
    if n_samples * n * n > MAX_RESAMPLED_PAIRS:
        raise ValueError(f"{n_samples:,} draws of {n:,} systems would count {n_samples * n * n:,} pairs; the limit is "
                         f"{MAX_RESAMPLED_PAIRS:,}: use fewer draws")
    m, h = np.asarray(metric), np.asarray(human)
    agree = np.sign(m[:, None] - m[None, :]) == np.sign(h[:, None] - h[None, :])  # agree[i, j]: pair (i, j) agrees
    rng = np.random.default_rng(seed)
    values = np.empty(n_samples)
    done = 0
    while done < n_samples:
        counts = np.bincount(rng.integers(0, n, size=n), minlength=n)
        if np.count_nonzero(counts) < 2:
            continue  # one system drawn n times: no pair
        weights = np.outer(counts, counts)
        np.fill_diagonal(weights, 0)  # a system is never compared with itself
        values[done] = weights[agree].sum() / weights.sum()
        done += 1
    return values


def _left_out(decision: PairDecision, ties: str) -> bool:
    human_tie, metric_tie = decision.human_difference == 0, decision.metric_difference == 0
    return ties == "kocmi" and human_tie or ties == "exclude" and (human_tie or metric_tie)


@dataclass(frozen=True)
class PairCounts:
    """Every pair (i, j) of items sorted into five kinds: concordant, discordant, tied in x only, tied in y only,
    tied in both (the sufficient statistics of every variant of Kendall's tau, Deutsch et al. 2023)."""

    concordant: int
    discordant: int
    tied_x_only: int
    tied_y_only: int
    tied_both: int

    @property
    def pairs(self) -> int:
        return self.concordant + self.discordant + self.tied_x_only + self.tied_y_only + self.tied_both

    @property
    def tau_b(self) -> float:
        """(C - D) / sqrt((P - T_x) * (P - T_y)), T_x and T_y counting every pair tied in x (in y)."""
        tied_x, tied_y = self.tied_x_only + self.tied_both, self.tied_y_only + self.tied_both
        if tied_x == self.pairs or tied_y == self.pairs:
            raise ValueError("Kendall's tau is undefined when every score in x (or in y) is the same")
        return (self.concordant - self.discordant) / math.sqrt((self.pairs - tied_x) * (self.pairs - tied_y))

    @property
    def accuracy_eq(self) -> float:
        """(C + T_xy) / P: pairwise accuracy that credits a tie predicted where people tie (acc_eq of Deutsch et al.
        2023; ``pairwise_accuracy(..., ties='sign')``)."""
        return (self.concordant + self.tied_both) / self.pairs


# Pairs are counted by sorting (Knight 1966), O(n log^2 n) here: 1,000,000 items take about 3 s and 8 MB per array.
MAX_TAU_ITEMS = 1_000_000


def pair_counts(x: Sequence[float], y: Sequence[float]) -> PairCounts:
    """Sort every pair of items into concordant, discordant and the three kinds of ties (``PairCounts``).

    Counted without visiting the n(n-1)/2 pairs (Knight 1966, "A computer method for calculating Kendall's tau with
    ungrouped data", https://doi.org/10.1080/01621459.1966.10480879): with items ordered by x, then y,

        T_x = sum over runs of equal x of k(k-1)/2,  T_y likewise,  T_xy for runs of equal (x, y)
        D = #{i < j : y_i > y_j} (the inversions of y in that order; pairs tied in x are in order, so none count)
        C = P - D - T_x - T_y + T_xy,  P = n(n-1)/2
    """
    if hasattr(x, "__len__") and len(x) > MAX_TAU_ITEMS:
        raise ValueError(f"x and y have {len(x):,} items: pair_counts takes at most {MAX_TAU_ITEMS:,} items "
                         f"(about 3 s); use scipy.stats.kendalltau for more")
    x, y = _check_scores(_index_names(x), x, y)
    xs, ys = np.asarray(x), np.asarray(y)
    order = np.lexsort((ys, xs))
    xs, ys = xs[order], ys[order]
    new_x = xs[1:] != xs[:-1]
    tied_x = _tied_pairs(new_x)
    tied_both = _tied_pairs(new_x | (ys[1:] != ys[:-1]))
    sorted_y = np.sort(ys)
    tied_y = _tied_pairs(sorted_y[1:] != sorted_y[:-1])
    discordant = _inversions(ys)
    pairs = len(xs) * (len(xs) - 1) // 2
    concordant = pairs - discordant - tied_x - tied_y + tied_both
    return PairCounts(concordant, discordant, tied_x - tied_both, tied_y - tied_both, tied_both)


def _tied_pairs(starts_new_run: np.ndarray) -> int:
    """Pairs inside runs of equal sorted values, sum of k(k-1)/2, given where each next value starts a new run."""
    bounds = np.flatnonzero(np.concatenate(([True], starts_new_run, [True])))
    runs = np.diff(bounds).astype(np.int64)
    return int((runs * (runs - 1) // 2).sum())


def _inversions(values: np.ndarray) -> int:
    """#{i < j : values[i] > values[j]} by bottom-up merge sort: at each level every block of ``width`` sorted values
    meets its right neighbour, and each right value counts the left values greater than it."""
    n = len(values)
    position = np.arange(n)
    values = values.copy()
    inversions, width = 0, 1
    while width < n:
        block = position // (2 * width)
        right = (position // width) % 2 == 1
        order = np.lexsort((right, values, block))  # merged blocks; on a tie the left value first (not greater)
        values, right = values[order], right[order]
        left_up_to = np.cumsum(~right) - block * width  # left values of this block at or before each position
        left_size = np.minimum(width, n - block * 2 * width)
        inversions += int((left_size - left_up_to)[right].sum())
        width *= 2
    return inversions


def kendall_tau(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b between two score lists: +1 same order, -1 reversed order, 0 unrelated (ties as
    ``scipy.stats.kendalltau`` counts them by default)."""
    return pair_counts(x, y).tau_b


def ranking(names: Sequence[str], scores: Sequence[float]) -> list[str]:
    """The names from best to worst (highest score first; ties keep the given order)."""
    scores, _ = _check_scores(names, scores, scores)
    return [name for _, name in sorted(zip(scores, names), key=lambda pair: -pair[0])]


def _sign(value: float) -> int:
    return (value > 0) - (value < 0)


def _is_sequence(value: object) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str)


def _index_names(values: object) -> list[str]:
    """'0', '1', ... as names for unnamed scores (none for a value that is not a list: the checks say why)."""
    return [str(i) for i in range(len(values))] if hasattr(values, "__len__") and not isinstance(values, str) else []


def _check_scores(names: object, metric: object, human: object) -> tuple[list[float], list[float]]:
    """Two lists of finite numbers, one per name, at least two systems."""
    if not _is_sequence(names) or not all(isinstance(n, str) for n in names):
        raise TypeError("names must be a list of system names (str)")
    lists = []
    for label, values in (("metric", metric), ("human", human)):
        if isinstance(values, str) or not hasattr(values, "__len__") or not hasattr(values, "__iter__"):
            raise TypeError(f"{label} must be a list of numbers, one per system, not {type(values).__name__}")
        values = list(values)
        bad = next((v for v in values if isinstance(v, bool) or not isinstance(v, Real)), None)
        if bad is not None:
            raise TypeError(f"{label} must hold numbers, not {type(bad).__name__} ({bad!r:.40})")
        if any(not math.isfinite(v) for v in values):
            raise ValueError(f"{label} must hold finite numbers (no NaN or infinity)")
        if len(values) != len(names):
            raise ValueError(f"{label} has {len(values)} scores for {len(names)} systems: give one per system")
        lists.append([float(v) for v in values])
    if len(names) < 2:
        raise ValueError(f"agreement needs at least two systems (a pair to compare), got {len(names)}")
    return lists[0], lists[1]
