"""Step 5 — sufficient statistics: everything BLEU needs from a segment, in a few integers that add up.

Per n-gram order n:  matches[n] = sum of clipped counts,  totals[n] = number of hypothesis n-grams.
Plus the hypothesis length c and the closest reference length r.

A corpus score pools these numbers over all segments *before* dividing, which is why corpus BLEU is not
the mean of sentence BLEU. Sentence scores, corpus scores, both libraries' formulas, the bootstrap and
the widgets all start from a ``BleuStats``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import islice

import numpy as np

from .brevity import closest_length, closest_lengths
from .corpus_counting import CHUNK, CorpusLayout, lay_out, ngram_counts
from .ngrams import ngram_iter, ngram_list, ngram_total
from .validation import as_reference_list, as_sequence, as_tokens, check_order, check_same_length


@dataclass(frozen=True)
class BleuStats:
    """Additive BLEU statistics for one segment or a whole corpus.

    ``short[n-1]`` counts the segments whose hypothesis has no n-gram at all (fewer than n tokens).
    sacrebleu divides by ``totals``; nltk divides by ``totals + short`` because it uses max(1, count)
    per segment (a "phantom" n-gram for every too-short hypothesis).
    """

    hyp_len: int
    ref_len: int
    matches: tuple[int, ...]
    totals: tuple[int, ...]
    short: tuple[int, ...]
    segments: int = 1

    @property
    def max_order(self) -> int:
        """The highest n-gram order counted."""
        return len(self.matches)

    @property
    def nltk_denominators(self) -> tuple[int, ...]:
        """nltk's p_n denominators: sum over segments of max(1, number of hypothesis n-grams)."""
        return tuple(t + s for t, s in zip(self.totals, self.short))

    def __add__(self, other: BleuStats) -> BleuStats:
        if not isinstance(other, BleuStats):
            return NotImplemented
        if other.max_order != self.max_order:
            raise ValueError(f"cannot add statistics of max order {self.max_order} and {other.max_order}")
        return BleuStats(
            self.hyp_len + other.hyp_len,
            self.ref_len + other.ref_len,
            tuple(a + b for a, b in zip(self.matches, other.matches)),
            tuple(a + b for a, b in zip(self.totals, other.totals)),
            tuple(a + b for a, b in zip(self.short, other.short)),
            self.segments + other.segments,
        )

    def truncated(self, max_order: int) -> BleuStats:
        """The same statistics restricted to orders 1..max_order."""
        return BleuStats(
            self.hyp_len, self.ref_len, self.matches[:max_order], self.totals[:max_order],
            self.short[:max_order], self.segments,
        )


@dataclass(frozen=True)
class PreparedReferences:
    """One segment's references, with their n-grams collected once for any number of hypotheses."""

    tokens: tuple[Sequence[str], ...]
    lengths: tuple[int, ...]
    union: tuple[set, ...]  # union[n-1]: every n-gram that occurs in some reference


def prepare_references(references: Sequence[Sequence[str]], max_order: int) -> PreparedReferences:
    """Collect the n-grams (1 <= n <= max_order) of already-tokenized references."""
    union = tuple(set().union(*[ngram_iter(ref, n) for ref in references]) for n in range(1, max_order + 1))
    return PreparedReferences(tuple(references), tuple(len(ref) for ref in references), union)


def segment_counts(
    references: Sequence[Sequence[str]] | PreparedReferences, hypothesis: Sequence[str], max_order: int
) -> tuple[int, int, list[int]]:
    """(c, r, clipped matches per order) for one already-tokenized segment: the hot loop of every score."""
    refs = references if isinstance(references, PreparedReferences) else prepare_references(references, max_order)
    hyp_len = len(hypothesis)
    lengths = refs.lengths
    ref_len = lengths[0] if len(lengths) == 1 else closest_length(lengths, hyp_len)
    matches = [0] * max_order
    for n in range(1, min(max_order, hyp_len) + 1):
        matches[n - 1] = clipped_matches(ngram_list(hypothesis, n), refs, n)
    return hyp_len, ref_len, matches


def clipped_matches(hyp_ngrams: Sequence, refs: PreparedReferences, n: int) -> int:
    """sum over distinct hypothesis n-grams g of min(Count_hyp(g), max_r Count_r(g)).

    Fast path: an n-gram found in some reference earns at least 1, so the sum is the number of distinct hypothesis
    n-grams found in some reference (a set intersection, computed in C), plus min(Count_hyp(g), max_r Count_r(g)) - 1
    for the few found n-grams that the hypothesis repeats (for up to 4 of them each reference's count is a
    ``list.count``, in C, instead of building one Counter per reference). The same number as the sum of
    ``clipping.clip_counts`` (tests prove it).
    """
    hyp_set = set(hyp_ngrams)
    found = hyp_set.intersection(refs.union[n - 1])
    total = len(found)
    if len(hyp_set) == len(hyp_ngrams) or not found:
        return total
    repeated = [(g, count) for g, count in Counter(hyp_ngrams).items() if count > 1 and g in found]
    if len(repeated) <= 4:  # a few: count each in each reference (list.count, a pass in C per n-gram)
        ref_ngrams = [ngram_list(ref, n) for ref in refs.tokens]
        most_counts = [max([ref.count(g) for ref in ref_ngrams]) for g, _ in repeated]
    else:  # many (a long hypothesis): one Counter per reference instead of a pass per n-gram
        ref_counts = [Counter(ngram_iter(ref, n)) for ref in refs.tokens]
        most_counts = [max([counts[g] for counts in ref_counts]) for g, _ in repeated]
    for (_, count), most in zip(repeated, most_counts):
        total += (count if count < most else most) - 1
    return total


def segment_stats(references: Sequence[Sequence[str]], hypothesis: Sequence[str], max_order: int = 4) -> BleuStats:
    """The ``BleuStats`` of one segment (strings are split on whitespace, as in ``sentence_bleu``)."""
    references = as_reference_list(references, "references")
    hypothesis = as_tokens(hypothesis, "hypothesis")
    return _segment_stats(references, hypothesis, check_order(max_order, "max_order"))


def _segment_stats(references: Sequence[Sequence[str]], hypothesis: Sequence[str], max_order: int) -> BleuStats:
    hyp_len, ref_len, matches = segment_counts(references, hypothesis, max_order)
    totals = tuple(ngram_total(hyp_len, n) for n in range(1, max_order + 1))
    return BleuStats(hyp_len, ref_len, tuple(matches), totals, tuple(int(t == 0) for t in totals))


def corpus_stats(
    list_of_references: Iterable[Sequence[Sequence[str]]], hypotheses: Iterable[Sequence[str]], max_order: int = 4
) -> BleuStats:
    """The pooled ``BleuStats`` of a corpus: each count summed over segments (one reference list per hypothesis)."""
    refs = list(list_of_references) if _iterable(list_of_references) else list_of_references
    hyps = list(hypotheses) if _iterable(hypotheses) else hypotheses
    as_sequence(refs, "list_of_references", "reference lists (one list per hypothesis)")
    as_sequence(hyps, "hypotheses", "hypotheses (token lists or strings)")
    check_same_length(refs, "list_of_references", hyps, "hypotheses")
    return pooled_stats(
        [as_reference_list(r, f"list_of_references[{i}]") for i, r in enumerate(refs)],
        [as_tokens(h, f"hypotheses[{i}]") for i, h in enumerate(hyps)],
        check_order(max_order, "max_order"),
    )


def _iterable(value: object) -> bool:
    return isinstance(value, Iterable) and not isinstance(value, (str, bytes, bytearray, Sequence))


def pooled_stats(
    list_of_references: Iterable[Sequence[Sequence[str]]], hypotheses: Iterable[Sequence[str]], max_order: int = 4
) -> BleuStats:
    """``corpus_stats`` on input already checked and tokenized (the fast path the scorers use).

    The same sums as adding up ``segment_stats``. Segments are read ``CHUNK`` at a time, so streamed input (the
    command line's) is never all in memory; each chunk is counted by ``layout_stats`` (a chunk of a few segments
    by ``segment_stats`` one by one, which has no array set-up cost).
    """
    stats = empty_stats(max_order)
    pairs = zip(list_of_references, hypotheses)
    while chunk := list(islice(pairs, CHUNK)):
        if len(chunk) < FEW_SEGMENTS:
            for references, hypothesis in chunk:
                stats += _segment_stats(references, hypothesis, max_order)
        else:
            stats += layout_stats(lay_out([r for r, _ in chunk], [h for _, h in chunk]), max_order)
    return stats


def layout_stats(layout: CorpusLayout, max_order: int) -> BleuStats:
    """The pooled ``BleuStats`` of a laid-out corpus (``corpus_counting``), every sum an array operation.

    c and r come from the text lengths (``brevity.closest_lengths``), the matches from ``ngram_counts``;
    totals[n-1] = sum of max(0, c - n + 1) and short[n-1] = the number of hypotheses with c < n.
    """
    segments = layout.segments
    hyp_lens = layout.lengths[:segments]
    ref_lens = closest_lengths(layout.lengths[segments:], layout.text_segment[segments:], hyp_lens)
    matches = [0] * max_order
    for n, order in enumerate(ngram_counts(layout, max_order)):
        matches[n] = int(order.clipped().sum())
    totals = tuple(int(np.maximum(hyp_lens - n, 0).sum()) for n in range(max_order))
    short = tuple(int((hyp_lens <= n).sum()) for n in range(max_order))
    return BleuStats(int(hyp_lens.sum()), int(ref_lens.sum()), tuple(matches), totals, short, segments)


FEW_SEGMENTS = 8  # below this, counting segment by segment beats setting up the arrays of layout_stats


def empty_stats(max_order: int = 4) -> BleuStats:
    """Statistics of an empty corpus (the starting point for sums)."""
    zeros = (0,) * max_order
    return BleuStats(0, 0, zeros, zeros, zeros, 0)
