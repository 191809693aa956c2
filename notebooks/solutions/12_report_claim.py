# Solution: A (the gap is +0.24 against reference A, +0.55 against C, +0.38 against D) and B (the experts'
# difference is +0.04 points per segment, and its 95% interval includes 0) are true. No gap is significant without a
# test (C), sentence BLEU agrees with the experts only weakly (D), system-level agreement says nothing certain about
# one small gap (F), so the numbers do not support the claim (E).
from bleu_lab.course.exercises.metrics_and_people import check_report_claim

true = {"A", "B"}
check_report_claim(true)
