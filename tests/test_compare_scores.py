"""Segment scores from anywhere (bleu_lab.metrics.segment_scores) and metrics beside BLEU (bleu_lab.compare.metrics):
the two file formats and their errors, MQM read from the shipped release equal to the published table, Kendall's tau
equal to scipy's, and the segments two metrics rank furthest apart; compare_systems(..., scores=...) and bleu-lab
compare --scores with every export."""

import os
from pathlib import Path

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from bleu_lab.compare.metrics import disagreements, metric_agreement, tau_b
from bleu_lab.data import corpus_dir
from bleu_lab.metrics.published_scores import MQM_SEGMENTS_FILE, RATED_SYSTEMS, SEGMENTS, load_system_scores
from bleu_lab.metrics.segment_scores import read_line_scores, read_long_scores, read_segment_scores, segment_scores

MQM_FILE = corpus_dir() / MQM_SEGMENTS_FILE
ROOT = Path(__file__).resolve().parent.parent


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
    # by item: each segment's three (two where b is unrated) systems, tau_b averaged where defined
    taus = []
    for i in range(30):
        xs = [x[s][i] for s in "abc" if not np.isnan(y[s][i])]
        ys = [y[s][i] for s in "abc" if not np.isnan(y[s][i])]
        if len(set(xs)) > 1 and len(set(ys)) > 1:
            taus.append(scipy.stats.kendalltau(xs, ys).statistic)
    assert (result.item.tau, result.item.items) == (pytest.approx(np.mean(taus)), len(taus))
    assert result.item_constant <= result.item_accuracy <= 1 and result.item_epsilon >= 0


def test_disagreements_rank_the_furthest_apart_first():
    x = {"s": np.array([0.0, 10.0, 20.0, 30.0])}
    y = {"s": np.array([3.0, 2.0, 1.0, np.nan])}  # reversed order; the last segment is not rated in y
    found = disagreements("X", "Y", x, y, x, y, k=2)
    assert [(d.segment, d.gap) for d in found] == [(0, -1.0), (2, 1.0)]
    assert found[0].x_score == 0.0 and found[0].y_score == 3.0


def test_estimated_accuracy_follows_kocmi_fits_only_for_metrics_they_fit():
    from bleu_lab.compare.metrics import delta_scale
    from bleu_lab.metrics.delta_accuracy import estimated_accuracy

    comet = segment_scores("COMET-22", {"a": [0.81, 0.79], "b": [0.80, 0.83]}, higher_is_better=True)
    assert delta_scale(comet) == 100.0  # 0-1 scores: the fit is on the scores times 100
    assert delta_scale(segment_scores("comet-22", {"a": [81.0]}, higher_is_better=True)) == 1.0
    assert delta_scale(segment_scores("MQM", {"a": [0.5]}, higher_is_better=False)) == 1.0
    assert estimated_accuracy(1.0, "MQM") is None and estimated_accuracy(1.0, "COMET-22") > 0.5


# --- compare_systems(..., scores=...) and bleu-lab compare --scores ------------------------------------------------

NEWS = ROOT / "data" / "news"


def news_comparison(**kwargs):
    from bleu_lab.compare import compare_systems

    systems = {n: (NEWS / f"sys.{n}.de").read_text(encoding="utf-8").splitlines() for n in ("strong", "fluent")}
    ref = (NEWS / "ref.A.de").read_text(encoding="utf-8").splitlines()
    rng = np.random.default_rng(7)
    values = {n: [None if i % 5 == 0 else float(rng.integers(0, 8)) for i in range(len(ref))] for n in systems}
    mqm = segment_scores("MQM", values, higher_is_better=False)
    return compare_systems(systems, ref, scores={"MQM": mqm}, n_samples=300, n_trials=400, seed=11, **kwargs), values


@pytest.fixture(scope="module")
def news():
    return news_comparison()


def test_metric_tests_are_the_paired_tests_of_the_means_by_hand(news):
    """The bootstrap's resampled means and the randomization's shuffled gaps, recomputed from the same draws."""
    c, values = news
    m = c.metrics[0]
    assert [s.name for s in m.systems] == ["strong", "fluent"] and m.direction == "lower is better"
    strong, fluent = (np.array([np.nan if v is None else v for v in values[n]]) for n in ("strong", "fluent"))
    both = ~np.isnan(strong) & ~np.isnan(fluent)
    a, b = strong[both], fluent[both]
    p = m.all_pairs[0]
    assert p.segments == both.sum() and p.difference == pytest.approx(b.mean() - a.mean())
    assert m.system("strong").mean == pytest.approx(np.nanmean(strong)) and m.system("strong").unrated == 32
    idxs = np.random.default_rng(11).choice(len(a), size=(300, len(a)), replace=True)
    np.testing.assert_allclose(p.bootstrap.system_samples, b[idxs].mean(1), rtol=1e-5)
    gaps = b[idxs].mean(1) - a[idxs].mean(1)
    expected = (np.sum(np.abs(gaps - gaps.mean()) >= abs(b.mean() - a.mean()) - 1e-9) + 1) / 301
    assert p.bootstrap.p_value == pytest.approx(expected, abs=2 / 301)
    coins = np.random.default_rng(11).integers(2, size=(400, len(a)), dtype=bool)
    shuffled = np.abs(np.where(coins, a, b).mean(1) - np.where(coins, b, a).mean(1))
    np.testing.assert_allclose(p.randomization.trial_differences, shuffled, atol=1e-12)


def test_agreement_in_a_comparison_equals_scipy(news):
    c, values = news
    mqm = {n: -np.array([np.nan if v is None else v for v in values[n]]) for n in ("strong", "fluent")}
    found = {(a.x, a.y): a for a in c.agreement}
    assert set(found) == {("BLEU", "chrF"), ("BLEU", "MQM"), ("chrF", "MQM")}
    keep = {n: ~np.isnan(mqm[n]) for n in mqm}
    for n in mqm:
        expected = scipy.stats.kendalltau(c.sentence_bleu[n][keep[n]], mqm[n][keep[n]]).statistic
        assert found["BLEU", "MQM"].per_system[n].tau == pytest.approx(expected)
    pooled = scipy.stats.kendalltau(np.concatenate([c.sentence_bleu[n][keep[n]] for n in mqm]),
                                    np.concatenate([mqm[n][keep[n]] for n in mqm])).statistic
    assert found["BLEU", "MQM"].pooled.tau == pytest.approx(pooled)
    assert c.disagreements and all(d.x == "BLEU" and d.y == "MQM" for d in c.disagreements)


def test_every_export_carries_the_scores(news, tmp_path):
    import json

    c, _ = news
    data = json.loads(c.to_json())
    assert data["metrics"][0]["name"] == "MQM" and len(data["metrics"][0]["pairs"]) == 1
    assert data["metrics"][0]["pairs"][0]["estimated_accuracy"] is None  # Kocmi et al. fitted no MQM
    assert data["all_pairs"][0]["estimated_accuracy"] > 0.5  # but BLEU
    names = {p.name for p in c.to_csv(tmp_path)}
    assert {"metric_scores.csv", "metric_pairs.csv", "agreement.csv", "disagreements.csv"} <= names
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("`--csv DIR`")
    assert all(f"`{name}`" in readme[start:readme.index("\n\n", start)] for name in names)
    header = (tmp_path / "metric_scores.csv").read_text(encoding="utf-8").splitlines()[0].split(",")
    assert header == ["metric", "direction", "name", "mean", "interval_low", "interval_high", "rated", "unrated"]
    assert "MQM ($\\downarrow$)" in c.to_latex()
    page = c.to_html()
    for text in ("MQM: each system", "MQM: every pair of systems", "Metrics and people", "Sentence BLEU and MQM",
                 "2021.tacl-1.87", "2021.wmt-1.73", "2023.emnlp-main.798", "2024.acl-long.110",
                 "Where BLEU and the other metrics disagree most", "every system's output of segment"):
        assert text in page
    assert "MQM (lower is better" in str(c)
    # every output names the grouping of each agreement figure (issue 45)
    assert {"item_tau", "item_acc_eq_calibrated", "item_epsilon", "item_acc_eq_constant"} <= set(data["agreement"][0])
    csv_header = (tmp_path / "agreement.csv").read_text(encoding="utf-8").splitlines()[0].split(",")
    assert {"pooled_tau", "item_tau", "item_acc_eq_calibrated"} <= set(csv_header)
    for text in ("segment τ_b, no grouping", "τ_b by system: ", "τ_b by item", "acc*_eq by item", "WMT23 and WMT24"):
        assert text in page
    assert "(no grouping)" in c.to_latex() and "(by item)" in c.to_latex()
    assert "its axis turned so that better is up" in page  # MQM's errors plotted downwards, as in lesson 12
    terminal = str(c)
    assert "(no grouping: " in terminal and "(by item: averaged over " in terminal and "acc*_eq" in terminal
    rated = c.metrics[0].systems[0].rated
    assert f"over its rated ones (MQM: {rated:,}" in terminal


def test_compare_systems_refuses_scores_it_cannot_use():
    from bleu_lab.compare import compare_systems

    systems, ref = {"a": ["x y"], "b": ["x z"]}, ["x y"]
    with pytest.raises(TypeError, match="must be SegmentScores"):
        compare_systems(systems, ref, scores={"M": {"a": [1.0], "b": [2.0]}})
    with pytest.raises(ValueError, match="no scores for system 'b'"):
        compare_systems(systems, ref, scores={"M": segment_scores("M", {"a": [1.0]}, higher_is_better=True)})
    with pytest.raises(ValueError, match="has 2 scores for 'a' but the test set has 1 segments"):
        compare_systems(systems, ref, scores={"M": segment_scores("M", {"a": [1, 2], "b": [1, 2]},
                                                                  higher_is_better=True)})


@pytest.mark.parametrize("flags, message", [
    (["--scores", "M=x.txt"], "exactly one of --higher-is-better M or --lower-is-better M"),
    (["--scores", "M=x.txt", "--lower-is-better", "M", "--higher-is-better", "M"], "exactly one of"),
    (["--scores", "M=x.txt", "--lower-is-better", "N"], "exactly one of"),
    (["--scores", "M=x.txt", "--lower-is-better", "M", "--higher-is-better", "N"], "--higher-is-better N: no --scores"),
    (["--scores", "BLEU=x.txt", "--lower-is-better", "BLEU"], "that name is taken"),
    (["--scores", "M"], "expected NAME=FILE"),
])
def test_cli_states_each_direction(capsys, flags, message):
    from bleu_lab.compare.cli import main

    assert main(["--refs", str(NEWS / "ref.A.de"), "--systems", str(NEWS / "sys.strong.de"),
                 str(NEWS / "sys.fluent.de"), *flags]) == 2
    assert message in capsys.readouterr().err


def test_cli_reads_one_number_per_line_per_system(tmp_path, capsys):
    from bleu_lab.compare.cli import main

    n = len((NEWS / "ref.A.de").read_text(encoding="utf-8").splitlines())
    a = write(tmp_path, "a.txt", "".join(f"0.{i % 9}\n" for i in range(n)))
    b = write(tmp_path, "b.txt", "None\n" + "".join(f"0.{(i * 7) % 9}\n" for i in range(1, n)))
    assert main(["--refs", str(NEWS / "ref.A.de"), "--systems", str(NEWS / "sys.strong.de"),
                 str(NEWS / "sys.fluent.de"), "--samples", "100", "--trials", "100", "--no-chrf",
                 "--scores", f"COMET-22={a},{b}", "--higher-is-better", "COMET-22",
                 "--json", str(tmp_path / "r.json")]) == 0
    import json

    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    comet = data["metrics"][0]
    assert comet["systems"][1]["unrated"] == 1 and comet["direction"] == "higher is better"
    assert comet["pairs"][0]["estimated_accuracy"] is not None  # a metric Kocmi et al. fitted
    assert [a["y"] for a in data["agreement"]] == ["COMET-22"]  # BLEU against it (no chrF here)


@pytest.mark.skipif(not os.environ.get("BLEU_LAB_MTDATA"),
                    reason="needs the WMT21 en-de files: set BLEU_LAB_MTDATA to the folder holding en-de/")
def test_cli_on_the_eight_mqm_rated_systems(tmp_path):
    """bleu-lab compare --scores MQM=... --lower-is-better MQM on WMT21 en-de: the published MQM table, and Kendall's
    tau of sentence BLEU and MQM equal to scipy's on the same segments."""
    import json

    from bleu_lab.compare.cli import main
    from bleu_lab.metrics.published_scores import FILE_NAMES, SEGMENT_REFERENCE, load_mqm_segments

    folder = Path(os.environ["BLEU_LAB_MTDATA"]) / "en-de"
    files = [str(folder / f"newstest2021.en-de.hyp.{FILE_NAMES.get(s, s)}.de") for s in RATED_SYSTEMS]
    out = tmp_path / "r.json"
    assert main(["--refs", str(folder / f"newstest2021.en-de.ref.{SEGMENT_REFERENCE}.de"), "--systems", *files,
                 "--names", *RATED_SYSTEMS, "--samples", "200", "--trials", "200", "--no-chrf",
                 "--scores", f"MQM={MQM_FILE}", "--lower-is-better", "MQM", "--json", str(out)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    published = {row.system: row.mqm for row in load_system_scores()}
    assert {s["name"]: round(s["mean"], 2) for s in data["metrics"][0]["systems"]} == \
        {s: published[s] for s in RATED_SYSTEMS}
    from bleu_lab.sacrebleu_style import sentence_score

    reference = (folder / f"newstest2021.en-de.ref.{SEGMENT_REFERENCE}.de").read_text(encoding="utf-8").split("\n")
    system = "Nemo"
    hyps = (folder / "newstest2021.en-de.hyp.NVIDIA-NeMo.de").read_text(encoding="utf-8").split("\n")
    rated = [r for r in load_mqm_segments(system) if r.rated]
    bleu = [sentence_score(hyps[r.segment - 1], [reference[r.segment - 1]]).score for r in rated]
    expected = scipy.stats.kendalltau(bleu, [r.score for r in rated]).statistic  # the file's score: higher is better
    found = next(a for a in data["agreement"] if a["y"] == "MQM")
    assert found["per_system_tau"][system] == pytest.approx(expected)
    assert found["per_system_segments"][system] == len(rated) == 527
    # grouped by item, the figures mt-metrics-eval's KendallVariants(average_by='item', variant='b') and
    # KendallWithTiesOpt(average_by='item', sample_rate=1.0) give on these scores (tests/test_agreement_grouped.py)
    assert (found["item_tau"], found["item_segments_averaged"]) == (pytest.approx(0.08111071452983898), 476)
    assert found["item_acc_eq_calibrated"] == pytest.approx(0.46625101653564704)
    assert found["item_epsilon"] == pytest.approx(82.03479440184583)
    assert found["item_acc_eq_constant"] == pytest.approx(0.46570886419083807)


def test_paired_mean_rows_sum_decimals_exactly_and_floats_as_floats():
    from bleu_lab.compare.metrics import metric_tests
    from bleu_lab.metrics.segment_scores import paired_mean_rows

    tenths = segment_scores("M", {"a": [0.1, 1.1, None, 5.0], "b": [0.2, None, 2.3, 25.0]}, higher_is_better=False)
    rows = paired_mean_rows(tenths, "a", "b")
    assert rows.base_rows.dtype.kind == "i" and rows.base_rows[:, 0].tolist() == [1, 50]  # both rated: 1st, 4th
    assert rows.baseline.score == pytest.approx(2.55) and rows.system.score == pytest.approx(12.6)
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=40), rng.normal(size=40) + 0.3
    floats = segment_scores("F", {"a": a.tolist(), "b": b.tolist()}, higher_is_better=True)
    assert paired_mean_rows(floats, "a", "b").base_rows.dtype.kind == "f"
    test = metric_tests(floats, ["a", "b"], 200, 300, 4).all_pairs[0]
    coins = np.random.default_rng(4).integers(2, size=(300, 40), dtype=bool)
    shuffled = np.abs(np.where(coins, a, b).mean(1) - np.where(coins, b, a).mean(1))
    np.testing.assert_allclose(test.randomization.trial_differences, shuffled, atol=1e-12)
    idxs = np.random.default_rng(4).choice(40, size=(200, 40), replace=True)
    np.testing.assert_allclose(test.bootstrap.system_samples, b[idxs].mean(1), rtol=1e-5, atol=1e-6)


def test_tau_past_the_bound_is_not_computed():
    from bleu_lab.metrics.agreement import MAX_TAU_ITEMS

    many = np.arange(MAX_TAU_ITEMS + 1, dtype=float)
    result = tau_b(many, many)
    assert np.isnan(result.tau) and result.items == MAX_TAU_ITEMS + 1


def test_a_comma_separated_long_file_is_read_as_the_tab_separated_one(tmp_path):
    """pandas' to_csv writes the long format with commas (and a header): the same scores as with tabs."""
    tabs = write(tmp_path, "l.tsv", "system\tscore\tseg_id\nA\t1.5\t1\nB\t-2\t1\nA\t0.5\t3\n")
    commas = write(tmp_path, "l.csv", 'system,score,seg_id\nA,1.5,1\n"B",-2,1\nA, 0.5 ,3\n')
    expected = read_segment_scores("X", tabs, ["A", "B"], 3, higher_is_better=True)
    got = read_segment_scores("X", commas, ["A", "B"], 3, higher_is_better=True)
    for system in ("A", "B"):
        np.testing.assert_array_equal(got.scores[system], expected.scores[system])
    assert got.mean("A") == 1.0 and got.unrated("B") == 2
    with pytest.raises(ValueError, match=r"line 2: expected system, score and segment id separated by commas"):
        read_segment_scores("X", write(tmp_path, "bad.csv", "A,1,1\nB\t1\t1\n"), ["A"], 3, higher_is_better=True)


@pytest.mark.parametrize("text, words", [
    ("COMET\n0.5\n0.25\n", r"a header line\? This format has none .*remove the header line"),
    ("0.5\n0,25\n", "write decimals with a point"),
    ("0.5\n0.25, 0.5, 0.1, 7\n", "a comma separates nothing here"),
])
def test_a_one_number_file_with_a_header_or_commas_says_what_to_change(tmp_path, text, words):
    with pytest.raises(ValueError, match=words):
        read_segment_scores("X", [write(tmp_path, "a.txt", text)], ["A"], 2, higher_is_better=True)
