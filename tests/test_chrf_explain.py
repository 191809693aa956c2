"""explain_chrf: every step of one chrF score, equal to sentence_chrf and sacrebleu's CHRF; printable, escaped,
readable without colour, and in proportion for huge input."""

from __future__ import annotations

import math
import random
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sacrebleu.metrics import CHRF
from test_chrf import OPTIONS, SENTENCE

import bleu_lab as bl
from bleu_lab.metrics.chrf import EPS
from bleu_lab.reports.explain_chrf_html import chrf_explanation_html


@given(hyp=SENTENCE, refs=st.lists(SENTENCE, min_size=1, max_size=3), options=OPTIONS)
def test_the_explained_score_is_sentence_chrf_and_sacrebleus(hyp, refs, options):
    expl = bl.explain_chrf(hyp, refs, **options)
    ours = bl.sentence_chrf(hyp, refs, **options)
    assert expl.score == ours.score == CHRF(**options).sentence_score(hyp, refs).score
    assert expl.stats == ours.stats
    assert expl.name == ours.name and expl.signature == ours.signature
    # each reference's own score, and the kept one is the first best
    alone = [bl.sentence_chrf(hyp, [ref], **options).score for ref in refs]
    assert list(expl.reference_scores) == alone
    assert expl.chosen == alone.index(max(alone))
    # the tables add up to the statistics, order by order
    assert len(expl.orders) == options["char_order"] + options["word_order"]
    for order in expl.orders:
        assert sum(row.matched for row in order.rows) == order.matches
        assert all(row.matched == min(row.count, row.ref_count) for row in order.rows)
        assert order.counted == (order.hyp > 0 and order.ref > 0)
        assert bool(order.reason) != order.counted
    assert str(expl) and expl._repr_html_()


def test_cat_against_hat_by_hand():
    # Spaces aside, "cat" and "hat" share a, t; at; nothing longer.
    #   character 1-grams  c a t | h a t      matched a, t      P_1 = 2/3  R_1 = 2/3
    #   character 2-grams  ca at | ha at      matched at        P_2 = 1/2  R_2 = 1/2
    #   character 3-grams  cat   | hat        matched -         P_3 = 0/1  R_3 = 0/1
    #   character 4-6      none on either side: left out of the averages
    # P = R = (2/3 + 1/2 + 0) / 3 = 7/18, and F2 = 5 P R / (4 P + R) = 5 P^2 / 5 P = P: chrF2 = 700/18 = 38.89
    expl = bl.explain_chrf("cat", ["hat"])
    assert math.isclose(expl.score, 700 / 18, rel_tol=1e-12)
    assert [o.precision_text for o in expl.orders] == ["2/3", "1/2", "0/1", "0/0", "0/0", "0/0"]
    assert [o.recall_text for o in expl.orders] == ["2/3", "1/2", "0/1", "0/0", "0/0", "0/0"]
    assert [o.counted for o in expl.orders] == [True, True, True, False, False, False]
    assert math.isclose(expl.precision, 7 / 18) and math.isclose(expl.recall, 7 / 18)
    unigrams = {row.text: (row.count, row.ref_count, row.matched) for row in expl.orders[0].rows}
    assert unigrams == {"c": (1, 0, 0), "a": (1, 1, 1), "t": (1, 1, 1)}
    text = str(expl)
    assert "P = 2/3 = 0.6667, R = 2/3 = 0.6667" in text
    assert "P = (2/3 + 1/2 + 0/1) / 3 = 0.388889" in text
    assert "neither side has character 4-grams: left out of the averages" in text
    assert "= 100 * 5 * 0.388889 * 0.388889 / (4 * 0.388889 + 0.388889) = 38.8889" in text
    assert text.splitlines()[0].startswith("chrF2 = 38.8889")


def test_eps_smoothing_averages_the_per_order_f_with_empty_orders():
    # F_1 = 2/3, F_2 = 1/2, F_3 = 0 matches (1e-16 stands in), F_4..6 = 1e-16: chrF2 = 100 * (7/6) / 6 = 19.44
    expl = bl.explain_chrf("cat", ["hat"], eps_smoothing=True)
    assert math.isclose(expl.score, 100 * (7 / 6) / 6, rel_tol=1e-12)
    assert [o.f for o in expl.orders][:2] == [pytest.approx(2 / 3), pytest.approx(1 / 2)]
    assert all(o.f <= EPS for o in expl.orders[2:])
    assert "F = 1e-16 still enters the mean (eps_smoothing=True)" in str(expl)
    assert "100 * (0.6667 + 0.5 + 1e-16 + 1e-16 + 1e-16 + 1e-16) / 6 = 19.4444" in expl.formula()


def test_a_reference_too_short_for_an_order_empties_it_on_both_sides():
    expl = bl.explain_chrf("cats", ["cat"], char_order=4)
    four = expl.orders[3]
    assert [row.text for row in four.rows] == ["cats"] and four.hyp == 0 and not four.counted  # sacrebleu's rule
    assert "the reference has no character 4-grams, so sacrebleu counts the hypothesis's 1 as 0 too" in four.reason
    short = bl.explain_chrf("ca", ["cat"]).orders[2]
    assert (short.hyp, short.ref) == (0, 1) and short.reason.startswith("the hypothesis has no character 3-grams")
    assert "(none in the hypothesis)" in str(bl.explain_chrf("ca", ["cat"]))


def test_chrf_plus_plus_adds_word_orders():
    expl = bl.explain_chrf("the cat sat.", ["the cat sat on the mat."], word_order=2)
    assert [o.label for o in expl.orders][-3:] == ["character 6-grams", "word 1-grams", "word 2-grams"]
    words = expl.orders[6]
    assert [row.text for row in words.rows] == ["the", "cat", "sat", "."]  # the full stop split off
    assert (words.precision_text, words.recall_text) == ("4/4", "4/7")
    assert expl.name == "chrF2++" and "chrF2++ = " in str(expl)


def test_the_best_reference_is_kept_and_every_score_is_shown():
    expl = bl.explain_chrf("cat", ["dog", "hat", "hat"])
    assert expl.chosen == 1  # "hat" twice: the first of the best
    assert expl.reference_scores == (0.0, pytest.approx(700 / 18), pytest.approx(700 / 18))
    text = str(expl)
    assert "2: hat  (chrF2 = 38.8889)  ✓ kept" in text and "3: hat  (chrF2 = 38.8889)\n" in text
    page = expl._repr_html_()
    kept = re.findall(r"<tr[^>]*><th scope='row'[^>]*>(\d)</th>.*?</tr>", page)
    assert kept[:3] == ["1", "2", "3"]
    assert page.count("✓ kept (best chrF2)") == 1 and page.count("not kept") == 2


def test_spaces_follow_sacrebleu_and_show_as_a_symbol_when_kept():
    removed = bl.explain_chrf("a b", ["a b"], char_order=2)
    assert [row.text for row in removed.orders[1].rows] == ["ab"]
    kept = bl.explain_chrf("a b", ["a b"], char_order=2, whitespace=True)
    assert [row.text for row in kept.orders[1].rows] == ["a ", " b"]
    assert "a␣" in str(kept) and "␣b" in kept._repr_html_() and "␣ = a space" in kept._repr_html_()
    assert "␣" not in removed._repr_html_()


def test_lowercase_counts_lowercased_ngrams():
    expl = bl.explain_chrf("Cat", ["cat"], lowercase=True)
    assert [row.text for row in expl.orders[0].rows] == ["c", "a", "t"] and expl.score == 100


def test_user_text_is_escaped():
    evil = "<script>alert('x')</script> &amp; <b>bold</b>"
    expl = bl.explain_chrf(evil, ["a <i>b</i> &amp;", evil], word_order=2, whitespace=True)
    page = chrf_explanation_html(expl)
    assert expl._repr_html_() == page
    assert "<script" not in page and "<b>bold" not in page and "<i>b" not in page
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page  # the hypothesis, whitespace shown as ␣
    assert "&amp;amp;" in page  # a literal "&amp;" in the input stays literal


def test_tables_have_captions_and_scoped_headers():
    page = bl.explain_chrf("the cat sat", ["the cat is here", "a cat"], word_order=1)._repr_html_()
    assert page.count("<table") == page.count("<caption") == 2 + 7  # references, orders, one per order
    assert re.findall(r"<th(?![^>]*scope=)", page) == []
    for header in ("reference", "kept?", "order", "P<sub>n</sub>", "R<sub>n</sub>", "n-gram", "hyp", "ref", "matched"):
        assert f">{header}</th>" in page
    assert page.count("tabindex='0' role='region' aria-label=") == 2  # both scroll boxes reachable by keyboard


def test_colour_is_never_the_only_signal():
    expl = bl.explain_chrf("the cat sat on the the mat", ["the cat is on the mat", "a dog"])
    page = expl._repr_html_()
    coloured = re.findall(r"<tr style='background[^']*'>(.*?)</tr>", page)
    assert coloured and all(re.search(r"[✓✂✗]|not kept", row) for row in coloured)
    for mark in ("✓ <small>matched", "✂ <small>clipped", "✗ <small>not in the reference", "✓ averaged"):
        assert mark in page
    assert "✗ neither side has character 4-grams" in bl.explain_chrf("cat", ["hat"])._repr_html_()
    assert "✓ = every copy matched · ✂ = clipped" in page  # the legend says what the marks mean


def test_empty_hypothesis_scores_zero_and_says_why():
    expl = bl.explain_chrf("", ["the cat"])
    assert expl.score == 0 and expl.precision == expl.recall == 0
    assert "no order has n-grams on both sides: chrF is 0" in expl.notes
    assert "(empty)" in expl._repr_html_() and "P = 0 (no order has n-grams on both sides)" in str(expl)


@pytest.mark.parametrize("text", ["naïve café", "שלום עולם", "👩‍👩‍👧 family", "e\u0301t\u0301e\u0301", "\u202eevil"])
def test_odd_unicode_renders(text):
    expl = bl.explain_chrf(text, [text])
    assert expl.score == 100 and "chrf-explain" in expl._repr_html_() and text.split()[0] in str(expl)


def test_a_huge_input_is_shown_in_proportion_but_counted_in_full():
    rng = random.Random(0)
    words = [f"w{i}" for i in range(3000)]
    hyp = " ".join(rng.choice(words) for _ in range(15_000))
    refs = [" ".join(rng.choice(words) for _ in range(15_000))] + [f"r{i}" for i in range(60)] + [hyp]
    expl = bl.explain_chrf(hyp, refs, word_order=2)
    assert expl.score == bl.sentence_chrf(hyp, refs, word_order=2).score == 100  # the numbers use everything
    assert expl.chosen == 61  # the kept reference is listed although it is past the cap
    text, page = str(expl), expl._repr_html_()
    assert len(text) < 60_000 and len(page) < 400_000  # the display does not grow with the input
    assert "more characters, all counted" in text and "more characters, all counted" in page
    assert "... 41 more references" in text and "… 36 more references" in page
    assert re.search(r"\.\.\. \d+ more", text) and re.search(r"… \d+ more character 3-grams", page)
    assert "62: " in text and ">62</th>" in page


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((None, ["a"]), {}),
        (("a", "a"), {}),
        (("a", []), {}),
        (("a", [None]), {}),
        ((b"a", ["a"]), {}),
        (("a", [b"a"]), {}),
        (("a", ["a"]), {"char_order": 0}),
        (("a", ["a"]), {"word_order": -1}),
        (("a", ["a"]), {"beta": 1.5}),
        (("a", ["a"]), {"lowercase": "yes"}),
        (("a", ["a"]), {"whitespace": 1}),
        (("a", ["a"]), {"eps_smoothing": None}),
    ],
)
def test_bad_input_gets_sentence_chrfs_clear_error(args, kwargs):
    with pytest.raises((TypeError, ValueError)) as theirs:
        bl.sentence_chrf(*args, **kwargs)
    with pytest.raises(theirs.type) as ours:
        bl.explain_chrf(*args, **kwargs)
    assert str(ours.value) == str(theirs.value)


def test_repr_is_one_short_line():
    text = repr(bl.explain_chrf("x" * 500, ["cat"]))
    assert "\n" not in text and len(text) < 300 and text.startswith("ChrfExplanation(score=0")
