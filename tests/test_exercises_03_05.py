"""The exercise checks of lessons 3-5: worked solutions pass, typical mistakes get the specific message."""

from __future__ import annotations

import math
import runpy
from pathlib import Path

import pytest

import bleu_lab as bl
from bleu_lab.course.exercises import brevity_penalty as ex3
from bleu_lab.course.exercises import putting_it_together as ex4
from bleu_lab.course.exercises import when_bleu_fails as ex5

SOLUTIONS = Path(__file__).resolve().parent.parent / "notebooks" / "solutions"


def solution(name: str) -> dict:
    """The namespace of a worked solution file (running it also runs its check)."""
    return runpy.run_path(str(SOLUTIONS / name))


def text(feedback) -> str:
    return "\n".join(feedback.messages)


# --- lesson 3: brevity penalty ------------------------------------------------------------------------------------


def test_brevity_penalty_solution_passes():
    fb = ex3.check_brevity_penalty(solution("03_brevity_penalty.py")["my_brevity_penalty"])
    assert fb.passed, fb
    assert str(fb).startswith("✔")


def test_brevity_penalty_uncapped_names_the_c_greater_than_r_case():
    fb = ex3.check_brevity_penalty(lambda r, c: math.exp(1 - r / c) if c else 0.0)
    assert not fb.passed
    assert "case c > r (a long hypothesis)" in text(fb)
    assert "cap it" in text(fb)
    assert len(fb.messages) == 1  # every other case is right


def test_brevity_penalty_division_by_zero_names_the_empty_case():
    fb = ex3.check_brevity_penalty(lambda r, c: 1.0 if c > r else math.exp(1 - r / c))
    assert not fb.passed
    assert "ZeroDivisionError" in text(fb)
    assert "handle c == 0" in text(fb)


def test_brevity_penalty_upside_down_ratio():
    fb = ex3.check_brevity_penalty(lambda r, c: 0.0 if c == 0 else (1.0 if c > r else math.exp(1 - c / r)))
    assert not fb.passed
    assert "upside down" in text(fb)
    assert "case c < r (a short hypothesis)" in text(fb)


def test_brevity_penalty_swapped_arguments():
    correct = solution("03_brevity_penalty.py")["my_brevity_penalty"]
    fb = ex3.check_brevity_penalty(lambda r, c: correct(c, r) if c and r else correct(r, c))
    assert not fb.passed
    assert "swapped" in text(fb) or "argument order" in text(fb)


def test_brevity_penalty_never_penalising():
    fb = ex3.check_brevity_penalty(lambda r, c: 1.0)
    assert "must be penalised" in text(fb)
    assert "empty hypothesis" in text(fb)


def test_brevity_penalty_non_number_and_non_callable():
    assert "return a number" in text(ex3.check_brevity_penalty(lambda r, c: "1"))
    assert "pass your function itself" in text(ex3.check_brevity_penalty(3))


def test_closest_ref_length_solution_passes():
    fb = ex3.check_closest_ref_length(solution("03_closest_ref_length.py")["my_closest_ref_length"])
    assert fb.passed, fb


def test_closest_ref_length_first_of_ties_is_caught():
    fb = ex3.check_closest_ref_length(lambda lens, c: min(lens, key=lambda r: abs(r - c)))
    assert not fb.passed
    assert "a tie, longer reference listed first" in text(fb)
    assert "goes to the shorter" in text(fb)
    assert "shorter reference listed first" not in text(fb)  # that tie happens to come out right


def test_closest_ref_length_distance_and_index_and_shortest():
    assert "distance" in text(ex3.check_closest_ref_length(lambda lens, c: min(abs(r - c) for r in lens)))
    index = ex3.check_closest_ref_length(lambda lens, c: min(range(len(lens)), key=lambda i: abs(lens[i] - c)))
    assert "position in the list" in text(index)
    assert "shortest reference" in text(ex3.check_closest_ref_length(lambda lens, c: min(lens)))


def test_closest_ref_length_expected_values_match_nltk():
    from nltk.translate.bleu_score import closest_ref_length

    for _, lens, c in ex3.CLOSEST_CASES:
        refs = [["w"] * n for n in lens]
        assert bl.closest_ref_length(refs, c) == closest_ref_length(refs, c)


def test_short_hypothesis_solution_passes():
    fb = ex3.check_short_hypothesis(solution("03_short_hypothesis.py")["short_hypothesis"])
    assert fb.passed, fb


@pytest.mark.parametrize(
    ("hypothesis", "message"),
    [
        ("the dog", "p_1 = 1/2"),
        ("the cat is on the mat", "not below 0.5"),
        ("", "empty"),
        (["the"], "string"),
    ],
)
def test_short_hypothesis_failures(hypothesis, message):
    fb = ex3.check_short_hypothesis(hypothesis)
    assert not fb.passed
    assert message in text(fb)


# --- lesson 4: putting it together --------------------------------------------------------------------------------


def test_geometric_mean_solution_passes():
    fb = ex4.check_geometric_mean(solution("04_geometric_mean.py")["my_geometric_mean"])
    assert fb.passed, fb


def test_geometric_mean_arithmetic_mean_is_named():
    fb = ex4.check_geometric_mean(lambda p, w: sum(wi * pi for wi, pi in zip(w, p)))
    assert not fb.passed
    assert "*arithmetic* mean" in text(fb)


def test_geometric_mean_forgotten_exp_and_ignored_weights():
    def logs_only(p, w):
        return sum(wi * math.log(pi) for wi, pi in zip(w, p) if pi > 0)

    assert "take exp()" in text(ex4.check_geometric_mean(logs_only))

    def unweighted(p, w):
        return 0.0 if 0 in p else math.exp(sum(map(math.log, p)) / len(p))

    fb = ex4.check_geometric_mean(unweighted)
    assert "ignored the weights" in text(fb)
    assert "case unequal weights" in text(fb)


def test_geometric_mean_zero_precision_cases():
    def skip_zero(p, w):
        return math.exp(sum(wi * math.log(pi) for wi, pi in zip(w, p) if pi > 0))

    fb = ex4.check_geometric_mean(skip_zero)
    assert "case a zero precision" in text(fb)
    assert "treats it as p = 1" in text(fb)

    def crash(p, w):
        return math.exp(sum(wi * math.log(pi) for wi, pi in zip(w, p)))

    fb = ex4.check_geometric_mean(crash)
    assert "math domain error" in text(fb)
    assert "return 0.0 before taking logs" in text(fb)


def test_geometric_mean_cat_example_is_the_seed_score():
    _, precisions, weights = ex4.GEOMETRIC_CASES[0]
    assert solution("04_geometric_mean.py")["my_geometric_mean"](precisions, weights) == pytest.approx(
        0.392814650900513, rel=1e-12
    )


def test_sentence_bleu_solution_passes():
    fb = ex4.check_sentence_bleu(solution("04_sentence_bleu.py")["my_sentence_bleu"])
    assert fb.passed, fb


def _assembled(r_choice=None, with_bp=True, mean="geometric", clip_first_only=False):
    def my_sentence_bleu(references, hypothesis):
        c = len(hypothesis.split())
        lengths = [len(ref.split()) for ref in references]
        r = r_choice(lengths) if r_choice else bl.closest_ref_length(references, c)
        bp = bl.brevity_penalty(r, c) if with_bp else 1.0
        refs = references[:1] if clip_first_only else references
        p_n = [float(bl.modified_precision(refs, hypothesis, n)) for n in range(1, 5)]
        if mean == "arithmetic":
            return bp * sum(p_n) / 4
        return bp * math.exp(sum(0.25 * math.log(p) for p in p_n))

    return my_sentence_bleu


@pytest.mark.parametrize(
    ("func", "message"),
    [
        (_assembled(with_bp=False), "left out the brevity penalty"),
        (_assembled(r_choice=lambda lens: lens[0]), "first reference's length"),
        (_assembled(r_choice=min), "shortest reference's length"),
        (_assembled(mean="arithmetic"), "arithmetic mean"),
        (_assembled(clip_first_only=True), "first reference only"),
    ],
)
def test_sentence_bleu_typical_mistakes(func, message):
    fb = ex4.check_sentence_bleu(func)
    assert not fb.passed
    assert message in text(fb)


def test_sentence_cases_agree_with_nltk():
    from nltk.translate.bleu_score import sentence_bleu

    for _, refs, hyp in ex4.SENTENCE_CASES:
        assert bl.sentence_bleu(list(refs), hyp) == pytest.approx(
            sentence_bleu([r.split() for r in refs], hyp.split()), rel=1e-12
        )


# --- lesson 5: when BLEU fails ------------------------------------------------------------------------------------


def test_high_p1_low_bleu_solution_passes():
    fb = ex5.check_high_p1_low_bleu(solution("05_high_p1_low_bleu.py")["word_salad"])
    assert fb.passed, fb


@pytest.mark.parametrize(
    ("hypothesis", "message"),
    [
        (ex5.NASA_REFERENCE, "bigram(s) still match"),
        ("Mars NASA", "BP = "),
        ("the NASA Opportunity rover is battling a massive dust storm on planet Mars .", "'the'"),
        ("   ", "empty"),
    ],
)
def test_high_p1_low_bleu_failures(hypothesis, message):
    fb = ex5.check_high_p1_low_bleu(hypothesis)
    assert not fb.passed
    assert message in text(fb)


def test_high_p1_low_bleu_score_is_sacrebleus():
    import sacrebleu

    hyp = solution("05_high_p1_low_bleu.py")["word_salad"]
    ours = bl.sentence_score(hyp, [ex5.NASA_REFERENCE]).score
    assert ours == pytest.approx(sacrebleu.sentence_bleu(hyp, [ex5.NASA_REFERENCE]).score, rel=1e-12)
    assert ours / 100 < ex5.THRESHOLD


def test_old_nltk_solution_reproduces_the_ship_posts_numbers():
    fb = ex5.check_old_nltk_bleu(solution("05_old_nltk_bleu.py")["old_nltk_bleu"])
    assert fb.passed, fb


def test_old_nltk_todays_values_are_named():
    fb = ex5.check_old_nltk_bleu(lambda refs, hyp: bl.sentence_bleu(refs, hyp))
    assert not fb.passed
    assert "That is today's value" in text(fb)
    fb = ex5.check_old_nltk_bleu(lambda refs, hyp: bl.sentence_bleu(refs, hyp, auto_reweigh=True))
    assert "auto_reweigh" in text(fb)
    # auto_reweigh happens to give the old value for the one-word hypothesis "it"
    assert "'it':" not in text(fb)


def test_old_nltk_other_wrong_values_get_a_hint_without_the_code():
    fb = ex5.check_old_nltk_bleu(lambda refs, hyp: 0.5)
    assert not fb.passed
    assert "first order whose clipped match count is 0" in text(fb)
    assert "(0.25,)" not in text(fb) and "weights=" not in text(fb)


# --- lesson 3, exercise 3b: what BLEU would do without BP (a written answer) -----------------------------------------


@pytest.fixture
def fresh_tries():
    from bleu_lab.course.exercises import reset_tries

    reset_tries()
    yield
    reset_tries()


@pytest.mark.parametrize(
    "answer",
    [
        "Without BP, BLEU would reward very short hypotheses with a perfect score.",
        "It would favour outputs that omit most words, since precision alone stays high.",
    ],
)
def test_without_bp_answers_with_both_key_points_pass(answer, fresh_tries):
    from bleu_lab.course.exercises.brevity_penalty import check_without_bp

    assert check_without_bp(answer).passed


def test_without_bp_is_recorded_with_hints_and_the_model_answer_after_a_real_try(fresh_tries):
    from bleu_lab.course.exercises.brevity_penalty import MODEL_ANSWER_WITHOUT_BP, check_without_bp

    first = str(check_without_bp("it would be quite different from now"))
    assert "what kind of output" in first and "recorded: 'it would be quite different from now'" in first
    assert MODEL_ANSWER_WITHOUT_BP in first and "✔" not in first and "correct" not in first
    for no_try in (None, "...", "short high", 'Without BP, BLEU would ...'):
        shown = str(check_without_bp(no_try))
        assert "write your answer" in shown and MODEL_ANSWER_WITHOUT_BP not in shown


def test_without_bp_never_shows_a_tick(fresh_tries):
    from bleu_lab.course.exercises.brevity_penalty import MODEL_ANSWER_WITHOUT_BP, check_without_bp

    fb = check_without_bp(MODEL_ANSWER_WITHOUT_BP, reveal=True)
    assert fb.passed and "✔" not in str(fb) + fb._repr_html_() and "correct!" not in str(fb) + fb._repr_html_()
    assert "recorded" in str(fb) and "cannot grade meaning" in str(fb)
