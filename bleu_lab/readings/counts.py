"""Counting once for every reading: each segment's clipped matches and lengths, pooled under any length rule.

The readings of BLEU in the wild differ in *how text becomes tokens* and in *what they do with the counts*; the
counting itself (clipped n-gram matches, ``statistics.clipped_matches``) is the same everywhere. So each tokenization
("view") is counted once, keeping every reference length, and each reading pools the counts with its own rule for
the reference length r:

  closest        the reference length closest to c, ties to the shorter (nltk, sacrebleu, multi-bleu.perl)
  shortest       the shortest reference (TensorFlow NMT's compute_bleu, so Hugging Face evaluate's "bleu")
  first-closest  the closest, ties to the one listed first (torchmetrics' BLEUScore)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..brevity import closest_length
from ..ngrams import ngram_list, ngram_total
from ..statistics import BleuStats, clipped_matches, prepare_references

MAX_ORDER = 5  # nltk's methods 5 and 7 look one order beyond BLEU-4


@dataclass(frozen=True)
class SegmentCounts:
    """One segment, counted once: c, every reference length, clipped matches for orders 1..MAX_ORDER."""

    hyp_len: int
    ref_lens: tuple[int, ...]
    matches: tuple[int, ...]


def _first_closest(ref_lens: Sequence[int], hyp_len: int) -> int:
    diffs = [abs(hyp_len - r) for r in ref_lens]
    return ref_lens[diffs.index(min(diffs))]


REF_LENGTH_RULES: dict[str, Callable[[Sequence[int], int], int]] = {
    "closest": closest_length,
    "shortest": lambda ref_lens, hyp_len: min(ref_lens),
    "first-closest": _first_closest,
}


def count_segments(
    hypotheses: Sequence[Sequence[str]], references: Sequence[Sequence[Sequence[str]]], max_order: int = MAX_ORDER
) -> list[SegmentCounts]:
    """``SegmentCounts`` of already-tokenized segments (``references[i]``: the token lists of segment i)."""
    counts = []
    for hyp, refs in zip(hypotheses, references):
        prepared = prepare_references(refs, max_order)
        matches = tuple(
            clipped_matches(ngram_list(hyp, n), prepared, n) if n <= len(hyp) else 0 for n in range(1, max_order + 1)
        )
        counts.append(SegmentCounts(len(hyp), prepared.lengths, matches))
    return counts


def pool(counts: Sequence[SegmentCounts], rule: str = "closest", max_order: int = 4) -> BleuStats:
    """The ``BleuStats`` of ``counts`` (orders 1..max_order) with reference lengths chosen by ``rule``."""
    choose = REF_LENGTH_RULES[rule]
    hyp_total = ref_total = 0
    matches = [0] * max_order
    totals = [0] * max_order
    short = [0] * max_order
    for seg in counts:
        hyp_total += seg.hyp_len
        ref_total += choose(seg.ref_lens, seg.hyp_len)
        for i in range(max_order):
            matches[i] += seg.matches[i]
            total = ngram_total(seg.hyp_len, i + 1)
            totals[i] += total
            short[i] += total == 0
    return BleuStats(hyp_total, ref_total, tuple(matches), tuple(totals), tuple(short), len(counts))
