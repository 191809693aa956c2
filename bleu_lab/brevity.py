"""Step 4 — the brevity penalty: precision alone rewards saying little, so short output is penalised.

    r  = the reference length closest to the hypothesis length c (ties go to the shorter reference)
    BP = 1                if c > r
    BP = exp(1 - r / c)   if 0 < c <= r
    BP = 0                if c == 0
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .validation import as_reference_list, check_length


def closest_ref_length(references: Sequence, hyp_len: int) -> int:
    """The length r of the reference closest in length to the hypothesis; on a tie, the shorter one.

    Same argument order as nltk's ``closest_ref_length``; sacrebleu makes the same choice.
    """
    refs = as_reference_list(references, "references")
    hyp_len = check_length(hyp_len, "hyp_len")
    return closest_length([len(ref) for ref in refs], hyp_len)


def closest_length(ref_lens: Sequence[int], hyp_len: int) -> int:
    """``min(ref_lens, key=lambda r: (abs(r - hyp_len), r))``: the closest length, ties to the shorter."""
    return min(ref_lens, key=lambda r: (abs(r - hyp_len), r))


def closest_lengths(ref_lens: np.ndarray, ref_segment: np.ndarray, hyp_lens: np.ndarray) -> np.ndarray:
    """``closest_length`` of every segment at once: ``ref_lens[j]`` is a reference of segment ``ref_segment[j]``,
    ``hyp_lens[i]`` the hypothesis length of segment i (every segment has a reference).

    The closest distance d = min |r - c| is found first; then r = c - d if some reference has that length (the
    shorter one wins a tie), else c + d.
    """
    hyp_of_ref = hyp_lens[ref_segment]
    distance = np.full(len(hyp_lens), np.iinfo(np.int64).max)
    np.minimum.at(distance, ref_segment, np.abs(ref_lens - hyp_of_ref))
    shorter = np.zeros(len(hyp_lens), dtype=bool)
    shorter[ref_segment[ref_lens == hyp_of_ref - distance[ref_segment]]] = True
    return np.where(shorter, hyp_lens - distance, hyp_lens + distance)


def brevity_penalty(closest_ref_len: int, hyp_len: int) -> float:
    """BP = 1 if c > r, else exp(1 - r/c), and 0 for an empty hypothesis (c = hyp_len, r = closest_ref_len).

    Same argument order as nltk's ``brevity_penalty``.
    """
    r = check_length(closest_ref_len, "closest_ref_len")
    c = check_length(hyp_len, "hyp_len")
    if c > r:
        return 1.0
    if c == 0:
        return 0.0
    return math.exp(1 - r / c)
