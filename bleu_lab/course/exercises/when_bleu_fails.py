"""Checks for lesson 5, when BLEU fails.

- ``check_high_p1_low_bleu(hypothesis)``: every word right (p_1 = 1), full length (BP = 1), yet BLEU < 0.1
- ``check_old_nltk_bleu(old_nltk_bleu)``: reproduce the scores the blog post *Introduction to BLEU in Python*
  printed with an older nltk (3.2)

Scores come from ``bleu_lab.explain`` / ``bleu_lab.sentence_bleu``; the checks compare and explain.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence

from ...brevity import brevity_penalty, closest_ref_length
from ...nltk_style import sentence_bleu, without_warnings
from ...precision import modified_precision
from ...reports.explain import explain
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

NASA_REFERENCE = "The NASA Opportunity rover is battling a massive dust storm on planet Mars."
THRESHOLD = 0.1

SHIP_REFERENCES = ("this is a ship", "it is ship", "ship it is", "a ship, it is")
# What the blog post *Introduction to BLEU in Python* printed (an older nltk, 3.2, where an order with no match was
# dropped from the mean).
INTRO_POST_PRINTED: dict[str, float] = {
    "it is ship": 1.0,
    "it is a ship": 0.8408964152537145,
    "it": 0.1353352832366127,
    "it it it it it it it": 0.6147881529512643,
    "it a b c d e f g h i j k l m n": 0.6042750794713536,
    "ship ship ship": 0.7598356856515925,
    "it ship": 0.6065306597126334,
}


def check_high_p1_low_bleu(hypothesis: str, reference: str = NASA_REFERENCE, threshold: float = THRESHOLD) -> Feedback:
    """Check a hypothesis with p_1 = 1 and BP = 1 whose sentence BLEU (sacrebleu's, 0–1) is below ``threshold``."""
    fb = Feedback(f"p_1 = 1 but BLEU < {threshold:g}")
    if not isinstance(hypothesis, str):
        return fb.fail(f"write your hypothesis as a string, not {type(hypothesis).__name__}")
    if not hypothesis.strip():
        return fb.fail("your hypothesis is empty: use the reference's words in a new order")
    ex = explain([reference], hypothesis, tokenize="13a", smoothing="exp")
    unigrams, bigrams = ex.orders[0], ex.orders[1]
    fb.note(f"c = {ex.hyp_len}, r = {ex.ref_len}, p_1 = {unigrams.precision_text}, BP = {ex.bp:.3f}, "
            f"sentence BLEU = {ex.score:.4f} (sacrebleu's: 13a tokens, exp smoothing)")
    if unigrams.matches != unigrams.total:
        missing = [row.text for row in unigrams.rows if row.clipped < row.count]
        fb.fail(f"p_1 = {unigrams.precision_text}, not 1: {', '.join(map(repr, missing))} "
                "is not in the reference or appears more often than there (tokens are case-sensitive).")
    if ex.hyp_len < ex.ref_len:
        fb.fail(f"your hypothesis has {ex.hyp_len} tokens and the reference {ex.ref_len}: BP = {ex.bp:.3f} does the "
                "work here. Use every reference token so that BP = 1, and let word order alone sink the score.")
    if ex.score >= threshold:
        kept = [row.text for row in bigrams.rows if row.clipped > 0]
        fb.fail(f"BLEU = {ex.score:.4f} is not below {threshold:g}: {len(kept)} bigram(s) still match the reference "
                f"({', '.join(map(repr, kept[:6]))}{', ...' if len(kept) > 6 else ''}). Break them up.")
    if fb.passed:
        fb.note("a bag of the right words in the wrong order: unigram precision cannot tell, higher orders can")
    return fb


def check_old_nltk_bleu(
    func: Callable[[Sequence[Sequence[str]], Sequence[str]], float], *,
    cases: Mapping[str, float] = INTRO_POST_PRINTED, references: Sequence[str] = SHIP_REFERENCES,
) -> Feedback:
    """Check ``func(references, hypothesis)`` (token lists) against the values the blog post printed.

    ``cases`` maps each hypothesis to old nltk's score against ``references``.
    """
    refs = [ref.split() for ref in references]
    return check_cases("old_nltk_bleu(references, hypothesis)", func, (
        Case(repr(hypothesis), (refs, hypothesis.split()), number_problem(
            printed, lambda got, printed=printed, hypothesis=hypothesis: f"the post printed {printed!r}, you returned "
            f"{got!r}. " + _old_nltk_hint(refs, hypothesis.split(), got)))
        for hypothesis, printed in cases.items()), most=None,  # every printed value: each points to another rule
        passed="all seven printed values reproduced: old nltk dropped the first order without a match and every "
        "order above it")


def _old_nltk_hint(refs: list[list[str]], hyp: list[str], got: float) -> str:
    """Compare with today's nltk values, the usual wrong turns."""
    if close(got, without_warnings(sentence_bleu, refs, hyp)):
        return ("That is today's value: nltk now lets a zero p_n enter the mean as the tiniest float. "
                "The old version left that order (and all higher ones) out of the sum instead.")
    if close(got, without_warnings(sentence_bleu, refs, hyp, auto_reweigh=True)):
        return ("That is auto_reweigh, which spreads the weight as 1/c over the orders a short hypothesis has. "
                "The old version kept w_n = 0.25 and simply dropped the failing orders.")
    return ("What did old nltk do with the first order whose clipped match count is 0, and with the orders above "
            "it? The exercise text and appendix A2 say; the weights of the orders it kept did not change. Keep the "
            "brevity penalty.")

# For ``bleu-lab grade``: hidden cases drawn at grading time (no hidden case ships): old nltk's scores of other
# hypotheses against other references, so that a table of the seven printed values does not pass.
def old_nltk_score(references: Sequence[str], hypothesis: str) -> float:
    """What nltk 3.2 printed: BP times exp(sum 0.25 log p_n) over the orders below the first one without a match (that
    order and every higher one dropped; 0 if even unigrams have none)."""
    refs = [ref.split() for ref in references]
    tokens = hypothesis.split()
    kept = []
    for n in range(1, 5):
        p_n = modified_precision(refs, tokens, n)
        if p_n == 0:
            break
        kept.append(p_n)
    if not kept:
        return 0.0
    bp = brevity_penalty(closest_ref_length(refs, len(tokens)), len(tokens))
    return bp * math.exp(math.fsum(0.25 * math.log(p) for p in kept))


def hidden_old_nltk_cases(rng: random.Random) -> dict:
    """``cases`` (hypothesis -> old nltk's score) and ``references`` for ``check_old_nltk_bleu``."""
    references = tuple(random_sentence(rng, 5, 9) for _ in range(2))
    hypotheses = {random_variant(rng, rng.choice(references), rng.randint(1, 4)) for _ in range(4)}
    hypotheses |= {random_sentence(rng, 1, 3), random_sentence(rng, 5, 8)}
    return {"cases": {h: old_nltk_score(references, h) for h in sorted(hypotheses)}, "references": references}


GRADING = LessonGrading("05_when_bleu_fails", (
    GradedExercise("p_1 = 1 but BLEU < 0.1", check_high_p1_low_bleu, ("word_salad",), implemented_by=()),
    GradedExercise("old_nltk_bleu", check_old_nltk_bleu, ("old_nltk_bleu",),
                   hidden=hidden_old_nltk_cases, implemented_by=("bleu_lab.readings.formulas.nltk_before_3_4",)),
))
