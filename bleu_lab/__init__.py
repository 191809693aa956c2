"""bleu_lab — BLEU step by step, exact against nltk and sacrebleu.

The modules follow the lessons, one concept each:

  ngrams.py          1  n-grams and counting
  clipping.py        2  clipping counts by the references
  precision.py       3  modified precision p_n
  brevity.py         4  closest reference length and the brevity penalty
  statistics.py      5  sufficient statistics that add up over a corpus
  geometric_mean.py  6  weights and the geometric mean
  smoothing.py       7  smoothing zero precisions (nltk's methods 0-7, sacrebleu's exp/floor/add-k)
  tokenization.py    8  sacrebleu's tokenizers
  nltk_style.py         sentence_bleu / corpus_bleu: tokens in, 0-1 out, nltk's semantics
  sacrebleu_style.py    sentence_score / corpus_score: strings in, 0-100 out, sacrebleu's semantics
  explain.py            every step of one score, for lessons and widgets
"""

from .brevity import brevity_penalty, closest_ref_length
from .clipping import ClipRow, clip_counts, clip_table, max_reference_counts
from .explain import Explanation, explain
from .ngrams import count_ngrams, ngrams
from .nltk_style import corpus_bleu, sentence_bleu
from .precision import ModifiedPrecision, modified_precision
from .sacrebleu_style import BleuScore, corpus_score, sentence_score
from .statistics import BleuStats, corpus_stats, segment_stats
from .tokenization import tokenize

__version__ = "0.1.0"

__all__ = [
    "BleuScore",
    "BleuStats",
    "ClipRow",
    "Explanation",
    "ModifiedPrecision",
    "brevity_penalty",
    "clip_counts",
    "clip_table",
    "closest_ref_length",
    "corpus_bleu",
    "corpus_score",
    "corpus_stats",
    "count_ngrams",
    "explain",
    "max_reference_counts",
    "modified_precision",
    "ngrams",
    "segment_stats",
    "sentence_bleu",
    "sentence_score",
    "tokenize",
]
