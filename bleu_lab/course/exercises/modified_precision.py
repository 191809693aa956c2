"""Checks for lesson 2 (modified precision): p_2 by hand, a full ``my_modified_precision``, a word salad.

The expected values come from bleu_lab's ``modified_precision`` (nltk's semantics: clipped matches divided
by max(1, number of hypothesis n-grams)); when an answer differs, the check recomputes the usual mistakes
(no clipping, references added up, dividing by words instead of n-grams, ...) to say which one it was.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import partial
from numbers import Rational, Real

from ...clipping import clip_counts, clip_table, max_reference_counts
from ...ngrams import count_ngrams
from ...precision import modified_precision
from . import (
    Case,
    Feedback,
    GradedExercise,
    LessonGrading,
    as_number,
    check_cases,
    close,
    number_text_problem,
    random_sentence,
    random_variant,
    same_number,
    shown,
    tiered_hint,
)

P2_BY_HAND_REFERENCES = ("the cat sat on the mat", "a cat is on the mat")
P2_BY_HAND_HYPOTHESIS = "on the mat the cat sat on the mat"

# (references, hypothesis, n): the lessons' examples, then the edge cases (no matches, too short, empty).
PRECISION_CASES: tuple[tuple[tuple[str, ...], str, int], ...] = (
    (("the cat is on the mat", "there is a cat on the mat"), "the cat and the cat on the mat", 1),
    (("the cat is on the mat", "there is a cat on the mat"), "the cat and the cat on the mat", 2),
    (("the cat is on the mat", "there is a cat on the mat"), "the cat and the cat on the mat", 3),
    (("the cat is on the mat", "there is a cat on the mat"), "the cat and the cat on the mat", 4),
    (("the cat is on the mat", "there is a cat on the mat"), "the the the the the the the", 1),
    (("this is a test", "this is is is test"), "is some", 1),
    (("this is small test",), "this is a test", 2),
    (("the cat", "the dog", "a bird"), "the the the the", 1),
    (("the cat", "the dog", "a bird"), "the cat the dog", 2),
    (("x y z",), "a b c", 1),
    (("the cat is on the mat",), "cat", 2),
    (("the cat is on the mat",), "", 1),
)

WORD_SALAD_REFERENCE = "the cat is on the mat"
WORD_SALAD_MIN_WORDS = 4


P2_FIRST_HINT = ("p_2 = (clipped bigram matches) / (bigrams of the hypothesis): list the hypothesis's bigrams (one "
                 "fewer than its words), and give each one at most as many matches as the ONE reference that has "
                 "it most")


def check_p2_by_hand(answer: object, *, reveal: bool = False) -> Feedback:
    """Check a hand-computed p_2 (a Fraction) for the P2_BY_HAND sentence pair.

    A wrong value gets a general hint first, then the diagnosis of the likely slip, and the value itself only after
    that (or with ``reveal=True``).
    """
    fb = Feedback("p_2 by hand")
    refs, hyp = list(P2_BY_HAND_REFERENCES), P2_BY_HAND_HYPOTHESIS
    expected = modified_precision(refs, hyp, 2)
    value = _as_exact(fb, answer, "Fraction(3, 7)")
    if value is None:
        return fb
    if value != expected:
        diagnosis = f"you entered {_show(value)}; " + _precision_hint(refs, hyp, 2, value, exact=True)
        tiered_hint(fb, [P2_FIRST_HINT, diagnosis], f"p_2 = {expected}", reveal=reveal)
    else:
        fb.note(f"p_2 = {expected}: {expected.numerator} clipped bigram matches out of {expected.denominator} bigrams")
    return fb


def _as_exact(fb: Feedback, answer: object, example: str) -> Fraction | None:
    """The answer as an exact Fraction, or None after recording why it cannot be one."""
    if answer is None or answer is Ellipsis:
        fb.fail(f"replace ... with your answer as a fraction, e.g. {example}")
        return None
    if isinstance(answer, bool):
        fb.fail(f"give a number such as {example}, not {answer}")
        return None
    if isinstance(answer, tuple):
        fb.fail(f"give one number, Fraction(matches, total), not the tuple {shown(answer)}")
        return None
    number = as_number(answer)
    if number is None:
        problem = number_text_problem(answer)
        fb.fail(f"{shown(answer)} is not a fraction{' (' + problem + ')' if problem else ''}; write it like {example}"
                if isinstance(answer, str) else f"give a Fraction such as {example}, not a {type(answer).__name__}")
        return None
    if isinstance(number, float):
        if not math.isfinite(number):
            fb.fail(f"give a fraction such as {example}, not {number}")
            return None
        exact = Fraction(number).limit_denominator(100)  # counts by hand are small
        if not close(number, exact):
            fb.fail(f"you entered the float {number!r}; enter the exact fraction, e.g. {example}, so the counts stay "
                    "visible")
            return None
        fb.note(f"read your {number!r} as {exact}: an exact Fraction keeps the counts visible (and 0.1 + 0.2 is not "
                "exact)")
        return exact
    return Fraction(number)


def check_modified_precision(
    func: Callable, *, cases: Sequence[tuple[Sequence[str], str, int]] = PRECISION_CASES
) -> Feedback:
    """Check ``func(references, hypothesis, n)`` (token lists) equals ``modified_precision`` on every case."""
    return check_cases("my_modified_precision", func, (
        Case(f"references {list(refs)}, hypothesis {hyp!r}, n={n}", ([r.split() for r in refs], hyp.split(), n),
             partial(_result_problem, tuple(refs), hyp, n, modified_precision(list(refs), hyp, n)),
             on_error=f"this hypothesis has no {n}-grams; nltk's rule gives p_{n} = 0/max(1, 0) = 0/1 (divide by "
             "max(1, total), never by 0)" if len(hyp.split()) < n else "")
        for refs, hyp, n in cases))


def _result_problem(refs: Sequence[str], hyp: str, n: int, expected: Fraction, result: object) -> str | None:
    """What is wrong with one result of my_modified_precision (None if it is right)."""
    if result is None:
        return "your function returned None; return a Fraction(matches, total)"
    if isinstance(result, tuple):
        return f"you returned the tuple {shown(result)}; return one number, Fraction(matches, total)"
    number = as_number(result, strings=False)
    if number is None or isinstance(number, float) and not math.isfinite(number):
        return f"you returned a {type(result).__name__}; return a number, ideally Fraction(matches, total)"
    exact = isinstance(number, (int, Fraction))
    result = number
    if same_number(number, expected, strings=False):
        return None
    return f"expected {expected} = {float(expected):.4g}, you returned {_show(result)}; " + _precision_hint(
        list(refs), hyp, n, result, exact
    )


def _precision_hint(refs: list[str], hyp: str, n: int, given: Real, exact: bool) -> str:
    """Name the typical mistake whose value equals ``given`` (or restate the definition if none does)."""
    tokens = hyp.split()
    counts = count_ngrams(tokens, n)
    total = sum(counts.values())
    clipped = sum(clip_counts(counts, max_reference_counts(refs, n)).values())
    summed_refs = sum((count_ngrams(r, n) for r in refs), Counter())
    in_any_ref = sum(c for g, c in counts.items() if summed_refs[g] > 0)
    mistakes = []
    if total == 0:
        mistakes.append(
            (Fraction(0), f"no {n}-grams here ({len(tokens)} tokens), so p_{n} = 0 / max(1, 0) = 0/1")
        )
    else:
        over = next((r for r in clip_table(refs, tokens, n) if r.count > r.max_ref_count > 0), None)
        if over is not None:
            mistakes.append((
                Fraction(in_any_ref, total),
                f"that is the unclipped precision {in_any_ref}/{total}: {over.ngram} occurs {over.count} times in the "
                f"hypothesis but at most {over.max_ref_count} time(s) in one reference, so it earns only "
                f"{over.max_ref_count}",
            ))
        summed = sum(clip_counts(counts, summed_refs).values())
        mistakes.append((
            Fraction(summed, total),
            f"that is {summed}/{total}, clipping by the references' counts added up; clip by the most in any ONE "
            f"reference: {clipped}/{total}",
        ))
        mistakes.append((
            Fraction(clipped, len(tokens)),
            f"that is {clipped}/{len(tokens)}: the denominator is the number of {n}-grams, "
            f"{len(tokens)} - {n} + 1 = {total}, not the number of words",
        ))
        mistakes.append((
            Fraction(clipped, len(counts)),
            f"that is {clipped}/{len(counts)}: divide by every {n}-gram occurrence ({total}), "
            f"not by the {len(counts)} distinct {n}-grams",
        ))
        if n > 1:
            p1 = modified_precision(refs, tokens, 1)
            mistakes.append((_exact(p1), f"that is p_1 = {p1}: did you ignore n and count single words?"))
    for value, message in mistakes:
        same = (given == value) if exact else close(given, value)
        if same and value != modified_precision(refs, tokens, n):
            return message
    return (
        f"p_{n} = (sum of clipped {n}-gram counts) / max(1, number of {n}-grams) = {clipped}/{max(1, total)}; "
        f"look at bl.clip_table(references, hypothesis, {n})"
    )


def _exact(value: Rational) -> Fraction:
    """A reduced Fraction of any rational (``Fraction(p)`` would keep a ModifiedPrecision's raw 6/9 unreduced)."""
    return Fraction(value.numerator, value.denominator)


def _show(value: object) -> str:
    """A number as the student would read it: fractions as a/b, floats to 4 significant digits."""
    if isinstance(value, Rational) and not isinstance(value, int):
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, float):
        return f"{value:.4g}"
    return repr(value)


def check_word_salad(hypothesis: object) -> Feedback:
    """Check a hypothesis of >= 4 words with p_1 = 1 but p_2 = 0 against WORD_SALAD_REFERENCE."""
    fb = Feedback("word salad")
    if hypothesis is None or hypothesis is Ellipsis:
        return fb.fail("replace ... with a sentence (a string), e.g. 'mat the on ...'")
    if not isinstance(hypothesis, (str, list, tuple)) or not all(isinstance(t, str) for t in hypothesis):
        return fb.fail(f"give the hypothesis as a string (or a list of words), not a {type(hypothesis).__name__}")
    tokens = hypothesis.split() if isinstance(hypothesis, str) else list(hypothesis)
    if len(tokens) < WORD_SALAD_MIN_WORDS:
        return fb.fail(f"use at least {WORD_SALAD_MIN_WORDS} words; you have {len(tokens)}")
    refs = [WORD_SALAD_REFERENCE]
    for row in clip_table(refs, tokens, 1):
        if row.max_ref_count == 0:
            fb.fail(f"{shown(row.text)} is not in the reference, so p_1 < 1: use only the reference's words")
        elif row.count > row.max_ref_count:
            fb.fail(f"{shown(row.text)} is used {row.count} times but the reference has it only "
                    f"{row.max_ref_count} time(s)")
    matched = [row.text for row in clip_table(refs, tokens, 2) if row.clipped > 0]
    p1, p2 = modified_precision(refs, tokens, 1), modified_precision(refs, tokens, 2)
    if matched:
        fb.fail(
            f"p_2 = {p2}: the bigram(s) {', '.join(map(repr, matched))} also occur in the reference; "
            "reorder the words so that no two neighbours are neighbours in the reference"
        )
    if fb.passed:
        fb.note(f"p_1 = {p1} but p_2 = {p2}: unigram precision calls this word salad perfect, bigrams see through it")
    return fb

# For ``bleu-lab grade``: hidden cases drawn at grading time (no hidden case ships).
def hidden_precision_cases(rng: random.Random) -> dict:
    """(references, hypothesis, n) for ``check_modified_precision(..., cases=...)``: n = 1 to 4, and one hypothesis
    shorter than n."""
    cases = []
    for n in (1, 2, 3, 4):
        refs = tuple(random_sentence(rng, 3, 9) for _ in range(rng.randint(1, 3)))
        cases.append((refs, random_variant(rng, rng.choice(refs), rng.randint(1, 3)), n))
    cases.append(((random_sentence(rng, 4, 8),), random_sentence(rng, 1, 2), 3))
    return {"cases": cases}


GRADING = LessonGrading("02_modified_precision", (
    GradedExercise("p_2 by hand", check_p2_by_hand, ("p2",), implemented_by=()),
    GradedExercise("my_modified_precision", check_modified_precision, ("my_modified_precision",),
                   hidden=hidden_precision_cases, implemented_by=("bleu_lab.precision.modified_precision",)),
    GradedExercise("word salad", check_word_salad, ("salad",), implemented_by=()),
))
