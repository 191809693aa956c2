"""Checks for lesson 0 (start here): reading an explanation, and a first hypothesis of your own."""

from __future__ import annotations

import math
from fractions import Fraction

from ...nltk_style import sentence_bleu, without_warnings
from ...reports.explain import explain
from . import Feedback, GradedExercise, LessonGrading, as_number, number_text_problem, same_number, shown

CAT_REFERENCES = ("the cat is on the mat", "there is a cat on the mat")
CAT_HYPOTHESIS = "the cat and the cat on the mat"


def _as_fraction(value: object) -> Fraction | None:
    """A student's '5/8', Fraction(5, 8), 0.625 or numpy number as a Fraction (None if it is none of these)."""
    number = as_number(value)
    if number is None or isinstance(number, float) and not math.isfinite(number):
        return None
    return Fraction(number).limit_denominator(1000) if isinstance(number, float) else Fraction(number)


def _shown(value: object) -> str:
    if value is Ellipsis:
        return "still ... (not filled in)"
    problem = number_text_problem(value)
    return shown(value) + (f" ({problem})" if problem else "")


def check_reading(p1: object, p4: object, bp: object) -> Feedback:
    """Check p_1, p_4 and BP read off the explanation of the lesson's cat example."""
    fb = Feedback("reading the explanation")
    view = explain(list(CAT_REFERENCES), CAT_HYPOTHESIS)
    want_p1, want_p4 = view.orders[0], view.orders[3]
    got = _as_fraction(p1)
    if got is None:
        fb.fail(f"p1 is {_shown(p1)}: write it as a fraction, e.g. p1 = '3/4' (see the line 'p_1 = ...')")
    elif got != Fraction(want_p1.matches, want_p1.denominator):
        unclipped = sum(row.count for row in want_p1.rows if row.max_ref_count > 0)
        if got == Fraction(unclipped, want_p1.total):
            fb.fail(f"p1 = {shown(p1)}: that counts every 'the' that occurs in a reference ({unclipped} words); "
                    "'the' occurs 3 times but earns at most 2, the most any single reference has (clipping)")
        else:
            fb.fail(f"p1 = {shown(p1)}: add up the 'clipped' column of the 1-gram table and divide by the "
                    f"{want_p1.total} words of the hypothesis")
    got = _as_fraction(p4)
    if got is None:
        fb.fail(f"p4 is {_shown(p4)}: write it as a fraction, e.g. p4 = '1/2'")
    elif got != Fraction(want_p4.matches, want_p4.denominator):
        fb.fail(f"p4 = {shown(p4)}: the hypothesis has {want_p4.total} 4-grams (8 words - 4 + 1); count the ones "
                "with a clipped count of 1 in the 4-gram table")
    if as_number(bp) is None:
        fb.fail(f"bp is {_shown(bp)}: give BP as a plain number, e.g. bp = 0.75 (read it from the line "
                "'BP = ...' of the explanation)")
    elif not same_number(bp, view.bp):
        fb.fail(f"bp = {shown(bp)}: find c (the hypothesis length) and r (the closest reference length) in the "
                "explanation, then ask which case of BP's formula they fall in")
    if fb.passed:
        fb.note(f"p1 = {want_p1.precision_text}, p4 = {want_p4.precision_text}, BP = {view.bp:g}: "
                f"the score is {view.score:.4f}")
    return fb


def check_better_hypothesis(hypothesis: object) -> Feedback:
    """Check a new hypothesis for the cat example: not a copy of a reference, yet scoring higher than the machine's."""
    fb = Feedback("a better translation")
    if not isinstance(hypothesis, str) or hypothesis.strip() in ("", "...", "…"):
        return fb.fail("write your translation as a string of words, e.g. my_hypothesis = 'your own wording here'")
    baseline = without_warnings(sentence_bleu, list(CAT_REFERENCES), CAT_HYPOTHESIS)
    words = hypothesis.split()
    if any(words == ref.split() for ref in CAT_REFERENCES):
        return fb.fail("that is one of the references word for word: of course it scores 1. "
                       "Write your own wording of the sentence")
    view = explain(list(CAT_REFERENCES), hypothesis)
    if view.score <= baseline:
        weakest = min(view.orders, key=lambda o: o.matches / o.denominator)
        why = (f"with no matching {weakest.n}-gram at all the geometric mean collapses to 0"
               if weakest.matches == 0 else
               f"only {weakest.matches} of its {weakest.denominator} {weakest.n}-grams match a reference, and the "
               "geometric mean is pulled down by its weakest factor")
        fb.fail(f"it scores {view.score:.4g}, not above the machine's {baseline:.4f}. Its weakest step is "
                f"p_{weakest.n} = {weakest.precision_text}: {why}. Reuse longer runs of words that a reference has")
        if view.bp < 1:
            fb.note(f"and it is short: BP = {view.bp:.3f} (c = {view.hyp_len}, r = {view.ref_len})")
    else:
        fb.note(f"{view.score:.4f} > {baseline:.4f}. Notice what BLEU rewarded: shared word runs, not meaning")
    return fb

GRADING = LessonGrading("00_start_here", (
    GradedExercise("reading the explanation", check_reading, ("p1", "p4", "bp"), implemented_by=()),
    GradedExercise("a better translation", check_better_hypothesis, ("my_hypothesis",), implemented_by=()),
))
