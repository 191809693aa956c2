"""The exercise checks of lesson 10: worked solutions pass, typical mistakes get the specific message."""

from __future__ import annotations

import re
import runpy
from itertools import combinations
from pathlib import Path

import pytest

from bleu_lab.course.exercises import bleu_in_context as ex10

SOLUTIONS = Path(__file__).resolve().parent.parent / "notebooks" / "solutions"


def solution(name: str) -> dict:
    return runpy.run_path(str(SOLUTIONS / name))


def text(feedback) -> str:
    return "\n".join(feedback.messages)


# --- exercise 1: pairwise accuracy ----------------------------------------------------------------------------------


def test_pairwise_accuracy_solution_passes():
    assert ex10.check_pairwise_accuracy(solution("10_pairwise_accuracy.py")["my_pairwise_accuracy"]).passed


def _agreeing_pairs(metric, human):
    return sum((metric[i] - metric[j]) * (human[i] - human[j]) > 0 for i, j in combinations(range(len(metric)), 2))


@pytest.mark.parametrize("wrong,words", [
    (lambda m, h: float(_agreeing_pairs(m, h)), "count of pairs"),
    (lambda m, h: _agreeing_pairs(m, h) / len(m), "number of PAIRS"),
    (lambda m, h: 1 - _agreeing_pairs(m, h) / (len(m) * (len(m) - 1) / 2), "DISAGREE"),
    (lambda m, h: 0.5, "For every pair of systems"),
    (lambda m, h: "high", "return the accuracy as a number"),
    (lambda m, h: 1 / 0, "ZeroDivisionError"),
])
def test_pairwise_accuracy_slips_get_their_hint(wrong, words):
    fb = ex10.check_pairwise_accuracy(wrong)
    assert not fb.passed and words in text(fb)


def _tie_excluding_accuracy(metric, human):
    """The expert's answer (issue 31): pairs tied in either list are left out."""
    pairs = [(i, j) for i, j in combinations(range(len(metric)), 2) if metric[i] != metric[j] and human[i] != human[j]]
    return sum((metric[i] - metric[j]) * (human[i] - human[j]) > 0 for i, j in pairs) / len(pairs)


def _kocmi_accuracy(metric, human):
    """Kocmi et al.'s released code: pairs people tie are left out, a metric tie is a disagreement."""
    pairs = [(i, j) for i, j in combinations(range(len(metric)), 2) if human[i] != human[j]]
    return sum((metric[i] - metric[j]) * (human[i] - human[j]) > 0 for i, j in pairs) / len(pairs)


@pytest.mark.parametrize("func", [_tie_excluding_accuracy, _kocmi_accuracy,
                                  lambda m, h: _agreeing_pairs(m, h) / (len(m) * (len(m) - 1) / 2)])
def test_every_tie_rule_passes_visible_and_hidden_cases(func):
    from bleu_lab.assignments.grade import hidden_rng

    fb = ex10.check_pairwise_accuracy(func)
    assert fb.passed, str(fb)
    assert any(c[1][0] == c[1][1] for c in ex10.ACCURACY_CASES)  # a visible case has a tie: the rule shows
    for seed in (0, 1, 2):
        cases = ex10.hidden_accuracy_cases(hidden_rng(seed, "10_bleu_in_context", "my_pairwise_accuracy"))
        assert ex10.check_pairwise_accuracy(func, **cases).passed, (seed, str(fb))


def test_a_tie_rule_is_named_and_a_wrong_tie_answer_still_fails():
    fb = ex10.check_pairwise_accuracy(_tie_excluding_accuracy)
    assert "ties='exclude'" in text(fb)
    # a function that counts every tied pair as agreeing follows no rule: the tie case fails
    def ties_agree(m, h):
        pairs = list(combinations(range(len(m)), 2))
        return sum((m[i] - m[j]) * (h[i] - h[j]) >= 0 for i, j in pairs) / len(pairs)

    fb = ex10.check_pairwise_accuracy(ties_agree)
    assert not fb.passed and "tied by the metric" in text(fb)


def test_pairwise_accuracy_tie_rules_by_hand():
    from bleu_lab.metrics.agreement import TIE_RULES, pairwise_accuracy

    metric, human = [1, 1, 2, 3], [0.1, 0.2, 0.2, 0.5]  # pair (0, 1) tied by the metric, pair (1, 2) by people
    got = {rule: pairwise_accuracy(metric, human, ties=rule) for rule in TIE_RULES}
    assert got == {"sign": 4 / 6, "kocmi": 4 / 5, "exclude": 4 / 4, "strict": 4 / 6}
    assert pairwise_accuracy([1, 1, 2], [5, 5, 6], ties="sign") == 1.0  # both tie: agree
    assert pairwise_accuracy([1, 1, 2], [5, 5, 6], ties="strict") == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="ties must be one of"):
        pairwise_accuracy(metric, human, ties="drop")
    with pytest.raises(ValueError, match="every pair is tied"):
        pairwise_accuracy([1, 1], [2, 3], ties="exclude")


def test_rank_positions_instead_of_pairs_is_named():
    def same_rank_share(metric, human):
        rank = ex10._ranks
        return sum(a == b for a, b in zip(rank(metric), rank(human))) / len(metric)

    fb = ex10.check_pairwise_accuracy(same_rank_share)
    assert not fb.passed and "rank positions" in text(fb)


def test_pairwise_accuracy_needs_a_function():
    assert "pass your function itself" in text(ex10.check_pairwise_accuracy(0.75))


# --- exercise 2: reference ranks ------------------------------------------------------------------------------------


def test_reference_ranks_solution_passes_and_values_are_the_tables():
    ns = solution("10_reference_ranks.py")
    assert ns["ranks"] == ex10.expected_reference_ranks() == {"A": 6, "C": 3, "D": 2, "all": 2}
    fb = ex10.check_reference_ranks(ns["ranks"])
    assert fb.passed and "moves 4 places" in text(fb)


def test_reference_ranks_counted_from_the_worst_is_named():
    fb = ex10.check_reference_ranks({"A": 3, "C": 6, "D": 7, "all": 7})
    assert not fb.passed and text(fb).count("counted from the worst") == 4


def test_reference_ranks_as_strings_pass():
    """Issue 31: {"A": "6", ...} is a right answer in another form."""
    ranks = {key: str(value) for key, value in ex10.expected_reference_ranks().items()}
    assert ranks["A"] == "6" and ex10.check_reference_ranks(ranks).passed
    assert ex10.check_reference_ranks({key: f" {value}.0 " for key, value in ranks.items()}).passed


def test_reference_ranks_wrong_value_gets_a_hint_without_the_answer():
    fb = ex10.check_reference_ranks({"A": 1, "C": 3, "D": 2, "all": 2})
    assert not fb.passed and "ranks['A'] is not right" in text(fb) and "6" not in text(fb)


@pytest.mark.parametrize("answer", [None, {"A": 1}, [6, 3, 2, 2], {"A": 6, "C": 3, "D": 2, "all": "two"},
                                    {"A": 6, "C": 3, "D": 2, "all": 0}, {"A": 6, "C": 3, "D": 2, "all": "1e999999999"}])
def test_reference_ranks_bad_shapes(answer):
    fb = ex10.check_reference_ranks(answer)
    assert not fb.passed and ("dict with one rank per reference" in text(fb) or "whole number" in text(fb))


# --- exercise 3: results table --------------------------------------------------------------------------------------


def test_results_table_solution_passes():
    assert ex10.check_results_table(solution("10_results_table.py")["problems"]).passed


def test_results_table_partial_and_wrong_answers():
    fb = ex10.check_results_table({"A", "B"})
    assert not fb.passed and "you found 2 of the 4 right letters" in text(fb)
    fb = ex10.check_results_table({"A", "B", "C", "D", "E"})
    assert not fb.passed and "1 of the letters you chose is wrong" in text(fb)
    assert not re.search(r"\b[EF]\b", text(fb))  # which letter is wrong is not given away
    assert ex10.check_results_table("a, b, c, d").passed  # letters in a string are read too
    assert "unknown letters" in text(ex10.check_results_table({"Z"}))
    assert "set of letters" in text(ex10.check_results_table(3))


def test_the_table_shows_every_statement():
    shown = ex10.results_table_text()
    assert all(f"{letter}. " in shown for letter in ex10.TABLE_ISSUES)


# --- exercise 4: test-set size --------------------------------------------------------------------------------------


def test_test_set_size_solution_passes():
    assert ex10.check_test_set_size(solution("10_test_set_size.py")["n_segments"]).passed


def test_test_set_size_slips():
    half, n, needed = ex10.expected_test_set_size()
    assert 1000 < needed < 3000 and half > 2
    assert "SQUARE" in text(ex10.check_test_set_size(n * half))
    assert "Upside down" in text(ex10.check_test_set_size(n / half**2))
    assert "half-width" in text(ex10.check_test_set_size(n * (2 * half) ** 2))
    fb = ex10.check_test_set_size(160)
    assert not fb.passed and f"{needed:,.0f}" not in text(fb)
    assert text(ex10.check_test_set_size("2000")) == text(ex10.check_test_set_size(2000))  # "2000" reads as 2000
    for bad in (None, -5, float("nan"), True, "two thousand"):
        assert "positive number" in text(ex10.check_test_set_size(bad))


# --- exercise 5: written answer -------------------------------------------------------------------------------------


def test_metric_choice_model_answer_and_solution_pass():
    assert ex10.check_metric_choice(ex10.MODEL_ANSWER_METRIC_CHOICE).passed
    assert ex10.check_metric_choice(solution("10_metric_choice.py")["answer"]).passed


def test_metric_choice_is_recorded_with_what_is_missing():
    half = "I would run a bootstrap significance test on the test set first."
    first = ex10.check_metric_choice(half)
    assert not first.passed and "key points not found: look beyond BLEU" in text(first) and "✔" not in str(first)
    assert ex10.MODEL_ANSWER_METRIC_CHOICE in text(first)  # after a real try, to compare with
    assert "one or two sentences" in text(ex10.check_metric_choice("ship it"))
