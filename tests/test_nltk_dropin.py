"""bleu_lab as a drop-in for nltk.translate.bleu_score: the calls nltk accepts give nltk's numbers (and warnings)."""

from __future__ import annotations

import doctest
import warnings
from pathlib import Path

import nltk
import numpy as np
import pytest
import sacrebleu
from nltk.translate import bleu_score as nltk_bleu
from nltk.translate.bleu_score import SmoothingFunction

import bleu_lab as bl

REFS = [
    "it is a guide to action that ensures that the military will forever heed party commands".split(),
    "it is the guiding principle which guarantees the military forces always being under the command of the party"
    .split(),
]
HYP = "it is a guide to action which ensures that the military always obeys the commands of the party".split()
SHORT = "the party commands".split()
NO_4GRAM = "the military always commands the guide of action".split()


def nltk_quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


def test_numpy_weights_are_accepted_as_nltk_accepts_them():
    weights = np.array([0.4, 0.3, 0.2, 0.1])
    assert bl.sentence_bleu(REFS, HYP, weights) == nltk_bleu.sentence_bleu(REFS, HYP, weights)
    assert bl.corpus_bleu([REFS, REFS], [HYP, SHORT], weights) == nltk_quiet(nltk_bleu.corpus_bleu, [REFS, REFS],
                                                                            [HYP, SHORT], weights)


@pytest.mark.parametrize(
    "weights",
    [
        [(0.5, 0.5), (1 / 3, 1 / 3, 1 / 3), (0.25, 0.25, 0.25, 0.25)],
        ((1.0,), (0.5, 0.5)),
        np.array([[0.25] * 4, [0.1, 0.2, 0.3, 0.4]]),
        [(0.25, 0.25, 0.25, 0.25)],  # one weighting in a list: nltk returns a single score
    ],
)
def test_several_weightings_give_one_score_each(weights):
    ours = bl.sentence_bleu(REFS, HYP, weights)
    theirs = nltk_bleu.sentence_bleu(REFS, HYP, weights)
    assert ours == theirs
    assert type(ours) is type(theirs)


@pytest.mark.parametrize("method", [f"method{i}" for i in range(8)])
@pytest.mark.parametrize("params", [{}, {"epsilon": 0.3, "alpha": 3, "k": 2}])
def test_nltk_smoothing_functions_are_accepted_and_exact(method, params):
    function = getattr(SmoothingFunction(**params), method)
    for hyp in (HYP, SHORT, NO_4GRAM):
        same_outcome(nltk_bleu.sentence_bleu, bl.sentence_bleu, REFS, hyp, smoothing_function=function)
        same_outcome(nltk_bleu.sentence_bleu, bl.sentence_bleu, REFS, hyp, (0.25,) * 4, function)  # positionally
    same_outcome(nltk_bleu.corpus_bleu, bl.corpus_bleu, [REFS] * 3, [NO_4GRAM, HYP, SHORT], smoothing_function=function)


def same_outcome(theirs, ours, *args, **kwargs):
    """The same score, or the same exception (nltk's own method6 asserts; called through bleu_lab it still does)."""
    try:
        expected = nltk_quiet(theirs, *args, **kwargs)
    except AssertionError:
        with pytest.raises(AssertionError):
            nltk_quiet(ours, *args, **kwargs)
        return
    assert nltk_quiet(ours, *args, **kwargs) == expected


def test_any_callable_with_nltks_protocol_works_and_a_bad_one_is_named():
    def halve_zeros(p_n, references, hypothesis, hyp_len):
        return [p if p > 0 else 0.5 / p.denominator for p in p_n]

    expected = nltk_bleu.sentence_bleu(REFS, NO_4GRAM, smoothing_function=halve_zeros)
    assert bl.sentence_bleu(REFS, NO_4GRAM, smoothing_function=halve_zeros) == expected
    with pytest.raises(TypeError, match="smoothing"):
        bl.sentence_bleu(REFS, NO_4GRAM, smoothing_function=print)
    with pytest.raises(TypeError, match="one number per n-gram order"):
        bl.sentence_bleu(REFS, NO_4GRAM, smoothing_function=lambda p_n, **kwargs: p_n[:2])
    with pytest.raises(TypeError, match="not both"):
        bl.sentence_bleu(REFS, HYP, smoothing="method1", smoothing_function=SmoothingFunction().method1)


def test_the_no_match_warning_is_nltks():
    with pytest.warns(UserWarning) as theirs:
        nltk_bleu.sentence_bleu(REFS, NO_4GRAM)
    with pytest.warns(bl.NoMatchWarning) as ours:
        bl.sentence_bleu(REFS, NO_4GRAM)
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]
    assert ours[0].filename == __file__  # it points at the caller's line, as a warning should
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bl.sentence_bleu(REFS, HYP)  # every order matches: no warning
        bl.sentence_bleu(REFS, NO_4GRAM, smoothing="method1")  # smoothed: no warning (nltk's method1 is silent)
        assert bl.sentence_bleu(REFS, "nothing here matches".split()) == 0  # no unigram: 0 before any warning


def test_references_may_be_any_iterable():
    expected = nltk_bleu.sentence_bleu(REFS, HYP)
    assert bl.sentence_bleu(reversed(REFS), HYP) == expected
    assert bl.sentence_bleu((ref for ref in REFS), HYP) == expected
    assert bl.corpus_bleu((refs for refs in [REFS, REFS]), [HYP, HYP]) == nltk_bleu.corpus_bleu([REFS, REFS],
                                                                                               [HYP, HYP])
    assert bl.closest_ref_length(reversed(REFS), len(HYP)) == nltk_bleu.closest_ref_length(REFS, len(HYP))


def test_numpy_string_tokens_score_like_plain_strings():
    tokens = list(np.array(["a", "b", "c", "d"]))
    assert list(map(lambda h: bl.sentence_bleu([h], h), [tokens] * 3)) == [1.0, 1.0, 1.0]
    assert bl.modified_precision([tokens], tokens, 2) == 1
    assert bl.sentence_score(tokens[0], [tokens[0]]).score == sacrebleu.sentence_bleu("a", ["a"]).score


def test_nltks_own_bleu_doctest_passes_with_only_the_import_changed():
    source = (Path(nltk.__file__).parent / "test" / "bleu.doctest").read_text(encoding="utf-8")
    changed = source.replace("from nltk.translate import bleu\n", "from bleu_lab import sentence_bleu as bleu\n")
    changed = changed.replace(
        "from nltk.translate.bleu_score import sentence_bleu,SmoothingFunction",
        "from bleu_lab import sentence_bleu; from nltk.translate.bleu_score import SmoothingFunction",
    )
    assert changed.count("bleu_lab") == 2
    test = doctest.DocTestParser().get_doctest(changed, {}, "bleu.doctest", None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = runner.run(test)
    assert result.attempted >= 4 and result.failed == 0
