# Solution: count the shuffles with a gap at least as large as the observed one (ties included: a shuffle that
# reproduces the observed gap is as extreme as it), and count the observed test set itself once (+1, +1). This is
# Noreen's (1989) and Riezler & Maxwell's (2005) p-value, and what bl.paired_randomization computes by default.
import numpy as np

from bleu_lab.course.exercises.comparing_systems import check_ar_p_value


def my_ar_p_value(trial_differences, observed):
    """p = (#{trials with a gap >= observed} + 1) / (number of trials + 1)."""
    at_least = int(np.sum(np.asarray(trial_differences) >= observed))
    return (at_least + 1) / (len(trial_differences) + 1)


check_ar_p_value(my_ar_p_value)
