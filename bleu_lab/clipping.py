"""Step 2 — counting and clipping: a hypothesis n-gram only earns credit as often as some reference has it.

    Count_clip(g) = min(Count_hyp(g), max over references r of Count_r(g))

Without clipping "the the the the the the the" would match 7 of 7 unigrams against "the cat is on
the mat"; clipped, "the" earns at most 2 (the most any one reference has), so 2/7.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .ngrams import Ngram, count_ngrams
from .validation import as_reference_list, as_tokens, check_order


@dataclass(frozen=True)
class ClipRow:
    """One line of the clip table: an n-gram of the hypothesis and how much credit it earns."""

    ngram: Ngram
    count: int  # times it occurs in the hypothesis
    max_ref_count: int  # the most times any single reference has it
    clipped: int  # min(count, max_ref_count): the credit it earns

    @property
    def text(self) -> str:
        """The n-gram as readable text, e.g. ``'the cat'``."""
        return " ".join(self.ngram)


def max_reference_counts(references: Sequence, n: int) -> Counter[Ngram]:
    """For every n-gram of any reference, the largest count it has in a single reference (not the sum)."""
    refs = as_reference_list(references, "references")
    n = check_order(n)
    best: Counter[Ngram] = Counter()
    for ref in refs:
        best |= count_ngrams(ref, n)  # Counter '|' keeps the maximum of each count
    return best


def clip_counts(hypothesis_counts: Counter[Ngram], max_ref_counts: Counter[Ngram]) -> dict[Ngram, int]:
    """``{g: min(count, max_ref_counts[g])}`` for each n-gram g of the hypothesis."""
    for value, name in ((hypothesis_counts, "hypothesis_counts"), (max_ref_counts, "max_ref_counts")):
        if not isinstance(value, Mapping):
            raise TypeError(f"{name} must be a Counter of n-grams, e.g. count_ngrams(tokens, n), "
                            f"not {type(value).__name__}")
    return {g: min(count, max_ref_counts.get(g, 0)) for g, count in hypothesis_counts.items()}


def clip_table(references: Sequence, hypothesis: Sequence[str] | str, n: int) -> list[ClipRow]:
    """The clip table for order ``n``: one row per distinct hypothesis n-gram, in order of first appearance."""
    hyp = as_tokens(hypothesis, "hypothesis")
    counts = count_ngrams(hyp, n)
    max_refs = max_reference_counts(references, n)
    clipped = clip_counts(counts, max_refs)
    return [ClipRow(g, c, max_refs.get(g, 0), clipped[g]) for g, c in counts.items()]
