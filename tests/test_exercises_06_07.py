"""The exercise checks of lessons 06-07: right answers pass, typical mistakes get their specific message."""

from __future__ import annotations

import runpy
import warnings
from pathlib import Path

import pytest
from nltk.translate.bleu_score import sentence_bleu as nltk_sentence_bleu

import bleu_lab as bl
from bleu_lab.course.exercises import MAX_REPORTED_CASES
from bleu_lab.course.exercises import smoothing as ex6
from bleu_lab.course.exercises import tokenization as ex7

SOLUTIONS = Path(__file__).resolve().parent.parent / "notebooks" / "solutions"


def text(feedback) -> str:
    return "\n".join(feedback.messages)


# --- the solution files: valid Python, define the answer, pass their check ------------------------------------

SOLUTION_FILES = {
    "06_exp_smoothing.py": ("my_exp_smoothing", ex6.check_exp_smoothing),
    "06_method1.py": ("my_method1", ex6.check_method1),
    "06_sacrebleu_to_nltk.py": ("sacrebleu_to_nltk", ex6.check_library_match),
    "07_token_counts.py": ("prediction", ex7.check_token_counts),
    "07_nltk_word_bleu.py": ("nltk_word_bleu", ex7.check_nltk_word_bleu),
    "07_report_line.py": ("report", ex7.check_report_line),
    "07_find_setting.py": ("find_setting", ex7.check_find_setting),
}


@pytest.mark.parametrize("filename", sorted(SOLUTION_FILES))
def test_solution_file_defines_the_answer_and_passes(filename, capsys):
    name, check = SOLUTION_FILES[filename]
    namespace = runpy.run_path(str(SOLUTIONS / filename))
    assert name in namespace, f"{filename} must define {name}"
    feedback = check(namespace[name])
    assert feedback.passed, str(feedback)


def test_every_solution_file_of_lessons_06_07_is_checked():
    files = {p.name for p in SOLUTIONS.glob("0[67]_*.py")}
    assert files == set(SOLUTION_FILES)


# --- lesson 06: my_exp_smoothing ------------------------------------------------------------------------------


def exp_right(matches, totals):
    out, k = [], 0
    for m, t in zip(matches, totals):
        k += m == 0
        out.append(100 * m / t if m else 100 / (2**k * t))
    return out


def test_exp_right_answer_passes_and_agrees_with_bleu_lab():
    assert ex6.check_exp_smoothing(exp_right).passed
    for matches, totals in ex6.EXP_CASES:
        assert exp_right(matches, totals) == pytest.approx(ex6.expected_exp(matches, totals))


def test_exp_expected_values_are_sacrebleus():
    import sacrebleu

    # 'the cat sat on the mat' vs 'the cat is on the mat': matches (5, 3, 1, 0) of totals (6, 5, 4, 3)
    bleu = sacrebleu.metrics.BLEU(smooth_method="exp")
    got = bleu.corpus_score(["the cat sat on the mat"], [["the cat is on the mat"]])
    assert list(got.counts) == [5, 3, 1, 0]
    assert got.precisions == pytest.approx(ex6.expected_exp(got.counts, got.totals))


def test_exp_skeleton_without_smoothing_is_told_a_zero_must_be_replaced():
    fb = ex6.check_exp_smoothing(lambda m, t: [100 * a / b for a, b in zip(m, t)])
    assert not fb.passed
    assert "p_4 is 0, not right: order 4 has no match, and it is the 1st order without one" in text(fb)
    assert "a zero must be replaced" in text(fb)


def test_exp_using_the_order_as_exponent_is_named():
    fb = ex6.check_exp_smoothing(lambda m, t: [100 * a / b if a else 100 / (2**n * b) for n, (a, b) in
                                               enumerate(zip(m, t), 1)])
    assert "k counts the orders without a match so far, it is not the order n" in text(fb)
    assert "order 4 has no match, and it is the 1st order without one" in text(fb)


def test_exp_not_doubling_is_named():
    fb = ex6.check_exp_smoothing(lambda m, t: [100 * a / b if a else 100 / (2 * b) for a, b in zip(m, t)])
    assert "must double" in text(fb)
    assert "order 4 has no match, and it is the 2nd order without one" in text(fb)


def test_exp_forgotten_percent_is_named():
    fb = ex6.check_exp_smoothing(lambda m, t: [p / 100 for p in exp_right(m, t)])
    assert "percentages" in text(fb)


@pytest.mark.parametrize(
    "answer, message",
    [
        (lambda m, t: None, "returned None"),
        (lambda m, t: exp_right(m, t)[:3], "returned 3 values"),
        (lambda m, t: 1 / 0, "ZeroDivisionError"),
        (None, "pass your function itself"),
    ],
)
def test_exp_malformed_answers_get_a_message_not_a_traceback(answer, message):
    fb = ex6.check_exp_smoothing(answer)
    assert not fb.passed and message in text(fb)


def test_exp_stops_after_a_few_failing_cases():
    fb = ex6.check_exp_smoothing(lambda m, t: [0.0] * 4)
    assert len(fb.messages) == MAX_REPORTED_CASES + 1
    assert "stopping after" in fb.messages[-1]


# --- lesson 06: my_method1 ------------------------------------------------------------------------------------


def method1_right(matches, denominators, epsilon=0.1):
    return [(m if m else epsilon) / d for m, d in zip(matches, denominators)]


def test_method1_right_answer_passes_and_agrees_with_nltk():
    from nltk.translate.bleu_score import Fraction, SmoothingFunction  # nltk's Fraction keeps 0/3 as 0/3

    assert ex6.check_method1(method1_right).passed
    for matches, denominators, epsilon in ex6.METHOD1_CASES:
        p_n = [Fraction(m, d, _normalize=False) for m, d in zip(matches, denominators)]
        nltk_values = SmoothingFunction(epsilon=epsilon).method1(p_n)
        assert [float(p) for p in nltk_values] == pytest.approx(method1_right(matches, denominators, epsilon))


@pytest.mark.parametrize(
    "answer, message",
    [
        (lambda m, d, e=0.1: [a / b if a else e / (b + e) for a, b in zip(m, d)], "numerator only"),
        (lambda m, d, e=0.1: [(a + e) / b for a, b in zip(m, d)], "only where the match count is 0"),
        (lambda m, d, e=0.1: [a / b if a else 0.1 / b for a, b in zip(m, d)], "use the epsilon argument (0.5)"),
        (lambda m, d, e=0.1: [a / b if a else e for a, b in zip(m, d)], "divide epsilon by the number"),
        (lambda m, d, e=0.1: [a / b for a, b in zip(m, d)], "a zero must be replaced"),
    ],
)
def test_method1_typical_mistakes_get_their_message(answer, message):
    fb = ex6.check_method1(answer)
    assert not fb.passed
    assert message in text(fb)


def test_method1_accepts_fractions_like_nltk_returns():
    from fractions import Fraction

    assert ex6.check_method1(lambda m, d, e=0.1: [Fraction(a, b) if a else e / b for a, b in zip(m, d)]).passed


# --- lesson 06: which nltk method is each sacrebleu method ----------------------------------------------------


def test_library_match_right_answer_passes():
    assert ex6.check_library_match({"exp": "method3", "floor": "method1", "add-k": "method2"}).passed


def test_library_match_the_cases_really_agree_across_libraries():
    import sacrebleu

    for ref, hyp in ex6.MATCH_CASES:
        for sacre, nltk_name in (("exp", "method3"), ("floor", "method1"), ("add-k", "method2")):
            bleu = sacrebleu.metrics.BLEU(tokenize="none", smooth_method=sacre, effective_order=False)
            want = bleu.sentence_score(hyp, [ref]).score / 100
            assert bl.sentence_bleu([ref], hyp, smoothing=nltk_name) == pytest.approx(want, rel=1e-9)


def test_library_match_wrong_method_shows_both_scores():
    fb = ex6.check_library_match({"exp": "method4", "floor": "method1", "add-k": "method2"})
    assert not fb.passed
    assert "'exp' is not 'method4'" in text(fb)
    assert "0.379918" in text(fb)  # sacrebleu 'exp' on 'the cat sat on the mat'
    assert len(fb.messages) == 1


def test_library_match_placeholders_and_non_dicts():
    fb = ex6.check_library_match({"exp": "method?", "floor": "method?", "add-k": "method?"})
    assert text(fb).count("must be one of 'method0' ... 'method7'") == 3
    assert "must be a dict" in text(ex6.check_library_match(["method3"]))


def test_library_match_method6_failing_case_is_feedback_not_an_error():
    fb = ex6.check_library_match({"exp": "method6", "floor": "method1", "add-k": "method2"})
    assert not fb.passed and "'exp'" in text(fb)


# --- lesson 07: token counts ----------------------------------------------------------------------------------


def test_token_counts_right_answer_passes_and_mentions_char():
    counts = {name: len(bl.tokenize(ex7.TOKEN_SENTENCE, name)) for name in ex7.TOKEN_TOKENIZERS}
    fb = ex7.check_token_counts(counts)
    assert fb.passed
    assert "'char' makes" in text(fb)


def test_token_counts_match_sacrebleus_own_lengths():
    import sacrebleu

    for name in ex7.TOKEN_TOKENIZERS:
        score = sacrebleu.metrics.BLEU(tokenize=name).corpus_score([ex7.TOKEN_SENTENCE], [[ex7.TOKEN_SENTENCE]])
        assert score.sys_len == len(bl.tokenize(ex7.TOKEN_SENTENCE, name))


def test_token_counts_wrong_count_gets_the_rule_then_the_direction_then_the_tokens():
    guess = {"13a": 9, "intl": 9, "none": 8}
    first = ex7.check_token_counts(guess)
    assert not first.passed
    assert "apostrophes and hyphens inside words included" in text(first)
    assert "13" not in text(first) and "'can'" not in text(first)  # no answer on a first wrong try
    assert "intl: you predicted 9, which is too few" in text(ex7.check_token_counts(guess))
    third = text(ex7.check_token_counts(guess))
    assert "intl makes 13 tokens" in third and "'can', \"'\", 't'" in third


def test_token_counts_placeholders_and_bad_types():
    fb = ex7.check_token_counts({"13a": ..., "intl": None})
    assert text(fb).count("write a whole number of tokens") == 3
    assert "must be a dict" in text(ex7.check_token_counts([9, 13, 8]))


# --- lesson 07: nltk on words ---------------------------------------------------------------------------------


def quiet(func):
    def wrapped(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return func(*args)

    return wrapped


@pytest.mark.parametrize(
    "answer, message",
    [
        (quiet(lambda r, h: nltk_sentence_bleu([r], h)), "scored CHARACTERS"),
        (quiet(lambda r, h: nltk_sentence_bleu([r], h.split())), "the reference is still a string"),
        (quiet(lambda r, h: nltk_sentence_bleu(r.split(), h.split())), "must be a LIST of token lists"),
        (quiet(lambda r, h: nltk_sentence_bleu([h.split()], r.split())), "arguments are swapped"),
        (quiet(lambda r, h: 100 * nltk_sentence_bleu([r.split()], h.split())), "0–1 scale"),
        (lambda r, h: None, "returned None"),
        (lambda r, h: 0.5, "word-level BLEU is"),
    ],
)
def test_nltk_word_bleu_typical_mistakes_get_their_message(answer, message):
    fb = ex7.check_nltk_word_bleu(answer)
    assert not fb.passed
    assert message in text(fb)


@pytest.mark.parametrize(
    "answer",
    [quiet(lambda r, h: nltk_sentence_bleu([r], h)), quiet(lambda r, h: nltk_sentence_bleu(r.split(), h.split()))],
)
def test_nltk_word_bleu_fix_only_after_a_first_wrong_try(answer):
    fix = "nltk_sentence_bleu([reference.split()], hypothesis.split())"
    first = ex7.check_nltk_word_bleu(answer)
    assert not first.passed and fix not in text(first) and "section 6" in text(first).lower()
    second = ex7.check_nltk_word_bleu(answer)
    assert not second.passed and fix in text(second)
    assert fix in text(ex7.check_nltk_word_bleu(answer, reveal=True))


def test_nltk_word_bleu_right_answer_passes_even_without_catching_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the check must not let nltk's warnings escape
        assert ex7.check_nltk_word_bleu(lambda r, h: nltk_sentence_bleu([r.split()], h.split())).passed


@pytest.mark.parametrize("seed", [None, *range(20)])
def test_nltk_word_bleu_a_solution_that_lowercases_is_rejected_with_a_hint(seed):
    import random

    import numpy as np

    cases = {} if seed is None else ex7.hidden_nltk_cases(random.Random(seed))
    lowercased = quiet(lambda r, h: nltk_sentence_bleu([r.lower().split()], h.lower().split()))
    fb = ex7.check_nltk_word_bleu(lowercased, **cases)
    assert not fb.passed and "lowercased it" in text(fb)
    assert "word-level BLEU is" in text(fb) and "nltk_sentence_bleu(" not in text(fb)  # a hint, not the fix
    right = quiet(lambda r, h: nltk_sentence_bleu([r.split()], h.split()))
    for form in (right, lambda r, h: np.float64(right(r, h)), lambda r, h: np.float32(right(r, h)),
                 lambda r, h: np.array(right(r, h))):
        assert ex7.check_nltk_word_bleu(form, **cases).passed


def test_nltk_word_bleu_string_scoring_really_differs_for_every_case():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for ref, hyp in ex7.NLTK_CASES:
            assert nltk_sentence_bleu([ref], hyp) != pytest.approx(bl.sentence_bleu([ref], hyp))


# --- lesson 07: the report line -------------------------------------------------------------------------------


def required_result():
    return bl.corpus_score(list(ex7.REPORT_HYPOTHESES), [list(r) for r in ex7.REPORT_REFERENCES],
                           lowercase=True, tokenize="intl")


def test_report_line_right_answers_pass():
    result = required_result()
    assert ex7.check_report_line(f"BLEU = {result.score:.1f} ({result.signature})").passed
    assert ex7.check_report_line(f"BLEU = {result.score:.2f} {result.signature}").passed
    assert result.signature.startswith("nrefs:1|case:lc|eff:no|tok:intl|smooth:exp|version:")


def test_report_line_score_matches_sacrebleu():
    import sacrebleu

    bleu = sacrebleu.metrics.BLEU(lowercase=True, tokenize="intl")
    streams = [list(s) for s in zip(*ex7.REPORT_REFERENCES)]
    assert bleu.corpus_score(list(ex7.REPORT_HYPOTHESES), streams).score == pytest.approx(required_result().score)
    assert str(bleu.get_signature()) == required_result().signature


def test_report_line_default_options_are_diagnosed_field_by_field():
    default = bl.corpus_score(list(ex7.REPORT_HYPOTHESES), [list(r) for r in ex7.REPORT_REFERENCES])
    fb = ex7.check_report_line(f"BLEU = {default.score:.1f} ({default.signature})")
    assert not fb.passed
    assert "is the score with sacrebleu's defaults" in text(fb)
    assert "case:mixed but the required score has case:lc" in text(fb)
    assert "tok:13a but the required score has tok:intl" in text(fb)


def test_report_line_forgotten_lowercase_is_named():
    mixed = bl.corpus_score(list(ex7.REPORT_HYPOTHESES), [list(r) for r in ex7.REPORT_REFERENCES], tokenize="intl")
    fb = ex7.check_report_line(f"BLEU = {mixed.score:.1f} ({required_result().signature})")
    assert "you forgot lowercase=True" in text(fb)
    assert len(fb.messages) == 1


@pytest.mark.parametrize(
    "report, message",
    [
        ("BLEU = ?", "no 'BLEU = <number>' found"),
        ("BLEU = 52", "with one decimal"),
        ("BLEU = 52.3", "add the signature"),
        ("BLEU = 52.3 (nrefs:1|case:lc)", "no 'tok' field"),
        (None, "must be a string"),
    ],
)
def test_report_line_incomplete_reports(report, message):
    fb = ex7.check_report_line(report)
    assert not fb.passed
    assert message in text(fb)


def test_report_line_zero_to_one_scale_is_named():
    fb = ex7.check_report_line(f"BLEU = {required_result().score / 100:.2f} ({required_result().signature})")
    assert "0–100 scale" in text(fb)
