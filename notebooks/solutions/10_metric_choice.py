# A model answer (written answers are graded by a person; the check looks for the two key points).
from bleu_lab.course.exercises.bleu_in_context import check_metric_choice

answer = ("Before shipping I would run a paired significance test (bootstrap or approximate randomization) to see "
          "whether +0.8 BLEU is more than the luck of this test set, and then confirm the gain with a human "
          "evaluation of both systems (a second metric such as chrF or COMET is a further check, not a substitute: "
          "even learned metrics, which agree with people more often than BLEU in large studies, miss many of their "
          "decisions), because a small BLEU gain does not reliably mean that people prefer the new system.")
check_metric_choice(answer)
