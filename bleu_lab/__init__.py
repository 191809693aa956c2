"""bleu_lab — BLEU step by step, exact against nltk and sacrebleu.

The modules follow the lessons, one concept each:

  ngrams.py          1  n-grams and counting
  clipping.py        2  clipping counts by the references
  precision.py       3  modified precision p_n
  brevity.py         4  closest reference length and the brevity penalty
  statistics.py      5  sufficient statistics that add up over a corpus
  corpus_counting.py 5  the same counts for a whole corpus in a few array operations (the fast path)
  geometric_mean.py  6  weights and the geometric mean
  smoothing.py       7  smoothing zero precisions (nltk's methods 0-7, sacrebleu's exp/floor/add-k)
  tokenization.py    8  tokenizers: mteval-v13a written out, sacrebleu's intl, char, zh, none (+ ja-mecab, ko-mecab)
  nltk_style.py         sentence_bleu / corpus_bleu: tokens in, 0-1 out, nltk's semantics
  sacrebleu_style.py    sentence_score / corpus_score: strings in, 0-100 out, sacrebleu's semantics
  explain.py            every step of one score, for lessons and widgets
  significance.py       paired bootstrap and approximate randomization between two systems (ties counted)
  data.py               the shipped corpus (data/news), text files, sacrebleu's WMT test sets
  chrf.py               chrF / chrF++: BLEU's neighbour, character n-gram F-score (as sacrebleu's CHRF)
  explain_chrf.py       every step of one chrF score: n-gram tables, P_n and R_n, the reference kept, F-beta
  cli.py                the command line: bleu-lab HYP REF [REF ...] (python -m bleu_lab)
  readings/             every library's reading of BLEU, and why(): which one made a reported number
  compare/              compare your own systems: compare_systems -> scores, tests, buckets, n-grams, examples
"""

from .brevity import brevity_penalty, closest_ref_length
from .chrf import ChrfScore, corpus_chrf, sentence_chrf
from .clipping import ClipRow, clip_counts, clip_table, max_reference_counts
from .compare import Comparison, compare_systems
from .data import Corpus, load_corpus, load_wmt
from .explain import Explanation, explain
from .explain_chrf import ChrfExplanation, explain_chrf
from .ngrams import count_ngrams, ngrams
from .nltk_style import NoMatchWarning, corpus_bleu, sentence_bleu
from .precision import ModifiedPrecision, modified_precision
from .readings import WhyResult, why
from .sacrebleu_style import BleuScore, corpus_score, sentence_score
from .significance import BootstrapResult, RandomizationResult, paired_bootstrap, paired_randomization
from .statistics import BleuStats, corpus_stats, segment_stats
from .tokenization import tokenize
from .version import __version__ as __version__

__all__ = [
    "BleuScore",
    "BleuStats",
    "BootstrapResult",
    "ChrfExplanation",
    "ChrfScore",
    "ClipRow",
    "Comparison",
    "Corpus",
    "Explanation",
    "ModifiedPrecision",
    "NoMatchWarning",
    "RandomizationResult",
    "WhyResult",
    "brevity_penalty",
    "clip_counts",
    "clip_table",
    "closest_ref_length",
    "compare_systems",
    "corpus_bleu",
    "corpus_chrf",
    "corpus_score",
    "corpus_stats",
    "count_ngrams",
    "explain",
    "explain_chrf",
    "load_corpus",
    "load_wmt",
    "max_reference_counts",
    "modified_precision",
    "ngrams",
    "paired_bootstrap",
    "paired_randomization",
    "segment_stats",
    "sentence_bleu",
    "sentence_chrf",
    "sentence_score",
    "tokenize",
    "why",
]
