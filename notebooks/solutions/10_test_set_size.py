# Solution: the half-width h of the 95% interval of the gap on n0 = 160 segments shrinks like 1/sqrt(n), so at n
# segments it is about h * sqrt(n0 / n). Setting that to 1 BLEU gives n = n0 * h**2.
import bleu_lab as bl
from bleu_lab.course.exercises.bleu_in_context import check_test_set_size

corpus = bl.load_corpus("news")
result = bl.paired_bootstrap(corpus.systems["fluent"], corpus.systems["strong"], corpus.references_for("A"),
                             method="shift")
low, high = result.difference_interval
half_width = (high - low) / 2
n_segments = len(corpus) * half_width**2
print(f"half-width on {len(corpus)} segments: {half_width:.2f} BLEU -> about {n_segments:,.0f} segments")
check_test_set_size(n_segments)
