"""Step 5, at corpus scale — every segment's clipped n-gram matches in a few array operations.

``statistics.clipped_matches`` counts one segment at a time with Python sets; on a test set of thousands of
segments most of that time goes into building n-gram tuples. Here all texts of the corpus are laid end to end
in one integer array, and every n-gram becomes a number that names it *within its segment*:

    token number      the same string gets the same number (a character: its code point); raw text tokenized
                      with 13a is cut straight into these numbers (``tokenization.number_13a_tokens``)
    1-gram number     (segment, token number)                          renumbered densely
    n-gram number     (number of the (n-1)-gram at p, token at p+n-1)  renumbered densely

Two positions get the same n-gram number exactly when they start the same n-gram in the same segment. Then
for every n-gram g of a segment

    Count_hyp(g)       how often g's number occurs in the hypothesis          (np.bincount)
    max_r Count_r(g)   the largest of those counts over the segment's references
    matches_n          sum over g of min(Count_hyp(g), max_r Count_r(g))         (step 2's clipping)

An (n+1)-gram can only match if the n-gram it starts with and each of its tokens occur in the hypothesis and in
some reference, so the other positions are dropped before the next order. The numbers equal ``clipped_matches``
segment by segment (tests check it on generated corpora and on WMT21). chrF (``chrf.py``) counts its character
and word n-grams with the same numbers, comparing the hypothesis with each reference in turn.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import chain, count

import numpy as np

CHUNK = 4096  # segments the corpus scorers lay out at once: fast, and a bounded amount of input in memory at a time


@dataclass(frozen=True)
class NumberedTexts:
    """Texts as numbers, end to end: equal symbols (tokens, or a string's characters) get equal numbers."""

    symbol: np.ndarray  # the symbol number at each position, all texts end to end
    lengths: np.ndarray  # how many symbols each text has


def number_texts(texts: Sequence[Sequence[str] | str]) -> NumberedTexts:
    """Number the symbols of ``texts``: code points for strings, else the order a token was first seen."""
    lengths = np.fromiter(map(len, texts), np.int64, len(texts))
    if all(type(text) is str for text in texts):
        encoded = "".join(texts).encode("utf-32-le", "surrogatepass")  # lone surrogates are characters too
        return NumberedTexts(np.frombuffer(encoded, dtype="<u4").astype(np.int64), lengths)
    numbers: dict[str, int] = {}  # setdefault keeps the first number a token was given
    symbol = np.fromiter(map(numbers.setdefault, chain.from_iterable(texts), count()), np.int64, int(lengths.sum()))
    return NumberedTexts(symbol, lengths)


@dataclass(frozen=True)
class CorpusLayout:
    """All symbols of a corpus end to end: hypotheses first, then every segment's references.

    A text is a list of tokens or a string (then its symbols are its characters).
    """

    symbol: np.ndarray  # the symbol number at each position (equal strings, equal numbers)
    segment: np.ndarray  # the segment each position belongs to
    slot: np.ndarray  # 0 for a hypothesis position, k for the k-th reference of its segment
    text_end: np.ndarray  # one past the last position of the text each position belongs to
    slots: int  # 1 + the most references any segment has
    segments: int
    lengths: np.ndarray  # the length of each text: hypotheses first, then every segment's references
    text_segment: np.ndarray  # the segment of each text


@dataclass(frozen=True)
class OrderCounts:
    """The n-grams of one order: ``counts[k, g]`` = how often n-gram number g occurs in slot k (0: hypothesis)."""

    counts: np.ndarray  # shape (slots, n-gram numbers)
    start: np.ndarray  # the positions counted
    number: np.ndarray  # the n-gram number of each position counted
    position_segment: np.ndarray  # the segment of every position of the layout

    @cached_property
    def segment(self) -> np.ndarray:
        """The segment of each n-gram number."""
        segment = np.empty(self.counts.shape[1], dtype=np.int64)
        segment[self.number] = self.position_segment[self.start]
        return segment

    def clipped(self) -> np.ndarray:
        """min(Count_hyp(g), max_r Count_r(g)) for every n-gram number g (step 2's clipping)."""
        return np.minimum(self.counts[0], self.counts[1:].max(axis=0, initial=0))

    def per_segment(self, values: np.ndarray, segments: int) -> np.ndarray:
        """Sum a value per n-gram number over each segment (int64; sums of counts are exact in float64)."""
        return np.bincount(self.segment, weights=values, minlength=segments).astype(np.int64)


def lay_out(
    list_of_references: Sequence[Sequence[Sequence[str] | str]], hypotheses: Sequence[Sequence[str] | str]
) -> CorpusLayout:
    """Number the symbols of hypotheses and their references (one reference list per hypothesis)."""
    texts = number_texts([*hypotheses, *chain.from_iterable(list_of_references)])
    return lay_out_numbered(texts, list(map(len, list_of_references)))


def lay_out_numbered(texts: NumberedTexts, refs_per_segment: Sequence[int]) -> CorpusLayout:
    """The layout of numbered texts: every segment's hypothesis, then segment by segment its references.

    ``refs_per_segment[i]`` is how many references segment i has.
    """
    segments = len(refs_per_segment)
    refs = np.asarray(refs_per_segment, dtype=np.int64)
    each = np.arange(segments)
    text_segment = np.concatenate([each, np.repeat(each, refs)])
    first_ref = np.repeat(np.cumsum(refs) - refs, refs)
    text_slot = np.concatenate([np.zeros(segments, np.int64), np.arange(len(first_ref)) - first_ref + 1])
    lengths = texts.lengths
    return CorpusLayout(
        symbol=texts.symbol,
        segment=np.repeat(text_segment, lengths),
        slot=np.repeat(text_slot, lengths),
        text_end=np.repeat(np.cumsum(lengths), lengths),
        slots=1 + int(refs.max(initial=0)),
        segments=segments,
        lengths=lengths,
        text_segment=text_segment,
    )


def ngram_counts(layout: CorpusLayout, max_order: int) -> Iterator[OrderCounts]:
    """The counts of each order 1, 2, ... max_order in turn (stopping early when no n-gram is left to match).

    Only n-grams that occur in the hypothesis and in some reference can match, and an n-gram can only do so if
    the (n-1)-gram it starts with and each of its tokens do: so after order 1, and again before each next order,
    the positions where no such n-gram starts are dropped. The counts of an order cover every n-gram that can
    match (the n-grams dropped would have clipped counts of 0).
    """
    base = int(layout.symbol.max(initial=0)) + 1  # symbol numbers are < base
    start = np.arange(len(layout.symbol))  # the positions where an n-gram of the current order starts
    code = layout.segment * base + layout.symbol
    continues = np.arange(1, len(start) + 1) < layout.text_end  # position p + 1 holds a token of p's text
    for n in range(1, max_order + 1):
        if n > 1:
            fits = continues[start + (n - 2)]  # the n-gram's last token: in the same text, and found on both sides
            start = start[fits]
            code = code[fits] * base + layout.symbol[start + (n - 1)]  # n-gram numbers < positions: fits int64
        if start.size == 0:
            return
        kinds, number = np.unique(code, return_inverse=True)
        number = number.ravel()
        counts = np.bincount(layout.slot[start] * len(kinds) + number, minlength=layout.slots * len(kinds))
        counts = counts.reshape(layout.slots, len(kinds))
        yield OrderCounts(counts, start, number, layout.segment)
        shared = (counts[0] > 0) & (counts[1:].max(axis=0, initial=0) > 0)
        keep = shared[number]  # only n-grams found on both sides can grow into matching (n+1)-grams
        if n == 1:  # keep[p]: the token at p is found on both sides of its segment
            continues[:-1] &= keep[1:]
        start, code = start[keep], number[keep]


def corpus_matches(
    list_of_references: Sequence[Sequence[Sequence[str]]], hypotheses: Sequence[Sequence[str]], max_order: int
) -> np.ndarray:
    """Clipped matches of every segment: an int64 array, row i = [matches_1 .. matches_max_order] of segment i."""
    layout = lay_out(list_of_references, hypotheses)
    matches = np.zeros((max_order, layout.segments), dtype=np.int64)
    for n, order in enumerate(ngram_counts(layout, max_order)):
        matches[n] = order.per_segment(order.clipped(), layout.segments)
    return matches.T
