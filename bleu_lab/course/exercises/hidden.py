"""Sentences for hidden cases, drawn at grading time from a seeded ``random.Random`` (no hidden case ships)."""

from __future__ import annotations

import random
from collections.abc import Sequence

# Words for the sentences of hidden cases: few, so that n-grams repeat and clipping matters.
CASE_WORDS = ("the", "a", "cat", "dog", "sat", "on", "mat", "red", "is", "and", "rose", "big")


def random_sentence(rng: random.Random, low: int = 1, high: int = 9, words: Sequence[str] = CASE_WORDS) -> str:
    """A sentence of ``low`` to ``high`` words drawn from ``words`` (for hidden cases drawn at grading time)."""
    return " ".join(rng.choice(words) for _ in range(rng.randint(low, high)))


def random_variant(rng: random.Random, sentence: str, changes: int = 2) -> str:
    """``sentence`` with up to ``changes`` words replaced, dropped or added: a hypothesis close to a reference."""
    tokens = sentence.split()
    for _ in range(changes):
        edit, at = rng.choice(("replace", "drop", "add")), rng.randrange(len(tokens) or 1)
        if edit == "replace" and tokens:
            tokens[at] = rng.choice(CASE_WORDS)
        elif edit == "drop" and len(tokens) > 1:
            del tokens[at]
        else:
            tokens.insert(at, rng.choice(CASE_WORDS))
    return " ".join(tokens)
