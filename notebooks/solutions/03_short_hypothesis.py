from bleu_lab.course.exercises.brevity_penalty import check_short_hypothesis

# Two words, both in the references: p_1 = 2/2 = 1. The closest reference has 6 words,
# so BP = exp(1 - 6/2) = exp(-2), about 0.135. Any 1-4 word hypothesis of reference words works.
short_hypothesis = "the mat"

check_short_hypothesis(short_hypothesis)
