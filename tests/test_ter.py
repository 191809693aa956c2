"""bleu_lab.metrics.ter is sacrebleu's TER with bleu_lab's input checks: same scores, sentence and corpus, clear
errors."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sacrebleu.metrics import TER

from bleu_lab.metrics.ter import corpus_ter, rows_score, sentence_ter, system_rows

WORDS = st.sampled_from(["the", "The", "cat", "sat", "on", "mat", "a", "dog", "Hitzewelle", "warnung", "x", "cat.",
                         "!", ",", "naïve", "日本"])
SENTENCE = st.lists(WORDS, min_size=0, max_size=12).map(" ".join)


@given(hyp=SENTENCE, refs=st.lists(SENTENCE, min_size=1, max_size=3))
def test_sentence_ter_is_sacrebleus(hyp, refs):
    theirs = TER().sentence_score(hyp, refs)
    ours = sentence_ter(hyp, refs)
    assert math.isclose(ours.score, theirs.score, rel_tol=1e-12, abs_tol=1e-12)
    assert (ours.edits, ours.ref_length) == (theirs.num_edits, theirs.ref_length)


@given(segments=st.lists(st.tuples(SENTENCE, SENTENCE, SENTENCE), min_size=1, max_size=6))
def test_corpus_ter_is_sacrebleus(segments):
    hyps = [h for h, _, _ in segments]
    streams = [[a for _, a, _ in segments], [b for _, _, b in segments]]
    theirs = TER().corpus_score(hyps, streams)
    ours = corpus_ter(hyps, [list(seg) for seg in zip(*streams)])
    assert (ours.score, ours.edits, ours.ref_length) == (theirs.score, theirs.num_edits, theirs.ref_length)


@given(segments=st.lists(st.tuples(SENTENCE, SENTENCE, st.one_of(st.none(), SENTENCE)), min_size=1, max_size=6),
       other=st.lists(SENTENCE, min_size=6, max_size=6))
def test_system_rows_are_sacrebleus_statistics_for_every_system(segments, other):
    """One TER object per comparison, references tokenized once: each system's rows are what sacrebleu's paired tests
    extract (``_extract_corpus_statistics``), a missing reference (None) left out as sacrebleu leaves it out."""
    hyps = [h for h, _, _ in segments]
    streams = [[a for _, a, _ in segments], [b for _, _, b in segments]]
    per_segment = [[r for r in seg if r is not None] for seg in zip(*streams)]
    rows = system_rows({"a": hyps, "b": other[:len(hyps)]}, per_segment)
    for name, lines in (("a", hyps), ("b", other[:len(hyps)])):
        theirs_rows = TER()._extract_corpus_statistics(lines, streams)
        assert rows[name].tolist() == [[float(e), float(r)] for e, r in theirs_rows]
        theirs = TER().corpus_score(lines, streams)
        ours = rows_score(rows[name], "var")
        assert (ours.score, ours.edits, ours.ref_length) == (theirs.score, theirs.num_edits, theirs.ref_length)


def test_a_shift_moves_a_block_for_one_edit():
    result = sentence_ter("warning issued heatwave", ["heatwave warning issued"])
    assert result.edits == 1 and result.score == pytest.approx(100 / 3)
    assert str(result) == "TER = 33.33  (1 edits / 3 reference words)"


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: sentence_ter(None, ["a"]), TypeError, "hypothesis"),
        (lambda: sentence_ter("a", "a"), TypeError, "wrap a single reference"),
        (lambda: sentence_ter("a", []), ValueError, "references is empty"),
        (lambda: corpus_ter(["a", "b"], [["a"]]), ValueError, "one entry per segment"),
        (lambda: corpus_ter(["a"], [[]]), ValueError, "references[0] is empty"),
        (lambda: sentence_ter("a " * 501, ["a"]), ValueError, "hypothesis has 501 words; TER takes at most 500"),
        (lambda: corpus_ter(["a"], [["b", "a " * 600]]), ValueError, "references[0][1] has 600 words"),
    ],
)
def test_bad_input_gets_a_clear_error(call, error, words):
    with pytest.raises(error, match=words.replace("[", r"\[").replace("]", r"\]")):
        call()
