"""Compare your own systems: where do two or more systems' outputs differ, not just by how much?

``compare_systems(systems, references)`` runs the analyses of an MT paper's analysis section, in the spirit of
compare-mt (Neubig et al., 2019, https://aclanthology.org/N19-4007/), every number from bleu_lab's exact core:

  bucketers.py    which bucket a word or segment falls in (compare-mt's cutoffs and labels)
  scorers.py      BLEU of any set of segments, bucket intervals, word accuracy, salient n-grams
  results.py      what a comparison found, as plain dataclasses (the data the reporters read)
  reporters/      one module per format: data (JSON), spreadsheets (CSV), latex, text, html (notebook view and
                  standalone page), figures (inline SVG); common: what they share
  comparison.py   the wiring: compare_systems -> Comparison (the results, with the reporters as methods)
  cli.py          bleu-lab compare --refs REF ... --systems SYS ...
"""

from .comparison import Comparison, compare_systems

__all__ = ["Comparison", "compare_systems"]
