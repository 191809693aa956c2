"""Corpus-level widgets (lessons 8-9): one system's sentence scores, and two systems under a paired test.

Pure functions first: ``system_summary`` (a system's corpus BLEU, its sentence-BLEU histogram and its lowest
segments) and ``comparison_view_model`` (paired bootstrap or approximate randomization between two systems)
take the controls' values and return a frozen dataclass whose ``.html`` and ``.png()`` are what the widget
shows. Every number comes from the core (``corpus_score``, ``sentence_score``, ``paired_bootstrap``,
``paired_randomization``); bad choices become a friendly ``message``, never a traceback.

  corpus_explorer()   pick a system (and references): histogram of sentence BLEU, corpus BLEU vs the mean,
                      and the segments with the lowest sentence BLEU
  system_comparer()   pick two systems, the test, the number of samples and the seed: p-value, 95% CIs, plot
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache

import ipywidgets as w

from ...data import Corpus, load_corpus
from ...metrics.significance import BootstrapResult, RandomizationResult, paired_bootstrap, paired_randomization
from ...reports import plots
from ...reports.templates import Markup, macros
from ...sacrebleu_style import BleuScore, corpus_score, sentence_score
from .model import message_html
from .views import LABEL_STYLE, _View

MAX_LOWEST = 20  # segments listed at most
MAX_SAMPLES = 20_000  # resamples / trials at most (a few tenths of a second on the news corpus)
# The valid tests first; sacrebleu's bootstrap p-value last, labelled as sacrebleu's (lesson 9, section 7).
TESTS = {
    "randomization": "approximate randomization",
    "bootstrap": "paired bootstrap",
    "bootstrap-sacrebleu": "bootstrap, sacrebleu's p",
}


# ---------------------------------------------------------------------------------------------- one system


@dataclass(frozen=True)
class SegmentRow:
    """One segment of a system's output with its sentence BLEU (0–100); ``number`` counts lines from 1."""

    number: int
    score: float
    hypothesis: str
    references: tuple[str, ...]
    source: str = ""


@dataclass(frozen=True)
class SystemSummary:
    """A system on a test set: corpus BLEU, every sentence BLEU, and the lowest-scoring segments."""

    system: str
    reference_names: tuple[str, ...] = ()
    score: BleuScore | None = None
    sentence_scores: tuple[float, ...] = ()
    lowest: tuple[SegmentRow, ...] = ()
    message: str | None = None

    @property
    def mean(self) -> float | None:
        """The mean of the sentence BLEU scores (not corpus BLEU: that pools the statistics first)."""
        return sum(self.sentence_scores) / len(self.sentence_scores) if self.sentence_scores else None

    @property
    def zeros(self) -> int:
        """How many segments have sentence BLEU 0 (to two decimals)."""
        return sum(1 for s in self.sentence_scores if round(s, 2) == 0)

    @property
    def html(self) -> str:
        if self.score is None:
            return message_html(self.message)
        return str(_views().summary(self, " + ".join(self.reference_names)))

    def png(self) -> bytes:
        """The histogram of the sentence scores with corpus BLEU and the mean marked (empty plot for a message)."""
        title = f"Sentence BLEU of '{self.system}'" if self.score else "Sentence BLEU"

        def draw(ax):
            if self.score is not None:
                plots.score_histogram(ax, self.sentence_scores, self.score.score, self.mean)

        return plots.figure_png(title, "sentence BLEU (0–100)", "segments", draw)


def segments_with(corpus: Corpus, names: Sequence[str]) -> tuple[list[int], list[list[str]]]:
    """The segments (0-based) where every named reference file has a non-empty line, and their references."""
    streams = [corpus.reference_streams[n] for n in names]
    keep = [i for i in range(len(corpus)) if all(s[i].strip() for s in streams)]
    return keep, [[s[i] for s in streams] for i in keep]


def system_summary(
    corpus: Corpus, system: str, references: Sequence[str] = ("A",), lowest: int = 5
) -> SystemSummary:
    """``system``'s corpus BLEU and sentence BLEU on the segments that have all ``references`` (names of reference
    files, e.g. ('A',) or ('A', 'B')), and its ``lowest`` lowest-scoring segments (ties: first line first)."""
    references = tuple(references)
    if system not in corpus.systems:
        return SystemSummary(system, references,
                             message=f"There is no system {system!r}; choose one of {', '.join(corpus.systems)}.")
    unknown = [n for n in references if n not in corpus.reference_streams]
    if not references or unknown:
        return SystemSummary(system, references, message="Choose references among "
                             f"{', '.join(corpus.reference_streams)} (e.g. A, or A and B).")
    keep, refs = segments_with(corpus, references)
    if not keep:
        return SystemSummary(system, references, message="No segment has all of these references.")
    hyps = [corpus.systems[system][i] for i in keep]
    scores = tuple(sentence_score(h, r).score for h, r in zip(hyps, refs))
    order = sorted(range(len(keep)), key=lambda j: (scores[j], j))[: max(0, min(int(lowest), MAX_LOWEST))]
    rows = tuple(SegmentRow(keep[j] + 1, scores[j], hyps[j], tuple(refs[j]), corpus.sources[keep[j]]) for j in order)
    return SystemSummary(system, references, corpus_score(hyps, refs), scores, rows)


# ---------------------------------------------------------------------------------------------- two systems


@dataclass(frozen=True)
class ComparisonView:
    """A paired test of ``system`` against ``baseline`` (or the friendly message that replaces it)."""

    baseline: str
    system: str
    result: BootstrapResult | RandomizationResult | None = None
    message: str | None = None

    @property
    def p_value(self) -> float | None:
        return None if self.result is None else self.result.p_value

    @property
    def reading(self) -> str:
        """The p-value in words: what it says and what it does not."""
        r = self.result
        if r is None:
            return self.message or ""
        gap = f"{r.difference:+.2f} BLEU ({self.system} - {self.baseline})"
        if r.difference == 0:
            return f"The two systems score the same ({r.system.score:.2f}): there is no gap to test."
        if r.significant():
            return (f"p = {r.p_value:.4f} < 0.05: a gap of {gap} would be rare if the systems were equally good. "
                    "Significant — which says nothing about whether the gap matters to a reader.")
        return (f"p = {r.p_value:.4f} ≥ 0.05: a gap of {gap} could well arise between equally good systems on a "
                "test set like this one. Not significant — which does not mean the systems are equal.")

    @property
    def html(self) -> str:
        if self.result is None:
            return message_html(self.message)
        result = Markup(self.result._repr_html_())  # the test's own view (significance.py)
        return str(_views().comparison(self.result.p_value, result, self.reading))

    def png(self) -> bytes:
        """Bootstrap: both systems' resampled scores with their 95% CIs. Randomization: the shuffled gaps."""
        r = self.result
        if isinstance(r, BootstrapResult):
            return plots.figure_png(
                f"Bootstrap: {r.n_samples} resampled test sets", "corpus BLEU of a resampled test set", "resamples",
                lambda ax: plots.bootstrap_distributions(
                    ax, {self.baseline: r.baseline_samples, self.system: r.system_samples},
                    {self.baseline: r.baseline_interval, self.system: r.system_interval}),
            )
        if isinstance(r, RandomizationResult):
            return plots.figure_png(
                f"Randomization: {r.n_trials} shuffles", "|BLEU gap| between the shuffled systems", "trials",
                lambda ax: plots.randomization_null(ax, r.trial_differences, r.difference),
            )
        return plots.figure_png("Paired test", "BLEU", "count", lambda ax: None)


def comparison_view_model(
    systems: Mapping[str, Sequence[str]],
    references: Sequence[Sequence[str]],
    baseline: str,
    system: str,
    test: str = "randomization",
    n: int = 1000,
    seed: int = 12345,
) -> ComparisonView:
    """Run ``test`` (a key of ``TESTS``) with ``n`` resamples/trials and ``seed``: ``system`` vs ``baseline`` (names
    in ``systems``), ``references[i]`` the references of segment i. 'bootstrap' reports the shift-to-null p-value,
    'bootstrap-sacrebleu' the p-value sacrebleu prints."""
    for name in (baseline, system):
        if name not in systems:
            return ComparisonView(baseline, system, message=f"There is no system {name!r}; choose among "
                                  f"{', '.join(systems)}.")
    if baseline == system:
        return ComparisonView(baseline, system, message="Choose two different systems: a system compared with "
                              "itself has no gap to test.")
    if test not in TESTS:
        return ComparisonView(baseline, system, message=f"Choose a test: {', '.join(TESTS)}.")
    try:
        n = max(1, min(int(n), MAX_SAMPLES))
        seed = int(seed)
    except (TypeError, ValueError):
        return ComparisonView(baseline, system, message="The number of samples and the seed must be whole numbers.")
    if seed < 0:
        return ComparisonView(baseline, system, message="The seed must be 0 or more.")
    if test == "randomization":
        run, options = paired_randomization, {"n_trials": n}
    else:
        run, options = paired_bootstrap, {"n_samples": n, "method": "shift" if test == "bootstrap" else "sacrebleu"}
    try:
        result = run(systems[baseline], systems[system], references, seed=seed, **options)
    except (TypeError, ValueError) as err:
        return ComparisonView(baseline, system, message=f"These systems cannot be compared: {err}")
    return ComparisonView(baseline, system, result)


# ---------------------------------------------------------------------------------------------- views


class CorpusExplorer(_View):
    """Pick a system (and references): its sentence-BLEU histogram, corpus BLEU vs the mean, its lowest segments."""

    summary = (
        "Corpus explorer: pick a system and references to see its corpus BLEU, the histogram of its sentence BLEU "
        "and its lowest segments."
    )

    css_class = "bleu-corpus-explorer"

    def __init__(self, corpus: Corpus, system: str, references: Sequence[str] = ("A",), lowest: int = 5):
        self.corpus = corpus
        names = list(corpus.reference_streams)
        options = [(f"{n} only", (n,)) for n in names]
        if len(names) > 1:
            options.append((" and ".join(names) + " (segments that have all)", tuple(names)))
        references = tuple(references)
        if references not in [value for _, value in options]:
            options.append((" and ".join(references), references))
        self.system = w.Dropdown(options=list(corpus.systems) or [system], value=system if system in corpus.systems
                                 else next(iter(corpus.systems), system), description="system", style=LABEL_STYLE)
        self.references = w.Dropdown(options=options, value=references, description="references", style=LABEL_STYLE,
                                     layout=w.Layout(width="auto"))
        self.lowest = w.IntSlider(max(0, min(int(lowest), MAX_LOWEST)), min=0, max=MAX_LOWEST,
                                  description="lowest segments listed", style=LABEL_STYLE)
        self.image = w.Image(format="png", layout=w.Layout(width="560px"))
        self._cache: dict[tuple, tuple[SystemSummary, bytes]] = {}
        super().__init__([w.HBox([self.system, self.references], layout=w.Layout(flex_flow="row wrap")),
                          self.lowest, self.image])
        self._watch(self.system, self.references, self.lowest)
        self.update()

    def _update(self) -> SystemSummary:
        key = (self.system.value, self.references.value)
        if key not in self._cache:  # the histogram does not depend on how many rows are listed
            summary = system_summary(self.corpus, *key, lowest=MAX_LOWEST)
            self._cache[key] = (summary, summary.png())
        summary, png = self._cache[key]
        summary = replace(summary, lowest=summary.lowest[: self.lowest.value])
        self.output.value = summary.html
        self.image.value = png
        return summary


class SystemComparer(_View):
    """Pick two systems, a paired test, the number of samples and the seed: p-value, CIs and a plot."""

    summary = (
        "System comparer: pick two systems and a paired significance test to see the p-value, the 95% intervals "
        "and a plot."
    )

    css_class = "bleu-system-comparer"

    def __init__(self, systems: Mapping[str, Sequence[str]], references: Sequence[Sequence[str]], baseline: str,
                 system: str, test: str = "randomization", n: int = 1000, seed: int = 12345):
        self.systems, self.reference_lists = dict(systems), references
        names = list(self.systems)
        self.baseline = w.Dropdown(options=names, value=baseline if baseline in names else names[0],
                                   description="baseline", style=LABEL_STYLE)
        self.system = w.Dropdown(options=names, value=system if system in names else names[-1],
                                 description="system", style=LABEL_STYLE)
        self.test = w.ToggleButtons(options=[(label, key) for key, label in TESTS.items()],
                                    value=test if test in TESTS else "randomization", description="test",
                                    style={**LABEL_STYLE, "button_width": "auto"})
        self.n = w.IntSlider(max(100, min(int(n), MAX_SAMPLES)), min=100, max=MAX_SAMPLES, step=100,
                             description="samples / trials", style=LABEL_STYLE, continuous_update=False,
                             layout=w.Layout(width="32em"))
        self.seed = w.BoundedIntText(int(seed), min=0, max=2**32 - 1, description="seed", style=LABEL_STYLE,
                                     layout=w.Layout(width="14em"))
        self.image = w.Image(format="png", layout=w.Layout(width="560px"))
        super().__init__([w.HBox([self.baseline, self.system], layout=w.Layout(flex_flow="row wrap")), self.test,
                          w.HBox([self.n, self.seed], layout=w.Layout(flex_flow="row wrap")), self.image])
        self._watch(self.baseline, self.system, self.test, self.n, self.seed)
        self.update()

    def _update(self) -> ComparisonView:
        view = comparison_view_model(self.systems, self.reference_lists, self.baseline.value, self.system.value,
                                     self.test.value, self.n.value, self.seed.value)
        self.output.value = view.html
        self.image.value = view.png()
        return view


# ---------------------------------------------------------------------------------------------- front doors


def corpus_explorer(
    system: str = "strong", *, corpus: Corpus | None = None, references: Sequence[str] = ("A",), lowest: int = 5
) -> CorpusExplorer:
    """Pick a system of ``corpus`` (default: the shipped news corpus): its sentence-BLEU histogram with corpus BLEU
    and the mean marked, and its ``lowest`` lowest-scoring segments."""
    return CorpusExplorer(load_corpus("news") if corpus is None else corpus, system, references, lowest)


def system_comparer(
    baseline: str = "degraded",
    system: str = "fluent",
    *,
    systems: Mapping[str, Sequence[str]] | None = None,
    references: Sequence[Sequence[str]] | None = None,
    test: str = "randomization",
    n: int = 1000,
    seed: int = 12345,
) -> SystemComparer:
    """Compare two systems with a paired test. ``systems`` (name -> hypotheses) and ``references`` (per segment)
    default to the news corpus's systems and reference A."""
    if systems is None or references is None:
        corpus = load_corpus("news")
        systems = corpus.systems if systems is None else systems
        references = corpus.references_for("A") if references is None else references
    return SystemComparer(systems, references, baseline, system, test, n, seed)


@cache
def _views():
    """The macros of templates/corpus_views.html.j2 (summary, comparison)."""
    return macros("corpus_views.html.j2")
