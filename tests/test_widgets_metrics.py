"""Lesson 10's widget: BLEU, chrF and TER side by side, from the core's numbers, never a traceback."""

import pytest
from sacrebleu.metrics import BLEU, CHRF, TER

from bleu_lab.course.widgets import metric_comparer
from bleu_lab.course.widgets.metrics import metric_comparison


def test_the_three_scores_are_sacrebleus():
    hyp, refs = "Hitzewellenwarnung herausgegeben", ["Hitzewarnung ausgegeben", "Warnung vor Hitzewelle"]
    view = metric_comparison(hyp, refs)
    assert view.message is None
    assert view.scores["BLEU"] == pytest.approx(BLEU(effective_order=True).sentence_score(hyp, refs).score, abs=1e-9)
    assert view.scores["chrF"] == pytest.approx(CHRF().sentence_score(hyp, refs).score, abs=1e-9)
    assert view.scores["TER"] == pytest.approx(TER().sentence_score(hyp, refs).score, abs=1e-9)
    html = view.html
    assert "lower is better" in html and "higher is better" in html  # direction in words, not only colour
    for name in ("BLEU", "chrF", "TER"):
        assert f"<div>{name}</div>" in html


def test_references_as_text_one_per_line():
    assert metric_comparison("a b c", "a b c\n\n  \nd e f").scores["TER"] == 0.0


@pytest.mark.parametrize("hyp,refs,words", [
    ("", ["a reference"], "Type a hypothesis"),
    ("   \u200b ", ["a reference"], "Type a hypothesis"),
    ("a hypothesis", "", "Add at least one reference"),
    ("a hypothesis", ["", "  "], "Add at least one reference"),
    (None, None, "Type a hypothesis"),
])
def test_odd_input_is_a_friendly_message(hyp, refs, words):
    view = metric_comparison(hyp, refs)
    assert view.scores is None and words in view.message and words in view.html


def test_a_number_is_scored_as_its_text():
    assert metric_comparison(42, ["42"]).scores == pytest.approx({"BLEU": 100.0, "chrF": 100.0, "TER": 0.0})


def test_escaped_and_bounded():
    view = metric_comparison("<script>alert(1)</script> & co", ["<b>bold</b> & co"])
    assert "<script>" not in view.html and "&lt;script&gt;" in view.html
    huge = metric_comparison("wort " * 5000, ["wort " * 5000])
    assert huge.scores is not None and huge.html.count("The hypothesis is long") == 1


def test_the_widget_follows_typing():
    widget = metric_comparer()
    first = widget.output.value
    assert "Hitzewellenwarnung" in first
    widget.hypothesis.value = "Hitzewarnung ausgegeben"
    assert widget.update().scores["BLEU"] == pytest.approx(100.0) and widget.output.value != first
    widget.references.value = ""
    assert "Add at least one reference" in widget.output.value
