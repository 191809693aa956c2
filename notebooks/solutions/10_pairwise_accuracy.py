# Solution: look at every pair of systems once; the pair counts as agreeing when the metric's difference and the
# people's difference have the same sign. The accuracy is the share of agreeing pairs (Kocmi et al. 2021).
# Ties: here a pair both lists tie agrees and a pair one list ties does not; leaving tied pairs out is right too.
from itertools import combinations

from bleu_lab.course.exercises.bleu_in_context import check_pairwise_accuracy


def sign(x):
    return (x > 0) - (x < 0)


def my_pairwise_accuracy(metric, human):
    """#{pairs (i, j) with sign(metric_i - metric_j) == sign(human_i - human_j)} / #pairs."""
    pairs = list(combinations(range(len(metric)), 2))
    agree = sum(sign(metric[i] - metric[j]) == sign(human[i] - human[j]) for i, j in pairs)
    return agree / len(pairs)


check_pairwise_accuracy(my_pairwise_accuracy)
