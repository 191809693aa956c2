"""Bucketers: which bucket a word or a segment falls in, with compare-mt's cutoffs and labels.

A bucketer is a list of cutoffs c_1 < c_2 < ... < c_k. A value v falls in bucket i, the first i with v < c_i, or
in the last bucket (k) when v >= c_k. The labels follow compare-mt 0.2.10 (``Bucketer.set_bucket_cutoffs`` in
https://github.com/neulab/compare-mt/blob/master/compare_mt/bucketers.py): ``<c_1`` for the first bucket, the
single value when an integer bucket holds one value, ``[c_{i-1},c_i)`` otherwise, and ``>=c_k`` for the last.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..data import read_lines

# compare-mt 0.2.10's default cutoffs (FreqWordBucketer, LengthSentenceBucketer, LengthDiffSentenceBucketer,
# ScoreSentenceBucketer on a 0-100 scale)
FREQUENCY_CUTOFFS = (1, 2, 3, 4, 5, 10, 100, 1000)
LENGTH_CUTOFFS = (10, 20, 30, 40, 50, 60)
LENGTH_DIFFERENCE_CUTOFFS = (-20, -10, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 11, 21)
SENTENCE_BLEU_CUTOFFS = (10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0)


@dataclass(frozen=True)
class Bucketer:
    """Cutoffs and their labels. ``integer`` buckets that hold one value are labelled by that value (``2``)."""

    name: str
    cutoffs: tuple[float, ...]
    integer: bool = True

    @property
    def labels(self) -> list[str]:
        """One label per bucket, e.g. ``<1``, ``1``, ``2``, ..., ``[5,10)``, ``>=1000``."""
        cuts = self.cutoffs
        labels = [f"<{cuts[0]}"]
        for prev, cut in zip(cuts, cuts[1:]):
            labels.append(f"{prev}" if self.integer and cut - 1 == prev else f"[{prev},{cut})")
        return labels + [f">={cuts[-1]}"]

    def bucket(self, value: float) -> int:
        """The bucket index of ``value``: the first i with value < cutoffs[i], else len(cutoffs)."""
        return bisect_right(self.cutoffs, value)


FREQUENCY = Bucketer("reference frequency", FREQUENCY_CUTOFFS)
REFERENCE_LENGTH = Bucketer("reference length", LENGTH_CUTOFFS)
LENGTH_DIFFERENCE = Bucketer("length difference (output - reference)", LENGTH_DIFFERENCE_CUTOFFS)
SENTENCE_BLEU = Bucketer("sentence BLEU", SENTENCE_BLEU_CUTOFFS, integer=False)
# the length-difference figure: compare-mt's 17 buckets merged into 7 (the table keeps all 17), so that four to six
# systems' bars per bucket stay readable
LENGTH_DIFFERENCE_MERGED = Bucketer("length difference, merged", (-10, -5, 0, 1, 6, 11))


def word_frequencies(corpus: Iterable[Sequence[str]]) -> Counter[str]:
    """How often each token occurs in a tokenized corpus (one token list per segment)."""
    counts: Counter[str] = Counter()
    for tokens in corpus:
        counts.update(tokens)
    return counts


def read_frequency_file(path: str) -> Counter[str]:
    """Training-set word counts from a file of ``word<TAB>count`` lines (compare-mt's ``freq_count_file`` format).

    Unlike compare-mt, which prints and skips a malformed line, a malformed line is an error naming the line.
    """
    counts: Counter[str] = Counter()
    for number, line in enumerate(read_lines(path, "frequency"), 1):
        if not line.strip():
            continue
        cols = line.strip().split("\t")
        if len(cols) != 2 or not cols[1].strip().isdigit():
            raise ValueError(f"frequency file {path}, line {number}: expected 'word<TAB>count', got {line[:60]!r}")
        counts[cols[0]] = int(cols[1])
    return counts
