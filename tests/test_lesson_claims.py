"""Sentences of the lessons that state a fact about a library or the data: each figure computed here and found in
the lesson's text, and the false sentences it replaced gone (issue 45)."""

import re
from pathlib import Path

import nbformat
import numpy as np
import pytest
import sacrebleu

from bleu_lab.metrics import agreement
from bleu_lab.metrics.published_scores import (
    RATED_SYSTEMS,
    load_mqm_segments,
    load_segment_metrics,
    load_system_scores,
    read_wmt21_texts,
)
from bleu_lab.sacrebleu_style import sentence_score

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def markdown(name: str) -> str:
    """The lesson's markdown, whitespace collapsed (line breaks fall anywhere in a paragraph)."""
    cells = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4).cells
    return re.sub(r"\s+", " ", " ".join(c.source for c in cells if c.cell_type == "markdown"))


# --- lesson 0: what the effective order leaves out -------------------------------------------------------------------


def test_lesson_0_effective_order_drops_only_orders_without_ngrams():
    text = markdown("00_start_here")
    assert "a short sentence has no match for" not in text  # the old, false sentence
    references = ["the cat is on the mat", "there is a cat on the mat"]

    def score(hypothesis, effective_order):
        return sacrebleu.BLEU(effective_order=effective_order).sentence_score(hypothesis, references)

    short = score("the cat", True)
    assert short.totals[2:] == [0, 0] and score("the cat", False).score == 0
    assert f"scores {short.score:.2f} with it and 0 without" in text
    unmatched = score("the cat sat on a mat today", True)
    assert unmatched.counts[2:] == [0, 0] and min(unmatched.totals) > 0  # has 3- and 4-grams, matches none
    assert unmatched.score == score("the cat sat on a mat today", False).score
    assert f"scores {unmatched.score:.2f} either way" in text


# --- lesson 12 ------------------------------------------------------------------------------------------------------

LESSON_12 = "12_metrics_and_people"


def test_lesson_12_old_sentences_are_gone():
    text = markdown(LESSON_12)
    for old in ("without them most sentences would score 0", "every system suffers from this about equally",
                "the system ranking survives it", "The experts disagree with themselves",
                "has a Major error or worse"):
        assert old not in text


def test_lesson_12_unsmoothed_zeros_are_counted_from_the_text(mtdata):
    """About one sentence in six or seven scores 0 without smoothing: every one shares no 4-gram with reference C."""
    texts = read_wmt21_texts(mtdata)
    zeros = dict.fromkeys(RATED_SYSTEMS, 0)
    for row in load_segment_metrics():
        hypothesis, reference = texts.systems[row.system][row.segment - 1], texts.references["C"][row.segment - 1]
        plain = sentence_score(hypothesis, [reference], smooth_method="none", effective_order=False)
        effective = sentence_score(hypothesis, [reference], smooth_method="none", effective_order=True)
        assert (plain.score == 0) == (effective.score == 0) == (plain.counts[3] == 0)
        zeros[row.system] += plain.score == 0
    total, rated = sum(zeros.values()), len(load_segment_metrics())
    assert 1 / 7 < total / rated < 1 / 6
    text = markdown(LESSON_12)
    assert f"{total} of the {rated:,} rated outputs ({min(zeros.values())} to {max(zeros.values())} of each" in text


def test_lesson_12_reference_effect_is_lesson_10s():
    machines = [row for row in load_system_scores() if not row.is_human]
    rank = {ref: sorted(machines, key=lambda r: -r.bleu[ref]).index(
        next(r for r in machines if r.system == "Online-W")) + 1 for ref in ("A", "D")}
    assert rank == {"A": 6, "D": 2}
    assert "Online-W output is sixth of eight by BLEU against reference A and second against reference D" in (
        markdown(LESSON_12))


def test_lesson_12_mqm_weights_and_the_minus_5_share():
    text = markdown(LESSON_12)
    assert "| Neutral (any category) | 0 |" in text
    scores = [row.score for row in load_mqm_segments("Online-W") if row.rated]
    assert "about one in seven (80) scores −5 or worse" in text and sum(s <= -5 for s in scores) == 80


def test_lesson_12_item_grouped_finding():
    mqm = {(r.system, r.segment): r.score for r in load_mqm_segments(list(RATED_SYSTEMS)) if r.rated}
    rows = {(r.system, r.segment): r for r in load_segment_metrics()}
    segments = sorted({s for _, s in rows})
    human = np.array([[mqm[n, s] for s in segments] for n in RATED_SYSTEMS])
    bleu = np.array([[rows[n, s].bleu for s in segments] for n in RATED_SYSTEMS])
    text = markdown(LESSON_12)
    tau = agreement.grouped_tau_b(bleu, human, "item")
    assert f"By item, τ_b is {tau.tau:+.2f} for BLEU" in text and f"{tau.left_out} segments drop out" in text
    best = agreement.tie_calibrated_accuracy(bleu, human, "item")
    assert f"ε = {best.epsilon:.0f} BLEU points" in text
    assert f"scores {best.accuracy:.4f}, where the constant scores {best.constant:.4f}" in text
    assert best.accuracy - best.constant < 0.001  # "no better than a constant"
    gaps = np.abs(bleu[:, None, :] - bleu[None, :, :])[np.triu_indices(len(RATED_SYSTEMS), 1)]
    assert f"leaves {(gaps > best.epsilon).sum()} of the {gaps.size:,} pairs untied" in text
    w = RATED_SYSTEMS.index("Online-W")
    online_w = agreement.tie_calibrated_accuracy(bleu[w:w + 1], human[w:w + 1], "system")
    assert online_w.accuracy == pytest.approx(online_w.constant, abs=1e-12)
    assert f"acc\\*_eq is {online_w.accuracy:.3f}, the experts' own tie share" in text


# --- lesson 11: compare-mt's resampling ------------------------------------------------------------------------------


def test_lesson_11_compare_mt_draws_half_with_replacement():
    import inspect

    from compare_mt import sign_utils

    source = inspect.getsource(sign_utils.eval_with_paired_bootstrap)
    assert "sample_ratio=0.5" in source and "np.random.choice(ids, size=sample_size, replace=True)" in source
    text = markdown("11_read_your_outputs")
    assert "with *half* as many segments as the test set (`sample_ratio=0.5`), drawn with replacement" in text


def test_lesson_12_system_level_taus_carry_their_interval():
    """+0.71 (sentence BLEU averaged) and +0.79 (corpus BLEU, reference C) on eight systems, with lesson 10's
    bootstrap over systems: no ties, so tau = 2 x accuracy - 1 in every draw."""
    from bleu_lab.metrics.significance import percentile_interval

    mqm = {(r.system, r.segment): r.score for r in load_mqm_segments(list(RATED_SYSTEMS)) if r.rated}
    rows = {(r.system, r.segment): r for r in load_segment_metrics()}
    segments = sorted({s for _, s in rows})
    human = [np.mean([mqm[n, s] for s in segments]) for n in RATED_SYSTEMS]
    table = {row.system: row for row in load_system_scores()}
    lows = []
    for scores in ([np.mean([rows[n, s].bleu for s in segments]) for n in RATED_SYSTEMS],
                   [table[n].bleu["C"] for n in RATED_SYSTEMS]):
        assert agreement.kendall_tau(scores, human) == pytest.approx(2 * agreement.pairwise_accuracy(scores, human) - 1)
        low, high = percentile_interval(agreement.resampled_pairwise_accuracy(scores, human, n_samples=2000, seed=1))
        lows.append(f"{2 * low - 1:+.2f}")
        assert high == 1
    assert f"from about {lows[0]} and {lows[1]} up to +1" in markdown(LESSON_12)
