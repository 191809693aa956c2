"""chrF and chrF++ equal sacrebleu's CHRF on generated text, every option; and the official WMT21 chrF table."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sacrebleu.metrics import CHRF
from test_real_data import REFS, SAMPLE, load, official_scores

import bleu_lab as bl
from bleu_lab.metrics.chrf import ChrfOptions, chrf_words, corpus_statistics, f_score, segment_statistics

WORDS = st.sampled_from(["the", "cat", "sat", "on", "mat", "Mat", "a", "dog", "Hitzewelle", "warnung", "x",
                         "cat.", "(mat", "!", ",", "—", "naïve", "日本", "é"])
SENTENCE = st.lists(WORDS, min_size=0, max_size=12).map(" ".join) | st.text(max_size=25)
OPTIONS = st.fixed_dictionaries({
    "char_order": st.integers(1, 6), "word_order": st.integers(0, 2), "beta": st.integers(0, 3),
    "lowercase": st.booleans(), "whitespace": st.booleans(), "eps_smoothing": st.booleans(),
})


def close(ours: float, theirs: float) -> bool:
    return math.isclose(ours, theirs, rel_tol=1e-9, abs_tol=1e-12)


@given(hyp=SENTENCE, refs=st.lists(SENTENCE, min_size=1, max_size=3), options=OPTIONS)
def test_sentence_chrf_is_sacrebleus(hyp, refs, options):
    theirs = CHRF(**options).sentence_score(hyp, refs)
    ours = bl.sentence_chrf(hyp, refs, **options)
    assert close(ours.score, theirs.score), (ours.score, theirs.score)


@given(segments=st.lists(st.tuples(SENTENCE, st.lists(SENTENCE, min_size=1, max_size=4)), min_size=1, max_size=12),
       options=OPTIONS)
def test_corpus_statistics_add_up_segment_statistics(segments, options):
    # the fast corpus path against the readable one, segment by segment, any number of references per segment
    opts = ChrfOptions(**options)
    expected = [sum(col) for col in zip(*(segment_statistics(h, refs, opts) for h, refs in segments))]
    hyps, refs = [h for h, _ in segments], [refs for _, refs in segments]
    assert corpus_statistics(hyps, refs, opts) == expected
    chunk = bl.metrics.chrf.CHUNK
    try:  # several chunks of 5 segments add up the same
        bl.metrics.chrf.CHUNK = 5
        assert corpus_statistics(hyps, refs, opts) == expected
    finally:
        bl.metrics.chrf.CHUNK = chunk


def test_lone_surrogates_are_characters_like_any_other():
    # text read with errors="surrogateescape" keeps undecodable bytes as lone surrogates
    hyp, ref = "caf\udce9 au lait", "caf\udce9 noir"
    assert bl.corpus_chrf([hyp], [[ref]]).score == bl.corpus_chrf(["café au lait"], [["café noir"]]).score


@given(segments=st.lists(st.tuples(SENTENCE, SENTENCE, SENTENCE), min_size=1, max_size=12), options=OPTIONS)
def test_corpus_chrf_is_sacrebleus(segments, options):
    hyps = [h for h, _, _ in segments]
    streams = [[a for _, a, _ in segments], [b for _, _, b in segments]]
    metric = CHRF(**options)
    theirs = metric.corpus_score(hyps, streams)
    ours = bl.corpus_chrf(hyps, [list(seg) for seg in zip(*streams)], **options)
    assert close(ours.score, theirs.score)
    assert ours.signature == metric.get_signature().format()
    assert ours.name == theirs.name and str(ours) == f"{theirs.name} = {theirs.score:.2f}"


def test_a_german_compound_earns_chrf_where_bleu_gets_nothing():
    ref, hyp = "Hitzewellenwarnung herausgegeben", "Warnung vor Hitzewelle herausgegeben"
    assert bl.sentence_chrf(hyp, [ref]).score > 40
    assert bl.sentence_score(hyp, [ref]).counts[1] == 0  # no word bigram in common


def test_punctuation_is_split_off_one_end_of_a_word():
    assert chrf_words("Hello, world! (yes) a. (no") == ["Hello", ",", "world", "!", "(yes", ")", "a", ".", "(", "no"]


def test_f_score_of_no_ngrams_is_zero():
    options = ChrfOptions(char_order=2)
    assert f_score([0] * 6, options) == 0.0


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: bl.sentence_chrf(None, ["a"]), TypeError, "hypothesis"),
        (lambda: bl.sentence_chrf("a", "a"), TypeError, "wrap a single reference"),
        (lambda: bl.sentence_chrf("a", []), ValueError, "references is empty"),
        (lambda: bl.sentence_chrf("a", [None]), TypeError, "references[0]"),
        (lambda: bl.sentence_chrf("a", ["a"], char_order=0), ValueError, "char_order"),
        (lambda: bl.sentence_chrf("a", ["a"], word_order=-1), ValueError, "word_order"),
        (lambda: bl.sentence_chrf("a", ["a"], beta=1.5), TypeError, "beta"),
        (lambda: bl.sentence_chrf("a", ["a"], lowercase="yes"), TypeError, "lowercase"),
        (lambda: bl.corpus_chrf(["a", "b"], [["a"]]), ValueError, "one entry per segment"),
    ],
)
def test_bad_input_gets_a_clear_error(call, error, words):
    with pytest.raises(error, match=words.replace("[", r"\[").replace("]", r"\]")):
        call()


@pytest.mark.parametrize("pair,system", SAMPLE)
def test_corpus_chrf_reproduces_official_wmt21_chrf(mtdata, pair, system):
    table = official_scores(mtdata)
    ref_sets = list(REFS[pair]) + ([REFS[pair]] if len(REFS[pair]) > 1 else [])
    for refs in ref_sets:
        metric = f"chrf-{refs}" if len(refs) == 1 else "chrf-all"
        hyps, references = load(mtdata, pair, system, refs)
        ours = bl.corpus_chrf(hyps, references)
        assert math.isclose(ours.score, table[(pair, system, metric)], abs_tol=1e-9), (pair, system, metric)
