"""What each library does with the counts: BLEU formulas of the readings that bleu_lab's core does not already hold.

Each is a function of pooled ``BleuStats`` (see ``counts.pool``), written from the library's definition, and reuses
the core's pieces (``nltk_precisions``, the nltk smoothing methods, ``brevity_penalty``, ``bleu_from_precisions``,
``uniform_log_mean``). Scores are on the library's own scale (0–1 unless said otherwise); ``None`` where the
library itself fails (e.g. divides by zero) on this input.
"""

from __future__ import annotations

import math
from dataclasses import replace

from ..brevity import brevity_penalty
from ..geometric_mean import bleu_from_precisions, uniform_log_mean
from ..nltk_style import nltk_precisions
from ..smoothing import NLTK_SMOOTHING
from ..statistics import BleuStats


def nltk_corpus(stats: BleuStats, last: BleuStats, weights: tuple[float, ...], method: str) -> float | None:
    """nltk's ``corpus_bleu`` (3.4 and later; 0–1) with smoothing ``method``, as nltk computes it.

    The p_n and BP come from the pooled ``stats``; like nltk, methods 5-7 read the 5-gram precision and method 6
    the n-gram totals of the *last* segment (``last``), while method 4 uses the corpus length.
    """
    p_n = nltk_precisions(stats, len(weights))
    if p_n[0].numerator == 0:  # nltk returns 0 before smoothing when no unigram matches
        return 0.0
    if method == "method6" and (len(p_n) < 3 or p_n[2].numerator == 0):
        return None  # nltk stops with an AssertionError (or IndexError): no such reading for this input
    seen = replace(stats, matches=stats.matches[:4] + last.matches[4:], totals=last.totals, short=last.short)
    smoothed = NLTK_SMOOTHING[method](p_n, seen)
    return bleu_from_precisions(brevity_penalty(stats.ref_len, stats.hyp_len), weights, smoothed)


def nltk_before_3_4(stats: BleuStats, weights: tuple[float, ...]) -> float:
    """nltk 3.2-3.3 without smoothing (0–1): the first order without a match, and every order above it, left out.

    nltk's old ``method0`` stopped at the first zero p_n, so the sum of w_n log p_n simply lost those terms, as if
    those p_n were 1 (lesson 5, appendix A2; nltk pull request #1844 changed it).
    """
    p_n = nltk_precisions(stats, len(weights))
    if p_n[0].numerator == 0:
        return 0.0
    kept = []
    for p in p_n:
        if p.numerator == 0:
            break
        kept.append(p)
    return bleu_from_precisions(brevity_penalty(stats.ref_len, stats.hyp_len), weights, kept)


def tf_nmt(stats: BleuStats, max_order: int = 4, smooth: bool = False) -> float | None:
    """TensorFlow NMT's ``compute_bleu`` (Hugging Face evaluate's "bleu"), 0–1.

    p_n = m_n / t_n (0 when t_n = 0), or (m_n + 1) / (t_n + 1) for *every* order with ``smooth``; the score is 0
    if any p_n is 0; r is the sum of the *shortest* reference lengths; BP = exp(1 - 1/ratio) unless c/r > 1.
    ``None`` when c or r is 0 (the original divides by zero).
    """
    if stats.hyp_len == 0 or stats.ref_len == 0:
        return None
    matches, totals = stats.matches[:max_order], stats.totals[:max_order]
    if smooth:
        precisions = [(m + 1) / (t + 1) for m, t in zip(matches, totals)]
    else:
        precisions = [m / t if t > 0 else 0.0 for m, t in zip(matches, totals)]
    if min(precisions) <= 0:
        return 0.0
    ratio = stats.hyp_len / stats.ref_len
    bp = 1.0 if ratio > 1.0 else math.exp(1 - 1 / ratio)
    return bleu_from_precisions(bp, (1 / max_order,) * max_order, precisions)


def torchmetrics_bleu(stats: BleuStats, n_gram: int = 4, smooth: bool = False) -> float:
    """torchmetrics' ``BLEUScore`` / ``bleu_score`` (0–1; torchmetrics computes in float32, this in float64).

    0 as soon as some order has no match, *even with* ``smooth``; ``smooth`` adds 1 to m_n and t_n for n >= 2;
    uniform weights 1/n_gram; BP = 1 if c > r else exp(1 - r/c), r chosen by the "first-closest" rule.
    """
    matches, totals = stats.matches[:n_gram], stats.totals[:n_gram]
    if min(matches) == 0:
        return 0.0
    precisions = [matches[0] / totals[0]] + [
        (m + 1) / (t + 1) if smooth else m / t for m, t in zip(matches[1:], totals[1:])
    ]
    return bleu_from_precisions(brevity_penalty(stats.ref_len, stats.hyp_len), (1 / n_gram,) * n_gram, precisions)


def multi_bleu(stats: BleuStats) -> float | None:
    """Moses ``multi-bleu.perl`` (0–100, unrounded; the script prints it with 2 decimals).

    p_n = m_n / t_n (0 when t_n = 0), BLEU = BP * exp(sum_n my_log(p_n) / 4) with my_log(0) = -9999999999, BP =
    exp(1 - r/c) when c < r. ``None`` when r = 0 (the script prints "BLEU = 0" and exits with an error).
    """
    if stats.ref_len == 0:
        return None
    precisions = [m / t if t else 0.0 for m, t in zip(stats.matches[:4], stats.totals[:4])]
    bp = brevity_penalty(stats.ref_len, stats.hyp_len) if stats.hyp_len < stats.ref_len else 1.0
    return 100 * bp * math.exp(uniform_log_mean(precisions, 4))


def d2l_sentence(stats: BleuStats, k: int = 2) -> float | None:
    """d2l.ai's ``bleu(pred_seq, label_seq, k)`` of one sentence (0–1), from its counts against its one label.

    exp(min(0, 1 - len_label / len_pred)) * prod_{n <= min(k, len_pred)} p_n ** (1 / 2**n), p_n with true counts.
    """
    c, r = stats.hyp_len, stats.ref_len
    if c == 0:
        return None
    score = math.exp(min(0, 1 - r / c))
    for n in range(1, min(k, c) + 1):
        score *= math.pow(stats.matches[n - 1] / stats.totals[n - 1], math.pow(0.5, n))
    return score


def compare_mt_bleu(stats: BleuStats) -> float:
    """compare-mt 0.2.10's corpus BLEU (``BleuScorer.score_cached_corpus``, 0–100), from its counts.

    Tokens split on single spaces, the first reference only (compare-mt takes one reference file); p_n = m_n / sum
    over segments of max(1, t_n); 0 when no unigram matches; an order with no match adds log-term 0, as if its p_n
    were 1 (``p = math.log(p) if p > 0 else 0``), so BLEU-4 of a corpus without a 4-gram match is not 0; BP = min(1,
    exp(1 - r/c)). Read in compare_mt/scorers.py (pip package 0.2.10).
    """
    if stats.matches[0] == 0:
        return 0.0
    log_mean = 0.0
    for m, d in zip(stats.matches[:4], stats.nltk_denominators[:4]):
        p = m / d if d != 0 else 0
        log_mean += (math.log(p) if p > 0 else 0) * 0.25
    bp = min(1, math.exp(1 - stats.ref_len / stats.hyp_len)) if stats.hyp_len != 0 else 0
    return 100.0 * bp * math.exp(log_mean)
