"""The exercise checks of lessons 01-02: right answers pass, typical mistakes get their specific message."""

from __future__ import annotations

import runpy
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

import bleu_lab as bl
from bleu_lab.course.exercises import MAX_REPORTED_CASES
from bleu_lab.course.exercises import modified_precision as ex2
from bleu_lab.course.exercises import ngrams_and_clipping as ex1

SOLUTIONS = Path(__file__).resolve().parent.parent / "notebooks" / "solutions"


def text(feedback) -> str:
    return "\n".join(feedback.messages)


def counts(tokens, n):
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def max_ref(refs_counts):
    best = Counter()
    for c in refs_counts:
        best |= c
    return best


# --- the solution files: valid Python, define the function, pass their check ---------------------------------

SOLUTION_FILES = {
    "01_count_ngrams.py": ("my_count_ngrams", ex1.check_count_ngrams),
    "01_clip.py": ("my_clip", ex1.check_clip),
    "01_clip_by_hand.py": ("my_clip_table", ex1.check_clip_by_hand),
    "02_p2_by_hand.py": ("p2", ex2.check_p2_by_hand),
    "02_modified_precision.py": ("my_modified_precision", ex2.check_modified_precision),
    "02_word_salad.py": ("salad", ex2.check_word_salad),
}


@pytest.mark.parametrize("filename", sorted(SOLUTION_FILES))
def test_solution_file_defines_the_answer_and_passes(filename):
    name, check = SOLUTION_FILES[filename]
    namespace = runpy.run_path(str(SOLUTIONS / filename))
    assert name in namespace, f"{filename} must define {name}"
    feedback = check(namespace[name])
    assert feedback.passed, str(feedback)


def test_every_solution_file_of_lessons_01_02_is_checked():
    files = {p.name for p in SOLUTIONS.glob("0[12]_*.py")}
    assert files == set(SOLUTION_FILES)


# --- lesson 01: my_count_ngrams -------------------------------------------------------------------------------


def test_count_ngrams_core_passes():
    assert ex1.check_count_ngrams(bl.count_ngrams).passed


@pytest.mark.parametrize(
    "wrong, expected_phrase",
    [
        (lambda t, n: Counter(tuple(t[i : i + n]) for i in range(len(t) - n)), "you missed the last n-gram"),
        (lambda t, n: Counter(" ".join(t[i : i + n]) for i in range(len(t) - n + 1)), "must be a tuple of tokens"),
        (lambda t, n: {tuple(t[i : i + n]): 1 for i in range(len(t) - n + 1)}, "counted each distinct n-gram once"),
        (lambda t, n: [tuple(t[i : i + n]) for i in range(len(t) - n + 1)], "Counter(your_list) counts it"),
        (lambda t, n: Counter(), "you returned an empty Counter"),
        (lambda t, n: None, "returned nothing"),
        (lambda t, n: Counter(tuple(t[i : i + 1]) for i in range(len(t))), "has 1 tokens, but an n-gram for n=2"),
        (lambda t, n: 1 / 0, "raised ZeroDivisionError"),
        (lambda t, n: {tuple(t[i : i + n]): [1] for i in range(len(t) - n + 1)}, "is not a whole number"),
    ],
)
def test_count_ngrams_mistakes_get_specific_messages(wrong, expected_phrase):
    feedback = ex1.check_count_ngrams(wrong)
    assert not feedback.passed
    assert expected_phrase in text(feedback)


def test_off_by_one_is_named_even_when_the_last_ngram_also_occurs_earlier():
    off_by_one = ex1._count_problem(("the", "cat", "the"), 1, Counter({("the",): 1, ("cat",): 1}))
    assert "you missed the last n-gram ('the',)" in off_by_one and "set" not in off_by_one


def test_count_ngrams_names_the_case_and_stops_after_three():
    feedback = ex1.check_count_ngrams(lambda t, n: Counter())
    assert "tokens ['the', 'cat', 'is', 'on', 'the', 'mat'], n=1" in feedback.messages[0]
    assert len([m for m in feedback.messages if m.startswith("tokens")]) == MAX_REPORTED_CASES
    assert "stopping after 3 failing cases" in feedback.messages[-1]


# --- lesson 01: my_clip ---------------------------------------------------------------------------------------


def test_clip_core_passes():
    assert ex1.check_clip(lambda h, rs: bl.clip_counts(h, max_ref(rs))).passed


@pytest.mark.parametrize(
    "wrong, expected_phrase",
    [
        (lambda h, rs: dict(h), "its count in the hypothesis, not clipped; the most any reference has is 2"),
        (lambda h, rs: bl.clip_counts(h, sum(rs, Counter())), "did you add up the references?"),
        (lambda h, rs: {g: max_ref(rs)[g] for g in h}, "the most any reference has; but the hypothesis only has"),
        (lambda h, rs: {g: min(c, max_ref(rs)[g]) for g, c in h.items() if g in max_ref(rs)}, "is missing"),
        (lambda h, rs: {**bl.clip_counts(h, max_ref(rs)), ("zebra",): 1}, "is not in the hypothesis"),
        (lambda h, rs: [1, 2], "return a dict"),
        (lambda h, rs: {" ".join(g): c for g, c in bl.clip_counts(h, max_ref(rs)).items()}, "is not an n-gram tuple"),
    ],
)
def test_clip_mistakes_get_specific_messages(wrong, expected_phrase):
    feedback = ex1.check_clip(wrong)
    assert not feedback.passed
    assert expected_phrase in text(feedback)


def test_clip_message_names_ngram_and_the_max():
    feedback = ex1.check_clip(lambda h, rs: dict(h))
    assert "your clipped count for ('the',) is 3" in text(feedback)
    assert "min(3, 2) = 2" in text(feedback)


def test_clip_check_does_not_trust_mutated_inputs():
    def mutating(h, rs):
        result = bl.clip_counts(h, max_ref(rs))
        h.clear()
        for r in rs:
            r.clear()
        return result

    assert ex1.check_clip(mutating).passed


# --- lesson 01: clip table by hand ----------------------------------------------------------------------------


def hand_table():
    rows = bl.clip_table(list(ex1.CLIP_BY_HAND_REFERENCES), ex1.CLIP_BY_HAND_HYPOTHESIS, 1)
    return {row.text: row.clipped for row in rows}


def test_clip_by_hand_right_answer_passes_with_words_or_tuples():
    assert ex1.check_clip_by_hand(hand_table()).passed
    assert ex1.check_clip_by_hand({(w,): c for w, c in hand_table().items()}).passed


def test_clip_by_hand_mistakes():
    summed = hand_table() | {"a": 3}  # the hypothesis has "a" 4 times, ref 1 once, ref 2 twice: adding gives 3
    first = text(ex1.check_clip_by_hand(summed))  # a first wrong try: a hint, not the answer
    assert "take the smaller of the two numbers" in first and "'a': 2" not in first
    assert "did you add up the references?" in text(ex1.check_clip_by_hand(summed))
    assert "'a': 2" in text(ex1.check_clip_by_hand(summed))  # after the hints, the table
    missing = {k: v for k, v in hand_table().items() if k != "mat"}
    assert "'mat' is missing" in text(ex1.check_clip_by_hand(missing))
    extra = hand_table() | {"dog": 0}
    assert "'dog' is not a word of the hypothesis" in text(ex1.check_clip_by_hand(extra))
    assert "replace ..." in text(ex1.check_clip_by_hand(...))
    assert "not a word" in text(ex1.check_clip_by_hand({1: 2}))
    assert ex1.check_clip_by_hand(hand_table() | {"a": 2.0}).passed  # a whole float is a whole number
    assert "give a whole number (int)" in text(ex1.check_clip_by_hand(hand_table() | {"a": 1.5}))
    assert "fill in the clipped count of ('a',)" in text(ex1.check_clip_by_hand({"a": ...}))


# --- lesson 02: p_2 by hand -----------------------------------------------------------------------------------


def test_p2_by_hand_right_answer_passes_in_every_exact_form():
    right = bl.modified_precision(list(ex2.P2_BY_HAND_REFERENCES), ex2.P2_BY_HAND_HYPOTHESIS, 2)
    assert ex2.check_p2_by_hand(right).passed
    assert ex2.check_p2_by_hand(Fraction(right.numerator, right.denominator)).passed
    assert ex2.check_p2_by_hand(f"{right.numerator}/{right.denominator}").passed


def test_p2_by_hand_a_float_of_the_fraction_passes_with_a_note():
    import numpy as np

    for answer in (0.625, np.float32(0.625), "0.625", "5/8", np.float64(0.625)):
        fb = ex2.check_p2_by_hand(answer)
        assert fb.passed, (answer, str(fb))
    assert "read your 0.625 as 5/8" in text(ex2.check_p2_by_hand(0.625))


@pytest.mark.parametrize(
    "answer, expected_phrase",
    [
        (Fraction(7, 8), "unclipped precision"),
        (Fraction(5, 9), "not the number of words"),
        (Fraction(5, 6), "distinct 2-grams"),
        (Fraction(2, 3), "that is p_1"),
        (Fraction(1, 8), "look at bl.clip_table"),
        (0.6283185307179586, "enter the exact fraction"),  # pi / 5: no fraction of small counts
        ((5, 8), "not the tuple"),
        ("five eighths", "is not a fraction"),
        (..., "replace ..."),
        (True, "give a number"),
    ],
)
def test_p2_by_hand_mistakes(answer, expected_phrase):
    first = ex2.check_p2_by_hand(answer)
    assert not first.passed and "p_2 = 5/8" not in text(first)  # a first wrong try never shows the answer
    feedback = ex2.check_p2_by_hand(answer)  # the second: the diagnosis of the slip
    assert not feedback.passed
    assert expected_phrase in text(feedback)


def test_p2_by_hand_reduced_modified_precision_compares_by_value():
    # Fraction(ModifiedPrecision(6, 9)) keeps 6/9 unreduced; the check must still see that it equals 2/3 = p_1.
    p1 = bl.modified_precision(list(ex2.P2_BY_HAND_REFERENCES), ex2.P2_BY_HAND_HYPOTHESIS, 1)
    ex2.check_p2_by_hand(p1)
    assert "that is p_1" in text(ex2.check_p2_by_hand(p1))


# --- lesson 02: my_modified_precision -------------------------------------------------------------------------


def clipped_precision(refs, hyp, n, best, denominator):
    c = counts(hyp, n)
    return Fraction(sum(min(v, best[g]) for g, v in c.items()), denominator(c, hyp))


def test_modified_precision_core_and_floats_pass():
    assert ex2.check_modified_precision(bl.modified_precision).passed
    assert ex2.check_modified_precision(lambda r, h, n: float(bl.modified_precision(r, h, n))).passed


def test_modified_precision_cases_include_empty_short_and_unmatched_hypotheses():
    hyps = {(hyp, n) for _, hyp, n in ex2.PRECISION_CASES}
    assert ("", 1) in hyps
    assert any(0 < len(h.split()) < n for h, n in hyps)
    assert any(bl.modified_precision(list(r), h, n) == 0 and h for r, h, n in ex2.PRECISION_CASES)


@pytest.mark.parametrize(
    "wrong, expected_phrase",
    [
        (
            lambda r, h, n: clipped_precision(
                r, h, n, max_ref([counts(x, n) for x in r]), lambda c, t: sum(c.values())
            ),
            "divide by max(1, total), never by 0",
        ),
        (
            lambda r, h, n: clipped_precision(
                r, h, n, Counter({g: 10**6 for x in r for g in counts(x, n)}), lambda c, t: max(1, sum(c.values()))
            ),
            "that is the unclipped precision",
        ),
        (
            lambda r, h, n: clipped_precision(
                r, h, n, sum((counts(x, n) for x in r), Counter()), lambda c, t: max(1, sum(c.values()))
            ),
            "clipping by the references' counts added up",
        ),
        (
            lambda r, h, n: clipped_precision(r, h, n, max_ref([counts(x, n) for x in r]), lambda c, t: max(1, len(t))),
            "not the number of words",
        ),
        (
            lambda r, h, n: clipped_precision(r, h, n, max_ref([counts(x, n) for x in r]), lambda c, t: max(1, len(c))),
            "distinct 2-grams",
        ),
        (lambda r, h, n: bl.modified_precision(r, h, 1), "did you ignore n"),
        (lambda r, h, n: (1, 2), "return one number"),
        (lambda r, h, n: None, "returned None"),
        (lambda r, h, n: "5/8", "return a number"),
    ],
)
def test_modified_precision_mistakes_get_specific_messages(wrong, expected_phrase):
    feedback = ex2.check_modified_precision(wrong)
    assert not feedback.passed
    assert expected_phrase in text(feedback)


def test_modified_precision_message_names_case_expected_and_given():
    feedback = ex2.check_modified_precision(lambda r, h, n: Fraction(1, 1))
    first = feedback.messages[0]
    assert "hypothesis 'the cat and the cat on the mat', n=1" in first
    assert "expected 5/8 = 0.625, you returned 1/1" in first


# --- lesson 02: word salad ------------------------------------------------------------------------------------


def test_word_salad_solution_passes_and_reports_p1_p2():
    feedback = ex2.check_word_salad("mat the on is cat the")
    assert feedback.passed
    assert "p_1 = 6/6 but p_2 = 0/5" in text(feedback)
    assert ex2.check_word_salad("mat the on is cat the".split()).passed


@pytest.mark.parametrize(
    "answer, expected_phrase",
    [
        ("the cat is on the mat", "'the cat', 'cat is', 'is on', 'on the', 'the mat' also occur"),
        ("mat the dog is", "'dog' is not in the reference"),
        ("the the the mat is", "'the' is used 3 times but the reference has it only 2"),
        ("mat the", "use at least 4 words; you have 2"),
        (..., "replace ..."),
        (42, "give the hypothesis as a string"),
    ],
)
def test_word_salad_mistakes(answer, expected_phrase):
    feedback = ex2.check_word_salad(answer)
    assert not feedback.passed
    assert expected_phrase in text(feedback)


# --- no check ever raises: odd answers become messages, not tracebacks -----------------------------------------

ODD_VALUES = [None, ..., 0, -1, 1.5, float("nan"), "x", b"x", [], (), {}, {1: 2}, {("a",): None}, {"a": "b"}, object()]


@pytest.mark.parametrize("odd", ODD_VALUES, ids=lambda v: "object()" if type(v) is object else repr(v))
def test_checks_turn_odd_answers_into_messages(odd):
    function_checks = [ex1.check_count_ngrams, ex1.check_clip, ex2.check_modified_precision]
    answer_checks = [ex1.check_clip_by_hand, ex2.check_p2_by_hand, ex2.check_word_salad]
    for check in function_checks:
        feedback = check(lambda *args, odd=odd: odd)
        assert not feedback.passed and feedback.messages
    for check in answer_checks:
        feedback = check(odd)
        assert not feedback.passed and feedback.messages
