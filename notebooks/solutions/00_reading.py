# Solution: read p_1, p_4 and BP off the explanation of "the cat and the cat on the mat".
#   1-grams: clipped counts the 2, cat 1, and 0, on 1, mat 1 -> 5 of the 8 words earn credit
#   4-grams: only "cat on the mat" is in a reference        -> 1 of the 5 four-grams
#   c = 8 words, closest reference r = 7 words: c > r, so there is no brevity penalty
from bleu_lab.course.exercises.start_here import check_reading

p1 = "5/8"
p4 = "1/5"
bp = 1.0

check_reading(p1, p4, bp)
