import math

from bleu_lab.course.exercises.putting_it_together import check_geometric_mean


def my_geometric_mean(precisions, weights):
    """exp(sum_n w_n log p_n) = prod_n p_n ** w_n; 0 as soon as a p_n with weight > 0 is 0."""
    if any(p == 0 and w > 0 for p, w in zip(precisions, weights)):
        return 0.0  # log(0) is undefined; the product has a zero factor
    return math.exp(math.fsum(w * math.log(p) for p, w in zip(precisions, weights) if w > 0))


check_geometric_mean(my_geometric_mean)
