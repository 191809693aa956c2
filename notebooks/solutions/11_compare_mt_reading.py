# Solution: compare-mt prints 1 - the larger share of half-size resamples that one system wins; p=0.0000 says system 1
# won every resample (Koehn's win rate), not that the systems cannot be equal, nor anything about single segments.
from bleu_lab.course.exercises.read_your_outputs import check_compare_mt_reading

answer = "B"
check_compare_mt_reading(answer)
