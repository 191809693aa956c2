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
from ..corpus_counting import CHUNK, corpus_matches
from ..ngrams import ngram_total
from ..statistics import BleuStats

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
    """``SegmentCounts`` of already-tokenized segments (``references[i]``: the token lists of segment i).

    The clipped matches of ``CHUNK`` segments at a time come from the array counting (``corpus_matches``), which
    equals ``statistics.clipped_matches`` segment by segment.
    """
    counts: list[SegmentCounts] = []
    segments = min(len(hypotheses), len(references))  # as zip() pairs them (a transposed layout may differ)
    hypotheses, references = hypotheses[:segments], references[:segments]
    for start in range(0, segments, CHUNK):
        hyps, refs = hypotheses[start : start + CHUNK], references[start : start + CHUNK]
        matches = corpus_matches(refs, hyps, max_order).tolist()
        counts += [SegmentCounts(len(hyp), tuple(map(len, seg)), tuple(m)) for hyp, seg, m in zip(hyps, refs, matches)]
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
