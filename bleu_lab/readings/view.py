"""The notebook view of ``why``: the readings as a table, beside the explain view of the segment where two readings
differ most (each explained with the tokens that reading sees)."""

from __future__ import annotations

from dataclasses import dataclass

from ..nltk_style import without_warnings
from ..reports.explain import Explanation, explain
from ..reports.templates import Markup, render
from .catalogue import NLTK_WEIGHTS, Reading, Workspace
from .why import WhyResult

ROWS = 25


@dataclass(frozen=True)
class _Row:
    """A row of the readings table."""

    score: float
    label: str
    compared: bool  # one of the two readings explained
    matches: bool  # reproduces the reported number


@dataclass(frozen=True)
class _Side:
    """One of the two explain views."""

    label: str
    explanation: str  # what the reading computes
    view: Markup  # its explain view


@dataclass(frozen=True)
class ReadingsView:
    """Two readings compared: their scores, the segment where they differ most, and its explain view under each."""

    result: WhyResult
    first: Reading
    second: Reading
    segment: int  # 0-based index of the segment where the two readings' sentence scores differ most
    gap: float  # that difference (0–100 points)
    first_explanation: Explanation
    second_explanation: Explanation

    @classmethod
    def build(cls, result: WhyResult, first: Reading | str | None = None,
              second: Reading | str | None = None) -> ReadingsView:
        """The view of ``result`` for two readings (default: the best match or nearest reading, and sacrebleu's
        default corpus BLEU); a reading may be given by its ``label()``."""
        a = _find(result, first) if first is not None else (result.matches or result.nearest)[0]
        b = _find(result, second) if second is not None else _find(result, "sacrebleu corpus_bleu")
        if b == a:
            b = next(r for r in result.nearest + tuple(result.readings) if r.view != a.view and r.score is not None)
        ws_a, ws_b = result.workspace_of(a), result.workspace_of(b)
        gaps = [
            (abs(_segment_score(a, sa) - _segment_score(b, sb)), i)
            for i, (sa, sb) in enumerate(zip(ws_a.segments(a.view, a.rule), ws_b.segments(b.view, b.rule)))
            if _segment_score(a, sa) is not None and _segment_score(b, sb) is not None
        ]
        gap, index = max(gaps, key=lambda g: (g[0], -g[1])) if gaps else (0.0, 0)
        return cls(result, a, b, index, gap, _explain(ws_a, a, index), _explain(ws_b, b, index))

    def _repr_html_(self) -> str:
        """The readings table beside the two explain views (templates/readings_view.html.j2)."""
        chosen = {self.first.label(), self.second.label()}
        matched = {r.label() for r in self.result.matches}
        ordered = sorted((r for r in self.result.readings if r.score is not None),
                         key=lambda r: abs(r.score - self.result.reported))[:ROWS]
        rows = [_Row(r.score, r.label(), r.label() in chosen, r.label() in matched) for r in ordered]
        # Each explain view is markup this package rendered from its own template (user text escaped there).
        sides = [_Side(reading.label(), reading.explanation, Markup(expl._repr_html_()))
                 for reading, expl in ((self.first, self.first_explanation), (self.second, self.second_explanation))]
        return render("readings_view.html.j2", verdict=self.result.verdict, reported=self.result.reported_text,
                      rows=rows, segment=self.segment + 1, gap=self.gap, sides=sides)

    def __repr__(self) -> str:
        return str(self)

    def __str__(self) -> str:
        return (f"{self.result.verdict}\nSegment {self.segment + 1} is where {self.first.label()} and "
                f"{self.second.label()} differ most ({self.gap:.1f} points).\n\n{self.first.label()}:\n"
                f"{self.first_explanation}\n\n{self.second.label()}:\n{self.second_explanation}")


def readings_view(result: WhyResult, first: Reading | str | None = None,
                  second: Reading | str | None = None) -> ReadingsView:
    """The readings table of ``result`` beside the explain view of the segment where two readings differ most
    (default: the best match or nearest reading, and sacrebleu's default corpus BLEU; a reading may be given by
    its ``label()``)."""
    return ReadingsView.build(result, first, second)


def _find(result: WhyResult, wanted: Reading | str) -> Reading:
    if isinstance(wanted, Reading):
        return wanted
    for r in result.readings:
        if r.label() == wanted:
            return r
    raise ValueError(f"no reading labelled {wanted!r}; labels look like {result.readings[0].label()!r} "
                     "(see result.readings)")


def _segment_score(reading: Reading, stats) -> float | None:
    value = reading.scorer(stats, stats) if reading.scorer else None
    return None if value is None else value * 100 / reading.native_scale


def _explain(ws: Workspace, reading: Reading, index: int) -> Explanation:
    """The explain view of segment ``index`` with the tokens ``reading`` sees (its smoothing where explain knows it)."""
    hyps, refs = ws.tokens(reading.view)
    index = min(index, len(hyps) - 1)
    settings = reading.settings
    if reading.library in ("nltk", "nltk < 3.4"):
        order = int(str(settings.get("weights", "BLEU-4"))[-1])
        smoothing = str(settings.get("smoothing", "method0")) if reading.library == "nltk" else "method0"
        return without_warnings(explain, refs[index], hyps[index], weights=NLTK_WEIGHTS[order], smoothing=smoothing)
    if reading.library == "sacrebleu":
        return explain(refs[index], hyps[index], smoothing=str(settings.get("smooth_method", "exp")),
                       effective_order=bool(settings.get("effective_order", reading.name.startswith("mean"))))
    return explain(refs[index], hyps[index], smoothing="none", effective_order=False)
