"""Segment-level MQM (data/wmt21) and the shipped sentence BLEU and chrF: the published numbers, the loaders' errors,
and, with the WMT21 files, a fresh computation from the text equal to the shipped one and to sacrebleu's."""

import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
import sacrebleu
import scipy.stats
from hypothesis import given
from hypothesis import strategies as st

from bleu_lab.metrics.agreement import kendall_tau, pair_counts, pairwise_accuracy
from bleu_lab.metrics.published_scores import (
    RATED_SYSTEMS,
    SEGMENT_REFERENCE,
    WMT21_FINGERPRINTS,
    check_wmt21_files,
    load_mqm_segments,
    load_segment_metrics,
    load_system_scores,
    mqm_systems,
    read_wmt21_texts,
    segment_metrics_from_text,
)

ROOT = Path(__file__).resolve().parent.parent


def test_mqm_system_means_are_the_published_table_to_its_decimals():
    """Minus the mean over rated segments, rounded to the table's two decimals, is each system's published MQM."""
    scores = defaultdict(list)
    for row in load_mqm_segments():
        if row.rated:
            scores[row.system].append(row.score)
    table = load_system_scores()
    assert len(table) == 10
    for row in table:
        mean = -float(np.mean(scores[row.system]))
        assert f"{mean:.2f}" == f"{row.mqm:.2f}", row.system


def test_every_system_has_1002_segments_and_the_same_527_rated():
    rows = load_mqm_segments()
    systems = mqm_systems()
    assert len(systems) == 17 and set(RATED_SYSTEMS) < set(systems)
    assert {"ref-A", "ref-B", "ref-C", "ref-D"} < set(systems)
    rated = {system: {r.segment for r in rows if r.system == system and r.rated} for system in systems}
    assert all(len(segments) == 527 for segments in rated.values())
    assert len({frozenset(segments) for segments in rated.values()}) == 1
    assert len(rows) == 17 * 1002
    assert all(r.score <= 0 and r.score >= -25 * 5 for r in rows if r.rated)  # error points, at most five errors


def test_one_system_and_a_list_of_systems():
    nemo = load_mqm_segments("Nemo")
    assert [r.segment for r in nemo] == list(range(1, 1003)) and {r.system for r in nemo} == {"Nemo"}
    assert load_mqm_segments(["Nemo", "UEdin"]) == [r for r in load_mqm_segments() if r.system in ("Nemo", "UEdin")]


@pytest.mark.parametrize("systems,error,words", [
    ("NVIDIA-NeMo", ValueError, "here it is Nemo"),
    (["Facebook-AI", "Google"], ValueError, "unknown system 'Google'"),
    (42, TypeError, "a system name or a list of names, not int"),
    ([1, 2], TypeError, "hold system names"),
    ([], ValueError, "is empty"),
])
def test_bad_systems_get_a_clear_error(systems, error, words):
    with pytest.raises(error, match=words):
        load_mqm_segments(systems)
    with pytest.raises(error):
        load_segment_metrics(systems)


def test_segment_metrics_cover_every_rated_segment_of_the_eight_systems():
    metrics = load_segment_metrics()
    rated = {(r.system, r.segment) for r in load_mqm_segments(list(RATED_SYSTEMS)) if r.rated}
    assert [(m.system, m.segment) for m in metrics] == sorted(rated, key=lambda p: (RATED_SYSTEMS.index(p[0]), p[1]))
    assert all(0 <= m.bleu <= 100 + 1e-9 and 0 <= m.chrf <= 100 for m in metrics)  # 100.00000000000004 as sacrebleu
    with pytest.raises(ValueError, match="unknown system 'ref-A'"):
        load_segment_metrics("ref-A")  # a human translation has no sentence scores here


def test_sentence_scores_are_worse_where_the_experts_found_more_errors():
    """A weak but real link: segment-level tau_b between sentence chrF and MQM is positive for every system."""
    mqm = {(r.system, r.segment): r.score for r in load_mqm_segments(list(RATED_SYSTEMS)) if r.rated}
    for system in RATED_SYSTEMS:
        rows = load_segment_metrics(system)
        tau = kendall_tau([m.chrf for m in rows], [mqm[system, m.segment] for m in rows])
        assert 0 < tau < 0.5, system


# ---------------------------------------------------------------------------------- from the WMT21 text


def test_the_shipped_numbers_are_a_fresh_computation_from_the_wmt21_files(mtdata):
    """Equal within 1e-9 points: Python 3.12's sum() of floats compensates rounding, 3.11's does not."""
    fresh, shipped = segment_metrics_from_text(mtdata), load_segment_metrics()
    assert [(r.system, r.segment) for r in fresh] == [(r.system, r.segment) for r in shipped]
    for a, b in zip(fresh, shipped):
        assert a.bleu == pytest.approx(b.bleu, abs=1e-9) and a.chrf == pytest.approx(b.chrf, abs=1e-9), (a, b)


def test_bleu_lab_sentence_scores_equal_sacrebleus_on_every_rated_segment(mtdata):
    """sacrebleu.sentence_bleu (exp smoothing, effective order) and sentence_chrf, against reference C."""
    texts = read_wmt21_texts(mtdata)
    reference = texts.references[SEGMENT_REFERENCE]
    for row in load_segment_metrics():
        hypothesis, refs = texts.systems[row.system][row.segment - 1], [reference[row.segment - 1]]
        assert row.bleu == pytest.approx(sacrebleu.sentence_bleu(hypothesis, refs).score, abs=1e-9), row
        assert row.chrf == pytest.approx(sacrebleu.sentence_chrf(hypothesis, refs).score, abs=1e-9), row


def test_the_generator_script_finds_the_shipped_file_up_to_date(mtdata):
    done = subprocess.run([sys.executable, str(ROOT / "data" / "wmt21" / "make_segment_metrics.py"), "--mtdata",
                           str(mtdata), "--check"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "up to date" in done.stdout


def test_a_changed_or_missing_file_is_refused_by_its_fingerprint(mtdata, tmp_path):
    (tmp_path / "en-de").mkdir()
    for name in WMT21_FINGERPRINTS:
        shutil.copyfile(mtdata / "en-de" / name, tmp_path / "en-de" / name)
    assert check_wmt21_files(tmp_path) == tmp_path / "en-de"
    changed = tmp_path / "en-de" / "newstest2021.en-de.hyp.UEdin.de"
    changed.write_bytes(changed.read_bytes().replace(b"\n", b" \n", 1))
    with pytest.raises(ValueError, match=r"hyp\.UEdin\.de is not the published file"):
        read_wmt21_texts(tmp_path)
    changed.unlink()
    with pytest.raises(FileNotFoundError, match=r"hyp\.UEdin\.de is missing"):
        segment_metrics_from_text(tmp_path)


def test_a_folder_without_the_files_gets_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="BLEU_LAB_MTDATA"):
        read_wmt21_texts(tmp_path)
    with pytest.raises(TypeError, match="folder must be a path"):
        read_wmt21_texts(3)


# ---------------------------------------------------------------------------------- tau with ties, as scipy


@given(st.lists(st.integers(0, 5), min_size=3, max_size=40), st.data())
def test_kendall_tau_is_scipys_tau_b_with_ties(x, data):
    y = data.draw(st.lists(st.integers(-3, 3), min_size=len(x), max_size=len(x)))
    if len(set(x)) == 1 or len(set(y)) == 1:
        with pytest.raises(ValueError, match="undefined"):
            kendall_tau(x, y)
        return
    assert kendall_tau(x, y) == pytest.approx(scipy.stats.kendalltau(x, y).statistic, abs=1e-12)
    counts = pair_counts(x, y)
    assert counts.pairs == len(x) * (len(x) - 1) // 2
    assert counts.accuracy_eq == pytest.approx(pairwise_accuracy(x, y))


def test_segment_level_tau_equals_scipys_on_the_wmt21_scores():
    mqm = {(r.system, r.segment): r.score for r in load_mqm_segments(list(RATED_SYSTEMS)) if r.rated}
    rows = load_segment_metrics()
    for metric in ("bleu", "chrf"):
        x, y = [getattr(m, metric) for m in rows], [mqm[m.system, m.segment] for m in rows]
        assert kendall_tau(x, y) == pytest.approx(scipy.stats.kendalltau(x, y).statistic, abs=1e-12)


def test_segment_scatter_draws_every_segment_and_marks_the_named_ones():
    from bleu_lab.reports import plots

    fig, ax = plots.new_figure("t", "x", "y")
    x, y = [10.0, 50.0, 90.0, 30.0], [0.0, -5.0, 0.0, -0.1]
    plots.segment_scatter(ax, x, y, highlight={"seg 2": (50.0, -5.0)}, jitter=0.25, seed=1)
    points, marked = ax.lines
    assert list(points.get_xdata()) == x
    assert np.all(np.abs(np.asarray(points.get_ydata()) - y) <= 0.25) and list(points.get_ydata()) != y
    assert (list(marked.get_xdata()), list(marked.get_ydata())) == ([50.0], [-5.0])
    assert [t.get_text() for t in ax.texts] == ["seg 2"]
    again = plots.new_figure("t", "x", "y")[1]
    plots.segment_scatter(again, x, y, jitter=0.25, seed=1)
    assert list(again.lines[0].get_ydata()) == list(points.get_ydata())  # seeded: the same picture every run


def test_pair_counts_refuses_too_many_items_before_any_work():
    from bleu_lab.metrics.agreement import MAX_TAU_ITEMS

    with pytest.raises(ValueError, match=f"at most {MAX_TAU_ITEMS:,} items"):
        pair_counts([0.0] * (MAX_TAU_ITEMS + 1), [1.0] * (MAX_TAU_ITEMS + 1))
