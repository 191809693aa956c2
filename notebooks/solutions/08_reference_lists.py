# Solution: zip the two reference files line by line and keep, for each segment, only its non-empty lines.
import bleu_lab as bl
from bleu_lab.course.exercises.corpus_bleu import check_reference_lists

corpus = bl.load_corpus("news")
streams = corpus.reference_streams  # {'A': 160 lines, 'B': 160 lines, of which 100 are empty}
my_references = [[ref for ref in (a, b) if ref.strip()] for a, b in zip(streams["A"], streams["B"])]

assert my_references == corpus.references  # what the loader gives you ready-made
print(bl.corpus_score(corpus.systems["degraded"], my_references))
check_reference_lists(my_references)
