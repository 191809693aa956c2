"""chrF and chrF++ — BLEU's neighbour: an F-score over character n-grams (and, for chrF++, word n-grams).

For each order n (characters 1..6, then words 1..2 for chrF++), count the hypothesis n-grams, the reference
n-grams and their overlap (each n-gram earns at most as often as the reference has it, as in BLEU's clipping):

    P_n = matches_n / hyp_n        R_n = matches_n / ref_n
    chrF_beta = (1 + beta^2) * P * R / (beta^2 * P + R)      P, R = averages of P_n, R_n over the orders

with beta = 2 (recall counts twice as much as precision), on a 0–100 scale. Characters are taken with the spaces
removed; words are split on whitespace with one punctuation mark split off each end. With several references each
segment uses the one that gives it the best F-score; a corpus sums the statistics of its segments first.

Exactly sacrebleu 2.6's ``CHRF`` (Popović 2015, https://aclanthology.org/W15-3049/; chrF++: Popović 2017,
https://aclanthology.org/W17-4770/), including its treatment of orders with no n-grams: by default the averages
use only the orders where both sides have n-grams (``eps_smoothing=False``); ``eps_smoothing=True`` averages the
per-order F-scores instead, with 1e-16 for empty orders, as the original chrF++.py, nltk and Moses do.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from operator import add

import numpy as np

from ..corpus_counting import CHUNK, lay_out, ngram_counts
from ..sacrebleu_style import check_corpus, count_refs
from ..validation import as_text, check_flag, check_length, check_order, plain_strings

EPS = 1e-16  # sacrebleu's stand-in for an undefined precision or recall
PUNCTUATION = frozenset('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~')


@dataclass(frozen=True)
class ChrfOptions:
    """What defines a chrF score (and its signature)."""

    char_order: int = 6
    word_order: int = 0
    beta: int = 2
    lowercase: bool = False
    whitespace: bool = False
    eps_smoothing: bool = False

    def __post_init__(self) -> None:
        check_order(self.char_order, "char_order")
        check_length(self.word_order, "word_order")
        check_length(self.beta, "beta")
        for name in ("lowercase", "whitespace", "eps_smoothing"):
            check_flag(getattr(self, name), name)

    @property
    def name(self) -> str:
        """'chrF2', or 'chrF2++' with word 2-grams."""
        return f"chrF{self.beta}" + "+" * self.word_order

    def signature(self, nrefs: int | str) -> str:
        """sacrebleu's signature, e.g. ``nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0``."""
        import sacrebleu  # here, not at the top: ``import bleu_lab`` does not load sacrebleu for its version alone

        return (
            f"nrefs:{nrefs}|case:{'lc' if self.lowercase else 'mixed'}|eff:{'no' if self.eps_smoothing else 'yes'}"
            f"|nc:{self.char_order}|nw:{self.word_order}|space:{'yes' if self.whitespace else 'no'}"
            f"|version:{sacrebleu.__version__}"
        )


@dataclass(frozen=True)
class ChrfScore:
    """A chrF result: the score (0–100), the pooled [hyp, ref, match] counts per order, and the signature."""

    score: float
    stats: tuple[int, ...]  # hyp_n, ref_n, matches_n for each order: characters 1..char_order, then words
    options: ChrfOptions = field(repr=False)
    signature: str = ""

    @property
    def name(self) -> str:
        return self.options.name

    def __str__(self) -> str:
        return f"{self.name} = {self.score:.2f}"


# --- step 1: the n-grams -----------------------------------------------------------------------------------------


def character_line(text: str, whitespace: bool = False) -> str:
    """The characters chrF counts: ``text`` with every whitespace removed, or as it is with ``whitespace``."""
    return text if whitespace else "".join(text.split())


def char_ngrams(text: str, n: int, whitespace: bool = False) -> Counter[str]:
    """Character n-grams of ``text``, spaces removed first unless ``whitespace``."""
    line = character_line(text, whitespace)
    return Counter(line[i:i + n] for i in range(len(line) - n + 1))


def chrf_words(text: str) -> list[str]:
    """Whitespace tokens, with one punctuation mark split off the end (or else the start) of each longer token."""
    words = []
    for w in text.split():
        if len(w) > 1 and w[-1] in PUNCTUATION:
            words += [w[:-1], w[-1]]
        elif len(w) > 1 and w[0] in PUNCTUATION:
            words += [w[0], w[1:]]
        else:
            words.append(w)
    return words


def word_ngrams(words: Sequence[str], n: int) -> Counter[str]:
    """Word n-grams, each joined by one space."""
    return Counter(" ".join(words[i:i + n]) for i in range(len(words) - n + 1))


def ngram_profile(text: str, options: ChrfOptions) -> list[Counter[str]]:
    """The n-gram counts chrF compares: one Counter per character order, then one per word order (text lowercased
    first if ``options.lowercase``)."""
    text = text.lower() if options.lowercase else text
    profile = [char_ngrams(text, n, options.whitespace) for n in range(1, options.char_order + 1)]
    if options.word_order:
        words = chrf_words(text)
        profile += [word_ngrams(words, n) for n in range(1, options.word_order + 1)]
    return profile


# --- step 2: statistics and the F-score ----------------------------------------------------------------------------


def match_statistics(hyp: Counter[str], ref: Counter[str]) -> list[int]:
    """[hypothesis n-grams, reference n-grams, matches]; matches clip each n-gram at its reference count.

    As sacrebleu: when the reference has no n-gram of this order, the hypothesis count is 0 too. The matches are
    the sum of ``clipping.clip_counts(hyp, ref)``, written out here because this is chrF's inner loop.
    """
    matches = sum(min(count, ref[g]) for g, count in hyp.items() if g in ref)
    return [sum(hyp.values()) if ref else 0, sum(ref.values()), matches]


def profile_statistics(hyp: Sequence[Counter[str]], ref: Sequence[Counter[str]]) -> list[int]:
    """The flat chrF statistics of two n-gram profiles: [hyp, ref, match] for each order in turn."""
    return [x for h, r in zip(hyp, ref) for x in match_statistics(h, r)]


def order_triples(stats: Sequence[int]) -> list[tuple[int, int, int]]:
    """Flat statistics as one (hyp, ref, match) triple per order."""
    return [(stats[i], stats[i + 1], stats[i + 2]) for i in range(0, len(stats), 3)]


def precision_recall(n_hyp: int, n_ref: int, n_match: int) -> tuple[float, float]:
    """P_n = matches / hyp, R_n = matches / ref; EPS stands in for one with nothing to divide by."""
    return (n_match / n_hyp if n_hyp > 0 else EPS, n_match / n_ref if n_ref > 0 else EPS)


def f_beta(prec: float, rec: float, beta: int) -> float:
    """F_beta = (1 + beta^2) * P * R / (beta^2 * P + R), on 0–1; EPS when the denominator is 0."""
    factor = beta ** 2
    denom = factor * prec + rec
    return (1 + factor) * prec * rec / denom if denom > 0 else EPS


def counted_orders(stats: Sequence[int]) -> list[int]:
    """The orders (0-based) whose P_n and R_n enter the averages: both sides have n-grams (sacrebleu's rule)."""
    return [i for i, (n_hyp, n_ref, _) in enumerate(order_triples(stats)) if n_hyp > 0 and n_ref > 0]


def average_precision_recall(stats: Sequence[int]) -> tuple[float, float]:
    """P and R: the averages of P_n and R_n over the counted orders (0, 0 when no order counts)."""
    counted, triples = counted_orders(stats), order_triples(stats)
    if not counted:
        return 0.0, 0.0
    avg_prec = avg_rec = 0.0
    for i in counted:
        prec, rec = precision_recall(*triples[i])
        avg_prec += prec
        avg_rec += rec
    return avg_prec / len(counted), avg_rec / len(counted)


def f_score(stats: Sequence[int], options: ChrfOptions) -> float:
    """chrF (0–100) from [hyp, ref, match] per order, with sacrebleu's arithmetic, step for step.

    ``eps_smoothing=False``: 100 * F_beta(P, R) of the averaged P and R (0 when P + R = 0);
    ``eps_smoothing=True``: 100 * the mean of F_beta(P_n, R_n) over all orders (EPS for an empty order).
    """
    if options.eps_smoothing:
        total = 0.0
        for triple in order_triples(stats):
            total += f_beta(*precision_recall(*triple), options.beta)
        return 100 * total / (options.char_order + options.word_order)
    prec, rec = average_precision_recall(stats)
    return 100 * f_beta(prec, rec, options.beta) if prec + rec else 0.0


def best_reference(candidates: Sequence[Sequence[int]], options: ChrfOptions) -> int:
    """The index of the statistics with the best F-score, the first on a tie (as sacrebleu picks a reference)."""
    best, best_f = 0, -1.0
    for i, stats in enumerate(candidates):
        f = f_score(stats, options)
        if f > best_f:
            best, best_f = i, f
    return best


def reference_statistics(hypothesis: str, references: Sequence[str], options: ChrfOptions) -> list[list[int]]:
    """The statistics of one hypothesis against each of its references in turn."""
    hyp = ngram_profile(hypothesis, options)
    return [profile_statistics(hyp, ngram_profile(ref, options)) for ref in references]


def segment_statistics(hypothesis: str, references: Sequence[str], options: ChrfOptions) -> list[int]:
    """The statistics of one segment against the reference that gives it the best F-score (the first on a tie)."""
    candidates = reference_statistics(hypothesis, references, options)
    return candidates[best_reference(candidates, options)]


# --- the fast path: the same statistics for a whole corpus --------------------------------------------------------


def corpus_statistics(
    hypotheses: Sequence[str], references: Sequence[Sequence[str]], options: ChrfOptions
) -> list[int]:
    """The chrF statistics of a checked corpus, summed over segments: ``segment_statistics`` of each, added up.

    The corpus scorer's fast path: ``CHUNK`` segments at a time (so memory stays bounded), the character n-grams
    (then the word n-grams) of all their texts are numbered at once by ``corpus_counting.ngram_counts``, and
    matches_n = sum over g of min(Count_hyp(g), Count_ref(g)) for each reference in turn. Each segment then keeps
    the reference with the best F-score (the first on a tie), as ``segment_statistics`` does.
    """
    total = [0] * (3 * (options.char_order + options.word_order))
    for best in _segment_statistics(hypotheses, references, options):
        total = list(map(add, total, best))
    return total


def segment_rows(hypotheses: Sequence[str], references: Sequence[Sequence[str]], options: ChrfOptions) -> np.ndarray:
    """Each segment's chrF statistics (``segment_statistics``, by the fast path) as one int64 row: what the paired
    tests resample (``significance.paired_rows``); summing the rows gives ``corpus_statistics``."""
    width = 3 * (options.char_order + options.word_order)
    rows = list(_segment_statistics(hypotheses, references, options))
    return np.array(rows, dtype=np.int64).reshape(len(rows), width)


def scores_from_rows(rows: np.ndarray, options: ChrfOptions) -> np.ndarray:
    """``f_score`` of every row of summed statistics, on the row's own number type (sacrebleu's bootstrap sums
    float32 rows, its randomization int64 rows, and scores them as they are): float32 scores from float32 rows.

    Without eps smoothing, vectorized over the rows with ``f_score``'s operations in its order (a sum over the
    counted orders, one order after another), so each score is the same number bit for bit."""
    rows = np.asarray(rows)
    if options.eps_smoothing or not len(rows):
        return np.array([f_score(row, options) for row in rows])
    arith = (rows[:1, 2] / rows[:1, 0]).dtype  # what one division of the row's numbers gives: float32 or float64
    avg_prec, avg_rec = np.zeros(len(rows), arith), np.zeros(len(rows), arith)
    counted = np.zeros(len(rows), np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(0, rows.shape[1], 3):
            n_hyp, n_ref, n_match = rows[:, i], rows[:, i + 1], rows[:, i + 2]
            both = (n_hyp > 0) & (n_ref > 0)
            avg_prec = np.where(both, avg_prec + n_match / n_hyp, avg_prec)
            avg_rec = np.where(both, avg_rec + n_match / n_ref, avg_rec)
            counted += both
        avg_prec = np.where(counted > 0, avg_prec / counted.astype(arith), 0.0).astype(arith)
        avg_rec = np.where(counted > 0, avg_rec / counted.astype(arith), 0.0).astype(arith)
        factor = options.beta ** 2
        score = (1 + factor) * avg_prec * avg_rec / (factor * avg_prec + avg_rec)
        return np.where(avg_prec + avg_rec != 0, 100 * score, 0.0).astype(arith)


def _segment_statistics(
    hypotheses: Sequence[str], references: Sequence[Sequence[str]], options: ChrfOptions
) -> Iterator[list[int]]:
    for start in range(0, len(hypotheses), CHUNK):
        hyps, refs = hypotheses[start:start + CHUNK], references[start:start + CHUNK]
        for candidates, seg in zip(_reference_statistics(hyps, refs, options), refs):
            candidates = candidates[:len(seg)]
            yield candidates[0] if len(candidates) == 1 else candidates[best_reference(candidates, options)]


def _reference_statistics(
    hypotheses: Sequence[str], references: Sequence[Sequence[str]], options: ChrfOptions
) -> list[list[list[int]]]:
    """``reference_statistics`` of every segment: [segment][reference] -> [hyp, ref, match] per order."""
    hyps = [h.lower() for h in hypotheses] if options.lowercase else hypotheses
    refs = [[r.lower() for r in seg] for seg in references] if options.lowercase else references
    ws = options.whitespace
    parts = [_order_statistics([character_line(h, ws) for h in hyps],
                               [[character_line(r, ws) for r in seg] for seg in refs], options.char_order)]
    if options.word_order:
        words = [[chrf_words(r) for r in seg] for seg in refs]
        parts.append(_order_statistics([chrf_words(h) for h in hyps], words, options.word_order))
    return np.concatenate(parts, axis=2).tolist()


def _order_statistics(
    hypotheses: Sequence[Sequence[str] | str], references: Sequence[Sequence[Sequence[str] | str]], max_order: int
) -> np.ndarray:
    """[hyp_n, ref_n, matches_n] for n = 1..max_order, of every segment against each of its references.

    Shape (segments, most references, 3 * max_order); the rows past a segment's own references are zero.
    """
    layout = lay_out(references, hypotheses)
    segments, refs = layout.segments, layout.slots - 1
    stats = np.zeros((segments, refs, max_order, 3), dtype=np.int64)
    ref_lengths = np.zeros((segments, refs), dtype=np.int64)
    for i, seg in enumerate(references):
        ref_lengths[i, :len(seg)] = [len(r) for r in seg]
    hyp_lengths = np.fromiter(map(len, hypotheses), np.int64, segments)
    for n in range(1, max_order + 1):
        ref_size = np.maximum(ref_lengths - (n - 1), 0)
        stats[:, :, n - 1, 1] = ref_size  # as sacrebleu: no hypothesis n-grams count where the reference has none
        stats[:, :, n - 1, 0] = np.where(ref_size > 0, np.maximum(hyp_lengths - (n - 1), 0)[:, None], 0)
    for n, order in enumerate(ngram_counts(layout, max_order)):
        for k in range(refs):
            stats[:, k, n, 2] = order.per_segment(np.minimum(order.counts[0], order.counts[k + 1]), segments)
    return stats.reshape(segments, refs, 3 * max_order)


# --- the front doors -----------------------------------------------------------------------------------------------


def sentence_chrf(
    hypothesis: str,
    references: Sequence[str],
    *,
    char_order: int = 6,
    word_order: int = 0,
    beta: int = 2,
    lowercase: bool = False,
    whitespace: bool = False,
    eps_smoothing: bool = False,
) -> ChrfScore:
    """chrF of one hypothesis string against its reference strings, as ``sacrebleu.CHRF(...).sentence_score``."""
    hypothesis, refs = sentence_inputs(hypothesis, references)
    return corpus_chrf([hypothesis], [refs], char_order=char_order, word_order=word_order, beta=beta,
                       lowercase=lowercase, whitespace=whitespace, eps_smoothing=eps_smoothing)


def corpus_chrf(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    char_order: int = 6,
    word_order: int = 0,
    beta: int = 2,
    lowercase: bool = False,
    whitespace: bool = False,
    eps_smoothing: bool = False,
) -> ChrfScore:
    """Corpus chrF: statistics summed over segments, then one F-score. ``references[i]`` lists segment i's
    references (as ``corpus_score``); equal to ``sacrebleu.CHRF(...).corpus_score`` on the transposed streams."""
    options = ChrfOptions(char_order, word_order, beta, lowercase, whitespace, eps_smoothing)
    hyps, refs = check_corpus(hypotheses, references)
    total = corpus_statistics(hyps, refs, options)
    return ChrfScore(f_score(total, options), tuple(total), options, options.signature(count_refs(refs)))


def sentence_inputs(hypothesis: object, references: object) -> tuple[str, list[str]]:
    """One segment's hypothesis and reference strings, checked: a clear TypeError/ValueError names what is wrong."""
    return as_text(hypothesis, "hypothesis"), plain_strings(_reference_list(references), "references",
                                                             "a reference string")


def _reference_list(references: object) -> Sequence:
    if isinstance(references, str) or not isinstance(references, Sequence):
        raise TypeError(f"references must be a list of reference strings, not {type(references).__name__}; "
                        "wrap a single reference in a list: [reference]")
    if not references:
        raise ValueError("references is empty: chrF needs at least one reference")
    return references
