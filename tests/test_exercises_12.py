"""The exercise checks of lesson 12: worked solutions pass in every form, typical mistakes get their hint (never the
answer), hidden cases are fair, the multiple-choice statements are true to the numbers, written answers are never
endorsed when negated."""

from __future__ import annotations

import math
import runpy
from fractions import Fraction
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
import scipy.stats

from bleu_lab.assignments.grade import hidden_rng
from bleu_lab.course.exercises import metrics_and_people as ex12
from bleu_lab.metrics.published_scores import load_mqm_segments, load_segment_metrics, load_system_scores

SOLUTIONS = Path(__file__).resolve().parent.parent / "notebooks" / "solutions"
LESSON = "12_metrics_and_people"


def solution(name: str) -> dict:
    return runpy.run_path(str(SOLUTIONS / name))


def text(feedback) -> str:
    return "\n".join(feedback.messages)


def _counts(x, y):
    pairs = list(combinations(range(len(x)), 2))
    signs = [np.sign(x[i] - x[j]) * np.sign(y[i] - y[j]) for i, j in pairs]
    c, d = sum(s > 0 for s in signs), sum(s < 0 for s in signs)
    tx, ty = sum(x[i] == x[j] for i, j in pairs), sum(y[i] == y[j] for i, j in pairs)
    both = sum(x[i] == x[j] and y[i] == y[j] for i, j in pairs)
    return c, d, tx, ty, both, len(pairs)


# --- exercise 1: Kendall's tau-b ------------------------------------------------------------------------------------


def scipy_tau(x, y):
    return scipy.stats.kendalltau(x, y).statistic


@pytest.mark.parametrize("func", [
    lambda x, y: scipy_tau(x, y),  # the peer
    lambda x, y: np.float32(scipy_tau(x, y)),  # a numpy scalar of another width
    lambda x, y: np.array(scipy_tau(x, y)),  # a 0-d array
    lambda x, y: Fraction(scipy_tau(x, y)).limit_denominator(10**9),
])
def test_every_correct_form_passes_visible_and_hidden_cases(func):
    assert ex12.check_kendall_tau(func).passed
    for seed in (0, 1, 2):
        cases = ex12.hidden_tau_cases(hidden_rng(seed, LESSON, "my_kendall_tau"))
        assert ex12.check_kendall_tau(func, **cases).passed, seed


def test_the_solution_passes_and_the_cases_have_ties():
    assert ex12.check_kendall_tau(solution("12_kendall_tau.py")["my_kendall_tau"]).passed
    assert any(len(set(y)) < len(y) for _, _, y in ex12.TAU_CASES)
    assert any(len(set(x)) < len(x) and len(set(y)) < len(y) for _, x, y in ex12.TAU_CASES)


def _tau_a(x, y):
    c, d, *_, pairs = _counts(x, y)
    return (c - d) / pairs


def _tau_untied(x, y):
    c, d, *_ = _counts(x, y)
    return (c - d) / (c + d)


def _acc_eq(x, y):
    c, _, _, _, both, pairs = _counts(x, y)
    return (c + both) / pairs


@pytest.mark.parametrize("wrong,words", [
    (_tau_a, "That is tau_a"),
    (_tau_untied, "left out every tied pair"),
    (_acc_eq, "pairwise accuracy"),
    (lambda x, y: -scipy_tau(x, y), "sign is flipped"),
    (lambda x, y: 0.0, "Count every pair"),
    (lambda x, y: "0.5", "return tau as a number"),
    (lambda x, y: 1 / 0, "ZeroDivisionError"),
])
def test_kendall_tau_slips_get_their_hint_and_never_the_answer(wrong, words):
    fb = ex12.check_kendall_tau(wrong)
    assert not fb.passed and words in text(fb), text(fb)
    echoed = text(fb)
    for _, x, y in ex12.TAU_CASES:  # the student's own numbers are shown back; the right ones never
        try:
            echoed = echoed.replace(f"your tau {float(wrong(x, y)):+.4f}", "")
        except (ValueError, ZeroDivisionError):
            pass
    for _, x, y in ex12.TAU_CASES:
        assert f"{scipy_tau(x, y):+.4f}" not in echoed


def test_hidden_tau_cases_differ_by_seed_and_have_tied_mqm():
    first = ex12.hidden_tau_cases(hidden_rng(0, LESSON, "my_kendall_tau"))["cases"]
    second = ex12.hidden_tau_cases(hidden_rng(1, LESSON, "my_kendall_tau"))["cases"]
    assert first != second
    assert all(len(set(y)) > 1 for _, _, y in first)  # tau_b is defined
    assert any(len(set(y)) < len(y) for _, _, y in first)


def test_an_answer_hard_coded_for_the_visible_cases_fails_the_hidden_ones():
    table = {(tuple(x), tuple(y)): scipy_tau(x, y) for _, x, y in ex12.TAU_CASES}
    def hard_coded(x, y):
        return table.get((tuple(x), tuple(y)), 0.0)
    assert ex12.check_kendall_tau(hard_coded).passed
    assert not ex12.check_kendall_tau(hard_coded, **ex12.hidden_tau_cases(hidden_rng(0, LESSON, "x"))).passed


# --- exercise 2: surprises ------------------------------------------------------------------------------------------


def test_surprises_solution_passes_visible_and_hidden_cases_in_every_form():
    func = solution("12_surprises.py")["my_surprises"]
    assert ex12.check_surprises(func).passed
    for form in (lambda h, lo: [h, lo], lambda h, lo: (str(h), np.int64(lo)), lambda h, lo: np.array([h, lo])):
        assert ex12.check_surprises(lambda b, m, f=form: f(*func(b, m))).passed
    for seed in (0, 1, 2):
        cases = ex12.hidden_surprise_cases(hidden_rng(seed, LESSON, "my_surprises"))
        assert ex12.check_surprises(func, **cases).passed, seed


def test_surprises_are_the_segments_the_lesson_names():
    _, bleu, mqm = ex12.system_case("Online-W")
    high, low = ex12.expected_surprises(bleu, mqm)
    assert high == {611} and mqm[611] == -7.0 and low == {2}


@pytest.mark.parametrize("wrong,words", [
    (lambda b, m: (max(b, key=b.get), min((s for s in b if m[s] == 0), key=b.get)), "highest BLEU of ALL segments"),
    (lambda b, m: (min((s for s in b if m[s] <= -5), key=b.get), min((s for s in b if m[s] == 0), key=b.get)),
     "LOWEST BLEU among the major errors"),
    (lambda b, m: (max((s for s in b if m[s] <= -5), key=b.get), max((s for s in b if m[s] == 0), key=b.get)),
     "HIGHEST BLEU among the segments without error"),
    (lambda b, m: (max((s for s in b if -5 < m[s] < 0), key=b.get), min((s for s in b if m[s] == 0), key=b.get)),
     "a major one is -5 or lower"),
    (lambda b, m: 611, "return a pair"),
    (lambda b, m: (0, 0), "rated segment numbers"),
])
def test_surprises_slips_get_their_hint(wrong, words):
    fb = ex12.check_surprises(wrong)
    assert not fb.passed and words in text(fb), text(fb)
    _, bleu, mqm = ex12.system_case("Online-W")
    if "611" not in str(wrong(bleu, mqm)):
        assert "611" not in text(fb)  # the answer is never named


# --- exercise 3: the +0.5 claim -------------------------------------------------------------------------------------


def test_report_claim_statements_are_true_to_the_numbers():
    """A and B (the true ones) from the published table and a bootstrap of the shipped MQM, as section 6 computes."""
    table = {row.system: row for row in load_system_scores()}
    assert round(table["Nemo"].bleu["C"] - table["HuaweiTSC"].bleu["C"], 2) == 0.55
    assert round(table["Nemo"].bleu["A"] - table["HuaweiTSC"].bleu["A"], 2) == 0.24
    mqm = {(r.system, r.segment): r.score for r in load_mqm_segments(["Nemo", "HuaweiTSC"]) if r.rated}
    segments = sorted({s for _, s in mqm})
    d = np.array([mqm["Nemo", s] - mqm["HuaweiTSC", s] for s in segments])
    means = d[np.random.default_rng(12345).integers(0, len(d), size=(1000, len(d)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    assert low < 0 < high and round(d.mean(), 2) == 0.04
    assert (round(low, 2), round(high, 2)) == (-0.23, 0.36)
    # D: segment-level tau_b of the two systems is small
    for system in ("Nemo", "HuaweiTSC"):
        rows = load_segment_metrics(system)
        tau = scipy_tau([r.bleu for r in rows], [mqm[system, r.segment] for r in rows])
        assert 0 < tau < 0.1


@pytest.mark.parametrize("answer", [{"A", "B"}, ["b", "a"], "A, B", ("A", "B"), frozenset("AB")])
def test_report_claim_solution_passes_in_every_form(answer):
    assert ex12.check_report_claim(answer).passed
    assert ex12.check_report_claim(solution("12_report_claim.py")["true"]).passed


def test_report_claim_wrong_answers_get_counts_not_letters():
    fb = ex12.check_report_claim({"A", "B", "E"})
    assert not fb.passed and "1 of the letters you chose is wrong" in text(fb) and "'E'" not in text(fb)
    fb = ex12.check_report_claim({"A"})
    assert not fb.passed and "you found 1 of the 2 right letters" in text(fb)
    assert "unknown letters" in text(ex12.check_report_claim({"Z"}))
    assert "set of letters" in text(ex12.check_report_claim(3))


# --- exercise 4: written answer -------------------------------------------------------------------------------------


def test_two_errors_model_answer_and_solution_are_recorded_with_every_key_point():
    for answer in (ex12.MODEL_ANSWER_TWO_ERRORS, solution("12_two_errors.py")["answer"]):
        fb = ex12.check_two_errors(answer)
        assert fb.passed and "✔" not in str(fb) and "recorded" in str(fb)


def test_two_errors_negated_or_reversed_answers_are_not_endorsed():
    negated = ("UEdin's translation is not a mistranslation and Online-W has no punctuation problem; BLEU does not "
               "count n-gram matches here at all.")
    fb = ex12.check_two_errors(negated)
    assert not fb.passed and "negate or set it aside" in text(fb)
    reversed_ = ("UEdin is the better translation, and Online-W has a major mistranslation of the meaning, since BLEU "
                 "counts n-gram matches and its quotes are punctuation.")
    fb = ex12.check_two_errors(reversed_)
    assert not fb.passed and "this looks reversed" in text(fb)
    assert "one or two sentences" in text(ex12.check_two_errors("shabby"))
    half = "UEdin's schäbig is a mistranslation with the wrong meaning, a fluent German word."
    fb = ex12.check_two_errors(half)
    assert not fb.passed and "key points not found" in text(fb) and "Hint:" in text(fb)


def test_the_lesson_declares_its_grading():
    names = [e.name for e in ex12.GRADING.exercises]
    assert ex12.GRADING.notebook == LESSON and len(names) == 4
    assert sum(e.points for e in ex12.GRADING.exercises) == 5
    assert math.isclose(ex12.MAJOR, -5.0)


def test_the_real_grader_gives_the_solved_copy_full_marks_and_the_untouched_one_none(tmp_path):
    """`bleu-lab release`, then `bleu-lab grade` (each notebook in its own isolated kernel) on lesson 12's copies."""
    import re
    import subprocess
    import sys

    from bleu_lab.assignments.release import release

    release(tmp_path / "course", SOLUTIONS.parent)
    copies = [tmp_path / "course" / copy / f"{LESSON}.ipynb" for copy in ("solved", "student")]
    command = Path(sys.executable).parent / "bleu-lab"
    done = subprocess.run([str(command), "grade", *map(str, copies), "--seed", "5", "--timeout", "120"],
                          capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-1000:] + done.stderr[-2000:]
    scores = re.findall(r"^score: .*$", done.stdout, re.MULTILINE)
    assert scores == ["score: 5 / 5  (+ 1 to grade by hand)", "score: 0 / 5  (+ 1 to grade by hand)"], done.stdout
