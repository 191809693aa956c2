# Solution: the unigram clip table of "a cat on a mat and a cat on a mat"
# against "a cat sat on the mat" and "there is a cat on a mat".
#
#   word  count in hyp  ref 1  ref 2  max ref  clipped = min(count, max ref)
#   a          4          1      2       2        2
#   cat        2          1      1       1        1
#   on         2          1      1       1        1
#   mat        2          1      1       1        1
#   and        1          0      0       0        0
# Note "a": adding the references (1 + 2 = 3) would be wrong; the most in ONE reference is 2.
from bleu_lab.course.exercises.ngrams_and_clipping import check_clip_by_hand

my_clip_table = {"a": 2, "cat": 1, "on": 1, "mat": 1, "and": 0}

check_clip_by_hand(my_clip_table)
