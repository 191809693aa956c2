"""The comparison widget: pick a pair of systems, a bucket and a keyword; read the segments side by side.

A pure model (``segment_filter`` in, ``SegmentsView`` out) and a thin ipywidgets view over a ``Comparison``
(``bleu_lab.compare``). Each segment shows the source, the references and both outputs with the explain view's
chips (the longest credited n-gram through each token). ``compare_widget`` also takes the student's own files, as
paths or uploads (``compare_upload``); a problem with them is a friendly message, never a traceback.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

import ipywidgets as w

from ...compare import Comparison, compare_systems
from ...compare.bucketers import LENGTH_DIFFERENCE, REFERENCE_LENGTH, SENTENCE_BLEU
from ...compare.comparison import Example
from ...compare.files import (
    ComparisonInputs,
    check_upload_sizes,
    comparison_inputs,
    decode_text_file,
    default_names,
    read_text_file,
)
from ...compare.reporters import example_html, legend_html, output_chips, scores_html
from ...data import load_corpus
from ...metrics.significance import DRAW_FLAGS, TooManyDraws
from ...reports.templates import Markup, macros
from ...scripts import tokenizer_warning
from ...tokenization import available_tokenizers
from .model import failure_message, message_html
from .views import LABEL_STYLE, _View, _wide

BUCKETERS = (REFERENCE_LENGTH, LENGTH_DIFFERENCE, SENTENCE_BLEU)
ALL = ("all", -1)
SORTS = (("largest gap first", "gap"), ("shortest reference first", "length"))
SHOWN = 10  # segments drawn per update (the filter says how many match)
MAX_KEYWORD = 200


@dataclass(frozen=True)
class SegmentFilter:
    """Which segments to show: ``system`` against the baseline, in ``bucket`` (bucketer name, index; ALL for every
    segment; the system's own bucket for the length-difference and sentence-BLEU bucketers), containing
    ``keyword`` (any case) in the source, a reference or either output, sorted by ``sort``."""

    system: str
    bucket: tuple[str, int] = ALL
    keyword: str = ""
    sort: str = "gap"


@dataclass(frozen=True)
class SegmentsView:
    """The segments that pass a filter (0-based, in display order) and the HTML of the first ``SHOWN``."""

    segments: tuple[int, ...]
    html: str
    message: str | None = None


def bucket_options(c: Comparison) -> list[tuple[str, tuple[str, int]]]:
    """Dropdown options: every segment, then each bucket of each bucketer."""
    options = [("all segments", ALL)]
    for bucketer in BUCKETERS:
        options += [(f"{bucketer.name}: {label}", (bucketer.name, b)) for b, label in enumerate(bucketer.labels)]
    return options


def matching_segments(c: Comparison, f: SegmentFilter) -> list[int]:
    """The segments that pass ``f``, sorted by |sentence BLEU gap| (largest first) or by reference length."""
    segments = range(len(c))
    if f.bucket != ALL:
        name, b = f.bucket
        index = c.bucket_of[name][f.system]
        segments = [i for i in segments if index[i] == b]
    keyword = f.keyword.strip().casefold()
    if keyword:
        texts = [c.outputs[c.baseline], c.outputs[f.system]] + ([c.sources] if c.sources else [])
        segments = [i for i in segments if any(keyword in t[i].casefold() for t in texts)
                    or any(keyword in r.casefold() for r in c.references[i])]
    gaps = c.sentence_bleu[f.system] - c.sentence_bleu[c.baseline]
    if f.sort == "length":
        return sorted(segments, key=lambda i: (c.reference_lengths[i], i))
    return sorted(segments, key=lambda i: (-abs(gaps[i]), i))


def segments_view(c: Comparison, f: SegmentFilter, chips=output_chips) -> SegmentsView:
    """The filtered segments side by side (``chips(c, name, segment)`` draws one output)."""
    if f.system not in c.names or f.system == c.baseline:
        return SegmentsView((), message_html("Pick a system to compare with the baseline."), "no pair")
    if len(f.keyword) > MAX_KEYWORD:
        return SegmentsView((), message_html(f"The keyword is longer than {MAX_KEYWORD} characters: shorten it."),
                            "long keyword")
    found = matching_segments(c, f)
    if not found:
        why = f" containing “{f.keyword.strip()}”" if f.keyword.strip() else ""
        message = f"No segment in this bucket{why}. Try another bucket or keyword."
        return SegmentsView((), message_html(message), message)
    gaps = c.sentence_bleu[f.system] - c.sentence_bleu[c.baseline]
    shown = found[:SHOWN]
    examples = Markup("".join(example_html(c, Example(i, f.system, c.baseline, float(gaps[i])), chips)
                              for i in shown))  # rendered by the compare reports
    return SegmentsView(tuple(found), str(frames().segments(len(found), len(shown), f.sort == "gap", examples)))


class CompareWidget(_View):
    """Pick a pair (a system against the baseline), a bucket, a keyword and an order: the segments side by side."""

    css_class = "bleu-compare-widget"

    def __init__(self, comparison: Comparison, font_scale: float = 1.0):
        self.comparison = comparison
        others = [n for n in comparison.names if n != comparison.baseline]
        self.pair = w.Dropdown(options=[(f"{n} vs {comparison.baseline}", n) for n in others] or
                               [("(only one system)", "")], description="pair", style=LABEL_STYLE)
        self.bucket = w.Dropdown(options=bucket_options(comparison), value=ALL, description="bucket",
                                 style=LABEL_STYLE, layout=w.Layout(width="30em"))
        self.keyword = w.Text(description="keyword", placeholder="a word in the source, references or outputs",
                              style=LABEL_STYLE, continuous_update=False, layout=w.Layout(width="30em"))
        self.sort = w.ToggleButtons(options=SORTS, value="gap", description="order",
                                    style={**LABEL_STYLE, "button_width": "auto"})
        self.summary = w.HTML(_summary_html(comparison), layout=_wide())
        self._chips: dict[tuple[str, int], str] = {}
        super().__init__([self.summary, w.HBox([self.pair, self.bucket], layout=w.Layout(flex_flow="row wrap")),
                          w.HBox([self.keyword, self.sort], layout=w.Layout(flex_flow="row wrap"))], font_scale)
        self._watch(self.pair, self.bucket, self.keyword, self.sort)
        self.update()

    def _cached_chips(self, c: Comparison, name: str, segment: int) -> str:
        key = (name, segment)
        if key not in self._chips:
            self._chips[key] = output_chips(c, name, segment)
        return self._chips[key]

    def _update(self) -> SegmentsView:
        view = segments_view(self.comparison, SegmentFilter(self.pair.value, self.bucket.value, self.keyword.value,
                                                            self.sort.value), self._cached_chips)
        self.output.value = view.html
        return view


def _summary_html(c: Comparison) -> str:
    """The legend (chips' colours and marks; what a "word" is under a character tokenizer) and the scores table of
    the comparison, above the controls."""
    return str(frames().summary(Markup(legend_html(c, analyses=False)), Markup(scores_html(c))))


@cache
def frames():
    """The macros of templates/compare_widget.html.j2 (summary, segments, analyses)."""
    return macros("compare_widget.html.j2")


class MessageWidget(_View):
    """What ``compare_widget`` shows when the input cannot be compared: a friendly message."""

    css_class = "bleu-compare-widget"

    def __init__(self, message: str):
        self.message = message
        super().__init__([])
        self.update()

    def _update(self) -> str:
        self.output.value = message_html(self.message)
        return self.message


def compare_widget(
    systems: Mapping[str, Sequence[str]] | None = None,
    references: Sequence[Sequence[str]] | Sequence[str] | None = None,
    *,
    system_paths: Sequence[str] | None = None,
    reference_paths: Sequence[str] | None = None,
    source_path: str | None = None,
    names: Sequence[str] | None = None,
    sources: Sequence[str] | None = None,
    **options: object,
) -> CompareWidget | MessageWidget:
    """The comparison widget for systems given as lines (``systems``, ``references``) or as files (``system_paths``,
    ``reference_paths``, ``source_path``: UTF-8, one segment per line). With neither: data/news's strong, fluent and
    literal systems against reference A. ``options`` go to ``compare_systems`` (tokenize, baseline, n_samples, ...).
    A problem with the input becomes a message in the widget."""
    try:
        if system_paths is not None or reference_paths is not None:
            if systems is not None or references is not None:
                raise ValueError("give either systems and references, or system_paths and reference_paths, not both")
            inputs = comparison_inputs(
                list(names) if names else default_names(system_paths or []),
                [read_text_file(p, "system") for p in system_paths or []],
                [read_text_file(p, "reference") for p in reference_paths or []],
                read_text_file(source_path, "source") if source_path else None,
            )
            systems, references, sources = inputs.systems, inputs.references, inputs.sources
        elif systems is None:
            corpus = load_corpus("news")
            systems = {n: corpus.systems[n] for n in ("strong", "fluent", "literal")}
            references, sources = corpus.references_for("A"), corpus.sources
        if references is None:
            raise ValueError("give the references too: one list of reference lines per segment")
        return CompareWidget(compare_systems(systems, references, sources=sources, **options))
    except (OSError, ValueError, TypeError) as err:
        return MessageWidget(f"These files cannot be compared: {err}")


TEST_DRAWS = {"n_trials": "randomization trials", "n_samples": "bootstrap resamples"}


def too_many_segments_message(err: TooManyDraws) -> str:
    """What a student can do when the upload has more segments than the page's paired tests can test (the bound of
    ``significance.check_draws``): fewer lines at a time, or the command line with fewer trials (or resamples)."""
    what, flag = TEST_DRAWS.get(err.name, err.name), DRAW_FLAGS.get(err.name, err.name)
    return (f"These files have {err.segments:,} segments (lines), and this page can test at most "
            f"{err.most_segments:,} at once: its paired tests run {err.count:,} {what} over every segment, and more "
            f"would not fit in memory. Compare at most {err.most_segments:,} lines at a time (cut every file at the "
            f"same lines), or run bleu-lab compare on your own computer with {flag} {err.most_count} or fewer.")


class CompareUpload(w.VBox):
    """Upload system outputs and references (UTF-8 text, one segment per line), press Compare: the widget."""

    def __init__(self, **options: object):
        self.options = options
        self.systems = w.FileUpload(accept=".txt,.de,.en,.zh,.ja,.hyp,.ref,text/plain", multiple=True,
                                    description="system outputs")
        self.references = w.FileUpload(accept=".txt,.de,.en,.zh,.ja,.hyp,.ref,text/plain", multiple=True,
                                       description="references")
        self.tokenize = w.Dropdown(options=list(available_tokenizers()), value="13a", description="tokenizer",
                                   style=LABEL_STYLE)
        self.button = w.Button(description="Compare", button_style="primary")
        self.message = w.HTML(message_html("Upload two or more system outputs and one or more references, "
                                           "then press Compare."))
        self.result = w.VBox(layout=_wide())
        self.button.on_click(lambda _: self.compare())
        super().__init__([w.HBox([self.systems, self.references, self.tokenize, self.button],
                                 layout=w.Layout(flex_flow="row wrap")), self.message, self.result], layout=_wide())

    def inputs(self) -> ComparisonInputs:
        """The uploaded files, decoded and checked (a ``ValueError`` names the file at fault)."""
        check_upload_sizes([(f["name"], len(f["content"])) for f in (*self.systems.value, *self.references.value)])
        systems = [decode_text_file(f["name"], bytes(f["content"]), "system") for f in self.systems.value]
        references = [decode_text_file(f["name"], bytes(f["content"]), "reference") for f in self.references.value]
        return comparison_inputs(default_names([f["name"] for f in self.systems.value]), systems, references)

    def extra(self, inputs: ComparisonInputs) -> dict[str, object]:
        """More arguments of ``compare_systems`` for these inputs (none here; the app adds segment scores)."""
        return {}

    def compare(self) -> CompareWidget | None:
        """Compare the uploaded files; show the widget, or a friendly message saying what is wrong."""
        try:
            inputs = self.inputs()
            widget = CompareWidget(compare_systems(inputs.systems, inputs.references, tokenize=self.tokenize.value,
                                                   **{**self.options, **self.extra(inputs)}))
        except TooManyDraws as err:
            self.message.value = message_html(too_many_segments_message(err))
            self.result.children = ()
            return None
        except (ValueError, TypeError, OSError) as err:
            self.message.value = message_html(f"These files cannot be compared: {err}")
            self.result.children = ()
            return None
        except Exception as err:  # never a traceback for a student
            self.message.value = message_html(failure_message(err))
            self.result.children = ()
            return None
        warning = tokenizer_warning((r for seg in inputs.references for r in seg), self.tokenize.value,
                                    option="tokenizer")
        self.message.value = message_html(f"Compared {len(inputs.systems)} systems on {len(inputs.references)} "
                                          "segments." + (f" Note: {warning}." if warning else ""))
        self.result.children = (widget,)
        return widget


def compare_upload(**options: object) -> CompareUpload:
    """Upload your own system outputs and references and compare them (``options`` as ``compare_systems``)."""
    return CompareUpload(**options)


__all__ = ["CompareUpload", "CompareWidget", "SegmentFilter", "SegmentsView", "compare_upload", "compare_widget",
           "matching_segments", "segments_view"]
