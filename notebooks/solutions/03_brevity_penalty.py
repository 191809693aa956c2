import math

from bleu_lab.course.exercises.brevity_penalty import check_brevity_penalty


def my_brevity_penalty(r, c):
    """BP = 1 if c > r, exp(1 - r/c) if 0 < c <= r, and 0 for an empty hypothesis (c = 0)."""
    if c == 0:
        return 0.0  # nothing to reward, and exp(1 - r/c) would divide by zero
    if c > r:
        return 1.0  # longer than the reference: precision already pays for the extra words
    return math.exp(1 - r / c)


check_brevity_penalty(my_brevity_penalty)
