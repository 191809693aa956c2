# Solution: a word salad with p_1 = 1 and p_2 = 0 against "the cat is on the mat".
# Use each reference word as often as the reference does (the x2, cat, is, on, mat) and order them so
# that no two neighbours are neighbours in the reference (its bigrams: the cat, cat is, is on, on the, the mat).
from bleu_lab.course.exercises.modified_precision import check_word_salad

salad = "mat the on is cat the"

check_word_salad(salad)
