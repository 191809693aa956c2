# Solution: A, B and C are true; D, E and F are false.
# A - pooling: p_n = (sum of matches) / (sum of totals), so a segment counts in proportion to its n-grams.
# B - exp, log and the brevity penalty are not linear: "average, then score" != "score, then average".
# C - sentence BLEU needs smoothing / effective order for short segments; pooled corpus counts rarely have a zero.
# D is false (corpus BLEU is not computed from sentence scores at all), E is false (the gap is several points),
# F is false (both use the same 13a tokens).
from bleu_lab.course.exercises.corpus_bleu import check_why_mean_differs

answer = {"A", "B", "C"}

check_why_mean_differs(answer)
