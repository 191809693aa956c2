"""Speed of ``bleu_lab.why`` (every reading tried) against running sacrebleu and nltk once, on data/news.

    .venv/bin/python benchmarks/bench_why.py          (add --wmt21 for WMT21 en-de, 1002 segments, reference A)

Targets (issue 24): why on data/news answers in <= 2 s, and with every reading tried it takes at most ~30 readings'
time, i.e. at most 30 x (sacrebleu's corpus_bleu + nltk's corpus_bleu, run once each on the same corpus).
With --wmt21 it also times a number made with one reference of two given (de-en, references A and B: every reading
with at most one departure is tried against each reference alone as well), printed for the record (issue 30).
"""

from __future__ import annotations

import sys

import sacrebleu
from _common import interleaved_medians, mtdata_dir, read_lines, report, wmt21_en_de
from nltk.translate.bleu_score import corpus_bleu

import bleu_lab
from bleu_lab.readings import why


def main() -> None:
    if "--wmt21" in sys.argv:
        hyps, refs = wmt21_en_de(refs="A")
        label = "WMT21 en-de (1002 segments)"
    else:
        corpus = bleu_lab.load_corpus("news")
        hyps, refs = corpus.systems["strong"], corpus.references
        label = "data/news (160 segments)"
    width = max(len(seg) for seg in refs)
    streams = [[seg[k] if k < len(seg) else None for seg in refs] for k in range(width)]
    result = why(hyps, refs, 30.0)

    def peers() -> None:
        sacrebleu.corpus_bleu(hyps, streams)
        corpus_bleu([[r.split() for r in seg] for seg in refs], [h.split() for h in hyps])

    t = interleaved_medians({"why": lambda: why(hyps, refs, 30.0), "peers": peers}, rounds=3)
    target = "" if "--wmt21" in sys.argv else f" (target <= 2 s: {'OK' if t['why'] <= 2 else 'MISSED'})"
    print(f"{label}: {len(result.readings)} distinct readings tried; why took {t['why']:.2f} s{target}")
    report("why (every reading) vs sacrebleu + nltk once", t["why"], t["peers"], 30)
    if "--wmt21" in sys.argv:
        subsets()


def subsets() -> None:
    d = mtdata_dir() / "de-en"
    hyps = read_lines(d / "newstest2021.de-en.hyp.Facebook-AI.en")
    streams = [read_lines(d / f"newstest2021.de-en.ref.{r}.en") for r in "AB"]
    a_only = f"{sacrebleu.corpus_bleu(hyps, streams[:1]).score:.1f}"
    refs = [list(seg) for seg in zip(*streams)]
    result = why(hyps, refs, a_only, reference_names=["A", "B"])
    t = interleaved_medians({"why": lambda: why(hyps, refs, a_only, reference_names=["A", "B"]),
                             "sacrebleu": lambda: sacrebleu.corpus_bleu(hyps, streams)}, rounds=3)
    print(f"WMT21 de-en, references A and B, {a_only} made with A only: why took {t['why']:.2f} s "
          f"({t['why'] / t['sacrebleu']:.0f}x sacrebleu's corpus_bleu once); it says: {result.verdict}")


if __name__ == "__main__":
    main()
