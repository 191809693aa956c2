"""Checks that are fair (issue 20): every correct form passes, through one coercion helper, and a keyword check of a
written answer never endorses a wrong answer.

The cases the expert found rejected (L0 ``bp="1"`` and ``Fraction(1)``, L6 a numpy array, L7 sacrebleu's short
signature, L9 an exact ``Fraction`` p-value, L10 ``np.int64`` ranks) and the two wrong written answers are tests here.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
import sacrebleu

from bleu_lab.course.exercises import as_list, as_number, as_whole, key_points_found, reset_tries, same_number
from bleu_lab.course.exercises import bleu_in_context as ex10
from bleu_lab.course.exercises import brevity_penalty as ex3
from bleu_lab.course.exercises import comparing_systems as ex9
from bleu_lab.course.exercises import smoothing as ex6
from bleu_lab.course.exercises import start_here as ex0
from bleu_lab.course.exercises import tokenization as ex7

# ------------------------------------------------------------------------------------------- the helper


@pytest.mark.parametrize(("value", "expected"), [
    (1, 1), (np.int64(3), 3), (np.float64(0.5), 0.5), (np.float32(0.5), 0.5), (np.array(0.25), 0.25),
    (Fraction(5, 8), Fraction(5, 8)), ("5/8", Fraction(5, 8)), (" 1 ", 1), ("1", 1), ("0.625", Fraction(5, 8)),
    (Decimal("0.5"), Fraction(1, 2)), (1.0, 1.0),
])
def test_as_number_reads_every_form_of_a_number(value, expected):
    got = as_number(value)
    assert got == expected and not isinstance(got, bool)
    assert type(got) in (int, float, Fraction)


@pytest.mark.parametrize("value", [True, False, np.bool_(True), None, ..., "abc", "1/0", [1], {"a": 1}, object()])
def test_as_number_rejects_what_is_not_a_number(value):
    assert as_number(value) is None


def test_as_number_without_strings_for_returned_values():
    assert as_number("0.5", strings=False) is None and as_number(0.5, strings=False) == 0.5


def test_as_whole_and_as_list_and_same_number():
    assert [as_whole(v) for v in (np.int64(6), 6.0, "6", Fraction(12, 2), 6.5, "six")] == [6, 6, 6, 6, None, None]
    assert as_list((1, 2)) == as_list(x for x in (1, 2)) == as_list(np.array([1, 2])) == as_list(range(1, 3)) == [1, 2]
    assert as_list("ab") is None and as_list({"a": 1}) is None and as_list(5) is None
    assert as_list(iter(range(10)), limit=5) is None
    assert isinstance(as_list(np.array([1.5]))[0], float)
    assert same_number(Fraction(1, 5), 0.2) and same_number(np.float64(0.2), Fraction(1, 5))
    assert same_number("1/5", Fraction(1, 5)) and not same_number(True, 1)


    assert as_list((1, 2)) == as_list(x for x in (1, 2)) == as_list(np.array([1, 2])) == [1, 2]
    assert as_list(range(1, 3)) == [1, 2]


@pytest.mark.parametrize("bp", ["1", Fraction(1), 1, 1.0, np.float64(1.0), np.int64(1)])
def test_l0_bp_in_every_form(bp):
    assert ex0.check_reading("5/8", "1/5", bp).passed
    assert ex0.check_reading(Fraction(5, 8), np.float64(0.2), bp).passed


def test_l6_a_numpy_array_passes():
    def my_exp_smoothing(matches, totals):
        return np.array(ex6.expected_exp(matches, totals))

    def my_method1(matches, denominators, epsilon):
        return tuple(ex6.expected_method1(matches, denominators, epsilon))

    assert ex6.check_exp_smoothing(my_exp_smoothing).passed
    assert ex6.check_method1(my_method1).passed
    assert ex6.check_method1(lambda m, d, e: (v for v in ex6.expected_method1(m, d, e))).passed


def test_l7_the_short_signature_passes_where_the_long_one_does():
    bleu = sacrebleu.BLEU(lowercase=True, tokenize="intl")
    result = bleu.corpus_score(list(ex7.REPORT_HYPOTHESES), [list(r) for r in zip(*ex7.REPORT_REFERENCES)])
    long = f"BLEU = {result.score:.1f} ({bleu.get_signature()})"
    short = f"BLEU = {result.score:.1f} ({bleu.get_signature().format(short=True)})"
    assert short.split("(")[1].startswith("#:1|c:lc")
    assert ex7.check_report_line(long).passed and ex7.check_report_line(short).passed
    wrong = short.replace("c:lc", "c:mixed")
    assert "case:mixed" in "\n".join(ex7.check_report_line(wrong).messages)


def test_l9_an_exact_fraction_p_value_passes():
    def my_ar_p_value(gaps, observed):
        return Fraction(sum(g >= observed for g in gaps) + 1, len(gaps) + 1)

    assert ex9.check_ar_p_value(my_ar_p_value).passed
    assert ex9.check_ar_p_value(lambda gaps, observed: np.float64((np.sum(gaps >= observed) + 1) / (len(gaps) + 1)))


def test_l10_numpy_ranks_pass():
    ranks = {key: np.int64(value) for key, value in ex10.expected_reference_ranks().items()}
    assert ex10.check_reference_ranks(ranks).passed
    assert ex10.check_pairwise_accuracy(lambda m, h: np.float64(_accuracy(m, h))).passed


def _accuracy(metric, human):
    pairs = [(i, j) for i in range(len(metric)) for j in range(i + 1, len(metric))]
    agree = sum((metric[i] - metric[j]) * (human[i] - human[j]) > 0 for i, j in pairs)
    return Fraction(agree, len(pairs))


def test_l3_numpy_results_pass():
    import math

    assert ex3.check_brevity_penalty(lambda r, c: np.float64(0 if c == 0 else min(1, math.exp(1 - r / c)))).passed
    assert ex3.check_closest_ref_length(lambda lens, c: np.int64(min(lens, key=lambda r: (abs(r - c), r)))).passed


# ------------------------------------------------------------------------------------------- written answers

EXPERT_WRONG_ANSWERS = [
    (ex3.check_without_bp, "Without BP, short outputs would get a lower score because precision punishes them."),
    (ex10.check_metric_choice, "Ship it: +0.8 BLEU on 1,000 segments is significant"),
]


@pytest.mark.parametrize(("check", "answer"), EXPERT_WRONG_ANSWERS)
def test_the_experts_wrong_answers_are_not_endorsed(check, answer):
    reset_tries()
    fb = check(answer)
    shown = str(fb) + fb._repr_html_()
    assert not fb.passed and "✔" not in shown and "correct!" not in shown
    assert "this looks reversed" in shown and f"recorded: {answer!r}" in shown


@pytest.mark.parametrize(("check", "model"), [(ex3.check_without_bp, ex3.MODEL_ANSWER_WITHOUT_BP),
                                              (ex10.check_metric_choice, ex10.MODEL_ANSWER_METRIC_CHOICE)])
def test_a_right_answer_is_recorded_not_ticked(check, model):
    fb = check(model)
    shown = str(fb) + fb._repr_html_()
    assert fb.passed and "✔" not in shown and "correct!" not in shown and "this looks reversed" not in shown
    assert "recorded" in shown and "key points mentioned" in shown


def test_negations_and_questions_are_not_claims():
    found, missing = key_points_found("Without BP, BLEU would not reward short outputs.", ex3.WITHOUT_BP_KEY_POINTS)
    assert "a high score" in missing
    fb = ex10.check_metric_choice("I would check whether the gain is significant with a bootstrap and ask human "
                                  "raters before deciding.")
    assert "this looks reversed" not in str(fb) and fb.passed
    fb = ex10.check_metric_choice("I would not ship it: the gain is not significant until a paired test says so.")
    assert "this looks reversed" not in str(fb)
    fb = ex3.check_without_bp("Without BP, short outputs would not be punished: their precision stays high.")
    assert "this looks reversed" not in str(fb)


# ------------------------------------------------------------------------------------------- saved outputs


def test_executed_lessons_save_their_check_cells_without_outputs():
    """.ci/execute_notebooks.py saves every cell that calls a check unrun and empty (nbval 0.11 runs a cell saved with
    execution_count None but compares no output), and leaves every other cell as it was."""
    import copy
    import importlib.util
    import re
    from pathlib import Path

    import nbformat

    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("execute_notebooks", root / ".ci" / "execute_notebooks.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    cleared_any = 0
    for path in sorted((root / "notebooks").glob("[0-9]*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        before = copy.deepcopy(nb)
        cleared = script.clear_exercise_checks(nb)
        calls = [i for i, c in enumerate(before.cells)
                 if c.cell_type == "code" and re.search(r"^check_\w+\(", c.source, re.MULTILINE)]
        assert cleared == calls, path.name
        for index, (old, new) in enumerate(zip(before.cells, nb.cells)):
            if index in cleared:
                assert new.outputs == [] and new.execution_count is None and new.source == old.source
            else:
                assert new == old
        cleared_any += len(cleared)
    assert cleared_any >= 30


# ------------------------------------------------------------------------------------------- issue 31: right forms

def test_l7_token_counts_with_a_string_count_pass():
    assert ex7.check_token_counts({"13a": 9, "intl": "13", "none": 8}).passed


def test_l7_nltk_word_bleu_as_float32_passes_visible_and_hidden_cases():
    import random

    from nltk.translate.bleu_score import sentence_bleu

    def nltk_word_bleu(reference, hypothesis):
        return np.float32(sentence_bleu([reference.split()], hypothesis.split()))

    assert ex7.check_nltk_word_bleu(nltk_word_bleu).passed
    for seed in range(3):
        assert ex7.check_nltk_word_bleu(nltk_word_bleu, **ex7.hidden_nltk_cases(random.Random(seed))).passed
    # the tolerance a float32 meets still tells a wrong score: 1 part in 10^5 off is not right
    assert not ex7.check_nltk_word_bleu(lambda r, h: sentence_bleu([r.split()], h.split()) * (1 + 1e-5)).passed


def test_l10_ranks_as_strings_pass():
    ranks = {key: str(value) for key, value in ex10.expected_reference_ranks().items()}
    assert ex10.check_reference_ranks(ranks).passed


def test_tolerance_is_float32_wide_and_no_wider():
    assert same_number(np.float32(2 / 3), 2 / 3) and same_number(np.float32(1e-78), 1e-78)
    assert not same_number(2 / 3 * (1 + 1e-5), 2 / 3)
    assert not same_number(0.0, 1e-231) and not same_number(1e-77, 1e-231)
    assert same_number("0.6666666666", 2 / 3) and same_number(Fraction(2, 3), Fraction(2, 3))


# ------------------------------------------------------------------------------------------- issue 28: bounded work

BIG_EXPONENTS = ["1e999999999", "1E-999999999", "2/1e999999999", " 1e99999999999999999999 ", "9" * 5000,
                 "1/" + "7" * 100_000]


@pytest.mark.parametrize("text", BIG_EXPONENTS)
def test_numbers_as_text_are_read_without_exponent_arithmetic(text):
    import time

    start = time.perf_counter()
    assert as_number(text) is None and as_whole(text) is None and not same_number(text, 1)
    assert as_number(Decimal("1e999999999")) is None
    assert time.perf_counter() - start < 5  # a guard: each call is microseconds; Fraction(text) never returns


def test_l0_a_huge_exponent_gets_a_clear_hint_fast():
    import time

    start = time.perf_counter()
    fb = ex0.check_reading("1e999999999", "1/5", 1)
    assert time.perf_counter() - start < 5
    assert not fb.passed and "exponent between -400 and 400" in str(fb)
    assert "1e999999999" in str(fb)
    long = ex0.check_reading("1" * 200_000, "1/5", 1)
    assert "read up to 100 characters" in str(long) and len(str(long)) < 2_000  # the value is shown cut short
    assert as_number("1e-3") == Fraction(1, 1000) and as_number("-2.5e2") == -250
    assert as_number("5 / 8") == Fraction(5, 8)


def test_an_array_like_with_a_huge_dtype_costs_nothing():
    """The grader rebuilds arrays from the wire: a student's dtype "(40000000,)f8" (320 MB per item) is not used."""
    import json
    import time
    import tracemalloc

    from bleu_lab.assignments import wire

    class Attack:
        dtype = "(40000000,)f8"
        shape = (1,)
        size = 1

        def tolist(self):
            return [1.0]

    start = time.perf_counter()
    tracemalloc.start()
    try:
        values = [wire.decode(json.loads(wire.dumps(Attack()))) for _ in range(3)]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10_000_000 and time.perf_counter() - start < 5
    assert all(v.nbytes == 8 and v.dtype == np.float64 for v in values)
    assert wire.decode(json.loads(wire.dumps(np.array([0.5], dtype=np.float32)))).dtype == np.float32  # plain: kept
    with pytest.raises(wire.TooLarge):
        wire.decode({wire.TAG: "ndarray", "v": [[0.0] * 1000] * 101, "dtype": "f8"})

    class HugeArray:  # what as_list sees in a kernel: the size is read before any tolist
        shape, size, ndim = (10**9,), 10**9, 1

        def tolist(self):
            raise AssertionError("tolist must not be called on an array beyond the limit")

    assert as_list(HugeArray()) is None


@pytest.mark.parametrize("chars", [48_000, 200_000])
def test_written_answers_are_read_in_linear_time(chars):
    import time

    answer = ("Short outputs would score high because precision, not BP, sees only their words, ok " * 3000)[:chars]
    for check in (ex3.check_without_bp, ex10.check_metric_choice):
        start = time.perf_counter()
        fb = check(answer)
        assert time.perf_counter() - start < 5  # today's answer to 146 s on 200,000 characters: milliseconds
        assert f"only the first 2,000 of your {chars:,} characters were read" in str(fb)
    unbroken = "a" * chars  # one clause, no spaces
    start = time.perf_counter()
    ex3.check_without_bp("short high " * (chars // 11))
    ex3.check_without_bp(unbroken)
    assert time.perf_counter() - start < 5


# ------------------------------------------------------------------------------------------- issue 31: negations

def test_a_paired_test_is_the_significance_point():
    found, missing = key_points_found("not significant unless a paired test says so", ex10.METRIC_CHOICE_KEY_POINTS)
    assert found == ["test whether the gain is more than noise"]
    found, _ = key_points_found("run a statistical test first", ex10.METRIC_CHOICE_KEY_POINTS)
    assert found == ["test whether the gain is more than noise"]


EXPERT_NEGATED = ("A significance test and human evaluation are unnecessary here, BLEU went up so the new system is "
                  "better")


def test_a_negated_point_is_not_a_point_made():
    found, missing = key_points_found(EXPERT_NEGATED, ex10.METRIC_CHOICE_KEY_POINTS)
    assert found == [] and len(missing) == 2
    fb = ex10.check_metric_choice(EXPERT_NEGATED)
    shown = str(fb) + fb._repr_html_()
    assert not fb.passed and "✔" not in shown and "key points mentioned: none of them" in shown
    assert "this looks reversed" in shown and "system is better" in shown and "unnecessary" in shown


@pytest.mark.parametrize("answer", [
    "There is no need for a significance test or for human evaluation.",
    "We don't need a significance test, and we do not need people to rate the systems.",
    "Ship it without a significance test or human evaluation.",
    "Skip the bootstrap and the human evaluation: BLEU went up.",
    "Human evaluation and a paired test are not needed here.",
    "Neither a significance test nor human raters are required.",
])
def test_dismissals_in_any_form_are_not_points(answer):
    found, _ = key_points_found(answer, ex10.METRIC_CHOICE_KEY_POINTS)
    assert found == [], answer
    assert not ex10.check_metric_choice(answer).passed


@pytest.mark.parametrize("answer", [
    "Without a significance test the gain means nothing, and people must rate both systems.",
    "I would not ship it yet and ask human raters to compare both; a statistical test says whether +0.8 is real.",
    "Not until a paired bootstrap test and a human evaluation both agree would I ship it.",
])
def test_a_condition_or_a_later_clause_is_not_a_negation(answer):
    found, missing = key_points_found(answer, ex10.METRIC_CHOICE_KEY_POINTS)
    assert missing == [], answer


def test_a_claim_after_a_clause_opening_without_is_still_a_claim():
    fb = ex3.check_without_bp("Without BP short outputs would get a lower score because precision punishes them.")
    assert not fb.passed and "this looks reversed" in str(fb)
    fb = ex3.check_without_bp("Without BP, short outputs would not be punished: their precision stays high.")
    assert "this looks reversed" not in str(fb)
