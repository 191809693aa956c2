# Solution: modified n-gram precision, as nltk computes it.
from collections import Counter
from fractions import Fraction

from bleu_lab.course.exercises.modified_precision import check_modified_precision


def my_modified_precision(references, hypothesis, n):
    """p_n = sum of clipped n-gram counts / max(1, number of hypothesis n-grams)."""

    def count(tokens):
        return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))

    hyp_counts = count(hypothesis)
    max_ref = Counter()
    for reference in references:
        max_ref |= count(reference)  # Counter's | keeps the larger count: the max over references
    clipped = sum(min(c, max_ref[g]) for g, c in hyp_counts.items())
    total = sum(hyp_counts.values())
    # A hypothesis shorter than n has no n-grams: nltk divides by max(1, 0) = 1, so p_n = 0/1.
    return Fraction(clipped, max(1, total))


check_modified_precision(my_modified_precision)
