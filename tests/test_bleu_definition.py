"""BLEU's definition as a checklist: each test is one line of the formula or one known pitfall."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import bleu_lab
from bleu_lab.brevity import closest_length, closest_lengths
from bleu_lab.corpus_counting import corpus_matches
from bleu_lab.geometric_mean import bleu_from_precisions, geometric_mean
from bleu_lab.statistics import FEW_SEGMENTS, corpus_stats, pooled_stats, segment_counts, segment_stats

CAT_REFS = ["the cat is on the mat", "there is a cat on the mat"]
words = st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), max_size=12)


def test_ngrams_are_overlapping_runs_of_n_tokens():
    assert bleu_lab.ngrams("the cat sat", 2) == [("the", "cat"), ("cat", "sat")]
    assert bleu_lab.ngrams("the cat", 3) == []
    assert bleu_lab.count_ngrams("is is a", 1) == Counter({("is",): 2, ("a",): 1})


def test_clipping_uses_the_max_over_references_not_the_sum():
    assert bleu_lab.max_reference_counts(CAT_REFS, 1)[("the",)] == 2  # 2 in ref 1, 1 in ref 2: max is 2, not 3
    hyp = bleu_lab.count_ngrams("the the the the the the the", 1)
    assert bleu_lab.clip_counts(hyp, bleu_lab.max_reference_counts(CAT_REFS, 1)) == {("the",): 2}


def test_clip_table_of_the_cat_example_a_blog_post_works_by_hand():
    table = bleu_lab.clip_table(CAT_REFS, "the cat and the cat on the mat", 1)
    rows = {r.text: (r.count, r.max_ref_count, r.clipped) for r in table}
    assert rows == {"the": (3, 2, 2), "cat": (2, 1, 1), "and": (1, 0, 0), "on": (1, 1, 1), "mat": (1, 1, 1)}


def test_modified_precision_keeps_raw_counts_but_compares_by_value():
    p = bleu_lab.modified_precision(["a b a b"], "a b a b", 2)
    assert (p.numerator, p.denominator, str(p)) == (3, 3, "3/3") and p == 1
    half = bleu_lab.ModifiedPrecision(4, 8)
    assert str(half) == "4/8" and half == 0.5
    assert half.as_fraction() == Fraction(1, 2) and str(half.as_fraction()) == "1/2"


def test_closest_reference_length_ties_go_to_the_shorter():
    assert bleu_lab.closest_ref_length(["a b c d", "a b c d e f"], 5) == 4
    assert bleu_lab.closest_ref_length(["a b c d e f", "a b c d"], 5) == 4


def test_brevity_penalty_values():
    assert bleu_lab.brevity_penalty(10, 12) == 1.0
    assert bleu_lab.brevity_penalty(10, 10) == 1.0
    assert bleu_lab.brevity_penalty(10, 5) == pytest.approx(math.exp(1 - 2))
    assert bleu_lab.brevity_penalty(10, 0) == 0.0


def test_geometric_mean_with_weights():
    p = [0.625, 4 / 7, 1 / 3, 0.2]
    assert bleu_lab.sentence_bleu(CAT_REFS, "the cat and the cat on the mat") == pytest.approx(
        math.prod(x**0.25 for x in p), rel=1e-12)


def test_a_plain_geometric_mean_is_zero_when_one_precision_is_zero():
    assert geometric_mean([0.9, 0.9, 0.9, 0]) == 0.0
    assert geometric_mean([0.9, 0.9, 0.9, 0], weights=[1 / 3, 1 / 3, 1 / 3, 0]) == pytest.approx(0.9)  # weight 0
    p = [Fraction(5, 8), Fraction(4, 7), bleu_lab.ModifiedPrecision(2, 6), 0.2]
    assert geometric_mean(p) == pytest.approx(math.prod(float(x) ** 0.25 for x in p), rel=1e-12)
    assert geometric_mean([0.125, 1.0], weights=[1 / 3, 2 / 3]) == pytest.approx(0.5, rel=1e-12)
    assert geometric_mean(np.array([0.8, 0.2])) == pytest.approx(0.4, rel=1e-12)


def test_bleu_from_precisions_skips_a_zero_precision_as_nltk_does():
    """Documented behaviour, kept: nltk's final step leaves out p_n <= 0 (its smoothing replaces zeros first)."""
    assert bleu_from_precisions(1.0, [0.25] * 4, [0.9, 0.9, 0.9, 0]) == pytest.approx(0.9**0.75, rel=1e-12)
    assert bleu_from_precisions(1.0, [0.25] * 4, [0.9, 0.9, 0.9, 0]) == pytest.approx(0.924, abs=5e-4)
    assert bleu_from_precisions(0.5, [0.25] * 4, [0.9] * 4) == pytest.approx(0.5 * geometric_mean([0.9] * 4))


@pytest.mark.parametrize(("precisions", "weights", "error", "words"), [
    ([], None, ValueError, "precisions"),
    ("0.9", None, TypeError, "precisions"),
    ([0.9, "x"], None, TypeError, r"precisions\[1\]"),
    ([0.9, -0.1], None, ValueError, r"precisions\[1\]"),
    ([0.9, 0.9], [1.0], ValueError, "one weight per precision"),
    ([0.9, 0.9], [0.5, -0.5], ValueError, r"weights\[1\]"),
])
def test_geometric_mean_rejects_bad_input_by_name(precisions, weights, error, words):
    with pytest.raises(error, match=words):
        geometric_mean(precisions, weights)


def test_one_missing_order_sinks_an_unsmoothed_score_and_smoothing_rescues_it():
    hyp = "the cat sat on a mat"
    assert bleu_lab.sentence_bleu(CAT_REFS, hyp) < 1e-70
    assert bleu_lab.sentence_bleu(CAT_REFS, hyp, smoothing="method1") > 0.1


@given(st.lists(st.tuples(st.lists(words, min_size=1, max_size=3), words), min_size=1, max_size=6))
def test_statistics_add_up_over_a_corpus(corpus):
    refs = [r for r, _ in corpus]
    hyps = [h for _, h in corpus]
    total = sum((segment_stats(r, h) for r, h in zip(refs, hyps)), start=bleu_lab.statistics.empty_stats())
    assert total == corpus_stats(refs, hyps)


# few words, so n-grams repeat within and across segments; any number of references, empty texts included
corpus_segments = st.lists(st.tuples(st.lists(words, min_size=1, max_size=4), words), min_size=1, max_size=30)


@given(corpus_segments, st.integers(1, 6))
def test_corpus_matches_equal_counting_segment_by_segment(corpus, max_order):
    refs = [r for r, _ in corpus]
    hyps = [h for _, h in corpus]
    rows = corpus_matches(refs, hyps, max_order)
    assert rows.shape == (len(corpus), max_order)
    assert rows.tolist() == [segment_counts(r, h, max_order)[2] for r, h in zip(refs, hyps)]


@given(st.lists(st.tuples(st.integers(0, 9), st.lists(st.integers(0, 9), min_size=1, max_size=4)), max_size=20))
def test_closest_lengths_of_a_corpus_equal_closest_length_segment_by_segment(segments):
    hyp_lens = np.array([c for c, _ in segments], dtype=np.int64)
    ref_lens = np.array([r for _, rs in segments for r in rs], dtype=np.int64)
    ref_segment = np.array([i for i, (_, rs) in enumerate(segments) for _ in rs], dtype=np.int64)
    assert closest_lengths(ref_lens, ref_segment, hyp_lens).tolist() == [closest_length(rs, c) for c, rs in segments]


def test_corpus_matches_keep_segments_apart():
    # "a b" is in segment 0's reference only: it must not count for segment 1, whose reference lacks it
    refs = [[["a", "b"]], [["b", "a"]]]
    hyps = [["a", "b"], ["a", "b"]]
    assert corpus_matches(refs, hyps, 2).tolist() == [[2, 1], [2, 0]]


def test_corpus_matches_clip_by_the_best_single_reference():
    refs = [[["the", "cat", "the"], ["the", "the", "the", "mat"]]]
    hyps = [["the"] * 7]
    assert corpus_matches(refs, hyps, 2).tolist() == [[3, 2]]  # 'the' thrice, 'the the' twice: both from ref 2


@given(corpus_segments)
def test_statistics_pooled_chunk_by_chunk_add_up(corpus):
    refs = [r for r, _ in corpus]
    hyps = [h for _, h in corpus]
    total = sum((segment_stats(r, h) for r, h in zip(refs, hyps)), start=bleu_lab.statistics.empty_stats())
    chunk = bleu_lab.statistics.CHUNK
    try:  # chunks of 9: big ones counted by corpus_matches, a last one of fewer than 8 segment by segment
        bleu_lab.statistics.CHUNK = 9
        assert pooled_stats(iter(refs), iter(hyps)) == total
    finally:
        bleu_lab.statistics.CHUNK = chunk


def test_large_and_small_corpora_pool_the_same_statistics():
    refs = [[["a", "b", "c"], ["a", "c"]], [["c", "b", "a"]]] * FEW_SEGMENTS
    hyps = [["a", "b", "a"], ["c", "b"]] * FEW_SEGMENTS
    few = corpus_stats(refs[:2], hyps[:2])
    many = corpus_stats(refs, hyps)
    assert many.matches == tuple(FEW_SEGMENTS * m for m in few.matches)
    assert many.ref_len == FEW_SEGMENTS * few.ref_len and many.totals == tuple(FEW_SEGMENTS * t for t in few.totals)


def test_corpus_bleu_is_not_the_mean_of_sentence_bleu():
    refs = [CAT_REFS, ["it is a ship"]]
    hyps = ["the cat and the cat on the mat", "it is a ship"]
    corpus = bleu_lab.corpus_bleu(refs, hyps)
    mean = (bleu_lab.sentence_bleu(refs[0], hyps[0]) + bleu_lab.sentence_bleu(refs[1], hyps[1])) / 2
    assert not math.isclose(corpus, mean)


def test_strings_are_split_on_whitespace_never_scored_as_characters():
    assert bleu_lab.sentence_bleu(["the cat sat on the mat"], "the cat sat on the mat") == 1.0
    assert bleu_lab.sentence_bleu(["the cat sat on the mat"], "mat the on sat cat the") < 1e-70


def test_explain_agrees_with_both_front_doors():
    hyp = "The cat sat on the mat."
    nltk_view = bleu_lab.explain(CAT_REFS, hyp, smoothing="method1")
    assert nltk_view.score == bleu_lab.sentence_bleu(CAT_REFS, hyp, smoothing="method1")
    sacre_view = bleu_lab.explain(CAT_REFS, hyp, tokenize="13a", smoothing="exp")
    assert sacre_view.score == pytest.approx(bleu_lab.sentence_score(hyp, CAT_REFS).score / 100, rel=1e-12)
    assert [o.matches for o in sacre_view.orders] == list(bleu_lab.sentence_score(hyp, CAT_REFS).counts)


def test_explain_marks_clipped_occurrences():
    view = bleu_lab.explain(CAT_REFS, "the the the the the the the")
    assert view.orders[0].occurrences == ("match", "match") + ("clipped",) * 5
    assert view.token_levels() == [1, 1, 0, 0, 0, 0, 0]
    assert "p_1 = 2/7" in str(view)
