"""bleu_lab's sacrebleu front door gives sacrebleu's numbers for every tokenizer x smoothing x case x order."""

from __future__ import annotations

import logging
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU

import bleu_lab
from bleu_lab import sacrebleu_style

logging.getLogger("sacrebleu").setLevel(logging.ERROR)

WORDS = ["The", "the", "cat", "Cat", "sat", "on", "mat", "dog's", "U.S.", "3.5", "co-op", "(it)", "don't", "a",
         "ship", ",", ".", "!", "猫", "在", "垫子上", "日本語", "Größe", "naïve", "—", "\"quoted\""]
TOKENIZERS = ["13a", "intl", "char", "zh", "none"]
SMOOTHERS = ["exp", "floor", "add-k", "none"]
segment = st.lists(st.sampled_from(WORDS), min_size=0, max_size=12).map(" ".join)
smooth_values = st.one_of(st.none(), st.floats(min_value=0.01, max_value=3.0), st.integers(1, 3))


def options(tokenize, lowercase, smooth_method, smooth_value, effective_order):
    return dict(tokenize=tokenize, lowercase=lowercase, smooth_method=smooth_method,
                smooth_value=smooth_value, effective_order=effective_order)


def assert_same_score(ours, theirs, metric, add_k: bool):
    assert math.isclose(ours.score, theirs.score, rel_tol=1e-9, abs_tol=1e-9), (ours.score, theirs.score)
    assert ours.sys_len == theirs.sys_len and ours.ref_len == theirs.ref_len
    assert ours.bp == pytest.approx(theirs.bp, rel=1e-12)
    assert list(ours.precisions) == pytest.approx(list(theirs.precisions), rel=1e-9, abs=1e-9)
    # the counts as sacrebleu reports them (under add-k with k added for n >= 2); the raw ones are in ours.stats
    assert list(ours.counts) == list(theirs.counts) and list(ours.totals) == list(theirs.totals)
    if add_k:
        assert ours.stats.matches[0] == ours.counts[0]
    assert ours.signature == metric.get_signature().format()


@given(segment, st.lists(segment, min_size=1, max_size=3), st.sampled_from(TOKENIZERS), st.booleans(),
       st.sampled_from(SMOOTHERS), smooth_values, st.booleans())
def test_sentence_score_equals_sacrebleu(hyp, refs, tok, lc, smooth, value, eff):
    opts = options(tok, lc, smooth, value, eff)
    metric = BLEU(**opts)
    theirs = metric.sentence_score(hyp, refs)
    assert_same_score(bleu_lab.sentence_score(hyp, refs, **opts), theirs, metric, smooth == "add-k")


@given(st.lists(st.tuples(segment, st.lists(segment, min_size=2, max_size=2)), min_size=1, max_size=20),
       st.sampled_from(TOKENIZERS), st.booleans(), st.sampled_from(SMOOTHERS), smooth_values, st.booleans())
def test_corpus_score_equals_sacrebleu(corpus, tok, lc, smooth, value, eff):
    hyps = [h for h, _ in corpus]
    refs = [r for _, r in corpus]
    opts = options(tok, lc, smooth, value, eff)
    metric = BLEU(**opts)
    theirs = metric.corpus_score(hyps, [list(s) for s in zip(*refs)])
    assert_same_score(bleu_lab.corpus_score(hyps, refs, **opts), theirs, metric, smooth == "add-k")


@given(st.lists(st.tuples(segment, st.lists(segment, min_size=1, max_size=3)), min_size=1, max_size=12))
def test_corpus_score_counted_chunk_by_chunk_equals_sacrebleu(corpus):
    hyps = [h for h, _ in corpus]
    refs = [r for _, r in corpus]
    streams = [[seg[i] if i < len(seg) else None for seg in refs] for i in range(max(map(len, refs)))]
    chunk = sacrebleu_style.CHUNK
    try:  # chunks of 3 segments, each tokenized and counted on its own
        sacrebleu_style.CHUNK = 3
        ours = bleu_lab.corpus_score(hyps, refs)
    finally:
        sacrebleu_style.CHUNK = chunk
    metric = BLEU()
    assert_same_score(ours, metric.corpus_score(hyps, streams), metric, add_k=False)


def test_variable_number_of_references_matches_sacrebleu_none_padding():
    hyps = ["the cat sat on the mat", "a dog", "it is a ship"]
    refs = [["the cat is on the mat", "a cat sat on the mat"], ["the dog"], ["it is a ship", "this is a ship"]]
    metric = BLEU()
    streams = [[seg[i] if i < len(seg) else None for seg in refs] for i in range(2)]
    theirs = metric.corpus_score(hyps, streams)
    ours = bleu_lab.corpus_score(hyps, refs)
    assert math.isclose(ours.score, theirs.score, rel_tol=1e-12)
    assert "nrefs:var" in ours.signature and ours.signature == metric.get_signature().format()


def test_deeplearning_ai_bleu_lab_nasa_rover_sentences():
    ref = "The NASA Opportunity rover is battling a massive dust storm on planet Mars."
    candidate_1 = "The Opportunity rover is combating a big sandstorm on planet Mars."
    candidate_2 = "A NASA rover is fighting a massive storm on planet Mars."
    assert round(bleu_lab.sentence_score(candidate_1, [ref]).score, 1) == 27.6
    assert round(bleu_lab.sentence_score(candidate_2, [ref]).score, 1) == 35.3


def test_short_hypothesis_libraries_disagree_and_each_front_door_follows_its_own():
    # "it is": no 3-gram or 4-gram. nltk divides by a phantom n-gram (0/1), sacrebleu by nothing (0/0).
    refs, hyp = ["it is a ship"], "it is"
    assert str(bleu_lab.modified_precision(refs, hyp, 3)) == "0/1"
    assert bleu_lab.sentence_score(hyp, refs, tokenize="none").totals == (2, 1, 0, 0)
    assert bleu_lab.corpus_score([hyp, "it is a ship"], [refs, refs], tokenize="none").totals == (6, 4, 2, 1)
    nltk_style = bleu_lab.corpus_bleu([refs, refs], [hyp, "it is a ship"])
    sacre_style = bleu_lab.corpus_score([hyp, "it is a ship"], [refs, refs], tokenize="none").score / 100
    assert nltk_style < sacre_style
