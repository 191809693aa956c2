# Solution: score with the required options, then print the score WITH the signature that records them.
import bleu_lab as bl
from bleu_lab.course.exercises.tokenization import REPORT_HYPOTHESES, REPORT_REFERENCES, check_report_line

result = bl.corpus_score(list(REPORT_HYPOTHESES), [list(refs) for refs in REPORT_REFERENCES],
                         lowercase=True, tokenize="intl")
report = f"BLEU = {result.score:.1f} ({result.signature})"
print(report)

check_report_line(report)
