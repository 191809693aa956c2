"""Checks for lesson 9, comparing systems.

- ``check_ar_p_value(my_ar_p_value)``: the approximate-randomization p-value from the trials' gaps,
  (#{trials with a gap >= observed} + 1) / (n + 1) as Noreen (1989) and Riezler & Maxwell (2005) define it and
  ``paired_randomization`` computes it; wrong numbers are matched against the usual slips (no +1, ties left out
  as sacrebleu leaves them out, counting the smaller gaps, a count instead of a fraction)
- ``check_bootstrap_interpretation(result, answer)``: a paired bootstrap of fluent against degraded, run with
  method="shift" and otherwise the defaults, and the one correct reading of its p-value (multiple choice)
- ``check_bonferroni(my_bonferroni)``: which comparisons stay significant when m of them are made at once

Expected values come from ``bleu_lab.metrics.significance``; the checks only compare and explain.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial

import numpy as np

from ...metrics.significance import BootstrapResult, bonferroni_alpha, holm_adjusted, p_value_with_ties
from . import (
    Case,
    Feedback,
    GradedExercise,
    LessonGrading,
    Slip,
    as_list,
    check_cases,
    choices_text,
    close,
    number_problem,
    shown,
)

# (case name, gaps |BLEU_a - BLEU_b| of the shuffled trials, observed gap)
AR_CASES: tuple[tuple[str, tuple[float, ...], float], ...] = (
    ("nine trials, four larger gaps", (0.2, 1.5, 0.7, 3.1, 0.4, 2.2, 0.9, 1.1, 0.3), 1.0),
    ("ties: two trials exactly as large as the observed gap", (0.5, 1.0, 1.0, 2.0, 0.1), 1.0),
    ("no trial beats the observed gap", (0.1, 0.2, 0.3, 0.2), 2.5),
    ("every trial beats the observed gap", (3.0, 4.0, 5.0), 1.0),
)


def check_ar_p_value(
    func: Callable[[np.ndarray, float], float], *, cases: Sequence[tuple[str, Sequence[float], float]] = AR_CASES,
    reveal: bool = False,
) -> Feedback:
    """Check ``func(trial_differences, observed)`` = (#{d >= observed} + 1) / (len(d) + 1).

    A recognised slip is named on the first wrong try; the formula comes only on a later try (or with
    ``reveal=True``)."""
    return check_cases("my_ar_p_value(trial_differences, observed)", func, (
        Case(f"case {case}: gaps {list(gaps)}, observed {observed}", (np.asarray(gaps, dtype=float), observed),
             number_problem(p_value_with_ties(np.asarray(gaps), observed), partial(_ar_slip, tuple(gaps), observed),
                            what="the p-value as a number"))
        for case, gaps, observed in cases), reveal=reveal,
        passed="all cases right: the trials with a gap at least as large as the observed one, plus one for the "
        "observed test set itself, as Noreen (1989) and Riezler & Maxwell (2005) count them. sacrebleu counts only "
        "strictly larger gaps (>): section 3 shows what that does to a one-sentence change.")


def _ar_slip(gaps: Sequence[float], observed: float, got: float) -> str | Slip:
    """A wrong p-value: the slip it shows, with the formula as a fix for a later try where the hint needs it."""
    hint, recipe = _ar_hint(gaps, observed, got)
    message = f"your p = {got:.4f} is not right. {hint}"
    return message if recipe is None else Slip(message, recipe)


def _ar_hint(gaps: Sequence[float], observed: float, got: float) -> tuple[str, str | None]:
    """The slip a wrong p-value shows (a hint without the formula), and the formula where the hint needs it."""
    n = len(gaps)
    above = sum(g > observed for g in gaps)
    at_least = sum(g >= observed for g in gaps)
    formula = "p = (count + 1) / (n + 1), with count = the trials whose gap is >= the observed one"
    no_plus_one = ("The observed assignment is itself one of the possible shuffles, and without it a finite run "
                   "could claim p = 0: where does it belong in the count, and in the number of trials? Section 3's "
                   "formula shows it.")
    a_count = "That is a count, not a p-value: a p-value is a share of the trials. Section 3's formula shows which."
    candidates = [
        ((above + 1) / (n + 1), "You left out the trials that tie the observed gap (> instead of >=), as sacrebleu "
                                "does. A shuffle that reproduces the observed gap exactly is as extreme as it: "
                                "count it. Section 3 shows why it matters.", None),
        (above / n, no_plus_one, formula),
        (at_least / n, no_plus_one, formula),
        ((above + 1) / n, "The denominator is n + 1 (the trials plus the observed test set), not n.", None),
        ((n - above + 1) / (n + 1), "You counted the trials with a SMALLER gap. The p-value counts how often "
                                    "chance alone produced a gap larger than the observed one.", None),
        (float(above), a_count, formula),
        (float(above + 1), a_count, formula),
    ]
    for value, hint, recipe in candidates:
        if close(got, value):
            return hint, recipe
    return ("Count the trials whose gap is at least as large as the observed one, then turn the count into a "
            "share of the trials plus the observed test set itself.", None)


# ------------------------------------------------------------------------------------------ interpretation

BASELINE, SYSTEM = "degraded", "fluent"

# letter -> (reading of the p-value, correct?, what to say about it)
INTERPRETATIONS: dict[str, tuple[str, bool, str]] = {
    "A": (
        "1 - p is the probability that fluent is really better than degraded, given this test set.",
        False,
        "A p-value is computed assuming there is NO real difference; it says how surprising the data would be "
        "then. It is not the probability of any hypothesis, so 1 - p is not the probability that fluent is better.",
    ),
    "B": (
        "p is the probability that the two systems are equally good; a small p would mean they probably differ.",
        False,
        "The p-value assumes the systems are equally good and asks how often a gap this large would still "
        "appear; it cannot be the probability of the very assumption it starts from.",
    ),
    "C": (
        "Equally good systems would often show a gap this large here: fluent is not shown better, nor shown equal.",
        True,
        "Right: p > 0.05 means 'not shown', not 'no difference'. More segments, or a more consistent "
        "difference, could still show one.",
    ),
    "D": (
        "p > 0.05, so the two systems are equally good and the gap between their scores on this test set is "
        "just noise.",
        False,
        "Absence of evidence is not evidence of absence: with 160 segments even a real 3-point difference can "
        "fail to reach significance. 'Not significant' means the test set is too small or too noisy to tell.",
    ),
}


def interpretations_text() -> str:
    """The choices of the multiple-choice question, one per line."""
    return choices_text(INTERPRETATIONS)


def expected_bootstrap(corpus=None) -> BootstrapResult:
    """The bootstrap the exercise asks for: degraded (baseline) vs fluent (system), ref A, method="shift"."""
    from ...data import load_corpus
    from ...metrics.significance import paired_bootstrap

    corpus = load_corpus("news") if corpus is None else corpus
    return paired_bootstrap(corpus.systems[BASELINE], corpus.systems[SYSTEM], corpus.references_for("A"),
                            method="shift")


def check_bootstrap_interpretation(result: object, answer: object, corpus=None) -> Feedback:
    """Check a paired bootstrap of fluent (system) against degraded (baseline) and the reading of its p-value."""
    fb = Feedback("a paired bootstrap and what its p-value means")
    expected = expected_bootstrap(corpus)
    if not isinstance(result, BootstrapResult):
        fb.fail(f"result must be what bl.paired_bootstrap(...) returns, not {type(result).__name__}: "
                "call it with the degraded outputs, the fluent outputs and the references of ref A")
    else:
        _check_run(fb, result, expected)
    letter = answer.strip().upper() if isinstance(answer, str) else None
    if letter not in INTERPRETATIONS:
        fb.fail(f"answer must be one letter among {', '.join(INTERPRETATIONS)} (as a string, e.g. answer = 'A')")
    else:
        text, correct, why = INTERPRETATIONS[letter]
        if correct:
            fb.note(f"{letter}: {why}")
        else:
            fb.fail(f"{letter} is not right. {why}")
    return fb


def _check_run(fb: Feedback, result: BootstrapResult, expected: BootstrapResult) -> None:
    base, system = result.baseline.score, result.system.score
    want_base, want_system = expected.baseline.score, expected.system.score
    if math.isclose(base, want_system) and math.isclose(system, want_base):
        fb.fail(f"you swapped the two systems: the baseline (first argument) is {BASELINE}, the system "
                f"(second) is {SYSTEM}, so that the difference system - baseline is positive")
        return
    if not (math.isclose(base, want_base) and math.isclose(system, want_system)):
        fb.fail(f"your scores are {base:.2f} (baseline) and {system:.2f} (system), but {BASELINE} and {SYSTEM} "
                f"score {want_base:.2f} and {want_system:.2f} against reference A: use corpus.systems[...] and "
                "corpus.references_for('A'), with the default options")
        return
    if result.method != expected.method:
        fb.fail(f"your run reports {shown(result.method)} p-values: pass method='shift' for the two-sided p-value of "
                "section 2 (the default, 'sacrebleu', is what sacrebleu prints: roughly a one-sided p)")
        return
    if result.n_samples != expected.n_samples or result.seed != expected.seed:
        fb.fail(f"you ran {result.n_samples} resamples with seed {result.seed}; keep the defaults "
                f"(n_samples={expected.n_samples}, seed={expected.seed}) so that everyone reads the same p-value")
        return
    fb.note(f"your run: difference {result.difference:+.2f} BLEU, p = {result.p_value:.4f} "
            f"({result.verdict})")


# ------------------------------------------------------------------------------------------ multiple comparisons

# (case name, p-values by comparison, family-wise alpha)
BONFERRONI_CASES: tuple[tuple[str, dict[str, float], float], ...] = (
    ("six comparisons at alpha = 0.05",
     {"A vs B": 0.001, "A vs C": 0.02, "B vs C": 0.3, "A vs D": 0.004, "B vs D": 0.06, "C vs D": 0.011}, 0.05),
    ("ten comparisons at alpha = 0.05",
     {f"S{i} vs S{j}": p for (i, j), p in zip(
         [(1, 2), (1, 3), (1, 4), (1, 5), (2, 3), (2, 4), (2, 5), (3, 4), (3, 5), (4, 5)],
         [0.0004, 0.003, 0.006, 0.012, 0.049, 0.0049, 0.2, 0.03, 0.0009, 0.7])}, 0.05),
    ("four comparisons at alpha = 0.01", {"w": 0.002, "x": 0.004, "y": 0.0001, "z": 0.009}, 0.01),
    # two p-values between alpha / m = 0.01 and alpha / (m - 1) = 0.0125: dividing by one comparison too few shows
    ("five comparisons at alpha = 0.05, the smallest p just above alpha / m",
     {"base vs A": 0.011, "base vs B": 0.04, "base vs C": 0.3, "base vs D": 0.012, "base vs E": 0.6}, 0.05),
    ("a single comparison (nothing to correct)", {"only": 0.03}, 0.05),
)


def expected_bonferroni(p_values: Mapping[str, float], alpha: float) -> set[str]:
    """The comparisons with p < alpha / m (m = the number of comparisons)."""
    threshold = bonferroni_alpha(alpha, len(p_values))
    return {name for name, p in p_values.items() if p < threshold}


def check_bonferroni(
    func: Callable[[dict[str, float], float], Iterable[str]], *,
    cases: Sequence[tuple[str, Mapping[str, float], float]] = BONFERRONI_CASES,
) -> Feedback:
    """Check ``func(p_values, alpha)`` returns the names of the comparisons with p < alpha / m."""
    return check_cases("my_bonferroni(p_values, alpha)", func, (
        Case(f"case {case}", (dict(p_values), alpha), partial(_bonferroni_problem, dict(p_values), alpha))
        for case, p_values, alpha in cases),
        passed="all cases right: with m comparisons, each one must reach p < alpha / m")


def _bonferroni_problem(p_values: Mapping[str, float], alpha: float, got: object) -> str | None:
    names = list(got) if isinstance(got, Mapping) else as_list(got)  # a dict's keys are names too
    if names is None or any(not isinstance(name, str) for name in names):
        return ("return the names of the significant comparisons (a list or set of the dictionary keys), not "
                f"{shown(got)}")
    expected = expected_bonferroni(p_values, alpha)
    if set(names) == expected:
        return None
    return f"you returned {shown(sorted(names))}. " + _bonferroni_hint(p_values, alpha, set(names))


def _bonferroni_hint(p_values: Mapping[str, float], alpha: float, got: set[str]) -> str:
    m = len(p_values)
    if got == {n for n, p in p_values.items() if p < alpha}:
        return (f"You tested each comparison at alpha = {alpha:g}. With m = {m} comparisons, some 'significant' "
                f"result is likely by chance alone; Bonferroni tests each at alpha / m = {alpha / m:g}.")
    if got == {n for n, p in p_values.items() if p < alpha * m}:
        return f"Divide alpha by m, don't multiply: the threshold is {alpha:g} / {m} = {alpha / m:g}."
    if got == {n for n, p in p_values.items() if p >= alpha / m}:
        return "You returned the comparisons that are NOT significant: keep those with p < alpha / m."
    if m > 1 and got == {n for n, p in p_values.items() if p < alpha / (m - 1)}:
        return (f"Your threshold lets through a p-value above alpha / m: count the comparisons again. Here the "
                f"dictionary holds {m} of them, and every one of them counts in m (a loop or an index may have "
                "left one out).")
    names = list(p_values)
    if got == {names[i] for i, a in enumerate(holm_adjusted(list(p_values.values()))) if a <= alpha}:
        return ("That is Holm's step-down procedure (section 7): it is right to use, and rejects at least what "
                "Bonferroni does, but this exercise asks for Bonferroni's one threshold for every comparison.")
    return f"The threshold is alpha / m = {alpha:g} / {m} = {alpha / m:g}; keep the names whose p is below it."


# For ``bleu-lab grade``: hidden cases drawn at grading time (no hidden case ships).
def hidden_ar_cases(rng: random.Random) -> dict:
    """(name, trial gaps, observed gap) for ``check_ar_p_value(..., cases=...)``, ties included."""
    cases = []
    for name in ("drawn gaps", "drawn gaps with ties", "one trial"):
        gaps = tuple(round(rng.uniform(0, 3), 1) for _ in range(1 if name == "one trial" else rng.randint(5, 25)))
        observed = rng.choice(gaps) if name == "drawn gaps with ties" else round(rng.uniform(0, 3), 2)
        cases.append((name, gaps, observed))
    return {"cases": cases}


def hidden_bonferroni_cases(rng: random.Random) -> dict:
    """(name, p-values by comparison, alpha) for ``check_bonferroni(..., cases=...)``: 3 to 8 comparisons, each case
    with a p-value below alpha / m, one strictly between alpha / m and alpha / (m - 1) (which a threshold divided
    by one comparison too few lets through) and one between alpha / (m - 1) and alpha; none exactly at alpha / m."""
    cases = []
    for alpha in (0.05, rng.choice((0.01, 0.1))):
        m = rng.randint(3, 8)
        low, high = alpha / m, alpha / (m - 1)
        margin = (high - low) / 4
        p_values = [round(rng.uniform(0, low), 6), round(rng.uniform(low + margin, high - margin), 6),
                    round(rng.uniform(high + margin, alpha - margin), 6)]
        p_values += [round(rng.choice((rng.uniform(0, alpha), rng.uniform(0, 0.5))), 4) for _ in range(m - 3)]
        p_values = [p if p != low else p / 2 for p in p_values]
        rng.shuffle(p_values)
        names = {f"S{i} vs S{i + 1}": p for i, p in enumerate(p_values, start=1)}
        cases.append((f"{m} comparisons at alpha = {alpha}", names, alpha))
    return {"cases": cases}


GRADING = LessonGrading("09_comparing_systems", (
    GradedExercise("my_ar_p_value", check_ar_p_value, ("my_ar_p_value",), hidden=hidden_ar_cases,
                   implemented_by=("bleu_lab.metrics.significance.randomization_p_value",
                                   "bleu_lab.metrics.significance.p_value",
                                   "bleu_lab.metrics.significance.p_value_with_ties")),
    GradedExercise("a paired bootstrap and its p-value", check_bootstrap_interpretation, ("result", "answer"),
                   implemented_by=()),
    GradedExercise("my_bonferroni", check_bonferroni, ("my_bonferroni",), hidden=hidden_bonferroni_cases,
                   implemented_by=("bleu_lab.metrics.significance.bonferroni_alpha",)),
))
