"""BLEU, chrF and TER side by side on one hypothesis (lesson 10): three surface metrics, three blind spots.

``metric_comparison(hypothesis, references)`` is the pure model: sacrebleu's sentence BLEU (13a, exp
smoothing) through ``explain``, bleu_lab's chrF through ``explain_chrf`` and sacrebleu's TER, each computed by
the core, returned in a frozen dataclass whose ``.html`` is what the widget shows. Odd input becomes a friendly
``message``, never a traceback. ``metric_comparer()`` is the widget: edit the boxes, the three scores follow.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import ipywidgets as w

from ...metrics.ter import TerScore, sentence_ter
from ...reports.explain_chrf import ChrfExplanation, explain_chrf
from ...reports.explain_html import explanation_html
from ...reports.templates import Markup, render
from .inputs import clip_references, clip_text, parse_references
from .model import ExplainResult, Settings, explain_texts, message_html, notices_html
from .views import LABEL_STYLE, _View, _wide

# The sentence-level BLEU sacrebleu reports by default: 13a tokens, exp smoothing (lesson 6), 0-100.
BLEU_SETTINGS = Settings(max_n=4, weights=None, smoothing="exp", tokenize="13a", lowercase=False)
# A headline of the news corpus (segment 27): the strong system's compound against reference A's.
DEFAULT_HYPOTHESIS = "Hitzewellenwarnung herausgegeben"
DEFAULT_REFERENCES = ("Hitzewarnung ausgegeben",)


@dataclass(frozen=True)
class MetricComparison:
    """Three metrics on one hypothesis, or the message that replaces them."""

    bleu: ExplainResult
    chrf: ChrfExplanation | None = None
    ter: TerScore | None = None

    @property
    def message(self) -> str | None:
        return self.bleu.message

    @property
    def scores(self) -> dict[str, float] | None:
        """{'BLEU': 0-100, 'chrF': 0-100, 'TER': 0-100+} or None when there is only a message."""
        if self.bleu.explanation is None or self.chrf is None or self.ter is None:
            return None
        return {"BLEU": self.bleu.explanation.score * 100, "chrF": self.chrf.score, "TER": self.ter.score}

    @property
    def html(self) -> str:
        scores = self.scores
        if scores is None:
            return notices_html(self.bleu.notices) + message_html(self.message)
        # The explain views and the notices are markup rendered from their own templates.
        return render("metric_comparison.html.j2", notices=Markup(notices_html(self.bleu.notices)), scores=scores,
                      bleu_view=Markup(explanation_html(self.bleu.explanation)),
                      chrf_view=Markup(self.chrf._repr_html_()), ter=str(self.ter))


def metric_comparison(hypothesis: object, references: object) -> MetricComparison:
    """BLEU, chrF and TER of ``hypothesis`` against ``references`` (a list, or text with one per line)."""
    refs = parse_references(references) if isinstance(references, str) else references
    bleu = explain_texts(hypothesis, refs, BLEU_SETTINGS)
    if bleu.explanation is None:
        return MetricComparison(bleu)
    # the same cut-to-size text that BLEU scored (explain_texts cut it the same way and kept these references)
    hyp, (kept, _) = clip_text(hypothesis, "hypothesis").text, clip_references(refs)
    return MetricComparison(bleu, explain_chrf(hyp, kept), sentence_ter(hyp, kept))


class MetricComparer(_View):
    """A hypothesis and its references (one per line): BLEU, chrF and TER side by side, live."""

    summary = "Metric comparer: edit a hypothesis and its references to see BLEU, chrF and TER side by side."

    css_class = "bleu-metric-comparer"

    def __init__(self, hypothesis: str, references: Sequence[str], font_scale: float = 1.0):
        self.hypothesis = w.Textarea(hypothesis, description="hypothesis", rows=2, layout=_wide(), style=LABEL_STYLE)
        self.references = w.Textarea("\n".join(references), description="references (one per line)", rows=2,
                                     layout=_wide(), style=LABEL_STYLE)
        super().__init__([self.hypothesis, self.references], font_scale)
        self._watch(self.hypothesis, self.references)
        self.update()

    def _update(self) -> MetricComparison:
        result = metric_comparison(self.hypothesis.value, self.references.value)
        self.output.value = result.html
        return result


def metric_comparer(
    hypothesis: str = DEFAULT_HYPOTHESIS, references: Sequence[str] = DEFAULT_REFERENCES, *, font_scale: float = 1.0
) -> MetricComparer:
    """Edit a hypothesis and its references and watch BLEU, chrF and TER change together."""
    return MetricComparer(hypothesis, references, font_scale)
