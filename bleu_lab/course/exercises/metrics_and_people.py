"""Checks for lesson 12, metrics and people, segment by segment.

- ``check_kendall_tau(my_kendall_tau)``: Kendall's tau-b of two score lists with ties, (C - D) / sqrt((P - T_x)(P -
  T_y)) (``agreement.kendall_tau``, equal to scipy's); wrong numbers are matched against the other variants (tau_a,
  the variant that drops every tied pair, pairwise accuracy) and a flipped sign
- ``check_surprises(my_surprises)``: for one system, the segment with a major error (MQM <= -5) that sentence BLEU
  scores highest and the segment without error (MQM 0) that it scores lowest
- ``check_report_claim(true)``: which statements about a +0.55 BLEU claim (Nemo vs HuaweiTSC) hold (multiple choice)
- ``check_two_errors(answer)``: a written answer on segment 582 (a fluent mistranslation against straight quotes)

Expected values come from ``bleu_lab.metrics.agreement`` and ``bleu_lab.metrics.published_scores``; the checks compare
and explain.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence

from ...metrics.agreement import pair_counts
from ...metrics.published_scores import RATED_SYSTEMS, load_mqm_segments, load_segment_metrics
from . import (
    Feedback,
    GradedExercise,
    LessonGrading,
    ReversedClaim,
    as_list,
    as_number,
    as_whole,
    call_student,
    check_written_answer,
    choice_mistakes,
    choices_text,
    close,
    enough_failures,
    shown,
)

MAJOR = -5.0  # an MQM segment score at or below this holds at least one major error (or five minor ones)

# ------------------------------------------------------------------------------------------ Kendall's tau-b

# (case name, x, y): both higher-is-better, with ties in one list, the other, or both
TAU_CASES: tuple[tuple[str, tuple[float, ...], tuple[float, ...]], ...] = (
    ("four segments, no ties", (10.0, 20.0, 30.0, 40.0), (-5.0, -1.0, -2.0, 0.0)),
    ("the experts tie two segments", (12.5, 40.0, 33.3, 8.0), (0.0, 0.0, -1.0, -5.0)),
    ("ties in both lists", (50.0, 50.0, 20.0, 70.0, 20.0), (0.0, -1.0, -1.0, 0.0, 0.0)),
    ("reversed order", (1.0, 2.0, 3.0), (0.0, -0.1, -5.0)),
    ("six segments, MQM style", (61.2, 7.4, 33.0, 33.0, 90.1, 15.8), (0.0, 0.0, -5.0, -1.0, -0.1, -6.0)),
)


def hidden_tau_cases(rng: random.Random) -> dict:
    """For ``bleu-lab grade`` (drawn at grading time; no hidden case ships): (name, x, y) cases with MQM-like ties."""
    cases = []
    for name in ("drawn segments", "many ties", "one tie in x"):
        k = rng.randint(5, 9)
        x = [round(rng.uniform(0, 100), 1) for _ in range(k)]
        y = [rng.choice((0.0, 0.0, -0.1, -1.0, -5.0, -6.0)) for _ in range(k)]
        if name == "one tie in x":
            x[1] = x[0]
        if len(set(y)) == 1:
            y[0] = -25.0
        cases.append((name, tuple(x), tuple(y)))
    return {"cases": cases}


def _variants(x: Sequence[float], y: Sequence[float]) -> list[tuple[float, str]]:
    """The usual wrong readings of "Kendall's tau" for (x, y), each with its hint."""
    c = pair_counts(list(x), list(y))
    decided = c.concordant + c.discordant
    return [
        (-c.tau_b, "The sign is flipped: a pair is concordant when BOTH lists prefer the same segment."),
        ((c.concordant - c.discordant) / c.pairs,
         "That is tau_a, (C - D) / P: tau_b divides by sqrt((P - T_x)(P - T_y)) instead, the pairs each list does not "
         "tie."),
        ((c.concordant - c.discordant) / decided if decided else math.nan,
         "You left out every tied pair ((C - D) / (C + D)): in tau_b a pair tied in only ONE list still counts in "
         "the other list's part of the denominator."),
        (c.accuracy_eq, "That is a pairwise accuracy (a share of pairs), not tau: tau_b is C - D over "
                        "sqrt((P - T_x)(P - T_y))."),
        (c.concordant / c.pairs, "That is the share of concordant pairs: tau_b subtracts the discordant ones, C - D, "
                                 "and divides by sqrt((P - T_x)(P - T_y))."),
    ]


def check_kendall_tau(func: Callable[[Sequence[float], Sequence[float]], float], cases=TAU_CASES) -> Feedback:
    """Check ``func(x, y)`` = Kendall's tau-b (ties as ``scipy.stats.kendalltau`` counts them) on ``cases``."""
    fb = Feedback("my_kendall_tau(x, y)")
    for case, x, y in cases:
        failed, got = call_student(fb, func, list(x), list(y))
        if failed:
            return fb
        expected = pair_counts(list(x), list(y)).tau_b
        number = as_number(got, strings=False)
        if number is None or not math.isfinite(float(number)):
            fb.fail(f"case {case}: return tau as a number between -1 and 1, not {shown(got)}")
        elif not close(float(number), expected):
            hint = next((h for value, h in _variants(x, y) if math.isfinite(value) and close(float(number), value)),
                        "Count every pair (i < j) once: concordant C, discordant D, tied in x (T_x), tied in y "
                        "(T_y), a pair tied in both counting in T_x and in T_y.")
            fb.fail(f"case {case}: x = {list(x)}, y = {list(y)}: your tau {float(number):+.4f} is not right. {hint}")
        if enough_failures(fb):
            break
    if fb.passed:
        fb.note("all cases right: compare with bl.metrics.agreement.kendall_tau and scipy.stats.kendalltau "
                "(the same tau_b).")
    return fb


# ------------------------------------------------------------------------------------------ surprises

SURPRISE_SYSTEMS = ("Online-W", "eTranslation")  # the visible cases


def system_case(system: str) -> tuple[str, dict[int, float], dict[int, float]]:
    """(name, {segment: sentence BLEU}, {segment: MQM}) of one rated system's 527 rated segments."""
    bleu = {row.segment: row.bleu for row in load_segment_metrics(system)}
    mqm = {row.segment: row.score for row in load_mqm_segments(system) if row.rated}
    return system, bleu, mqm


def expected_surprises(bleu: Mapping[int, float], mqm: Mapping[int, float]) -> tuple[set[int], set[int]]:
    """(segments with MQM <= -5 and the highest BLEU among them, segments with MQM 0 and the lowest BLEU): every
    segment that ties for the top (bottom) is a right answer."""
    major = [s for s in bleu if mqm[s] <= MAJOR]
    clean = [s for s in bleu if mqm[s] == 0]
    top = max(bleu[s] for s in major)
    bottom = min(bleu[s] for s in clean)
    return {s for s in major if bleu[s] == top}, {s for s in clean if bleu[s] == bottom}


def hidden_surprise_cases(rng: random.Random) -> dict:
    """Two other rated systems, and one drawn system of 12 segments (no hidden case ships)."""
    others = [s for s in RATED_SYSTEMS if s not in SURPRISE_SYSTEMS]
    segments = rng.sample(range(1, 1003), 12)
    bleu = {s: round(rng.uniform(0, 100), 2) for s in segments}
    mqm = {s: rng.choice((0.0, -0.1, -1.0, -5.0, -6.0, -10.0)) for s in segments}
    mqm[segments[0]], mqm[segments[1]] = 0.0, -5.0
    return {"cases": [*rng.sample(others, 2), ("drawn", bleu, mqm)]}


def check_surprises(func: Callable, cases: Sequence = SURPRISE_SYSTEMS) -> Feedback:
    """Check ``func(bleu, mqm)`` -> (highest-BLEU segment with a major error, lowest-BLEU segment without error) on
    ``cases``: system names (their shipped scores) or (name, bleu, mqm)."""
    fb = Feedback("my_surprises(bleu, mqm)")
    for case in cases:
        name, bleu, mqm = system_case(case) if isinstance(case, str) else case
        failed, got = call_student(fb, func, dict(bleu), dict(mqm))
        if failed:
            return fb
        high, low = expected_surprises(bleu, mqm)
        pair = None if isinstance(got, (str, bytes, Mapping)) else as_list(got)
        if pair is None or len(pair) != 2:
            fb.fail(f"{name}: return a pair (high, low) of segment numbers, not {shown(got)}")
            continue
        picked = [as_whole(v) for v in pair]
        for label, value, right, segments in (("high", picked[0], high, _high_hints(bleu, mqm)),
                                              ("low", picked[1], low, _low_hints(bleu, mqm))):
            if value is None or value not in bleu:
                fb.fail(f"{name}: {label} must be one of the system's rated segment numbers, not {shown(value)}")
            elif value not in right:
                fb.fail(f"{name}: {label} = {value} is not right. " + segments.get(value, _DEFAULT_HINTS[label]))
        if enough_failures(fb):
            break
    if fb.passed:
        fb.note("right: look the segments up with show_segment(...) in section 4; what does BLEU miss in the first, "
                "and what does it punish in the second?")
    return fb


_DEFAULT_HINTS = {
    "high": "Keep only the segments with MQM -5 or lower (a major error), then take the one with the HIGHEST BLEU.",
    "low": "Keep only the segments with MQM exactly 0 (no error at all), then take the one with the LOWEST BLEU.",
}


def _high_hints(bleu: Mapping[int, float], mqm: Mapping[int, float]) -> dict[int, str]:
    hints = {max(bleu, key=bleu.get): "That is the highest BLEU of ALL segments: keep only those with MQM -5 or lower.",
             min((s for s in bleu if mqm[s] <= MAJOR), key=bleu.get):
                 "That is the LOWEST BLEU among the major errors: BLEU and the experts agree there."}
    minor = [s for s in bleu if MAJOR < mqm[s] < 0]
    if minor:
        hints.setdefault(max(minor, key=bleu.get), "MQM above -5 is a minor error at most: a major one is -5 or lower.")
    return hints


def _low_hints(bleu: Mapping[int, float], mqm: Mapping[int, float]) -> dict[int, str]:
    hints = {min(bleu, key=bleu.get): "That is the lowest BLEU of ALL segments: keep only those with MQM exactly 0."}
    hints.setdefault(max((s for s in bleu if mqm[s] == 0), key=bleu.get),
                     "That is the HIGHEST BLEU among the segments without error: BLEU and the experts agree there.")
    return hints


# ------------------------------------------------------------------------------------------ a +0.5 BLEU claim

CLAIM = ('A paper claims: "Nemo is better than HuaweiTSC: +0.55 BLEU on newstest2021 English→German (reference C)." '
         "Section 6 printed the numbers to judge it by.")

# letter -> (statement, is it true?, why)
CLAIM_STATEMENTS: dict[str, tuple[str, bool, str]] = {
    "A": ("The gap depends on the reference: against reference A it is +0.24 BLEU.", True,
          "the official table gives +0.24 (A), +0.55 (C) and +0.38 (D)"),
    "B": ("On the 527 segments the experts rated, the 95% bootstrap interval of their MQM difference includes 0.", True,
          "the experts' difference is +0.04 points per segment, interval about [-0.23, +0.36]"),
    "C": ("A +0.55 BLEU gap on 1,002 segments is significant without a test.", False,
          "no size of gap is significant without a paired test (lesson 9)"),
    "D": ("Sentence BLEU agrees with the experts on most pairs of segments, so the segments confirm the gap.", False,
          "segment-level tau_b is about +0.06 for these systems (section 2)"),
    "E": ("The numbers support the claim that Nemo translates better than HuaweiTSC.", False,
          "neither BLEU (reference-dependent, untested) nor the experts (interval includes 0) support it"),
    "F": ("Because BLEU agrees with MQM at the system level (tau +0.79), a +0.55 gap between two systems shows that "
          "people prefer the higher one.", False,
          "system-level agreement is about many pairs and larger gaps; it says nothing certain about one small gap"),
}


def report_claim_text() -> str:
    """The claim and the statements to judge, one per line."""
    return CLAIM + "\n\n" + choices_text(CLAIM_STATEMENTS)


def check_report_claim(true: object) -> Feedback:
    """Check the set of letters of the true statements about the +0.55 BLEU claim."""
    fb = Feedback("is the +0.5 BLEU claim supported?")
    if isinstance(true, str):
        true = [c for c in true.upper() if c.isalpha()]
    if not isinstance(true, (set, list, tuple, frozenset)) or not all(isinstance(a, str) for a in true):
        return fb.fail('true must be a set of letters, e.g. true = {"A"}')
    chosen = {a.strip().upper() for a in true}
    unknown = chosen - set(CLAIM_STATEMENTS)
    if unknown:
        return fb.fail(f"unknown letters {sorted(unknown)}: choose among {', '.join(CLAIM_STATEMENTS)}")
    actual = {k for k, (_, right, _) in CLAIM_STATEMENTS.items() if right}
    choice_mistakes(fb, chosen, actual, "check each against the numbers section 6 printed (and section 2's tau)",
                    "look again at the BLEU gap per reference and at the experts' interval")
    if fb.passed:
        fb.note("right: " + "; ".join(f"{k}: {CLAIM_STATEMENTS[k][2]}" for k in CLAIM_STATEMENTS) + ". A report can "
                "say the BLEU gap is small and reference-dependent and that the experts see no difference.")
    return fb


# ------------------------------------------------------------------------------------------ written answer

TWO_ERRORS_KEY_POINTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("UEdin's is a mistranslation: a wrong meaning in fluent German",
     ("mistranslat", "wrong meaning", "meaning is wrong", "wrong word", "shabby", "schäbig", "schabig", "meaning",
      "accuracy", "adequa", "sense")),
    ("Online-W's is only punctuation/typography (the quotation marks), a 0.1 error",
     ("quot", "punctuation", "typograph", "0.1", "„", "straight", "ascii")),
    ("BLEU counts n-gram (token) matches: the quotes break more of them than one wrong word does",
     ("n-gram", "ngram", "token", "match", "overlap", "surface", "string", "count")),
)
TWO_ERRORS_CLAIMS = (
    ReversedClaim(r"\buedin\b[^.;]*\b(?:is|was)\s+(?:the\s+)?(?:better|correct|right|fine)\b",
                  "UEdin's translation is the worse one for the experts (-5): schäbig means shabby, not chaotic"),
    ReversedClaim(r"\bonline-w\b[^.;]*\b(?:major|serious|mistranslat|wrong meaning)",
                  "Online-W's -0.1 is exactly one minor punctuation error; its words are right"),
    ReversedClaim(r"\bbleu\b[^.;]*\b(?:is|was)\s+right\b",
                  "the experts, not BLEU, judged the meaning; BLEU only counts overlap with reference C"),
)
TWO_ERRORS_HINTS = (
    "Section 4, segment 582: what does schäbig mean, and what differs between Online-W's and Facebook-AI's outputs?",
    "Name both errors, then say what BLEU counts (n-grams shared with reference C) and why quotes glued to words "
    "cost more of them than one wrong word.",
    "One more point: why does BLEU's count come out the other way round?",
)
MODEL_ANSWER_TWO_ERRORS = (
    "UEdin's schäbig (shabby) is a fluent mistranslation, a major accuracy error (-5), while Online-W's only fault is "
    "its straight ASCII quotes, a minor punctuation error weighted 0.1; BLEU counts n-gram matches with reference C, "
    "and the straight quotes (tokens of their own under 13a, where reference C's „ stays glued to „Die) break more "
    "n-gram matches than the wrong word does, so BLEU prefers the wrong translation."
)


def check_two_errors(answer: object, *, reveal: bool = False) -> Feedback:
    """A written answer: what kind of error UEdin's and Online-W's outputs of segment 582 have, and why BLEU orders
    them the other way. Never "correct": it shows the key points found or missing, reversed claims, a model answer."""
    return check_written_answer("two errors, two weights", answer, key_points=TWO_ERRORS_KEY_POINTS,
                                claims=TWO_ERRORS_CLAIMS, model_answer=MODEL_ANSWER_TWO_ERRORS,
                                hints=TWO_ERRORS_HINTS, min_words=8)


GRADING = LessonGrading("12_metrics_and_people", (
    GradedExercise("my_kendall_tau", check_kendall_tau, ("my_kendall_tau",), hidden=hidden_tau_cases,
                   implemented_by=("bleu_lab.metrics.agreement.kendall_tau", "bleu_lab.metrics.agreement.pair_counts",
                                   "bleu_lab.metrics.agreement.PairCounts.tau_b")),
    GradedExercise("my_surprises", check_surprises, ("my_surprises",), hidden=hidden_surprise_cases,
                   implemented_by=()),  # bleu_lab has no function that picks the surprising segments
    GradedExercise("is the +0.5 BLEU claim supported?", check_report_claim, ("true",), implemented_by=()),
    GradedExercise("two errors, two weights", check_two_errors, ("answer",),
                   manual="; ".join(point for point, _ in TWO_ERRORS_KEY_POINTS),
                   model_answer=MODEL_ANSWER_TWO_ERRORS, implemented_by=()),
))
