"""Step 5, at corpus scale — every segment's clipped n-gram matches in a few array operations.

``statistics.clipped_matches`` counts one segment at a time with Python sets; on a test set of thousands of
segments most of that time goes into building n-gram tuples. Here all texts of the corpus are laid end to end
in one integer array, and every n-gram becomes a number that names it *within its segment*:

    token number      the same string gets the same number
    1-gram number     (segment, token number)                          renumbered densely
    n-gram number     (number of the (n-1)-gram at p, token at p+n-1)  renumbered densely

Two positions get the same n-gram number exactly when they start the same n-gram in the same segment. Then
for every n-gram g of a segment

    Count_hyp(g)       how often g's number occurs in the hypothesis          (np.bincount)
    max_r Count_r(g)   the largest of those counts over the segment's references
    matches_n          sum over g of min(Count_hyp(g), max_r Count_r(g))         (step 2's clipping)

An (n+1)-gram can only match if the n-gram it starts with occurs in the hypothesis and in some reference, so
the other positions are dropped before the next order. The numbers equal ``clipped_matches`` segment by
segment (tests check it on generated corpora and on WMT21).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, count

import numpy as np


@dataclass(frozen=True)
class CorpusLayout:
    """All tokens of a corpus end to end: hypotheses first, then every segment's references."""

    token: np.ndarray  # the token number at each position (equal strings, equal numbers)
    segment: np.ndarray  # the segment each position belongs to
    slot: np.ndarray  # 0 for a hypothesis position, k for the k-th reference of its segment
    text_end: np.ndarray  # one past the last position of the text each position belongs to
    slots: int  # 1 + the most references any segment has
    segments: int


def lay_out(list_of_references: Sequence[Sequence[Sequence[str]]], hypotheses: Sequence[Sequence[str]]) -> CorpusLayout:
    """Number the tokens of already-tokenized hypotheses and their references (one reference list per hypothesis)."""
    segments = len(hypotheses)
    texts = [*hypotheses, *chain.from_iterable(list_of_references)]
    lengths = np.fromiter(map(len, texts), np.int64, len(texts))
    numbers: dict[str, int] = {}  # setdefault keeps the first number a string was given
    token = np.fromiter(map(numbers.setdefault, chain.from_iterable(texts), count()), np.int64, int(lengths.sum()))
    refs_per_segment = np.fromiter(map(len, list_of_references), np.int64, segments)
    each = np.arange(segments)
    text_segment = np.concatenate([each, np.repeat(each, refs_per_segment)])
    first_ref = np.repeat(np.cumsum(refs_per_segment) - refs_per_segment, refs_per_segment)
    text_slot = np.concatenate([np.zeros(segments, np.int64), np.arange(len(first_ref)) - first_ref + 1])
    return CorpusLayout(
        token=token,
        segment=np.repeat(text_segment, lengths),
        slot=np.repeat(text_slot, lengths),
        text_end=np.repeat(np.cumsum(lengths), lengths),
        slots=1 + int(refs_per_segment.max(initial=0)),
        segments=segments,
    )


def corpus_matches(
    list_of_references: Sequence[Sequence[Sequence[str]]], hypotheses: Sequence[Sequence[str]], max_order: int
) -> np.ndarray:
    """Clipped matches of every segment: an int64 array, row i = [matches_1 .. matches_max_order] of segment i."""
    layout = lay_out(list_of_references, hypotheses)
    matches = np.zeros((max_order, layout.segments), dtype=np.int64)
    size = len(layout.token)  # token numbers are < size, so (number, token) pairs fit in size * size
    start = np.arange(size)  # the positions where an n-gram of the current order starts
    code = layout.segment * size + layout.token
    for n in range(1, max_order + 1):
        if n > 1:
            fits = start + (n - 1) < layout.text_end[start]
            start, code = start[fits], code[fits] * size + layout.token[start[fits] + (n - 1)]
        if start.size == 0:
            break
        kinds, number = np.unique(code, return_inverse=True)
        clipped = _clipped_counts(number.ravel(), layout.slot[start], len(kinds), layout.slots)
        number_segment = np.empty(len(kinds), dtype=np.int64)
        number_segment[number] = layout.segment[start]
        matches[n - 1] = np.bincount(np.repeat(number_segment, clipped), minlength=layout.segments)
        shared = (clipped > 0)[number]  # only n-grams found on both sides can grow into matching (n+1)-grams
        start, code = start[shared], number[shared]
    return matches.T


def _clipped_counts(number: np.ndarray, slot: np.ndarray, kinds: int, slots: int) -> np.ndarray:
    """min(Count_hyp(g), max_r Count_r(g)) for every n-gram number g."""
    hypothesis = np.bincount(number[slot == 0], minlength=kinds)
    best_reference = np.zeros(kinds, dtype=np.int64)
    for k in range(1, slots):
        np.maximum(best_reference, np.bincount(number[slot == k], minlength=kinds), out=best_reference)
    return np.minimum(hypothesis, best_reference)
