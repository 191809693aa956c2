# Solution: sort every pair of segments (i < j) once into concordant (the two lists order it the same way),
# discordant (opposite ways), tied in x, tied in y (a pair tied in both counts in both). tau_b is (C - D) over the
# geometric mean of the pairs each list does not tie: the variant scipy.stats.kendalltau computes by default.
import math
from itertools import combinations

from bleu_lab.course.exercises.metrics_and_people import check_kendall_tau


def sign(v):
    return (v > 0) - (v < 0)


def my_kendall_tau(x, y):
    """(C - D) / sqrt((P - T_x) * (P - T_y))."""
    pairs = list(combinations(range(len(x)), 2))
    products = [sign(x[i] - x[j]) * sign(y[i] - y[j]) for i, j in pairs]
    concordant = sum(p > 0 for p in products)
    discordant = sum(p < 0 for p in products)
    tied_x = sum(x[i] == x[j] for i, j in pairs)
    tied_y = sum(y[i] == y[j] for i, j in pairs)
    return (concordant - discordant) / math.sqrt((len(pairs) - tied_x) * (len(pairs) - tied_y))


check_kendall_tau(my_kendall_tau)
