"""Scorers: the numbers of a comparison, each computed by bleu_lab's core from per-segment statistics.

- BLEU of any set of segments = ``score_from_stats`` of the summed statistics rows (``significance.stats_matrix``
  layout), so a bucket's BLEU is sacrebleu's corpus BLEU of those segments; sentence BLEU is the same with
  ``effective_order=True`` (sacrebleu's ``sentence_score``).
- Bucket intervals: the 95% percentile interval of the bucket's BLEU over bootstrap resamples of its segments
  (``significance.resampled_sums`` and ``percentile_interval``).
- Word accuracy by frequency (compare-mt's ``WordBucketer.calc_statistics``): in each segment a word type w with
  o_w copies in the output and r_w in the reference matches min(o_w, r_w) times; summed over the words of a
  frequency bucket b:  P_b = matches_b / output_b,  R_b = matches_b / reference_b,  F_b = 2 P_b R_b / (P_b + R_b),
  and all three are 0 when the bucket has no match.
- Salient n-grams (compare-mt's ``stat_utils.extract_salient_features``): with c_1(g), c_2(g) the counts of n-gram g
  matched (or over-/under-produced) by systems 1 and 2,  s(g) = (c_1(g) + alpha) / (c_1(g) + c_2(g) + 2 alpha);
  s near 1: system 1's n-gram, near 0: system 2's. ``alpha`` smooths rare n-grams towards 1/2.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..metrics.chrf import ChrfOptions, ChrfScore, f_score
from ..metrics.significance import percentile_interval, resampled_sums, row_to_stats, scores_from_rows
from ..ngrams import ngram_iter
from ..sacrebleu_style import BleuScore, ScoreOptions, score_from_stats
from .bucketers import Bucketer

COMPARE_TYPES = ("match", "over", "under")


# --- BLEU of a set of segments --------------------------------------------------------------------------------------


def rows_score(rows: np.ndarray, options: ScoreOptions, nrefs: int | str) -> BleuScore:
    """sacrebleu's corpus BLEU of the segments whose statistics rows are ``rows``."""
    return score_from_stats(row_to_stats(rows.sum(0), len(rows)), options, nrefs)


def sentence_scores(rows: np.ndarray, options: ScoreOptions) -> np.ndarray:
    """Sentence BLEU (0-100) of every row, as sacrebleu's ``sentence_score`` (effective order)."""
    sentence = ScoreOptions(options.tokenize, options.lowercase, options.smooth_method, options.smooth_value,
                            True, options.max_ngram_order)
    return scores_from_rows(rows, sentence)


@dataclass(frozen=True)
class BucketScore:
    """One system's segments in one bucket: how many, their corpus BLEU and its 95% bootstrap interval."""

    count: int
    bleu: float  # nan for an empty bucket (JSON: null)
    interval: tuple[float, float]  # (nan, nan) for an empty bucket


def bucket_scores(
    rows: np.ndarray, buckets: np.ndarray, n_buckets: int, options: ScoreOptions, n_samples: int, seed: int | None
) -> list[BucketScore]:
    """``BucketScore`` of each bucket; ``buckets[i]`` is the bucket of segment i.

    Each bucket's interval resamples that bucket's segments with replacement (as many as it has), ``n_samples``
    times, from ``numpy.random.default_rng(seed)``.
    """
    rng = np.random.default_rng(seed)
    result = []
    for b in range(n_buckets):
        members = rows[buckets == b]
        if not len(members):
            result.append(BucketScore(0, float("nan"), (float("nan"), float("nan"))))
            continue
        bleu = float(scores_from_rows(members.sum(0, keepdims=True), options)[0])
        idxs = rng.integers(len(members), size=(n_samples, len(members)))
        samples = scores_from_rows(resampled_sums(members, idxs), options)
        result.append(BucketScore(len(members), bleu, percentile_interval(samples)))
    return result


def bucket_counts(buckets: np.ndarray, n_buckets: int) -> list[BucketScore]:
    """How many segments fall in each bucket, with no BLEU (nan) and no interval: for buckets defined by the score."""
    counts = np.bincount(buckets, minlength=n_buckets)
    return [BucketScore(int(k), float("nan"), (float("nan"), float("nan"))) for k in counts]


def bucket_indices(values: Sequence[float], bucketer: Bucketer) -> np.ndarray:
    """The bucket of every value."""
    return np.fromiter((bucketer.bucket(v) for v in values), dtype=np.int64, count=len(values))


# --- chrF of a set of segments ---------------------------------------------------------------------------------------


def chrf_from_rows(rows: np.ndarray, options: ChrfOptions, nrefs: int | str) -> ChrfScore:
    """The corpus chrF of the segments whose statistics rows are ``rows`` (their sum, as ``corpus_statistics``)."""
    total = tuple(int(v) for v in rows.sum(0))
    return ChrfScore(f_score(total, options), total, options, options.signature(nrefs))


# --- word accuracy by frequency -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class WordCounts:
    """Per frequency bucket: matched words, reference words and output words of one system."""

    matches: tuple[int, ...]
    reference: tuple[int, ...]
    output: tuple[int, ...]

    def precision(self, b: int) -> float:
        return self.matches[b] / self.output[b] if self.matches[b] else 0.0

    def recall(self, b: int) -> float:
        return self.matches[b] / self.reference[b] if self.matches[b] else 0.0

    def fmeasure(self, b: int) -> float:
        p, r = self.precision(b), self.recall(b)
        return 2 * p * r / (p + r) if self.matches[b] else 0.0


def word_counts(
    references: Sequence[Sequence[str]], outputs: Sequence[Sequence[str]], bucket_of: Callable[[str], int],
    n_buckets: int, reference_counts: Sequence[Counter] | None = None,
) -> WordCounts:
    """Matched, reference and output word counts per bucket, over line-aligned token lists (one reference each).

    ``reference_counts``: each reference's ``Counter`` of words, when several systems share the references."""
    matches, ref_total, out_total = [0] * n_buckets, [0] * n_buckets, [0] * n_buckets
    if reference_counts is None:
        reference_counts = [Counter(ref) for ref in references]
    for ref_counts, out in zip(reference_counts, outputs):
        for word, count in Counter(out).items():
            b = bucket_of(word)
            out_total[b] += count
            matches[b] += min(count, ref_counts.get(word, 0))
        for word, count in ref_counts.items():
            ref_total[bucket_of(word)] += count
    return WordCounts(tuple(matches), tuple(ref_total), tuple(out_total))


# --- salient n-grams --------------------------------------------------------------------------------------------------


def reference_ngram_counts(
    references: Sequence[Sequence[str]], min_order: int = 1, max_order: int = 4
) -> list[list[Counter]]:
    """Per segment, per order min_order..max_order: the reference's n-gram counts (shared by every system)."""
    return [[Counter(_tuples(ref, n)) for n in range(min_order, max_order + 1)] for ref in references]


def ngram_counts(
    references: Sequence[Sequence[str]], outputs: Sequence[Sequence[str]], min_order: int = 1, max_order: int = 4,
    reference_counts: Sequence[Sequence[Counter]] | None = None, kinds: Sequence[str] = COMPARE_TYPES,
) -> dict[str, Counter]:
    """Per n-gram (orders min_order..max_order), summed over segments: ``match`` = min(output count, reference
    count), ``over`` = output count - match, ``under`` = reference count - match (compare-mt's ``compare_ngrams``).
    ``reference_counts``: ``reference_ngram_counts(references, min_order, max_order)``, when systems share them;
    ``kinds``: which of the three to count (a report needs one)."""
    unknown = set(kinds) - set(COMPARE_TYPES)
    if unknown:
        raise ValueError(f"kinds must be among {', '.join(COMPARE_TYPES)}, got {sorted(unknown)!r}")
    match: Counter = Counter()
    over: Counter = Counter()
    under: Counter = Counter()
    need_over, need_under = "over" in kinds, "under" in kinds
    if reference_counts is None:
        reference_counts = reference_ngram_counts(references, min_order, max_order)
    for ref_orders, out in zip(reference_counts, outputs):
        for ref_counts, n in zip(ref_orders, range(min_order, max_order + 1)):
            out_counts = Counter(_tuples(out, n))
            for g, count in out_counts.items():
                m = min(count, ref_counts.get(g, 0))
                if m:
                    match[g] += m
                if need_over and count > m:
                    over[g] += count - m
            if need_under:
                for g, count in ref_counts.items():
                    left = count - out_counts.get(g, 0)
                    if left > 0:
                        under[g] += left
    return {kind: counts for kind, counts in (("match", match), ("over", over), ("under", under)) if kind in kinds}


def _tuples(tokens: Sequence[str], n: int):
    """The n-grams as tuples, unigrams included (``ngram_iter`` gives bare tokens for n = 1)."""
    return zip(tokens) if n == 1 else ngram_iter(tokens, n)


@dataclass(frozen=True)
class SalientNgram:
    """An n-gram whose count differs between two systems: s = (c1 + alpha) / (c1 + c2 + 2 alpha)."""

    ngram: tuple[str, ...]
    score: float
    count1: int
    count2: int

    @property
    def text(self) -> str:
        return " ".join(self.ngram)


def salient_ngrams(counts1: Counter, counts2: Counter, alpha: float = 1.0, top: int = 50) -> tuple[list, list]:
    """The ``top`` n-grams most typical of system 1 (highest s) and of system 2 (lowest s).

    Ties are broken by the larger count, then by the n-gram's text, so the lists are reproducible (compare-mt
    sorts a Python set, whose order among equal scores changes from run to run).
    """
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not alpha > 0:
        raise ValueError(f"alpha must be a number > 0 (compare-mt's default is 1.0), got {alpha!r}")
    scored = [
        ((c1 + alpha) / (c1 + c2 + 2 * alpha), c1, c2, g)
        for g in counts1.keys() | counts2.keys()
        for c1, c2 in ((counts1.get(g, 0), counts2.get(g, 0)),)
    ]
    first = heapq.nsmallest(top, scored, key=lambda s: (-s[0], -s[1], s[3]))
    second = heapq.nsmallest(top, scored, key=lambda s: (s[0], -s[2], s[3]))
    return [SalientNgram(g, s, c1, c2) for s, c1, c2, g in first], [
        SalientNgram(g, s, c1, c2) for s, c1, c2, g in second]
