"""Checks for lesson 3, the brevity penalty.

- ``check_brevity_penalty(my_brevity_penalty)``: BP(r, c) on named cases (c = 0, c < r, c = r, c > r)
- ``check_closest_ref_length(my_closest_ref_length)``: r from a list of reference lengths, ties to the shorter
- ``check_short_hypothesis(hypothesis)``: a hypothesis with p_1 = 1 that BP still punishes (BP < 0.5)
- ``check_without_bp(answer)``: a written answer: what was recorded, its key points, reversed claims, a model answer

Expected values come from ``bleu_lab.brevity``; the checks only compare and explain.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from functools import partial

from ...brevity import brevity_penalty, closest_ref_length
from ...precision import modified_precision
from . import (
    Case,
    Feedback,
    GradedExercise,
    LessonGrading,
    ReversedClaim,
    as_whole,
    check_cases,
    check_written_answer,
    close,
    number_problem,
    shown,
)

# (case name, r, c): every branch of the definition, and the ones students miss.
BP_CASES: tuple[tuple[str, int, int], ...] = (
    ("c < r (a short hypothesis)", 10, 8),
    ("c much shorter than r", 12, 3),
    ("c = r (exactly the reference length)", 7, 7),
    ("c > r (a long hypothesis)", 6, 8),
    ("c = 0 (an empty hypothesis)", 5, 0),
)

# (case name, reference lengths, c)
CLOSEST_CASES: tuple[tuple[str, tuple[int, ...], int], ...] = (
    ("a single reference", (9,), 7),
    ("one reference is clearly closest", (6, 7, 12), 8),
    ("the hypothesis is longer than every reference", (5, 8, 6), 11),
    ("a tie, shorter reference listed first", (8, 12), 10),
    ("a tie, longer reference listed first", (12, 8), 10),
    ("a tie among three references", (13, 7, 9, 11), 10),
)

CAT_REFERENCES = ("the cat is on the mat", "there is a cat on the mat")


def check_brevity_penalty(
    func: Callable[[int, int], float], *, cases: Sequence[tuple[str, int, int]] = BP_CASES
) -> Feedback:
    """Check ``func(r, c)`` against BP = 1 if c > r, exp(1 - r/c) if 0 < c <= r, 0 if c = 0."""
    return check_cases("my_brevity_penalty(r, c)", func, (
        Case(f"case {case}, r = {r}, c = {c}", (r, c), number_problem(
            brevity_penalty(r, c), lambda got, r=r, c=c: f"expected BP = {brevity_penalty(r, c):.6g}, you returned "
            f"{got:.6g}. " + _bp_hint(r, c, got)),
            on_error="handle c == 0 before dividing by c (what should an empty hypothesis get?)" if c == 0 else "")
        for case, r, c in cases), passed="all cases right: c = 0, c < r, c = r and c > r")


def _bp_hint(r: int, c: int, got: float) -> str:
    """Name the likely mistake behind a wrong BP."""
    if c == 0:
        return "An empty hypothesis has nothing to reward: BP = 0 (and exp(1 - r/c) would divide by zero)."
    if c > r:
        if close(got, math.exp(1 - r / c)):
            return "When c > r there is no penalty: BP = 1. exp(1 - r/c) is above 1 here — cap it."
        if close(got, brevity_penalty(c, r)):
            return ("That is BP with r and c swapped: the function is called as my_brevity_penalty(r, c), "
                    "reference length first. With c > r there is no penalty: BP = 1.")
        return "When the hypothesis is longer than the reference there is no penalty: BP = 1."
    if c == r:
        return "exp(1 - r/c) = exp(0) = 1: a hypothesis exactly as long as the reference is not penalised."
    if close(got, math.exp(1 - c / r)):
        return ("You computed exp(1 - c/r): the ratio is upside down, or you swapped the arguments "
                "(the function takes r first, then c).")
    if close(got, 1.0):
        return ("A hypothesis shorter than the reference must be penalised: BP = exp(1 - r/c) < 1 when c < r. "
                "(If your formula is right, check the argument order: r first, then c.)")
    if close(got, 1 - r / c):
        return "You forgot the exponential: BP = exp(1 - r/c)."
    if close(got, c / r):
        return "BP is not the plain length ratio c/r: it is exp(1 - r/c)."
    return "For c < r the formula is BP = exp(1 - r/c)."


def check_closest_ref_length(
    func: Callable[[Sequence[int], int], int], *, cases: Sequence[tuple[str, Sequence[int], int]] = CLOSEST_CASES
) -> Feedback:
    """Check ``func(ref_lens, c)``: the reference length closest to c; on a tie, the shorter one."""
    return check_cases("my_closest_ref_length(ref_lens, c)", func, (
        Case(f"case {case}: reference lengths {list(ref_lens)}, c = {c}", (list(ref_lens), c),
             partial(_closest_problem, tuple(ref_lens), c))
        for case, ref_lens, c in cases),
        passed="all cases right, including ties (they go to the shorter reference, as in nltk and sacrebleu)")


def _closest_problem(ref_lens: tuple[int, ...], c: int, got: object) -> str | None:
    expected = closest_ref_length([["w"] * n for n in ref_lens], c)
    whole = as_whole(got)
    if whole == expected:
        return None
    if whole is None:
        return f"return one of the reference lengths (a whole number), not {shown(got)}"
    return f"expected r = {expected}, you returned {whole}. " + _closest_hint(ref_lens, c, whole, expected)


def _closest_hint(ref_lens: Sequence[int], c: int, got: object, expected: int) -> str:
    """Name the likely mistake behind a wrong closest reference length."""
    distances = [abs(n - c) for n in ref_lens]
    if got not in ref_lens:
        if got == min(distances):
            return "That is the distance |r - c|; return the reference length itself."
        if isinstance(got, int) and 0 <= got < len(ref_lens):
            return "That looks like a position in the list; return the length at that position."
        return "The answer must be one of the reference lengths."
    if distances.count(min(distances)) > 1 and abs(got - c) == min(distances):
        return (f"{got} and {expected} are equally close ({min(distances)} away): a tie goes to the shorter "
                "reference. min() and np.argmin return the first one listed, whatever its length: your rule must "
                "look at the lengths of equally close references too.")
    if got == min(ref_lens):
        return "That is the shortest reference, not the closest to the hypothesis length."
    if got == max(ref_lens):
        return "That is the longest reference, not the closest to the hypothesis length."
    return f"|{got} - {c}| = {abs(got - c)}, but |{expected} - {c}| = {abs(expected - c)} is smaller."


def check_short_hypothesis(hypothesis: str, references: Sequence[str] = CAT_REFERENCES) -> Feedback:
    """Check a hypothesis whose unigrams all match (p_1 = 1) yet whose brevity penalty is below 0.5."""
    fb = Feedback("a short hypothesis with p_1 = 1")
    if not isinstance(hypothesis, str):
        return fb.fail(f"write your hypothesis as a string of words, not {type(hypothesis).__name__}")
    tokens = hypothesis.split()
    if not tokens:
        return fb.fail("your hypothesis is empty: write at least one word (an empty output has no p_1 at all)")
    p1 = modified_precision(list(references), tokens, 1)
    r = closest_ref_length(list(references), len(tokens))
    bp = brevity_penalty(r, len(tokens))
    fb.note(f"c = {len(tokens)}, r = {r}, p_1 = {p1} = {float(p1):.3g}, BP = {bp:.4f}")
    if p1 != 1:
        fb.fail(f"p_1 = {p1}: some word is not in any reference, or used more often than a reference has it; "
                f"every word must come from the references ({' / '.join(references)}).")
    if bp >= 0.5:
        fb.fail(f"BP = {bp:.3f} is not below 0.5: with r = {r}, make the hypothesis shorter (BP = exp(1 - r/c) "
                "falls fast as c shrinks).")
    if fb.passed:
        fb.note("precision alone calls this perfect; only the brevity penalty sees that most of the meaning is missing")
    return fb


# Key points of "what would BLEU do without BP?": which outputs would win, and why (precision cannot see them).
WITHOUT_BP_KEY_POINTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("short output", ("short", "few", "fewer", "one word", "single word", "brief", "omit", "leave out", "leaving out",
                      "drop", "missing")),
    ("a high score", ("high", "perfect", "reward", "favo", "prefer", "score well", "inflat", "cheat", "game", "gaming",
                      "full marks", "win", "1.0", "100", "better score")),
)
# Claims that turn the point around: short outputs punished (that is what BP does, not precision), or long ones winning.
WITHOUT_BP_CLAIMS = (
    ReversedClaim(r"short[^.;]*\b(?:lower|low|worse|less|penali[sz]|punish)\w*",
                  "without BP nothing punishes a short output: precision only counts the words it has, so a few "
                  "right words score high"),
    ReversedClaim(r"precision[^.;]*\b(?:punish|penali[sz])\w*[^.;]*short",
                  "precision divides by the hypothesis's own n-grams: a short output loses nothing by it"),
    ReversedClaim(r"\blong(?:er)? (?:outputs?|hypothes[ie]s|translations?)[^.;]*\b(?:win|reward|higher|favou?r)",
                  "long outputs gain nothing from precision; the outputs that would win are short ones"),
)
WITHOUT_BP_HINTS = (
    "Look at the hypothesis you wrote above: what kind of output gets p_1 = 1 most easily?",
    "Say both halves: which outputs would escape punishment without BP, and what score precision alone gives them.",
)


def check_without_bp(answer: object, *, reveal: bool = False) -> Feedback:
    """A written answer: without BP, short hypotheses of reference words would score high (precision-only BLEU).

    A keyword check cannot grade meaning: it never says "correct". It shows what was recorded, which key points
    (short output; a high score) it found, claims that look reversed, and, after a real try, the model answer.
    ``reveal`` is accepted for the lessons' calls; the model answer shows after any real try.
    """
    return check_written_answer("what BLEU would do without BP", answer, key_points=WITHOUT_BP_KEY_POINTS,
                                claims=WITHOUT_BP_CLAIMS, model_answer=MODEL_ANSWER_WITHOUT_BP,
                                hints=WITHOUT_BP_HINTS, min_words=6)


MODEL_ANSWER_WITHOUT_BP = ("Without BP, BLEU would reward short outputs: a hypothesis of a few reference words has "
                           "perfect precision, so leaving out most of the meaning would still score high.")

# For ``bleu-lab grade``: hidden cases drawn at grading time (no hidden case ships).
def hidden_bp_cases(rng: random.Random) -> dict:
    """(name, r, c) for ``check_brevity_penalty(..., cases=...)``: c < r, c = r, c > r and c = 0."""
    r = rng.randint(2, 40)
    return {"cases": [("c below r", r, rng.randint(1, r - 1)), ("c = r", r, r), ("c above r", r, r + rng.randint(1, 9)),
                      ("c = 0", rng.randint(1, 20), 0), ("c one below r", r + 1, r)]}


def hidden_closest_cases(rng: random.Random) -> dict:
    """(name, reference lengths, c) for ``check_closest_ref_length(..., cases=...)``, with a tie either way round."""
    c, d = rng.randint(6, 30), rng.randint(1, 4)
    tie = [c + d, c - d]
    rng.shuffle(tie)
    lengths = [rng.randint(1, 40) for _ in range(rng.randint(2, 4))]
    return {"cases": [("a tie", tuple(tie + [c + d + 5]), c), ("a tie, longer first", (c + d, c - d), c),
                      ("any lengths", tuple(lengths), rng.randint(1, 40)), ("one reference", (rng.randint(1, 30),), c)]}


GRADING = LessonGrading("03_brevity_penalty", (
    GradedExercise("my_brevity_penalty", check_brevity_penalty, ("my_brevity_penalty",),
                   hidden=hidden_bp_cases, implemented_by=("bleu_lab.brevity.brevity_penalty",)),
    GradedExercise("my_closest_ref_length", check_closest_ref_length, ("my_closest_ref_length",),
                   hidden=hidden_closest_cases,
                   implemented_by=("bleu_lab.brevity.closest_length", "bleu_lab.brevity.closest_ref_length",
                                   "bleu_lab.brevity.closest_lengths")),
    GradedExercise("a short hypothesis with p_1 = 1", check_short_hypothesis, ("short_hypothesis",),
                   implemented_by=()),
    GradedExercise("what BLEU would do without BP", check_without_bp, ("answer",),
                   manual="; ".join(point for point, _ in WITHOUT_BP_KEY_POINTS) + " (outputs of a few reference "
                   "words have perfect precision, so without BP leaving out most of the meaning would score high)",
                   model_answer=MODEL_ANSWER_WITHOUT_BP, implemented_by=()),
))
