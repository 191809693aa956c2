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
  data.py               the shipped corpus (data/news), text files, sacrebleu's WMT test sets
  cli.py                the command line: bleu-lab HYP REF [REF ...] (python -m bleu_lab)

Each folder is a layer on the ones before it (tests/layers.py; an import never runs from a layer to one above):

  metrics/              chrF and TER, paired significance tests, agreement with people, segment and published scores
  reports/              explain and explain_chrf (every step of one score), their HTML views, figures, the templates
  readings/             every library's reading of BLEU, and why(): which one made a reported number
  compare/              compare your own systems: compare_systems -> scores, tests, buckets, n-grams, examples
  course/               the course's files on disk; the lessons' exercises and widgets, the classroom (needs Jupyter)
  hub/                  JupyterHub's start checks, the fallback spawner, cgroups
  assignments/          graded notebooks: release, grade, feedback, collect
"""

from importlib import import_module

# Imported now, not on first use: a module of the same name (bleu_lab.ngrams) would take the function's place in the
# package once any other module imported it.
from .ngrams import count_ngrams as count_ngrams
from .ngrams import ngrams as ngrams
from .reports.explain import Explanation as Explanation
from .reports.explain import explain as explain
from .reports.explain_chrf import ChrfExplanation as ChrfExplanation
from .reports.explain_chrf import explain_chrf as explain_chrf
from .version import __version__ as __version__

# The other public names, by the module each comes from. Each is imported on first use (PEP 562, as
# bleu_lab.course.widgets does for its corpus widgets), so ``import bleu_lab`` loads no plotting, comparison or
# significance code: matplotlib comes with the first function that needs it. A course hub pays for every import once per
# student: the server that reads ``bleu_lab.course`` (``bleu-lab lessons``, the single-user settings) never needs the
# plotting modules, and a lesson's kernel loads only what its cells call.
_EXPORTS = {
    "brevity": ("brevity_penalty", "closest_ref_length"),
    "metrics.chrf": ("ChrfScore", "corpus_chrf", "sentence_chrf"),
    "clipping": ("ClipRow", "clip_counts", "clip_table", "max_reference_counts"),
    "compare": ("Comparison", "compare_systems"),
    "data": ("Corpus", "load_corpus", "load_wmt"),
    "nltk_style": ("NoMatchWarning", "corpus_bleu", "sentence_bleu"),
    "precision": ("ModifiedPrecision", "modified_precision"),
    "readings": ("WhyResult", "why"),
    "sacrebleu_style": ("BleuScore", "corpus_score", "sentence_score"),
    "metrics.significance": ("BootstrapResult", "RandomizationResult", "paired_bootstrap", "paired_randomization"),
    "statistics": ("BleuStats", "corpus_stats", "segment_stats"),
    "tokenization": ("tokenize",),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted([*_MODULE_OF, "ChrfExplanation", "Explanation", "count_ngrams", "explain", "explain_chrf", "ngrams"])


def __getattr__(name: str) -> object:
    """A public name (imported from its module on first use), or a submodule (``bl.readings``, ``bl.data``)."""
    if name in _MODULE_OF:
        value = getattr(import_module(f".{_MODULE_OF[name]}", __name__), name)
        globals()[name] = value  # the next use is a plain attribute
        return value
    if not name.startswith("_"):
        try:
            return import_module(f".{name}", __name__)
        except ModuleNotFoundError as error:
            if error.name != f"{__name__}.{name}":
                raise  # the submodule exists but something it imports is missing: say that
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
