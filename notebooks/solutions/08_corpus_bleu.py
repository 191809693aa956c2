# Solution: add the per-segment statistics up FIRST, then compute one BLEU from the sums.
import math

from bleu_lab.course.exercises.corpus_bleu import check_corpus_bleu


def my_corpus_bleu(segment_stats):
    """Corpus BLEU (0-100): BP * exp(1/4 * sum_n log p_n) with p_n = sum of matches / sum of totals."""
    total = segment_stats[0]
    for stats in segment_stats[1:]:
        total = total + stats  # BleuStats add up: lengths, matches and totals, order by order
    precisions = [100 * m / t for m, t in zip(total.matches, total.totals)]  # pooled p_n, in percent
    c, r = total.hyp_len, total.ref_len
    bp = 1.0 if c > r else math.exp(1 - r / c)  # ONE brevity penalty, from the summed lengths
    return bp * math.exp(sum(math.log(p) for p in precisions) / len(precisions))


check_corpus_bleu(my_corpus_bleu)  # its expected scores come from the library's one scoring function, score_from_stats
