"""Checks for lesson 4, putting BLEU together.

- ``check_geometric_mean(my_geometric_mean)``: exp(sum_n w_n log p_n) from given p_n and weights
- ``check_sentence_bleu(my_sentence_bleu)``: BP x geometric mean, assembled from bleu_lab's parts

Expected values come from ``bleu_lab.geometric_mean`` and ``bleu_lab.sentence_bleu``; the checks compare and explain.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

from ...brevity import brevity_penalty, closest_ref_length
from ...geometric_mean import bleu_from_precisions
from ...nltk_style import sentence_bleu, without_warnings
from ...precision import modified_precision
from . import (
    Case,
    Feedback,
    GradedExercise,
    LessonGrading,
    check_cases,
    close,
    number_problem,
    random_sentence,
    random_variant,
)

UNIFORM = (0.25, 0.25, 0.25, 0.25)

# (case name, precisions, weights); every p_n > 0 except in the last case.
GEOMETRIC_CASES: tuple[tuple[str, tuple[float, ...], tuple[float, ...]], ...] = (
    ("the cat example", (5 / 8, 4 / 7, 2 / 6, 1 / 5), UNIFORM),
    ("one weak order", (0.9, 0.9, 0.9, 0.01), UNIFORM),
    ("unequal weights", (0.9, 0.5), (0.75, 0.25)),
    ("all weight on unigrams", (0.6, 0.3, 0.2, 0.1), (1.0, 0.0, 0.0, 0.0)),
    ("a zero precision", (0.8, 0.5, 0.25, 0.0), UNIFORM),
)

# (case name, references, hypothesis): all four p_n > 0, so no smoothing question arises.
SENTENCE_CASES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("the cat example (c > r)", ("the cat is on the mat", "there is a cat on the mat"),
     "the cat and the cat on the mat"),
    ("the NASA candidate 1 (c < r)", ("the nasa opportunity rover is battling a massive dust storm on planet mars .",),
     "the opportunity rover is combating a big sandstorm on planet mars ."),
    ("three references of different lengths",
     ("look , the cat is on a red mat", "the cat is on the mat now", "the cat sat"),
     "the cat is on the mat"),
)


def check_geometric_mean(
    func: Callable[[Sequence[float], Sequence[float]], float], *,
    cases: Sequence[tuple[str, Sequence[float], Sequence[float]]] = GEOMETRIC_CASES,
) -> Feedback:
    """Check ``func(precisions, weights)`` against exp(sum_n w_n log p_n) (0 when a weighted p_n is 0)."""
    return check_cases("my_geometric_mean(precisions, weights)", func, (
        _geometric_case(case, tuple(precisions), tuple(weights)) for case, precisions, weights in cases),
        passed="right on every case, including a zero precision (the whole mean collapses to 0)")


def _geometric_case(case: str, precisions: tuple[float, ...], weights: tuple[float, ...]) -> Case:
    zero = any(p == 0 and w > 0 for p, w in zip(precisions, weights))
    # A factor 0 makes a product 0; bleu_from_precisions follows nltk and skips it, so say 0 here.
    expected = 0.0 if zero else bleu_from_precisions(1.0, weights, precisions)
    return Case(f"case {case}: p_n = {_fmt(precisions)}, weights = {_fmt(weights)}", (list(precisions), list(weights)),
                number_problem(expected, lambda got: f"expected {expected:.6g}, you returned {got:.6g}. "
                               + _geometric_hint(precisions, weights, got, zero)),
                on_error="log(0) is undefined: when some p_n with weight > 0 is 0, the geometric mean is 0; return 0.0 "
                "before taking logs" if zero else "")


def _fmt(values: Sequence[float]) -> str:
    return "(" + ", ".join(f"{v:.3g}" for v in values) + ")"


def _geometric_hint(precisions: Sequence[float], weights: Sequence[float], got: float, zero: bool) -> str:
    """Name the likely mistake behind a wrong weighted geometric mean."""
    positive = [(w, p) for w, p in zip(weights, precisions) if p > 0]
    if zero:
        if close(got, math.exp(math.fsum(w * math.log(p) for w, p in positive))):
            return ("You skipped the zero precision, which treats it as p = 1 (old nltk did this). "
                    "A product with a factor 0 is 0: the geometric mean is 0.")
        return "One p_n with weight > 0 is 0, so the weighted product — and the geometric mean — is 0."
    if close(got, math.fsum(w * p for w, p in zip(weights, precisions))):
        return "That is the weighted *arithmetic* mean sum w_n p_n; BLEU takes exp(sum w_n log p_n)."
    if close(got, math.fsum(w * math.log(p) for w, p in positive)):
        return "That is sum w_n log p_n, still on the log scale: take exp() of it."
    if close(got, math.prod(precisions)):
        return "That is the plain product of the p_n; each factor must be raised to its weight: prod p_n ** w_n."
    if close(got, math.exp(math.fsum(map(math.log, precisions)) / len(precisions))):
        return "You ignored the weights (an unweighted mean of the logs); use w_n * log p_n."
    return "Compute exp(sum over n of w_n * log p_n), or equivalently prod p_n ** w_n."


def check_sentence_bleu(
    func: Callable[[Sequence[str], str], float], *, cases: Sequence[tuple[str, Sequence[str], str]] = SENTENCE_CASES
) -> Feedback:
    """Check ``func(references, hypothesis)`` against ``bleu_lab.sentence_bleu`` (BLEU-4, no smoothing)."""
    return check_cases("my_sentence_bleu(references, hypothesis)", func, (
        _sentence_case(case, list(references), hypothesis) for case, references, hypothesis in cases),
        passed="your assembly equals bleu_lab.sentence_bleu (and so nltk) on every case")


def _sentence_case(case: str, refs: list[str], hypothesis: str) -> Case:
    expected = without_warnings(sentence_bleu, refs, hypothesis)
    return Case(f"case {case}", (refs, hypothesis), number_problem(
        expected, lambda got: f"expected BLEU = {expected:.6g}, you returned {got:.6g}. "
        + _sentence_hint(refs, hypothesis, got)))


def _sentence_hint(refs: list[str], hypothesis: str, got: float) -> str:
    """Compare with the score built from the wrong parts students typically use."""
    c = len(hypothesis.split())
    r = closest_ref_length(refs, c)
    bp = brevity_penalty(r, c)
    p_n = [modified_precision(refs, hypothesis, n) for n in range(1, 5)]
    mean = bleu_from_precisions(1.0, UNIFORM, p_n)
    parts = f"Here c = {c}, r = {r}, BP = {bp:.4g}, p_n = {', '.join(map(str, p_n))}, geometric mean = {mean:.4g}."
    lengths = {len(ref.split()) for ref in refs}
    wrong_r = [(label, other) for label, other in (
        ("the first reference's", len(refs[0].split())), ("the shortest reference's", min(lengths)),
        ("the longest reference's", max(lengths))) if other != r]
    if bp != 1 and close(got, mean):
        also = [f"took {label} length {other} as r" for label, other in wrong_r if brevity_penalty(other, c) == 1]
        return (f"You left out the brevity penalty{' (or ' + also[0] + ', which gives BP = 1)' if also else ''}. "
                f"{parts}")
    for label, other in wrong_r:
        if close(got, brevity_penalty(other, c) * mean):
            return f"You used {label} length {other} as r; r is the length closest to c (ties to the shorter). {parts}"
    first_only = bleu_from_precisions(bp, UNIFORM, [modified_precision(refs[:1], hypothesis, n) for n in range(1, 5)])
    if len(refs) > 1 and close(got, first_only):
        return f"You clipped against the first reference only; the counts are clipped against all of them. {parts}"
    if close(got, bp * math.fsum(0.25 * float(p) for p in p_n)):
        return f"You took the arithmetic mean of the p_n; BLEU uses the geometric mean. {parts}"
    return (f"{parts} Assemble BLEU-4 as BP(r, c) times the uniform geometric mean of p_1 ... p_4, with c the "
            "hypothesis length and r the reference length closest to c.")

# For ``bleu-lab grade``: hidden cases drawn at grading time (no hidden case ships).
def hidden_geometric_cases(rng: random.Random) -> dict:
    """(name, precisions, weights) for ``check_geometric_mean(..., cases=...)``: 2 to 5 orders, one with a zero."""
    cases = []
    for name in ("random precisions", "random precisions and weights", "a zero precision"):
        k = rng.randint(2, 5)
        precisions = [round(rng.uniform(0.05, 1.0), 3) for _ in range(k)]
        weights = [1 / k] * k if name == "random precisions" else _normalised([rng.uniform(0.1, 1) for _ in range(k)])
        if name == "a zero precision":
            precisions[rng.randrange(k)] = 0.0
        cases.append((name, tuple(precisions), tuple(weights)))
    return {"cases": cases}


def _normalised(values: list[float]) -> list[float]:
    total = sum(values)
    return [v / total for v in values]


def hidden_sentence_cases(rng: random.Random) -> dict:
    """(name, references, hypothesis) for ``check_sentence_bleu(..., cases=...)``: every p_n > 0."""
    cases = []
    while len(cases) < 3:
        refs = tuple(random_sentence(rng, 5, 12) for _ in range(rng.randint(1, 3)))
        hypothesis = random_variant(rng, rng.choice(refs), rng.randint(1, 3))
        if all(modified_precision(list(refs), hypothesis, n) > 0 for n in range(1, 5)):
            cases.append((f"drawn case {len(cases) + 1}", refs, hypothesis))
    return {"cases": cases}


# bleu_lab's own answers (``GradedExercise.implemented_by``). A sentence BLEU may use the earlier lessons' p_n and BP
# from bleu_lab, but not its geometric mean: that is this lesson's other exercise.
GEOMETRIC_MEAN = ("bleu_lab.geometric_mean.geometric_mean", "bleu_lab.geometric_mean.weighted_log_sum",
                  "bleu_lab.geometric_mean.bleu_from_precisions")
SENTENCE_BLEU = ("bleu_lab.nltk_style.sentence_bleu", "bleu_lab.nltk_style.corpus_bleu", "bleu_lab.nltk_style._bleu",
                 "bleu_lab.nltk_style._score", "bleu_lab.nltk_style.bleu_from_stats",
                 "bleu_lab.reports.explain.explain", "bleu_lab.sacrebleu_style.sentence_score",
                 "bleu_lab.sacrebleu_style.corpus_score", "bleu_lab.sacrebleu_style.score_from_stats")

GRADING = LessonGrading("04_putting_it_together", (
    GradedExercise("my_geometric_mean", check_geometric_mean, ("my_geometric_mean",),
                   hidden=hidden_geometric_cases, implemented_by=GEOMETRIC_MEAN),
    GradedExercise("my_sentence_bleu", check_sentence_bleu, ("my_sentence_bleu",),
                   hidden=hidden_sentence_cases, implemented_by=SENTENCE_BLEU + GEOMETRIC_MEAN),
))
