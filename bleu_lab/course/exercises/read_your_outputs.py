"""Checks for lesson 11, read your outputs.

- ``check_word_counts(my_word_counts)``: one segment's (matched words, output words, reference words); a word
  matches at most as often as the reference has it (compare-mt's word matching, ``compare.scorers.word_counts``)
- ``check_fmeasure(my_fmeasure)``: word F-measure from those counts, 0 when nothing matches
- ``check_salient_score(my_salient_score)``: compare-mt's smoothed ratio (c1 + alpha) / (c1 + c2 + 2 alpha)
- ``check_compare_mt_reading(answer)``: what compare-mt's "s1>s2 (p=0.0000)" says (multiple choice)

Expected values come from ``bleu_lab.compare``; the checks compare, and say what is wrong without the answer.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial

from ...compare.scorers import WordCounts, salient_ngrams, word_counts
from . import (
    Case,
    Feedback,
    GradedExercise,
    LessonGrading,
    as_number,
    check_cases,
    close,
    number_problem,
    random_sentence,
    random_variant,
    shown,
)

WORD_CASES: tuple[tuple[str, str], ...] = (  # (reference, output)
    ("the cat sat on the mat", "the cat is on the mat"),
    ("the cat is on the mat", "the the the the"),
    ("a b c", "x y z"),
    ("Haus und Haus", "Haus haus Haus Haus"),
    ("a reference", ""),
    ("three two one three", "one two two three three three"),
)
FMEASURE_CASES: tuple[tuple[int, int, int], ...] = ((4, 6, 6), (2, 4, 6), (0, 3, 5), (0, 0, 4), (5, 5, 5), (1, 10, 2))
SALIENT_CASES: tuple[tuple[int, int, float], ...] = ((3, 0, 1.0), (0, 3, 1.0), (5, 1, 1.0), (2, 2, 1.0), (0, 0, 1.0),
                                                     (4, 0, 0.5), (10, 1, 3.0))


def _number(value: object) -> float | None:
    """A number in any form a student may return (the shared ``as_number``: Fraction, NumPy scalar, "0.5", ...)."""
    number = as_number(value)
    return None if number is None else float(number)


def _triple(value: object) -> tuple[float, ...] | None:
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 3:
        return None
    numbers = tuple(_number(v) for v in value)
    return None if any(n is None for n in numbers) else numbers


def check_word_counts(func: Callable, *, cases: Sequence[tuple[str, str]] = WORD_CASES) -> Feedback:
    """Check ``func(reference_tokens, output_tokens)`` -> (matched words, output words, reference words)."""
    return check_cases("my_word_counts(reference_tokens, output_tokens)", func, (
        Case(f"reference {ref!r}, output {out!r}", (ref.split(), out.split()),
             partial(_word_problem, tuple(ref.split()), tuple(out.split())))
        for ref, out in cases),
        passed="all cases right: each word matches at most as often as the reference has it, as in BLEU's clipping "
        "of unigrams; compare-mt then adds these counts per frequency bucket.")


def _word_problem(ref: tuple[str, ...], out: tuple[str, ...], got: object) -> str | None:
    expected = word_counts([list(ref)], [list(out)], lambda w: 0, 1)
    want = (expected.matches[0], expected.output[0], expected.reference[0])
    triple = _triple(got)
    if triple is None:
        return f"return three numbers (matched, output words, reference words), not {shown(got)}"
    if triple == want:
        return None
    return f"you returned {shown(tuple(got))}. " + _word_hint(ref, out, triple, want)


def _word_hint(ref: Sequence[str], out: Sequence[str], got: tuple[float, ...], want: tuple[int, int, int]) -> str:
    if got[1:] == (want[2], want[1]):
        return "Check the order: (matched, output words, reference words)."
    if got[1] == len(set(out)) != want[1] or got[2] == len(set(ref)) != want[2]:
        return "Count every token, repeats included, not each different word once."
    unclipped = sum(1 for w in out if w in ref)
    if got[0] == unclipped != want[0]:
        return ("A word the output repeats cannot match more often than the reference has it: clip each word's "
                "count at its count in the reference.")
    if got[0] > min(len(ref), len(out)):
        return "There cannot be more matches than words on either side."
    return "Count, for each word, how often it occurs on each side; the matches of a word are the smaller count."


def check_fmeasure(func: Callable, *, cases: Sequence[tuple[int, int, int]] = FMEASURE_CASES) -> Feedback:
    """Check ``func(matches, output_words, reference_words)`` -> F = 2PR / (P + R), 0 without a match."""
    return check_cases("my_fmeasure(matches, output_words, reference_words)", func, (
        Case(f"({m} matches, {o} output words, {r} reference words)", (m, o, r), number_problem(
            WordCounts((m,), (r,), (o,)).fmeasure(0), partial(_wrong, partial(_f_hint, m, o, r)), strings=True),
            on_error="" if m else NO_MATCH)
        for m, o, r in cases),
        passed="all cases right: the harmonic mean of precision and recall, and 0 for a bucket with no match (as "
        "compare-mt prints it).")


def _wrong(hint: Callable[[float], str], got: float) -> str:
    """A wrong number, and what it points to (never the right one)."""
    return f"your {got:.4f} is not right. {hint(got)}"


NO_MATCH = "With no match, P and R are 0 and the formula divides 0 by 0: return 0 then."


def _f_hint(m: int, o: int, r: int, got: float) -> str:
    if m and close(got, (m / o + m / r) / 2):
        return "That is the arithmetic mean of P and R; the F-measure is their harmonic mean."
    if m and (close(got, m / o) or close(got, m / r)):
        return "That is precision or recall alone; the F-measure combines both."
    if m and close(got, 100 * 2 * (m / o) * (m / r) / (m / o + m / r)):
        return "Keep it on the 0-1 scale (no factor 100)."
    if not m:
        return NO_MATCH
    return "P = matches / output words, R = matches / reference words, then F = 2PR / (P + R)."


def check_salient_score(func: Callable, *, cases: Sequence[tuple[int, int, float]] = SALIENT_CASES) -> Feedback:
    """Check ``func(c1, c2, alpha)`` -> (c1 + alpha) / (c1 + c2 + 2 alpha)."""
    return check_cases("my_salient_score(c1, c2, alpha)", func, (
        Case(f"(c1={c1}, c2={c2}, alpha={alpha})", (c1, c2, alpha), number_problem(
            salient_ngrams(Counter({("g",): c1}), Counter({("g",): c2}), alpha, 1)[0][0].score,
            partial(_wrong, partial(_salient_hint, c1, c2, alpha)), strings=True))
        for c1, c2, alpha in cases),
        passed="all cases right: alpha pulls rare n-grams towards 1/2, so an n-gram seen 3 times against 0 scores "
        "below one seen 30 times against 0.")


def _salient_hint(c1: int, c2: int, alpha: float, got: float) -> str:
    if c1 + c2 and close(got, c1 / (c1 + c2)):
        return "Without smoothing one occurrence against none already scores 1; add alpha to both counts."
    if c1 + c2 and close(got, (c1 + alpha) / (c1 + c2 + alpha)):
        return "Both counts get alpha added, so the denominator gets it twice."
    if c1 + c2 and close(got, (c2 + alpha) / (c1 + c2 + 2 * alpha)):
        return "Which system's count goes on top? A score near 1 should mean system 1 has the n-gram more."
    return "Add alpha to each system's count, then take system 1's share of the two."


MT_READING = {
    "A": ("p = 0.0000 means the probability that the two systems are equally good is zero.", False,
          "a p-value is never the probability that a hypothesis is true, and compare-mt's number is not even a "
          "p-value of a test centred on 'no difference': read how it is computed in section 6."),
    "B": ("In every one of its resamples (each of half the test set), system 1 scored higher than system 2.", True,
          "compare-mt prints 1 minus the larger win share: p=0.0000 says system 1 won every half-size resample. "
          "That is Koehn's (2004) win rate, a statement about these resamples, not a two-sided test."),
    "C": ("System 1 is better than system 2 on every segment of the test set.", False,
          "the resamples compare corpus scores of sets of segments; on single segments the systems can still "
          "trade places (look at the side-by-side examples)."),
    "D": ("Human judges would prefer system 1 with near certainty.", False,
          "every number here compares outputs with references by BLEU; lesson 10 shows how often BLEU and people "
          "disagree."),
}


def compare_mt_reading_text() -> str:
    """The choices of the multiple-choice question, one per line."""
    return "\n".join(f"{k}. {text}" for k, (text, _, _) in MT_READING.items())


def check_compare_mt_reading(answer: object) -> Feedback:
    """Check the one letter chosen for what compare-mt's 's1>s2 (p=0.0000)' says."""
    fb = Feedback("what compare-mt's p=0.0000 says")
    letter = answer.strip().upper() if isinstance(answer, str) else None
    if letter not in MT_READING:
        return fb.fail(f"answer must be one letter among {', '.join(MT_READING)} (a string, e.g. answer = 'A')")
    _, correct, why = MT_READING[letter]
    return fb.note(f"{letter}: {why}") if correct else fb.fail(f"{letter} is not right: {why}")


# --- how an assignment grades this lesson (bleu-lab grade; bleu_lab.assignments) ----------------------------------

def hidden_word_cases(rng: random.Random) -> dict:
    """(reference, output) pairs for ``check_word_counts``, drawn at grading time (no hidden case ships)."""
    cases = []
    for _ in range(3):
        reference = random_sentence(rng, 1, 8)
        cases.append((reference, random_variant(rng, reference, rng.randint(1, 4))))
    return {"cases": cases}


def hidden_fmeasure_cases(rng: random.Random) -> dict:
    """(matches, output words, reference words) for ``check_fmeasure``, one with no match."""
    cases = [(0, rng.randint(1, 9), rng.randint(1, 9))]
    for _ in range(2):
        output, reference = rng.randint(1, 30), rng.randint(1, 30)
        cases.append((rng.randint(1, min(output, reference)), output, reference))
    return {"cases": cases}


def hidden_salient_cases(rng: random.Random) -> dict:
    """(c1, c2, alpha) for ``check_salient_score``."""
    return {"cases": [(rng.randint(0, 12), rng.randint(0, 12), rng.choice((0.5, 1.0, 2.0, 3.0))) for _ in range(3)]}


GRADING = LessonGrading("11_read_your_outputs", (
    GradedExercise("my_word_counts", check_word_counts, ("my_word_counts",), hidden=hidden_word_cases,
                   implemented_by=("bleu_lab.compare.scorers.word_counts",)),
    GradedExercise("my_fmeasure", check_fmeasure, ("my_fmeasure",), hidden=hidden_fmeasure_cases,
                   implemented_by=("bleu_lab.compare.scorers.WordCounts.fmeasure",)),
    GradedExercise("my_salient_score", check_salient_score, ("my_salient_score",),
                   hidden=hidden_salient_cases, implemented_by=("bleu_lab.compare.scorers.salient_ngrams",)),
    GradedExercise("what compare-mt's p=0.0000 says", check_compare_mt_reading, ("answer",), implemented_by=()),
))
