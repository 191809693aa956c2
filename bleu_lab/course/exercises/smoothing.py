"""Checks for lesson 6 (smoothing): sacrebleu's 'exp' smoothing, nltk's method1, and which methods are the same.

Each check runs the student's answer on small cases, compares with bleu_lab's own smoothing functions
(``bleu_lab.smoothing``) and, when they differ, names the case and the n-gram order and says which typical
mistake the numbers point to (2^n instead of 2^k, a forgotten x100, epsilon added to the denominator, ...).
"""

from __future__ import annotations

import math
import random
import warnings
from collections.abc import Callable, Mapping, Sequence
from functools import partial

from ...nltk_style import sentence_bleu, without_warnings
from ...precision import ModifiedPrecision
from ...sacrebleu_style import sentence_score
from ...smoothing import EPSILON, NLTK_METHODS, method1, sacrebleu_precisions
from ...statistics import BleuStats
from . import (
    Case,
    Feedback,
    GradedExercise,
    LessonGrading,
    as_list,
    as_number,
    check_cases,
    close,
    shown,
)

# (matches, totals) per order 1-4 for my_exp_smoothing: one zero, zeros in a row, a gap between zeros, none.
EXP_CASES: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = (
    ((5, 3, 1, 0), (6, 5, 4, 3)),
    ((4, 2, 0, 0), (6, 5, 4, 3)),
    ((3, 0, 0, 0), (5, 4, 3, 2)),
    ((2, 0, 1, 0), (5, 4, 3, 2)),
    ((10, 7, 5, 3), (12, 11, 10, 9)),
)

# (matches, denominators, epsilon) for my_method1; the last case uses another epsilon.
METHOD1_CASES: tuple[tuple[tuple[int, ...], tuple[int, ...], float], ...] = (
    ((5, 3, 1, 0), (6, 5, 4, 3), EPSILON),
    ((3, 0, 0, 0), (5, 4, 3, 2), EPSILON),
    ((10, 7, 5, 3), (12, 11, 10, 9), EPSILON),
    ((4, 2, 0, 0), (6, 5, 4, 3), 0.5),
)

# (reference, hypothesis) pairs, all at least 4 tokens long and without punctuation, so that sacrebleu
# (tokenize='none', effective_order=False) and nltk see the same tokens and the same denominators.
MATCH_CASES: tuple[tuple[str, str], ...] = (
    ("the cat is on the mat", "the cat sat on the mat"),
    ("he reads the book every evening", "every evening he reads a book"),
    ("the quick brown fox jumps over the lazy dog", "a fast brown fox leaps over a lazy dog"),
)
MATCHED_SACREBLEU_METHODS = ("exp", "floor", "add-k")


def expected_exp(matches: Sequence[int], totals: Sequence[int]) -> list[float]:
    """sacrebleu's 'exp'-smoothed p_n in percent (bleu_lab's reference answer)."""
    return sacrebleu_precisions(matches, totals, "exp", None, False)[0]


def check_exp_smoothing(
    func: Callable, *, cases: Sequence[tuple[Sequence[int], Sequence[int]]] = EXP_CASES
) -> Feedback:
    """Check ``func(matches, totals)`` returns sacrebleu's 'exp'-smoothed p_1..p_4 in percent on every case."""
    return check_cases("my_exp_smoothing", func, (
        Case(f"matches={list(matches)}, totals={list(totals)}", (list(matches), list(totals)),
             partial(_smoothing_problem, _exp_problem, tuple(matches), tuple(totals)))
        for matches, totals in cases), stop_on_error=True)


def _smoothing_problem(problem: Callable[..., str | None], *args_and_result) -> str | None:
    """What is wrong with one list of smoothed precisions: its form first, then ``problem(*args, the list)``."""
    *args, result = args_and_result
    listed = as_list(result)
    result = listed if listed is not None else result
    return _list_problem(result, len(args[0])) or problem(*args, result)


def _exp_problem(matches: Sequence[int], totals: Sequence[int], result: Sequence[float]) -> str | None:
    """What is wrong with one my_exp_smoothing answer: each wrong order, then the likely mistakes (None if right)."""
    expected = expected_exp(matches, totals)
    got_all = [float(v) for v in result]
    wrong, why = [], []
    k = 0
    for n, (m, t, want, got) in enumerate(zip(matches, totals, expected, got_all), start=1):
        k += m == 0
        if _close(got, want):
            continue
        if m > 0:
            wrong.append(f"p_{n} is {got:.4g}, but order {n} has a match ({m} of {t}): it is not smoothed")
        else:
            wrong.append(f"p_{n} is {got:.4g}, not right: order {n} has no match, and it is the {_ordinal(k)} "
                         "order without one")
            if _close(got, 100 / (2**n * t)) and n != k:
                why.append("the exponent k counts the orders without a match so far, it is not the order n")
            elif _close(got, 100 / (2 * t)) and k > 1:
                why.append("the factor must double with every further order that has no match")
            elif got == 0:
                why.append("a zero must be replaced: that is the whole point of smoothing")
        if _close(got, want / 100):
            why.append("multiply by 100: sacrebleu's precisions are percentages")
    return _problem_text(wrong, why)


def check_method1(
    func: Callable, *, cases: Sequence[tuple[Sequence[int], Sequence[int], float]] = METHOD1_CASES
) -> Feedback:
    """Check ``func(matches, denominators, epsilon)`` returns nltk's method1 p_1..p_4 (0–1) on every case."""
    return check_cases("my_method1", func, (
        Case(f"matches={list(matches)}, denominators={list(denominators)}, epsilon={epsilon}",
             (list(matches), list(denominators), epsilon),
             partial(_smoothing_problem, _method1_problem, tuple(matches), tuple(denominators), epsilon))
        for matches, denominators, epsilon in cases), stop_on_error=True)


def expected_method1(matches: Sequence[int], denominators: Sequence[int], epsilon: float) -> list[float]:
    """nltk's method1-smoothed p_n (0–1), computed by ``bleu_lab.smoothing.method1``."""
    p_n = [ModifiedPrecision(m, d) for m, d in zip(matches, denominators)]
    stats = BleuStats(denominators[0], denominators[0], tuple(matches), tuple(denominators), (0,) * len(matches))
    return [float(p) for p in method1(p_n, stats, epsilon)]


def _method1_problem(
    matches: Sequence[int], denominators: Sequence[int], epsilon: float, result: Sequence[float]
) -> str | None:
    """What is wrong with one my_method1 answer: each wrong order, then the likely mistakes (None if right)."""
    expected = expected_method1(matches, denominators, epsilon)
    wrong, why = [], []
    for n, (m, d, want, got) in enumerate(zip(matches, denominators, expected, map(float, result)), start=1):
        if _close(got, want):
            continue
        if m > 0:
            wrong.append(f"p_{n} is {got:.4g}, but order {n} has a match ({m} of {d}): it is not smoothed")
            if _close(got, (m + epsilon) / d):
                why.append("epsilon is added only where the match count is 0")
            continue
        wrong.append(f"p_{n} is {got:.4g}, not right: order {n} has no match")
        if _close(got, epsilon / (d + epsilon)):
            why.append("epsilon goes into the numerator only; the denominator stays the number of n-grams")
        elif _close(got, epsilon):
            why.append("divide epsilon by the number of hypothesis n-grams")
        elif _close(got, EPSILON / d) and epsilon != EPSILON:
            why.append(f"use the epsilon argument ({epsilon}), not a fixed 0.1")
        elif got == 0:
            why.append("a zero must be replaced: that is the whole point of smoothing")
    return _problem_text(wrong, why)


def _problem_text(wrong: list[str], why: list[str]) -> str | None:
    """The wrong orders, then each distinct diagnosis once; None if nothing is wrong."""
    if not wrong:
        return None
    hints = list(dict.fromkeys(why))
    return "; ".join(wrong) + ("" if not hints else " — " + "; ".join(hints))


def check_library_match(answer: Mapping[str, str]) -> Feedback:
    """Check ``answer`` maps each of sacrebleu's 'exp', 'floor', 'add-k' to the nltk method with the same scores."""
    fb = Feedback("sacrebleu_to_nltk")
    if not isinstance(answer, Mapping):
        return fb.fail(f"answer must be a dict like {{'exp': 'method?', ...}}, not {type(answer).__name__}")
    for sacre in MATCHED_SACREBLEU_METHODS:
        choice = answer.get(sacre)
        if choice not in NLTK_METHODS:
            fb.fail(f"answer[{sacre!r}] is {shown(choice)}; it must be one of 'method0' ... 'method7'")
            continue
        mismatch = _first_mismatch(sacre, choice)
        if mismatch:
            fb.fail(mismatch)
    extra = sorted(map(str, set(answer) - set(MATCHED_SACREBLEU_METHODS)))
    if extra:
        fb.note(f"ignored keys {shown(extra)}: only 'exp', 'floor' and 'add-k' have an nltk twin to find")
    return fb


def _first_mismatch(sacre: str, choice: str) -> str | None:
    """A message for the first case where sacrebleu's ``sacre`` and nltk's ``choice`` differ (None if never)."""
    for ref, hyp in MATCH_CASES:
        want = sentence_score(hyp, [ref], tokenize="none", smooth_method=sacre, effective_order=False).score / 100
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = without_warnings(sentence_bleu, [ref], hyp, smoothing=choice)
        if not math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12):
            return (
                f"{sacre!r} is not {choice!r}: for hypothesis {hyp!r} (reference {ref!r}) sacrebleu's {sacre!r} gives "
                f"{want:.6f} (0–1 scale) but nltk's {choice} gives {got:.6g}; compare how each fills a zero p_n"
            )
    return None


def _list_problem(result: object, length: int) -> str | None:
    """A message if ``result`` is not a list of ``length`` numbers (None if it is)."""
    if result is None or result is Ellipsis:
        return f"your function returned {shown(result)}; return a list of {length} numbers, one p_n per order"
    if isinstance(result, (str, bytes)) or not isinstance(result, Sequence):
        return f"your function returned a {type(result).__name__}; return a list of {length} numbers"
    if len(result) != length:
        return f"your function returned {len(result)} values; return {length}, one per order n = 1..{length}"
    bad = [v for v in result if as_number(v, strings=False) is None or math.isnan(float(as_number(v, strings=False)))]
    if bad:
        return f"every value must be a number; found {shown(bad[0])}"
    result[:] = [float(as_number(v, strings=False)) for v in result]
    return None


def _close(got: float, want: float) -> bool:
    return close(got, want)


def _ordinal(k: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(k, f"{k}th")

# For ``bleu-lab grade``: hidden cases drawn at grading time (no hidden case ships).
def _matches_totals(rng: random.Random, orders: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Per-order totals (one fewer each order) and matches, some of them 0."""
    first = rng.randint(orders + 1, 15)
    totals = tuple(first - k for k in range(orders))
    matches = tuple(0 if rng.random() < 0.4 else rng.randint(1, t) for t in totals)
    return matches, totals


def hidden_exp_cases(rng: random.Random) -> dict:
    """(matches, totals) for ``check_exp_smoothing(..., cases=...)``: zeros in a row and apart, 3 or 4 orders."""
    cases = [_matches_totals(rng, rng.choice((3, 4))) for _ in range(3)]
    cases.append(((rng.randint(1, 6), 0, 0, 0), (7, 6, 5, 4)))
    return {"cases": cases}


def hidden_method1_cases(rng: random.Random) -> dict:
    """(matches, denominators, epsilon) for ``check_method1(..., cases=...)``, with other epsilons than 0.1."""
    return {"cases": [(*_matches_totals(rng, 4), eps) for eps in (EPSILON, rng.choice((0.01, 0.2, 0.5)))]
            + [((rng.randint(1, 6), 0, 0, 0), (7, 6, 5, 4), rng.choice((0.05, 0.3)))]}


GRADING = LessonGrading("06_smoothing", (
    GradedExercise("my_exp_smoothing", check_exp_smoothing, ("my_exp_smoothing",), hidden=hidden_exp_cases,
                   implemented_by=("bleu_lab.smoothing.sacrebleu_precisions", "bleu_lab.smoothing.method3")),
    GradedExercise("my_method1", check_method1, ("my_method1",), hidden=hidden_method1_cases,
                   implemented_by=("bleu_lab.smoothing.method1",)),
    GradedExercise("sacrebleu_to_nltk", check_library_match, ("sacrebleu_to_nltk",), implemented_by=()),
))
