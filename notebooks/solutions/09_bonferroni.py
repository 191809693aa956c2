# Solution: with m comparisons, each one must reach p < alpha / m (then the chance of ANY false alarm is < alpha).
from bleu_lab.course.exercises.comparing_systems import check_bonferroni


def my_bonferroni(p_values, alpha=0.05):
    """The names of the comparisons with p < alpha / m, m = the number of comparisons."""
    m = len(p_values)
    return [name for name, p in p_values.items() if p < alpha / m]


check_bonferroni(my_bonferroni)
