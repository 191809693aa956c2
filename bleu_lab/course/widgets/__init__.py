"""Widgets for the lessons and the classroom playground, each a pure model plus a thin ipywidgets view.

  model.py   pure functions: controls' state in, what to show out (``*_view_model``, ``smoothing_comparison``)
  views.py   ipywidgets views that only read controls, call the model and display its ``.html``
  inputs.py  what happens to pasted text first: blank -> friendly message, long -> cut with a notice

Front doors (each returns a widget to display):

  playground()           everything: hypothesis, references (add/remove), max n, weights, smoothing,
                         tokenizer, lowercase; live explain view, p_n bars, BP curve
  sentence_explorer()    a hypothesis and references box with the explain view
  clip_table_widget()    the clip table of order n for an edited hypothesis
  bp_slider()            BP for a hypothesis length c and reference length r, on the curve
  smoothing_comparer()   one hypothesis under every smoothing method
  beat_bleu_challenge()  write a bad translation that BLEU scores highly
  corpus_explorer()      (corpus.py) a system's sentence-score histogram and its weakest segments
  system_comparer()      (corpus.py) two systems, a paired significance test, its p-value and CIs
  metric_comparer()      (metrics.py) one hypothesis under BLEU, chrF and TER, side by side
  compare_widget()       (compare.py) your own systems side by side: a pair, a bucket, a keyword (lesson 11)
  compare_upload()       (compare.py) the same from uploaded files
"""

from .inputs import EMPTY_HYPOTHESIS, NO_REFERENCES, clip_text, parse_references
from .model import (
    CHALLENGES,
    EXAMPLES,
    BpView,
    Challenge,
    ChallengeResult,
    ClipTableView,
    ExplainResult,
    PlaygroundState,
    PlaygroundView,
    Settings,
    SmoothingComparison,
    bp_view_model,
    challenge_view_model,
    clip_table_view_model,
    explain_texts,
    parse_weights,
    playground_view_model,
    sentence_explorer_view_model,
    smoothing_comparison,
)
from .views import (
    BeatBleuChallenge,
    BpSlider,
    ClipTableWidget,
    Playground,
    SentenceExplorer,
    SmoothingComparer,
    beat_bleu_challenge,
    bp_slider,
    clip_table_widget,
    playground,
    sentence_explorer,
    smoothing_comparer,
)

# imported on first use: a faster playground start
_LAZY = {"corpus_explorer": "corpus", "system_comparer": "corpus", "metric_comparer": "metrics",
         "metric_comparison": "metrics", "compare_widget": "compare", "compare_upload": "compare"}


def __getattr__(name: str) -> object:
    """The corpus and metric widgets (lessons 8-10), imported on first use."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f".{_LAZY[name]}", __name__), name)


__all__ = [
    "corpus_explorer",
    "system_comparer",
    "metric_comparer",
    "metric_comparison",
    "compare_widget",
    "compare_upload",
    "CHALLENGES",
    "EMPTY_HYPOTHESIS",
    "EXAMPLES",
    "NO_REFERENCES",
    "BeatBleuChallenge",
    "BpSlider",
    "BpView",
    "Challenge",
    "ChallengeResult",
    "ClipTableView",
    "ClipTableWidget",
    "ExplainResult",
    "Playground",
    "PlaygroundState",
    "PlaygroundView",
    "SentenceExplorer",
    "Settings",
    "SmoothingComparer",
    "SmoothingComparison",
    "beat_bleu_challenge",
    "bp_slider",
    "bp_view_model",
    "challenge_view_model",
    "clip_table_view_model",
    "clip_table_widget",
    "clip_text",
    "explain_texts",
    "parse_references",
    "parse_weights",
    "playground",
    "playground_view_model",
    "sentence_explorer",
    "sentence_explorer_view_model",
    "smoothing_comparer",
    "smoothing_comparison",
]
