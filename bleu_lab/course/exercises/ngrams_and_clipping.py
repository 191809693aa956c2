"""Checks for lesson 1 (n-grams and clipping): counting n-grams, clipping counts, a clip table by hand.

Each check compares the student's answer with bleu_lab's own ``count_ngrams`` / ``clip_counts`` and,
when they differ, names the case and the n-gram and says which typical mistake the numbers point to.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from functools import partial

from ...clipping import clip_counts, max_reference_counts
from ...ngrams import Ngram, count_ngrams, ngram_total
from . import (
    Case,
    Feedback,
    GradedExercise,
    LessonGrading,
    as_whole,
    check_cases,
    random_sentence,
    shown,
    tiered_hint,
)

# (tokens, n) pairs for my_count_ngrams: repeats, n = 1 and n > 1, whole sentence, too short, empty.
COUNT_CASES: tuple[tuple[tuple[str, ...], int], ...] = (
    (tuple("the cat is on the mat".split()), 1),
    (tuple("the cat and the cat on the mat".split()), 2),
    (tuple("to be or not to be".split()), 2),
    (tuple("is is is is".split()), 3),
    (tuple("the cat and the cat on the mat".split()), 4),
    (tuple("a b c".split()), 3),
    (tuple("a b".split()), 3),
    ((), 1),
)

# (references, hypothesis, n) for my_clip: the lesson's examples plus one where adding references up goes wrong.
CLIP_CASES: tuple[tuple[tuple[str, ...], str, int], ...] = (
    (("the cat is on the mat", "there is a cat on the mat"), "the cat and the cat on the mat", 1),
    (("the cat is on the mat", "there is a cat on the mat"), "the the the the the the the", 1),
    (("this is a test", "this is is is test"), "is some", 1),
    (("the cat", "the dog", "a bird"), "the the the the", 1),
    (("the cat is on the mat", "there is a cat on the mat"), "the cat and the cat on the mat", 2),
    (("a b a b", "a b"), "a b a b a b", 2),
)

# The clip table students fill in by hand.
CLIP_BY_HAND_REFERENCES = ("a cat sat on the mat", "there is a cat on a mat")
CLIP_BY_HAND_HYPOTHESIS = "a cat on a mat and a cat on a mat"


def check_count_ngrams(func: Callable, *, cases: Sequence[tuple[Sequence[str], int]] = COUNT_CASES) -> Feedback:
    """Check ``func(tokens, n)`` returns ``{ngram_tuple: count}`` like ``count_ngrams`` on every case."""
    return check_cases("my_count_ngrams", func, (
        Case(f"tokens {list(tokens)}, n={n}", (list(tokens), n), partial(_count_problem, tuple(tokens), n))
        for tokens, n in cases))


def _count_problem(tokens: tuple[str, ...], n: int, result: object) -> str | None:
    """What is wrong with one answer of my_count_ngrams (None if it is right)."""
    expected = count_ngrams(list(tokens), n)
    if result is None or result is Ellipsis:
        return "your function returned nothing (None); return a Counter of n-gram tuples"
    if not isinstance(result, Mapping):
        if isinstance(result, (list, tuple)):
            return (
                f"you returned a {type(result).__name__}; return a Counter (or dict) mapping each n-gram to how "
                "often it occurs. If this is the list of n-grams, Counter(your_list) counts it"
            )
        return f"you returned a {type(result).__name__}; return a Counter (or dict) mapping n-gram tuples to counts"
    given = {k: v for k, v in result.items() if v != 0}
    bad_key = next((k for k in given if not isinstance(k, tuple)), None)
    if bad_key is not None:
        remark = ": even a 1-gram is a tuple" if n == 1 else ""
        return (
            f"the key {shown(bad_key)} is a {type(bad_key).__name__}; every n-gram must be a tuple of tokens, "
            f"e.g. {_example_ngram(expected, n)}{remark}"
        )
    wrong_len = next((k for k in given if len(k) != n), None)
    if wrong_len is not None:
        return f"the key {wrong_len} has {len(wrong_len)} tokens, but an n-gram for n={n} has exactly {n}"
    bad_value = next((v for v in given.values() if as_whole(v) is None or isinstance(v, str)), None)
    if bad_value is not None:
        return f"the count {shown(bad_value)} is not a whole number; each value must be how often its n-gram occurs"
    given = {k: as_whole(v) for k, v in given.items()}
    if given == dict(expected):
        return None
    total = ngram_total(len(tokens), n)
    if not given:
        return f"you returned an empty Counter, but {len(tokens)} tokens have {total} {n}-grams"
    missing = [g for g in expected if g not in given]
    extra = [g for g in given if g not in expected]
    if extra:
        return f"{extra[0]} is not an n-gram of these tokens (the n-grams are {list(expected) or 'none'})"
    last = tuple(tokens[-n:]) if total else None
    all_but_last = Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n))
    if total and given == dict(all_but_last):  # range(len(tokens) - n): the last window never starts
        return (
            f"you missed the last n-gram {last}: a sentence of {len(tokens)} tokens has "
            f"{len(tokens)} - {n} + 1 = {total} n-grams, so the start index runs up to len(tokens) - n inclusive"
        )
    if missing:
        return f"{missing[0]} is missing; it occurs {expected[missing[0]]} time(s) (all n-grams: {dict(expected)})"
    if set(given.values()) == {1} and max(expected.values()) > 1:
        repeated = next(g for g, c in expected.items() if c > 1)
        return (
            f"you counted each distinct n-gram once, but {repeated} occurs {expected[repeated]} times; "
            "BLEU needs how often each n-gram occurs (a set loses that)"
        )
    wrong = next(g for g in expected if given[g] != expected[g])
    return f"your count for {wrong} is {given[wrong]}, but it occurs {expected[wrong]} time(s)"


def _example_ngram(expected: Counter[Ngram], n: int) -> Ngram:
    """One n-gram to show in a message: the first expected one, or a made-up one when there are none."""
    return next(iter(expected), ("w",) * n)


def check_clip(func: Callable, *, cases: Sequence[tuple[Sequence[str], str, int]] = CLIP_CASES) -> Feedback:
    """Check ``func(hyp_counts, refs_counts)`` returns ``{ngram: min(count, max over refs)}`` like ``clip_counts``."""
    return check_cases("my_clip", func, (_clip_case(tuple(refs), hyp, n) for refs, hyp, n in cases))


def _clip_case(refs: tuple[str, ...], hyp: str, n: int) -> Case:
    hyp_counts = count_ngrams(hyp, n)
    refs_counts = [count_ngrams(r, n) for r in refs]
    return Case(f"hypothesis {hyp!r}, references {list(refs)}, n={n}",
                (Counter(hyp_counts), [Counter(c) for c in refs_counts]),
                partial(_clip_problem, refs, hyp_counts, refs_counts, n))


def _clip_problem(
    refs: tuple[str, ...], hyp_counts: Counter[Ngram], refs_counts: list[Counter[Ngram]], n: int, result: object
) -> str | None:
    """What is wrong with one answer of my_clip (None if it is right)."""
    if result is None or result is Ellipsis:
        return "your function returned nothing (None); return a dict {ngram: clipped count}"
    if not isinstance(result, Mapping):
        return f"you returned a {type(result).__name__}; return a dict {{ngram: clipped count}}"
    expected = clip_counts(hyp_counts, max_reference_counts(list(refs), n))
    bad_key = next((g for g in result if not isinstance(g, tuple)), None)
    if bad_key is not None:
        return (f"the key {shown(bad_key)} is not an n-gram tuple; use the keys of hyp_counts, e.g. "
                f"{next(iter(hyp_counts))}")
    extra = [g for g in result if g not in hyp_counts and result[g] != 0]
    if extra:
        return f"{extra[0]} is not in the hypothesis: only the hypothesis n-grams get a clipped count"
    for g, want in expected.items():
        if g not in result:
            return (
                f"{g} is missing from your result: every hypothesis n-gram needs an entry "
                f"(0 when no reference has it; here it is {want})"
            )
        message = diagnose_clipped_count(g, result[g], hyp_counts[g], [c[g] for c in refs_counts])
        if message:
            return message
    return None


def diagnose_clipped_count(ngram: Ngram, given: object, count: int, ref_counts: list[int]) -> str | None:
    """Explain why ``given`` is not ``min(count, max(ref_counts))`` for one n-gram (None if it is right)."""
    most = max(ref_counts, default=0)
    want = min(count, most)
    if given is None or given is Ellipsis:
        return f"fill in the clipped count of {ngram} (replace the ...)"
    if as_whole(given) is None:
        return f"your clipped count for {ngram} is {shown(given)}; give a whole number (int)"
    given = as_whole(given)
    if given == want:
        return None
    per_ref = ", ".join(map(str, ref_counts))
    if given == count:
        return (
            f"your clipped count for {ngram} is {given}, its count in the hypothesis, not clipped; "
            f"the most any reference has is {most}, so the credit is min({count}, {most}) = {want}"
        )
    if given == min(count, sum(ref_counts)) and len(ref_counts) > 1:
        return (
            f"your clipped count for {ngram} is {given}: did you add up the references? They have it "
            f"{per_ref} times; clip by the most in any ONE reference, {most}: min({count}, {most}) = {want}"
        )
    if given == most:
        return (
            f"your clipped count for {ngram} is {given}, the most any reference has; but the hypothesis only has "
            f"it {count} time(s): take the smaller, min({count}, {most}) = {want}"
        )
    return (
        f"your clipped count for {ngram} is {given}; it occurs {count} time(s) in the hypothesis and at most "
        f"{most} time(s) in one reference (per reference: {per_ref}), so the credit is min({count}, {most}) = {want}"
    )


CLIP_FIRST_HINT = ("for each word of the hypothesis: count it in the hypothesis, find the ONE reference that uses it "
                   "most, and take the smaller of the two numbers")


def check_clip_by_hand(answer: object, *, reveal: bool = False) -> Feedback:
    """Check a hand-made unigram clip table ``{word: clipped count}`` for the CLIP_BY_HAND sentence pair.

    Keys may be words (``'cat'``) or 1-gram tuples (``('cat',)``). Wrong counts get a general hint first, then the
    diagnosis per word, and the table itself only after that (or with ``reveal=True``).
    """
    fb = Feedback("clip table by hand")
    if answer is None or answer is Ellipsis:
        return fb.fail("replace ... with a dict such as {'a': 1, 'cat': 1, ...}: one entry per distinct word")
    if not isinstance(answer, Mapping):
        return fb.fail(f"give a dict {{word: clipped count}}, not a {type(answer).__name__}")
    given: dict[Ngram, object] = {}
    for key, value in answer.items():
        gram = (key,) if isinstance(key, str) else key
        if not (isinstance(gram, tuple) and len(gram) == 1 and isinstance(gram[0], str)):
            return fb.fail(f"the key {key!r} is not a word; use words like 'cat' (or 1-gram tuples like ('cat',))")
        given[gram] = value
    hyp_counts = count_ngrams(CLIP_BY_HAND_HYPOTHESIS, 1)
    refs_counts = [count_ngrams(r, 1) for r in CLIP_BY_HAND_REFERENCES]
    expected = clip_counts(hyp_counts, max_reference_counts(list(CLIP_BY_HAND_REFERENCES), 1))
    for gram in given:
        if gram not in hyp_counts:
            fb.fail(f"{gram[0]!r} is not a word of the hypothesis; the table has one row per hypothesis word")
    wrong = []
    for gram in expected:
        if gram not in given:
            fb.fail(f"{gram[0]!r} is missing: it is a word of the hypothesis, so it needs a row")
            continue
        message = diagnose_clipped_count(gram, given[gram], hyp_counts[gram], [c[gram] for c in refs_counts])
        if message and as_whole(given[gram]) is not None:
            wrong.append(message)
        elif message:
            fb.fail(message)
    if wrong and fb.passed:  # the table's shape is right, some counts are not: hints before the answer
        table = ", ".join(f"{g[0]!r}: {c}" for g, c in expected.items())
        tiered_hint(fb, [CLIP_FIRST_HINT, " / ".join(wrong)], "{" + table + "}", reveal=reveal)
    elif wrong:
        fb.fail(CLIP_FIRST_HINT)
    if fb.passed:
        total = sum(hyp_counts.values())
        fb.note(f"so the hypothesis earns {sum(expected.values())} unigram credits out of {total}")
    return fb

# For ``bleu-lab grade``: hidden cases drawn at grading time (no hidden case ships), so that answers hard-coded for the
# visible cases do not pass.
def hidden_count_cases(rng: random.Random) -> dict:
    """Token lists and orders for ``check_count_ngrams(..., cases=...)``: repeats, n = 1 to 4, one too short."""
    cases = [(tuple(random_sentence(rng, 3, 9).split()), n) for n in (1, 2, 3)]
    cases.append((tuple(random_sentence(rng, 1, 3).split()), 4))
    return {"cases": cases}


def hidden_clip_cases(rng: random.Random) -> dict:
    """(references, hypothesis, n) for ``check_clip(..., cases=...)``: one to three references, n = 1 and 2."""
    cases = []
    for n in (1, 1, 2, 2):
        refs = tuple(random_sentence(rng, 3, 8) for _ in range(rng.randint(1, 3)))
        cases.append((refs, random_sentence(rng, max(n, 3), 9), n))
    return {"cases": cases}


GRADING = LessonGrading("01_ngrams_and_clipping", (
    GradedExercise("my_count_ngrams", check_count_ngrams, ("my_count_ngrams",), hidden=hidden_count_cases,
                   implemented_by=("bleu_lab.ngrams.count_ngrams", "bleu_lab.ngrams.ngrams",
                                   "bleu_lab.ngrams.ngram_list", "bleu_lab.ngrams.ngram_iter",
                                   "bleu_lab.ngrams._ngram_iter")),
    GradedExercise("my_clip", check_clip, ("my_clip",), hidden=hidden_clip_cases,
                   implemented_by=("bleu_lab.clipping.clip_counts", "bleu_lab.clipping.max_reference_counts")),
    GradedExercise("clip table by hand", check_clip_by_hand, ("my_clip_table",), implemented_by=()),
))
