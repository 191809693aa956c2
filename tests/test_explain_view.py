"""The explain view (HTML for notebooks, plain text for terminals): complete, escaped, readable without colour."""

from __future__ import annotations

import re

import pytest

import bleu_lab as bl
from bleu_lab.reports.explain_html import LEGEND_TEXT, explanation_html, marked_tokens_text, token_marks

REFS = ["the cat is on the mat", "there is a cat on the mat"]
HYP = "the cat and the cat on the mat"


@pytest.fixture
def expl():
    return bl.explain(REFS, HYP)


def test_repr_html_is_the_explain_view(expl):
    assert expl._repr_html_() == explanation_html(expl)


def test_shows_score_fractions_lengths_bp_and_formula(expl):
    page = explanation_html(expl)
    assert f"{bl.sentence_bleu(REFS, HYP):.4f}" in page  # 0.3928
    for n, fraction in enumerate(["5/8", "4/7", "2/6", "1/5"], 1):
        assert f"p<sub>{n}</sub> = {fraction}" in page
    assert "c = <b>8</b>" in page and "r = <b>7</b>" in page
    assert "BP = 1" in page
    assert "0.25·log(0.625)" in page  # the formula with the numbers plugged in


def test_clip_table_columns_and_rows(expl):
    page = explanation_html(expl)
    for header in ("n-gram", "count", "max ref", "clipped", "status", "order"):
        assert f">{header}</th>" in page
    assert "<th style='border:1px solid #d0d7de;padding:1px 6px'></th>" not in page  # no empty header cell
    # 'the' occurs 3 times, at most 2 in one reference: clipped to 2, marked clipped (✂) in words, not only colour
    assert re.search(r">the</td>.*?>3</td>.*?>2</td>.*?<b>2</b></td>.*?>✂ <small>clipped away</small></td>", page)
    assert page.count("tabindex='0'") == 2  # both scroll boxes can be reached with the keyboard


def test_token_marks_give_the_longest_match_and_clipping(expl):
    marks = token_marks(expl)
    assert [m.level for m in marks] == expl.token_levels() == [2, 2, 0, 1, 4, 4, 4, 4]
    assert [m.status for m in marks] == ["match", "match", "miss", "match", "clipped", "match", "clipped", "match"]
    assert marked_tokens_text(expl) == "the² cat² and✗ the¹ cat⁴✂ on⁴ the⁴✂ mat⁴"


def test_colour_is_never_the_only_signal(expl):
    page = explanation_html(expl)
    chips = re.findall(r"<span class='bleu-tok'.*?</span>", page)
    assert len(chips) == expl.hyp_len
    assert all(re.search(r"<sup[^>]*>[^<]+</sup>", chip) for chip in chips)  # every token carries a text mark
    assert all(symbol in page for symbol in "✓✂✗")
    assert LEGEND_TEXT in page


def test_user_text_is_escaped():
    evil = "<script>alert('x')</script> & <b>bold</b> \"quoted\""
    e = bl.explain([evil, "a <i>b</i>"], evil)
    page = explanation_html(e)
    assert "<script>" not in page and "<b>bold" not in page and "<i>b" not in page
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page


def test_per_order_grid_has_a_row_per_order_and_a_column_per_token(expl):
    grid = re.search(r"n-gram starting at each token.*?</table>", explanation_html(expl), re.S).group(0)
    assert grid.count("-gram</th>") == 4
    # 4-grams start at 5 positions of 8: three blank cells at the end of that row
    row4 = re.search(r"4-gram</th>(.*?)</tr>", grid).group(1)
    assert row4.count("<td") == 8 and row4.count("✓") + row4.count("✗") + row4.count("✂") == 5


def test_long_hypothesis_is_shown_truncated():
    hyp = " ".join(f"w{i % 300}" for i in range(1000))
    page = explanation_html(bl.explain(["w1 w2 w3"], hyp))
    assert "800 more tokens not shown" in page
    assert "grid shows the first 60 of 1000 tokens" in page
    assert "more 1-grams" in page


def test_unused_orders_and_zero_terms():
    short = explanation_html(bl.explain(REFS, "the cat", smoothing="exp"))
    assert "(not used)" in short and "hypothesis is too short" in short
    none = bl.explain(REFS, "the dog sat", smoothing="none")
    assert none.score == 0 and "log(0)" in explanation_html(none)


def test_notes_are_shown(expl):
    e = bl.explain(REFS, "the dog sat")  # nltk without smoothing: the 1e-77 note
    assert e.notes and all(n.split(":")[0] in explanation_html(e) for n in e.notes)


def test_empty_hypothesis_view():
    e = bl.explain(REFS, "")
    page = explanation_html(e)
    assert "(empty hypothesis)" in page and "BP = 0" in page
    assert "matches:" not in str(e)


@pytest.mark.parametrize("text", ["naïve café", "שלום עולם", "👩‍👩‍👧 family", "e\u0301t\u0301e\u0301", "\u202eevil"])
def test_odd_unicode_renders(text):
    e = bl.explain([text], text)
    assert e.score == pytest.approx(bl.sentence_bleu([text.split()], text.split()))
    assert "bleu-explain" in explanation_html(e)
    assert text.split()[0] in str(e)


def test_plain_text_form_for_terminals(expl):
    text = str(expl)
    assert "matches: the² cat² and✗" in text and LEGEND_TEXT in text
    assert "p_1 = 5/8" in text and "c = 8, r = 7" in text and "BLEU = BP * exp(" in text
    assert "<" not in text  # no markup in the terminal form


def test_a_huge_input_is_shown_in_proportion_but_counted_in_full():
    import random

    rng = random.Random(0)
    words = [f"w{i}" for i in range(3000)]
    hyp = [rng.choice(words) for _ in range(60_000)]
    ref = [rng.choice(words) for _ in range(60_000)]
    expl = bl.explain([ref], hyp)
    assert expl.score == bl.sentence_bleu([ref], hyp)  # the numbers use every token
    text, page = str(expl), expl._repr_html_()
    assert len(text) < 60_000 and len(page) < 400_000  # the display does not grow with the input
    assert "more tokens, all counted" in text
