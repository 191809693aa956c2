# Solution: clip the hypothesis counts by the references.
from collections import Counter

from bleu_lab.course.exercises.ngrams_and_clipping import check_clip


def my_clip(hyp_counts, refs_counts):
    """{ngram: min(count in the hypothesis, the most times any ONE reference has it)}."""
    max_ref = Counter()
    for ref_counts in refs_counts:
        for ngram, count in ref_counts.items():
            max_ref[ngram] = max(max_ref[ngram], count)  # the max over references, never their sum
    # Every hypothesis n-gram gets an entry; a Counter answers 0 for n-grams no reference has.
    return {ngram: min(count, max_ref[ngram]) for ngram, count in hyp_counts.items()}


check_clip(my_clip)
