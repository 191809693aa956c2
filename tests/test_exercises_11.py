"""Lesson 11's checks: every correct form passes, the usual slips get a hint that does not give the answer away."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from bleu_lab.course.exercises.read_your_outputs import (
    MT_READING,
    check_compare_mt_reading,
    check_fmeasure,
    check_salient_score,
    check_word_counts,
)


def word_counts_right(ref, out):
    r, o = Counter(ref), Counter(out)
    return sum(min(c, r[w]) for w, c in o.items()), len(out), len(ref)


def fmeasure_right(m, o, r):
    if m == 0:
        return 0
    p, rec = Fraction(m, o), Fraction(m, r)
    return 2 * p * rec / (p + rec)


@pytest.mark.parametrize("func", [
    word_counts_right,
    lambda ref, out: list(word_counts_right(ref, out)),
    lambda ref, out: np.array(word_counts_right(ref, out)),
    lambda ref, out: tuple(str(x) for x in word_counts_right(ref, out)),
])
def test_word_counts_accepts_every_correct_form(func):
    assert check_word_counts(func).passed


@pytest.mark.parametrize("func,hint", [
    (lambda ref, out: (sum(w in ref for w in out), len(out), len(ref)), "clip each word's count"),
    (lambda ref, out: (word_counts_right(ref, out)[0], len(set(out)), len(set(ref))), "repeats included"),
    (lambda ref, out: (word_counts_right(ref, out)[0], len(ref), len(out)), "Check the order"),
    (lambda ref, out: 1 / 0, "ZeroDivisionError"),
    ("my_word_counts", "pass your function itself"),
])
def test_word_counts_slips_get_hints(func, hint):
    fb = check_word_counts(func)
    assert not fb.passed and hint in str(fb)


@pytest.mark.parametrize("func", [
    fmeasure_right,
    lambda m, o, r: float(fmeasure_right(m, o, r)),
    lambda m, o, r: np.float32(fmeasure_right(m, o, r)) if m else np.float64(0),
    lambda m, o, r: np.array(float(fmeasure_right(m, o, r))),
])
def test_fmeasure_accepts_every_correct_form(func):
    fb = check_fmeasure(func)
    assert fb.passed, str(fb)  # float32 included: its rounding (6e-8) is inside the checks' tolerance (1e-6)


@pytest.mark.parametrize("func,hint", [
    (lambda m, o, r: (m / o + m / r) / 2 if m else 0, "harmonic mean"),
    (lambda m, o, r: m / o if m else 0, "precision or recall alone"),
    (lambda m, o, r: 2 * (m / o) * (m / r) / ((m / o) + (m / r)), "return 0 then"),
])
def test_fmeasure_slips_get_hints(func, hint):
    fb = check_fmeasure(func)
    assert not fb.passed and hint in str(fb)


def test_salient_score():
    assert check_salient_score(lambda c1, c2, a: (c1 + a) / (c1 + c2 + 2 * a)).passed
    assert check_salient_score(lambda c1, c2, a: Fraction(c1 + a) / (c1 + c2 + 2 * a)).passed
    for func, hint in ((lambda c1, c2, a: (c1 + a) / (c1 + c2 + a), "twice"),
                       (lambda c1, c2, a: (c2 + a) / (c1 + c2 + 2 * a), "goes on top"),
                       (lambda c1, c2, a: c1 / (c1 + c2), "add alpha to both")):
        fb = check_salient_score(func)
        assert not fb.passed and hint in str(fb)


def test_reading_question_has_one_right_answer_and_wrong_ones_do_not_name_it():
    right = [k for k, (_, ok, _) in MT_READING.items() if ok]
    assert len(right) == 1
    assert check_compare_mt_reading(right[0].lower()).passed
    for letter in set(MT_READING) - set(right):
        fb = check_compare_mt_reading(letter)
        assert not fb.passed and f"{right[0]}." not in str(fb) and MT_READING[right[0]][0] not in str(fb)
    assert not check_compare_mt_reading("").passed and not check_compare_mt_reading(None).passed
