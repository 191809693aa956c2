"""``agreement.pair_counts`` counts pairs by sorting (Knight 1966); these tests hold it to the definition, pair by
pair, and to scipy.stats.kendalltau, on generated cases heavy with ties and on lesson 12's WMT21 segments."""

from itertools import combinations

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from bleu_lab.metrics.agreement import MAX_TAU_ITEMS, PairCounts, pair_counts
from bleu_lab.metrics.published_scores import RATED_SYSTEMS, load_mqm_segments, load_segment_metrics


def pair_by_pair(x, y) -> PairCounts:
    """The definition: visit every pair (i < j) and sort it by the signs of its two differences."""
    counts = [0] * 5
    for i, j in combinations(range(len(x)), 2):
        dx, dy = (x[j] > x[i]) - (x[j] < x[i]), (y[j] > y[i]) - (y[j] < y[i])
        kind = 0 if dx * dy > 0 else 1 if dx * dy < 0 else 2 if dx == 0 and dy != 0 else 3 if dy == 0 and dx != 0 else 4
        counts[kind] += 1
    return PairCounts(*counts)


def few_values(values):  # heavy ties: a handful of distinct values, repeated
    return st.lists(st.sampled_from(values), min_size=2, max_size=60)


any_float = st.floats(allow_nan=False, allow_infinity=False, width=64)
lists = st.one_of(few_values([0.0, 1.0]), few_values([-2.5, -0.0, 0.0, 0.5, 3.0]),
                  st.lists(st.integers(-3, 3).map(float), min_size=2, max_size=60),
                  st.lists(any_float, min_size=2, max_size=40))


@settings(max_examples=400)
@given(lists, st.data())
def test_the_five_counts_are_the_pair_by_pair_definitions(x, data):
    y = data.draw(st.one_of(st.lists(st.sampled_from([-1.0, 0.0, 1.0]), min_size=len(x), max_size=len(x)),
                            st.lists(any_float, min_size=len(x), max_size=len(x)),
                            st.just(list(x)), st.just([-v for v in x])))
    assert pair_counts(x, y) == pair_by_pair(x, y)


@settings(max_examples=300)
@given(st.lists(st.integers(0, 4), min_size=2, max_size=300), st.data())
def test_tau_b_is_scipys_with_heavy_ties(x, data):
    y = data.draw(st.lists(st.integers(0, 2), min_size=len(x), max_size=len(x)))
    counts = pair_counts(x, y)
    assert counts.pairs == len(x) * (len(x) - 1) // 2
    if len(set(x)) == 1 or len(set(y)) == 1:
        with pytest.raises(ValueError, match="undefined"):
            _ = counts.tau_b
        return
    assert counts.tau_b == pytest.approx(scipy.stats.kendalltau(x, y).statistic, abs=1e-12)


def test_large_random_lists_match_the_definition_and_scipy():
    rng = np.random.default_rng(12)
    for n, levels in ((1500, 7), (1501, 1000), (2048, 2)):
        x, y = rng.integers(0, levels, n).astype(float).tolist(), rng.normal(size=n).round(1).tolist()
        counts = pair_counts(x, y)
        assert counts == pair_by_pair(x, y)
        assert counts.tau_b == pytest.approx(scipy.stats.kendalltau(x, y).statistic, abs=1e-12)


def test_lesson_12_pooled_segments_match_scipy_and_the_definition():
    """Lesson 12's data: sentence BLEU and chrF against MQM over every rated segment of the eight systems."""
    mqm = {(r.system, r.segment): r.score for r in load_mqm_segments(list(RATED_SYSTEMS)) if r.rated}
    rows = load_segment_metrics()
    bleu, chrf = [m.bleu for m in rows], [m.chrf for m in rows]
    people = [mqm[m.system, m.segment] for m in rows]
    for x, y in ((bleu, people), (chrf, people), (bleu, chrf)):
        counts = pair_counts(x, y)
        assert counts.tau_b == pytest.approx(scipy.stats.kendalltau(x, y).statistic, abs=1e-12)
        assert counts.tied_both + counts.tied_x_only + counts.tied_y_only > 0  # the data has ties of every kind
    first = slice(0, 1200)  # the definition is slow: check the five counts on a part of the pool
    assert pair_counts(bleu[first], people[first]) == pair_by_pair(bleu[first], people[first])


def test_too_many_items_are_refused_before_any_work():
    with pytest.raises(ValueError, match=f"at most {MAX_TAU_ITEMS:,} items"):
        pair_counts(range(MAX_TAU_ITEMS + 1), range(MAX_TAU_ITEMS + 1))
