"""The nltk front door: BLEU on token lists, scores in 0–1, with nltk's exact semantics.

``sentence_bleu`` and ``corpus_bleu`` reproduce ``nltk.translate.bleu_score`` (3.10) number for number,
built from the steps before: statistics -> modified precisions -> smoothing -> BP x geometric mean.

Where bleu_lab differs on purpose:
- a string hypothesis or reference is split on whitespace (nltk would silently score characters);
- smoothing is a name, "method0" ... "method7" (bleu_lab's pure functions), or any nltk-style callable
  (``smoothing_function=SmoothingFunction().method1`` works as in nltk);
- a list of one-word strings given as references is rejected (it is almost always one tokenized reference that
  lost its brackets; nltk would score it as many one-word references);
- at corpus level nltk's methods 5-7 read the *last* segment (its 5-gram precision, its length); here they
  use the pooled corpus statistics, so the result does not depend on segment order (methods 0-4 agree);
- auto_reweigh applies when the weights equal (0.25,)*4 whatever sequence type holds them
  (nltk only when they are that exact tuple);
- impossible requests raise ValueError/TypeError instead of AssertionError or IndexError.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from numbers import Real

from .brevity import brevity_penalty
from .geometric_mean import bleu_from_precisions
from .precision import ModifiedPrecision
from .smoothing import NLTK_METHODS, NLTK_SMOOTHING, stats_order_needed
from .statistics import BleuStats, pooled_stats
from .validation import (
    as_reference_list,
    as_sequence,
    as_tokens,
    check_choice,
    check_flag,
    check_same_length,
    check_weights,
)

UNIFORM_4 = (0.25, 0.25, 0.25, 0.25)
Weights = Sequence[float] | Sequence[Sequence[float]]
Smoothing = str | Callable | None


class NoMatchWarning(UserWarning):
    """Warned, as nltk warns, when some n-gram order has no match: unsmoothed BLEU is then 0.

    A ``UserWarning`` subclass, so code written for nltk catches it; lessons silence it with
    ``warnings.simplefilter("ignore", bl.NoMatchWarning)``.
    """


def sentence_bleu(
    references: Iterable,
    hypothesis: Sequence[str] | str,
    weights: Weights = UNIFORM_4,
    smoothing: Smoothing = None,
    auto_reweigh: bool = False,
    *,
    smoothing_function: Smoothing = None,
) -> float | list[float]:
    """BLEU of one hypothesis against its references, 0–1, exactly as nltk's ``sentence_bleu``.

    BLEU = BP * exp(sum_n w_n log p_n), with p_n the modified precisions (optionally smoothed).
    ``references``: any iterable of token lists or strings; ``hypothesis``: a token list or a string.
    ``weights``: one tuple (or 1-d array) of weights, or a list of them for one score per weighting, as nltk >= 3.8.
    ``smoothing``: a method name ("method0" ... "method7") or, as nltk's ``smoothing_function``, any callable
    ``f(p_n, references=..., hypothesis=..., hyp_len=...)`` such as ``SmoothingFunction().method1``.
    An empty hypothesis, or one with no unigram match, scores 0. Warns ``NoMatchWarning`` as nltk does.
    """
    return _bleu([references], [hypothesis], weights, smoothing, auto_reweigh, smoothing_function,
                 ("references", "hypothesis"))


def corpus_bleu(
    list_of_references: Iterable,
    hypotheses: Sequence,
    weights: Weights = UNIFORM_4,
    smoothing: Smoothing = None,
    auto_reweigh: bool = False,
    *,
    smoothing_function: Smoothing = None,
) -> float | list[float]:
    """Corpus BLEU, 0–1, exactly as nltk's ``corpus_bleu`` (named methods 5–7 pool; see the module notes).

    Matches, totals and lengths are summed over all segments first; then
    BLEU = BP(sum r, sum c) * exp(sum_n w_n log(sum matches_n / sum max(1, total_n))).
    ``weights``, ``smoothing`` and ``smoothing_function`` as in ``sentence_bleu``; a callable smoothing function
    receives the last segment's references and hypothesis, as nltk passes them.
    """
    return _bleu(list_of_references, hypotheses, weights, smoothing, auto_reweigh, smoothing_function, None)


def _bleu(list_of_references: Iterable, hypotheses: Sequence, weights: Weights, smoothing: Smoothing,
          auto_reweigh: bool, smoothing_function: Smoothing, _names: tuple[str, str] | None) -> float | list[float]:
    """corpus_bleu; ``_names`` = (references, hypothesis) names one sentence's arguments (sentence_bleu)."""
    weight_sets, several = _weight_sets(weights)
    smoothing = _one_smoothing(smoothing, smoothing_function)
    check_flag(auto_reweigh, "auto_reweigh")
    if _names is None:
        list_of_references = as_sequence(_listed(list_of_references), "list_of_references",
                                         "reference lists (one list per hypothesis)")
        as_sequence(hypotheses, "hypotheses", "hypotheses (token lists or strings)")
        check_same_length(list_of_references, "list_of_references", hypotheses, "hypotheses")
        if len(hypotheses) == 0:
            raise ValueError("hypotheses is empty: corpus BLEU needs at least one hypothesis and its references")
        refs = [as_reference_list(r, f"list_of_references[{i}]", tokenized_one=True)
                for i, r in enumerate(list_of_references)]
        hyps = [as_tokens(h, f"hypotheses[{i}]") for i, h in enumerate(hypotheses)]
    else:
        refs = [as_reference_list(list_of_references[0], _names[0], tokenized_one=True)]
        hyps = [as_tokens(hypotheses[0], _names[1])]
    order = max(len(w) for w in weight_sets)
    name = smoothing if isinstance(smoothing, str) else "method0"
    stats = pooled_stats(refs, hyps, stats_order_needed(name, order))
    p_n = nltk_precisions(stats, order)
    if p_n[0].numerator == 0:  # no unigram match: nltk returns the int 0 (one per weighting) before anything else
        return [0] * len(weight_sets) if several else 0
    if smoothing == "method0":
        _warn_no_match(p_n)
    scores = [_score(stats, p_n[: len(w)], w, smoothing, auto_reweigh, refs[-1], hyps[-1]) for w in weight_sets]
    return scores if several else scores[0]


def _score(stats: BleuStats, p_n: list[ModifiedPrecision], weights: tuple[float, ...], smoothing: str | Callable,
           auto_reweigh: bool, last_refs: list[list[str]], last_hyp: list[str]) -> float:
    if isinstance(smoothing, str):
        return bleu_from_stats(stats, weights, smoothing, auto_reweigh)
    if p_n[0].numerator == 0:  # no unigram match: nltk returns 0 before smoothing
        return 0.0
    bp = brevity_penalty(stats.ref_len, stats.hyp_len)
    weights = reweighed(weights, stats.hyp_len) if auto_reweigh else weights
    try:
        smoothed = list(smoothing(list(p_n), references=last_refs, hypothesis=last_hyp, hyp_len=stats.hyp_len))
    except TypeError as err:
        raise TypeError(
            "smoothing must be a method name such as 'method1' or a function like nltk's "
            f"SmoothingFunction().method1, called f(p_n, references=, hypothesis=, hyp_len=): {err}"
        ) from err
    if len(smoothed) != len(p_n) or not all(isinstance(p, Real) and not isinstance(p, bool) for p in smoothed):
        raise TypeError(f"smoothing function {getattr(smoothing, '__name__', smoothing)!r} must return one number per "
                        f"n-gram order ({len(p_n)}), got {smoothed!r:.80}")
    return bleu_from_precisions(bp, weights, smoothed)


def without_warnings(func: Callable, *args: object, **kwargs: object) -> object:
    """``func(*args, **kwargs)`` with ``NoMatchWarning`` silenced: for checks and views that report zeros themselves."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NoMatchWarning)
        return func(*args, **kwargs)


def _warn_no_match(p_n: Sequence[ModifiedPrecision]) -> None:
    """nltk's warning, one per order without a match (its method0 warns; the score is then ~0)."""
    for i, p in enumerate(p_n):
        if p.numerator == 0:
            warnings.warn(NoMatchWarning(
                f"\nThe hypothesis contains 0 counts of {i + 1}-gram overlaps.\n"
                "Therefore the BLEU score evaluates to 0, independently of\n"
                "how many N-gram overlaps of lower order it contains.\n"
                "Consider using lower n-gram order or use SmoothingFunction()"
            ), stacklevel=4)


def _weight_sets(weights: object) -> tuple[list[tuple[float, ...]], bool]:
    """One weighting or several, as nltk decides: ``weights[0][0]`` works only for a list of weightings."""
    if getattr(weights, "ndim", None) == 2 and hasattr(weights, "tolist"):
        weights = weights.tolist()
    if isinstance(weights, Sequence) and not isinstance(weights, (str, bytes, bytearray)) and len(weights) > 0 \
            and all(isinstance(w, Sequence) or getattr(w, "ndim", None) == 1 for w in weights):
        sets = [check_weights(w, f"weights[{i}]") for i, w in enumerate(weights)]
        return sets, len(sets) > 1
    return [check_weights(weights)], False


def _listed(value: object) -> object:
    """An iterable of reference lists (e.g. a generator) as a list; anything else unchanged for the checks."""
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes, bytearray, Sequence)):
        return list(value)
    return value


def _one_smoothing(smoothing: Smoothing, smoothing_function: Smoothing) -> str | Callable:
    if smoothing is not None and smoothing_function is not None:
        raise TypeError("give smoothing or smoothing_function (nltk's name for it), not both")
    chosen, name = (smoothing, "smoothing") if smoothing is not None else (smoothing_function, "smoothing_function")
    if chosen is None:
        return "method0"
    if callable(chosen):
        return chosen
    return check_choice(chosen, name, NLTK_METHODS)


@dataclass(frozen=True)
class NltkBreakdown:
    """The intermediate values of nltk's formula: raw p_n, smoothed p_n, weights used, BP and the score."""

    precisions: tuple[ModifiedPrecision, ...]
    smoothed: tuple[float, ...]
    weights: tuple[float, ...]
    bp: float
    score: float


def nltk_breakdown(
    stats: BleuStats, weights: Sequence[float] = UNIFORM_4, smoothing: str = "method0", auto_reweigh: bool = False
) -> NltkBreakdown:
    """Every intermediate value of nltk's BLEU for pooled statistics (``stats`` must hold len(weights) orders)."""
    p_n = nltk_precisions(stats, len(weights))
    bp = brevity_penalty(stats.ref_len, stats.hyp_len)
    weights = reweighed(weights, stats.hyp_len) if auto_reweigh else tuple(weights)
    if p_n[0].numerator == 0:  # no unigram matches: nltk returns 0 before smoothing
        return NltkBreakdown(tuple(p_n), tuple(float(p) for p in p_n), weights, bp, 0.0)
    smoothed = NLTK_SMOOTHING[smoothing](p_n, stats)
    score = bleu_from_precisions(bp, weights, smoothed)
    return NltkBreakdown(tuple(p_n), tuple(float(p) for p in smoothed), weights, bp, score)


def bleu_from_stats(
    stats: BleuStats, weights: Sequence[float] = UNIFORM_4, smoothing: str = "method0", auto_reweigh: bool = False
) -> float:
    """nltk's BLEU (0–1) from pooled statistics; ``stats`` must hold at least ``len(weights)`` orders."""
    return nltk_breakdown(stats, weights, smoothing, auto_reweigh).score


def nltk_precisions(stats: BleuStats, max_order: int) -> list[ModifiedPrecision]:
    """p_1 ... p_N with nltk's denominators (a hypothesis shorter than n still counts 1 n-gram)."""
    if stats.max_order < max_order:
        raise ValueError(f"stats hold {stats.max_order} n-gram orders but {max_order} are needed")
    denominators = stats.nltk_denominators
    return [ModifiedPrecision(stats.matches[i], denominators[i]) for i in range(max_order)]


def reweighed(weights: Sequence[float], hyp_len: int) -> tuple[float, ...]:
    """nltk's auto_reweigh: default 4-gram weights become 1/c each for a hypothesis of c < 4 tokens."""
    if 0 < hyp_len < 4 and tuple(weights) == UNIFORM_4:
        return (1 / hyp_len,) * hyp_len
    return tuple(weights)
