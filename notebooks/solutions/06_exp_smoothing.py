# Solution: sacrebleu's 'exp' smoothing. The k-th order without a match gets 100 / (2^k * total_n).
from bleu_lab.course.exercises.smoothing import check_exp_smoothing


def my_exp_smoothing(matches, totals):
    """p_1..p_N in percent; the k-th order with no match (k = 1, 2, ...) gets 100 / (2^k * total_n)."""
    precisions = []
    k = 0  # how many orders without a match we have seen so far
    for m, t in zip(matches, totals):
        if m == 0:
            k += 1
            precisions.append(100 / (2**k * t))
        else:
            precisions.append(100 * m / t)
    return precisions


check_exp_smoothing(my_exp_smoothing)
