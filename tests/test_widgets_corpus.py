"""The corpus-level widgets without a browser: the pure view models (controls in -> output out), then the views
driven through their controls' values, as a student's clicks would."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

import bleu_lab as bl
from bleu_lab.course import widgets
from bleu_lab.course.widgets import corpus as wc

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def news():
    return bl.load_corpus("news")


@pytest.fixture(scope="module")
def refs_a(news):
    return news.references_for("A")


# ---------------------------------------------------------------------------------------------- one system


def test_summary_numbers_come_from_the_core(news, refs_a):
    summary = wc.system_summary(news, "strong")
    hyps = news.systems["strong"]
    assert summary.score.score == bl.corpus_score(hyps, refs_a).score
    assert summary.sentence_scores == tuple(bl.sentence_score(h, r).score for h, r in zip(hyps, refs_a))
    assert summary.mean == pytest.approx(statistics.mean(summary.sentence_scores))
    assert summary.mean != pytest.approx(summary.score.score)  # corpus BLEU is not the mean
    assert summary.zeros == sum(1 for s in summary.sentence_scores if round(s, 2) == 0)


def test_summary_lowest_segments_are_sorted_and_complete(news, refs_a):
    summary = wc.system_summary(news, "degraded", lowest=7)
    scores = [row.score for row in summary.lowest]
    assert len(summary.lowest) == 7 and scores == sorted(scores)
    assert scores[-1] <= sorted(summary.sentence_scores)[6]
    row = summary.lowest[0]
    assert row.hypothesis == news.systems["degraded"][row.number - 1]
    assert row.references == tuple(refs_a[row.number - 1]) and row.source == news.sources[row.number - 1]


def test_summary_with_two_references_uses_the_segments_that_have_both(news):
    summary = wc.system_summary(news, "strong", ("A", "B"), lowest=3)
    assert len(summary.sentence_scores) == 60
    assert summary.score.score == bl.corpus_score(news.systems["strong"][:60], news.references[:60]).score
    assert all(len(row.references) == 2 and row.number <= 60 for row in summary.lowest)
    assert "references A + B" in summary.html


def test_summary_html_and_png(news):
    summary = wc.system_summary(news, "strong", lowest=5)
    assert summary.html.count("<tr>") == 6  # header + 5 segments
    assert f"data-score='{summary.score.score:.4f}'" in summary.html
    assert summary.png().startswith(PNG)
    assert "<table" not in wc.system_summary(news, "strong", lowest=0).html


def test_summary_escapes_text_and_shows_empty_outputs():
    tiny = bl.Corpus("tiny", Path("."), ["<b>src</b>", "two"], {"A": ["a <script>x</script> b", "c d e"]},
                     {"<evil>": ["a <script>x</script> b", ""]})
    summary = wc.system_summary(tiny, "<evil>")
    assert "<script>" not in summary.html and "&lt;script&gt;" in summary.html and "&lt;b&gt;src" in summary.html
    assert "<i>(empty)</i>" in summary.html and summary.lowest[0].score == 0


@pytest.mark.parametrize(
    ("system", "references", "message"),
    [("nope", ("A",), "There is no system 'nope'"), ("strong", ("C",), "Choose references"),
     ("strong", (), "Choose references")],
)
def test_summary_bad_choices_are_messages(news, system, references, message):
    summary = wc.system_summary(news, system, references)
    assert summary.score is None and message in summary.message
    assert "bleu-message" in summary.html and summary.png().startswith(PNG)


def test_summary_lowest_is_clamped(news):
    assert len(wc.system_summary(news, "strong", lowest=500).lowest) == wc.MAX_LOWEST
    assert wc.system_summary(news, "strong", lowest=-3).lowest == ()


# ---------------------------------------------------------------------------------------------- two systems


def test_comparison_equals_the_paired_tests(news, refs_a):
    view = wc.comparison_view_model(news.systems, refs_a, "degraded", "fluent", "bootstrap", 500, 7)
    direct = bl.paired_bootstrap(news.systems["degraded"], news.systems["fluent"], refs_a, n_samples=500, seed=7,
                                 method="shift")
    assert view.p_value == direct.p_value and view.result.system_ci == direct.system_ci
    view = wc.comparison_view_model(news.systems, refs_a, "degraded", "fluent", "bootstrap-sacrebleu", 500, 7)
    direct = bl.paired_bootstrap(news.systems["degraded"], news.systems["fluent"], refs_a, n_samples=500, seed=7)
    assert view.p_value == direct.p_value and "anti-conservative" in view.html
    view = wc.comparison_view_model(news.systems, refs_a, "degraded", "fluent", "randomization", 800)
    direct = bl.paired_randomization(news.systems["degraded"], news.systems["fluent"], refs_a, n_trials=800)
    assert view.p_value == direct.p_value


def test_comparison_readings(news, refs_a):
    not_significant = wc.comparison_view_model(news.systems, refs_a, "degraded", "fluent")
    assert "Not significant — which does not mean the systems are equal" in not_significant.reading
    significant = wc.comparison_view_model(news.systems, refs_a, "fluent", "salad", "randomization", 500)
    assert "Significant — which says nothing about whether the gap matters" in significant.reading
    same = {"a": news.systems["strong"], "b": list(news.systems["strong"])}
    assert "score the same" in wc.comparison_view_model(same, refs_a, "a", "b").reading
    assert "data-p=" in significant.html and "approximate randomization" in significant.html


def test_comparison_plots(news, refs_a):
    for test in wc.TESTS:
        assert wc.comparison_view_model(news.systems, refs_a, "degraded", "fluent", test, 200).png().startswith(PNG)
    assert wc.ComparisonView("a", "b", message="x").png().startswith(PNG)


@pytest.mark.parametrize(
    ("baseline", "system", "test", "n", "seed", "message"),
    [
        ("strong", "strong", "bootstrap", 100, 1, "two different systems"),
        ("strong", "nope", "bootstrap", 100, 1, "There is no system 'nope'"),
        ("strong", "fluent", "t-test", 100, 1, "Choose a test"),
        ("strong", "fluent", "bootstrap", "many", 1, "whole numbers"),
        ("strong", "fluent", "bootstrap", 100, -1, "0 or more"),
    ],
)
def test_comparison_bad_choices_are_messages(news, refs_a, baseline, system, test, n, seed, message):
    view = wc.comparison_view_model(news.systems, refs_a, baseline, system, test, n, seed)
    assert view.result is None and message in view.message and "bleu-message" in view.html


def test_comparison_of_mismatched_outputs_is_a_message(refs_a):
    view = wc.comparison_view_model({"a": ["x"], "b": ["y", "z"]}, [["x"]], "a", "b")
    assert "cannot be compared" in view.message


def test_comparison_sample_count_is_clamped(news, refs_a):
    view = wc.comparison_view_model(news.systems, refs_a, "degraded", "fluent", "randomization", 10**9)
    assert view.result.n_trials == wc.MAX_SAMPLES
    assert wc.comparison_view_model(news.systems, refs_a, "degraded", "fluent", "bootstrap", 0).result.n_samples == 1


# ---------------------------------------------------------------------------------------------- views


def test_front_doors_are_exported():
    assert widgets.corpus_explorer is wc.corpus_explorer and widgets.system_comparer is wc.system_comparer


def test_corpus_explorer_follows_its_controls(news):
    view = wc.corpus_explorer("strong", corpus=news)
    assert "bleu-corpus-explorer" in view._dom_classes
    assert bytes(view.image.value).startswith(PNG)
    view.system.value = "degraded"
    score = bl.corpus_score(news.systems["degraded"], news.references_for("A")).score
    assert f"data-score='{score:.4f}'" in view.output.value
    view.lowest.value = 0
    assert "<table" not in view.output.value
    view.lowest.value = 3
    assert view.output.value.count("<tr>") == 4
    view.references.value = ("A", "B")
    assert "60 segments" in view.output.value


def test_corpus_explorer_unknown_start_system_falls_back(news):
    view = wc.corpus_explorer("nope", corpus=news)
    assert view.system.value in news.systems and "data-score" in view.output.value


def test_system_comparer_follows_its_controls(news, refs_a):
    view = wc.system_comparer("degraded", "fluent", systems=news.systems, references=refs_a, n=300)
    assert "Paired approximate randomization" in view.output.value  # the valid test sacrebleu defaults to, first
    view.test.value = "bootstrap"
    assert "Paired bootstrap resampling" in view.output.value and bytes(view.image.value).startswith(PNG)
    assert "shifted to the null" in view.output.value
    view.test.value = "randomization"
    assert "Paired approximate randomization" in view.output.value
    view.system.value = "degraded"
    assert "two different systems" in view.output.value
    view.system.value = "salad"
    view.seed.value = 3
    direct = bl.paired_randomization(news.systems["degraded"], news.systems["salad"], refs_a, n_trials=300, seed=3)
    assert f"data-p='{direct.p_value:.6g}'" in view.output.value


def test_system_comparer_defaults_to_the_news_corpus():
    view = wc.system_comparer(n=100)
    assert view.baseline.value == "degraded" and view.system.value == "fluent"
    assert "p = " in view.output.value


def test_views_never_show_a_traceback(news, refs_a, monkeypatch):
    view = wc.system_comparer(systems=news.systems, references=refs_a, n=100)

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(wc, "comparison_view_model", broken)
    view.seed.value = 99
    assert "Something unexpected happened (RuntimeError: boom)" in view.output.value


# ---------------------------------------------------------------------------------------------- the plots behind them


def test_corpus_plots_are_titled_labelled_and_closed():
    import matplotlib.pyplot as plt

    from bleu_lab.reports import plots

    before = len(plt.get_fignums())
    fig, axes = plots.new_grid("grid", 2, 3, "x", "y", figsize=(6, 4))
    assert fig._suptitle.get_text() == "grid" and len(axes) == 6
    plots.score_histogram(axes[0], [0, 10, 55, 60], corpus_score=50, mean_score=31.25)
    assert [line.get_label() for line in axes[0].get_lines()] == ["corpus BLEU 50.0", "mean sentence BLEU 31.2"]
    fig2, ax = plots.new_figure("intervals", "BLEU", "system")
    plots.ci_error_bars(ax, ["a", "b"], [(9, 11), (18, 22)], scores=[10.5, 19.5])
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b"]
    plt.close(fig2)
    plots.paired_gaps(axes[2], [-1.0, 0.5, 2.0], 0.4)
    assert "1 of 3 below 0" in axes[2].get_legend().get_texts()[0].get_text()
    plots.randomization_null(axes[3], [0.1, 0.5, 0.9, 2.0], 0.5)
    assert "(2)" in axes[3].get_legend().get_texts()[1].get_text()  # two shuffles with a larger gap
    plots.bootstrap_distributions(axes[4], {"a": [1.0, 2.0], "b": [2.0, 3.0]}, {"a": (1.0, 2.0)})
    assert "a: 95% interval [1.00, 2.00]" in [t.get_text() for t in axes[4].get_legend().get_texts()]
    plt.close(fig)
    assert len(plt.get_fignums()) == before
