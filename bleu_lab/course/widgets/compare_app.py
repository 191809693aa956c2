"""The comparison app (notebooks/compare_app.ipynb, for Voilà or JupyterLab): upload your systems, read the analyses.

``compare_upload``'s file inputs with optional system names and, optionally, segment scores from elsewhere (a metric
run on a GPU, people's MQM: ``segment_scores``'s two formats, with the metric's name and direction, as
``bleu-lab compare --scores``), then the whole comparison: the legend, the scores table
with the paired tests and the segments side by side (``CompareWidget``), and below it the report's own HTML: every
pair's tests, the figures (inline SVG), the word accuracy, the three bucket tables (each bucket row opens its
segments) and the salient n-grams. Before anything is uploaded it shows data/news's strong and
fluent systems against reference A, so the page is never empty. A problem is a friendly message, never a traceback.
"""

from __future__ import annotations

import ipywidgets as w

from ...compare import compare_systems
from ...compare.files import (
    ComparisonInputs,
    check_upload_sizes,
    comparison_inputs,
    decode_text_file,
    default_names,
)
from ...compare.reporters import analyses_html
from ...data import load_corpus
from ...metrics.segment_scores import scores_from_lines
from ...reports.templates import Markup
from .compare import CompareUpload, CompareWidget, frames
from .model import message_html
from .views import LABEL_STYLE, _wide

DIRECTIONS = ("higher is better", "lower is better")  # of an uploaded metric; no default: the student says which
EXAMPLE_SYSTEMS = ("strong", "fluent")  # data/news's systems shown before an upload
EXAMPLE_MESSAGE = ("Showing the data/news example (systems strong and fluent, reference A). Upload two or more "
                   "system outputs and one or more references, then press Compare.")


def parse_names(text: str) -> list[str]:
    """The names typed in the names box: separated by commas (or by spaces when there is no comma)."""
    parts = text.split(",") if "," in text else text.split()
    return [p.strip() for p in parts if p.strip()]


class CompareApp(CompareUpload):
    """The upload form (system outputs, references, optional names, tokenizer), then the full comparison."""

    def __init__(self, example: bool = True, **options: object):
        super().__init__(**options)
        self.add_class("bleu-compare-app")
        self.systems.add_class("bleu-upload-systems")
        self.references.add_class("bleu-upload-references")
        self.names = w.Text(description="names", placeholder="optional: one per system file, e.g. base, new",
                            style=LABEL_STYLE, layout=w.Layout(width="30em"))
        self.names.add_class("bleu-upload-names")
        self.scores = w.FileUpload(accept=".tsv,.txt,.scores,text/plain", multiple=True, description="segment scores")
        self.scores.add_class("bleu-upload-scores")
        self.metric = w.Text(description="metric", placeholder="its name, e.g. MQM or COMET", style=LABEL_STYLE,
                             layout=w.Layout(width="20em"))
        self.metric.add_class("bleu-upload-metric")
        self.direction = w.ToggleButtons(options=DIRECTIONS, value=None, style={"button_width": "9em"})
        self.direction.add_class("bleu-upload-direction")
        scores_row = w.HBox([self.scores, self.metric, self.direction], layout=w.Layout(flex_flow="row wrap"))
        self.message.add_class("bleu-upload-message")
        form, *rest = self.children
        self.children = (form, self.names, scores_row, *rest)
        if example:
            self.show_example()

    def _repr_mimebundle_(self, **kwargs):
        """ipywidgets' bundle with a readable ``text/plain`` (its default is the repr of every child)."""
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict) and "text/plain" in bundle:
            bundle["text/plain"] = ("Compare your own systems: upload outputs and references.\n"
                                    "(An interactive widget: run the cell to use it.)")
        return bundle

    def inputs(self) -> ComparisonInputs:
        """The uploaded files, decoded and checked, named by the names box or else by their file names."""
        files = list(self.systems.value)
        check_upload_sizes([(f["name"], len(f["content"]))  # every file of the comparison: the page's one bound
                            for f in (*files, *self.references.value, *self.scores.value)])
        systems = [decode_text_file(f["name"], bytes(f["content"]), "system") for f in files]
        references = [decode_text_file(f["name"], bytes(f["content"]), "reference") for f in self.references.value]
        names = parse_names(self.names.value) or default_names([f["name"] for f in files])
        if len(set(names)) != len(names):
            raise ValueError(f"the names {', '.join(names)} repeat one: give each system a name of its own")
        return comparison_inputs(names, systems, references)

    def extra(self, inputs: ComparisonInputs) -> dict[str, object]:
        """The uploaded segment scores, if any, as ``compare_systems``'s ``scores`` (a ``ValueError`` says what is
        missing: the metric's name, its direction, or what is wrong in a file)."""
        files = list(self.scores.value)
        if not files:
            return {}
        name = self.metric.value.strip()
        if not name:
            raise ValueError("the segment scores need the metric's name (the box 'metric', e.g. MQM or COMET)")
        if self.direction.value is None:
            raise ValueError(f"say whether {name} is better when higher (COMET) or lower (MQM error points): "
                             "press one of the two buttons beside its name")
        texts = [decode_text_file(f["name"], bytes(f["content"]), f"{name} scores") for f in files]
        scores = scores_from_lines(name, [(f["name"], t.lines) for f, t in zip(files, texts)], list(inputs.systems),
                                   len(inputs.references), higher_is_better=self.direction.value == DIRECTIONS[0])
        return {"scores": {name: scores}}

    def show(self, widget: CompareWidget) -> None:
        """The comparison: scores and segments (interactive), then the analyses' tables and figures."""
        tables = str(frames().analyses(Markup(analyses_html(widget.comparison))))  # rendered by the compare reports
        self.result.children = (widget, w.HTML(tables, layout=_wide()))

    def compare(self) -> CompareWidget | None:
        """Compare the uploaded files (``CompareUpload.compare``) and add the analyses below the widget."""
        widget = super().compare()
        if widget is not None:
            self.show(widget)
        return widget

    def show_example(self) -> None:
        """data/news's strong and fluent systems against reference A, until the student uploads files."""
        try:
            corpus = load_corpus("news")
            c = compare_systems({n: corpus.systems[n] for n in EXAMPLE_SYSTEMS}, corpus.references_for("A"),
                                sources=corpus.sources, **self.options)
            self.show(CompareWidget(c))
            self.message.value = message_html(EXAMPLE_MESSAGE)
        except Exception as err:  # never a traceback for a student
            self.message.value = message_html(f"The example could not be loaded ({type(err).__name__}: {err}). "
                                              "Upload your own files instead.")


def compare_app(**options: object) -> CompareApp:
    """The comparison app: the data/news example first, then your uploads (``options`` as ``compare_systems``)."""
    return CompareApp(**options)


__all__ = ["CompareApp", "compare_app", "parse_names"]
