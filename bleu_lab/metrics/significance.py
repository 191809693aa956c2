"""Significance — is system B really better than system A, or did the test set just happen to favour it?

A corpus BLEU gap of one point can come from a handful of lucky segments. Both tests below ask how
often a gap at least as large as the observed one shows up by chance, and both work on the per-segment
sufficient statistics (one row per segment, see ``stats_matrix``), so a resample costs a sum, not a re-scoring.

- paired approximate randomization (Noreen 1989; Riezler & Maxwell 2005): for every segment, toss a coin to
  swap the two systems' outputs, score the two shuffled "systems", repeat. The observed assignment is one of the
  shuffles, so shuffles that tie the observed gap count (ties included, ``method="noreen"``, the default):
      p = (#{trials : |BLEU_a - BLEU_b| >= |observed gap|} + 1) / (n_trials + 1)
  sacrebleu (following multeval) counts only strictly larger gaps, ``>`` (``method="sacrebleu"``): with few
  differing segments most shuffles tie, and a one-sentence change then gets p = 1 / (n_trials + 1).
- paired bootstrap resampling (Koehn 2004): draw N segments with replacement, score *both* systems on the
  same draw, repeat. The spread of the resampled scores gives each system's mean and 95% interval, and
  Koehn's win rate. Two p-values from the resampled gaps g_i = BLEU_sys(i) - BLEU_base(i):
      shift (two-sided):  p = (#{i : |g_i - mean(g)| >= |observed gap|} + 1) / (n_samples + 1)
      sacrebleu:          d_i = |g_i|,  p = (#{i : d_i - mean(d) > |observed gap|} + 1) / (n_samples + 1)
  sacrebleu's p-value folds the gaps and counts the upper tail only: roughly one-sided (about half the two-sided
  one for a symmetric spread of gaps), and below about 0.42 however small the gap.

With ``method="sacrebleu"`` both reproduce sacrebleu 2.6's ``sacrebleu.significance.PairedTest`` for the same
seed (``SACREBLEU_SEED``): the same random draws from ``numpy.random.default_rng(seed)``, the same float32
statistics in the bootstrap, hence the same p-values, means and half-width confidence intervals. Only the
arithmetic is vectorized.

Many comparisons at once (lesson 9): ``bonferroni_alpha`` tests each of m at alpha / m; ``holm_adjusted`` gives Holm's
step-down adjusted p-values, which reject everything Bonferroni rejects and keep the same guarantee.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from functools import cache, lru_cache

import numpy as np

from ..geometric_mean import uniform_log_mean
from ..sacrebleu_style import BleuScore, ScoreOptions, check_corpus, count_refs, score_from_stats
from ..smoothing import SACREBLEU_DEFAULTS
from ..statistics import BleuStats, PreparedReferences, prepare_references, segment_counts
from ..tokenization import make_preprocessor
from ..validation import as_sequence, check_flag, check_same_length, plain_strings

SCORE_OPTIONS = tuple(f.name for f in fields(ScoreOptions))
SACREBLEU_DEFAULT_SEED = 12345  # sacrebleu's SACREBLEU_SEED when the variable is not set
FLOAT32_EXACT = 2**24  # float32 holds every integer below this
_CHUNK = 2000  # resamples/trials summed per matrix product (bounds memory, drives the progress bar)


# --- statistics: one row per segment --------------------------------------------------------------------


def score_options(**options: object) -> ScoreOptions:
    """``ScoreOptions`` from ``corpus_score``'s keyword arguments, with a clear error for an unknown name."""
    unknown = sorted(set(options) - set(SCORE_OPTIONS))
    if unknown:
        raise TypeError(f"unknown score option {unknown[0]!r}; choose from {', '.join(SCORE_OPTIONS)}")
    return ScoreOptions(**options)


def stats_matrix(
    hypotheses: Sequence[str], references: Sequence[Sequence[str]], **options: object
) -> np.ndarray:
    """Per-segment BLEU statistics as an int64 array, one row per segment, in sacrebleu's layout.

    Row i = [c_i, r_i, matches_1..N, totals_1..N] of ``hypotheses[i]`` against ``references[i]``; summing
    rows gives the corpus statistics (``rows.sum(0)``), which is all a corpus score needs.
    Takes ``corpus_score``'s options (tokenize, lowercase, ..., max_ngram_order).
    """
    opts = score_options(**options)
    hyps, refs = check_corpus(hypotheses, references)
    prep = make_preprocessor(opts.tokenize, opts.lowercase)
    return _rows([[prep(r) for r in seg] for seg in refs], map(prep, hyps), opts.max_ngram_order)


def _rows(
    refs_tokens: Sequence[Sequence[Sequence[str]] | PreparedReferences],
    hyps_tokens: Iterable[Sequence[str]],
    order: int,
) -> np.ndarray:
    """Statistics rows of tokenized segments: ``segment_counts`` for each, then the totals max(0, c-n+1)."""
    # hypotheses first: zip then exhausts their (possibly progress-bar) iterator, and the bar reaches 100%
    counts = [[c, r, *m] for c, r, m in (segment_counts(rs, h, order) for h, rs in zip(hyps_tokens, refs_tokens))]
    counts = np.array(counts, dtype=np.int64).reshape(len(counts), 2 + order)
    return np.hstack([counts, np.maximum(counts[:, :1] - np.arange(order), 0)])


def row_to_stats(row: Sequence[int], segments: int = 1) -> BleuStats:
    """The ``BleuStats`` of one (summed) row of ``stats_matrix``."""
    order = (len(row) - 2) // 2
    values = [int(v) for v in row]
    totals = tuple(values[2 + order:])
    return BleuStats(values[0], values[1], tuple(values[2:2 + order]), totals, tuple(int(t == 0) for t in totals),
                     segments)


# --- scoring many rows at once -----------------------------------------------------------------------


def scores_from_rows(rows: np.ndarray, options: ScoreOptions | None = None) -> np.ndarray:
    """``score_from_stats`` for every row of ``rows`` (summed statistics), vectorized: one BLEU per row.

    Same formula, same floating-point steps as sacrebleu's ``BLEU.compute_bleu`` on a NumPy row of the
    same dtype: int64/float64 rows give exactly ``score_from_stats``; float32 rows (sacrebleu's bootstrap
    stores statistics as float32) compute p_n = 100 * m_n / t_n in the precision NumPy's promotion rules pick.
    """
    options = ScoreOptions() if options is None else options
    rows = np.asarray(rows)
    if rows.ndim != 2 or rows.shape[1] < 4 or rows.shape[1] % 2:
        raise ValueError(f"rows must be a 2-d array of [c, r, matches..., totals...] rows, got shape {rows.shape}")
    order = (rows.shape[1] - 2) // 2
    if order != options.max_ngram_order:
        raise ValueError(f"rows hold {order} n-gram orders but options.max_ngram_order is {options.max_ngram_order}")
    kind, arith = rows.dtype, _arithmetic_dtype(rows.dtype)
    value = SACREBLEU_DEFAULTS[options.smooth_method] if options.smooth_value is None else options.smooth_value
    hyp_len, ref_len = rows[:, 0].astype(np.int64), rows[:, 1].astype(np.int64)
    any_match = (rows[:, 2:2 + order] != 0).any(axis=1)

    k = len(rows)
    columns = []  # p_n in percent, one column per order (0 where the order has no n-gram)
    mteval = np.ones(k)  # 'exp': the k-th zero-match order gets 100 / (2^k t_n)
    active = np.ones(k, dtype=bool)  # orders stop at the first one with no n-gram at all
    eff_order = np.full(k, order)
    for n in range(1, order + 1):
        correct, total = rows[:, 1 + n], rows[:, 1 + n + order]
        if options.smooth_method == "add-k" and n > 1:  # sacrebleu adds in place, so the row keeps its dtype
            correct, total = (correct + value).astype(kind), (total + value).astype(kind)
        active &= total != 0
        if options.effective_order:
            eff_order[active] = n
        zero = correct == 0
        with np.errstate(divide="ignore", invalid="ignore"):
            precision = (100.0 * correct.astype(arith)) / total.astype(arith)
            if options.smooth_method == "exp":
                mteval = np.where(active & zero, mteval * 2, mteval)
                precision = np.where(zero, 100.0 / (mteval.astype(arith) * total.astype(arith)), precision)
            elif options.smooth_method == "floor":
                precision = np.where(zero, (100.0 * value) / total.astype(arith), precision)
        columns.append(np.where(active, precision, 0).astype(np.float64))

    # The log-mean itself row by row with the scalar path's function: Python's sum() of floats is exact-ish
    # (compensated) from 3.12 on, and sacrebleu sums with it, so the same call gives the same bits everywhere.
    mean_log = _uniform_log_means(np.column_stack(columns), eff_order)
    short = hyp_len < ref_len
    ratio = np.divide(ref_len, hyp_len, out=np.zeros(k), where=hyp_len > 0)
    bp = np.where(short, np.where(hyp_len > 0, _exp(1 - ratio), 0.0), 1.0)
    return np.where(any_match, bp * _exp(mean_log), 0.0)


def _uniform_log_means(precisions: np.ndarray, orders: np.ndarray) -> np.ndarray:
    """``uniform_log_mean(precisions[i], orders[i])`` for every row i, the same bits: rows without a zero p_n take the
    same ``math.log`` of each p_n and the same Python ``sum`` of the same list of floats, one call per row instead of
    one list built in Python per row; rows with a zero (log floored to an int) go through ``uniform_log_mean``."""
    means = np.empty(len(precisions))
    for order in sorted(set(orders.tolist())):
        rows = np.flatnonzero(orders == order)
        head = precisions[rows, :order]
        positive = (head != 0.0).all(axis=1)
        logs = np.fromiter(map(math.log, head[positive].ravel().tolist()), float, head[positive].size)
        means[rows[positive]] = np.fromiter(map(sum, logs.reshape(-1, order).tolist()), float, positive.sum()) / order
        zero_rows = rows[~positive]
        means[zero_rows] = [uniform_log_mean(p, order) for p in precisions[zero_rows].tolist()]
    return means


def _arithmetic_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype of ``100.0 * m_n`` for a scalar taken from a row of ``dtype`` (float32 stays float32 in NumPy 2)."""
    return np.result_type(type(100.0 * np.zeros(1, dtype)[0]))


def _exp(values: np.ndarray) -> np.ndarray:
    return np.fromiter(map(math.exp, values.tolist()), float, len(values))


def percentile_interval(scores: np.ndarray) -> tuple[float, float]:
    """The 95% percentile interval of resampled scores: (s[n//40], s[n - n//40 - 1]) on sorted s.

    It need not be symmetric around the mean; sacrebleu reports only its half-width (``estimate_ci``).
    """
    ordered = np.sort(scores)
    lower = len(ordered) // 40
    return float(ordered[lower]), float(ordered[len(ordered) - lower - 1])


def estimate_ci(scores: np.ndarray) -> tuple[float, float]:
    """Mean of resampled scores and the 95% CI as sacrebleu gives it: half the width of ``percentile_interval``.

    The mean is taken over the sorted scores, as sacrebleu's ``estimate_ci`` does: for float32 scores (chrF and TER
    on float32 statistics) the order of the sum changes the last bit."""
    low, high = percentile_interval(scores)
    return float(np.mean(np.sort(scores))), float(0.5 * (high - low))


def p_value(sample_statistics: np.ndarray, observed: float) -> float:
    """(#{samples > observed} + 1) / (n + 1): the strict '>' and the +1 as in multeval and sacrebleu."""
    return (int(np.sum(sample_statistics > observed)) + 1) / (len(sample_statistics) + 1)


def p_value_with_ties(sample_statistics: np.ndarray, observed: float) -> float:
    """(#{samples >= observed} + 1) / (n + 1): a sample as extreme as the observed statistic counts (Noreen 1989)."""
    return (int(np.sum(sample_statistics >= observed)) + 1) / (len(sample_statistics) + 1)


def randomization_p_value(trial_differences: np.ndarray, observed: float, method: str = "noreen") -> float:
    """The approximate-randomization p-value of the shuffled trials' gaps |BLEU_a - BLEU_b| and the observed gap.

    ``"noreen"``: (#{trials >= |observed|} + 1) / (n + 1), ties counted (Noreen 1989; Riezler & Maxwell 2005);
    ``"sacrebleu"``: (#{trials > |observed|} + 1) / (n + 1), ties not counted (sacrebleu 2.6, multeval).
    """
    _check_method(method, RANDOMIZATION_P_VALUES)
    trial_differences = np.asarray(trial_differences, dtype=float)
    count = p_value_with_ties if method == "noreen" else p_value
    return count(trial_differences, abs(observed))


def shift_p_value(system_scores: np.ndarray, baseline_scores: np.ndarray, observed: float) -> float:
    """Two-sided bootstrap p-value by shifting the resampled gaps to the null hypothesis of no difference.

        g_i = BLEU_sys(i) - BLEU_base(i)   (signed),   p = (#{i : |g_i - mean(g)| >= |observed|} + 1) / (N + 1)

    Centring the *signed* gaps makes their distribution one in which the systems are equally good, so for
    equally good systems p is roughly uniform on (0, 1] and p < 0.05 happens about 5% of the time.
    """
    gaps = system_scores - baseline_scores
    return p_value_with_ties(np.abs(gaps - gaps.mean()), abs(observed))


def sacrebleu_bootstrap_p_value(system_scores: np.ndarray, baseline_scores: np.ndarray, observed: float) -> float:
    """The p-value sacrebleu 2.6's paired bootstrap prints (``_paired_bs_test``), from the same resampled scores.

        d_i = |BLEU_sys(i) - BLEU_base(i)|   (folded),   p = (#{i : d_i - mean(d) > |observed|} + 1) / (N + 1)

    Folding first and counting the upper tail only: when the gaps stay clear of zero, d_i - mean(d) is the
    signed gap's deviation, and p is one tail of ``shift_p_value``'s two (a one-sided p, about half the
    two-sided one when the gaps spread symmetrically); near a zero gap at most the share of d_i above their
    mean can count, about 0.42 for normally spread gaps. Equally good systems get p < 0.05 too often.
    """
    folded = np.abs(system_scores - baseline_scores)
    return p_value(folded - folded.mean(), abs(observed))


def bootstrap_p_value(system_scores: np.ndarray, baseline_scores: np.ndarray, observed: float,
                      method: str = "sacrebleu") -> float:
    """The bootstrap p-value ``method`` names ("sacrebleu" or "shift") of the resampled scores of both systems."""
    _check_method(method, P_VALUE_LABELS)
    if method == "shift":
        return shift_p_value(system_scores, baseline_scores, observed)
    return sacrebleu_bootstrap_p_value(system_scores, baseline_scores, observed)


def _check_method(method: object, methods: dict, name: str = "method") -> None:
    if not isinstance(method, str) or method not in methods:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, methods))}, got {method!r}")


def win_rate(system_scores: np.ndarray, baseline_scores: np.ndarray) -> float:
    """Koehn (2004)'s statistic: the share of resamples in which the system scores higher than the baseline."""
    return float(np.mean(system_scores > baseline_scores))


# --- results ------------------------------------------------------------------------------------------


def _verdict(p: float, difference: float, alpha: float = 0.05) -> str:
    if difference == 0:
        return "identical scores: nothing to test"
    return f"significant at the {alpha:g} level" if p < alpha else f"not significant at the {alpha:g} level"


def _significant(p: float, difference: float, alpha: float) -> bool:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise ValueError(f"alpha must be a number between 0 and 1, e.g. 0.05, got {alpha!r}")
    return difference != 0 and p < alpha


def bonferroni_alpha(alpha: float, comparisons: int) -> float:
    """Bonferroni's level for each of m comparisons made together: alpha / m. Testing each at alpha / m keeps the
    chance of any false alarm among the m (the family-wise error rate) below alpha (lesson 9)."""
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise ValueError(f"alpha must be a number between 0 and 1, e.g. 0.05, got {alpha!r}")
    if isinstance(comparisons, bool) or not isinstance(comparisons, int) or comparisons < 1:
        raise ValueError(f"comparisons must be a whole number >= 1, got {comparisons!r}")
    return alpha / comparisons


def holm_adjusted(p_values: Sequence[float]) -> list[float]:
    """Holm's (1979) step-down adjusted p-values, in the order given.

    With the m p-values sorted, p_(1) <= ... <= p_(m), the adjusted value of the i-th smallest is
    p~_(i) = min(1, max over j <= i of (m - j + 1) · p_(j)): the smallest is multiplied by m, the next by m - 1, and
    so on, and the running maximum keeps the adjusted values in the order of the p-values (tied p-values get the same
    one). Rejecting every hypothesis with p~ <= alpha is Holm's procedure ("A Simple Sequentially Rejective Multiple
    Test Procedure", Scandinavian Journal of Statistics 6(2):65–70): like Bonferroni it keeps the family-wise error
    rate at most alpha whatever the dependence between the tests, and since p~ <= min(1, m · p) it rejects every
    hypothesis Bonferroni rejects, often more (lesson 9).
    """
    if hasattr(p_values, "tolist") and hasattr(p_values, "ndim") and p_values.ndim == 1:
        p_values = p_values.tolist()  # a numpy array of p-values
    values = list(as_sequence(p_values, "p_values", "p-values between 0 and 1"))
    for index, p in enumerate(values):
        if isinstance(p, bool) or not isinstance(p, (int, float, np.integer, np.floating)) or not 0 <= p <= 1:
            raise ValueError(f"p_values must hold p-values between 0 and 1, but p_values[{index}] is {p!r}")
    m = len(values)
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(sorted(range(m), key=values.__getitem__)):  # rank 0: the smallest p
        running = max(running, min(1.0, (m - rank) * float(values[index])))
        adjusted[index] = running
    return adjusted


@dataclass(frozen=True)
class PairedResult:
    """What both paired tests report: the two corpus scores and the p-value of their difference."""

    baseline: BleuScore
    system: BleuScore
    p_value: float

    @property
    def difference(self) -> float:
        """system score - baseline score on the full test set."""
        return self.system.score - self.baseline.score

    @property
    def metric(self) -> str:
        """The metric tested: "BLEU", or the score's own name (chrF2, TER)."""
        return "BLEU" if isinstance(self.baseline, BleuScore) else str(getattr(self.baseline, "name", "score"))

    def significant(self, alpha: float = 0.05) -> bool:
        """True when p < alpha and the scores differ (a zero difference is never called significant, whatever the
        p-value: sacrebleu's strict counting gives identical systems the smallest possible p, 1 / (n + 1))."""
        return _significant(self.p_value, self.difference, alpha)

    @property
    def verdict(self) -> str:
        """The p-value read at the 0.05 level, in words."""
        return _verdict(self.p_value, self.difference)


@dataclass(frozen=True)
class BootstrapResult(PairedResult):
    """Paired bootstrap: both scores, each system's resampled mean and 95% CI, Koehn's win rate and the p-value.

    ``method`` says which p-value ``p_value`` is: ``"sacrebleu"`` (what sacrebleu prints) or ``"shift"`` (the
    signed gaps shifted to the null; see ``shift_p_value``). ``*_ci`` are half-widths as sacrebleu reports them;
    ``baseline_interval``/``system_interval`` give the actual bounds, which need not be symmetric.
    """

    baseline_mean: float
    baseline_ci: float
    system_mean: float
    system_ci: float
    n_samples: int
    seed: int | None
    signature: str
    method: str
    win_rate: float  # share of resamples in which the system beats the baseline (Koehn 2004)
    baseline_samples: np.ndarray = field(repr=False, compare=False)  # one BLEU per resample
    system_samples: np.ndarray = field(repr=False, compare=False)

    @property
    def sacrebleu_p_value(self) -> float:
        """The p-value ``sacrebleu --paired-bs`` prints for these same resamples (``sacrebleu_bootstrap_p_value``)."""
        return bootstrap_p_value(self.system_samples, self.baseline_samples, self.difference, "sacrebleu")

    def sacrebleu_note(self) -> str:
        """What sacrebleu prints for these resamples, and why it differs from the shifted two-sided p, in one line."""
        seed = f" with SACREBLEU_SEED={self.seed}" if self.seed != SACREBLEU_DEFAULT_SEED else ""
        return (f"sacrebleu --paired-bs{seed} prints p = {self.sacrebleu_p_value:.4f} for these resamples: it folds "
                "the gaps and counts the upper tail only, roughly a one-sided p")

    @property
    def baseline_interval(self) -> tuple[float, float]:
        """The baseline's 95% percentile interval (lower, upper) over the resamples."""
        return percentile_interval(self.baseline_samples)

    @property
    def system_interval(self) -> tuple[float, float]:
        """The system's 95% percentile interval (lower, upper) over the resamples."""
        return percentile_interval(self.system_samples)

    @property
    def difference_interval(self) -> tuple[float, float]:
        """The 95% percentile interval (lower, upper) of the paired gap system - baseline over the resamples."""
        return percentile_interval(self.system_samples - self.baseline_samples)

    @property
    def p_value_label(self) -> str:
        """What the p-value is, in words."""
        return P_VALUE_LABELS[self.method]

    def koehn_rule(self, level: float = 0.95) -> bool:
        """Koehn (2004)'s decision: one of the two systems wins at least ``level`` of the resamples (either way).

        Not a p-value: for two equally good systems it fires about twice as often as 1 - level (about 10% of
        the time at 0.95), and winning 95% of the resamples is not a 95% probability of being better.
        """
        if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0.5 < level <= 1:
            raise ValueError(f"level must be a number between 0.5 and 1, e.g. 0.95, got {level!r}")
        losses = float(np.mean(self.baseline_samples > self.system_samples))
        return self.win_rate >= level or losses >= level

    def __str__(self) -> str:
        (blo, bhi), (slo, shi) = self.baseline_interval, self.system_interval
        return (
            f"Paired bootstrap resampling ({self.n_samples} resamples, seed {self.seed})\n"
            f"  baseline  {self.metric} = {self.baseline.score:6.2f}   95% interval [{blo:6.2f}, {bhi:6.2f}]\n"
            f"  system    {self.metric} = {self.system.score:6.2f}   95% interval [{slo:6.2f}, {shi:6.2f}]\n"
            f"  difference {self.difference:+.2f}   system wins {self.win_rate:.1%} of resamples\n"
            f"  p = {self.p_value:.4f} ({self.p_value_label}; {self.verdict})\n"
            f"  {self.signature}"
        )

    def _repr_html_(self) -> str:
        rows = [("baseline", self.baseline.score, self.baseline_interval),
                ("system", self.system.score, self.system_interval)]
        return _page("bootstrap", self, rows=rows, win_rate=f"{self.win_rate:.1%}")


P_VALUE_LABELS = {
    "sacrebleu": "sacrebleu's bootstrap p: |gaps| centred, upper tail only; roughly one-sided (about half a "
                 "two-sided p), anti-conservative",
    "shift": "two-sided, signed gaps shifted to the null",
}
RANDOMIZATION_P_VALUES = {
    "noreen": "two-sided, shuffles that tie the observed gap counted",
    "sacrebleu": "sacrebleu's AR p: ties not counted, too small when few segments differ",
}


@dataclass(frozen=True)
class RandomizationResult(PairedResult):
    """Paired approximate randomization: both scores and the p-value of their difference.

    ``method`` says how ``p_value`` counts the shuffles that tie the observed gap: ``"noreen"`` counts them (>=),
    ``"sacrebleu"`` does not (>); ``p_value_as(method)`` gives either from the same trials.
    """

    n_trials: int
    seed: int | None
    signature: str
    method: str
    trial_differences: np.ndarray = field(repr=False, compare=False)  # |BLEU_a - BLEU_b| per shuffle

    @property
    def p_value_label(self) -> str:
        """What the p-value is, in words."""
        return RANDOMIZATION_P_VALUES[self.method]

    @property
    def ties(self) -> int:
        """The number of trials whose gap equals the observed one exactly (what ``method`` decides about)."""
        return int(np.sum(self.trial_differences == abs(self.difference)))

    @property
    def _ties_text(self) -> str:
        ties = self.ties
        return "no trial ties it" if ties == 0 else "1 trial ties it" if ties == 1 else f"{ties} trials tie it"

    def p_value_as(self, method: str) -> float:
        """The p-value of these trials counted as ``method`` ("noreen" or "sacrebleu") counts them."""
        return randomization_p_value(self.trial_differences, self.difference, method)

    def __str__(self) -> str:
        return (
            f"Paired approximate randomization ({self.n_trials} trials, seed {self.seed})\n"
            f"  baseline  {self.metric} = {self.baseline.score:6.2f}\n"
            f"  system    {self.metric} = {self.system.score:6.2f}\n"
            f"  difference {self.difference:+.2f}   {self._ties_text}\n"
            f"  p = {self.p_value:.4f} ({self.p_value_label}; {self.verdict})\n"
            f"  {self.signature}"
        )

    def _repr_html_(self) -> str:
        return _page("randomization", self, ties=self._ties_text)


def _page(test: str, result: PairedResult, **data: object) -> str:
    """A paired test's notebook view (templates/paired_test.html.j2); the templates live in the reports layer."""
    from ..reports.templates import render

    return render("paired_test.html.j2", test=test, result=result, **data)


# --- the tests ----------------------------------------------------------------------------------------


@cache
def _blas_threads():
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()  # finds the BLAS libraries loaded now (numpy's), once


def one_blas_thread():
    """A context in which numpy's BLAS runs on one thread (``threadpoolctl``). The tests' products are small (the
    draws of a chunk by about ten statistics): a second BLAS thread saves little and spins while it waits, so with
    two threads on a busy 2-core machine a comparison took a third more CPU time to nearly twice as much
    (``benchmarks/bench_compare.py``). The sums are exact integers either way: the results are the same."""
    return _blas_threads().limit(limits=1, user_api="blas")


def resampled_sums(rows: np.ndarray, idxs: np.ndarray) -> np.ndarray:
    """The float32 column sums of ``rows`` over each resample: ``rows[idxs[k]].sum(0)`` for every row k of ``idxs``.

    Statistics are summed in float32 as sacrebleu's bootstrap does. Below 2^24 every sum is an exact integer in
    float32, so one product of the draw counts with the rows (all its partial sums are integers under n * max)
    gives the same numbers fast; larger corpora are summed resample by resample, rounding included.
    """
    n = len(rows)
    rows32 = rows.astype(np.float32)
    whole = rows.dtype.kind in "iu" or bool(np.all(rows32 == np.rint(rows32)))  # TER's average lengths may not be
    if whole and n * np.abs(rows).max(initial=0) < FLOAT32_EXACT:  # how often each segment was drawn, times the rows
        offsets = (np.arange(len(idxs)) * n)[:, None]
        weights = np.bincount((idxs + offsets).ravel(), minlength=len(idxs) * n).reshape(len(idxs), n)
        with one_blas_thread():
            return weights.astype(np.float32) @ rows32
    return np.stack([rows32[sample].sum(0) for sample in idxs])


def paired_bootstrap(
    baseline_hypotheses: Sequence[str],
    system_hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    n_samples: int = 1000,
    seed: int | None = 12345,
    progress: bool = False,
    method: str = "sacrebleu",
    metric: str = "BLEU",
    **score_options: object,
) -> BootstrapResult:
    """Paired bootstrap resampling test of ``system_hypotheses`` against ``baseline_hypotheses``.

    ``references[i]`` lists the reference strings of segment i (as in ``corpus_score``); ``score_options``
    are ``corpus_score``'s. Each resample draws len(references) segment indices with replacement (the same
    draw for both systems) and scores both. Every result carries ``win_rate``, Koehn (2004)'s share of
    resamples the system wins. ``method`` picks the p-value:

    - ``"sacrebleu"`` (default): equal to sacrebleu's ``PairedTest(..., test_type='bs')`` run with
      ``SACREBLEU_SEED=seed``. It folds the gaps (|g_i|), centres them and counts the upper tail only
      (``sacrebleu_bootstrap_p_value``): roughly a one-sided p, so for equally good systems it says p < 0.05
      about twice as often as 5% of the time.
    - ``"shift"``: the two-sided p-value of the signed gaps shifted to their mean (``shift_p_value``).

    ``seed=None`` draws fresh randomness. ``metric``: "BLEU", "chrF" or "TER" (``paired_rows``): the same test over
    that metric's per-segment statistics, equal to sacrebleu's for the same metric.
    """
    _check_count(n_samples, "n_samples")
    _check_method(method, P_VALUE_LABELS)
    setup = _setup(metric, baseline_hypotheses, system_hypotheses, references, seed, progress, score_options)
    return bootstrap_from_rows(setup, n_samples=n_samples, seed=seed, progress=progress, method=method)


def bootstrap_from_rows(
    setup: PairedRows, *, n_samples: int = 1000, seed: int | None = 12345, progress: bool = False,
    method: str = "sacrebleu",
) -> BootstrapResult:
    """``paired_bootstrap`` on statistics rows already built (``PairedRows.from_rows``): the same test, same result."""
    _check_count(n_samples, "n_samples")
    _check_seed(seed)
    _check_method(method, P_VALUE_LABELS)
    n = len(setup.base_rows)
    check_draws(n_samples, n, "n_samples")
    idxs = _draws("bs", seed, n_samples, n)
    both = np.hstack([setup.base_rows, setup.sys_rows])
    width = setup.base_rows.shape[1]
    sums = []
    bar = _Bar(n_samples, progress, "bootstrap resamples")
    for start in range(0, n_samples, _CHUNK):
        chunk = idxs[start:start + _CHUNK]
        sums.append(resampled_sums(both, chunk))
        bar.update(len(chunk))
    bar.close()
    sums = np.vstack(sums).astype(np.float32)
    base_scores = setup.scores(sums[:, :width])
    sys_scores = setup.scores(sums[:, width:])
    base_mean, base_ci = estimate_ci(base_scores)
    sys_mean, sys_ci = estimate_ci(sys_scores)
    p = bootstrap_p_value(sys_scores, base_scores, setup.system.score - setup.baseline.score, method)
    return BootstrapResult(
        setup.baseline, setup.system, p, base_mean, base_ci, sys_mean, sys_ci, n_samples, seed,
        _signature(setup, "bs", n_samples, seed), method, win_rate(sys_scores, base_scores), base_scores, sys_scores,
    )


def paired_randomization(
    baseline_hypotheses: Sequence[str],
    system_hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    n_trials: int = 10000,
    seed: int | None = 12345,
    progress: bool = False,
    method: str = "noreen",
    metric: str = "BLEU",
    **score_options: object,
) -> RandomizationResult:
    """Paired approximate randomization test of ``system_hypotheses`` against ``baseline_hypotheses``.

    Each trial swaps the two systems' outputs on a random half of the segments (a fair coin per segment) and
    scores the two shuffled systems. ``references`` and ``score_options`` as in ``corpus_score``. ``method``
    picks how the trials that tie the observed gap count (``randomization_p_value``):

    - ``"noreen"`` (default): they count, p = (#{trials >= observed} + 1) / (n_trials + 1), as Noreen (1989)
      and Riezler & Maxwell (2005) define it. Identical systems and a one-sentence change get p = 1.
    - ``"sacrebleu"``: only strictly larger gaps count; for a nonzero seed the result then equals sacrebleu's
      ``PairedTest(..., test_type='ar')`` run with ``SACREBLEU_SEED=seed``.

    ``metric``: "BLEU", "chrF" or "TER" (``paired_rows``), as for ``paired_bootstrap``.
    """
    _check_count(n_trials, "n_trials")
    _check_method(method, RANDOMIZATION_P_VALUES)
    setup = _setup(metric, baseline_hypotheses, system_hypotheses, references, seed, progress, score_options)
    return randomization_from_rows(setup, n_trials=n_trials, seed=seed, progress=progress, method=method)


def randomization_from_rows(
    setup: PairedRows, *, n_trials: int = 10000, seed: int | None = 12345, progress: bool = False,
    method: str = "noreen",
) -> RandomizationResult:
    """``paired_randomization`` on statistics rows already built (``PairedRows.from_rows``): same test, same result."""
    _check_count(n_trials, "n_trials")
    _check_method(method, RANDOMIZATION_P_VALUES)
    _check_seed(seed)
    n = len(setup.base_rows)
    check_draws(n_trials, n, "n_trials")
    take_baseline = _draws("ar", seed, n_trials, n)
    # shuffled a = baseline where the coin says so, system elsewhere: sys_total + coins @ (base - sys)
    whole = setup.base_rows.dtype.kind in "iu" and setup.sys_rows.dtype.kind in "iu"
    delta = setup.base_rows - setup.sys_rows
    # a float32 product is exact while every partial sum stays below 2^24 (and much faster than float64)
    delta = delta.astype(np.float32 if n * np.abs(delta).max(initial=0) < FLOAT32_EXACT else np.float64)
    base_total, sys_total = setup.base_rows.sum(0), setup.sys_rows.sum(0)
    numbers = None  # the coins as 0/1 of delta's dtype, converted once for every pair when they are seeded and small
    if whole and seed is not None and n_trials * n * delta.itemsize <= CACHED_COIN_BYTES:
        numbers = _seeded_coins(seed, n_trials, n, delta.dtype.str)
    diffs = []
    bar = _Bar(n_trials, progress, "randomization trials")
    for start in range(0, n_trials, _CHUNK):
        coins = take_baseline[start:start + _CHUNK]
        if whole:  # integer statistics: the shuffled sums exactly, from one product
            block = coins.astype(delta.dtype) if numbers is None else numbers[start:start + _CHUNK]
            with one_blas_thread():
                swapped = np.rint(block @ delta).astype(np.int64)
            shuffled_a, shuffled_b = sys_total + swapped, base_total - swapped
        else:  # fractional statistics (TER's average reference length): sacrebleu's own two float64 products
            shuffled_a = coins @ setup.base_rows + ~coins @ setup.sys_rows
            shuffled_b = ~coins @ setup.base_rows + coins @ setup.sys_rows
        diffs.append(np.abs(setup.scores(shuffled_a) - setup.scores(shuffled_b)))
        bar.update(len(coins))
    bar.close()
    trial_diffs = np.concatenate(diffs)
    observed = abs(setup.baseline.score - setup.system.score)
    return RandomizationResult(
        setup.baseline, setup.system, randomization_p_value(trial_diffs, observed, method), n_trials, seed,
        _signature(setup, "ar", n_trials, seed), method, trial_diffs,
    )


def _draws(test: str, seed: int | None, count: int, n: int) -> np.ndarray:
    """The random draws of a test from ``numpy.random.default_rng(seed)``, the very calls sacrebleu makes: "bs", the
    segment indices of each resample; "ar", each trial's coins (True: the shuffled first system takes the
    baseline's segment). With a seed they are the same for every pair of systems on the same segments, so a
    comparison of many systems draws them once (``_seeded_draws``, read-only; only draws of at most
    ``CACHED_DRAW_BYTES`` are kept, so at most twice that stays in memory after the tests)."""
    size = count * n * (1 if test == "ar" else 8)
    if seed is None or size > CACHED_DRAW_BYTES:
        return _fresh_draws(test, seed, count, n)
    return _seeded_draws(test, seed, count, n)


CACHED_DRAW_BYTES = 16 * 2**20  # 10,000 trials or 2,000 resamples of a 1,000-segment test set


def _fresh_draws(test: str, seed: int | None, count: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if test == "bs":
        return rng.choice(n, size=(count, n), replace=True)
    return rng.integers(2, size=(count, n), dtype=bool)


@lru_cache(maxsize=2)  # the bootstrap's and the randomization's draws of the pairs being tested
def _seeded_draws(test: str, seed: int, count: int, n: int) -> np.ndarray:
    draws = _fresh_draws(test, seed, count, n)
    draws.flags.writeable = False
    return draws


CACHED_COIN_BYTES = 64 * 2**20  # 10,000 trials of a 1,600-segment test set as float32


@lru_cache(maxsize=1)  # the pairs of a comparison share the seeded coins, so they share their conversion too
def _seeded_coins(seed: int, count: int, n: int, dtype: str) -> np.ndarray:
    """The randomization's seeded coins (``_draws``) as 0/1 numbers of ``dtype`` (read-only): the matrix multiplied
    with each pair's differences; at most ``CACHED_COIN_BYTES`` stay in memory after the tests."""
    coins = _draws("ar", seed, count, n).astype(dtype)
    coins.flags.writeable = False
    return coins


@dataclass(frozen=True)
class PairedRows:
    """Both systems' per-segment statistics rows (``stats_matrix`` layout), their options and corpus scores."""

    options: ScoreOptions
    base_rows: np.ndarray
    sys_rows: np.ndarray
    baseline: BleuScore
    system: BleuScore
    scorer: Callable[[np.ndarray], np.ndarray] | None = None  # summed rows -> one score each; None: BLEU (options)

    def scores(self, rows: np.ndarray) -> np.ndarray:
        """The metric's score of every row of summed statistics (BLEU with ``options`` unless ``scorer`` is set)."""
        return scores_from_rows(rows, self.options) if self.scorer is None else self.scorer(rows)

    @classmethod
    def from_rows(cls, base_rows: np.ndarray, sys_rows: np.ndarray, options: ScoreOptions,
                  nrefs: int | str) -> PairedRows:
        """From rows built once (e.g. for several pairs of systems on the same references): scores them too."""
        if base_rows.shape != sys_rows.shape or not len(base_rows):
            raise ValueError(f"base_rows and sys_rows must be non-empty arrays of the same shape, got "
                             f"{base_rows.shape} and {sys_rows.shape}")
        n = len(base_rows)
        return cls(options, base_rows, sys_rows, score_from_stats(row_to_stats(base_rows.sum(0), n), options, nrefs),
                   score_from_stats(row_to_stats(sys_rows.sum(0), n), options, nrefs))


_Setup = PairedRows
METRICS = ("BLEU", "chrF", "TER")  # what the paired tests score; any per-segment statistic works (PairedRows)


def paired_rows(metric: str, baseline_hypotheses: Sequence[str], system_hypotheses: Sequence[str],
                references: Sequence[Sequence[str]], **options: object) -> PairedRows:
    """Both systems' per-segment statistics for ``metric`` and a scorer of summed rows: what the paired tests resample.

    "BLEU": ``stats_matrix`` rows, ``options`` as ``corpus_score``'s. "chrF": sacrebleu's chrF statistics per segment,
    [hyp, ref, match] per order against the segment's best reference (``chrf.segment_rows``), ``options`` as
    ``ChrfOptions``'s. "TER": [edits to the closest reference, average reference length] (``ter.segment_rows``,
    sacrebleu's default TER; no options). The corpus score is the score of the summed rows, as in sacrebleu.
    """
    _check_method(metric, dict.fromkeys(METRICS), "metric")
    if metric == "BLEU":
        return _prepare(baseline_hypotheses, system_hypotheses, references, None, False, options)
    from . import chrf, ter  # chrF and TER are optional readers of this module, not its dependencies

    base = as_sequence(baseline_hypotheses, "baseline_hypotheses", "hypothesis strings (one per segment)")
    other = as_sequence(system_hypotheses, "system_hypotheses", "hypothesis strings (one per segment)")
    check_same_length(base, "baseline_hypotheses", other, "system_hypotheses")
    base, refs = check_corpus(base, references, "baseline_hypotheses")
    other, _ = check_corpus(other, refs, "system_hypotheses")
    nrefs = count_refs(refs)
    if metric == "chrF":
        chrf_options = chrf.ChrfOptions(**options)
        rows = [chrf.segment_rows(hyps, refs, chrf_options) for hyps in (base, other)]
        scorer = lambda summed: chrf.scores_from_rows(summed, chrf_options)  # noqa: E731

        def score(summed: np.ndarray) -> chrf.ChrfScore:
            total = tuple(int(v) for v in summed)
            return chrf.ChrfScore(chrf.f_score(total, chrf_options), total, chrf_options,
                                  chrf_options.signature(nrefs))
        scores = [score(r.sum(0)) for r in rows]
    else:
        if options:
            raise TypeError(f"TER takes no options here (sacrebleu's default TER), got {', '.join(options)}")
        both = ter.system_rows({"baseline": base, "system": other}, refs,  # references tokenized once
                               {"baseline": "baseline_hypotheses", "system": "system_hypotheses"})
        rows, scorer = [both["baseline"], both["system"]], ter.scores_from_rows
        scores = [ter.rows_score(r, nrefs) for r in rows]  # summed as sacrebleu sums them
    return PairedRows(ScoreOptions(), rows[0], rows[1], scores[0], scores[1], scorer)


def _prepare(baseline, system, references, seed, progress: bool, options: dict) -> _Setup:
    """Validate, tokenize every reference once, and build both systems' statistics rows and scores."""
    opts = score_options(**options)
    _check_seed(seed)
    check_flag(progress, "progress")
    base = as_sequence(baseline, "baseline_hypotheses", "hypothesis strings (one per segment)")
    other = as_sequence(system, "system_hypotheses", "hypothesis strings (one per segment)")
    segs = as_sequence(references, "references", "reference lists, one per segment (references[i] for segment i)")
    check_same_length(base, "baseline_hypotheses", other, "system_hypotheses")
    check_same_length(base, "baseline_hypotheses", segs, "references")
    if not base:
        raise ValueError("the corpus is empty: a significance test needs at least one segment")
    base, refs = check_corpus(base, segs, "baseline_hypotheses")
    other = plain_strings(other, "system_hypotheses", "a hypothesis string")
    prep = _memo(make_preprocessor(opts.tokenize, opts.lowercase))  # each distinct string tokenized once
    order = opts.max_ngram_order
    refs_tokens = [  # each segment's reference n-grams collected once, for both systems
        prepare_references([prep(r) for r in seg], order) for seg in _progress(refs, progress, "references")
    ]
    base_rows = _rows(refs_tokens, (prep(h) for h in _progress(base, progress, "baseline")), order)
    # a segment the two systems translate identically has the same statistics: count only the others
    changed = [i for i, (a, b) in enumerate(zip(base, other)) if a != b]
    sys_rows = base_rows.copy()
    if changed:
        sys_rows[changed] = _rows([refs_tokens[i] for i in changed],
                                  (prep(other[i]) for i in _progress(changed, progress, "system")), order)
    return PairedRows.from_rows(base_rows, sys_rows, opts, count_refs(refs))


def _setup(metric: object, baseline, system, references, seed, progress: bool, options: dict) -> PairedRows:
    """BLEU's rows (``_prepare``, with its progress bars) or another metric's (``paired_rows``)."""
    _check_method(metric, dict.fromkeys(METRICS), "metric")
    if metric == "BLEU":
        return _prepare(baseline, system, references, seed, progress, options)
    _check_seed(seed)
    check_flag(progress, "progress")
    return paired_rows(metric, baseline, system, references, **options)


def _memo(prep: Callable[[str], list[str]]) -> Callable[[str], list[str]]:
    """``prep`` with a per-call memory: the same string is tokenized once."""
    cache: dict[str, list[str]] = {}

    def tokens(text: str) -> list[str]:
        found = cache.get(text)
        if found is None:
            found = cache[text] = prep(text)
        return found

    return tokens


def _signature(setup: _Setup, test: str, count: int, seed: int | None) -> str:
    """sacrebleu's signature for a paired test: nrefs:1|bs:1000|seed:12345|case:mixed|..."""
    nrefs, rest = setup.baseline.signature.split("|", 1)
    return f"{nrefs}|{test}:{count}|seed:{str(seed).lower()}|{rest}"


MAX_DRAWS = 50_000_000  # resamples (or trials) x segments: the random draws held in memory at once (~400 MB)
DRAW_FLAGS = {"n_trials": "--trials", "n_samples": "--samples"}  # the arguments -> the command lines' options


class TooManyDraws(ValueError):
    """A paired test refused before drawing: ``count`` resamples (or trials, the argument ``name``) on ``segments``
    segments need more than ``MAX_DRAWS`` random draws. ``most_segments`` is how many segments that ``count`` can
    test, ``most_count`` how many resamples (or trials) these ``segments`` can have."""

    def __init__(self, count: int, segments: int, name: str):
        self.count, self.segments, self.name = count, segments, name
        self.most_segments, self.most_count = MAX_DRAWS // count, MAX_DRAWS // segments
        super().__init__(f"{name} = {count} on {segments} segments needs {count * segments:,} random draws; "
                         f"at most {MAX_DRAWS:,} fit in memory here: use at most {self.most_count:,} {name}")

    def in_flags(self) -> str:
        """The refusal in the command line's words: its option (``DRAW_FLAGS``) for the argument."""
        flag = DRAW_FLAGS.get(self.name, self.name)
        fewer_segments = f", or compare at most {self.most_segments:,} segments at a time" if self.most_segments else ""
        return (f"{flag} {self.count} on {self.segments:,} segments needs {self.count * self.segments:,} random "
                f"draws; at most {MAX_DRAWS:,} fit in memory: use {flag} {self.most_count} or fewer{fewer_segments}")


def check_draws(count: int, segments: int, name: str) -> None:
    """Refuse a run whose random draws would not fit in memory (``TooManyDraws``), before drawing them."""
    if count * segments > MAX_DRAWS:
        raise TooManyDraws(count, segments, name)


def _check_count(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    return int(value)


def _check_seed(seed: object) -> None:
    if seed is None:
        return
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int (or None for fresh randomness), not {type(seed).__name__}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")


class _Bar:
    """A tqdm bar that counts resamples or trials (not chunks), or nothing when progress is off."""

    def __init__(self, total: int, enabled: bool, desc: str) -> None:
        self._bar = None
        if enabled:
            from tqdm.auto import tqdm

            self._bar = tqdm(total=total, desc=desc, leave=False)

    def update(self, count: int) -> None:
        if self._bar is not None:
            self._bar.update(count)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


def _progress(items, enabled: bool, desc: str) -> Iterator:
    """``items`` wrapped in a tqdm bar when ``enabled``."""
    if not enabled:
        return iter(items)
    from tqdm.auto import tqdm

    return iter(tqdm(items, desc=desc, leave=False))
