"""Checks for lesson 8, corpus BLEU.

- ``check_corpus_bleu(my_corpus_bleu)``: corpus BLEU (0–100) from a list of per-segment ``BleuStats``, by
  summing them first; a wrong number is matched against the usual mistakes (mean of sentence BLEU, averaged
  precisions, BP per segment, no BP, the 0–1 scale, nltk's denominators)
- ``check_why_mean_differs(answer)``: pick every true reason why corpus BLEU is not the mean of sentence BLEU
- ``check_reference_lists(my_references)``: per-segment references built from the news corpus's files without
  the empty-line trap

Expected values come from ``corpus_score``/``score_from_stats``; the checks only compare and explain.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Sequence

from ...geometric_mean import uniform_log_mean
from ...sacrebleu_style import BleuScore, ScoreOptions, corpus_score, score_from_stats
from ...statistics import BleuStats
from . import (
    Case,
    Feedback,
    GradedExercise,
    LessonGrading,
    check_cases,
    choice_mistakes,
    choices_text,
    close,
    number_problem,
    random_sentence,
    random_variant,
)

# The lesson's worked example: a short, good segment and a long, weaker one (lowercase words, no punctuation,
# so 13a tokens are the words). The notebook uses these very strings.
WORKED_HYPOTHESES = (
    "heavy rain floods the town",
    "on monday the council said that the old bridge across the river is closed for repair works until end of may",
)
WORKED_REFERENCES = (
    ("heavy rain floods the village",),
    ("the council said on monday that the old bridge over the river will be closed for repairs until the end of "
     "may",),
)

# (case name, hypotheses, references per segment): every pooled order has matches, so no smoothing is involved.
CORPUS_CASES: tuple[tuple[str, tuple[str, ...], tuple[tuple[str, ...], ...]], ...] = (
    ("the worked example (2 segments)", WORKED_HYPOTHESES, WORKED_REFERENCES),
    (
        "four segments, one of them 2 words long, the whole output shorter than the references",
        (
            "the cat sat on the mat",
            "storm warning",
            "prices rose by three percent last year",
            "the museum opens at nine on sundays",
        ),
        (
            ("the cat is on the mat", "there is a cat on the mat"),
            ("storm warning issued",),
            ("prices rose three percent last year , the report says",),
            ("the museum opens at nine o'clock on sundays and holidays",),
        ),
    ),
    (
        "three segments with two references each",
        (
            "the committee approved the new budget on tuesday",
            "she has not answered our emails yet",
            "the train to the airport leaves every twenty minutes from platform four",
        ),
        (
            ("the committee approved the new budget on tuesday", "on tuesday the committee passed the new budget"),
            ("she hasn't answered our emails yet", "she has still not replied to our emails"),
            ("trains to the airport leave from platform four every twenty minutes",
             "the airport train departs every 20 minutes from platform 4"),
        ),
    ),
)
TOLERANCE = 1e-6  # on the 0-100 scale


class SegmentStats(list):
    """A list of per-segment ``BleuStats`` whose repr stays short in feedback messages."""

    def __repr__(self) -> str:
        return f"segment_stats (a list of {len(self)} BleuStats)"


def case_stats(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> SegmentStats:
    """One ``BleuStats`` per segment (13a tokens, as ``corpus_score``)."""
    return SegmentStats(corpus_score([h], [list(r)]).stats for h, r in zip(hypotheses, references))


def check_corpus_bleu(
    func: Callable[[list[BleuStats]], float], *,
    cases: Sequence[tuple[str, Sequence[str], Sequence[Sequence[str]]]] = CORPUS_CASES,
) -> Feedback:
    """Check ``func(segment_stats)`` returns corpus BLEU (0–100) = BLEU of the summed statistics."""
    return check_cases("my_corpus_bleu(segment_stats)", func, (_corpus_case(*case) for case in cases),
                       passed="all cases right: sum the statistics, then divide once — that is corpus BLEU")


def _corpus_case(case: str, hyps: Sequence[str], refs: Sequence[Sequence[str]]) -> Case:
    stats = case_stats(hyps, refs)
    expected = corpus_score(list(hyps), [list(r) for r in refs])
    problem = number_problem(
        expected.score, lambda got: f"expected corpus BLEU {expected.score:.4f}, you returned {got:.4f}. "
        + _corpus_hint(stats, expected, got), what="the score as a number (0–100)",
        same=lambda got, want: close(got, want, abs_tol=TOLERANCE))
    return Case(f"case {case}", (SegmentStats(stats),),
                lambda got: problem(got.score if isinstance(got, BleuScore) else got))


def _corpus_hint(stats: Sequence[BleuStats], expected: BleuScore, got: float) -> str:
    """Name the mistake a wrong corpus score points to (the first candidate that reproduces ``got``)."""
    for value, hint in _mistakes(stats, expected):
        if value is not None and close(got, value, abs_tol=1e-6):
            return hint
    total = expected.stats
    return (f"Sum the statistics (c = {total.hyp_len}, r = {total.ref_len}, matches {list(total.matches)}, "
            f"totals {list(total.totals)}), then BLEU = BP · exp(¼ Σ log p_n) with p_n = 100 · matches/totals "
            "and BP = 1 if c > r else exp(1 - r/c).")


def _mistakes(stats: Sequence[BleuStats], expected: BleuScore) -> Iterable[tuple[float | None, str]]:
    """(the number a typical mistake gives, what to say about it), most common first."""
    yield expected.score / 100, "That is the right score on the 0–1 scale: multiply by 100 (sacrebleu's scale)."
    per_segment = [score_from_stats(s) for s in stats]
    yield _mean(s.score for s in per_segment), (
        "That is the mean of the segments' BLEU scores. Corpus BLEU is not computed from the segments' scores: "
        "look again at what section 1's worked example adds up, and when it divides.")
    sentence = ScoreOptions(effective_order=True)
    yield _mean(score_from_stats(s, sentence).score for s in stats), (
        "That is the mean of sentence BLEU (with effective order, as sentence_score). Corpus BLEU sums the "
        "statistics first and computes one BLEU from the sums.")
    total, bp = expected.stats, expected.bp
    log_mean = uniform_log_mean(expected.precisions, len(expected.precisions))
    if bp < 1:
        yield expected.score / bp, (f"You left out the brevity penalty: the pooled c = {total.hyp_len} is shorter "
                                    f"than r = {total.ref_len}, so BP = exp(1 - r/c) = {bp:.4f}.")
        yield math.exp(log_mean) * math.exp(1 - total.hyp_len / total.ref_len), (
            "Your brevity penalty is exp(1 - c/r): the ratio is upside down. BP = exp(1 - r/c).")
    mean_bp = _mean(s.bp for s in per_segment)
    if not math.isclose(mean_bp, bp):
        yield math.exp(log_mean) * mean_bp, (
            f"The precisions are right but you averaged the segments' brevity penalties ({mean_bp:.4f}); corpus BLEU "
            f"takes one BP from the summed lengths c = {total.hyp_len} and r = {total.ref_len} ({bp:.4f}).")
    averaged = [_mean(100 * m / t for m, t in zip(ms, ts) if t) for ms, ts in
                zip(zip(*(s.matches for s in stats)), zip(*(s.totals for s in stats)))]
    if all(p and p > 0 for p in averaged):
        yield bp * math.exp(uniform_log_mean(averaged, len(averaged))), (
            "You averaged each segment's p_n. Pool instead: p_n = (sum of matches) / (sum of totals), so a "
            "long segment with many n-grams counts for more than a short one.")
    yield bp * _mean(expected.precisions), (
        "You took the arithmetic mean of p_1..p_4; BLEU uses the geometric mean: exp(¼ Σ log p_n).")
    nltk = [100 * m / d for m, d in zip(total.matches, total.nltk_denominators)]
    if nltk != list(expected.precisions):
        yield bp * math.exp(uniform_log_mean(nltk, len(nltk))), (
            "You divided by totals + short (nltk's denominators, with a phantom n-gram for each segment shorter "
            "than n). sacrebleu's corpus_score divides by the true number of n-grams: totals.")


def _mean(values: Iterable[float]) -> float | None:
    values = list(values)
    return sum(values) / len(values) if values else None


# ------------------------------------------------------------------------------------------- why they differ

# letter -> (statement, true?, what to say when it is chosen wrongly or missed)
WHY_STATEMENTS: dict[str, tuple[str, bool, str]] = {
    "A": (
        "Corpus BLEU adds up matches and n-gram counts over all segments before dividing, so a long segment "
        "(many n-grams) weighs more than a short one; the mean of sentence BLEU gives every segment the same weight.",
        True,
        f"Pooling is the main reason: in the worked example the {len(WORKED_HYPOTHESES[1].split())}-word segment "
        f"holds {len(WORKED_HYPOTHESES[1].split())} of the {sum(len(h.split()) for h in WORKED_HYPOTHESES)} "
        "hypothesis unigrams, and its p_n dominate the pooled ones.",
    ),
    "B": (
        "The geometric mean and the brevity penalty are not linear: applying them once to pooled counts is not "
        "the same as applying them to each segment and averaging the results.",
        True,
        "Averages do not commute with exp/log: the mean of BP · exp(mean log p) over segments is not BP · exp(mean "
        "log p) of the pooled counts, even with equal weights.",
    ),
    "C": (
        "A short segment often has no match at some order and needs smoothing (and sacrebleu's effective order) "
        "as a sentence; the pooled counts of a corpus rarely have a zero, so corpus BLEU needs none.",
        True,
        "Smoothing and effective order change short sentences' scores a lot (lesson 6) and never touch a "
        "corpus whose pooled counts have no zero — another reason the two numbers differ.",
    ),
    "D": (
        "Corpus BLEU is the median of the sentence scores rather than their mean, so it resists the outlying zeros of "
        "very short segments better.",
        False,
        "Corpus BLEU is not computed from sentence scores at all — not their median, not their mean: it is "
        "one BLEU of the summed statistics.",
    ),
    "E": (
        "The two numbers differ only by floating-point rounding, which builds up when 160 sentence scores are added "
        "one by one.",
        False,
        "The gap is several BLEU points in the lesson (e.g. the worked example): far beyond rounding.",
    ),
    "F": (
        "corpus_score tokenizes the text differently from sentence_score: it runs the 13a tokenizer over the whole "
        "test set at once, so tokens at the segment boundaries are split differently than when each sentence is "
        "tokenized on its own.",
        False,
        "Both use the same tokenizer (13a by default) and the same n-gram counts: only the way they are "
        "combined differs.",
    ),
}


def why_statements_text() -> str:
    """The statements of the multiple-choice question, one per line."""
    return choices_text(WHY_STATEMENTS)


def _letters(answer: object) -> set[str] | None:
    """'AC', 'a, c', ['A', 'C'] or {'A', 'C'} -> {'A', 'C'}; None if it cannot be read."""
    if isinstance(answer, str):
        items = [ch for ch in answer.upper() if ch.isalpha()]
    elif isinstance(answer, Iterable):
        items = [str(a).strip().upper() for a in answer]
    else:
        return None
    return set(items)


def check_why_mean_differs(answer: object) -> Feedback:
    """Check the set of letters chosen as true reasons why corpus BLEU differs from the mean of sentence BLEU."""
    fb = Feedback("why corpus BLEU is not the mean of sentence BLEU")
    chosen = _letters(answer)
    if not chosen:
        return fb.fail("write the letters of every true statement, as a string or a set: answer = 'XY' or "
                       "answer = {'X', 'Y'} if statements X and Y are true")
    unknown = sorted(chosen - set(WHY_STATEMENTS))
    if unknown:
        fb.fail(f"there is no statement {', '.join(unknown)}: choose among {', '.join(WHY_STATEMENTS)}")
    true_keys = {key for key, (_, true, _) in WHY_STATEMENTS.items() if true}
    choice_mistakes(fb, chosen & set(WHY_STATEMENTS), true_keys,
                    "for each, ask whether corpus BLEU is computed from sentence scores at all (section 1)",
                    "compare the worked example's pooled counts with its sentence scores, step by step")
    if fb.passed:
        fb.note("A, B and C: " + " ".join(WHY_STATEMENTS[key][2] for key in sorted(true_keys)))
    return fb


# ------------------------------------------------------------------------------------------- references


def check_reference_lists(my_references: object, corpus=None) -> Feedback:
    """Check per-segment references for the news corpus: all 160 segments, ref A and (lines 1-60) ref B, no ''.

    ``corpus`` defaults to ``load_corpus('news')``; the expected lists are its ``references`` (empty lines dropped).
    """
    from ...data import load_corpus

    fb = Feedback("references per segment without the empty-line trap")
    corpus = load_corpus("news") if corpus is None else corpus
    expected = corpus.references
    streams = list(corpus.reference_streams.values())
    if isinstance(my_references, (str, bytes)) or not isinstance(my_references, Sequence):
        return fb.fail(f"give a list with one list of reference strings per segment, not "
                       f"{type(my_references).__name__}")
    refs = list(my_references)
    if len(refs) == len(streams) and refs and isinstance(refs[0], Sequence) and len(refs[0]) == len(expected):
        return fb.fail(f"you have {len(refs)} lists of {len(refs[0])} lines: one list per reference FILE "
                       "(sacrebleu's 'streams'). bleu_lab wants one list per SEGMENT: references[i] holds the "
                       "references of hypothesis i — build them with zip over the streams.")
    if len(refs) != len(expected):
        return fb.fail(f"there are {len(expected)} segments, and you have {len(refs)} reference lists")
    for i, seg in enumerate(refs):
        if isinstance(seg, str) or not isinstance(seg, Sequence) or not all(isinstance(r, str) for r in seg):
            return fb.fail(f"my_references[{i}] must be a list of reference strings, not {seg!r:.80}")
        if not seg:
            return fb.fail(f"segment {i + 1} has no reference at all: every hypothesis needs at least one "
                           "(reference A exists for every segment)")
        if any(not r.strip() for r in seg):
            trap = corpus_score(corpus.systems["degraded"], [list(s) for s in refs]).score if all(refs) else None
            right = corpus_score(corpus.systems["degraded"], expected).score
            fb.fail(f"segment {i + 1} has an empty reference {seg[-1]!r}: the empty line in ref.B.de means 'no "
                    "second reference here', but passed on it is a real zero-length reference. It becomes the "
                    "closest reference length r = 0 for short hypotheses, so the brevity penalty stops biting"
                    + (f" (degraded: {trap:.1f} instead of {right:.1f})" if trap is not None else "")
                    + ". So what should a segment without reference B hold (section 5)?")
            return fb
    for i, (seg, want) in enumerate(zip(refs, expected)):
        if list(seg) != list(want):
            missing = [r for r in want if r not in seg]
            if missing:
                fb.fail(f"segment {i + 1} lacks the reference {missing[0]!r:.70}: segments 1-60 have two "
                        "references (A and B), every other segment has A only")
            else:
                fb.fail(f"segment {i + 1} has references that are not its lines of ref.A.de/ref.B.de: {seg!r:.90}")
            return fb
    score = corpus_score(corpus.systems["degraded"], [list(s) for s in refs])
    fb.note(f"degraded scores {score.score:.2f} with these references ({score.signature.split('|')[0]}: "
            "the number of references varies by segment)")
    return fb

# For ``bleu-lab grade``: hidden corpora drawn at grading time (no hidden case ships), every pooled order with matches.
def hidden_corpus_cases(rng: random.Random) -> dict:
    """(name, hypotheses, references per segment) for ``check_corpus_bleu(..., cases=...)``."""
    cases = []
    while len(cases) < 2:
        references = [tuple(random_sentence(rng, 5, 12) for _ in range(rng.randint(1, 2))) for _ in range(3)]
        hypotheses = [random_variant(rng, refs[0], rng.randint(0, 4)) for refs in references]
        if all(corpus_score(hypotheses, [list(r) for r in references]).stats.matches):
            cases.append((f"drawn corpus {len(cases) + 1}", tuple(hypotheses), tuple(references)))
    return {"cases": cases}


GRADING = LessonGrading("08_corpus_bleu", (
    GradedExercise("my_corpus_bleu", check_corpus_bleu, ("my_corpus_bleu",), hidden=hidden_corpus_cases,
                   implemented_by=("bleu_lab.sacrebleu_style.score_from_stats", "bleu_lab.nltk_style.bleu_from_stats",
                                   "bleu_lab.metrics.significance.scores_from_rows")),
    GradedExercise("why corpus BLEU is not the mean", check_why_mean_differs, ("answer",), implemented_by=()),
    GradedExercise("references per segment", check_reference_lists, ("my_references",), implemented_by=()),
))
