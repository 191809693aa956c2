"""Step 1 — n-grams: the overlapping runs of n consecutive tokens that BLEU counts.

"the cat sat" has the 1-grams (the) (cat) (sat), the 2-grams (the cat) (cat sat) and one 3-gram.
A sentence of length L has max(0, L - n + 1) n-grams.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

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


def ngram_list(tokens: Sequence[str], n: int) -> Sequence:
    """The n-grams of already-validated tokens, fast: the tokens themselves for n = 1, tuples for n >= 2.

    This is the hot path used by the statistics module (unigrams need no tuple around them there).
    """
    return tokens if n == 1 else list(_ngram_iter(tokens, n))


def ngram_iter(tokens: Sequence[str], n: int) -> Iterable:
    """Like ``ngram_list`` but lazy: for feeding a set or Counter without building a list first."""
    return tokens if n == 1 else _ngram_iter(tokens, n)


def ngram_total(length: int, n: int) -> int:
    """Number of n-grams in a sentence of ``length`` tokens: ``max(0, length - n + 1)``."""
    return max(0, length - n + 1)


def _ngram_iter(tokens: Sequence[str], n: int):
    # zip over n shifted views of the list builds each tuple in C: much faster than slicing in a loop.
    if n > len(tokens):  # no n-gram at all, and no need to build n views (n may be huge)
        return iter(())
    return zip(*[tokens[i:] for i in range(n)])
