"""The exercise checks of lessons 08-09: worked solutions pass, typical mistakes get the specific message."""

from __future__ import annotations

import math
import random
import re
import runpy
import statistics
from pathlib import Path

import numpy as np
import pytest
import sacrebleu

import bleu_lab as bl
from bleu_lab.course.exercises import comparing_systems as ex9
from bleu_lab.course.exercises import corpus_bleu as ex8
from bleu_lab.metrics.significance import p_value_with_ties
from bleu_lab.sacrebleu_style import ScoreOptions, score_from_stats

SOLUTIONS = Path(__file__).resolve().parent.parent / "notebooks" / "solutions"


def solution(name: str) -> dict:
    """The namespace of a worked solution file (running it also runs its check)."""
    return runpy.run_path(str(SOLUTIONS / name))


def text(feedback) -> str:
    return "\n".join(feedback.messages)


@pytest.fixture(scope="module")
def news():
    return bl.load_corpus("news")


# --- lesson 08, exercise 1: corpus BLEU from per-segment statistics -------------------------------------------------


def total(stats):
    return sum(stats[1:], stats[0])


def test_corpus_cases_expected_scores_match_sacrebleu():
    for _, hyps, refs in ex8.CORPUS_CASES:
        streams = [list(s) for s in zip(*refs)]
        assert bl.corpus_score(list(hyps), [list(r) for r in refs]).score == pytest.approx(
            sacrebleu.corpus_bleu(list(hyps), streams).score, rel=1e-12)
        pooled = total(ex8.case_stats(hyps, refs))
        assert all(pooled.matches), "every pooled order has matches, so smoothing plays no part"


def test_corpus_bleu_solution_passes(news):
    my_corpus_bleu = solution("08_corpus_bleu.py")["my_corpus_bleu"]
    fb = ex8.check_corpus_bleu(my_corpus_bleu)
    assert fb.passed, fb
    refs = news.references_for("A")
    stats = [bl.corpus_score([h], [r]).stats for h, r in zip(news.systems["strong"], refs)]
    assert my_corpus_bleu(stats) == pytest.approx(bl.corpus_score(news.systems["strong"], refs).score, rel=1e-12)


def mean_of_segment_scores(stats):
    return statistics.mean(score_from_stats(s).score for s in stats)


def mean_of_sentence_scores(stats):
    return statistics.mean(score_from_stats(s, ScoreOptions(effective_order=True)).score for s in stats)


def without_bp(stats):
    score = score_from_stats(total(stats))
    return score.score / score.bp


def averaged_precisions(stats):
    score = score_from_stats(total(stats))
    means = [statistics.mean(100 * s.matches[n] / s.totals[n] for s in stats if s.totals[n]) for n in range(4)]
    return score.bp * math.exp(sum(map(math.log, means)) / 4)


def averaged_bp(stats):
    score = score_from_stats(total(stats))
    return score.score / score.bp * statistics.mean(score_from_stats(s).bp for s in stats)


def arithmetic_mean(stats):
    score = score_from_stats(total(stats))
    return score.bp * statistics.mean(score.precisions)


def upside_down_bp(stats):
    t = total(stats)
    score = score_from_stats(t)
    return score.score / score.bp * math.exp(1 - t.hyp_len / t.ref_len)


def nltk_denominators(stats):
    t = total(stats)
    precisions = [100 * m / d for m, d in zip(t.matches, t.nltk_denominators)]
    return score_from_stats(t).bp * math.exp(sum(map(math.log, precisions)) / 4)


@pytest.mark.parametrize(
    ("func", "message"),
    [
        (mean_of_segment_scores, "mean of the segments' BLEU scores"),
        (mean_of_sentence_scores, "mean of sentence BLEU (with effective order"),
        (lambda stats: score_from_stats(total(stats)).score / 100, "0–1 scale"),
        (without_bp, "left out the brevity penalty"),
        (averaged_precisions, "averaged each segment's p_n"),
        (averaged_bp, "averaged the segments' brevity penalties"),
        (arithmetic_mean, "arithmetic mean"),
        (upside_down_bp, "upside down"),
        (nltk_denominators, "nltk's denominators"),
        (lambda stats: 42.0, "Sum the statistics"),
    ],
)
def test_corpus_bleu_mistakes_get_their_message(func, message):
    fb = ex8.check_corpus_bleu(func)
    assert not fb.passed
    assert message in text(fb)


def test_corpus_bleu_bad_answers():
    assert "pass your function itself" in text(ex8.check_corpus_bleu(3))
    assert "as a number" in text(ex8.check_corpus_bleu(lambda stats: "57"))
    raised = ex8.check_corpus_bleu(lambda stats: 1 / 0)
    assert "ZeroDivisionError" in text(raised) and "segment_stats (a list of 2 BleuStats)" in text(raised)
    as_score = ex8.check_corpus_bleu(lambda stats: score_from_stats(total(stats)))
    assert as_score.passed  # a BleuScore is read as its .score


# --- lesson 08, exercise 2: why the mean differs --------------------------------------------------------------------


def test_why_solution_passes():
    assert ex8.check_why_mean_differs(solution("08_why_mean_differs.py")["answer"]).passed


@pytest.mark.parametrize("answer", ["ABC", "a, b, c", ["A", "B", "C"], {"c", "b", "a"}])
def test_why_answer_formats(answer):
    assert ex8.check_why_mean_differs(answer).passed


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (set(), "write the letters"),
        (..., "write the letters"),
        ("AB", "you found 2 of the 3 right letters"),
        ("A", "you found 1 of the 3 right letters"),
        ("ABCD", "1 of the letters you chose is wrong"),
        ("ABCDE", "2 of the letters you chose are wrong"),
        ("ABCZ", "no statement Z"),
    ],
)
def test_why_wrong_answers(answer, message):
    fb = ex8.check_why_mean_differs(answer)
    assert not fb.passed
    assert message in text(fb)


def test_why_a_wrong_answer_does_not_name_the_letters():
    fb = ex8.check_why_mean_differs("ABCDEF")  # "all of them" must not give the answer away
    assert not fb.passed and not re.search(r"\b[A-F]\b", text(fb))


def test_why_statements_are_printed():
    lines = ex8.why_statements_text().splitlines()
    assert [line[0] for line in lines] == list(ex8.WHY_STATEMENTS)


# --- lesson 08, exercise 3: references without the empty-line trap --------------------------------------------------


def test_reference_lists_solution_passes(news):
    namespace = solution("08_reference_lists.py")
    assert namespace["my_references"] == news.references
    fb = ex8.check_reference_lists(namespace["my_references"])
    assert fb.passed, fb
    assert "nrefs:var" in text(fb)


def test_reference_lists_trap(news):
    a, b = news.reference_streams["A"], news.reference_streams["B"]
    fb = ex8.check_reference_lists([[x, y] for x, y in zip(a, b)])
    assert not fb.passed
    trapped = sacrebleu.corpus_bleu(news.systems["degraded"], [a, b]).score
    right = bl.corpus_score(news.systems["degraded"], news.references).score
    assert "segment 61 has an empty reference" in text(fb)
    assert f"degraded: {trapped:.1f} instead of {right:.1f}" in text(fb)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda a, b: [a, b], "one list per reference FILE"),
        (lambda a, b: [[x] for x in a], "segment 1 lacks the reference"),
        (lambda a, b: [[x] for x in a[:60]], "there are 160 segments"),
        (lambda a, b: [[x, y] if y else [] for x, y in zip(a, b)], "segment 61 has no reference at all"),
        (lambda a, b: [x for x in a], "must be a list of reference strings"),
        (lambda a, b: [[x.upper()] + ([y] if y else []) for x, y in zip(a, b)], "segment 1 lacks the reference"),
    ],
)
def test_reference_lists_mistakes(news, build, message):
    fb = ex8.check_reference_lists(build(news.reference_streams["A"], news.reference_streams["B"]))
    assert not fb.passed
    assert message in text(fb)


def test_reference_lists_not_a_list():
    assert "one list of reference strings per segment" in text(ex8.check_reference_lists("ref.A.de"))


# --- lesson 09, exercise 1: the randomization p-value ---------------------------------------------------------------


def test_ar_cases_expected_values():
    expected = [p_value_with_ties(np.asarray(g), o) for _, g, o in ex9.AR_CASES]
    assert expected == pytest.approx([5 / 10, 4 / 6, 1 / 5, 4 / 4])


def test_ar_solution_passes():
    my_ar_p_value = solution("09_ar_p_value.py")["my_ar_p_value"]
    assert ex9.check_ar_p_value(my_ar_p_value).passed
    corpus = bl.load_corpus("news")
    refs = corpus.references_for("A")
    result = bl.paired_randomization(corpus.systems["degraded"], corpus.systems["fluent"], refs, n_trials=500)
    assert my_ar_p_value(result.trial_differences, abs(result.difference)) == result.p_value
    changed = list(corpus.systems["strong"])  # a one-sentence change: every trial ties, the default p is 1
    changed[5] = corpus.systems["degraded"][5]
    ties = bl.paired_randomization(corpus.systems["strong"], changed, refs, n_trials=300)
    assert my_ar_p_value(ties.trial_differences, abs(ties.difference)) == ties.p_value == 1.0


@pytest.mark.parametrize(
    ("func", "message"),
    [
        (lambda d, o: np.mean(d > o), "itself one of the possible shuffles"),
        (lambda d, o: (np.sum(d > o) + 1) / len(d), "denominator is n + 1"),
        (lambda d, o: (np.sum(d <= o) + 1) / (len(d) + 1), "SMALLER gap"),
        (lambda d, o: int(np.sum(d > o)), "That is a count"),
        (lambda d, o: d > o, "as a number"),
        (lambda d, o: np.mean(d >= o), "itself one of the possible shuffles"),
        (lambda d, o: (np.sum(d > o) + 1) / (len(d) + 1), "left out the trials that tie the observed gap"),
        (lambda d, o: 0.5, "at least as large"),
        (lambda d, o: None, "return the p-value as a number, not NoneType"),  # the skeleton
    ],
)
def test_ar_mistakes(func, message):
    fb = ex9.check_ar_p_value(func)
    assert not fb.passed
    assert message in text(fb)
    assert "(4 + 1)" not in text(fb) and "5 / 10" not in text(fb)  # a hint, never the worked answer
    assert "(count + 1) / (n + 1)" not in text(fb)  # nor the formula, on a first try


@pytest.mark.parametrize("func", [lambda d, o: np.mean(d > o), lambda d, o: int(np.sum(d > o))])
def test_ar_formula_only_after_a_first_wrong_try(func):
    first = ex9.check_ar_p_value(func)
    assert "(count + 1) / (n + 1)" not in text(first)
    second = ex9.check_ar_p_value(func)
    assert not second.passed and "(count + 1) / (n + 1)" in text(second)


def test_ar_formula_on_request_after_a_try():
    fb = ex9.check_ar_p_value(lambda d, o: np.mean(d > o), reveal=True)
    assert not fb.passed and "(count + 1) / (n + 1)" in text(fb)


@pytest.mark.parametrize(
    "func",
    [
        lambda d, o: (np.sum(d >= o) + 1) / (len(d) + 1),
        lambda d, o: (sum(1 for g in d if g >= o) + 1) / (len(d) + 1),  # a plain loop, a Python float
        lambda d, o: np.float64(np.count_nonzero(d >= o) + 1) / (d.size + 1),
    ],
)
def test_ar_ties_counted_passes_in_any_form(func):
    fb = ex9.check_ar_p_value(func)
    assert fb.passed
    assert "Noreen (1989) and Riezler & Maxwell (2005)" in text(fb)


def test_ar_sacrebleus_strict_count_fails_only_on_ties():
    """sacrebleu's '>' is right on every case without a tie, and gets the ties hint on the one with ties."""
    fb = ex9.check_ar_p_value(lambda d, o: (np.sum(d > o) + 1) / (len(d) + 1))
    assert not fb.passed and len(fb.messages) == 1 and "case ties" in fb.messages[0]
    for seed in range(5):  # the hidden cases drawn at grading time always hold a case with ties
        hidden = ex9.check_ar_p_value(lambda d, o: (np.sum(d > o) + 1) / (len(d) + 1),
                                      **ex9.hidden_ar_cases(random.Random(seed)))
        assert not hidden.passed and "tie" in text(hidden)


def test_ar_not_callable_and_raising():
    assert "pass your function itself" in text(ex9.check_ar_p_value(0.5))
    assert "ZeroDivisionError" in text(ex9.check_ar_p_value(lambda d, o: 1 / 0))


# --- lesson 09, exercise 2: a bootstrap and its reading -------------------------------------------------------------


def test_bootstrap_solution_passes():
    namespace = solution("09_bootstrap_interpretation.py")
    fb = ex9.check_bootstrap_interpretation(namespace["result"], namespace["answer"])
    assert fb.passed, fb
    assert "p = 0.1409" in text(fb)  # method="shift", the defaults: 1000 resamples, seed 12345


def test_bootstrap_expected_run_equals_sacrebleu_numbers(news):
    expected = ex9.expected_bootstrap(news)
    assert expected.baseline.score == pytest.approx(sacrebleu.corpus_bleu(news.systems["degraded"],
                                                                          [news.reference_streams["A"]]).score)
    assert expected.p_value > 0.05  # so that reading C is the right one


def test_bootstrap_right_reading_is_not_the_longest():
    lengths = {letter: len(reading) for letter, (reading, _, _) in ex9.INTERPRETATIONS.items()}
    right = next(letter for letter, (_, correct, _) in ex9.INTERPRETATIONS.items() if correct)
    assert lengths[right] < max(lengths.values())


@pytest.mark.parametrize("letter", ["A", "B", "D"])
def test_bootstrap_wrong_readings(news, letter):
    fb = ex9.check_bootstrap_interpretation(ex9.expected_bootstrap(news), letter)
    assert not fb.passed
    assert f"{letter} is not right" in text(fb)


def test_bootstrap_answer_is_case_insensitive(news):
    assert ex9.check_bootstrap_interpretation(ex9.expected_bootstrap(news), " c ").passed


def test_bootstrap_run_mistakes(news):
    refs = news.references_for("A")
    degraded, fluent = news.systems["degraded"], news.systems["fluent"]
    swapped = ex9.check_bootstrap_interpretation(bl.paired_bootstrap(fluent, degraded, refs), "C")
    assert "swapped the two systems" in text(swapped)
    fewer = ex9.check_bootstrap_interpretation(bl.paired_bootstrap(degraded, fluent, refs, n_samples=200,
                                                                   method="shift"), "C")
    assert "keep the defaults" in text(fewer)
    sacrebleus = ex9.check_bootstrap_interpretation(bl.paired_bootstrap(degraded, fluent, refs), "C")
    assert "method='shift'" in text(sacrebleus)
    other = ex9.check_bootstrap_interpretation(bl.paired_bootstrap(degraded, news.systems["strong"], refs), "C")
    assert "your scores are" in text(other)
    missing = ex9.check_bootstrap_interpretation(None, "")
    assert "result must be what bl.paired_bootstrap" in text(missing) and "one letter" in text(missing)


# --- lesson 09, exercise 3: Bonferroni -------------------------------------------------------------------------------


def test_bonferroni_solution_passes():
    assert ex9.check_bonferroni(solution("09_bonferroni.py")["my_bonferroni"]).passed


@pytest.mark.parametrize(
    ("func", "message"),
    [
        (lambda p, a: [k for k, v in p.items() if v < a], "You tested each comparison at alpha"),
        (lambda p, a: [k for k, v in p.items() if v < a * len(p)], "don't multiply"),
        (lambda p, a: [k for k, v in p.items() if v >= a / len(p)], "NOT significant"),
        (lambda p, a: [v for v in p.values() if v < a / len(p)], "the dictionary keys"),
        (lambda p, a: None, "return the names"),
        (lambda p, a: "A vs B", "return the names"),
        (lambda p, a: [], "The threshold is alpha / m"),
    ],
)
def test_bonferroni_mistakes(func, message):
    fb = ex9.check_bonferroni(func)
    assert not fb.passed
    assert message in text(fb)


def _bonferroni_right(p, a):
    return [k for k, v in p.items() if v < a / len(p)]


def _one_too_few(p, a):  # alpha / (m - 1): a loop or an index that leaves one comparison out of m
    return [k for k, v in p.items() if v < a / (len(p) - 1)]


def _holm(p, a):
    return [k for k, adjusted in zip(p, bl.metrics.significance.holm_adjusted(list(p.values()))) if adjusted <= a]


@pytest.mark.parametrize("seed", [None, *range(40)])
def test_bonferroni_every_case_set_tells_alpha_over_m_minus_1_and_holm_apart(seed):
    cases = {} if seed is None else ex9.hidden_bonferroni_cases(random.Random(seed))
    if seed is not None:  # every hidden case has a p strictly between alpha / m and alpha / (m - 1)
        assert all(any(a / len(p) < v < a / (len(p) - 1) for v in p.values()) for _, p, a in cases["cases"])
        assert all(v != a / len(p) for _, p, a in cases["cases"] for v in p.values())
    slip = ex9.check_bonferroni(_one_too_few, **cases)
    assert not slip.passed and "count the comparisons again" in text(slip)
    assert "/ (m - 1)" not in text(slip) and "alpha / (m" not in text(slip)
    for form in (_bonferroni_right, lambda p, a: set(_bonferroni_right(p, a)),
                 lambda p, a: tuple(_bonferroni_right(p, a)), lambda p, a: (k for k in _bonferroni_right(p, a)),
                 lambda p, a: np.array(_bonferroni_right(p, a)),
                 lambda p, a: {k: p[k] for k in _bonferroni_right(p, a)}):
        assert ex9.check_bonferroni(form, **cases).passed


def test_bonferroni_a_holm_answer_is_named_and_rejected():
    fb = ex9.check_bonferroni(_holm)
    assert not fb.passed and "Holm's step-down procedure" in text(fb)


def test_bonferroni_raising_and_not_callable():
    assert "ZeroDivisionError" in text(ex9.check_bonferroni(lambda p, a: 1 / 0))
    assert "pass your function itself" in text(ex9.check_bonferroni([]))


def test_bonferroni_cases_have_no_exact_ties():
    for _, p_values, alpha in ex9.BONFERRONI_CASES:
        assert all(p != alpha / len(p_values) for p in p_values.values())


def test_multiple_choice_right_options_are_never_the_longest():
    for choices in (ex9.INTERPRETATIONS, ex8.WHY_STATEMENTS):
        longest = max(choices, key=lambda letter: len(choices[letter][0]))
        assert not choices[longest][1], f"the longest option {longest} is a right one"
