"""Metrics beside BLEU: scores from anywhere (``segment_scores``) tested like BLEU, and every pair of metrics set
against each other, segment by segment and system by system.

- Each metric's system score is the mean over the system's rated segments, with its 95% bootstrap interval
  (``segment_scores.mean_interval``); every pair of systems gets the paired bootstrap (shift p) and approximate
  randomization on the segments both have a score for (``segment_scores.paired_mean_rows``).
- Agreement of two metrics x and y, each turned so that higher is better (a lower-is-better score negated):
  segment-level Kendall's tau_b (``agreement.pair_counts``; as ``scipy.stats.kendalltau`` computes it) in each of
  mt-metrics-eval's three groupings (``agreement.GROUPINGS``): by system (each system's segments rated by both), no
  grouping (pooled over every system's) and by item (the systems' scores of each segment, averaged over the
  segments); by item also Deutsch et al.'s tie-calibrated acc*_eq of x against y (``agreement.
  tie_calibrated_accuracy``) with its epsilon and what a constant metric gets; system-level pairwise accuracy
  (``agreement.pairwise_accuracy``, ties by sign) and Kendall's tau of the system scores. tau_b leaves tied pairs
  out of its numerator and shrinks its denominator: with MQM, most segments tie at 0 errors, and Deutsch et al.
  (2023, "Ties Matter", https://aclanthology.org/2023.emnlp-main.798/) show how much the handling of ties changes
  the verdict.
- How big is a difference: Kocmi et al. (2024, "Navigating the Metrics Maze",
  https://aclanthology.org/2024.acl-long.110) fitted how often a difference of a given size agrees with people, for
  BLEU, chrF and learned metrics (``delta_accuracy``); a ``--scores`` metric named like one of them gets its fit.
- The segments where two metrics disagree most: each segment's rank among all segments in x and in y (as a share,
  0 worst to 1 best, ties at their mean rank), largest |rank_x - rank_y| first.
- Buckets (``metric_buckets``): in each bucket of segments (the buckets of BLEU's tables, the same segments in each),
  a system's mean of the metric over the bucket's rated segments, with its 95% bootstrap interval
  (``segment_scores.mean_interval``). A mean of per-segment scores, not a corpus score of the bucket (BLEU's bucket
  score is corpus BLEU of the bucket's pooled statistics).
- Examples (``metric_examples``): per system, the segments whose score differs most from the baseline's, both rated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from ..metrics.agreement import MAX_TAU_ITEMS, grouped_tau_b, pair_counts, pairwise_accuracy, tie_calibrated_accuracy
from ..metrics.delta_accuracy import estimated_accuracy, fit_for
from ..metrics.segment_scores import SegmentScores, mean_interval, paired_mean_rows
from ..metrics.significance import (
    BootstrapResult,
    RandomizationResult,
    bootstrap_from_rows,
    holm_adjusted,
    randomization_from_rows,
)
from .bucketers import Bucketer

MIN_TAU_ITEMS = 2  # Kendall's tau needs a pair


@dataclass(frozen=True)
class MetricSystem:
    """One system's score in a metric, over all its segments or one bucket's: the mean over the rated ones (NaN when
    none is), the 95% bootstrap interval, how many segments are rated and how many are left out."""

    name: str
    mean: float
    interval: tuple[float, float]
    rated: int
    unrated: int


@dataclass(frozen=True)
class MetricPairTest:
    """Two systems in one metric: the difference of their means on the segments both have, and both tests."""

    system: str
    baseline: str
    randomization: RandomizationResult
    bootstrap: BootstrapResult  # method="shift"

    @property
    def difference(self) -> float:
        return self.bootstrap.difference

    @property
    def segments(self) -> int:
        """How many segments both systems have a score for (the ones tested)."""
        return self.bootstrap.baseline.segments


@dataclass(frozen=True)
class MetricBucketTable:
    """A metric's means per bucket of one bucketing (a BLEU table's buckets): system -> one ``MetricSystem`` per
    bucket (the system's mean over the bucket's rated segments)."""

    metric: str
    bucketer: Bucketer
    scores: dict[str, list[MetricSystem]]

    @property
    def labels(self) -> list[str]:
        return self.bucketer.labels


@dataclass(frozen=True)
class MetricExample:
    """A segment where ``system``'s score in a metric differs most from ``baseline``'s (both rated)."""

    segment: int  # 0-based
    system: str
    baseline: str
    system_score: float
    baseline_score: float
    higher_is_better: bool

    @property
    def gap(self) -> float:
        """system score - baseline score, as the metric's numbers run."""
        return self.system_score - self.baseline_score

    @property
    def better(self) -> str:
        """The system whose score is better in the metric's direction."""
        return self.system if (self.gap > 0) == self.higher_is_better else self.baseline


@dataclass(frozen=True)
class MetricResult:
    """What one ``--scores`` metric found: per system its score, and every pair of systems tested; from
    ``compare_systems``, also its means per bucket and its examples against the baseline."""

    name: str
    higher_is_better: bool
    source: str
    note: str
    systems: tuple[MetricSystem, ...]
    all_pairs: tuple[MetricPairTest, ...]
    delta_scale: float = 1.0  # a difference times this is on the scale of Kocmi et al.'s fit (100: 0-1 scores, x100)
    buckets: tuple[MetricBucketTable, ...] = ()  # by reference length, by length difference (merged)
    examples: tuple[MetricExample, ...] = ()  # per system against the baseline, the largest gaps first

    def estimated_accuracy(self, difference: float) -> float | None:
        """Kocmi et al. 2024's estimated accuracy of ``difference`` in this metric, None for a metric they did not
        fit (matched by name: a metric called COMET-22 gets COMET-22's fit)."""
        return estimated_accuracy(difference * self.delta_scale, self.name)

    @property
    def direction(self) -> str:
        return "higher is better" if self.higher_is_better else "lower is better"

    def system(self, name: str) -> MetricSystem:
        for s in self.systems:
            if s.name == name:
                return s
        raise KeyError(f"{self.name} has no system {name!r}")


def metric_tests(metric: SegmentScores, order: Sequence[str], n_samples: int, n_trials: int,
                seed: int | None) -> MetricResult:
    """``metric``'s system means with intervals and every pair of ``order`` tested (the later against the earlier,
    as ``compare_systems`` orders its pairs)."""
    systems = tuple(
        MetricSystem(name, metric.mean(name), mean_interval(metric.scores[name], n_samples, seed),
                     int(metric.rated(name).sum()), metric.unrated(name))
        for name in order
    )
    pairs = []
    for i, baseline in enumerate(order):
        for system in order[i + 1:]:
            rows = paired_mean_rows(metric, baseline, system)
            pairs.append(MetricPairTest(
                system, baseline, randomization_from_rows(rows, n_trials=n_trials, seed=seed),
                bootstrap_from_rows(rows, n_samples=n_samples, seed=seed, method="shift")))
    return MetricResult(metric.name, metric.higher_is_better, metric.source, metric.note, systems, tuple(pairs),
                        delta_scale(metric))


def holm_pairs(pairs: Sequence[MetricPairTest]) -> tuple[list[float], list[float]]:
    """Holm's adjusted p of each pair's AR and bootstrap p-values, over the pairs of one metric."""
    if len(pairs) < 2:
        return [p.randomization.p_value for p in pairs], [p.bootstrap.p_value for p in pairs]
    return (holm_adjusted([p.randomization.p_value for p in pairs]),
            holm_adjusted([p.bootstrap.p_value for p in pairs]))


def metric_buckets(metric: SegmentScores, bucketer: Bucketer, bucket_of: Mapping[str, np.ndarray], n_samples: int,
                   seed: int | None) -> MetricBucketTable:
    """``metric``'s mean per bucket and system: ``bucket_of[system][i]`` is segment i's bucket (as BLEU's table has
    it); the interval resamples the bucket's rated segments ``n_samples`` times (``mean_interval``)."""
    table = {}
    for name, index in bucket_of.items():
        values = metric.scores[name]
        cells = []
        for b in range(len(bucketer.cutoffs) + 1):
            members = values[index == b]
            rated = members[~np.isnan(members)]
            cells.append(MetricSystem(name, float(rated.mean()) if len(rated) else float("nan"),
                                      mean_interval(rated, n_samples, seed), len(rated), len(members) - len(rated)))
        table[name] = cells
    return MetricBucketTable(metric.name, bucketer, table)


def largest_gaps(gaps: np.ndarray, k: int) -> list[int]:
    """The indices of the ``k`` largest |gaps|, largest first (ties: the earlier index); no zero or NaN gap."""
    keep = np.flatnonzero((gaps != 0) & ~np.isnan(gaps))
    return sorted(keep.tolist(), key=lambda i: (-abs(gaps[i]), i))[:k]


def metric_examples(metric: SegmentScores, baseline: str, systems: Sequence[str], k: int) -> tuple[MetricExample, ...]:
    """Per system of ``systems`` (not the baseline), the ``k`` segments both rated where its score and
    ``baseline``'s differ most (``largest_gaps``)."""
    base = metric.scores[baseline]
    return tuple(MetricExample(i, name, baseline, float(metric.scores[name][i]), float(base[i]),
                               metric.higher_is_better)
                 for name in systems if name != baseline for i in largest_gaps(metric.scores[name] - base, k))


def delta_scale(metric: SegmentScores) -> float:
    """100 when Kocmi et al. fitted the metric on its 0-1 scores times 100 ('x100') and every score here lies within
    [-1.5, 1.5] (COMET's command line writes 0-1 scores), else 1 (the scores are taken to be on the fit's scale)."""
    fit = fit_for(metric.name)
    if fit is None or fit.scale != "x100":
        return 1.0
    values = np.concatenate([v[~np.isnan(v)] for v in metric.scores.values()])
    return 100.0 if len(values) and np.abs(values).max() <= 1.5 else 1.0


@dataclass(frozen=True)
class Tau:
    """Kendall's tau_b over ``items`` segments (NaN where undefined: fewer than two, or one list all ties; or not
    computed: more than ``agreement.MAX_TAU_ITEMS``)."""

    tau: float
    items: int


@dataclass(frozen=True)
class MetricAgreement:
    """Two metrics set against each other (both turned so that higher is better)."""

    x: str
    y: str
    per_system: dict[str, Tau]  # segment-level, grouped by system: each system's segments rated in both
    pooled: Tau  # segment-level, no grouping: every system's segments together
    system_accuracy: float  # system-level pairwise accuracy (ties by sign)
    system_tau: float  # system-level Kendall's tau_b (NaN when undefined)
    item: Tau  # segment-level, grouped by item: each segment's tau_b over the systems, averaged (items: segments)
    item_accuracy: float  # acc*_eq by item (Deutsch et al. 2023's tie calibration of x against y; NaN: no pair)
    item_epsilon: float  # the calibrated threshold: x differences up to it count as ties
    item_constant: float  # acc_eq by item of a constant metric (every pair tied): the figure to beat


def tau_b(x: Sequence[float], y: Sequence[float]) -> Tau:
    """Kendall's tau_b of two equally long score lists (``agreement.pair_counts``), NaN where undefined and, past
    ``agreement.MAX_TAU_ITEMS`` items, not computed."""
    if len(x) < MIN_TAU_ITEMS or len(x) > MAX_TAU_ITEMS:  # no pair, or past pair_counts' bound
        return Tau(float("nan"), len(x))
    counts = pair_counts(list(map(float, x)), list(map(float, y)))
    tied_x, tied_y = counts.tied_x_only + counts.tied_both, counts.tied_y_only + counts.tied_both
    if tied_x == counts.pairs or tied_y == counts.pairs:
        return Tau(float("nan"), len(x))
    return Tau(counts.tau_b, len(x))


def oriented(values: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """Scores turned so that higher is better (a lower-is-better metric negated)."""
    return values if higher_is_better else -values


def metric_agreement(
    x: str, y: str, segment_x: Mapping[str, np.ndarray], segment_y: Mapping[str, np.ndarray],
    system_x: Mapping[str, float], system_y: Mapping[str, float],
) -> MetricAgreement:
    """Agreement of metrics ``x`` and ``y`` from oriented (higher is better) scores: per system one array of segment
    scores (NaN: not rated) and one system score."""
    per_system, pooled_x, pooled_y = {}, [], []
    for name in segment_x:
        both = ~np.isnan(segment_x[name]) & ~np.isnan(segment_y[name])
        xs, ys = segment_x[name][both], segment_y[name][both]
        per_system[name] = tau_b(xs, ys)
        pooled_x.append(xs)
        pooled_y.append(ys)
    names = list(system_x)
    sx, sy = [system_x[n] for n in names], [system_y[n] for n in names]
    if len(names) >= 2:
        accuracy = pairwise_accuracy(sx, sy)
        system_tau = tau_b(sx, sy).tau
    else:
        accuracy = system_tau = float("nan")
    return MetricAgreement(x, y, per_system, tau_b(np.concatenate(pooled_x), np.concatenate(pooled_y)), accuracy,
                           system_tau, *_by_item(segment_x, segment_y))


def _by_item(segment_x: Mapping[str, np.ndarray], segment_y: Mapping[str, np.ndarray]
             ) -> tuple[Tau, float, float, float]:
    """Item-grouped tau_b (and how many segments it averages) and tie-calibrated acc*_eq with its epsilon and a
    constant metric's, NaN where no segment has two systems scored in both."""
    table_x = np.vstack([segment_x[n] for n in segment_x]).astype(float)
    table_y = np.vstack([segment_y[n] for n in segment_x]).astype(float)
    try:
        grouped = grouped_tau_b(table_x, table_y, "item")
        item = Tau(grouped.tau, grouped.groups)
    except ValueError:
        item = Tau(float("nan"), 0)
    try:
        calibrated = tie_calibrated_accuracy(table_x, table_y, "item")
    except ValueError:
        return item, float("nan"), float("nan"), float("nan")
    return item, calibrated.accuracy, calibrated.epsilon, calibrated.constant


def every_agreement(segment: Mapping[str, Mapping[str, np.ndarray]], system: Mapping[str, Mapping[str, float]]
                    ) -> tuple[MetricAgreement, ...]:
    """``metric_agreement`` of every pair of metrics, in the order given (oriented scores, as there)."""
    return tuple(metric_agreement(x, y, segment[x], segment[y], system[x], system[y])
                 for x, y in combinations(list(segment), 2))


@dataclass(frozen=True)
class Disagreement:
    """A segment of one system that two metrics rank far apart: each one's score and rank share (0 worst, 1 best)."""

    system: str
    segment: int  # 0-based
    x: str
    y: str
    x_score: float
    y_score: float
    x_rank: float
    y_rank: float

    @property
    def gap(self) -> float:
        """rank share in x - rank share in y: positive where x thinks better of the segment than y does."""
        return self.x_rank - self.y_rank


def disagreements(x: str, y: str, segment_x: Mapping[str, np.ndarray], segment_y: Mapping[str, np.ndarray],
                  raw_x: Mapping[str, np.ndarray], raw_y: Mapping[str, np.ndarray], k: int) -> list[Disagreement]:
    """The ``k`` segments (over every system) whose rank shares in the oriented scores ``segment_x`` and
    ``segment_y`` differ most (ties: the earlier system and segment first); ``raw_*`` are the scores as shown."""
    items = [(name, i) for name in segment_x
             for i in np.flatnonzero(~np.isnan(segment_x[name]) & ~np.isnan(segment_y[name]))]
    if len(items) < MIN_TAU_ITEMS:
        return []
    xs = np.array([segment_x[n][i] for n, i in items])
    ys = np.array([segment_y[n][i] for n, i in items])
    rx, ry = _rank_share(xs), _rank_share(ys)
    order = sorted(range(len(items)), key=lambda j: (-abs(rx[j] - ry[j]), j))[:k]
    return [Disagreement(items[j][0], int(items[j][1]), x, y, float(raw_x[items[j][0]][items[j][1]]),
                         float(raw_y[items[j][0]][items[j][1]]), float(rx[j]), float(ry[j])) for j in order]


def _rank_share(values: np.ndarray) -> np.ndarray:
    """Each value's rank among all (ties at their mean rank) scaled to 0 (lowest) .. 1 (highest)."""
    order = np.argsort(values, kind="stable")
    ranks = np.empty(len(values))
    ranks[order] = np.arange(len(values), dtype=float)
    sorted_values = values[order]
    start = 0
    for end in range(1, len(values) + 1):  # runs of equal values share their mean rank
        if end == len(values) or sorted_values[end] != sorted_values[start]:
            ranks[order[start:end]] = (start + end - 1) / 2
            start = end
    return ranks / (len(values) - 1)
