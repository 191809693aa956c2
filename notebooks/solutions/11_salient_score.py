# Solution: add alpha to both counts and take system 1's share. With alpha = 1, 11 against 0 scores 12/13 = 0.92 and
# 3 against 0 scores 4/5 = 0.8: the smoothing trusts a difference seen often more than one seen a few times.
from bleu_lab.course.exercises.read_your_outputs import check_salient_score


def my_salient_score(c1, c2, alpha):
    """s = (c1 + alpha) / (c1 + c2 + 2 alpha)."""
    return (c1 + alpha) / (c1 + c2 + 2 * alpha)


check_salient_score(my_salient_score)
