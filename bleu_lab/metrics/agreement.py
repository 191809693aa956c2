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

Segment-level statistics need a **grouping** (mt-metrics-eval's ``average_by``, ``GROUPINGS``): which pairs of
(system, segment) scores are compared. ``"none"`` pools every score in one list (pairs of any two segments of any
systems); ``"system"`` compares two segments of the same system and averages over systems (largely: does the metric
see which source sentences are hard?); ``"item"`` compares the systems' translations of the same source segment and
averages over segments: the question "which translation of this sentence is better?", the grouping of the WMT23 and
WMT24 metrics tasks (mt-metrics-eval ``tasks.py``: ``KendallWithTiesOpt``, ``avg_by='item'``). ``grouped_tau_b``
and ``tie_calibrated_accuracy`` take scores as a systems x segments table and compute them as mt-metrics-eval's
``stats.py`` does (``KendallVariants``, ``KendallWithTiesOpt``, ``sample_rate=1``).

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


# How segment-level scores are grouped into lists before a statistic is computed (mt-metrics-eval's average_by).
GROUPINGS = {
    "none": "no grouping: every (system, segment) score in one list, pairs of any two segments of any systems "
            "(mt-metrics-eval average_by='none')",
    "system": "by system: pairs of two segments of the same system, the statistic averaged over systems "
              "(average_by='sys')",
    "item": "by item: pairs of two systems' translations of the same source segment, the statistic averaged over "
            "segments (average_by='item', as in the WMT23 and WMT24 metrics tasks)",
}

MAX_CALIBRATION_PAIRS = 10_000_000  # about 250 MB of work arrays; tie_calibrated_accuracy refuses more first


@dataclass(frozen=True)
class GroupedTau:
    """Kendall's tau_b averaged over the groups of ``grouping`` (``GROUPINGS``): ``groups`` averaged, ``left_out``
    where it is undefined (fewer than two scores, or every score of one list tied)."""

    tau: float
    grouping: str
    groups: int
    left_out: int

    def __str__(self) -> str:
        return (f"tau_b {self.tau:+.3f}, grouping {_grouping_words(self.grouping)} ({self.groups:,} group(s) "
                f"averaged, {self.left_out:,} left out: tau undefined)")


@dataclass(frozen=True)
class TieCalibration:
    """Deutsch et al.'s acc*_eq: the pairwise accuracy acc_eq = (C + T_xy) / P averaged over the groups of
    ``grouping``, with metric differences |x_i - x_j| <= ``epsilon`` counted as ties, at the ``epsilon`` that
    maximises it; ``uncalibrated`` is acc_eq with the metric's own ties only (epsilon 0); ``constant`` what a
    metric that ties every pair gets (the share of pairs people tie, averaged over the groups)."""

    accuracy: float
    epsilon: float
    uncalibrated: float
    constant: float
    grouping: str
    groups: int

    def __str__(self) -> str:
        return (f"acc*_eq {self.accuracy:.3f} at epsilon {self.epsilon:.4g}, grouping {_grouping_words(self.grouping)} "
                f"({self.groups:,} group(s); uncalibrated acc_eq {self.uncalibrated:.3f}; a constant metric "
                f"{self.constant:.3f})")


def _grouping_words(grouping: str) -> str:
    return {"none": "none (pooled)", "system": "by system", "item": "by item"}[grouping]


def score_groups(metric: object, human: object, grouping: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (metric, human) lists of each group of ``grouping`` from two systems x segments tables (one row per
    system, one column per segment; NaN where a score is missing, left out with its partner): one list for
    ``"none"``, one per row for ``"system"``, one per column for ``"item"``; groups of fewer than two scores are
    left out."""
    if grouping not in GROUPINGS:
        raise ValueError(f"grouping must be one of {', '.join(map(repr, GROUPINGS))}, not {grouping!r}")
    tables = []
    for label, table in (("metric", metric), ("human", human)):
        try:
            array = np.asarray(table, dtype=float)
        except (TypeError, ValueError):
            raise TypeError(f"{label} must be a table of numbers, one row per system and one column per segment"
                            ) from None
        if array.ndim != 2 or array.size == 0:
            raise ValueError(f"{label} must be a table with one row per system and one column per segment (2-D), "
                             f"not of shape {array.shape}")
        if np.isinf(array).any():
            raise ValueError(f"{label} must hold finite numbers (NaN marks a missing score; no infinity)")
        tables.append(array)
    m, h = tables
    if m.shape != h.shape:
        raise ValueError(f"metric is {m.shape[0]} systems x {m.shape[1]} segments and human {h.shape[0]} x "
                         f"{h.shape[1]}: give both for the same systems and segments")
    if grouping == "none":
        m, h = m.reshape(1, -1), h.reshape(1, -1)
    elif grouping == "item":
        m, h = m.T, h.T
    groups = []
    for row_m, row_h in zip(m, h):
        both = ~np.isnan(row_m) & ~np.isnan(row_h)
        if both.sum() >= 2:
            groups.append((row_m[both], row_h[both]))
    return groups


def grouped_tau_b(metric: object, human: object, grouping: str = "item") -> GroupedTau:
    """Kendall's tau_b of each group of ``grouping`` (``score_groups``), averaged over the groups where it is
    defined (mt-metrics-eval ``stats.Correlation.KendallVariants(average_by=..., variant='b')``: undefined groups,
    e.g. a segment every system got the same human score for, are left out of the mean)."""
    groups = score_groups(metric, human, grouping)
    taus = []
    for xs, ys in groups:
        if len(xs) > MAX_TAU_ITEMS:
            raise ValueError(f"a group of {len(xs):,} scores: pair_counts takes at most {MAX_TAU_ITEMS:,}")
        if np.all(xs == xs[0]) or np.all(ys == ys[0]):
            continue
        taus.append(pair_counts(xs.tolist(), ys.tolist()).tau_b)
    if not taus:
        raise ValueError(f"Kendall's tau is undefined in every group (grouping {_grouping_words(grouping)}): each "
                         "has fewer than two scores or one list all tied")
    return GroupedTau(float(np.mean(taus)), grouping, len(taus), len(groups) - len(taus))


def tie_calibrated_accuracy(metric: object, human: object, grouping: str = "item") -> TieCalibration:
    """acc*_eq of Deutsch et al. (2023, "Ties Matter", https://aclanthology.org/2023.emnlp-main.798/):
    acc_eq = (C + T_xy) / P in each group of ``grouping``, averaged over the groups, where a pair whose metric scores
    differ by at most epsilon counts as a metric tie; epsilon is chosen to maximise the average.

    As their tau_optimization.py (mt-metrics-eval, ``KendallWithTiesOpt(sample_rate=1.0)``): the candidates are 0
    and every |x_i - x_j| of a pair in a group, and the smallest candidate with the highest accuracy is taken
    (accuracies within 1e-9 of each other count as equal: they are float sums). Every pair is visited once: at
    most ``MAX_CALIBRATION_PAIRS``, checked before any work.
    """
    groups = score_groups(metric, human, grouping)
    if not groups:
        raise ValueError("no group has two scores to pair")
    total = sum(len(xs) * (len(xs) - 1) // 2 for xs, _ in groups)
    if total > MAX_CALIBRATION_PAIRS:
        raise ValueError(f"{total:,} pairs to calibrate (grouping {_grouping_words(grouping)}); the limit is "
                         f"{MAX_CALIBRATION_PAIRS:,}: group by item or by system, or use fewer segments")
    gaps, gains, base, constant = [], [], 0.0, 0.0
    for xs, ys in groups:
        i, j = np.triu_indices(len(xs), 1)
        dx, dy = xs[i] - xs[j], ys[i] - ys[j]
        weight = 1.0 / (len(groups) * len(i))  # each group's accuracy counts 1 / #groups
        agree = np.sign(dx) == np.sign(dy)  # concordant or tied in both: acc_eq's numerator
        human_tie = dy == 0
        base += weight * np.count_nonzero(agree)
        constant += weight * np.count_nonzero(human_tie)
        gaps.append(np.abs(dx))
        gains.append(weight * (human_tie.astype(float) - agree))  # what turning this pair into a metric tie adds
    gap, gain = np.concatenate(gaps), np.concatenate(gains)
    order = np.argsort(gap, kind="stable")
    gap, running = gap[order], base + np.cumsum(gain[order])
    last = np.flatnonzero(np.concatenate((gap[1:] != gap[:-1], [True])))  # the last pair of each distinct gap
    candidates = np.concatenate(([0.0], gap[last]))
    values = np.concatenate(([base], running[last]))  # a pair tied in x gains nothing: epsilon 0 is acc_eq
    best = int(np.flatnonzero(values >= values.max() - 1e-9)[0])
    return TieCalibration(float(values[best]), float(candidates[best]), float(values[0]), float(constant), grouping,
                          len(groups))
