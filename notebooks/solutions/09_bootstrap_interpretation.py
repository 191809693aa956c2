# Solution: baseline first (degraded), then the system (fluent), then the references; method="shift" for the
# two-sided p-value, default samples and seed.
import bleu_lab as bl
from bleu_lab.course.exercises.comparing_systems import check_bootstrap_interpretation

corpus = bl.load_corpus("news")
result = bl.paired_bootstrap(corpus.systems["degraded"], corpus.systems["fluent"], corpus.references_for("A"),
                             method="shift")
print(result)

# p is above 0.05: gaps this large are not rare enough between equally good systems on 160 segments, so the test
# set does not show fluent to be better. That is not evidence that the two are equal (D), and p is not the
# probability of either hypothesis (A, B).
answer = "C"

check_bootstrap_interpretation(result, answer)
