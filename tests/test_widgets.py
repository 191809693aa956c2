"""The widgets without a browser: pure view models (state in -> output out), then the thin views driven
through their controls' values, as a student's typing would."""

from __future__ import annotations

import math

import pytest

import bleu_lab as bl
from bleu_lab.course import widgets as bw
from bleu_lab.course.widgets import model as wm
from bleu_lab.course.widgets.inputs import MAX_WORDS, clip_references, clip_text, is_blank
from bleu_lab.course.widgets.model import (
    CHALLENGES,
    DEFAULT_HYPOTHESIS,
    DEFAULT_REFERENCES,
    EXAMPLES,
    NLTK_METHODS,
    SACREBLEU_METHODS,
    PlaygroundState,
    Settings,
)
from bleu_lab.reports.plots import LiveBpCurve, LivePrecisionBars

REFS = list(DEFAULT_REFERENCES)
HYP = DEFAULT_HYPOTHESIS  # "the cat and the cat on the mat"
BLANKS = ["", "   ", "\n\t \n", "\u200b\u200b", "\u00a0\u2003", "\ufeff"]
ODD = ["\x00\x01", "\ud800 lone surrogate", "\u202eevil", "👩‍👩‍👧 🐈", "e\u0301\u0301", "日本語のテキスト", "x" * 9000,
       "\r\n\r\nsplit\rlines", "'; DROP TABLE", "<img src=x onerror=alert(1)>"]
HUGE = " ".join(["the cat sat on the mat"] * 20_000)  # 120,000 words pasted


# ---------------------------------------------------------------------------------------------- input handling


@pytest.mark.parametrize("text", BLANKS)
def test_blank_text_is_blank(text):
    assert is_blank(text) and clip_text(text).blank


def test_short_text_is_untouched():
    text = "  keep  my\tspacing "
    assert clip_text(text) == bw.inputs.CleanText(text, None)


def test_long_text_is_cut_with_a_notice():
    clipped = clip_text(HUGE, "hypothesis")
    assert len(clipped.text.split()) == MAX_WORDS
    assert clipped.text.split() == HUGE.split()[:MAX_WORDS]
    assert "only its first 200 words" in clipped.notice and "bleu_lab.explain" in clipped.notice


def test_one_giant_word_is_cut_by_characters():
    clipped = clip_text("x" * 100_000)
    assert len(clipped.text) == bw.inputs.MAX_CHARS and clipped.notice


def test_blank_references_are_skipped_and_many_are_capped():
    refs, notices = clip_references(["a b", "  ", "", "c d"])
    assert refs == ["a b", "c d"] and notices == []
    refs, notices = clip_references([f"r{i}" for i in range(50)])
    assert len(refs) == bw.inputs.MAX_REFERENCES and "only the first 20" in notices[0]


def test_parse_references_one_per_line():
    assert bw.parse_references("a b\n\n  \nc d\r\ne") == ["a b", "c d", "e"]


@pytest.mark.parametrize(
    ("text", "n", "expected"),
    [("", 4, None), ("uniform", 2, None), ("0.5 0.5", 2, (0.5, 0.5)), ("0.7, 0.2;0.1", 3, (0.7, 0.2, 0.1))],
)
def test_parse_weights(text, n, expected):
    assert bw.parse_weights(text, n) == expected


@pytest.mark.parametrize(("text", "message"), [("a b", "numbers separated by spaces"), ("0.5 0.5", "type 4 numbers")])
def test_parse_weights_explains_mistakes(text, message):
    with pytest.raises(ValueError, match=message):
        bw.parse_weights(text, 4)


# ---------------------------------------------------------------------------------------------- explain_texts


def test_explain_texts_equals_the_core():
    result = bw.explain_texts(HYP, REFS)
    assert result.message is None and result.notices == ()
    assert result.score == bl.sentence_bleu(REFS, HYP) == pytest.approx(0.392814650900513)


@pytest.mark.parametrize("blank", BLANKS)
def test_blank_hypothesis_gives_the_friendly_message(blank):
    result = bw.explain_texts(blank, REFS)
    assert result.explanation is None and result.message == bw.EMPTY_HYPOTHESIS
    assert "bleu-message" in result.html and "Traceback" not in result.html


def test_no_reference_gives_the_friendly_message():
    for refs in ([], ["", "   "], None):
        assert bw.explain_texts(HYP, refs).message == bw.NO_REFERENCES


def test_bad_settings_give_a_message_naming_the_problem():
    result = bw.explain_texts(HYP, REFS, Settings(weights=(0.1, 0.2, 0.3, 0.4), smoothing="exp"))
    assert result.explanation is None and "uniform weights" in result.message


@pytest.mark.parametrize("tokenize", bw.model.TOKENIZERS)
@pytest.mark.parametrize("text", ODD)
def test_odd_unicode_never_raises(text, tokenize):
    for settings in (Settings(tokenize=tokenize), Settings(tokenize=tokenize, smoothing="exp", lowercase=True)):
        result = bw.explain_texts(text, [text, "a reference"], settings)
        assert (result.explanation is None) != (result.message is None)
        assert "<img" not in result.html and "<script" not in result.html


def test_huge_paste_is_cut_and_says_so():  # how fast each update is: benchmarks/bench_playground.py
    views = [
        bw.playground_view_model(PlaygroundState(HUGE, (HUGE, HUGE, HUGE, HUGE))),
        bw.playground_view_model(PlaygroundState(HUGE, (HUGE,), tokenize="char", smoothing="exp")),
        bw.sentence_explorer_view_model(HUGE, "\n".join([HUGE[:5000]] * 100)),
        bw.clip_table_view_model([HUGE], HUGE, 2),
        bw.challenge_view_model("opposite", HUGE),
    ]
    comparison = bw.smoothing_comparison([HUGE, HUGE], HUGE)
    assert all(any("only its first" in n for n in v.result.notices) for v in views[:2])
    assert any("only its first" in n for n in comparison.notices)
    assert "bleu-notice" in views[0].html


# ---------------------------------------------------------------------------------------------- playground


def test_playground_model_matches_nltk_and_sacrebleu():
    view = bw.playground_view_model(PlaygroundState(smoothing="method0"))
    assert view.score == pytest.approx(bl.sentence_bleu(REFS, HYP))
    assert view.precision_labels == ("5/8", "4/7", "2/6", "1/5")
    assert view.precisions == pytest.approx((5 / 8, 4 / 7, 2 / 6, 1 / 5))
    assert view.lengths == (8, 7)
    assert "0.3928" in view.score_html and "bleu-explain" in view.html
    sacre = bw.playground_view_model(PlaygroundState(smoothing="exp", tokenize="13a", lowercase=True))
    assert sacre.score == pytest.approx(bl.sentence_score(HYP, REFS, lowercase=True).score / 100)


def test_playground_model_weights_and_max_n():
    view = bw.playground_view_model(PlaygroundState(max_n=2, weights="0.7 0.3", smoothing="method1"))
    assert view.score == pytest.approx(bl.sentence_bleu(REFS, HYP, weights=(0.7, 0.3), smoothing="method1"))
    assert len(view.precisions) == 2
    wrong = bw.playground_view_model(PlaygroundState(max_n=3, weights="0.5 0.5"))
    assert wrong.score is None and "type 3 numbers" in wrong.message and wrong.precisions == (None,) * 3
    assert wrong.lengths is None


def test_playground_starts_with_exp_smoothing_and_shows_the_unsmoothed_score():
    typed = "the cat sat on the mat"  # no 4-gram matches: unsmoothed BLEU is 0
    view = bw.playground_view_model(PlaygroundState(hypothesis=typed))
    assert PlaygroundState().smoothing == "exp" and bw.playground().smoothing.value == "exp"
    assert view.score == pytest.approx(bl.sentence_score(typed, REFS).score / 100) and view.score > 0.3
    assert view.unsmoothed == pytest.approx(bl.sentence_score(typed, REFS, smooth_method="none").score / 100) == 0
    assert "exp smoothing" in view.score_html and "unsmoothed <b class='bleu-unsmoothed'>0.0000</b>" in view.score_html
    nltk = bw.playground_view_model(PlaygroundState(hypothesis=typed, smoothing="method1"))
    assert nltk.unsmoothed == pytest.approx(bl.sentence_bleu(REFS, typed))
    assert "nltk method1 smoothing" in nltk.score_html
    plain = bw.playground_view_model(PlaygroundState(hypothesis=typed, smoothing="none"))
    assert plain.unsmoothed == plain.score == 0 and "no smoothing" in plain.score_html
    assert "unsmoothed" not in plain.score_html  # said once, not twice


def test_playground_says_why_typed_weights_need_an_nltk_smoothing():
    view = bw.playground_view_model(PlaygroundState(weights="0.4 0.3 0.2 0.1"))
    assert view.score is None and "Leave the weights box empty" in view.message and "method1" in view.message
    assert bw.playground_view_model(PlaygroundState(weights="0.25 0.25 0.25 0.25")).score is not None
    # The charts stay (p_n and BP do not depend on the weights): no blank picture beside the message.
    uniform = bw.playground_view_model(PlaygroundState())
    assert view.precisions == uniform.precisions and view.precision_labels == uniform.precision_labels
    assert view.lengths == uniform.lengths and view.bars_alt == uniform.bars_alt and view.bp_alt == uniform.bp_alt
    # The playground's own example weights work once an nltk smoothing is chosen, as its introduction says.
    weighted = bw.playground_view_model(PlaygroundState(weights="0.4 0.3 0.2 0.1", smoothing="method1"))
    assert weighted.score == pytest.approx(bl.sentence_bleu(REFS, HYP, weights=(0.4, 0.3, 0.2, 0.1),
                                                            smoothing="method1"))


def test_every_widget_has_a_readable_text_form():
    """Before the cell runs (and in the saved notebook) a widget shows its text/plain: what it is, not its CSS."""
    from bleu_lab.course.widgets import corpus_explorer, metric_comparer, system_comparer

    views = [bw.sentence_explorer(), bw.clip_table_widget(), bw.bp_slider(), bw.smoothing_comparer(),
             bw.beat_bleu_challenge(), bw.playground(), corpus_explorer(), metric_comparer(), system_comparer()]
    for view in views:
        bundle = view._repr_mimebundle_()
        text = bundle["text/plain"]
        assert "application/vnd.jupyter.widget-view+json" in bundle
        assert text.startswith(view.summary) and "run the cell to use it" in text
        assert "<" not in text and "children" not in text and len(text) < 300
    assert len({type(v).summary for v in views}) == len(views)  # each says what it is, none the generic text


def test_playground_pictures_have_alt_text():
    view = bw.playground_view_model(PlaygroundState())
    assert view.bars_alt == "Bar chart of the modified precisions: p1 = 5/8, p2 = 4/7, p3 = 2/6, p4 = 1/5."
    assert "c = 8, r = 7, BP = 1.000" in view.bp_alt
    empty = bw.playground_view_model(PlaygroundState(hypothesis=""))
    assert "nothing is scored" in empty.bars_alt and empty.bp_alt.endswith("on.")
    img = wm.image_html(b"\x89PNG", "a <b> & 'c'", 420)
    assert img.startswith("<img src='data:image/png;base64,iVBORw==' alt='a &lt;b&gt; &amp; &#x27;c&#x27;'")


@pytest.mark.parametrize(("text", "rows"), [("", 1), ("short", 1), ("x" * 61, 2), ("a\nb\nc", 3), ("x " * 9000, 12)])
def test_text_rows_follow_the_text(text, rows):
    assert wm.text_rows(text) == rows


@pytest.mark.parametrize("method", NLTK_METHODS + SACREBLEU_METHODS)
def test_playground_model_every_smoothing(method):
    view = bw.playground_view_model(PlaygroundState(hypothesis="the cat sat on the mat", smoothing=method))
    assert view.score is not None and 0 <= view.score <= 1


def test_every_example_scores():
    for hyp, refs in EXAMPLES.values():
        assert bw.playground_view_model(PlaygroundState(hyp, refs)).score > 0


# ---------------------------------------------------------------------------------------------- small widgets


def test_clip_table_model():
    view = bw.clip_table_view_model(REFS, HYP, 1)
    row = next(r for r in view.order.rows if r.ngram == ("the",))
    assert (row.count, row.max_ref_count, row.clipped) == (3, 2, 2)
    assert view.precision_text == "5/8" and "5 / 8" in view.html
    assert bw.clip_table_view_model(REFS, HYP, 2).precision_text == "4/7"
    assert bw.clip_table_view_model(REFS, "", 1).result.message == bw.EMPTY_HYPOTHESIS


@pytest.mark.parametrize(("c", "r"), [(6, 10), (10, 10), (12, 10), (0, 10), (1, 30)])
def test_bp_model(c, r):
    view = bw.bp_view_model(c, r)
    assert view.bp == bl.brevity_penalty(r, c)
    if 0 < c <= r:
        assert view.bp == pytest.approx(math.exp(1 - r / c)) and f"exp(1 − {r}/{c})" in view.rule
    assert f"{view.bp:.4f}" in view.html


def test_smoothing_comparison_matches_both_libraries():
    hyp = "the cat sat on the mat"
    comparison = bw.smoothing_comparison(REFS, hyp)
    assert [r.method for r in comparison.rows] == list(NLTK_METHODS + SACREBLEU_METHODS)
    for method in NLTK_METHODS:
        assert comparison.score(method) == pytest.approx(bl.sentence_bleu(REFS, hyp, smoothing=method))
    for method in SACREBLEU_METHODS:
        expected = bl.sentence_score(hyp, REFS, tokenize="none", smooth_method=method).score / 100
        assert comparison.score(method) == pytest.approx(expected)
    assert comparison.raw == ("5/6", "3/5", "1/4", "0/3")
    assert "★ highest" in comparison.html
    assert bw.smoothing_comparison(REFS, " ").message == bw.EMPTY_HYPOTHESIS


def test_smoothing_comparison_says_which_method_cannot_score():
    comparison = bw.smoothing_comparison(REFS, "the cat")  # no trigram: nltk's method6 cannot work
    row = next(r for r in comparison.rows if r.method == "method6")
    assert row.score is None and "trigram" in row.problem and "✗" in comparison.html
    assert all(r.score is not None for r in comparison.rows if r.method != "method6")


SOLUTIONS = {
    "opposite": "there is not a cat on the mat",
    "no-cat": "the dog is on the mat",
    "swap": "the mat is on the cat",
    "fragment": "cat on the mat",
}
NOT_YET = {
    "opposite": ("the cat is on the mat", "add a negation"),
    "no-cat": ("the cat sat on the mat", "'cat' is not allowed"),
    "swap": ("the cat is on the mat", "word for word"),
    "fragment": ("the cat is on the mat", "at most 4 words"),
}


def test_every_challenge_has_a_solution():
    assert set(SOLUTIONS) == set(CHALLENGES)


@pytest.mark.parametrize("key", sorted(CHALLENGES))
def test_challenge_can_be_beaten(key):
    result = bw.challenge_view_model(key, SOLUTIONS[key])
    assert result.beaten and result.score >= CHALLENGES[key].threshold
    assert "You beat BLEU!" in result.html and "data-beaten='true'" in result.html


@pytest.mark.parametrize("key", sorted(CHALLENGES))
def test_challenge_explains_why_not_yet(key):
    hyp, message = NOT_YET[key]
    result = bw.challenge_view_model(key, hyp)
    assert not result.beaten and message in result.rule_problem and "Not yet" in result.html


def test_challenge_below_threshold_says_so():
    result = bw.challenge_view_model("opposite", "no")
    assert result.rule_problem is None and not result.beaten and "below 0.5" in result.html
    assert bw.challenge_view_model("opposite", "").result.message == bw.EMPTY_HYPOTHESIS


# ---------------------------------------------------------------------------------------------- views


def test_playground_view_follows_the_controls():
    pg = bw.playground()
    boxes = (pg.hypothesis, pg.output, pg.score, *pg.reference_boxes)
    assert "0.3928" in pg.score.value and pg.bars_image.value.startswith("<img src='data:image/png;base64,iVBOR")
    assert "alt='Bar chart of the modified precisions: p1 = 5/8" in pg.bars_image.value
    pg.hypothesis.value = "the cat is on the mat"
    assert "1.0000" in pg.score.value and "bleu-explain" in pg.output.value
    pg.hypothesis.value = "   "
    assert bw.EMPTY_HYPOTHESIS in pg.score.value and "bleu-message" in pg.output.value
    assert (pg.hypothesis, pg.output, pg.score, *pg.reference_boxes) == boxes  # nothing re-created on a keystroke


def test_playground_view_references_add_and_remove():
    pg = bw.playground("a b c d", ["x y"])
    box = pg.add_reference("a b c d")
    assert pg.state().references == ("x y", "a b c d") and "1.0000" in pg.score.value
    assert [b.description for b in pg.reference_boxes] == ["reference 1", "reference 2"]
    pg.remove_reference(box)
    assert pg.state().references == ("x y",) and "0.0000" in pg.score.value
    pg.remove_reference(0)
    assert pg.reference_boxes == [] and bw.NO_REFERENCES in pg.score.value
    pg.add_button.click()
    assert len(pg.reference_boxes) == 1


def test_playground_view_settings_and_examples():
    pg = bw.playground()
    pg.max_n.value = 2
    assert len(pg.update().precisions) == 2
    pg.smoothing.value = "method0"
    pg.weights.value = "1 0"
    assert pg.update().score == pytest.approx(bl.sentence_bleu(REFS, HYP, weights=(1, 0)))
    pg.weights.value = ""
    pg.smoothing.value = "exp"
    pg.tokenize.value = "13a"
    pg.lowercase.value = True
    assert pg.update().score == pytest.approx(
        bl.sentence_score(HYP, REFS, lowercase=True, max_ngram_order=2).score / 100
    )
    name = "it is ship (four references)"
    pg.example.value = name
    assert pg.state().hypothesis == EXAMPLES[name][0] and pg.state().references == EXAMPLES[name][1]


def test_playground_max_n_is_a_named_menu_that_takes_odd_values():
    assert isinstance(bw.playground().max_n, bw.views.w.Dropdown)  # a select with a label: an accessible name
    assert bw.playground(max_n=9).max_n.value == 6 and bw.playground(max_n="x").max_n.value == 4


def test_playground_boxes_grow_with_their_text():
    pg = bw.playground()
    assert pg.hypothesis.rows == 1 and all(box.rows == 1 for box in pg.reference_boxes)
    pg.reference_boxes[0].value = "a long reference " * 20
    assert pg.reference_boxes[0].rows == wm.text_rows(pg.reference_boxes[0].value) > 1


def test_playground_text_size_switch_and_classroom_default(monkeypatch):
    pg = bw.playground()
    assert pg.font_scale == 1 and "bleu-lab-app-100" in pg._dom_classes
    pg.text_size.value = 1.75
    assert "font-size:24px" in pg._css.value and "bleu-lab-app-175" in pg._dom_classes
    assert "bleu-lab-app-100" not in pg._dom_classes and "width:735px" in pg.bars_image.value
    monkeypatch.setenv("VOILA_KERNEL_ID", "k")  # classroom mode: Voilà started this kernel
    assert bw.playground().font_scale == 1.75 and bw.playground(font_scale=1.2).text_size.value == 1.2


def test_a_view_shows_unexpected_errors_as_a_message(monkeypatch):
    pg = bw.playground()

    def broken(state):
        raise RuntimeError("boom")

    monkeypatch.setattr("bleu_lab.course.widgets.views.playground_view_model", broken)
    pg.hypothesis.value = "anything"  # must not raise
    assert "Something unexpected happened (RuntimeError: boom)" in pg.output.value


def test_small_views_follow_their_controls():
    clip = bw.clip_table_widget()
    assert "data-precision='5/8'" in clip.output.value
    clip.n.value = 3
    assert "data-precision='2/6'" in clip.output.value
    clip.hypothesis.value = ""
    assert "bleu-message" in clip.output.value

    bp = bw.bp_slider(ref_len=10, hyp_len=5)
    assert f"{math.exp(1 - 10 / 5):.4f}" in bp.output.value
    bp.c.value = 12
    assert "BP = <b>1.0000</b>" in bp.output.value and bytes(bp.image.value).startswith(b"\x89PNG")

    comparer = bw.smoothing_comparer()
    comparer.hypothesis.value = "the cat"
    assert "bleu-smoothing" in comparer.output.value
    comparer.max_n.value = 2
    assert comparer.update().raw == ("2/2", "1/1")

    challenge = bw.beat_bleu_challenge()
    assert bw.EMPTY_HYPOTHESIS in challenge.output.value and "Say the opposite" in challenge.task.value
    challenge.hypothesis.value = SOLUTIONS["opposite"]
    assert "You beat BLEU!" in challenge.output.value
    challenge.challenge.value = "fragment"
    assert "at most 4 words" in challenge.output.value
    single = bw.beat_bleu_challenge(CHALLENGES["swap"], SOLUTIONS["swap"])
    assert single.challenge.options == ((CHALLENGES["swap"].title, "swap"),) and single.update().beaten

    explorer = bw.sentence_explorer()
    assert "bleu-explain" in explorer.output.value
    explorer.references.value = "\n\n"
    assert bw.NO_REFERENCES in explorer.output.value
    explorer.references.value = HYP
    explorer.smoothing.value = "method1"
    assert explorer.update().score == 1.0


def test_live_figures_render_png():
    bars, curve = LivePrecisionBars(3), LiveBpCurve()
    first = bars.png([0.5, None, 0.25], ["1/2", "0/0", "1/4"])
    assert first.startswith(b"\x89PNG") and bars.png([1, 1, 1]) != first
    assert curve.png(5, 10) != curve.png(50, 10) and curve.png(0, 0).startswith(b"\x89PNG")


# ---------------------------------------------------------------------------------------------- fuzzing

from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

WEIGHT_TEXTS = st.one_of(st.just(""), st.text(max_size=12),
                         st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=6).map(
                             lambda ws: " ".join(map(str, ws))))


@given(
    hypothesis=st.text(max_size=60),
    references=st.lists(st.text(max_size=60), max_size=4),
    max_n=st.integers(1, 6),
    weights=WEIGHT_TEXTS,
    smoothing=st.sampled_from(NLTK_METHODS + SACREBLEU_METHODS),
    tokenize=st.sampled_from(bw.model.TOKENIZERS),
    lowercase=st.booleans(),
)
def test_playground_model_never_raises(hypothesis, references, max_n, weights, smoothing, tokenize, lowercase):
    state = PlaygroundState(hypothesis, tuple(references), max_n, weights, smoothing, tokenize, lowercase)
    view = bw.playground_view_model(state)
    assert (view.score is None) != (view.message is None)
    if view.score is not None:
        # not always <= 1: sacrebleu rounds to 100.00000000000004, nltk method5 can exceed 1 (both reproduced)
        assert 0 <= view.score < 2 and len(view.precisions) == max_n
    assert view.html and view.score_html


# --- odd input never raises, and every HTML view escapes what the student typed --------------------------------------

ODD_SETTINGS = [None, "4", 4, wm.Settings(0), wm.Settings(10), wm.Settings(float("inf")), wm.Settings(True)]


@pytest.mark.parametrize("settings", ODD_SETTINGS, ids=repr)
def test_odd_settings_become_a_message(settings):
    result = wm.explain_texts("the cat", ["the cat"], settings)
    assert result.explanation is None and result.message and "bleu-message" in result.html


@pytest.mark.parametrize(
    "call",
    [
        lambda: wm.clip_table_view_model(["the cat"], "the cat", float("inf")),
        lambda: wm.clip_table_view_model(["the cat"], "the cat", "two"),
        lambda: wm.bp_view_model(float("nan"), "x"),
        lambda: wm.challenge_view_model("no-such-challenge", "the cat"),
        lambda: wm.challenge_view_model(["opposite"], "the cat"),
        lambda: wm.smoothing_comparison(["the cat"], "the cat", methods="method1"),
        lambda: wm.smoothing_comparison(["the cat"], "the cat", methods=["method1", "nope"]),
    ],
)
def test_odd_widget_input_never_raises(call):
    view = call()
    assert isinstance(view.html, str) and view.html.encode("utf-8")


def test_a_lone_surrogate_is_replaced_and_said_so():
    result = wm.explain_texts("the \ud800 cat", ["the cat \udfff"])
    assert result.explanation is not None
    assert any("invalid character" in n for n in result.notices)
    result.html.encode("utf-8")  # the browser gets the view (a lone surrogate cannot be sent)


INJECTION = "<img src=x onerror=alert(1)>"


def test_every_html_view_escapes_what_it_is_given():
    import bleu_lab as bl
    from bleu_lab.course.widgets import corpus as wc

    systems = {INJECTION: ["the cat sat", "a dog"], "plain": ["the cat is here", "a dog ran"]}
    refs = [["the cat sat on the mat"], ["a dog ran"]]
    views = [
        bl.explain([INJECTION + " the cat"], INJECTION + " the cat")._repr_html_(),
        wm.explain_texts(INJECTION, [INJECTION]).html,
        wm.smoothing_comparison([INJECTION], INJECTION, methods=[INJECTION, "method1"]).html,
        wm.challenge_view_model(INJECTION, INJECTION).html,
        wm.clip_table_view_model([INJECTION], INJECTION, 1).html,
        bl.sentence_score(INJECTION, [INJECTION])._repr_html_(),
        wc.comparison_view_model(systems, refs, INJECTION, "plain", "randomization", 100).html,
        wc.comparison_view_model(systems, refs, "plain", INJECTION, "bootstrap", 100).html,
        wc.comparison_view_model(systems, refs, INJECTION, "nope", "bootstrap", 100).html,
    ]
    for view in views:
        assert "<img" not in view, view[:200]
    assert all("&lt;img" in view for view in views[:5])  # the views that show the text show it escaped
