# Solution: rank the eight machine systems by their BLEU against each reference (best first) and find Online-W.
from bleu_lab.metrics import agreement
from bleu_lab.course.exercises.bleu_in_context import check_reference_ranks
from bleu_lab.metrics.published_scores import load_system_scores

machines = [row for row in load_system_scores() if not row.is_human]
names = [row.system for row in machines]
ranks = {ref: agreement.ranking(names, [row.bleu[ref] for row in machines]).index("Online-W") + 1
         for ref in ("A", "C", "D", "all")}
print(ranks)
check_reference_ranks(ranks)
