"""Bad input fails early with a TypeError/ValueError that names the argument — never a bare crash or a silent number."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bleu_lab

REFS = ["the cat is on the mat"]


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: bleu_lab.sentence_bleu([], "the cat"), ValueError, "references is empty"),
        (lambda: bleu_lab.sentence_bleu(None, "the cat"), TypeError, "references"),
        (lambda: bleu_lab.sentence_bleu("the cat", "the cat"), TypeError, "wrap a single reference"),
        (lambda: bleu_lab.sentence_bleu(REFS, None), TypeError, "hypothesis"),
        (lambda: bleu_lab.sentence_bleu(REFS, b"the cat"), TypeError, "bytes"),
        (lambda: bleu_lab.sentence_bleu([None], "the cat"), TypeError, "references[0]"),
        (lambda: bleu_lab.sentence_bleu([["the", None]], "the cat"), TypeError, "references[0]"),
        (lambda: bleu_lab.sentence_bleu(REFS, ["the", 3]), TypeError, "hypothesis"),
        (lambda: bleu_lab.sentence_bleu(REFS, "the cat", weights=()), ValueError, "weights is empty"),
        (lambda: bleu_lab.sentence_bleu(REFS, "the cat", weights=(0.5, -0.5)), ValueError, "weights[1]"),
        (lambda: bleu_lab.sentence_bleu(REFS, "the cat", weights=(math.nan,)), ValueError, "weights[0]"),
        (lambda: bleu_lab.sentence_bleu(REFS, "the cat", weights=(math.inf,)), ValueError, "weights[0]"),
        (lambda: bleu_lab.sentence_bleu(REFS, "the cat", weights=[(0.5, 0.5), "ab"]), TypeError, "weights[1]"),
        (lambda: bleu_lab.sentence_bleu(REFS, "the cat", weights="0.25"), TypeError, "weights"),
        (lambda: bleu_lab.sentence_bleu(REFS, "the cat", smoothing="method9"), ValueError, "smoothing"),
        (lambda: bleu_lab.sentence_bleu(REFS, "the cat", smoothing=print), TypeError, "smoothing"),
        (lambda: bleu_lab.corpus_bleu([REFS], ["a", "b"]), ValueError, "has 1 and hypotheses has 2"),
        (lambda: bleu_lab.corpus_bleu(REFS, "the cat"), TypeError, "hypotheses"),
        (lambda: bleu_lab.ngrams("the cat", 0), ValueError, "n must be >= 1"),
        (lambda: bleu_lab.ngrams("the cat", 1.5), TypeError, "n must be an int"),
        (lambda: bleu_lab.modified_precision(REFS, "the cat", -1), ValueError, "n must be >= 1"),
        (lambda: bleu_lab.brevity_penalty(-1, 3), ValueError, "closest_ref_len"),
        (lambda: bleu_lab.brevity_penalty(3, -2), ValueError, "hyp_len"),
        (lambda: bleu_lab.closest_ref_length(REFS, -1), ValueError, "hyp_len"),
        (lambda: bleu_lab.sentence_score(None, REFS), TypeError, "hypothesis"),
        (lambda: bleu_lab.sentence_score("the cat", "the cat"), TypeError, "references"),
        (lambda: bleu_lab.sentence_score("the cat", []), ValueError, "references is empty"),
        (lambda: bleu_lab.sentence_score("the cat", [None]), TypeError, "references[0]"),
        (lambda: bleu_lab.sentence_score("the cat", REFS, tokenize="moses"), ValueError, "tokenize"),
        (lambda: bleu_lab.sentence_score("the cat", REFS, smooth_method="add-one"), ValueError, "smooth_method"),
        (lambda: bleu_lab.sentence_score("the cat", REFS, smooth_value=-1), ValueError, "smooth_value"),
        (lambda: bleu_lab.sentence_score("the cat", REFS, max_ngram_order=0), ValueError, "max_ngram_order"),
        (lambda: bleu_lab.corpus_score(["a", "b"], [REFS]), ValueError, "hypotheses has 2"),
        (lambda: bleu_lab.corpus_score(["a", "b"], [["x", "y"]]), ValueError, "transposed reference streams"),
        (lambda: bleu_lab.corpus_score(["a", None], [REFS, REFS]), TypeError, "hypotheses[1]"),
        (lambda: bleu_lab.corpus_score("a b", [REFS]), TypeError, "hypotheses"),
        (lambda: bleu_lab.corpus_score(["a"], [[]]), ValueError, "references[0] is empty"),
        (lambda: bleu_lab.tokenize(b"bytes"), TypeError, "bytes"),
        (lambda: bleu_lab.explain(REFS, "the cat", smoothing="nope"), ValueError, "smoothing"),
        (lambda: bleu_lab.explain(REFS, "the cat", smoothing="exp", weights=(0.7, 0.3)), ValueError, "uniform"),
    ],
)
def test_bad_input_gets_a_clear_error(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value)


def test_method6_without_trigram_matches_is_a_value_error_not_an_assertion():
    with pytest.raises(ValueError, match="method6"):
        bleu_lab.sentence_bleu(["the cat is on the mat"], "the cat sat", smoothing="method6")


def test_empty_hypothesis_scores_zero_everywhere():
    assert bleu_lab.sentence_bleu(REFS, "") == 0.0
    assert bleu_lab.sentence_bleu(REFS, [], smoothing="method4") == 0.0
    assert bleu_lab.sentence_score("", REFS).score == 0.0
    assert bleu_lab.corpus_score([""], [REFS]).score == 0.0
    assert bleu_lab.explain(REFS, "").score == 0.0
    assert bleu_lab.brevity_penalty(5, 0) == 0.0


def test_a_200k_token_sentence_scores():  # its speed is measured in benchmarks/, not here
    words = [f"w{i % 5000}" for i in range(200_000)]
    score = bleu_lab.sentence_bleu([words[::-1], words], words)
    assert score == 1.0
    assert bleu_lab.sentence_score(" ".join(words), [" ".join(words)]).score == pytest.approx(100.0)


# --- the contract around the numbers: flags, weights, references, statistics, corpora -----------------------------


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: bleu_lab.sentence_bleu(REFS, "the cat", auto_reweigh="no"), TypeError, "auto_reweigh must be True"),
        (lambda: bleu_lab.tokenize("The Cat", lowercase="False"), TypeError, "lowercase must be True or False"),
        (lambda: bleu_lab.explain(REFS, "the cat", lowercase=1), TypeError, "lowercase"),
        (lambda: bleu_lab.sentence_bleu(REFS, "the cat", weights=bytearray(b"\x01\x01")), TypeError, "weights"),
        (lambda: bleu_lab.sentence_bleu("the cat is on the mat".split(), "the cat"), ValueError, "wrap it"),
        (lambda: bleu_lab.explain(REFS, "the cat", smooth_value=0.1), ValueError, "smooth_value is an option"),
        (lambda: bleu_lab.explain(REFS, "the cat", effective_order=False), ValueError, "effective_order"),
        (lambda: bleu_lab.explain(REFS, "the cat", smoothing="exp", auto_reweigh=True), ValueError, "auto_reweigh"),
        (lambda: bleu_lab.corpus_bleu([], []), ValueError, "hypotheses is empty"),
        (lambda: bleu_lab.segment_stats("the cat", "the cat"), TypeError, "references"),
        (lambda: bleu_lab.segment_stats(REFS, "the cat", max_order=0), ValueError, "max_order"),
        (lambda: bleu_lab.corpus_stats([[["a"]]], [["a"], ["b"]]), ValueError, "list_of_references has 1"),
        (lambda: bleu_lab.corpus_stats([REFS], [None]), TypeError, "hypotheses[0]"),
        (lambda: bleu_lab.clip_counts(None, None), TypeError, "hypothesis_counts"),
        (lambda: bleu_lab.clip_counts(bleu_lab.count_ngrams("a b", 1), ["a"]), TypeError, "max_ref_counts"),
        (lambda: bleu_lab.load_corpus(""), ValueError, "unknown corpus ''"),
        (lambda: bleu_lab.load_corpus("../tests"), ValueError, "unknown corpus"),
        (lambda: bleu_lab.ModifiedPrecision(100, 8), ValueError, "clipped must be <= total"),
    ],
)
def test_the_contract_around_the_numbers(call, error, words):
    with pytest.raises(error) as raised:
        call()
    assert words in str(raised.value)


def test_an_unknown_corpus_is_named_without_a_path():
    from bleu_lab.data import corpus_dir

    for name in ("", "..", "../tests", "/etc"):
        with pytest.raises(ValueError) as raised:
            bleu_lab.load_corpus(name)
        assert str(corpus_dir()) not in str(raised.value) and "available: news" in str(raised.value)


def test_statistics_split_strings_like_sentence_bleu():
    split = bleu_lab.segment_stats(["the cat"], "the cat")
    assert (split.hyp_len, split.matches[:2]) == (2, (2, 1))  # words, not characters
    pooled = bleu_lab.corpus_stats(iter([["the cat"], ["a dog"]]), iter(["the cat", "a cat"]))
    assert pooled.segments == 2 and pooled.hyp_len == 4


def test_huge_weights_give_the_limit_or_a_clear_error():
    refs, hyp = ["the cat is on the mat"], "the cat is on a mat"
    assert bleu_lab.sentence_bleu(refs, hyp, (1e308,) * 4) == 0.0  # every log p_n <= 0: the limit is 0
    with pytest.raises(ValueError, match="weights are too large"):
        bleu_lab.sentence_bleu(refs, refs[0], (1e308,) * 4, "method5")  # nltk's method5 lifts p_1 above 1


def test_one_word_references_are_fine_outside_nltks_token_lists():
    from bleu_lab.course.widgets import model as wm

    assert bleu_lab.explain(["cat", "dog"], "cat", weights=(1.0,)).score == 1.0  # two one-word references
    assert wm.explain_texts("cat", ["cat", "dog"]).explanation is not None
    with pytest.raises(ValueError, match="wrap it"):
        bleu_lab.sentence_bleu(["cat", "dog"], "cat")  # nltk's front door: a tokenized reference without brackets


@pytest.mark.parametrize("which", ["baseline_hypotheses", "system_hypotheses"])
def test_paired_tests_name_the_system_whose_output_is_bad(which):
    good = ["the cat sat", "a dog ran"]
    kwargs = {"baseline_hypotheses": good, "system_hypotheses": good, "references": [["the cat"], ["a dog"]]}
    kwargs[which] = ["the cat sat", 3]
    for test in (bleu_lab.paired_bootstrap, bleu_lab.paired_randomization):
        with pytest.raises(TypeError, match=rf"{which}\[1\]"):
            test(**kwargs)


# --- files as the command line reads them (bleu_lab.data.read_lines) --------------------------------------------


def _gzip_variants() -> dict[str, bytes]:
    import gzip

    good = gzip.compress(b"hello world\n" * 1000)
    flipped = bytearray(good)
    flipped[30] ^= 0xFF
    return {"truncated": good[: len(good) // 2], "flipped bit": bytes(flipped), "not gzip": b"plain text\n",
            "bad checksum": good[:-8] + b"\0\0\0\0" + good[-4:], "garbage after": good + b"garbage"}


@pytest.mark.parametrize("name", list(_gzip_variants()))
def test_a_corrupt_gzip_file_is_a_value_error_naming_its_role(tmp_path, name):
    from bleu_lab.data import read_lines

    path = tmp_path / "ref.B.de.gz"
    path.write_bytes(_gzip_variants()[name])
    with pytest.raises(ValueError, match=r"^reference 2 file .*ref.B.de.gz is not a valid gzip file"):
        read_lines(path, "reference 2")


def test_line_and_byte_bounds_hold_even_for_a_line_without_end(tmp_path, monkeypatch):
    from bleu_lab import data

    monkeypatch.setattr(data, "MAX_SEGMENTS", 5)
    monkeypatch.setattr(data, "MAX_INPUT_BYTES", 1000)
    many, endless = tmp_path / "many.txt", tmp_path / "endless.txt"
    many.write_bytes(b"a\n" * 6)
    endless.write_bytes(b"x" * 5000)  # one line, no newline: read no further than the bound
    with pytest.raises(ValueError, match="hypothesis file .*many.txt has more than 5 lines: not a test set"):
        data.read_lines(many, "hypothesis")
    with pytest.raises(ValueError, match="reference file .*endless.txt is larger than 0 MB"):
        data.read_lines(endless, "reference")
    many.write_bytes(b"a\n" * 5)
    assert data.read_lines(many) == ["a"] * 5


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "b c", " ", "\r", "\n", "\r\n", "\t", "é", "\u2028", "\x0c"]), max_size=12))
def test_standard_input_splits_lines_as_sacrebleus_stdin_does(pieces):
    """sacrebleu's command line reads standard input as io.TextIOWrapper(sys.stdin.buffer) (universal newlines:
    '\\n', '\\r\\n' and a lone '\\r' end a line) and rstrips each line; files are split on '\\n' only."""
    import io
    from unittest import mock

    from bleu_lab.data import read_lines

    data = "".join(pieces).encode()
    theirs = [line.rstrip() for line in io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")]
    with mock.patch("sys.stdin", io.TextIOWrapper(io.BytesIO(data))):
        assert [line.rstrip() for line in read_lines("-")] == theirs
