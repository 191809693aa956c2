"""Speed of corpus chrF against sacrebleu's CHRF, on WMT21 en-de (1002 segments, references A, C, D).

    .venv/bin/python benchmarks/bench_chrf.py

Target (issue 23): corpus_chrf at most 0.5x sacrebleu's CHRF().corpus_score time, chrF and chrF++, measured in the
same run (interleaved medians).
"""

from __future__ import annotations

import math

from _common import interleaved_medians, report, wmt21_en_de
from sacrebleu.metrics import CHRF

import bleu_lab


def main() -> None:
    hyps, refs = wmt21_en_de()
    streams = [list(s) for s in zip(*refs)]
    ok = []
    for word_order in (0, 2):
        ours = bleu_lab.corpus_chrf(hyps, refs, word_order=word_order).score
        theirs = CHRF(word_order=word_order).corpus_score(hyps, streams).score
        assert math.isclose(ours, theirs, rel_tol=1e-12), (ours, theirs)
        t = interleaved_medians({
            "ours": lambda w=word_order: bleu_lab.corpus_chrf(hyps, refs, word_order=w),
            "sacrebleu": lambda w=word_order: CHRF(word_order=w).corpus_score(hyps, streams),
        }, rounds=5)
        name = "chrF++" if word_order else "chrF"
        ok.append(report(f"corpus_chrf ({name}) vs sacrebleu CHRF().corpus_score", t["ours"], t["sacrebleu"], 0.5))
    print("\nall targets met" if all(ok) else "\nSOME TARGETS MISSED")


if __name__ == "__main__":
    main()
