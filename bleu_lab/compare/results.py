"""What a comparison found, as plain frozen dataclasses: the data the reporters read.

``comparison.compare_systems`` computes them; ``reporters`` turn them into JSON, CSV, LaTeX, text, HTML and figures.
Imports point one way: comparison -> reporters -> results (this module imports neither).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..metrics.chrf import ChrfScore
from ..metrics.segment_scores import SegmentScores
from ..metrics.significance import BootstrapResult, RandomizationResult
from ..metrics.ter import TerScore
from ..sacrebleu_style import BleuScore, ScoreOptions
from .bucketers import Bucketer
from .metrics import Disagreement, MetricAgreement, MetricResult
from .people import PeopleTable
from .scorers import BucketScore, SalientNgram, WordCounts


@dataclass(frozen=True)
class SystemScores:
    """One system's corpus scores. ``length_ratio`` = c / r, BLEU's (hypothesis / closest-reference length)."""

    name: str
    bleu: BleuScore
    chrf: ChrfScore | None  # None when compare_systems(..., chrf=False)
    ter: TerScore | None = None  # corpus TER (lower is better); None unless compare_systems(..., ter=True)

    @property
    def length_ratio(self) -> float:
        return self.bleu.ratio


@dataclass(frozen=True)
class PairTest:
    """A system against another (``baseline``): the BLEU gap, approximate randomization and the paired bootstrap."""

    system: str
    baseline: str
    randomization: RandomizationResult
    bootstrap: BootstrapResult  # method="shift": two-sided p-value of the signed gaps shifted to the null
    randomization_holm: float | None = None  # Holm's adjusted p over every pair of the comparison (None: not set)
    bootstrap_holm: float | None = None
    chrf_randomization: RandomizationResult | None = None  # the same two tests on chrF (None without chrF)
    chrf_bootstrap: BootstrapResult | None = None
    chrf_randomization_holm: float | None = None  # Holm's adjusted p over every pair's chrF tests
    chrf_bootstrap_holm: float | None = None
    ter_randomization: RandomizationResult | None = None  # the same two tests on corpus TER (None without ter=True)
    ter_bootstrap: BootstrapResult | None = None
    ter_randomization_holm: float | None = None  # Holm's adjusted p over every pair's TER tests
    ter_bootstrap_holm: float | None = None

    @property
    def difference(self) -> float:
        return self.bootstrap.difference

    @property
    def ter_difference(self) -> float | None:
        """TER of ``system`` - TER of ``baseline`` (negative: the system needs fewer edits, i.e. is better)."""
        return None if self.ter_bootstrap is None else self.ter_bootstrap.difference

    def ter_better(self, adjusted: bool = True, alpha: float = 0.05) -> str | None:
        """The system with the lower TER when the bootstrap's p (Holm-adjusted when ``adjusted``) is below ``alpha``
        and the TERs differ; None otherwise (and without TER)."""
        if self.ter_bootstrap is None:
            return None
        p = self.ter_bootstrap_holm if adjusted else self.ter_bootstrap.p_value
        if p is None or self.ter_bootstrap.difference == 0 or not p < alpha:
            return None
        return self.system if self.ter_bootstrap.difference < 0 else self.baseline


@dataclass(frozen=True)
class BucketTable:
    """Segments bucketed one way: per bucket and system, the count, the BLEU and its 95% bootstrap interval."""

    bucketer: Bucketer
    scores: dict[str, list[BucketScore]]  # system name -> one BucketScore per bucket
    counts_only: bool = False  # the buckets are defined by the score itself: counts, no BLEU or interval

    @property
    def labels(self) -> list[str]:
        return self.bucketer.labels


@dataclass(frozen=True)
class WordExample:
    """A segment whose first reference holds words of a frequency bucket, and which of them each output has."""

    segment: int  # 0-based
    words: tuple[str, ...]  # the bucket's words in the first reference (tokens, in order, each once)
    found: dict[str, tuple[str, ...]]  # system -> those of ``words`` its output contains


@dataclass(frozen=True)
class WordAccuracy:
    """Word precision, recall and F-measure per reference-frequency bucket, per system."""

    bucketer: Bucketer
    counts: dict[str, WordCounts]
    frequency_source: str  # "reference" or the training-frequency file
    examples: dict[int, list[WordExample]] = field(default_factory=dict)  # bucket -> a few segments with its words

    @property
    def labels(self) -> list[str]:
        return self.bucketer.labels


@dataclass(frozen=True)
class SalientPair:
    """The n-grams most typical of ``system`` (score near 1) and of ``baseline`` (near 0), for one statistic."""

    system: str
    baseline: str
    compare_type: str
    alpha: float
    system_ngrams: list[SalientNgram]
    baseline_ngrams: list[SalientNgram]


@dataclass(frozen=True)
class Example:
    """A segment where ``system`` and ``baseline`` differ most by sentence BLEU (gap = system - baseline)."""

    segment: int  # 0-based
    system: str
    baseline: str
    gap: float


@dataclass(frozen=True)
class ComparisonData:
    """Everything ``compare_systems`` found, as data (``comparison.Comparison`` adds the exports and the views)."""

    names: tuple[str, ...]
    baseline: str
    options: ScoreOptions
    signature: str
    chrf_signature: str  # "" without chrF
    systems: tuple[SystemScores, ...]
    pairs: tuple[PairTest, ...]  # each system against the baseline
    all_pairs: tuple[PairTest, ...]  # every pair of systems (those of ``pairs`` among them)
    word_accuracy: WordAccuracy
    length_buckets: BucketTable
    length_difference_buckets: BucketTable
    sentence_bleu_buckets: BucketTable
    salient_ngrams: tuple[SalientPair, ...]
    examples: tuple[Example, ...]
    outputs: dict[str, list[str]] = field(repr=False)
    references: list[list[str]] = field(repr=False)
    sources: list[str] | None = field(repr=False)
    sentence_bleu: dict[str, np.ndarray] = field(repr=False)  # per system, one sacrebleu sentence BLEU per segment
    reference_lengths: list[int] = field(repr=False)  # tokens of each segment's first reference
    bucket_of: dict[str, dict[str, np.ndarray]] = field(repr=False)  # bucketer name -> system -> each segment's
    settings: dict = field(repr=False, default_factory=dict)
    clusters: dict[str, list[list[str]]] = field(default_factory=dict)  # test ("AR", "BS") -> WMT-style clusters
    length_difference_merged: BucketTable | None = None  # the length-difference figure's 7 buckets
    metrics: tuple[MetricResult, ...] = ()  # each --scores metric: system means, every pair tested
    agreement: tuple[MetricAgreement, ...] = ()  # every pair of metrics (BLEU, chrF, each --scores), when scores given
    disagreements: tuple[Disagreement, ...] = ()  # the segments BLEU and each --scores metric rank furthest apart
    metric_scores: dict[str, SegmentScores] = field(repr=False, default_factory=dict)  # the --scores as given
    ter_signature: str = ""  # sacrebleu's TER signature; "" without ter=True
    people: tuple[PeopleTable, ...] = ()  # each --scores metric of people's judgements against every metric

    def __len__(self) -> int:
        return len(self.references)

    def system(self, name: str) -> SystemScores:
        """The scores of the system called ``name``."""
        for s in self.systems:
            if s.name == name:
                return s
        raise KeyError(f"no system called {name!r}; the systems are {', '.join(self.names)}")
