"""ModifiedPrecision is a number on every supported Python (3.11-3.13), and prints its raw counts everywhere.

CI runs this file on each Python version; the expected values below are the same for all of them.
"""

import copy
import math
import pickle
from fractions import Fraction

import pytest

import bleu_lab as bl
from bleu_lab import ModifiedPrecision

REFS = ["the cat is on the mat", "there is a cat on the mat"]
HYP = "the cat and the cat on the mat"


@pytest.fixture
def p1() -> ModifiedPrecision:
    return bl.modified_precision(REFS, HYP, 1)  # 5 clipped of 8


def test_compares_with_floats_ints_and_fractions(p1):
    assert p1 == 0.625
    assert p1 == 5 / 8
    assert p1 == Fraction(5, 8)
    assert p1 != 0.5
    assert p1 > 0.5 and p1 >= 0.625 and p1 < 1 and p1 <= 0.625
    assert 0.5 < p1 and 1 > p1
    assert ModifiedPrecision(4, 4) == 1 and ModifiedPrecision(0, 3) == 0
    assert ModifiedPrecision(4, 8) == ModifiedPrecision(1, 2) == Fraction(1, 2) == 0.5
    assert not (p1 == math.nan) and p1 < math.inf and p1 > -math.inf


def test_arithmetic_gives_plain_numbers(p1):
    assert p1 + 0.375 == 1.0
    assert p1 * 2 == Fraction(5, 4)
    assert 1 - p1 == Fraction(3, 8)
    assert p1 / ModifiedPrecision(1, 2) == Fraction(5, 4)
    assert math.log(p1) == math.log(0.625)
    assert float(p1) == 0.625 and round(p1, 2) == Fraction(31, 50)  # half to even


def test_printed_form_keeps_raw_counts(p1):
    two_of_six = ModifiedPrecision(2, 6)
    assert str(two_of_six) == "2/6"
    assert f"{two_of_six}" == "2/6"
    assert format(two_of_six) == "2/6"
    assert repr(two_of_six) == "ModifiedPrecision(2, 6)"
    assert f"p = {p1}" == "p = 5/8"
    assert (two_of_six.numerator, two_of_six.denominator) == (2, 6)
    assert two_of_six.as_fraction() == Fraction(1, 3)


def test_format_spec_formats_the_value_the_same_everywhere():
    assert f"{ModifiedPrecision(2, 6):.4f}" == "0.3333"
    assert f"{ModifiedPrecision(5, 8):.1%}" == "62.5%"
    assert f"{ModifiedPrecision(5, 8):>8.3f}" == "   0.625"
    # a tie in the exact value: the float (0.165000...0077) rounds up; the same on 3.11, 3.12 and 3.13
    assert f"{ModifiedPrecision(33, 200):.2f}" == "0.17"


def test_hash_pickle_and_copy_keep_value_and_counts(p1):
    four_of_eight = ModifiedPrecision(4, 8)
    assert hash(four_of_eight) == hash(Fraction(1, 2)) == hash(0.5)
    assert {four_of_eight: "x"}[0.5] == "x"
    for clone in (pickle.loads(pickle.dumps(four_of_eight)), copy.copy(four_of_eight), copy.deepcopy(four_of_eight)):
        assert type(clone) is ModifiedPrecision
        assert str(clone) == "4/8" and clone == 0.5


@pytest.mark.parametrize(
    ("clipped", "total", "error", "names"),
    [
        (100, 8, ValueError, "clipped"),
        (-1, 8, ValueError, "clipped"),
        (1, 0, ValueError, "total"),
        (1.5, 2, TypeError, "clipped"),
        (1, "2", TypeError, "total"),
        (True, 2, TypeError, "clipped"),
    ],
)
def test_impossible_counts_are_rejected(clipped, total, error, names):
    with pytest.raises(error, match=names):
        ModifiedPrecision(clipped, total)
