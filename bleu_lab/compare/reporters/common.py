"""What every format of a comparison's report shares: the level p-values are read at, the pairs' verdicts and
family-wise corrections, the notes under the tables, the small formatters the text, LaTeX and HTML reports use
alike, and the HTML tables' templates (``tables``: the macros of compare_tables.html.j2, for the report and its
figures). Nothing here computes a score or writes a file.
"""

from __future__ import annotations

import math
from functools import cache

from ...metrics.delta_accuracy import estimated_accuracy
from ...metrics.significance import MAX_DRAWS, bonferroni_alpha
from ...reports.explain_html import CELL, MONO, TABLE
from ...reports.templates import Markup, macros
from ..results import ComparisonData, PairTest

ALPHA = 0.05  # the level the report reads every p-value at


CHARACTER_TOKENIZERS = {"zh": "every Chinese character is a token (other text is split as by 13a)",
                        "char": "every character is a token"}


def _num(value: float) -> float | None:
    """A float for JSON: NaN (an empty bucket) becomes null."""
    return None if isinstance(value, float) and math.isnan(value) else float(value)


def fmeasure_or_none(w, b: int) -> float | None:
    """Bucket ``b``'s word F-measure, or None when the bucket holds no reference word: its recall is 0 / 0, and the
    0 compare-mt prints there would read as "every word missed" (the ``<1`` bucket of reference counts is empty by
    construction)."""
    return w.fmeasure(b) if w.reference[b] else None


def _f_text(value: float | None) -> str:
    return "–" if value is None else f"{value:.4f}"


def tokens_note(c: ComparisonData) -> str:
    """Which tokens the buckets, word accuracy and n-grams count, and how to get compare-mt's ("" with 'none')."""
    tokenize = c.options.tokenize
    if tokenize == "none":
        return ""
    return (f"Buckets, word accuracy and n-grams count the {tokenize} tokens of the BLEU signature; compare-mt splits "
            "on spaces only, so on the same detokenized files its numbers differ. To compare with compare-mt, "
            "tokenize the files first and run with -t none (tokenize='none').")


def sacrebleu_lines(c: ComparisonData) -> list[str]:
    """For each system against the baseline, the p-value sacrebleu --paired-bs prints for the same resamples."""
    return [f"{p.system}: {p.bootstrap.sacrebleu_note()}" for p in c.pairs]


def family_wise(c: ComparisonData) -> dict | None:
    """The correction for testing every pair at once (lesson 9's Bonferroni), or None with two systems (one pair)."""
    m = len(c.all_pairs)
    if m < 2:
        return None
    return {"method": "Bonferroni", "alpha": ALPHA, "comparisons": m, "threshold": bonferroni_alpha(ALPHA, m)}


def _pair(p: PairTest, c: ComparisonData | None = None) -> dict:
    row = {"system": p.system, "baseline": p.baseline, "difference": p.difference,
           "ar_p_value": p.randomization.p_value, "bootstrap_p_value": p.bootstrap.p_value,
           "bootstrap_p_value_method": p.bootstrap.method,
           "bootstrap_p_value_sacrebleu": p.bootstrap.sacrebleu_p_value, "win_rate": p.bootstrap.win_rate,
           "system_interval": list(p.bootstrap.system_interval),
           "baseline_interval": list(p.bootstrap.baseline_interval),
           "difference_interval": list(p.bootstrap.difference_interval),
           "ar_signature": p.randomization.signature, "bootstrap_signature": p.bootstrap.signature,
           "estimated_accuracy": estimated_accuracy(p.difference, "BLEU")}
    if p.chrf_bootstrap is not None:
        row.update({"chrf_difference": p.chrf_bootstrap.difference, "chrf_ar_p_value": p.chrf_randomization.p_value,
                    "chrf_bootstrap_p_value": p.chrf_bootstrap.p_value,
                    "chrf_bootstrap_p_value_sacrebleu": p.chrf_bootstrap.sacrebleu_p_value,
                    "chrf_difference_interval": list(p.chrf_bootstrap.difference_interval),
                    "chrf_estimated_accuracy": estimated_accuracy(p.chrf_bootstrap.difference, "chrF")})
        if c is not None:
            fw = family_wise(c)
            row.update({"chrf_ar_p_value_holm": p.chrf_randomization_holm if fw else None,
                        "chrf_bootstrap_p_value_holm": p.chrf_bootstrap_holm if fw else None})
    if p.ter_bootstrap is not None:  # corpus TER: lower is better, so a negative gap favours the system
        row.update({"ter_difference": p.ter_bootstrap.difference, "ter_ar_p_value": p.ter_randomization.p_value,
                    "ter_bootstrap_p_value": p.ter_bootstrap.p_value,
                    "ter_bootstrap_p_value_sacrebleu": p.ter_bootstrap.sacrebleu_p_value,
                    "ter_system_interval": list(p.ter_bootstrap.system_interval),
                    "ter_baseline_interval": list(p.ter_bootstrap.baseline_interval),
                    "ter_difference_interval": list(p.ter_bootstrap.difference_interval)})
    if c is not None:
        fw = family_wise(c)
        if p.ter_bootstrap is not None:
            row.update({"ter_ar_p_value_holm": p.ter_randomization_holm if fw else None,
                        "ter_bootstrap_p_value_holm": p.ter_bootstrap_holm if fw else None,
                        "ter_better": p.ter_better(adjusted=fw is not None, alpha=ALPHA) or ""})
        row.update({
            "bonferroni_threshold": fw["threshold"] if fw else None,
            "ar_significant": p.randomization.significant(ALPHA),
            "bootstrap_significant": p.bootstrap.significant(ALPHA),
            "ar_significant_bonferroni": p.randomization.significant(fw["threshold"]) if fw else None,
            "bootstrap_significant_bonferroni": p.bootstrap.significant(fw["threshold"]) if fw else None,
            "ar_p_value_holm": p.randomization_holm if fw else None,
            "bootstrap_p_value_holm": p.bootstrap_holm if fw else None,
            "ar_significant_holm": holm_significant(p, "AR") if fw else None,
            "bootstrap_significant_holm": holm_significant(p, "BS") if fw else None,
        })
    return row


def ter_verdict(p: PairTest, fw: dict | None) -> str:
    """Which system TER finds better: the one with the lower TER when the bootstrap's p (Holm-adjusted over every
    pair's TER tests when there are more than two systems) is below ``ALPHA``, else that neither is."""
    better = p.ter_better(adjusted=fw is not None, alpha=ALPHA)
    return f"{better} (lower TER)" if better else "neither"


def ter_lines(c: ComparisonData) -> list[str]:
    """One line per pair with TER's tests (none without TER): the gap, both p, the p sacrebleu --paired-bs prints for
    the same resamples, Holm's adjusted p (more than two systems) and which system is better."""
    fw = family_wise(c)
    return [f"{p.system} - {p.baseline}: TER gap {p.ter_bootstrap.difference:+.2f}, p(AR) "
            f"{p.ter_randomization.p_value:.4f}, p(BS) {p.ter_bootstrap.p_value:.4f} (sacrebleu --paired-bs: "
            f"{p.ter_bootstrap.sacrebleu_p_value:.4f})"
            + (f", Holm-AR {p.ter_randomization_holm:.4f}, Holm-BS {p.ter_bootstrap_holm:.4f}" if fw else "")
            + f"; better (BS{', Holm' if fw else ''}): {ter_verdict(p, fw)}"
            for p in c.all_pairs if p.ter_bootstrap is not None]


def holm_significant(p: PairTest, test: str) -> bool:
    """Whether Holm's adjusted p of ``test`` ("AR" or "BS") is below ``ALPHA`` (a zero gap is never significant)."""
    adjusted = p.randomization_holm if test == "AR" else p.bootstrap_holm
    return p.difference != 0 and adjusted is not None and adjusted < ALPHA


def draws_note(c: ComparisonData) -> str:
    """What was raised so that the family-wise threshold can be reached, in the command line's words ("" if
    nothing was)."""
    raised = c.settings.get("raised", {})
    if not raised:
        return ""
    m = len(c.all_pairs)
    what = {"n_samples": ("--samples", "bootstrap resamples"), "n_trials": ("--trials", "randomization trials")}
    threshold = ALPHA / max(m, 1)
    parts = [f"{what[arg][1]} from {asked:,} to {used:,} ({what[arg][0]}): 1 / ({asked:,} + 1) = "
             f"{1 / (asked + 1):.2g}, the smallest p {asked:,} can give, is not below {ALPHA:g} / {max(m, 1)} = "
             f"{threshold:.2g}, so every pair would have read “no” whatever the gap; {used:,} is the smallest "
             f"multiple of 1,000 whose smallest p, {1 / (used + 1):.2g}, is at most half of it"
             for arg, (asked, used) in raised.items()]
    return ("Raised " + "; ".join(parts) + f". Draws are raised up to {MAX_DRAWS:,} (draws × segments); past that the "
            "comparison is refused.")


def clusters_text(c: ComparisonData) -> list[str]:
    """One line per test: the WMT-style clusters, best first ("" with two systems or fewer)."""
    return [f"{test}: " + " > ".join("{" + ", ".join(cluster) + "}" for cluster in found)
            for test, found in c.clusters.items()]


CLUSTERS_NOTE = ("Clusters, as WMT ranks systems: the best system by BLEU and every system not significantly "
                 f"different from it (Holm's adjusted p ≥ {ALPHA:g}) form the first cluster; the same on the systems "
                 "left, and so on. AR: by approximate randomization; BS: by the paired bootstrap.")


def _chrf(s) -> str:
    return f"{s.chrf.score:.2f}" if s.chrf else "–"


def _ter(s) -> str:
    return f"{s.ter.score:.2f}" if s.ter else "–"


TER_NOTE = ("TER: sacrebleu's default TER (lowercased, split on whitespace: case:lc, tok:tercom), a corpus score: "
            "the edits to the closest reference summed over the segments, over the average reference lengths summed "
            "(Snover et al. 2006, https://aclanthology.org/2006.amta-papers.25/). Lower is better, so a negative TER "
            "gap favours the first system of the pair.")


NOTE = "font-size:0.85em;color:#444"


TH = f"{CELL};background:#f6f8fa;text-align:left"


NUM = f"{CELL};text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap"


@cache
def tables() -> object:
    """The macros of compare_tables.html.j2 (a table and its cells, the notes, the figures' grid, the sections), for
    the HTML report and its figures."""
    return macros("compare_tables.html.j2", th=Markup(TH), num=Markup(NUM), cell=Markup(CELL), note=Markup(NOTE),
                  table_style=Markup(TABLE), mono=Markup(MONO))  # our own CSS, not user text


def _yes(value: bool) -> str:
    return "yes" if value else "no"


# --- metrics beside BLEU: --scores metrics, agreement of every pair of metrics, how big a difference is -----------
AGREEMENT_SOURCES = (
    "Segment-level MQM: professional translators' error annotations (the method and its weights: Freitag et al. "
    "2021a, “Experts, Errors, and Context”, TACL, https://aclanthology.org/2021.tacl-1.87/; the WMT21 newstest "
    "ratings: Freitag et al. 2021b, WMT21 metrics task, https://aclanthology.org/2021.wmt-1.73/). Each segment-level "
    "figure names its grouping (mt-metrics-eval's average_by): no grouping (every system's segments in one list), by "
    "system (two segments of one system, averaged over the systems), by item (two systems' translations of one "
    "segment, averaged over the segments, as the WMT23 and WMT24 metrics tasks group). Kendall's τ_b leaves tied pairs "
    "out of its numerator and shrinks its denominator: with MQM most segments tie at 0 errors, and how ties are "
    "handled changes which metric looks best; acc*_eq is the pairwise accuracy with tie calibration (differences up "
    "to ε count as ties, ε chosen to maximise it), to be read beside a constant metric's, one that ties every pair "
    "(Deutsch et al. 2023, “Ties Matter”, https://aclanthology.org/2023.emnlp-main.798/)."
)


KOCMI_NOTE = ("est. accuracy: how often a difference of this size in this metric agrees with human judgements, from "
              "the fits of Kocmi et al. 2024 (“Navigating the Metrics Maze”, https://aclanthology.org/2024.acl-long.110)"
              "; an estimate over their pairs of systems, not a property of this test set, and shown beside the tests, "
              "not in place of them; “a coin toss” below 50%; blank for a metric they did not fit.")


def _float(value: float, fmt: str = "{:.3f}") -> str:
    return "–" if value is None or isinstance(value, float) and math.isnan(value) else fmt.format(value)


def _rated_span(c: ComparisonData) -> str:
    """How many segments each --scores metric rates per system, e.g. 'MQM: 527 of 1,002 per system'."""
    parts = []
    for m in c.metrics:
        low, high = min(s.rated for s in m.systems), max(s.rated for s in m.systems)
        parts.append(f"{m.name}: {low:,}{'' if low == high else f' to {high:,}'} of {len(c):,} per system")
    return "; ".join(parts)


# --- the people against the metrics -------------------------------------------------------------------------------
PEOPLE_NOTE = ("Systems by the people's rank, best first. Rank 1 is the best, each metric read in its own direction "
               "(lower TER and fewer MQM error points are better); tied systems share the best rank of their group. "
               "Which system of a pair a metric finds better: the sign of the gap its paired tests test (a --scores "
               "metric: its means on the segments both systems are rated on); a tie is no disagreement. A "
               "disagreement is significant on a side when that metric's paired bootstrap, Holm-adjusted over its "
               "own pairs, is below {alpha:g}; “!” marks a pair significant on either side. Clusters: as the BLEU "
               "clusters, by the people's own tests.")


def _rank_cell(r, name: str, fmt: str = "{:.2f}") -> str:
    return f"{r.ranks[name]} ({_float(r.scores[name], fmt)})"


def _score_format(r) -> str:
    """BLEU, chrF and TER on their 0-100 scale with 2 decimals; a --scores metric with 3."""
    return "{:.2f}" if r.metric in ("BLEU", "chrF", "TER") else "{:.3f}"


def _metric_winner(m, p, bs_holm: float) -> str:
    """The system the metric's bootstrap finds better after Holm, or "–"."""
    if not (bs_holm < ALPHA and p.difference):
        return "–"
    return p.system if m.higher_is_better == (p.difference > 0) else p.baseline
