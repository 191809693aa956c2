"""Thin ipywidgets views over ``model``: read the controls, call one pure function, show its ``.html``.

Each view is a ``VBox`` whose controls are attributes (``.hypothesis``, ``.output``, ...), so a test sets
``view.hypothesis.value = "..."`` and reads ``view.output.value`` without a browser. Widgets are built once;
an update only changes values. Any unexpected error becomes a message in the view, never a traceback.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import cache

import ipywidgets as w

from ...reports.plots import LiveBpCurve, LivePrecisionBars
from ...reports.templates import macros
from .model import (
    CHALLENGES,
    DEFAULT_HYPOTHESIS,
    DEFAULT_REFERENCES,
    EXAMPLES,
    PLAYGROUND_SMOOTHING,
    SMOOTHING_OPTIONS,
    SMOOTHINGS,
    WHITESPACE,
    Challenge,
    PlaygroundState,
    PlaygroundView,
    Settings,
    bp_view_model,
    challenge_view_model,
    clip_table_view_model,
    failure_message,
    image_html,
    message_html,
    playground_view_model,
    sentence_explorer_view_model,
    smoothing_comparison,
    text_rows,
    tokenizer_options,
    whole_number,
)

LABEL_STYLE = {"description_width": "initial"}
APP_CLASS = "bleu-lab-app"
# Text sizes of the playground's switch. "projector" gives 24 px controls and 20 px explain tables (0.95 × 0.9 em):
# readable from the back of a lecture hall at 1280×720. Classroom mode (Voilà) starts with it.
TEXT_SIZES = (("normal", 1.0), ("large", 1.3), ("projector", 1.75), ("huge", 2.2))
CLASSROOM_SCALE = 1.75


def _wide() -> w.Layout:
    return w.Layout(width="100%")


def scale_class(font_scale: float) -> str:
    """The CSS class of views drawn at ``font_scale`` (views at different scales can share a page)."""
    return f"{APP_CLASS}-{round(font_scale * 100)}"


def in_voila() -> bool:
    """True in a kernel that Voilà started (classroom mode)."""
    return any(key in os.environ for key in ("VOILA_KERNEL_ID", "VOILA_BASE_URL", "VOILA_PREHEAT"))


def default_font_scale() -> float:
    """The projector scale in classroom mode (Voilà), else 1."""
    return CLASSROOM_SCALE if in_voila() else 1.0


def text_size_options(font_scale: float) -> list[tuple[str, float]]:
    """The text-size switch's choices, with ``font_scale`` among them."""
    sizes = list(TEXT_SIZES)
    return sizes if font_scale in dict(sizes).values() else [*sizes, (f"× {font_scale:g}", font_scale)]


def app_css(font_scale: float = 1.0) -> str:
    """CSS that scales a bleu_lab view's text and controls (e.g. 1.75 for a projector).

    Text boxes grow with their text where the browser knows ``field-sizing: content`` (elsewhere their
    ``rows`` follow the text), and pictures shrink to the width of the page.
    """
    return str(_markup().app_style(scale_class(font_scale), round(14 * font_scale), round(28 * font_scale)))


def _growing_textarea(text: str, placeholder: str, **kwargs) -> w.Textarea:
    """A full-width text box whose rows follow its text (see ``app_css`` for browsers that fit it exactly)."""
    box = w.Textarea(text, placeholder=placeholder, rows=text_rows(text), layout=_wide(), continuous_update=True,
                     style=LABEL_STYLE, **kwargs)
    box.add_class("bleu-growing")
    return box


def _fit_rows(box: w.Textarea) -> None:
    rows = text_rows(box.value)
    if box.rows != rows:
        box.rows = rows


def _refs_html(references: Sequence[str]) -> str:
    return str(_markup().references(references))


@cache
def _markup():
    """The macros of templates/widgets.html.j2 (app_style, references, challenge_task)."""
    return macros("widgets.html.j2")


class _View(w.VBox):
    """A widget whose ``update()`` never raises: an unexpected error is shown as a message in ``output``.

    CSS classes name the parts for styling and browser tests: the view's ``css_class`` on the root,
    ``bleu-hypothesis`` on the hypothesis box, ``bleu-output`` on the output.
    """

    css_class = "bleu-view"
    summary = "A bleu_lab widget."  # what the view shows: its text/plain form, seen before the cell runs

    def __init__(self, children, font_scale: float = 1.0):
        self.output = w.HTML(layout=_wide())
        self.output.add_class("bleu-output")
        self.font_scale = font_scale
        self._css = w.HTML(app_css(font_scale), layout=w.Layout(display="none"))  # a <style> applies while hidden
        super().__init__([self._css, *children, self.output], layout=_wide())
        for cls in (APP_CLASS, scale_class(font_scale), self.css_class):
            self.add_class(cls)
        if isinstance(getattr(self, "hypothesis", None), w.Widget):
            self.hypothesis.add_class("bleu-hypothesis")

    def plain_text(self) -> str:
        """What a notebook shows in place of the live widget (saved, and before the cell has run in a kernel)."""
        return f"{self.summary}\n(An interactive widget: run the cell to use it.)"

    def _repr_mimebundle_(self, **kwargs):
        """ipywidgets' bundle with a readable ``text/plain`` (its default is the repr of every child, CSS and all)."""
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict) and "text/plain" in bundle:
            bundle["text/plain"] = self.plain_text()
        return bundle

    def set_font_scale(self, font_scale: float) -> None:
        """Redraw the text and controls at ``font_scale`` (1 = the notebook's size)."""
        self.remove_class(scale_class(self.font_scale))
        self.font_scale = font_scale
        self._css.value = app_css(font_scale)
        self.add_class(scale_class(font_scale))

    def _watch(self, *controls: w.Widget) -> None:
        for control in controls:
            control.observe(self._on_change, names="value")

    def _on_change(self, change=None) -> None:
        self.update()

    def update(self):
        """Recompute and redisplay; returns the view model (for tests)."""
        try:
            return self._update()
        except Exception as err:  # never a traceback in a widget: say what happened instead
            self.output.value = message_html(failure_message(err))
            return None

    def _update(self):
        raise NotImplementedError


class SentenceExplorer(_View):
    """A hypothesis box and a references box (one per line), showing the explain view live."""

    summary = "BLEU sentence explorer: edit the hypothesis and the references to see every step of the score."

    css_class = "bleu-sentence-explorer"

    def __init__(self, hypothesis: str, references: Sequence[str], settings: Settings, font_scale: float = 1.0):
        self.settings = settings
        self.hypothesis = w.Textarea(hypothesis, description="hypothesis", rows=2, layout=_wide(), style=LABEL_STYLE)
        self.references = w.Textarea("\n".join(references), description="references (one per line)", rows=3,
                                     layout=_wide(), style=LABEL_STYLE)
        self.smoothing = w.Dropdown(options=SMOOTHING_OPTIONS, value=settings.smoothing, description="smoothing",
                                    style=LABEL_STYLE, layout=w.Layout(width="auto"))
        super().__init__([self.hypothesis, self.references, self.smoothing], font_scale)
        self._watch(self.hypothesis, self.references, self.smoothing)
        self.update()

    def _update(self):
        settings = Settings(self.settings.max_n, self.settings.weights, self.smoothing.value,
                            self.settings.tokenize, self.settings.lowercase)
        result = sentence_explorer_view_model(self.hypothesis.value, self.references.value, settings)
        self.output.value = result.html
        return result


class ClipTableWidget(_View):
    """Edit a hypothesis and pick n: the clip table (count, max reference count, clipped) and p_n."""

    summary = "Clip table: edit the hypothesis and pick n to see each n-gram's count, its clipped count and p_n."

    css_class = "bleu-clip-table-widget"

    def __init__(self, references: Sequence[str], hypothesis: str, n: int = 1, max_n: int = 4):
        self.references = tuple(references)
        self.hypothesis = w.Text(hypothesis, description="hypothesis", layout=_wide(), style=LABEL_STYLE,
                                 continuous_update=True)
        self.n = w.IntSlider(n, min=1, max=max_n, description="n-gram order n", style=LABEL_STYLE)
        super().__init__([w.HTML(_refs_html(self.references)), self.hypothesis, self.n])
        self._watch(self.hypothesis, self.n)
        self.update()

    def _update(self):
        view = clip_table_view_model(self.references, self.hypothesis.value, self.n.value)
        self.output.value = view.html
        return view


class BpSlider(_View):
    """Slide the hypothesis length c (and the reference length r): BP and its place on the curve."""

    summary = "Brevity penalty slider: move the hypothesis length c and the reference length r to see BP on its curve."

    css_class = "bleu-bp-slider"

    def __init__(self, ref_len: int = 10, hyp_len: int = 6, max_len: int = 30):
        self.c = w.IntSlider(hyp_len, min=0, max=max_len, description="hypothesis length c", style=LABEL_STYLE,
                             layout=w.Layout(width="32em"))
        self.r = w.IntSlider(ref_len, min=1, max=max_len, description="reference length r", style=LABEL_STYLE,
                             layout=w.Layout(width="32em"))
        self.figure = LiveBpCurve(ratio_max=3.0)
        self.image = w.Image(format="png", layout=w.Layout(width="420px"))
        super().__init__([self.c, self.r, self.image])
        self._watch(self.c, self.r)
        self.update()

    def _update(self):
        view = bp_view_model(self.c.value, self.r.value)
        self.output.value = view.html
        self.image.value = self.figure.png(view.c, view.r)
        return view


class SmoothingComparer(_View):
    """One hypothesis, every smoothing method side by side: the p_n each one uses and the score."""

    summary = "Smoothing comparer: edit the hypothesis to see every smoothing method's p_n and score side by side."

    css_class = "bleu-smoothing-comparer"

    def __init__(self, references: Sequence[str], hypothesis: str, methods: Sequence[str] = SMOOTHINGS,
                 max_n: int = 4):
        self.references, self.methods = tuple(references), tuple(methods)
        self.hypothesis = w.Text(hypothesis, description="hypothesis", layout=_wide(), style=LABEL_STYLE)
        self.max_n = w.IntSlider(max_n, min=1, max=6, description="max n", style=LABEL_STYLE)
        super().__init__([w.HTML(_refs_html(self.references)), self.hypothesis, self.max_n])
        self._watch(self.hypothesis, self.max_n)
        self.update()

    def _update(self):
        comparison = smoothing_comparison(self.references, self.hypothesis.value, methods=self.methods,
                                          max_n=self.max_n.value)
        self.output.value = comparison.html
        return comparison


class BeatBleuChallenge(_View):
    """Write a bad translation that scores above the threshold: learn BLEU's blind spots by exploiting them."""

    summary = "Beat-BLEU challenge: write a bad translation that BLEU scores above the threshold."

    css_class = "bleu-challenge"

    def __init__(self, challenge: str | Challenge | None = None, hypothesis: str = ""):
        fixed = isinstance(challenge, Challenge)
        self._challenges = {challenge.key: challenge} if fixed else dict(CHALLENGES)
        first = challenge.key if fixed else (challenge or next(iter(CHALLENGES)))
        self.challenge = w.Dropdown(options=[(c.title, k) for k, c in self._challenges.items()], value=first,
                                    description="challenge", style=LABEL_STYLE, layout=w.Layout(width="auto"))
        self.task = w.HTML()
        self.hypothesis = w.Text(hypothesis, description="your translation", layout=_wide(), style=LABEL_STYLE)
        super().__init__([self.challenge, self.task, self.hypothesis])
        self._watch(self.challenge, self.hypothesis)
        self.update()

    def _update(self):
        ch = self._challenges[self.challenge.value]
        self.task.value = str(_markup().challenge_task(ch))
        self.hypothesis.placeholder = ch.placeholder
        result = challenge_view_model(ch, self.hypothesis.value)
        self.output.value = result.html
        return result


class Playground(_View):
    """The full playground: hypothesis, any number of references, every setting; explain view, p_n bars, BP."""

    summary = (
        "BLEU playground: a hypothesis, its references and every setting, with the explain view, the p_n bars and "
        "the BP curve."
    )

    css_class = "bleu-playground"

    def __init__(self, state: PlaygroundState | None = None, font_scale: float | None = None):
        state = state or PlaygroundState()
        font_scale = default_font_scale() if font_scale is None else font_scale
        self.example = w.Dropdown(options=[("— load an example —", "")] + [(k, k) for k in EXAMPLES], value="",
                                  description="example", style=LABEL_STYLE, layout=w.Layout(width="auto"))
        self.text_size = w.Dropdown(options=text_size_options(font_scale), value=font_scale, description="text size",
                                    style=LABEL_STYLE, layout=w.Layout(width="auto"))
        self.text_size.add_class("bleu-text-size")
        self.hypothesis = _growing_textarea(state.hypothesis, "the translation to score", description="hypothesis")
        self.reference_boxes: list[w.Textarea] = []
        self._ref_rows = w.VBox(layout=_wide())
        self.add_button = w.Button(description="+ add reference", tooltip="add a reference box",
                                    layout=w.Layout(width="auto", min_width="11em"))  # not cut to "+ add ref…"
        self.add_button.add_class("bleu-add-reference")
        self.max_n = w.Dropdown(options=list(range(1, 7)), value=whole_number(state.max_n, 4, 1, 6),
                                description="max n", style=LABEL_STYLE, layout=w.Layout(width="auto"))
        self.weights = w.Text(state.weights, placeholder="uniform", description="weights", style=LABEL_STYLE,
                              layout=w.Layout(width="18em"),
                              tooltip="empty = uniform; your own, e.g. 0.4 0.3 0.2 0.1, with an nltk smoothing "
                              "(sacrebleu's smoothing methods weigh every order equally)")
        self.smoothing = w.Dropdown(options=SMOOTHING_OPTIONS, value=state.smoothing, description="smoothing",
                                    style=LABEL_STYLE, layout=w.Layout(width="auto", max_width="100%"))
        self.tokenize = w.Dropdown(options=tokenizer_options(), value=state.tokenize, description="tokenizer",
                                   style=LABEL_STYLE, layout=w.Layout(width="auto", max_width="100%"))
        self.lowercase = w.Checkbox(state.lowercase, description="lowercase", indent=False)
        self.score = w.HTML(layout=_wide())
        self.score.add_class("bleu-score-box")
        self._bars: dict[int, LivePrecisionBars] = {}
        self._bp_figure = LiveBpCurve()
        self.bars_image, self.bp_image = w.HTML(), w.HTML()  # <img> with alt text: ipywidgets' Image has none
        for image in (self.bars_image, self.bp_image):
            image.add_class("bleu-plot")
        settings = w.HBox([self.max_n, self.weights, self.lowercase], layout=w.Layout(flex_flow="row wrap"))
        # The score sits right under the text boxes, so that what is typed and its score share one screen (a
        # 1280×720 projector included); the settings come after it.
        super().__init__(
            [
                w.HBox([self.example, self.text_size], layout=w.Layout(flex_flow="row wrap")),
                w.HBox([self.hypothesis], layout=_wide()), self._ref_rows, self.add_button, self.score, settings,
                self.smoothing, self.tokenize,
                w.HBox([self.bars_image, self.bp_image], layout=w.Layout(flex_flow="row wrap")),
            ],
            font_scale,
        )
        self._updating = False
        for ref in state.references:
            self.add_reference(ref, update=False)
        self.add_button.on_click(lambda _: self.add_reference(""))
        self.example.observe(self._on_example, names="value")
        self.text_size.observe(lambda change: self.set_font_scale(change["new"]), names="value")
        self._watch(self.hypothesis, self.max_n, self.weights, self.smoothing, self.tokenize, self.lowercase)
        self.update()

    def set_font_scale(self, font_scale: float) -> None:
        """Redraw at ``font_scale``, pictures included."""
        super().set_font_scale(font_scale)
        self.update()

    # -- references: rows are only created or removed on add/remove, never on a keystroke
    def add_reference(self, text: str = "", update: bool = True) -> w.Textarea:
        """Add a reference box (with a remove button) and rescore."""
        box = _growing_textarea(text, "a reference translation")
        box.add_class("bleu-reference")
        remove = w.Button(description="✕", tooltip="remove this reference", layout=w.Layout(width="3em"))
        row = w.HBox([box, remove], layout=_wide())
        remove.on_click(lambda _: self.remove_reference(box))
        box.observe(self._on_change, names="value")
        self.reference_boxes.append(box)
        self._ref_rows.children = (*self._ref_rows.children, row)
        self._relabel()
        if update:
            self.update()
        return box

    def remove_reference(self, box: w.Textarea | int) -> None:
        """Remove a reference box (the box itself or its index) and rescore."""
        i = box if isinstance(box, int) else self.reference_boxes.index(box)
        box = self.reference_boxes.pop(i)
        box.unobserve(self._on_change, names="value")
        row = self._ref_rows.children[i]
        self._ref_rows.children = tuple(r for r in self._ref_rows.children if r is not row)
        row.close()
        self._relabel()
        self.update()

    def _relabel(self) -> None:
        for i, box in enumerate(self.reference_boxes, 1):
            box.description = f"reference {i}"
            box.style.description_width = "initial"

    def _on_example(self, change) -> None:
        if change["new"]:
            self.load_example(change["new"])

    def load_example(self, name: str) -> None:
        """Put one of ``EXAMPLES`` in the boxes (one rescore at the end)."""
        hypothesis, references = EXAMPLES[name]
        self._updating = True
        try:
            self.hypothesis.value = hypothesis
            while self.reference_boxes:
                self.remove_reference(len(self.reference_boxes) - 1)
            for ref in references:
                self.add_reference(ref, update=False)
        finally:
            self._updating = False
        self.update()

    # -- state in, view out
    def state(self) -> PlaygroundState:
        """The controls' current values."""
        return PlaygroundState(self.hypothesis.value, tuple(b.value for b in self.reference_boxes), self.max_n.value,
                               self.weights.value, self.smoothing.value, self.tokenize.value, self.lowercase.value)

    def update(self) -> PlaygroundView | None:
        if self._updating:
            return None
        return super().update()

    def _update(self) -> PlaygroundView:
        view = playground_view_model(self.state())
        self.score.value = view.score_html
        self.output.value = view.html
        bars = self._bars.get(view.max_n) or self._bars.setdefault(view.max_n, LivePrecisionBars(view.max_n))
        width = round(420 * self.font_scale)
        self.bars_image.value = image_html(bars.png(view.precisions, view.precision_labels), view.bars_alt, width)
        c, r = view.lengths or (0, 0)
        self.bp_image.value = image_html(self._bp_figure.png(c, r), view.bp_alt, width)
        for box in (self.hypothesis, *self.reference_boxes):
            _fit_rows(box)
        return view


# ---------------------------------------------------------------------------------------------- front doors


def sentence_explorer(
    references: Sequence[str] = DEFAULT_REFERENCES,
    hypothesis: str = DEFAULT_HYPOTHESIS,
    *,
    max_n: int = 4,
    smoothing: str = "method0",
    tokenize: str = WHITESPACE,
    lowercase: bool = False,
) -> SentenceExplorer:
    """Edit a hypothesis and its references (one per line) and watch the explain view change."""
    return SentenceExplorer(hypothesis, references, Settings(max_n, None, smoothing, tokenize, lowercase))


def clip_table_widget(references: Sequence[str] = DEFAULT_REFERENCES, hypothesis: str = DEFAULT_HYPOTHESIS,
                      n: int = 1) -> ClipTableWidget:
    """Edit a hypothesis and watch its clip table of order ``n`` (the slider changes n)."""
    return ClipTableWidget(references, hypothesis, n)


def bp_slider(ref_len: int = 10, hyp_len: int = 6, max_len: int = 30) -> BpSlider:
    """Sliders for c and r: BP = 1 if c > r else exp(1 - r/c), on the curve."""
    return BpSlider(ref_len, hyp_len, max_len)


def smoothing_comparer(references: Sequence[str] = DEFAULT_REFERENCES, hypothesis: str = "the cat sat on the mat",
                       methods: Sequence[str] = SMOOTHINGS, max_n: int = 4) -> SmoothingComparer:
    """Score one hypothesis with every smoothing method (nltk's method0–7, sacrebleu's exp/floor/add-k/none)."""
    return SmoothingComparer(references, hypothesis, methods, max_n)


def beat_bleu_challenge(challenge: str | Challenge | None = None, hypothesis: str = "") -> BeatBleuChallenge:
    """The 'beat BLEU' challenges (a key of ``CHALLENGES``, a ``Challenge``, or None for a menu of all)."""
    return BeatBleuChallenge(challenge, hypothesis)


def playground(
    hypothesis: str = DEFAULT_HYPOTHESIS,
    references: Sequence[str] = DEFAULT_REFERENCES,
    *,
    max_n: int = 4,
    weights: str = "",
    smoothing: str = PLAYGROUND_SMOOTHING,
    tokenize: str = WHITESPACE,
    lowercase: bool = False,
    font_scale: float | None = None,
) -> Playground:
    """The BLEU playground. Its *text size* switch scales text and controls; ``font_scale`` sets the start
    (None: 1.75, the projector size, in classroom mode (Voilà), else 1)."""
    state = PlaygroundState(hypothesis, tuple(references), max_n, weights, smoothing, tokenize, lowercase)
    return Playground(state, font_scale)

