from bleu_lab.course.exercises.when_bleu_fails import check_high_p1_low_bleu

# Every token of the reference, each used once (so p_1 = 1 and c = r, BP = 1),
# in an order where no two neighbours are neighbours in the reference (no bigram matches).
word_salad = "Mars rover dust NASA a planet battling on The storm Opportunity massive is ."

check_high_p1_low_bleu(word_salad)
