"""Step 1 — n-grams: the overlapping runs of n consecutive tokens that BLEU counts.

"the cat sat" has the 1-grams (the) (cat) (sat), the 2-grams (the cat) (cat sat) and one 3-gram.
A sentence of length L has max(0, L - n + 1) n-grams.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import chain

from .validation import as_tokens, check_order

Ngram = tuple[str, ...]


def ngrams(tokens: Sequence[str] | str, n: int) -> list[Ngram]:
    """All n-grams of ``tokens`` in order: ``[tuple(tokens[i:i+n]) for i in range(len(tokens) - n + 1)]``."""
    tokens = as_tokens(tokens, "tokens")
    n = check_order(n)
    return list(_ngram_iter(tokens, n))


def count_ngrams(tokens: Sequence[str] | str, n: int) -> Counter[Ngram]:
    """How often each n-gram occurs: ``Count(g) = #{i : tokens[i:i+n] == g}``."""
    tokens = as_tokens(tokens, "tokens")
    n = check_order(n)
    return Counter(_ngram_iter(tokens, n))


def count_ngrams_up_to(tokens: Sequence[str], max_order: int) -> Counter[Ngram]:
    """Counts of every n-gram with 1 <= n <= max_order in one Counter (the n-gram's order is its length).

    Expects already-validated tokens; this is the fast path used by the statistics module.
    """
    return Counter(chain.from_iterable(_ngram_iter(tokens, n) for n in range(1, max_order + 1)))


def ngram_total(length: int, n: int) -> int:
    """Number of n-grams in a sentence of ``length`` tokens: ``max(0, length - n + 1)``."""
    return max(0, length - n + 1)


def _ngram_iter(tokens: Sequence[str], n: int):
    # zip over n shifted views of the list builds each tuple in C: much faster than slicing in a loop.
    return zip(*(tokens[i:] for i in range(n)))
