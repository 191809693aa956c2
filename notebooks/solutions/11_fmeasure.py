# Solution: precision over the output words, recall over the reference words, their harmonic mean; 0 when nothing
# matches (compare-mt's rule, which also avoids dividing 0 by 0).
from bleu_lab.course.exercises.read_your_outputs import check_fmeasure


def my_fmeasure(matches, output_words, reference_words):
    """F = 2PR / (P + R), 0 without a match."""
    if matches == 0:
        return 0.0
    precision, recall = matches / output_words, matches / reference_words
    return 2 * precision * recall / (precision + recall)


check_fmeasure(my_fmeasure)
