"""The shared case loop of the function exercises (``bleu_lab.course.exercises.cases``): every lesson's check reports a
raised error, a wrong result, a result that is no answer at all, and stops after a few failures."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from bleu_lab.course.exercises import MAX_REPORTED_CASES, Case, Slip, check_cases, number_problem, reset_tries
from bleu_lab.course.exercises import brevity_penalty as ex3
from bleu_lab.course.exercises import putting_it_together as ex4


def halves(n: int) -> list[Case]:
    return [Case(f"case {k}", (k,), number_problem(k / 2, lambda got: f"{got} is not half of it"), on_error="mind 0")
            for k in range(n)]


@pytest.mark.parametrize("func", [lambda k: k / 2, lambda k: Fraction(k, 2), lambda k: np.float32(k / 2),
                                  lambda k: np.array(k / 2)])
def test_every_correct_form_passes_and_the_remark_shows(func):
    fb = check_cases("half(k)", func, halves(4), passed="all halves right")
    assert fb.passed and fb.messages == ["all halves right"]


def test_a_wrong_result_is_named_by_its_case_and_the_check_stops_after_a_few():
    fb = check_cases("half(k)", lambda k: k, halves(10))
    assert not fb.passed
    assert fb.messages[0] == "case 1: 1.0 is not half of it"  # case 0 is right: 0 is half of 0
    assert len(fb.messages) == MAX_REPORTED_CASES + 1 and "stopping after 3" in fb.messages[-1]


def test_a_raised_error_carries_the_cases_advice_and_none_is_no_answer():
    raised = check_cases("half(k)", lambda k: 1 / k, halves(1))
    assert "ZeroDivisionError" in raised.messages[0] and raised.messages[0].endswith("— mind 0")
    nothing = check_cases("half(k)", lambda k: None, halves(2))
    assert not nothing.passed and "return a number, not NoneType" in nothing.messages[0]


def test_a_function_that_returns_nothing_no_longer_passes_a_lessons_check():
    assert not ex3.check_brevity_penalty(lambda r, c: None).passed
    assert not ex3.check_closest_ref_length(lambda lengths, c: None).passed
    assert not ex4.check_geometric_mean(lambda p, w: None).passed


def test_something_else_than_a_function_is_refused_by_name():
    fb = check_cases("half(k)", 0.5, halves(2))
    assert not fb.passed and "pass your function itself (half," in fb.messages[0]


def test_a_slips_fix_shows_only_on_a_later_try():
    reset_tries()
    cases = [Case("case", (1,), lambda got: Slip("a slip", "THE FIX"))] * 2
    first = check_cases("slip(k)", lambda k: 0, cases)
    assert "THE FIX" not in str(first) and "a slip" in str(first)
    second = check_cases("slip(k)", lambda k: 0, cases)
    assert "THE FIX" in str(second)
    assert "THE FIX" in str(check_cases("other(k)", lambda k: 0, cases, reveal=True))


def test_the_check_stops_after_three_failing_cases_not_three_messages():
    reset_tries()
    cases = [Case(f"case {k}", (k,), lambda got: Slip("a slip", "THE FIX")) for k in range(5)]
    fb = check_cases("slip(k)", lambda k: 0, cases)  # the first slip adds a "try again" note beside its message
    assert [m.split(":")[0] for m in fb.messages if m.startswith("case")] == ["case 0", "case 1", "case 2"]
    assert "stopping after 3" in fb.messages[-1]
