# Solution: any fluent wording that keeps long runs of a reference, e.g. "a cat is on the mat":
# it shares "cat is on the mat" (a 4-gram and more) with reference 1 and is as long as the closest reference.
from bleu_lab.course.exercises.start_here import check_better_hypothesis

my_hypothesis = "a cat is on the mat"

check_better_hypothesis(my_hypothesis)
