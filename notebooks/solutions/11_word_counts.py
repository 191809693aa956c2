# Solution: count each word on both sides; a word matches as often as the smaller of its two counts (unigram
# clipping, as in BLEU). Every token counts, repeats included.
from collections import Counter

from bleu_lab.course.exercises.read_your_outputs import check_word_counts


def my_word_counts(reference_tokens, output_tokens):
    """(matched words, output words, reference words) of one segment."""
    ref, out = Counter(reference_tokens), Counter(output_tokens)
    matched = sum(min(count, ref[word]) for word, count in out.items())
    return matched, len(output_tokens), len(reference_tokens)


check_word_counts(my_word_counts)
