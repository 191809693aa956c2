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


# Every character ``str.split()`` cuts at (``str.isspace``; a test checks this against all of Unicode).
WHITESPACE: tuple[int, ...] = (0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1C, 0x1D, 0x1E, 0x1F, 0x20, 0x85, 0xA0, 0x1680,
                               *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F, 0x205F, 0x3000)
# The non-ASCII ones as UTF-8, each read as a 3-byte big-endian number (a 2-byte one padded with a zero byte).
_WIDE_WHITESPACE = np.array([int.from_bytes(chr(c).encode().ljust(3, b"\0"), "big") for c in WHITESPACE if c > 127])
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [2**64 - 1], np.uint64)  # keeps the first k bytes


def number_utf8_tokens(data: bytes, lines: int, alone: np.ndarray | None = None) -> NumberedTexts:
    """Number the tokens of UTF-8 text: ``lines`` lines joined by b"\\n", cut at whitespace as ``str.split()``,
    and around each byte where ``alone`` (a bool per byte, optional) is True: that byte is a token by itself.

    No string is made per token. Each token is read 8 bytes at a time as 64-bit integers (the bytes past its end
    set to 0): the first 8 bytes are numbered (``np.unique``), then, for the tokens longer than 8k bytes, the pair
    (number so far, bytes 8k..8k+7) is numbered again, and so on. Two tokens get the same number exactly when
    their bytes are equal (when some token holds a NUL byte, the length joins the first number, since a padded
    NUL could not be told from the end). Numbers are unique but not consecutive.
    """
    byte = np.zeros(len(data) + 10, np.uint8)  # a zero byte before the text and nine after: reads never run off
    text = byte[1 : len(data) + 1]
    text[:] = np.frombuffer(data, np.uint8)
    in_token = np.zeros(len(data) + 2, bool)  # False before and after the text
    inside = in_token[1:-1]
    np.greater(text, 32, out=inside)
    inside |= (text < 9) | ((text > 13) & (text < 28))  # not ASCII whitespace: 9-13 and 28-32
    lead = np.flatnonzero((text == 0xC2) | ((text >= 0xE1) & (text <= 0xE3)))  # a wide whitespace starts so
    if lead.size:
        two_bytes = text[lead] == 0xC2
        code = (text[lead].astype(np.int64) << 16) | (byte[lead + 2].astype(np.int64) << 8) | byte[lead + 3]
        code[two_bytes] &= 0xFFFF00
        wide = np.isin(code, _WIDE_WHITESPACE)
        found = lead[wide]
        inside[found] = inside[found + 1] = False
        inside[found[~two_bytes[wide]] + 2] = False
    cut = np.zeros(len(data) + 2, bool)  # a token also ends before and after each byte that stands alone
    if alone is not None:
        cut[1:-1] = alone
        cut[1:] |= cut[:-1].copy()  # cut[p]: a token ends before byte p (p - 1 or p stands alone)
    start = np.flatnonzero(in_token[1:] & (~in_token[:-1] | cut[1:]))
    length = np.flatnonzero(in_token[:-1] & (~in_token[1:] | cut[1:])) - start
    eight = np.ndarray((len(data) + 2,), "<u8", byte, 1, (1,))  # eight[p]: bytes p..p+7 of the text, as one number
    number = _numbered(eight[start] & _LOW_BYTES[np.minimum(length, 8)])
    if 0 in text:
        number = _numbered(number * (int(length.max()) + 1) + length)
    longer, read = np.flatnonzero(length > 8), 8
    while longer.size:
        chunk = _numbered(eight[start[longer] + read] & _LOW_BYTES[np.minimum(length[longer] - read, 8)])
        pair = number[longer] * (int(chunk.max()) + 1) + chunk
        number[longer] = _numbered(pair) + int(number.max()) + 1  # new numbers, above all numbers so far
        read += 8
        longer = longer[length[longer] > read]
    first_token_of_line = np.searchsorted(start, np.flatnonzero(text == 10))
    return NumberedTexts(number, np.diff(first_token_of_line, prepend=0, append=len(start)))


def _numbered(values: np.ndarray) -> np.ndarray:
    """Equal values, equal numbers: 0, 1, 2, ... in sorted order of the values."""
    return np.unique(values, return_inverse=True)[1].ravel()


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
