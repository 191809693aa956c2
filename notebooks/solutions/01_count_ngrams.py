# Solution: count the n-grams of a token list.
from collections import Counter

from bleu_lab.course.exercises.ngrams_and_clipping import check_count_ngrams


def my_count_ngrams(tokens, n):
    """How often each n-gram (a tuple of n consecutive tokens) occurs in ``tokens``."""
    # A sentence of L tokens has L - n + 1 n-grams: the last one starts at index L - n.
    # When L < n the range is empty and so is the Counter.
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


check_count_ngrams(my_count_ngrams)
