"""bleu_lab.metrics.delta_accuracy against the published table it comes from: Kocmi et al. (2024), "Navigating the
Metrics Maze", the table of thresholds in the authors' repository (kocmitom/MT-Thresholds, appendix/main_thresholds.tex,
commit d61165f): the difference each metric needs for each estimated accuracy, printed to two decimals ('-' where
the fit never reaches it)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bleu_lab.metrics.delta_accuracy import delta_fits, describe_accuracy, estimated_accuracy, fit_for

ACCURACIES = (0.50, 0.55, 0.60, 0.65, 0.70, 0.75, 0.80, 0.85, 0.90, 0.95)
# Rows of the published table (metric as named in delta_accuracy_fits.tsv -> deltas at ACCURACIES).
PUBLISHED = {
    "BLEU": (0.27, 0.52, 0.78, 1.06, 1.39, 1.79, 2.34, 3.35, None, None),
    "chrF": (0.14, 0.33, 0.54, 0.76, 1.00, 1.28, 1.63, 2.12, 3.05, None),
    "spBLEU-200": (0.25, 0.52, 0.82, 1.13, 1.49, 1.91, 2.46, 3.28, 5.57, None),
    "COMET-20": (0.08, 0.36, 0.65, 0.96, 1.29, 1.67, 2.10, 2.66, 3.45, 5.10),
    "COMET-22": (0.03, 0.10, 0.18, 0.26, 0.35, 0.45, 0.56, 0.71, 0.94, 1.53),
    "CometKiwi-22": (0.01, 0.08, 0.16, 0.24, 0.33, 0.42, 0.53, 0.67, 0.85, 1.18),
    "xCOMET-XXL": (0.02, 0.19, 0.37, 0.56, 0.76, 0.98, 1.24, 1.55, 1.99, 2.74),
    "spBLEU-101": (0.29, 0.49, 0.71, 0.95, 1.24, 1.63, 2.26, None, None, None),
    "BERTScore": (0.04, 0.12, 0.20, 0.29, 0.38, 0.49, 0.62, 0.80, 1.08, None),
}


@pytest.mark.parametrize("metric", sorted(PUBLISHED))
def test_the_fits_give_back_the_published_thresholds(metric: str):
    fit = fit_for(metric)
    for accuracy, printed in zip(ACCURACIES, PUBLISHED[metric]):
        delta = fit.delta(accuracy)
        if printed is None:
            assert delta is None, (metric, accuracy, delta)
        else:
            assert round(delta, 2) == printed, (metric, accuracy, delta)
            assert fit.accuracy(printed) == pytest.approx(accuracy, abs=0.01)


def test_a_one_point_bleu_gain_and_its_chrf_counterpart_by_hand():
    # BLEU: 88.333 / (1 + e^-0.96639) = 88.333 / 1.38046 = 63.99%
    assert estimated_accuracy(1.0, "BLEU") == pytest.approx(88.33333333333225 / (1 + math.exp(-0.9663926931178954))
                                                            / 100)
    assert estimated_accuracy(1.0, "bleu") == pytest.approx(0.6399, abs=1e-4)
    assert estimated_accuracy(-1.0, "BLEU") == estimated_accuracy(1.0, "BLEU")  # the size of the difference
    assert estimated_accuracy(1.0, "chrF") == pytest.approx(0.7002, abs=1e-4)  # 93.0 / (1 + e^-1.11427) = 93 / 1.32816


@given(st.floats(0, 50), st.floats(0, 50))
def test_a_larger_difference_never_has_a_lower_estimate(x: float, y: float):
    for metric in delta_fits():
        low, high = sorted((x, y))
        assert estimated_accuracy(low, metric) <= estimated_accuracy(high, metric)
        assert estimated_accuracy(high, metric) < 1.0


def test_metrics_the_paper_did_not_fit_get_no_estimate():
    assert estimated_accuracy(5.0, "TER") is None
    assert estimated_accuracy(5.0, "MQM") is None
    assert describe_accuracy(None) == ""


def test_below_half_it_is_called_a_coin_toss():
    assert describe_accuracy(estimated_accuracy(0.1, "BLEU")) == "a coin toss"
    assert describe_accuracy(estimated_accuracy(2.0, "BLEU")) == "77%"


@pytest.mark.parametrize("delta", [float("nan"), float("inf"), "1.0", None, True])
def test_a_delta_that_is_not_a_finite_number_is_refused_by_name(delta):
    with pytest.raises(ValueError, match="delta must be a finite number"):
        estimated_accuracy(delta, "BLEU")


def test_a_metric_name_that_is_not_text_is_refused_by_name():
    with pytest.raises(TypeError, match="metric must be"):
        estimated_accuracy(1.0, 3)
