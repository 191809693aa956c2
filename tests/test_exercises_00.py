"""Lesson 00's checks: the right answers pass, the typical mistakes get a message that says what is wrong."""

from __future__ import annotations

import runpy
from fractions import Fraction
from pathlib import Path

import pytest

from bleu_lab.course.exercises.start_here import check_better_hypothesis, check_reading

SOLUTIONS = Path(__file__).resolve().parent.parent / "notebooks" / "solutions"


@pytest.mark.parametrize("p1, p4, bp", [("5/8", "1/5", 1.0), (Fraction(5, 8), Fraction(1, 5), 1), (0.625, 0.2, 1.0)])
def test_reading_accepts_the_right_values_in_any_form(p1, p4, bp):
    assert check_reading(p1, p4, bp).passed


def test_reading_explains_the_unclipped_count():
    feedback = check_reading("7/8", "1/5", 1.0)
    assert not feedback.passed and "clipping" in str(feedback)


def test_reading_explains_the_brevity_penalty_and_bad_forms():
    feedback = check_reading(..., "2/5", 0.87)
    text = str(feedback)
    assert "write it as a fraction" in text and "4-grams" in text
    assert "which case of BP's formula" in text and "c > r" not in text


def test_better_hypothesis():
    assert check_better_hypothesis("a cat is on the mat").passed
    assert "word for word" in str(check_better_hypothesis("the cat is on the mat"))
    assert "with no matching 3-gram at all" in str(check_better_hypothesis("a cat sits upon the rug"))
    partial = str(check_better_hypothesis("the cat is on a red mat today"))
    assert "only 1 of its 5 4-grams match a reference" in partial and "no matching" not in partial
    assert not check_better_hypothesis("").passed


@pytest.mark.parametrize("filename", ["00_reading.py", "00_better_hypothesis.py"])
def test_solution_files_pass_their_checks(filename, capsys):
    namespace = runpy.run_path(str(SOLUTIONS / filename))
    if "reading" in filename:
        assert check_reading(namespace["p1"], namespace["p4"], namespace["bp"]).passed
    else:
        assert check_better_hypothesis(namespace["my_hypothesis"]).passed


def test_reading_a_bp_that_is_not_a_number_gets_a_clear_message():
    """Issue 22: bp = "1" was told "BP is a number between 0 and 1", which 1 is. Say what form is expected instead."""
    text = str(check_reading("5/8", "1/5", "one"))
    assert "plain number" in text and "between 0 and 1" not in text
    assert "1.0" not in text and "bp = 1" not in text  # the hint shows the form, never the answer
