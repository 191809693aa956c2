"""The readings of BLEU in the wild, and ``why``: which library and which setting made a reported number.

  counts.py     count every segment once per tokenization; pool it with any reference-length rule
  formulas.py   what TensorFlow NMT/Hugging Face evaluate, torchmetrics, multi-bleu.perl, d2l and old nltk compute
  catalogue.py  every reading (library, settings, source, the call that gives it), scored from shared counts
  why.py        why(hypotheses, references, reported): the readings that reproduce a number; input mistakes
  view.py       readings_view(result): the readings table beside the explain view of the segment where two readings
                differ most
  cli.py        bleu-lab why HYP REF [REF ...] --reported 27.3
"""

from .catalogue import SOURCES, Reading, Workspace, readings
from .view import ReadingsView, readings_view
from .why import Finding, WhyResult, why

__all__ = ["SOURCES", "Finding", "Reading", "ReadingsView", "WhyResult", "Workspace", "readings", "readings_view",
           "why"]
