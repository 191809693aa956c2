# Solution: nltk's method1. Only an order with no match changes: p_n = epsilon / (number of n-grams).
from bleu_lab.course.exercises.smoothing import check_method1


def my_method1(matches, denominators, epsilon=0.1):
    """p_n = m_n / d_n, except that m_n = 0 becomes epsilon / d_n."""
    return [(m if m > 0 else epsilon) / d for m, d in zip(matches, denominators)]


check_method1(my_method1)
