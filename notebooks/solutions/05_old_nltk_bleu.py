import bleu_lab as bl
from bleu_lab.course.exercises.when_bleu_fails import check_old_nltk_bleu


def old_nltk_bleu(references, hypothesis):
    """nltk 3.2 without smoothing: drop the first order with no clipped match and every order above it."""
    kept = 0
    for n in range(1, 5):
        if bl.modified_precision(references, hypothesis, n).numerator == 0:
            break
        kept = n
    if kept == 0:
        return 0.0  # no unigram match at all: old nltk returned 0 too
    # The dropped orders add nothing to sum w_n log p_n (as if p_n were 1); the kept ones keep w_n = 0.25.
    return bl.sentence_bleu(references, hypothesis, weights=(0.25,) * kept)


check_old_nltk_bleu(old_nltk_bleu)
