"""Checks for lesson 10, BLEU in context.

- ``check_pairwise_accuracy(my_pairwise_accuracy)``: the share of system pairs a metric orders as people do
  (Kocmi et al. 2021); wrong numbers are matched against the usual slips (a count, dividing by the number of
  systems, comparing rank positions instead of pairs)
- ``check_reference_ranks(ranks)``: where BLEU ranks Online-W among the eight machine systems of WMT21 en-de,
  with each reference and with all three
- ``check_results_table(problems)``: which lines of a results table are reporting problems (multiple choice)
- ``check_test_set_size(n_segments)``: how many segments a paired bootstrap needs before a 1-BLEU gap is outside
  the noise, scaling the interval of lesson 10's strong-vs-fluent bootstrap by 1/sqrt(n)
- ``check_metric_choice(answer, reveal=False)``: a written answer checked for its key points

Expected values come from ``bleu_lab.metrics.agreement``, ``bleu_lab.metrics.published_scores`` and
``bleu_lab.metrics.significance``; the checks only compare and explain.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from functools import partial

from ...metrics.agreement import TIE_RULES, pairwise_accuracy, ranking
from ...metrics.published_scores import REFERENCES, load_system_scores
from . import (
    Case,
    Feedback,
    GradedExercise,
    LessonGrading,
    ReversedClaim,
    as_number,
    as_whole,
    check_cases,
    check_written_answer,
    choice_mistakes,
    choices_text,
    close,
    number_text_problem,
    same_number,
    shown,
)

# ------------------------------------------------------------------------------------------ pairwise accuracy

# (case name, metric scores, human scores): higher is better for both
ACCURACY_CASES: tuple[tuple[str, tuple[float, ...], tuple[float, ...]], ...] = (
    ("three systems, one pair in the wrong order", (30.1, 28.4, 29.0), (0.40, 0.31, 0.12)),
    ("four systems in the same order", (20.0, 25.0, 30.0, 35.0), (-0.2, 0.0, 0.1, 0.5)),
    ("four systems in reverse order", (35.0, 30.0, 25.0, 20.0), (-0.2, 0.0, 0.1, 0.5)),
    ("five systems", (31.3, 31.2, 29.9, 29.7, 29.3), (-1.04, -1.05, -1.51, -1.46, -1.74)),
    ("two systems tied by the metric", (30.0, 30.0, 28.0, 29.0), (0.2, 0.1, -0.3, 0.4)),
)


def hidden_accuracy_cases(rng: random.Random) -> dict:
    """For ``bleu-lab grade`` (drawn at grading time; no hidden case ships): (name, metric, human) cases for
    ``check_pairwise_accuracy(..., cases=...)``, one with tied metric scores."""
    cases = []
    for name in ("two systems", "drawn systems", "tied metric scores"):
        k = 2 if name == "two systems" else rng.randint(3, 7)
        metric = [round(rng.uniform(15, 35), 1) for _ in range(k)]
        if name == "tied metric scores":
            metric[1] = metric[0]
        cases.append((name, tuple(metric), tuple(round(rng.uniform(-1, 1), 3) for _ in range(k))))
    return {"cases": cases}


def accepted_accuracies(metric: Sequence[float], human: Sequence[float]) -> dict[str, float]:
    """The pairwise accuracy of a case under each tie rule of ``agreement.TIE_RULES`` that leaves a pair to count:
    without ties they are all the same number; with ties, each is a defensible answer."""
    accepted = {}
    for rule in TIE_RULES:
        try:
            accepted[rule] = pairwise_accuracy(metric, human, ties=rule)
        except ValueError:  # every pair tied and left out: no accuracy under this rule
            continue
    return accepted


def check_pairwise_accuracy(func: Callable[[Sequence[float], Sequence[float]], float], cases=ACCURACY_CASES
                            ) -> Feedback:
    """Check ``func(metric, human)`` = #{pairs ordered alike} / #pairs on ``cases`` (name, metric, human). A pair
    tied in one list or both may be counted by any rule of ``agreement.TIE_RULES`` (left out, or counted as agreeing
    only when both tie, ...): each is right."""
    tie_rules_met: set[str] = set()
    fb = check_cases("my_pairwise_accuracy(metric, human)", func, (
        Case(f"case {case}", (list(metric), list(human)),
             partial(_accuracy_problem, tuple(metric), tuple(human), tie_rules_met))
        for case, metric, human in cases),
        passed="all cases right. Without ties, Kendall's tau is 2 × accuracy - 1: try "
               "bl.metrics.agreement.kendall_tau.")
    if fb.passed:
        for rule in sorted(tie_rules_met):
            fb.note(f"a case had tied scores: your function counts them as bl.metrics.agreement.pairwise_accuracy(..., "
                    f"ties={rule!r}) does ({TIE_RULES[rule]}); the other rules are right too")
    return fb


def _accuracy_problem(metric: Sequence[float], human: Sequence[float], tie_rules_met: set[str], got: object
                      ) -> str | None:
    """What is wrong with one accuracy (None if some tie rule gives it; that rule is added to ``tie_rules_met``)."""
    accepted = accepted_accuracies(metric, human)
    number = as_number(got, strings=False)
    if number is None or not math.isfinite(float(number)):
        return f"return the accuracy as a number between 0 and 1, not {shown(got)}"
    matched = [rule for rule, value in accepted.items() if same_number(got, value, strings=False)]
    if not matched:
        return (f"metric {list(metric)}, people {list(human)}: your accuracy {float(number):.4f} is not right. "
                + _accuracy_hint(metric, human, float(number)))
    if len(set(accepted.values())) > 1:
        tie_rules_met.add(matched[0])
    return None


def _accuracy_hint(metric: Sequence[float], human: Sequence[float], got: float) -> str:
    n = len(metric)
    pairs = n * (n - 1) // 2
    agree = round(pairwise_accuracy(metric, human) * pairs)
    same_rank = sum(a == b for a, b in zip(_ranks(metric), _ranks(human))) / n
    candidates = [
        (float(agree), "That is a count of pairs; divide by the number of pairs to get a share."),
        (agree / n, f"Divide by the number of PAIRS of systems, n(n-1)/2 = {pairs} here, not by the {n} systems."),
        (1 - agree / pairs, "You counted the pairs where metric and people DISAGREE."),
        (same_rank, "You compared the rank positions of single systems. Pairwise accuracy looks at pairs: for "
                    "every two systems, does the metric prefer the one people prefer?"),
    ]
    for value, hint in candidates:
        if value != 0 and close(got, value):  # 0 is also what an unfinished stub returns
            return hint
    return ("For every pair of systems (each pair once), compare the sign of the metric's difference with the sign "
            "of the people's difference; the accuracy is the share of pairs where the signs are equal.")


def _ranks(scores: Sequence[float]) -> list[int]:
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    ranks = [0] * len(scores)
    for position, i in enumerate(order, 1):
        ranks[i] = position
    return ranks


# ------------------------------------------------------------------------------------------ reference choice

SYSTEM_OF_INTEREST = "Online-W"


def expected_reference_ranks(system: str = SYSTEM_OF_INTEREST) -> dict[str, int]:
    """``system``'s BLEU rank (1 = best) among the machine systems of the WMT21 table, per reference and 'all'."""
    machines = [row for row in load_system_scores() if not row.is_human]
    names = [row.system for row in machines]
    return {ref: ranking(names, [row.bleu[ref] for row in machines]).index(system) + 1 for ref in REFERENCES}


def check_reference_ranks(ranks: object) -> Feedback:
    """Check ``ranks`` = {'A': rank, 'C': rank, 'D': rank, 'all': rank} of Online-W's BLEU among the 8 machines."""
    fb = Feedback(f"{SYSTEM_OF_INTEREST}'s BLEU rank per reference")
    if not isinstance(ranks, Mapping) or set(ranks) != set(REFERENCES):
        return fb.fail("ranks must be a dict with one rank per reference: {'A': ..., 'C': ..., 'D': ..., 'all': ...}")
    expected = expected_reference_ranks()
    machines = sum(not row.is_human for row in load_system_scores())
    for ref in REFERENCES:
        got = as_whole(ranks[ref])
        if got is None or not 1 <= got <= machines:
            fb.fail(f"ranks[{ref!r}] must be a whole number from 1 (best) to {machines}, not {shown(ranks[ref])}")
        elif got == machines + 1 - expected[ref]:
            fb.fail(f"ranks[{ref!r}]: you counted from the worst system; rank 1 is the HIGHEST BLEU")
        elif got != expected[ref]:
            fb.fail(f"ranks[{ref!r}] is not right: sort the {machines} machine systems (not ref-A or ref-C) by "
                    f"their BLEU against reference {ref}, best first, and count from 1")
    if fb.passed:
        spread = max(expected.values()) - min(expected.values())
        fb.note(f"right: the same output moves {spread} places depending on which translator wrote the reference.")
    return fb


# ------------------------------------------------------------------------------------------ results table

RESULTS_TABLE = """\
| system | BLEU | notes |
|---|---|---|
| previous best (Lee et al.) | 30.8 | copied from their paper |
| our baseline | 30.2 | our run |
| our new model | 31.3 | our run; best of 12 checkpoints, picked on the test set |

Our scores: sacrebleu, signature nrefs:1|case:lc|eff:no|tok:13a|smooth:exp|version:2.6.0.
Lee et al. tokenized with their own script and report case-sensitive BLEU.
No other metric, no human evaluation, no significance test. Claim: "a new state of the art, +0.5 BLEU"."""

# letter -> (statement about the table, is it a problem?, why)
TABLE_ISSUES: dict[str, tuple[str, bool, str]] = {
    "A": ("Lee et al.'s 30.8 is compared with a score computed with other tokenization and casing.", True,
          "Scores from different tokenizers or casing are not comparable (lesson 7); rerun their output with "
          "the same signature, or do not compare."),
    "B": ("The +0.5 gain is claimed without any significance test or interval.", True,
          "Half a point can be luck of the test set (lesson 9)."),
    "C": ("The checkpoint was chosen on the test set itself.", True,
          "Choosing on the test set fits its quirks: the reported score is biased upwards; choose on a "
          "development set."),
    "D": ("Only BLEU is reported: no other metric and no human judgement.", True,
          "One surface metric is weak evidence for a small gain (this lesson, sections 2-3)."),
    "E": ("The sacrebleu signature is printed with the scores.", False,
          "Printing the signature is good practice: it says exactly how the score was computed."),
    "F": ("The baseline and the new model were scored by the same script on the same test set.", False,
          "That comparison is the sound one in the table."),
}


def results_table_text() -> str:
    """The table and the statements to judge, one per line."""
    return RESULTS_TABLE + "\n\n" + choices_text(TABLE_ISSUES)


def check_results_table(problems: object) -> Feedback:
    """Check the set of letters of the statements that are reporting problems."""
    fb = Feedback("spot the problems in the results table")
    if isinstance(problems, str):
        problems = [c for c in problems.upper() if c.isalpha()]
    if not isinstance(problems, (set, list, tuple, frozenset)) or not all(isinstance(a, str) for a in problems):
        return fb.fail("problems must be a set of letters, e.g. problems = {'A', 'B'}")
    chosen = {a.strip().upper() for a in problems}
    unknown = chosen - set(TABLE_ISSUES)
    if unknown:
        return fb.fail(f"unknown letters {sorted(unknown)}: choose among {', '.join(TABLE_ISSUES)}")
    actual = {k for k, (_, problem, _) in TABLE_ISSUES.items() if problem}
    choice_mistakes(fb, chosen, actual, "for each letter ask whether it would make the claim less trustworthy",
                    "read the notes column and the lines under the table again (how were the numbers made, and "
                    "what was left out?)")
    if fb.passed:
        fb.note("all four: " + " ".join(TABLE_ISSUES[k][2] for k in sorted(actual)))
    return fb


# ------------------------------------------------------------------------------------------ test-set size

TARGET_HALF_WIDTH = 1.0  # BLEU: the gain we want to be able to see
SIZE_TOLERANCE = 0.2  # another seed moves the half-width a little; accept answers within 20%


def expected_test_set_size(corpus=None) -> tuple[float, int, float]:
    """(half-width of the 95% interval of strong - fluent at the corpus size, the size, the segments needed)."""
    from ...data import load_corpus
    from ...metrics.significance import paired_bootstrap

    corpus = load_corpus("news") if corpus is None else corpus
    result = paired_bootstrap(corpus.systems["fluent"], corpus.systems["strong"], corpus.references_for("A"),
                              method="shift")
    low, high = result.difference_interval
    half = (high - low) / 2
    n = len(corpus)
    return half, n, n * (half / TARGET_HALF_WIDTH) ** 2


def check_test_set_size(n_segments: object, corpus=None) -> Feedback:
    """Check the number of segments at which the interval's half-width would shrink to 1 BLEU (within 20%)."""
    fb = Feedback("segments needed to see a 1-BLEU gap")
    number = as_number(n_segments)
    if number is None or not math.isfinite(number) or number <= 0:
        problem = number_text_problem(n_segments)
        return fb.fail(f"n_segments must be a positive number, not {shown(n_segments)}"
                       + (f" ({problem})" if problem else ""))
    n_segments = float(number)
    half, n, needed = expected_test_set_size(corpus)
    if abs(n_segments - needed) <= SIZE_TOLERANCE * needed:
        return fb.note(f"about {needed:,.0f} segments: the half-width shrinks like 1/sqrt(n), so halving it takes "
                       "four times the segments. WMT test sets have one to three thousand.")
    slips = [
        (n * half / TARGET_HALF_WIDTH, "The half-width shrinks like 1/sqrt(n), so n must grow with its SQUARE."),
        (n / (half / TARGET_HALF_WIDTH) ** 2, "Upside down: a wider interval needs MORE segments, not fewer."),
        (n * (2 * half / TARGET_HALF_WIDTH) ** 2, "Use the half-width ((upper - lower) / 2), not the full width."),
    ]
    for value, hint in slips:
        if abs(n_segments - value) <= SIZE_TOLERANCE * value:
            return fb.fail(hint)
    return fb.fail(f"{n_segments:,.0f} is not right. Start from the half-width h of the 95% interval of the gap on "
                   f"{n} segments; at n segments it would be about h × sqrt({n}/n). Solve for the n that makes it 1.")


# ------------------------------------------------------------------------------------------ written answer

METRIC_CHOICE_KEY_POINTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("test whether the gain is more than noise", ("significan", "p-value", "p value", "bootstrap", "randomi",
                                                 "paired test", "statistical test", "permutation", "interval",
                                                 "confidence", "noise", "luck", "chance")),
    ("look beyond BLEU: people, or a metric that agrees better with them",
     ("human", "people", "mqm", "annotat", "evaluator", "translator", "comet", "bleurt", "learned", "chrf",
      "several metrics", "other metric", "more than one metric")),
)
# Claims that turn the point around: shipping on the BLEU gain alone, or calling it significant without a test.
METRIC_CHOICE_CLAIMS = (
    ReversedClaim(r"\bship(?:ping)?\b(?! only)(?! after)(?! once)",
                  "shipping on +0.8 BLEU alone is what the lesson warns against: first test the gap, then ask people"),
    ReversedClaim(r"\b(?:is|are|looks|seems)\s+(?:statistically\s+)?significant\b",
                  "nothing here shows significance: it takes a paired test (bootstrap or randomization) to say so, "
                  "and 1,000 segments do not make a +0.8 gap significant by themselves"),
    ReversedClaim(r"\b(?:enough|large enough|big enough)\b[^.;]*\bsegments?\b|\bsegments?\b[^.;]*\b(?:is|are) "
                  r"(?:enough|plenty)\b",
                  "the test-set size alone does not tell whether a gap is real: the paired test does"),
    ReversedClaim(r"\b(?:system|model|one|it)\s+is\s+(?:clearly\s+|definitely\s+|really\s+|so\s+)?better\b",
                  "+0.8 BLEU does not show that a system is better: the gap may be test-set luck, and gains that small "
                  "often go the other way for people"),
    ReversedClaim(r"\b(?:test|tests|testing|evaluation|people|humans?|raters?|significance)\b[^.;,]*?\b(?:is|are)\s+"
                  r"(?:unnecessary|needless|pointless|superfluous|overkill|not\s+(?:needed|necessary|required))\b"
                  r"|\b(?:no need|(?:do not|don't|doesn't|does not|needn't)\s+need|"
                  r"(?:ship|deploy|release|launch|decide)\w*\s+(?:it\s+)?without)\b[^.;,]*?"
                  r"\b(?:test|evaluation|people|humans?|raters?|significance)\b",
                  "a +0.8 BLEU gain is exactly the case that needs both: a paired test (is it more than luck?) and "
                  "people or a learned metric (would they see it?)", negative=True),
)
METRIC_CHOICE_HINTS = (
    "Section 4's table and lesson 9: what would you need to know about a +0.8 gap before believing it at all?",
    "Two parts: is the gap real (more than the luck of the test set), and is it a gain that people would see "
    "(section 2 and the learned metrics)?",
)
MODEL_ANSWER_METRIC_CHOICE = (
    "I would not ship on +0.8 BLEU alone: first check with a paired test (bootstrap or randomization) that the gap "
    "is more than test-set noise, then confirm it with human evaluation (a second metric such as chrF or COMET is a "
    "further check, not a substitute: in large studies learned metrics agree with people more often than BLEU, yet "
    "they still disagree with them on many pairs), because a gain of less than one BLEU point often goes the other "
    "way for people."
)


def check_metric_choice(answer: object, *, reveal: bool = False) -> Feedback:
    """A written answer: what to trust before shipping a +0.8 BLEU system. Never "correct": it shows what was
    recorded, its two key points found or missing, reversed claims, and after a real try the model answer."""
    return check_written_answer("which evidence to trust before shipping", answer,
                                key_points=METRIC_CHOICE_KEY_POINTS, claims=METRIC_CHOICE_CLAIMS,
                                model_answer=MODEL_ANSWER_METRIC_CHOICE, hints=METRIC_CHOICE_HINTS, min_words=6)


GRADING = LessonGrading("10_bleu_in_context", (
    GradedExercise("my_pairwise_accuracy", check_pairwise_accuracy, ("my_pairwise_accuracy",),
                   hidden=hidden_accuracy_cases,
                   implemented_by=("bleu_lab.metrics.agreement.pairwise_accuracy",
                                   "bleu_lab.metrics.agreement.pair_decisions")),
    GradedExercise("Online-W's BLEU rank per reference", check_reference_ranks, ("ranks",), implemented_by=()),
    GradedExercise("spot the problems in the results table", check_results_table, ("problems",), implemented_by=()),
    GradedExercise("segments needed to see a 1-BLEU gap", check_test_set_size, ("n_segments",), implemented_by=()),
    GradedExercise("which evidence to trust before shipping", check_metric_choice, ("answer",),
                   manual="; ".join(point for point, _ in METRIC_CHOICE_KEY_POINTS) + " (a +0.8 BLEU gap can be "
                   "test-set luck, and BLEU gains that small often disagree with human judgements)",
                   model_answer=MODEL_ANSWER_METRIC_CHOICE, implemented_by=()),
))
