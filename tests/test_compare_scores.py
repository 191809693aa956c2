"""Segment scores from anywhere (bleu_lab.segment_scores) and metrics beside BLEU (bleu_lab.compare.metrics): the two
file formats and their errors, MQM read from the shipped release equal to the published table, Kendall's tau equal to
scipy's, and the segments two metrics rank furthest apart."""


import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from bleu_lab.compare.metrics import disagreements, metric_agreement, tau_b
from bleu_lab.data import corpus_dir
from bleu_lab.published_scores import MQM_SEGMENTS_FILE, RATED_SYSTEMS, SEGMENTS, load_system_scores
from bleu_lab.segment_scores import read_line_scores, read_long_scores, read_segment_scores, segment_scores

MQM_FILE = corpus_dir() / MQM_SEGMENTS_FILE


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- the two formats ----------------------------------------------------------------------------------------------


def test_long_format_with_header_unrated_and_missing_segments(tmp_path):
    path = write(tmp_path, "s.tsv", "system score seg_id\na\t0.5 1\na\tNone 2\nb 1.5 3\nb -0.0 1\n")
    table, column = read_long_scores(path, 3)
    assert column == "score"
    np.testing.assert_array_equal(table["a"], [0.5, np.nan, np.nan])  # segment 3 has no line: not rated
    np.testing.assert_array_equal(table["b"], [0.0, np.nan, 1.5])
    assert str(table["b"][0]) == "0.0"  # -0.0 read as 0


def test_long_format_without_header(tmp_path):
    table, column = read_long_scores(write(tmp_path, "s.tsv", "a 1 1\na 2 2\n"), 2)
    assert column is None and table["a"].tolist() == [1.0, 2.0]


@pytest.mark.parametrize("text, message", [
    ("a 1 1\na x 2\n", "line 2: expected a number"),
    ("a 1 1\na 1\n", "line 2: expected system, score and segment id"),
    ("a 1 1\na 1 4\n", "line 2: the segment id must be a line number from 1 to 3"),
    ("a 1 1\na 1 0\n", "line 2: the segment id must be a line number"),
    ("a 1 1\na None 1\n", "line 2: a's segment 1 is scored twice"),
    ("a inf 1\n", "line 1: expected a finite number"),
])
def test_long_format_errors_name_the_file_and_line(tmp_path, text, message):
    path = write(tmp_path, "bad.tsv", text)
    with pytest.raises(ValueError, match=message) as err:
        read_long_scores(path, 3)
    assert "bad.tsv" in str(err.value)


def test_one_number_per_line(tmp_path):
    values = read_line_scores(write(tmp_path, "c.txt", "0.25\nNone\n-1e-2\n\n"), "COMET")
    np.testing.assert_array_equal(values, [0.25, np.nan, -0.01, np.nan])
    with pytest.raises(ValueError, match=r"COMET file .*c2.txt, line 2: expected a number"):
        read_line_scores(write(tmp_path, "c2.txt", "0.25\nscore: 3\n"), "COMET")


def test_read_segment_scores_per_system_files_and_their_errors(tmp_path):
    a, b = write(tmp_path, "a.txt", "1\n2\n3\n"), write(tmp_path, "b.txt", "3\nNone\n1\n")
    scores = read_segment_scores("X", [a, b], ["A", "B"], 3, higher_is_better=True)
    assert scores.mean("A") == 2.0 and scores.mean("B") == 2.0 and scores.unrated("B") == 1 and not scores.note
    with pytest.raises(ValueError, match="has 3 lines but the test set has 4 segments"):
        read_segment_scores("X", [a, b], ["A", "B"], 4, higher_is_better=True)
    with pytest.raises(ValueError, match="2 one-number-per-line files for 3 systems"):
        read_segment_scores("X", [a, b], ["A", "B", "C"], 3, higher_is_better=True)
    long = write(tmp_path, "l.tsv", "A 1 1\n")
    with pytest.raises(ValueError, match=r"no scores for system 'B'; its systems are A \(name the systems"):
        read_segment_scores("X", long, ["A", "B"], 3, higher_is_better=True)


def test_segment_scores_from_python_values_are_checked():
    scores = segment_scores("M", {"a": [1, None, float("nan"), 3]}, higher_is_better=False)
    assert scores.mean("a") == 2.0 and scores.unrated("a") == 2 and scores.better(-1) and not scores.better(1)
    with pytest.raises(TypeError, match="higher_is_better must be True or False"):
        segment_scores("M", {"a": [1]}, higher_is_better="lower")
    with pytest.raises(ValueError, match="'M' scores of 'a', segment 2: expected a number"):
        segment_scores("M", {"a": [1, "x"]}, higher_is_better=True)
    with pytest.raises(ValueError, match="a metric's name"):
        segment_scores("M=1", {"a": [1]}, higher_is_better=True)


# --- the MQM release --------------------------------------------------------------------------------------------


def test_mqm_read_lower_is_better_is_the_published_table():
    """Read as lower-is-better, the release's mqm_avg_score (minus the error points) becomes error points, and each
    system's mean over its rated segments is the published MQM to the table's two decimals."""
    mqm = read_segment_scores("MQM", MQM_FILE, list(RATED_SYSTEMS), SEGMENTS, higher_is_better=False)
    assert "minus the weighted error points" in mqm.note
    published = {row.system: row.mqm for row in load_system_scores()}
    for system in RATED_SYSTEMS:
        assert round(mqm.mean(system), 2) == published[system]
        assert mqm.unrated(system) > 0 and mqm.unrated(system) + mqm.rated(system).sum() == SEGMENTS
    raw = read_segment_scores("MQM", MQM_FILE, ["Nemo"], SEGMENTS, higher_is_better=True)
    assert raw.mean("Nemo") == -mqm.mean("Nemo") and not raw.note  # the numbers as the file has them


# --- Kendall's tau and the segments two metrics disagree on ------------------------------------------------------

scores_with_ties = st.lists(st.tuples(st.integers(0, 4), st.integers(-3, 3)), min_size=3, max_size=40)


@settings(max_examples=60, deadline=None)
@given(scores_with_ties)
def test_tau_b_equals_scipy(pairs):
    x, y = [float(a) for a, _ in pairs], [float(b) for _, b in pairs]
    expected = scipy.stats.kendalltau(x, y).statistic
    got = tau_b(x, y).tau
    assert (np.isnan(got) and np.isnan(expected)) or got == pytest.approx(expected, abs=1e-12)


def test_metric_agreement_per_system_and_pooled_equal_scipy():
    rng = np.random.default_rng(3)
    x = {s: rng.integers(0, 5, 30).astype(float) for s in "abc"}
    y = {s: x[s] + rng.integers(-2, 3, 30) for s in "abc"}
    y["b"][[1, 4]] = np.nan  # unrated in y: left out of the pairs with b
    result = metric_agreement("X", "Y", x, y, {"a": 1.0, "b": 2.0, "c": 3.0}, {"a": 1.0, "b": 3.0, "c": 2.0})
    keep = ~np.isnan(y["b"])
    assert result.per_system["b"].items == 28
    assert result.per_system["b"].tau == pytest.approx(scipy.stats.kendalltau(x["b"][keep], y["b"][keep]).statistic)
    pooled_x = np.concatenate([x["a"], x["b"][keep], x["c"]])
    pooled_y = np.concatenate([y["a"], y["b"][keep], y["c"]])
    assert result.pooled.tau == pytest.approx(scipy.stats.kendalltau(pooled_x, pooled_y).statistic)
    assert result.system_accuracy == pytest.approx(2 / 3)  # a<b, a<c agree; b>c does not
    assert result.system_tau == pytest.approx(scipy.stats.kendalltau([1, 2, 3], [1, 3, 2]).statistic)


def test_disagreements_rank_the_furthest_apart_first():
    x = {"s": np.array([0.0, 10.0, 20.0, 30.0])}
    y = {"s": np.array([3.0, 2.0, 1.0, np.nan])}  # reversed order; the last segment is not rated in y
    found = disagreements("X", "Y", x, y, x, y, k=2)
    assert [(d.segment, d.gap) for d in found] == [(0, -1.0), (2, 1.0)]
    assert found[0].x_score == 0.0 and found[0].y_score == 3.0


def test_estimated_accuracy_follows_kocmi_fits_only_for_metrics_they_fit():
    from bleu_lab.compare.metrics import delta_scale
    from bleu_lab.delta_accuracy import estimated_accuracy

    comet = segment_scores("COMET-22", {"a": [0.81, 0.79], "b": [0.80, 0.83]}, higher_is_better=True)
    assert delta_scale(comet) == 100.0  # 0-1 scores: the fit is on the scores times 100
    assert delta_scale(segment_scores("comet-22", {"a": [81.0]}, higher_is_better=True)) == 1.0
    assert delta_scale(segment_scores("MQM", {"a": [0.5]}, higher_is_better=False)) == 1.0
    assert estimated_accuracy(1.0, "MQM") is None and estimated_accuracy(1.0, "COMET-22") > 0.5
