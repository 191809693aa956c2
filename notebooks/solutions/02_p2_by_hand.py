# Solution: p_2 of "on the mat the cat sat on the mat"
# against "the cat sat on the mat" and "a cat is on the mat".
#
# The hypothesis has 9 words, so 9 - 2 + 1 = 8 bigrams:
#   bigram    count in hyp  max in one ref  clipped
#   on the         2              1            1
#   the mat        2              1            1
#   mat the        1              0            0
#   the cat        1              1            1
#   cat sat        1              1            1
#   sat on         1              1            1
# clipped matches: 1 + 1 + 0 + 1 + 1 + 1 = 5, so p_2 = 5/8.
from fractions import Fraction

from bleu_lab.course.exercises.modified_precision import check_p2_by_hand

p2 = Fraction(5, 8)

check_p2_by_hand(p2)
