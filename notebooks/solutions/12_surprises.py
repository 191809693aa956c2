# Solution: among the segments with a major error (MQM -5 or lower) take the one BLEU scores highest, and among the
# segments without any error (MQM exactly 0) the one BLEU scores lowest.
from bleu_lab.course.exercises.metrics_and_people import check_surprises


def my_surprises(bleu, mqm):
    """(highest-BLEU segment with MQM <= -5, lowest-BLEU segment with MQM == 0)."""
    high = max((s for s in bleu if mqm[s] <= -5), key=lambda s: bleu[s])
    low = min((s for s in bleu if mqm[s] == 0), key=lambda s: bleu[s])
    return high, low


check_surprises(my_surprises)
