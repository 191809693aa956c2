# Solution: A (scores computed with other tokenization and casing are not comparable), B (no significance test),
# C (the checkpoint was picked on the test set) and D (BLEU only) are problems; printing the signature (E) and
# scoring baseline and new model the same way (F) are good practice.
from bleu_lab.course.exercises.bleu_in_context import check_results_table

problems = {"A", "B", "C", "D"}
check_results_table(problems)
