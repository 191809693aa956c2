"""Grouped segment-level agreement (``agreement.grouped_tau_b``, ``agreement.tie_calibrated_accuracy``): held to
plain loops written from the definitions (mt-metrics-eval's ``average_by`` and Deutsch et al. 2023's tie
calibration), to hand-worked cases, to scipy, and on lesson 12's WMT21 segments to the figures mt-metrics-eval's own
functions give on the same scores."""

import math
from itertools import combinations

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from bleu_lab.metrics.agreement import (
    GROUPINGS,
    MAX_CALIBRATION_PAIRS,
    grouped_tau_b,
    score_groups,
    tie_calibrated_accuracy,
)
from bleu_lab.metrics.published_scores import RATED_SYSTEMS, load_mqm_segments, load_segment_metrics


def groups_by_loops(metric, human, grouping):
    """The definition: rows are systems, columns segments; keep the cells both tables score."""
    rows, cols = len(metric), len(metric[0])
    if grouping == "none":
        index = [[(r, c) for r in range(rows) for c in range(cols)]]
    elif grouping == "system":
        index = [[(r, c) for c in range(cols)] for r in range(rows)]
    else:
        index = [[(r, c) for r in range(rows)] for c in range(cols)]
    groups = []
    for cells in index:
        kept = [(metric[r][c], human[r][c]) for r, c in cells
                if not math.isnan(metric[r][c]) and not math.isnan(human[r][c])]
        if len(kept) >= 2:
            groups.append(kept)
    return groups


def sign(v):
    return (v > 0) - (v < 0)


def accuracy_by_loops(groups, epsilon):
    """acc_eq with metric ties |dx| <= epsilon, per group, averaged over the groups (Deutsch et al. 2023)."""
    per_group = []
    for kept in groups:
        good = 0
        pairs = list(combinations(kept, 2))
        for (x1, y1), (x2, y2) in pairs:
            metric_sign = 0 if abs(x1 - x2) <= epsilon else sign(x1 - x2)
            good += metric_sign == sign(y1 - y2)
        per_group.append(good / len(pairs))
    return sum(per_group) / len(per_group)


def calibration_by_loops(groups):
    """Try 0 and every pair's |dx|; the smallest epsilon with the best accuracy."""
    candidates = sorted({0.0} | {abs(a[0] - b[0]) for kept in groups for a, b in combinations(kept, 2)})
    values = [accuracy_by_loops(groups, e) for e in candidates]
    best = max(values)
    return next((v, e) for v, e in zip(values, candidates) if v >= best - 1e-9)


def tau_by_loops(groups):
    taus = []
    for kept in groups:
        xs, ys = zip(*kept)
        if len(set(xs)) > 1 and len(set(ys)) > 1:
            taus.append(scipy.stats.kendalltau(xs, ys).statistic)
    return sum(taus) / len(taus) if taus else None


# --- hand-worked cases -----------------------------------------------------------------------------------------------


def test_the_grouping_decides_the_sign():
    """Two systems, two segments. The metric always prefers B (as people do) but thinks segment 2 is easier, where
    people found more errors: by item tau = +1, by system -1, pooled C = 2, D = 4: -1/3."""
    metric = [[10, 20], [11, 21]]  # rows: systems A, B; columns: segments 1, 2
    human = [[5, 1], [6, 2]]
    assert grouped_tau_b(metric, human, "item").tau == 1
    assert grouped_tau_b(metric, human, "system").tau == -1
    assert grouped_tau_b(metric, human, "none").tau == pytest.approx(-1 / 3)


def test_tie_calibration_by_hand():
    """One segment, three systems: metric 1, 2, 4; people 0, 0, 1. Pairs: (1, 2) tied by people only, the other two
    concordant: acc_eq = 2/3. With epsilon = 1 the metric ties (1, 2) too: 3/3. A constant metric gets 1/3."""
    result = tie_calibrated_accuracy([[1], [2], [4]], [[0], [0], [1]], "item")
    assert (result.accuracy, result.epsilon, result.uncalibrated, result.constant) == (1, 1, pytest.approx(2 / 3),
                                                                                      pytest.approx(1 / 3))
    assert result.groups == 1 and result.grouping == "item"


def test_missing_scores_are_left_out_with_their_partner():
    nan = float("nan")
    metric = [[1, 2, 3], [2, nan, 1], [3, 1, 2]]
    human = [[1, 5, nan], [2, 1, 1], [3, 2, 2]]
    assert [len(g[0]) for g in score_groups(metric, human, "item")] == [3, 2, 2]
    assert [len(g[0]) for g in score_groups(metric, human, "system")] == [2, 2, 3]
    assert len(score_groups(metric, human, "none")[0][0]) == 7


# --- the definition, on generated tables ----------------------------------------------------------------------------

tables = st.integers(1, 5).flatmap(lambda rows: st.integers(1, 6).flatmap(lambda cols: st.tuples(
    st.lists(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 2.5, float("nan")]), min_size=cols, max_size=cols),
             min_size=rows, max_size=rows),
    st.lists(st.lists(st.sampled_from([0.0, -1.0, -5.0, -0.1, float("nan")]), min_size=cols, max_size=cols),
             min_size=rows, max_size=rows))))


@settings(max_examples=300, deadline=None)
@given(tables, st.sampled_from(list(GROUPINGS)))
def test_both_statistics_are_the_loops_of_their_definition(table, grouping):
    metric, human = table
    groups = groups_by_loops(metric, human, grouping)
    if not groups:
        with pytest.raises(ValueError, match="no group"):
            tie_calibrated_accuracy(metric, human, grouping)
        return
    result = tie_calibrated_accuracy(metric, human, grouping)
    accuracy, epsilon = calibration_by_loops(groups)
    assert result.accuracy == pytest.approx(accuracy, abs=1e-12)
    assert result.epsilon == epsilon
    assert result.uncalibrated == pytest.approx(accuracy_by_loops(groups, 0.0), abs=1e-12)
    assert result.constant == pytest.approx(accuracy_by_loops(groups, math.inf), abs=1e-12)
    assert result.constant <= result.accuracy + 1e-12 and result.uncalibrated <= result.accuracy + 1e-12
    tau = tau_by_loops(groups)
    if tau is None:
        with pytest.raises(ValueError, match="undefined in every group"):
            grouped_tau_b(metric, human, grouping)
    else:
        assert grouped_tau_b(metric, human, grouping).tau == pytest.approx(tau, abs=1e-12)


# --- lesson 12's data: mt-metrics-eval's figures --------------------------------------------------------------------


@pytest.fixture(scope="module")
def wmt21_en_de():
    mqm = {(r.system, r.segment): r.score for r in load_mqm_segments(list(RATED_SYSTEMS)) if r.rated}
    rows = {(r.system, r.segment): r for r in load_segment_metrics()}
    segments = sorted({s for _, s in rows})
    human = [[mqm[n, s] for s in segments] for n in RATED_SYSTEMS]
    bleu = [[rows[n, s].bleu for s in segments] for n in RATED_SYSTEMS]
    chrf = [[rows[n, s].chrf for s in segments] for n in RATED_SYSTEMS]
    return human, bleu, chrf


# Run once on these scores with google-research/mt-metrics-eval (commit 68a481a): stats.Correlation(8, gold, metric)
# .KendallVariants(average_by=..., variant='b' / 'acc23') and stats.KendallWithTiesOpt(..., variant='acc23',
# sample_rate=1.0) (the WMT23 task's setting; its default sample_rate=0.1 samples pairs at random).
MT_METRICS_EVAL = {
    ("BLEU", "item"): (0.08111071452983898, 476, 0.34040390349688254, 0.46625101653564704, 82.03479440184583),
    ("BLEU", "system"): (0.07178729447016112, 8, 0.3201807707015101, 0.4150285712224146, 97.00836062371442),
    ("chrF", "item"): (0.09290759242315, 479, 0.3338303063160747, 0.46570886419083785, 63.12399358285123),
    ("chrF", "system"): (0.0978152994652895, 8, 0.33019603033167144, 0.41577982842832606, 46.398139988834856),
}
CONSTANT = {"item": 0.46570886419083807, "system": 0.41501323944271684}  # a metric that ties every pair


@pytest.mark.parametrize(("metric", "grouping"), list(MT_METRICS_EVAL))
def test_lesson_12_equals_mt_metrics_eval(wmt21_en_de, metric, grouping):
    human, bleu, chrf = wmt21_en_de
    scores = bleu if metric == "BLEU" else chrf
    tau, tau_groups, acc_eq, calibrated, epsilon = MT_METRICS_EVAL[metric, grouping]
    grouped = grouped_tau_b(scores, human, grouping)
    assert (grouped.tau, grouped.groups) == (pytest.approx(tau, abs=1e-12), tau_groups)
    result = tie_calibrated_accuracy(scores, human, grouping)
    assert result.uncalibrated == pytest.approx(acc_eq, abs=1e-12)
    assert result.accuracy == pytest.approx(calibrated, abs=1e-12)
    assert result.epsilon == pytest.approx(epsilon, abs=1e-12)
    assert result.constant == pytest.approx(CONSTANT[grouping], abs=1e-12)


def test_lesson_12_item_grouped_calibration_is_the_loops(wmt21_en_de):
    """The 527 segments' 14,756 pairs by plain loops, at the epsilon found and at its neighbours."""
    human, bleu, _ = wmt21_en_de
    groups = groups_by_loops(bleu, human, "item")
    result = tie_calibrated_accuracy(bleu, human, "item")
    assert accuracy_by_loops(groups, result.epsilon) == pytest.approx(result.accuracy, abs=1e-12)
    gaps = sorted({abs(a[0] - b[0]) for kept in groups for a, b in combinations(kept, 2)})
    at = gaps.index(result.epsilon)
    for neighbour in gaps[max(at - 3, 0):at] + gaps[at + 1:at + 4]:
        assert accuracy_by_loops(groups, neighbour) <= result.accuracy + 1e-12


# --- bad input ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("metric", "human", "grouping", "error", "message"), [
    ([[1, 2]], [[1, 2]], "items", ValueError, "grouping must be one of 'none', 'system', 'item'"),
    ([1, 2], [1, 2], "item", ValueError, r"metric must be a table .* \(2-D\)"),
    ([[1, 2]], [[1, 2, 3]], "item", ValueError, "metric is 1 systems x 2 segments and human 1 x 3"),
    ([[1, "a"]], [[1, 2]], "item", TypeError, "metric must be a table of numbers"),
    ([[1, 2]], [[1, float("inf")]], "item", ValueError, "human must hold finite numbers"),
])
def test_bad_input_is_named(metric, human, grouping, error, message):
    with pytest.raises(error, match=message):
        tie_calibrated_accuracy(metric, human, grouping)
    with pytest.raises(error, match=message):
        grouped_tau_b(metric, human, grouping)


def test_too_many_pairs_are_refused_before_the_work():
    n = 4500  # pooled: n(n-1)/2 > MAX_CALIBRATION_PAIRS
    assert n * (n - 1) // 2 > MAX_CALIBRATION_PAIRS
    with pytest.raises(ValueError, match="pairs to calibrate"):
        tie_calibrated_accuracy(np.zeros((1, n)), np.zeros((1, n)), "none")
