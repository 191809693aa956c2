"""ModifiedPrecision is a number on every supported Python (3.11-3.13), and prints its raw counts everywhere.

CI runs this file on each Python version; the expected values below are the same for all of them.
"""

import copy
import math
import pickle
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

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


def test_unreduced_counts_equal_themselves():
    """Fraction's own __eq__ compares the reduced numerator with the raw ``numerator``: 2/6 != 2/6 (issue 20)."""
    two_of_six = ModifiedPrecision(2, 6)
    assert two_of_six == two_of_six and not (two_of_six != two_of_six)
    assert ModifiedPrecision(2, 6) == ModifiedPrecision(2, 6) == ModifiedPrecision(1, 3) == ModifiedPrecision(3, 9)
    assert ModifiedPrecision(2, 6) <= ModifiedPrecision(2, 6) and ModifiedPrecision(2, 6) >= ModifiedPrecision(1, 3)
    assert not ModifiedPrecision(2, 6) < ModifiedPrecision(1, 3)
    assert not ModifiedPrecision(2, 6) > ModifiedPrecision(3, 9)
    assert Fraction(1, 3) == ModifiedPrecision(2, 6) and ModifiedPrecision(2, 6) == Fraction(1, 3)
    assert ModifiedPrecision(2, 6) in [Fraction(1, 3)] and ModifiedPrecision(2, 6) in {ModifiedPrecision(1, 3)}
    assert len({ModifiedPrecision(2, 6), ModifiedPrecision(1, 3), Fraction(1, 3)}) == 1
    assert ModifiedPrecision(2, 6) != "2/6" and ModifiedPrecision(2, 6) != None  # noqa: E711


def test_lesson_precisions_equal_themselves():
    p = [bl.modified_precision(REFS, HYP, n) for n in range(1, 5)]  # 5/8, 4/7, 2/6 (unreduced), 1/5
    assert str(p[2]) == "2/6"
    assert p == p[:] and p == [bl.modified_precision(REFS, HYP, n) for n in range(1, 5)]
    assert sorted(p, reverse=True) == p and max(p) == p[0] and min(p) == p[3]


def test_compares_with_nltks_unreduced_fractions():
    from nltk.translate.bleu_score import modified_precision as nltk_modified_precision

    ours = bl.modified_precision(REFS, HYP, 3)
    theirs = nltk_modified_precision([r.split() for r in REFS], HYP.split(), 3)
    assert (theirs.numerator, theirs.denominator) == (ours.numerator, ours.denominator) == (2, 6)
    # Our side only: on Python 3.12+ nltk's own fraction is not even equal to itself (theirs == theirs is False, the
    # bug ModifiedPrecision had), and its __eq__ answers before ours can.
    assert ours == theirs and ours <= theirs and ours >= theirs and not ours < theirs and not ours != theirs


counts = st.integers(min_value=1, max_value=40).flatmap(lambda total: st.tuples(st.integers(0, total), st.just(total)))


@given(counts, counts)
def test_comparisons_and_hash_agree_with_the_value(a, b):
    pa, pb = ModifiedPrecision(*a), ModifiedPrecision(*b)
    va, vb = Fraction(*a), Fraction(*b)
    # each pair behaves as the same pair of plain Fractions (a float stays a float: 1/3 != 0.333...)
    for (x, y), (u, v) in (((pa, pb), (va, vb)), ((pa, vb), (va, vb)), ((va, pb), (va, vb)),
                           ((pa, float(vb)), (va, float(vb))), ((float(va), pb), (float(va), vb))):
        assert (x == y) == (u == v) and (x != y) == (u != v)
        assert (x < y) == (u < v) and (x <= y) == (u <= v)
        assert (x > y) == (u > v) and (x >= y) == (u >= v)
    assert pa == pa and hash(pa) == hash(va) == hash(ModifiedPrecision(*a))
    if va == vb:
        assert hash(pa) == hash(pb)
    if va.denominator == 1:
        assert pa == int(va) and int(va) == pa and hash(pa) == hash(int(va))
