"""Reporters: a comparison's results as plain data, JSON, CSV, LaTeX, text, HTML and figures. Nothing here
computes a score.

The HTML is one fragment with inline styles only (the notebook view) or, from ``to_html``, one standalone page
that loads nothing from anywhere and runs no script: the figures are inline SVG (``plots.figure_svg``), each bucket
row opens its segments with ``<details>``. The side-by-side examples mark each output's tokens with the explain
view's chips (``explain_html.token_chips_html``): the longest n-gram through each token that the references credit.
Reporters read ``results.ComparisonData`` (what ``compare_systems`` returns is one); they never import the
comparison module, which calls them.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..metrics.agreement import MAX_TAU_ITEMS
from ..metrics.delta_accuracy import describe_accuracy, estimated_accuracy
from ..metrics.significance import MAX_DRAWS, bonferroni_alpha
from ..reports import plots
from ..reports.explain import explain
from ..reports.explain_html import BOX, CELL, MONO, TABLE, chip_legend_html, token_chips_html
from ..reports.spreadsheet import write_csv
from .metrics import holm_pairs, oriented
from .people import significant
from .results import BucketTable, ComparisonData, PairTest

ALPHA = 0.05  # the level the report reads every p-value at
CHARACTER_TOKENIZERS = {"zh": "every Chinese character is a token (other text is split as by 13a)",
                        "char": "every character is a token"}


def _num(value: float) -> float | None:
    """A float for JSON: NaN (an empty bucket) becomes null."""
    return None if isinstance(value, float) and math.isnan(value) else float(value)


# --- plain data --------------------------------------------------------------------------------------------------


def to_dict(c: ComparisonData) -> dict:
    """Every table of the report as lists and dicts of plain values (JSON-ready)."""
    return {
        "signature": c.signature,
        "chrf_signature": c.chrf_signature,
        "ter_signature": c.ter_signature,
        "baseline": c.baseline,
        "segments": len(c),
        "settings": dict(c.settings),
        "systems": [
            {"name": s.name, "bleu": s.bleu.score, "chrf": s.chrf.score if s.chrf else None,
             "ter": s.ter.score if s.ter else None,
             "length_ratio": s.length_ratio, "hyp_len": s.bleu.sys_len, "ref_len": s.bleu.ref_len,
             "precisions": list(s.bleu.precisions),
             "bp": s.bleu.bp}
            for s in c.systems
        ],
        "pairs": [_pair(p) for p in c.pairs],
        "all_pairs": [_pair(p, c) for p in c.all_pairs],
        "family_wise": family_wise(c),
        "clusters": {test: [list(cluster) for cluster in found] for test, found in c.clusters.items()},
        "draws_raised": {arg: {"requested": asked, "used": used}
                         for arg, (asked, used) in c.settings.get("raised", {}).items()},
        "word_accuracy": [
            {"bucket": label,
             "fmeasure": {n: fmeasure_or_none(w, b) for n, w in c.word_accuracy.counts.items()},
             "precision": {n: w.precision(b) if w.output[b] else None for n, w in c.word_accuracy.counts.items()},
             "recall": {n: w.recall(b) if w.reference[b] else None for n, w in c.word_accuracy.counts.items()},
             "matches": {n: w.matches[b] for n, w in c.word_accuracy.counts.items()},
             "output_words": {n: w.output[b] for n, w in c.word_accuracy.counts.items()},
             "reference_words": next(iter(c.word_accuracy.counts.values())).reference[b]}
            for b, label in enumerate(c.word_accuracy.labels)
        ],
        "word_accuracy_frequencies": c.word_accuracy.frequency_source,
        "word_accuracy_examples": [
            {"bucket": c.word_accuracy.labels[b], "segment": ex.segment + 1, "words": list(ex.words),
             "found": {n: list(f) for n, f in ex.found.items()}}
            for b, found in sorted(c.word_accuracy.examples.items()) for ex in found
        ],
        "tokens_note": tokens_note(c),
        "length_buckets": _bucket_rows(c.length_buckets),
        "length_difference_buckets": _bucket_rows(c.length_difference_buckets),
        "length_difference_buckets_merged": (_bucket_rows(c.length_difference_merged)
                                             if c.length_difference_merged else None),
        "sentence_bleu_buckets": _bucket_rows(c.sentence_bleu_buckets),
        "salient_ngrams": [
            {"system": s.system, "baseline": s.baseline, "compare_type": s.compare_type, "alpha": s.alpha,
             "system_ngrams": [_ngram(g) for g in s.system_ngrams],
             "baseline_ngrams": [_ngram(g) for g in s.baseline_ngrams]}
            for s in c.salient_ngrams
        ],
        "examples": [
            {"segment": e.segment + 1, "system": e.system, "baseline": e.baseline, "gap": e.gap,
             "source": c.sources[e.segment] if c.sources else None, "references": c.references[e.segment],
             "outputs": {n: c.outputs[n][e.segment] for n in (e.baseline, e.system)},
             "sentence_bleu": {n: float(c.sentence_bleu[n][e.segment]) for n in (e.baseline, e.system)}}
            for e in c.examples
        ],
        **metrics_dict(c),
        **people_dict(c),
    }


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


def _bucket_rows(t: BucketTable) -> list[dict]:
    if t.counts_only:
        return [{"bucket": label, "count": {n: s[b].count for n, s in t.scores.items()}}
                for b, label in enumerate(t.labels)]
    return [
        {"bucket": label,
         "count": {n: s[b].count for n, s in t.scores.items()},
         "bleu": {n: _num(s[b].bleu) for n, s in t.scores.items()},
         "interval": {n: [_num(x) for x in s[b].interval] for n, s in t.scores.items()}}
        for b, label in enumerate(t.labels)
    ]


def _ngram(g) -> dict:
    return {"ngram": g.text, "score": g.score, "count_system": g.count1, "count_baseline": g.count2}


def to_json(c: ComparisonData, path: str | Path | None = None) -> str:
    text = json.dumps(to_dict(c), ensure_ascii=False, indent=1)
    if path is not None:
        Path(path).write_text(text + "\n", encoding="utf-8")
    return text


# --- CSV and LaTeX -----------------------------------------------------------------------------------------------


def _flat(row: dict) -> dict:
    """A row for CSV: each interval [lower, upper] as two number columns, key_low and key_high."""
    flat = {}
    for k, v in row.items():
        if isinstance(v, list):
            flat[f"{k}_low"], flat[f"{k}_high"] = v
        else:
            flat[k] = v
    return flat


def to_csv(c: ComparisonData, directory: str | Path) -> list[Path]:
    """scores.csv, pairs.csv (against the baseline), all_pairs.csv (every pair, with the Bonferroni reading when
    there are more than two systems), word_accuracy.csv, length_buckets.csv, length_difference_buckets.csv,
    sentence_bleu_buckets.csv, salient_ngrams.csv, examples.csv. Each interval is two columns, NAME_low and
    NAME_high (the README lists them)."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    data = to_dict(c)
    width = max((len(e["references"]) for e in data["examples"]), default=1)  # reference_1 .. reference_width
    tables = {
        "scores": [{k: s[k] for k in ("name", "bleu", "chrf", "length_ratio", "hyp_len", "ref_len")
                    + (("ter",) if c.ter_signature else ())} for s in data["systems"]],
        "pairs": [_flat(p) for p in data["pairs"]],
        "all_pairs": [_flat(p) for p in data["all_pairs"]],
        "word_accuracy": [
            {"bucket": r["bucket"], "system": n, "fmeasure": r["fmeasure"][n], "precision": r["precision"][n],
             "recall": r["recall"][n], "matches": r["matches"][n], "output_words": r["output_words"][n],
             "reference_words": r["reference_words"]}
            for r in data["word_accuracy"] for n in c.names
        ],
        "salient_ngrams": [
            {"system": s["system"], "baseline": s["baseline"], "compare_type": s["compare_type"], "side": side, **g}
            for s in data["salient_ngrams"] for side in ("system", "baseline") for g in s[f"{side}_ngrams"]
        ],
        "examples": [
            {"segment": e["segment"], "system": e["system"], "baseline": e["baseline"], "gap": e["gap"],
             "system_output": e["outputs"][e["system"]], "baseline_output": e["outputs"][e["baseline"]],
             **{f"reference_{k}": refs[k - 1] if k <= len(refs) else "" for k in range(1, width + 1)}}
            for e in data["examples"] for refs in (e["references"],)
        ],
    }
    for key in ("length_buckets", "length_difference_buckets"):
        tables[key] = [
            {"bucket": r["bucket"], "system": n, "count": r["count"][n], "bleu": r["bleu"][n],
             "interval_low": r["interval"][n][0], "interval_high": r["interval"][n][1]}
            for r in data[key] for n in c.names
        ]
    tables["sentence_bleu_buckets"] = [{"bucket": r["bucket"], "system": n, "count": r["count"][n]}
                                       for r in data["sentence_bleu_buckets"] for n in c.names]
    tables.update(metrics_csv(c))
    tables.update(people_csv(c))
    written = []
    for name, rows in tables.items():
        written.append(write_csv(folder / f"{name}.csv", rows))
    return written


LATEX_SPECIALS = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                  "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}


def latex_escape(text: str) -> str:
    return "".join(LATEX_SPECIALS.get(ch, ch) for ch in text)


def _chrf(s) -> str:
    return f"{s.chrf.score:.2f}" if s.chrf else "–"


def _ter(s) -> str:
    return f"{s.ter.score:.2f}" if s.ter else "–"


TER_NOTE = ("TER: sacrebleu's default TER (lowercased, split on whitespace: case:lc, tok:tercom), a corpus score: "
            "the edits to the closest reference summed over the segments, over the average reference lengths summed "
            "(Snover et al. 2006, https://aclanthology.org/2006.amta-papers.25/). Lower is better, so a negative TER "
            "gap favours the first system of the pair.")


def pairs_latex(c: ComparisonData) -> list[str]:
    """Every pair of systems with both paired tests and Bonferroni's reading, as a LaTeX table (none with two systems
    or fewer: their one pair is the scores table's row)."""
    fw = family_wise(c)
    if fw is None:
        return []
    lines = [
        r"\begin{tabular}{lrlrrcccccrr}",
        r"\hline",
        r"Pair & $\Delta$BLEU & 95\% interval of $\Delta$ & $p_\mathrm{AR}$ & $p_\mathrm{BS}$ & "
        f"AR $p<{ALPHA:g}$ & BS $p<{ALPHA:g}$ & AR $p<{fw['threshold']:.4f}$ (Bonf.) & BS $p<{fw['threshold']:.4f}$ "
        r"(Bonf.) & $\tilde p_\mathrm{AR}$ (Holm) & $\tilde p_\mathrm{BS}$ (Holm) \\",
        r"\hline",
    ]
    for p in c.all_pairs:
        yes = [_yes(test.significant(level)) for level in (ALPHA, fw["threshold"])
               for test in (p.randomization, p.bootstrap)]
        lines.append(f"{latex_escape(p.system)} $-$ {latex_escape(p.baseline)} & {p.difference:+.2f} & "
                     "[{:+.2f}, {:+.2f}] & ".format(*p.bootstrap.difference_interval)
                     + f"{p.randomization.p_value:.4f} & {p.bootstrap.p_value:.4f} & {' & '.join(yes)} & "
                     f"{p.randomization_holm:.4f} & {p.bootstrap_holm:.4f} \\\\")
    lines += [r"\hline", r"\end{tabular}",
              f"% Every pair: gap = BLEU of the first system - BLEU of the second, interval: 95% of the paired "
              f"bootstrap's resampled gaps. The last two columns are Bonferroni's correction for {fw['comparisons']} "
              f"pairs tested together (lesson 9): each pair read at {ALPHA:g} / {fw['comparisons']} = "
              f"{fw['threshold']:.4f}, so that the chance of any false alarm among them is at most {ALPHA:g}. "
              f"Holm: step-down adjusted p (Holm 1979), significant when below {ALPHA:g}; it finds every difference "
              "Bonferroni finds, and sometimes more."]
    lines += [f"% {line}" for line in (draws_note(c), *clusters_text(c)) if line]
    return lines


def to_latex(c: ComparisonData, path: str | Path | None = None) -> str:
    """The scores table: BLEU, chrF, length ratio, and against the baseline the gap, both p-values and the
    system's 95% bootstrap interval; with more than two systems, a second table of every pair with both tests and
    Bonferroni's reading (``pairs_latex``). The signatures go in a footnote line."""
    pairs = {p.system: p for p in c.pairs}
    with_ter = bool(c.ter_signature)
    lines = [
        r"\begin{tabular}{lrr" + ("r" if with_ter else "") + "rrrrl}",
        r"\hline",
        r"System & BLEU & chrF & " + (r"TER$\downarrow$ & " if with_ter else "")
        + r"Len. ratio & $\Delta$BLEU & $p_\mathrm{AR}$ & $p_\mathrm{BS}$ & 95\% interval \\",
        r"\hline",
    ]
    for s in c.systems:
        p = pairs.get(s.name)
        if p is None:
            tail = r"\multicolumn{3}{c}{(baseline)} & " + "[{:.2f}, {:.2f}]".format(
                *c.pairs[0].bootstrap.baseline_interval) if c.pairs else r"\multicolumn{4}{c}{(baseline)}"
        else:
            tail = (f"{p.difference:+.2f} & {p.randomization.p_value:.4f} & {p.bootstrap.p_value:.4f} & "
                    "[{:.2f}, {:.2f}]".format(*p.bootstrap.system_interval))
        lines.append(f"{latex_escape(s.name)} & {s.bleu.score:.2f} & {_chrf(s)} & "
                     + (f"{_ter(s)} & " if with_ter else "") + f"{s.length_ratio:.3f} & {tail} \\\\")
    lines += [r"\hline", r"\end{tabular}",
              f"% BLEU: {latex_escape(c.signature)}", f"% chrF2: {latex_escape(c.chrf_signature or 'not computed')}"]
    if with_ter:
        lines += [f"% TER: {latex_escape(c.ter_signature)}", f"% {latex_escape(TER_NOTE)}"]
        lines += [f"% TER, {latex_escape(line)}" for line in ter_lines(c)]
    every_pair = pairs_latex(c)
    lines += ["", *every_pair] if every_pair else []
    lines += metrics_latex(c)
    lines += people_latex(c)
    text = "\n".join(lines) + "\n"
    if path is not None:
        Path(path).write_text(text, encoding="utf-8")
    return text


# --- text ---------------------------------------------------------------------------------------------------------


def to_text(c: ComparisonData) -> str:
    """A terminal summary: the scores, the tests against the baseline, every pair with Bonferroni's reading (more
    than two systems), and word accuracy."""
    width = max(len(n) for n in c.names) + 2
    with_ter = bool(c.ter_signature)
    out = [f"{len(c)} segments, baseline {c.baseline}", f"BLEU signature: {c.signature}",
           f"{'system':<{width}}  BLEU    chrF  " + (" TER   " if with_ter else "")
           + " ratio   gap     p(AR)   p(BS)   95% interval"]
    pairs = {p.system: p for p in c.pairs}
    for s in c.systems:
        p = pairs.get(s.name)
        tail = "(baseline)" if p is None else (
            f"{p.difference:+6.2f}  {p.randomization.p_value:.4f}  {p.bootstrap.p_value:.4f}  "
            "[{:.2f}, {:.2f}]".format(*p.bootstrap.system_interval))
        out.append(f"{s.name:<{width}}  {s.bleu.score:6.2f}  {_chrf(s):>6}  "
                   + (f"{_ter(s):>6}  " if with_ter else "") + f"{s.length_ratio:.3f}  {tail}")
    if c.pairs:
        out.append("p(BS): the paired bootstrap, two-sided, gaps shifted to the null. For the same resamples:")
        out += [f"  {line}" for line in sacrebleu_lines(c)]
    out += [f"chrF, {p.system} - {p.baseline}: gap {p.chrf_bootstrap.difference:+.2f}, p(AR) "
            f"{p.chrf_randomization.p_value:.4f}, p(BS) {p.chrf_bootstrap.p_value:.4f} (sacrebleu --paired-bs: "
            f"{p.chrf_bootstrap.sacrebleu_p_value:.4f})" for p in c.pairs if p.chrf_bootstrap is not None]
    if with_ter:
        out += [f"TER signature: {c.ter_signature}", TER_NOTE, *ter_lines(c)]
    fw = family_wise(c)
    if fw:
        out.append(f"\nevery pair, Bonferroni: significant when p < {ALPHA:g} / {fw['comparisons']} = "
                   f"{fw['threshold']:.4f}; Holm: significant when the adjusted p (Holm-AR, Holm-BS) < {ALPHA:g}")
        labels = [f"{p.system} - {p.baseline}" for p in c.all_pairs]
        pw = max(len(label) for label in labels) + 2
        out.append(f"{'pair':<{pw}}  gap     p(AR)   p(BS)   AR   BS   Holm-AR Holm-BS")
        for label, p in zip(labels, c.all_pairs):
            out.append(f"{label:<{pw}}  {p.difference:+6.2f}  {p.randomization.p_value:.4f}  "
                       f"{p.bootstrap.p_value:.4f}  {_yes(p.randomization.significant(fw['threshold'])):<3}  "
                       f"{_yes(p.bootstrap.significant(fw['threshold'])):<3}  {p.randomization_holm:.4f}  "
                       f"{p.bootstrap_holm:.4f}")
        out += ["clusters (Holm, best first): " + line for line in clusters_text(c)]
    if draws_note(c):
        out.append(draws_note(c))
    if c.metrics or c.agreement:
        out += ["", *metrics_text(c)]
    out += people_text(c)
    out.append("\nword F-measure by reference frequency:")
    out.append(f"{'bucket':<12}" + "".join(f"{n:>{width + 2}}" for n in c.names))
    for b, label in enumerate(c.word_accuracy.labels):
        out.append(f"{label:<12}" + "".join(f"{_f_text(fmeasure_or_none(c.word_accuracy.counts[n], b)):>{width + 2}}"
                                          for n in c.names))
    out.append("(–: no reference word in the bucket, so no recall and no F-measure)")
    if tokens_note(c):
        out.append(tokens_note(c))
    return "\n".join(out)


# --- HTML ---------------------------------------------------------------------------------------------------------

TH = f"{CELL};background:#f6f8fa;text-align:left"
NUM = f"{CELL};text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap"


def _table(caption: str, head: list[str], rows: list[list[str]], note: str = "",
           details: list[str] | None = None, details_class: str = "bucket-segments") -> str:
    """A captioned table, its first column the row headers; ``details[i]``, if given and not empty, is a row under
    row i spanning every column (a bucket's segments, behind ``<details>``)."""
    header = "".join(f"<th scope='col' style='{TH}'>{h}</th>" for h in head)
    body = []
    for i, r in enumerate(rows):
        body.append("<tr>" + f"<th scope='row' style='{TH}'>{r[0]}</th>"
                    + "".join(f"<td style='{NUM}'>{x}</td>" for x in r[1:]) + "</tr>")
        if details and details[i]:
            body.append(f"<tr class='{details_class}'><td colspan='{len(head)}' style='{CELL}'>{details[i]}</td></tr>")
    return (
        f"<div style='overflow-x:auto;margin:6px 0' role='region' tabindex='0' aria-label='{html.escape(caption)}'>"
        f"<table style='{TABLE}'><caption style='text-align:left;font-weight:bold;padding:2px 0'>"
        f"{html.escape(caption)}</caption><thead><tr>{header}</tr></thead><tbody>{''.join(body)}</tbody></table>"
        f"{note}</div>"
    )


def _esc(text: str) -> str:
    return html.escape(text)


NOTE = "font-size:0.85em;color:#444"


def character_note(c: ComparisonData) -> str:
    """Under a character tokenizer, what a "word" of this report is (empty otherwise)."""
    tokenize = c.options.tokenize
    if tokenize not in CHARACTER_TOKENIZERS:
        return ""
    return (f"Tokenized with {tokenize}: {CHARACTER_TOKENIZERS[tokenize]}, so a “word” in this report (word "
            "F-measure, n-grams, lengths in tokens) is a character.")


def legend_html(c: ComparisonData, analyses: bool = True) -> str:
    """How to read the report, before any of it: the chips' colours and marks, the tokens, and (``analyses``) the
    figures and the bucket rows."""
    chars = character_note(c)
    return (
        "<div class='compare-legend' style='margin:6px 0'><div style='font-weight:bold'>How to read this report</div>"
        "<div>In the examples, each output token is a chip:</div>"
        f"{chip_legend_html()}"
        + ("<div>In the figures, each system has its own colour and hatching; error bars are 95% bootstrap "
           "intervals. Every bucket row of the tables opens the segments it holds, best and worst first.</div>"
           if analyses else "")
        + (f"<div class='compare-character-note'><b>{_esc(chars)}</b></div>" if chars else "")
        + (f"<div class='compare-tokens-note'>{_esc(tokens_note(c))}</div>" if tokens_note(c) else "")
        + "</div>"
    )


def scores_html(c: ComparisonData) -> str:
    pairs = {p.system: p for p in c.pairs}
    rows = []
    for s in c.systems:
        p = pairs.get(s.name)
        cells = [_esc(s.name) + (" (baseline)" if s.name == c.baseline else ""), f"{s.bleu.score:.2f}",
                 _chrf(s), *([_ter(s)] if c.ter_signature else []), f"{s.length_ratio:.3f}"]
        if p is None:
            cells += ["–", "–", "–", "[{:.2f}, {:.2f}]".format(*c.pairs[0].bootstrap.baseline_interval)
                      if c.pairs else "–"]
        else:
            cells += [f"{p.difference:+.2f}", f"{p.randomization.p_value:.4f}", f"{p.bootstrap.p_value:.4f}",
                      "[{:.2f}, {:.2f}]".format(*p.bootstrap.system_interval)]
        rows.append(cells)
    note = (
        f"<div style='font-size:0.85em;color:#444'>gap = BLEU − baseline BLEU; p(AR): paired approximate "
        f"randomization ({c.settings.get('n_trials')} trials); p(BS): paired bootstrap ({c.settings.get('n_samples')} "
        "resamples), two-sided, gaps shifted to the null; interval: 95% of the resampled BLEU scores. "
        f"{_esc(draws_note(c))}"
        + "".join(f"<br>{_esc(line)}" for line in sacrebleu_lines(c)) +
        f"<br><code style='{MONO}'>BLEU {_esc(c.signature)}</code><br>"
        f"<code style='{MONO}'>chrF2 {_esc(c.chrf_signature or 'not computed')}</code>"
        + (f"<br><code style='{MONO}'>TER {_esc(c.ter_signature)}</code><br>{_esc(TER_NOTE)}" if c.ter_signature
           else "") + "</div>"
    )
    return _table("Scores", ["system", "BLEU", "chrF", *(["TER (corpus, lower is better)"] if c.ter_signature else []),
                             "length ratio", "gap", "p(AR)", "p(BS)", "95% interval"], rows, note)


def pairs_html(c: ComparisonData) -> str:
    """Every pair of systems with both paired tests; with more than two systems, Bonferroni's reading too (nothing
    for a single system)."""
    if not c.all_pairs:
        return ""
    fw = family_wise(c)
    head = ["pair", "gap", "95% interval of the gap", "p(AR)", "p(BS)", "p as sacrebleu --paired-bs prints it",
            "est. accuracy"]
    with_chrf = all(p.chrf_bootstrap is not None for p in c.all_pairs)
    if with_chrf:
        head += ["chrF gap", "chrF p(AR)", "chrF p(BS)"]
        head += [f"chrF p({test}), Holm-adjusted" for test in ("AR", "BS")] if fw else []
        head += ["chrF est. accuracy"]
    with_ter = all(p.ter_bootstrap is not None for p in c.all_pairs)
    if with_ter:
        head += ["TER gap (lower is better)", "TER p(AR)", "TER p(BS)"]
        head += [f"TER p({test}), Holm-adjusted" for test in ("AR", "BS")] if fw else []
        head += [f"better by TER (BS{', Holm' if fw else ''})"]
    head += [f"{test} p &lt; {ALPHA:g}" for test in ("AR", "BS")]
    if fw:
        head += [f"{test} p &lt; {fw['threshold']:.4f} (Bonferroni)" for test in ("AR", "BS")]
        head += [f"p({test}), Holm-adjusted" for test in ("AR", "BS")]
    rows = []
    for p in c.all_pairs:
        pair = f"<span style='white-space:nowrap'>{_esc(p.system)} − {_esc(p.baseline)}</span>"  # not a letter a line
        cells = [pair, f"{p.difference:+.2f}",
                 "[{:+.2f}, {:+.2f}]".format(*p.bootstrap.difference_interval), f"{p.randomization.p_value:.4f}",
                 f"{p.bootstrap.p_value:.4f}", f"{p.bootstrap.sacrebleu_p_value:.4f}",
                 _esc(describe_accuracy(estimated_accuracy(p.difference, "BLEU")))]
        if with_chrf:
            cells += [f"{p.chrf_bootstrap.difference:+.2f}", f"{p.chrf_randomization.p_value:.4f}",
                      f"{p.chrf_bootstrap.p_value:.4f}"]
            cells += [f"{p.chrf_randomization_holm:.4f}", f"{p.chrf_bootstrap_holm:.4f}"] if fw else []
            cells += [_esc(describe_accuracy(estimated_accuracy(p.chrf_bootstrap.difference, "chrF")))]
        if with_ter:
            cells += [f"{p.ter_bootstrap.difference:+.2f}", f"{p.ter_randomization.p_value:.4f}",
                      f"{p.ter_bootstrap.p_value:.4f}"]
            cells += [f"{p.ter_randomization_holm:.4f}", f"{p.ter_bootstrap_holm:.4f}"] if fw else []
            cells += [_esc(ter_verdict(p, fw))]
        cells += [_yes(p.randomization.significant(ALPHA)),
                 _yes(p.bootstrap.significant(ALPHA))]
        if fw:
            cells += [_yes(test.significant(fw["threshold"])) for test in (p.randomization, p.bootstrap)]
            cells += [f"{p.randomization_holm:.4f}", f"{p.bootstrap_holm:.4f}"]
        rows.append(cells)
    if fw:
        correction = (f"Bonferroni correction for {fw['comparisons']} pairs tested together (lesson 9): each pair is "
                      f"read at {ALPHA:g} / {fw['comparisons']} = {fw['threshold']:.4f}, so that the chance of any "
                      f"false alarm among them stays below {ALPHA:g}. Holm-adjusted p (Holm 1979, step-down): the "
                      f"smallest p times {fw['comparisons']}, the next times {fw['comparisons'] - 1}, and so on (never "
                      f"below the one before); a pair is significant when it is below {ALPHA:g}. It keeps the same "
                      "guarantee and finds every difference Bonferroni finds, sometimes more.")
    else:
        correction = "One pair: nothing to correct for many comparisons."
    note = (f"<div style='{NOTE}'>gap = BLEU of the first system − BLEU of the second; interval: 95% of the paired "
            "bootstrap's resampled gaps; p(AR): paired approximate randomization; p(BS): paired bootstrap, gaps "
            "shifted to the null, two-sided. sacrebleu --paired-bs prints another p for the same resamples: it folds "
            "the gaps and counts the upper tail only, roughly a one-sided p. "
            + ("chrF gap, chrF p(AR), chrF p(BS): the same two tests on chrF's per-segment statistics, with the same "
               "draws" + (", and Holm's adjustment over the pairs' chrF tests" if fw else "")
               + " (the BLEU columns after them are BLEU's). " if with_chrf else "")
            + ("TER gap, TER p(AR), TER p(BS): the same two tests on corpus TER's per-segment statistics (edits, "
               "average reference length), with the same draws; TER is lower when better, so a negative gap favours "
               "the first system, and “better by TER” names the system with the lower TER when the bootstrap's p"
               + (" (Holm-adjusted over the pairs' TER tests)" if fw else "") + f" is below {ALPHA:g}. "
               if with_ter else "")
            + f"{correction} {_esc(KOCMI_NOTE)}</div>")
    found = "".join(f"<li>{_esc(line)}</li>" for line in clusters_text(c))
    if found:
        note += (f"<div class='compare-clusters' style='margin:4px 0'><b>Clusters</b> (best first)<ul>{found}</ul>"
                 f"<div style='{NOTE}'>{_esc(CLUSTERS_NOTE)}</div></div>")
    return _table("Every pair of systems: both paired tests", head, rows, note)


def _yes(value: bool) -> str:
    return "yes" if value else "no"


# --- figures (inline SVG, one figure style: plots.py) -------------------------------------------------------------


def _nan(value: float | None) -> float:
    return float("nan") if value is None else value


def _values_text(labels: list[str], series: dict[str, list[float]], intervals: dict | None, fmt: str,
                 counts: dict[str, list[int]] | None = None, empty: str = "no segment") -> str:
    """The numbers behind a figure, as text for its <desc>: per system, each bucket's value [interval]."""
    parts = []
    for name, values in series.items():
        cells = []
        for b, (label, value) in enumerate(zip(labels, values)):
            if counts is not None and not counts[name][b]:
                cells.append(f"{label}: {empty}")
                continue
            text = f"{label}: {fmt.format(value)}"
            if intervals:
                text += " [{}, {}]".format(*(fmt.format(x) for x in intervals[name][b]))
            cells.append(text)
        parts.append(f"{name}: " + "; ".join(cells))
    return ". ".join(parts) + "."


def _bucket_figure(t: BucketTable, title: str, xlabel: str, wide: bool = False) -> str:
    return _bars_figure(t.labels, {n: [s.bleu for s in scores] for n, scores in t.scores.items()},
                        {n: [s.interval for s in scores] for n, scores in t.scores.items()},
                        {n: [s.count for s in scores] for n, scores in t.scores.items()}, title, xlabel, "BLEU",
                        "Bar chart: BLEU of each system's segments in each bucket, error bars the 95% bootstrap "
                        "interval. ", "{:.1f}", "no segment", wide)


def _bars_figure(labels: list[str], series: dict[str, list[float]], intervals: dict, counts: dict[str, list[int]],
                 title: str, xlabel: str, ylabel: str, lead: str, fmt: str, empty: str, wide: bool) -> str:
    """A bucket figure: per bucket one bar per system with its 95% interval, no bar where ``counts`` is 0; the
    y axis starts at 0 unless a value or bound is below it. Its <desc> is ``lead`` and every number."""
    desc = (lead + _values_text(labels, series, intervals, fmt, counts, empty)
            + " The table below holds the same numbers.")
    values = [x for n in series for x in (*series[n], *(b for pair in intervals[n] for b in pair))
              if not math.isnan(x)]

    def draw(ax):
        plots.grouped_bars(ax, labels, series, None, intervals=intervals)
        if min(values, default=0.0) >= 0:
            ax.set_ylim(0, None)
        _legend(ax, list(series))
        if wide:
            _slant(ax)

    return plots.figure_svg(title, xlabel, ylabel, draw, desc, FIGSIZE, MARGINS)


def _figures_html(figures: list[tuple[str, str]]) -> str:
    """Figures (svg, caption) side by side, two to a row on a wide screen ("" for none)."""
    if not figures:
        return ""
    return ("<div class='compare-figures' style='display:flex;flex-wrap:wrap;gap:12px;margin:6px 0'>"
            + "".join(f"<figure class='compare-figure' style='margin:0;flex:1 1 520px;min-width:0;max-width:100%'>"
                      f"{svg}<figcaption style='{NOTE}'>{_esc(caption)}</figcaption></figure>"
                      for svg, caption in figures)
            + "</div>")


FIGSIZE = (7.2, 3.6)  # inches; shown at most 691 px wide, two to a row on a 1280-px screen
MARGINS = (0.1, 0.3, 0.76, 0.9)  # left, bottom, right, top: room for slanted labels and the legend on the right
LEGEND_CHARS = 18  # a longer system name is cut in the legend (the tables and the text alternative give it whole)


def _legend(ax, names: list[str]) -> None:
    """The systems' legend right of the axes: every name as typed (matplotlib would read ``$...$`` as math and
    leave out a name starting with ``_``), long names cut."""
    from matplotlib.container import BarContainer

    bars = [c for c in ax.containers if isinstance(c, BarContainer)]
    labels = [n if len(n) <= LEGEND_CHARS else n[:LEGEND_CHARS - 1] + "…" for n in names]
    ax.legend(bars, [label.replace("$", r"\$") for label in labels], loc="upper left", bbox_to_anchor=(1.0, 1.0),
              frameon=False)


def _slant(ax) -> None:
    """Bucket labels slanted, each ending under its group, so long labels do not overlap."""
    for label in ax.get_xticklabels():
        label.set(rotation=40, ha="right", rotation_mode="anchor")


def figures_html(c: ComparisonData) -> str:
    """The report's figures: BLEU by reference length and by length difference (with 95% bootstrap intervals),
    word F-measure by frequency bucket, and the distribution of sentence BLEU."""
    w = c.word_accuracy
    fmeasure = {n: [_nan(fmeasure_or_none(w.counts[n], b)) for b in range(len(w.labels))] for n in c.names}
    ref_words = next(iter(w.counts.values())).reference
    word_desc = ("Bar chart: each system's word F-measure (0 to 1) in each frequency bucket. "
                 + _values_text(w.labels, fmeasure, None, "{:.3f}", {n: ref_words for n in c.names},
                                "no reference word") + " The table below holds the same numbers.")

    def draw_words(ax):
        plots.grouped_bars(ax, w.labels, fmeasure, None)
        ax.set_ylim(0, 1)
        _legend(ax, list(fmeasure))
        _slant(ax)

    bands = c.sentence_bleu_buckets
    shares = {n: [s.count for s in scores] for n, scores in bands.scores.items()}
    band_desc = ("Bar chart: how many segments of each system fall in each sentence-BLEU band. "
                 + _values_text(bands.labels, shares, None, "{:d}") + " The table below holds the same numbers.")

    def draw_bands(ax):
        plots.grouped_bars(ax, bands.labels, shares, None)
        _legend(ax, list(shares))
        _slant(ax)

    figures = [
        (_bucket_figure(c.length_buckets, "BLEU by reference length", "tokens of the first reference"),
         "Segments grouped by the length of their first reference; error bars: 95% bootstrap intervals."),
        (_bucket_figure(c.length_difference_merged or c.length_difference_buckets, "BLEU by length difference",
                        "output length − reference length (tokens)", wide=True),
         "Each system's segments grouped by how much longer (or shorter) its output is than the first reference; "
         "error bars: 95% bootstrap intervals. The figure merges the table's 17 buckets (compare-mt's) into "
         f"{len((c.length_difference_merged or c.length_difference_buckets).labels)} so the bars stay readable."),
        (plots.figure_svg("Word F-measure by frequency bucket", f"frequency in the {w.frequency_source}",
                          "F-measure", draw_words, word_desc, FIGSIZE, MARGINS),
         f"Words grouped by how often they occur in the {w.frequency_source}, rarest on the left."),
        (plots.figure_svg("Sentence-BLEU distribution", "sentence BLEU band", "segments", draw_bands, band_desc,
                          FIGSIZE, MARGINS),
         "How many segments of each system score in each band of sentence BLEU (sacrebleu's, effective order)."),
    ]
    return _figures_html(figures)


# --- tables -----------------------------------------------------------------------------------------------------


def word_accuracy_html(c: ComparisonData) -> str:
    w = c.word_accuracy
    ref_words = next(iter(w.counts.values())).reference
    rows = [[_esc(label), str(ref_words[b])] + [_f_text(fmeasure_or_none(w.counts[n], b)) for n in c.names]
            for b, label in enumerate(w.labels)]
    chars = character_note(c)
    note = (f"<div style='{NOTE}'>word F-measure against the first reference; a word's bucket "
            f"is its frequency in the {_esc(w.frequency_source)}; –: no reference word in the bucket, so no recall "
            f"and no F-measure (compare-mt prints 0).{' ' + _esc(chars) if chars else ''}</div>")
    details = [word_examples_html(c, b) for b in range(len(w.labels))]
    return _table("Word F-measure by frequency bucket", ["frequency", "reference words", *map(_esc, c.names)],
                  rows, note, details, "word-examples")


def word_examples_html(c: ComparisonData, bucket: int) -> str:
    """A frequency bucket's examples behind ``<details>``: segments whose first reference holds words of the bucket,
    and which of those words each output has ("" when the bucket has no reference word)."""
    found = c.word_accuracy.examples.get(bucket, [])
    if not found:
        return ""
    items = []
    for ex in found:
        systems = "".join(
            f"<div><b>{_esc(n)}</b>: has {_words(ex.found[n]) or 'none'}"
            + (f"; misses {_words(tuple(x for x in ex.words if x not in ex.found[n]))}"
               if len(ex.found[n]) < len(ex.words) else "")
            + f"<div style='{MONO}'>{_short(c.outputs[n][ex.segment])}</div></div>" for n in c.names)
        items.append(f"<li style='margin:2px 0'><b>segment {ex.segment + 1}</b> · words of this bucket in the first "
                     f"reference: {_words(ex.words)}<div style='color:#444'>reference: <span style='{MONO}'>"
                     f"{_short(c.references[ex.segment][0])}</span></div>{systems}</li>")
    return (f"<details><summary>words of {_esc(c.word_accuracy.labels[bucket])}: {len(found)} segment"
            f"{'s' if len(found) != 1 else ''}, those some output misses first</summary>"
            f"<ul style='padding-left:1.2em;margin:0;text-align:left'>{''.join(items)}</ul></details>")


def _words(words: tuple[str, ...]) -> str:
    return ", ".join(f"<span style='{MONO}'>{_esc(x)}</span>" for x in words)


SEGMENTS_PER_SIDE = 2  # a bucket's drill-down: this many best and this many worst segments of each system
MAX_SHOWN_CHARS = 240  # of an output or reference in a drill-down


def bucket_segments(c: ComparisonData, t, bucket: int, name: str, per_side: int = SEGMENTS_PER_SIDE,
                    scores: np.ndarray | None = None) -> tuple[list[int], list[int]]:
    """System ``name``'s segments in ``bucket`` of table ``t`` (0-based): the ``per_side`` with the highest sentence
    BLEU (or ``scores``, higher is better, NaN left out) (best first) and the ``per_side`` with the lowest (worst
    first), none in both; ties: the earlier segment."""
    scores = c.sentence_bleu[name] if scores is None else scores
    members = [int(i) for i in np.flatnonzero((c.bucket_of[t.bucketer.name][name] == bucket) & ~np.isnan(scores))]
    ranked = sorted(members, key=lambda i: (-scores[i], i))
    best = ranked[:per_side]
    worst = sorted(ranked[per_side:], key=lambda i: (scores[i], i))[:per_side]
    return best, worst


def _short(text: str) -> str:
    return _esc(text if len(text) <= MAX_SHOWN_CHARS else text[:MAX_SHOWN_CHARS] + " …")


def _segment_item(c: ComparisonData, name: str, i: int, metric=None) -> str:
    """One segment of a drill-down: the output, its sentence BLEU (against every reference of the segment; after
    ``metric``'s score, given a --scores metric) and every reference, so a score credited by a later reference is not
    shown beside the first one alone."""
    refs = c.references[i]
    against = f" against all {len(refs)} references" if len(refs) > 1 else ""
    shown = "".join(f"<div style='color:#444'>reference{f' {k}' if len(refs) > 1 else ''}: "
                    f"<span style='{MONO}'>{_short(r)}</span></div>" for k, r in enumerate(refs, 1))
    score = "" if metric is None else f"{_esc(metric.name)} {c.metric_scores[metric.name].scores[name][i]:.3f} · "
    return (f"<li style='margin:2px 0'><b>segment {i + 1}</b> · {score}sentence BLEU {c.sentence_bleu[name][i]:.1f}"
            f"{against}<div style='{MONO}'>{_short(c.outputs[name][i])}</div>{shown}</li>")


def bucket_segments_html(c: ComparisonData, t, bucket: int, metric=None) -> str:
    """A bucket's segments behind ``<details>``: for each system, its best and its worst segments in the bucket (by
    sentence BLEU; for a --scores ``metric``'s table ``t``, its rated segments by the metric, in its direction)."""
    columns = []
    for name in t.scores:
        count = t.scores[name][bucket].count if metric is None else t.scores[name][bucket].rated
        if not count:
            continue
        scores = None if metric is None else oriented(c.metric_scores[metric.name].scores[name],
                                                      metric.higher_is_better)
        best, worst = bucket_segments(c, t, bucket, name, scores=scores)
        lists = "".join(f"<div>{side}</div><ul style='padding-left:1.2em;margin:0'>"
                        f"{''.join(_segment_item(c, name, i, metric) for i in segments)}</ul>"
                        for side, segments in (("best", best), ("worst", worst)) if segments)
        columns.append(f"<div style='flex:1 1 16em;min-width:0'><b>{_esc(name)}</b> ({count} "
                       f"{'rated ' if metric is not None else ''}segment{'s' if count != 1 else ''}){lists}</div>")
    if not columns:
        return ""
    by = "" if metric is None else f" by {_esc(metric.name)}"
    return (f"<details><summary>segments of {_esc(t.labels[bucket])}: best and worst{by} first</summary>"
            f"<div style='display:flex;flex-wrap:wrap;gap:12px;text-align:left'>{''.join(columns)}</div></details>")


def bucket_html(t: BucketTable, caption: str, c: ComparisonData | None = None) -> str:
    """A bucketing's table: per bucket and system, segments · BLEU [95% interval]; given the comparison ``c``, each
    bucket row opens its segments (``bucket_segments_html``)."""
    names = list(t.scores)
    rows = []
    for b, label in enumerate(t.labels):
        cells = [_esc(label)]
        for n in names:
            s = t.scores[n][b]
            cells.append(f"{s.count}" if not s.count or t.counts_only else
                         f"{s.count} · {s.bleu:.2f} <span style='color:#444'>[{s.interval[0]:.1f}, "
                         f"{s.interval[1]:.1f}]</span>")
        rows.append(cells)
    details = [bucket_segments_html(c, t, b) for b in range(len(t.labels))] if c is not None else None
    note = (f"<div style='{NOTE}'>segments in each band (counts only, as compare-mt shows them: a band is defined by "
            "the sentence BLEU itself, so its BLEU and interval would only restate the band)</div>" if t.counts_only
            else f"<div style='{NOTE}'>segments · BLEU [95% bootstrap interval]</div>")
    return _table(caption, ["bucket", *map(_esc, names)], rows, note, details)


def salient_html(c: ComparisonData) -> str:
    """Per pair, its two salient n-gram tables side by side on one row."""
    parts = []
    for s in c.salient_ngrams:
        tables = []
        for side, items in ((s.system, s.system_ngrams), (s.baseline, s.baseline_ngrams)):
            rows = [[f"<span style='{MONO}'>{_esc(g.text)}</span>", f"{g.score:.4f}", str(g.count1), str(g.count2)]
                    for g in items[:15]]
            tables.append(_table(f"n-grams {s.compare_type}ed more by {side} ({s.system} vs {s.baseline})",
                                 ["n-gram", "score", _esc(s.system), _esc(s.baseline)], rows))
        parts.append("<div class='compare-salient-pair' style='display:grid;grid-template-columns:repeat(2,"
                     f"minmax(0,1fr));gap:12px'>{''.join(tables)}</div>")
    return "".join(parts)


def output_chips(c: ComparisonData, name: str, segment: int, max_tokens: int = 120) -> str:
    """System ``name``'s output of ``segment`` as the explain view's chips (its sentence BLEU, step by step)."""
    expl = explain(c.references[segment], c.outputs[name][segment], smoothing="exp", tokenize=c.options.tokenize,
                   lowercase=c.options.lowercase)
    return token_chips_html(expl, max_tokens)


def example_html(c: ComparisonData, e, chips: Callable[[ComparisonData, str, int], str] = output_chips) -> str:
    """One segment side by side: source, references, and both outputs with the explain view's chips."""
    return side_by_side_html(
        c, e.segment, f"{_esc(e.system)} − {_esc(e.baseline)} = {e.gap:+.1f} sentence BLEU",
        {name: f"sentence BLEU {c.sentence_bleu[name][e.segment]:.1f}" for name in (e.baseline, e.system)},
        lambda name: f"<div class='bleu-tokens' style='line-height:2;{MONO}'>{chips(c, name, e.segment)}</div>")


def side_by_side_html(c: ComparisonData, i: int, heading: str, scores: dict[str, str], output: Callable[[str], str],
                      kind: str = "compare-example") -> str:
    """Segment ``i`` side by side: ``heading`` (HTML), source, every reference, and for each system of ``scores``
    its score text and ``output(name)`` (HTML)."""
    cols = "".join(f"<div style='flex:1 1 20em;min-width:0'><div><b>{_esc(name)}</b> {_esc(score)}</div>"
                   f"{output(name)}</div>" for name, score in scores.items())
    src = f"<div><b>source</b>: {_esc(c.sources[i])}</div>" if c.sources else ""
    refs = "".join(f"<div><b>reference {k}</b>: {_esc(r)}</div>" for k, r in enumerate(c.references[i], 1))
    return (
        f"<div class='{kind}' style='border-top:1px solid #d0d7de;padding:6px 0'>"
        f"<div style='font-weight:bold'>segment {i + 1}: {heading}</div>{src}{refs}"
        f"<div style='display:flex;flex-wrap:wrap;gap:12px'>{cols}</div></div>"
    )


def analyses_html(c: ComparisonData) -> str:
    """Everything between the scores and the examples: every pair's tests, the figures, word accuracy, the three
    bucketings (each bucket opening its segments), the salient n-grams."""
    return (
        pairs_html(c)
        + figures_html(c)
        + word_accuracy_html(c)
        + bucket_html(c.length_buckets, "BLEU by reference length (tokens of the first reference)", c)
        + bucket_html(c.length_difference_buckets, "BLEU by length difference (output − first reference, tokens)", c)
        + bucket_html(c.sentence_bleu_buckets, "Segments by sentence-BLEU band", c)
        + salient_html(c)
        + metrics_html(c)
    )


def report_html(c: ComparisonData, max_examples: int = 10) -> str:
    """The notebook view: the legend, every table and figure, and the first examples; one fragment, inline styles."""
    examples = "".join(example_html(c, e) for e in c.examples[:max_examples])
    more = len(c.examples) - max_examples
    return (
        f"<div class='bleu-compare' style=\"{BOX}\">"
        f"<div><b>Comparing {len(c.names)} systems</b> on {len(c)} segments (baseline {_esc(c.baseline)})</div>"
        + legend_html(c) + scores_html(c) + analyses_html(c)
        + "<div style='font-weight:bold;margin-top:8px'>Where the systems differ most (sentence BLEU)</div>"
        + examples
        + (f"<div><i>… {more} more examples in the full report</i></div>" if more > 0 else "")
        + "</div>"
    )


def to_html(c: ComparisonData, path: str | Path | None = None, title: str = "bleu_lab: comparing systems") -> str:
    """One standalone HTML page (inline styles, no scripts, no external resources)."""
    page = (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{_esc(title)}</title></head><body style='margin:0 auto;max-width:1240px;padding:8px'>"
        f"<main><h1 style='font-size:1.4em;font-family:system-ui,sans-serif'>{_esc(title)}</h1>"
        f"{report_html(c, max_examples=len(c.examples))}</main></body></html>\n"
    )
    if path is not None:
        Path(path).write_text(page, encoding="utf-8")
    return page


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


def _metric_dict(m, c: ComparisonData) -> dict:
    holm_ar, holm_bs = holm_pairs(m.all_pairs)
    return {
        "name": m.name, "direction": m.direction, "higher_is_better": m.higher_is_better, "source": m.source,
        "note": m.note,
        "systems": [{"name": s.name, "mean": _num(s.mean), "interval": [_num(x) for x in s.interval],
                     "rated": s.rated, "unrated": s.unrated} for s in m.systems],
        "pairs": [{"system": p.system, "baseline": p.baseline, "difference": p.difference, "segments": p.segments,
                   "difference_interval": list(p.bootstrap.difference_interval),
                   "ar_p_value": p.randomization.p_value, "bootstrap_p_value": p.bootstrap.p_value,
                   "ar_p_value_holm": a, "bootstrap_p_value_holm": b,
                   "estimated_accuracy": m.estimated_accuracy(p.difference)}
                  for p, a, b in zip(m.all_pairs, holm_ar, holm_bs)],
        "buckets": [{"bucketing": t.bucketer.name, "rows": _metric_bucket_rows(t)} for t in m.buckets],
        "examples": [_metric_example_dict(c, e) for e in m.examples],
    }


def _metric_bucket_rows(t) -> list[dict]:
    """A metric's bucket table as rows: per bucket and system the mean (None: no rated segment), its interval and
    the rated and unrated counts."""
    return [{"bucket": label,
             "mean": {n: _num(cells[b].mean) for n, cells in t.scores.items()},
             "interval": {n: [_num(x) for x in cells[b].interval] for n, cells in t.scores.items()},
             "rated": {n: cells[b].rated for n, cells in t.scores.items()},
             "unrated": {n: cells[b].unrated for n, cells in t.scores.items()}}
            for b, label in enumerate(t.labels)]


def _metric_example_dict(c: ComparisonData, e) -> dict:
    return {"segment": e.segment + 1, "system": e.system, "baseline": e.baseline, "system_score": e.system_score,
            "baseline_score": e.baseline_score, "gap": e.gap, "better": e.better,
            "source": c.sources[e.segment] if c.sources else None, "references": c.references[e.segment],
            "outputs": {n: c.outputs[n][e.segment] for n in (e.baseline, e.system)}}


def _agreement_dict(a) -> dict:
    """pooled_*: segment level, no grouping; per_system_*: grouped by system; item_*: grouped by item."""
    return {"x": a.x, "y": a.y, "pooled_tau": _num(a.pooled.tau), "pooled_segments": a.pooled.items,
            "per_system_tau": {n: _num(t.tau) for n, t in a.per_system.items()},
            "per_system_segments": {n: t.items for n, t in a.per_system.items()},
            "item_tau": _num(a.item.tau), "item_segments_averaged": a.item.items,
            "item_acc_eq_calibrated": _num(a.item_accuracy), "item_epsilon": _num(a.item_epsilon),
            "item_acc_eq_constant": _num(a.item_constant),
            "system_pairwise_accuracy": _num(a.system_accuracy), "system_tau": _num(a.system_tau)}


def _disagreement_dict(c: ComparisonData, d) -> dict:
    return {"system": d.system, "segment": d.segment + 1, "x": d.x, "y": d.y, "x_score": d.x_score,
            "y_score": d.y_score, "x_rank": d.x_rank, "y_rank": d.y_rank,
            "source": c.sources[d.segment] if c.sources else None, "references": c.references[d.segment],
            "output": c.outputs[d.system][d.segment]}


def metrics_dict(c: ComparisonData) -> dict:
    """The --scores metrics, the agreement of every pair of metrics and the segments they disagree on most."""
    return {"metrics": [_metric_dict(m, c) for m in c.metrics],
            "agreement": [_agreement_dict(a) for a in c.agreement],
            "disagreements": [_disagreement_dict(c, d) for d in c.disagreements]}


def metrics_csv(c: ComparisonData) -> dict[str, list[dict]]:
    """metric_scores.csv, metric_pairs.csv, metric_buckets.csv, metric_examples.csv, agreement.csv,
    disagreements.csv (none without --scores)."""
    if not c.metrics:
        return {}
    data = metrics_dict(c)
    examples = [(m["name"], e) for m in data["metrics"] for e in m["examples"]]
    width = max((len(e["references"]) for _, e in examples), default=1)  # reference_1 .. reference_width
    return {
        "metric_scores": [{"metric": m["name"], "direction": m["direction"], **_flat(s)}
                          for m in data["metrics"] for s in m["systems"]],
        "metric_pairs": [{"metric": m["name"], **_flat(p)} for m in data["metrics"] for p in m["pairs"]],
        "metric_buckets": [
            {"metric": m["name"], "bucketing": t["bucketing"], "bucket": r["bucket"], "system": n,
             "mean": r["mean"][n], "interval_low": r["interval"][n][0], "interval_high": r["interval"][n][1],
             "rated": r["rated"][n], "unrated": r["unrated"][n]}
            for m in data["metrics"] for t in m["buckets"] for r in t["rows"] for n in c.names
        ],
        "metric_examples": [
            {"metric": name, **{k: e[k] for k in ("segment", "system", "baseline", "system_score", "baseline_score",
                                                  "gap", "better", "source")},
             "system_output": e["outputs"][e["system"]], "baseline_output": e["outputs"][e["baseline"]],
             **{f"reference_{k}": e["references"][k - 1] if k <= len(e["references"]) else ""
                for k in range(1, width + 1)}}
            for name, e in examples
        ],
        "agreement": [{k: v for k, v in a.items() if not isinstance(v, dict)}
                      | {f"tau_{n}": t for n, t in a["per_system_tau"].items()} for a in data["agreement"]],
        "disagreements": [{k: v for k, v in d.items() if k != "references"}
                          | {f"reference_{k}": r for k, r in enumerate(d["references"], 1)}
                          for d in data["disagreements"]],
    }


def metrics_latex(c: ComparisonData) -> list[str]:
    """Each --scores metric's system means with their 95% intervals, and every pair of metrics' agreement."""
    if not c.metrics:
        return []
    cols = "l" + "r" * len(c.metrics)
    lines = ["", rf"\begin{{tabular}}{{{cols}}}", r"\hline",
             "System & " + " & ".join(latex_escape(m.name) + (r" ($\uparrow$)" if m.higher_is_better else
                                                             r" ($\downarrow$)") for m in c.metrics) + r" \\",
             r"\hline"]
    for name in c.names:
        cells = []
        for m in c.metrics:
            s = m.system(name)
            cells.append(f"{s.mean:.3f} [{s.interval[0]:.3f}, {s.interval[1]:.3f}]")
        lines.append(f"{latex_escape(name)} & " + " & ".join(cells) + r" \\")
    lines += [r"\hline", r"\end{tabular}",
              "% mean over each system's rated segments [95% bootstrap interval]; "
              + "; ".join(f"{m.name}: {m.direction}, {sum(s.unrated for s in m.systems)} unrated segment scores "
                          "left out" for m in c.metrics)]
    for m in c.metrics:
        lines += metric_pairs_latex(m)
        for t in m.buckets:
            lines += ["", rf"\begin{{tabular}}{{l{'r' * len(c.names)}}}", r"\hline",
                      f"{latex_escape(m.name)} by {latex_escape(t.bucketer.name)} & "
                      + " & ".join(latex_escape(n) for n in c.names) + r" \\", r"\hline"]
            lines += [_latex_label(label) + " & " + " & ".join(_bucket_cell(t.scores[n][b], "{:.3f}")
                                                             for n in c.names) + r" \\"
                      for b, label in enumerate(t.labels)]
            lines += [r"\hline", r"\end{tabular}",
                      f"% {m.name} ({m.direction}) per bucket: mean of the segment scores over the bucket's rated "
                      "segments [95% bootstrap interval] (rated segments, + unrated left out); -- no rated segment. "
                      "A mean of segment scores, not a corpus score of the bucket."]
    if c.agreement:
        lines += ["", r"\begin{tabular}{llrrrrr}", r"\hline",
                  r"Metric & Metric & seg. $\tau_b$ (no grouping) & seg. $\tau_b$ (by item) & "
                  r"acc$^*_{eq}$ (by item) & system acc. & system $\tau_b$ \\", r"\hline"]
        lines += [f"{latex_escape(a.x)} & {latex_escape(a.y)} & {a.pooled.tau:.3f} & {a.item.tau:.3f} & "
                  f"{a.item_accuracy:.3f} & {a.system_accuracy:.3f} & {a.system_tau:.3f} \\\\" for a in c.agreement]
        lines += [r"\hline", r"\end{tabular}",
                  "% Kendall's tau_b as scipy.stats.kendalltau; each metric turned so that higher is better. No "
                  "grouping: every system's segments in one list; by item: the systems' scores of each segment, "
                  "averaged over the segments (mt-metrics-eval average_by='item'). acc*_eq: Deutsch et al. (2023)'s "
                  "tie-calibrated pairwise accuracy of the first metric against the second; "
                  + "; ".join(f"{a.x} vs {a.y}: epsilon {a.item_epsilon:.4g}, a constant metric "
                              f"{a.item_constant:.3f}" for a in c.agreement) + "."]
    return lines


def metric_pairs_latex(m) -> list[str]:
    """A --scores metric's every pair with both paired tests and Holm's adjusted p (none with one system)."""
    if not m.all_pairs:
        return []
    holm_ar, holm_bs = holm_pairs(m.all_pairs)
    lines = ["", r"\begin{tabular}{lrlrrrrrl}", r"\hline",
             rf"Pair & $\Delta${latex_escape(m.name)} & 95\% interval of $\Delta$ & segments & $p_\mathrm{{AR}}$ & "
             r"$p_\mathrm{BS}$ & $\tilde p_\mathrm{AR}$ (Holm) & $\tilde p_\mathrm{BS}$ (Holm) & better (BS, Holm) \\",
             r"\hline"]
    lines += [f"{latex_escape(p.system)} $-$ {latex_escape(p.baseline)} & {p.difference:+.3f} & "
              "[{:+.3f}, {:+.3f}] & ".format(*p.bootstrap.difference_interval)
              + f"{p.segments} & {p.randomization.p_value:.4f} & {p.bootstrap.p_value:.4f} & {a:.4f} & {b:.4f} & "
              f"{latex_escape(_metric_winner(m, p, b)).replace('–', '--')} \\\\"
              for p, a, b in zip(m.all_pairs, holm_ar, holm_bs)]
    lines += [r"\hline", r"\end{tabular}",
              f"% {latex_escape(m.name)} ({m.direction}), every pair: gap = the first system's mean - the second's, "
              "on the segments both are rated; the paired tests of the BLEU table on the mean of the segment scores; "
              f"Holm: adjusted over these {len(m.all_pairs)} pairs; better: the system the bootstrap finds better at "
              f"{ALPHA:g} after Holm."]
    return lines


def _latex_label(label: str) -> str:
    """A bucket label for LaTeX: ``<`` and ``>=`` in math mode (text mode sets them as other glyphs)."""
    for sign, math_sign in ((">=", r"$\geq$"), ("<", "$<$")):
        if label.startswith(sign):
            return math_sign + latex_escape(label[len(sign):])
    return latex_escape(label)


def metrics_text(c: ComparisonData) -> list[str]:
    """The terminal's lines for the --scores metrics and the agreement of metrics, and where the rest is."""
    lines = []
    for m in c.metrics:
        lines.append(f"{m.name} ({m.direction}; {m.source}{'; ' + m.note if m.note else ''}):")
        for s in m.systems:
            lines.append(f"  {s.name:<20} {s.mean:8.3f} [{s.interval[0]:.3f}, {s.interval[1]:.3f}]  "
                         f"{s.rated} rated, {s.unrated} left out")
        if m.all_pairs:
            lines.append(f"  every pair ({m.name} of the first - of the second, on the segments both are rated; Holm "
                         f"over these {len(m.all_pairs)} pairs):")
            lines += metric_pairs_text(m)
        lines.append(f"  {m.name}'s mean per bucket (by " + " and by ".join(t.bucketer.name for t in m.buckets)
                     + "): in --html, --json, --latex and --csv (metric_buckets.csv); the "
                     f"{len(m.examples)} segments where a system and the baseline differ most in {m.name}: in --html, "
                     "--json and --csv (metric_examples.csv)")
    for a in c.agreement:
        lines.append(f"{a.x} vs {a.y}: segment tau_b {a.pooled.tau:.3f} (no grouping: {a.pooled.items} segments "
                     f"pooled), {a.item.tau:.3f} (by item: averaged over {a.item.items} segments); by item, "
                     f"tie-calibrated acc*_eq {a.item_accuracy:.3f} at epsilon {a.item_epsilon:.4g} (a constant "
                     f"metric: {a.item_constant:.3f}); system pairwise accuracy {a.system_accuracy:.3f}, system tau_b "
                     f"{a.system_tau:.3f}")
    if c.agreement:
        lines.append("segment tau_b grouped by system (one per system): in --html, --json and --csv "
                     "(agreement.csv); what each grouping compares: bleu_lab.metrics.agreement.GROUPINGS")
        lines.append(f"system level: corpus BLEU and chrF over all {len(c):,} segments, each --scores metric's mean "
                     f"over its rated ones ({_rated_span(c)})")
    return lines


def _float(value: float, fmt: str = "{:.3f}") -> str:
    return "–" if value is None or isinstance(value, float) and math.isnan(value) else fmt.format(value)


def metric_html(c: ComparisonData, m) -> str:
    """One --scores metric: each system's mean [95% interval] with its rated and unrated counts, then every pair of
    systems with both paired tests, Holm's adjusted p and Kocmi et al.'s estimated accuracy."""
    rows = [[_esc(s.name), _float(s.mean), f"[{_float(s.interval[0])}, {_float(s.interval[1])}]",
             str(s.rated), str(s.unrated)] for s in m.systems]
    unrated = sum(s.unrated for s in m.systems)
    note = (f"<div style='{NOTE}'>{_esc(m.name)}: {_esc(m.direction)}; from {_esc(m.source)}. "
            f"{_esc(m.note + '. ') if m.note else ''}mean over each system's rated segments; interval: 95% of "
            f"{c.settings.get('n_samples')} bootstrap resamples of them. {unrated} segment scores are not rated and "
            "left out of this metric (and of every τ with it).</div>")
    table = _table(f"{m.name}: each system", ["system", f"{_esc(m.name)} (mean)", "95% interval", "rated",
                                              "not rated"], rows, note)
    holm_ar, holm_bs = holm_pairs(m.all_pairs)
    head = ["pair", "gap", "95% interval of the gap", "segments", "p(AR)", "p(BS)", "p(AR), Holm", "p(BS), Holm",
            "better (BS, Holm)", "est. accuracy"]
    pair_rows = []
    for p, a, b in zip(m.all_pairs, holm_ar, holm_bs):
        winner = _metric_winner(m, p, b)
        pair_rows.append([f"{_esc(p.system)} − {_esc(p.baseline)}", f"{p.difference:+.3f}",
                          "[{:+.3f}, {:+.3f}]".format(*p.bootstrap.difference_interval), str(p.segments),
                          f"{p.randomization.p_value:.4f}", f"{p.bootstrap.p_value:.4f}", f"{a:.4f}", f"{b:.4f}",
                          _esc(winner), _esc(describe_accuracy(m.estimated_accuracy(p.difference)))])
    pair_note = (f"<div style='{NOTE}'>gap = {_esc(m.name)} of the first − of the second, on the segments both have a "
                 f"score for ({_esc(m.direction)}); p(AR), p(BS): the paired tests of the BLEU table on the mean of "
                 f"the segment scores; Holm: adjusted over this metric's {len(m.all_pairs)} pairs; better: the system "
                 f"the bootstrap finds better at {ALPHA:g} after Holm. {_esc(KOCMI_NOTE)}</div>")
    return (table + (_table(f"{m.name}: every pair of systems", head, pair_rows, pair_note) if m.all_pairs else "")
            + metric_buckets_html(c, m) + metric_examples_html(c, m))


def _bucket_cell(cell, fmt: str, html_text: bool = False) -> str:
    """A metric's bucket cell. HTML: rated · mean [interval] (+n not rated); LaTeX: mean [interval] (rated, +n);
    "–" (LaTeX "--") when no segment of the bucket is rated."""
    if not cell.rated:
        empty = "–" if html_text else "--"
        return f"{empty} (+{cell.unrated} not rated)" if cell.unrated else empty
    interval = "[{}, {}]".format(*(fmt.format(x) for x in cell.interval))
    if not html_text:
        return f"{fmt.format(cell.mean)} {interval} ({cell.rated}{f', +{cell.unrated}' if cell.unrated else ''})"
    return (f"{cell.rated} · {fmt.format(cell.mean)} <span style='color:#444'>{interval}</span>"
            + (f" (+{cell.unrated} not rated)" if cell.unrated else ""))


METRIC_BUCKETS = {"reference length": ("reference length", "tokens of the first reference", False),
                  "length difference, merged": ("length difference", "output length − reference length (tokens)",
                                                True)}


def metric_buckets_html(c: ComparisonData, m) -> str:
    """A metric's means per bucket: the figures (as BLEU's), then the tables."""
    figures, tables = [], []
    for t in m.buckets:
        what, xlabel, wide = METRIC_BUCKETS.get(t.bucketer.name, (t.bucketer.name, t.bucketer.name, False))
        series = {n: [x.mean for x in cells] for n, cells in t.scores.items()}
        figures.append((
            _bars_figure(t.labels, series, {n: [x.interval for x in cells] for n, cells in t.scores.items()},
                         {n: [x.rated for x in cells] for n, cells in t.scores.items()}, f"{m.name} by {what}",
                         xlabel, f"{m.name} (mean)",
                         f"Bar chart: the mean {m.name} ({m.direction}) of each system's rated segments in each "
                         "bucket, error bars the 95% bootstrap interval. ", "{:.3f}", "no rated segment", wide),
            f"Each system's rated segments grouped by {what} as in the BLEU figure; bar: the mean of their {m.name} "
            f"scores ({m.direction}: {'taller' if m.higher_is_better else 'shorter'} is better), a mean of segment "
            "scores, not a corpus score; error bars: 95% bootstrap intervals; no bar: no rated segment, or a mean of 0 "
            "(the table below tells them apart)."))
        rows = [[_esc(label)] + [_bucket_cell(t.scores[n][b], "{:.3f}", html_text=True) for n in t.scores]
                for b, label in enumerate(t.labels)]
        note = (f"<div style='{NOTE}'>rated segments · mean {_esc(m.name)} of them [95% bootstrap interval of the "
                f"mean, {c.settings.get('n_samples')} resamples of the bucket's rated segments]; segments not rated "
                f"are left out and counted; –: no rated segment in the bucket. The buckets and their segments are "
                f"those of the BLEU table{' (merged into 7, as in the BLEU figure)' if wide else ''}. "
                f"{_esc(m.name)} is {_esc(m.direction)}; each row opens its rated segments, the best and the worst "
                f"by {_esc(m.name)} first.</div>")
        details = [bucket_segments_html(c, t, b, m) for b in range(len(t.labels))]
        tables.append(_table(f"{m.name} by {what} (mean of segment scores)", ["bucket", *map(_esc, t.scores)], rows,
                             note, details))
    return _figures_html(figures) + "".join(tables)


def metric_examples_html(c: ComparisonData, m) -> str:
    """For each system against the baseline, the segments where their scores in ``m`` differ most, side by side
    behind ``<details>``."""
    if not m.examples:
        return ""
    parts = []
    for name in c.names:
        found = [e for e in m.examples if e.system == name]
        if not found:
            continue
        items = "".join(side_by_side_html(
            c, e.segment, f"{_esc(e.system)} − {_esc(e.baseline)} = {e.gap:+.3f} {_esc(m.name)}: {_esc(e.better)} "
            f"better ({_esc(m.direction)})",
            {n: f"{m.name} {score:.3f} · sentence BLEU {c.sentence_bleu[n][e.segment]:.1f}"
             for n, score in ((e.baseline, e.baseline_score), (e.system, e.system_score))},
            lambda n, i=e.segment: f"<div style='{MONO}'>{_esc(c.outputs[n][i])}</div>", "compare-metric-example")
            for e in found)
        parts.append(f"<details><summary>{_esc(name)} against {_esc(c.baseline)}: the {len(found)} segment"
                     f"{'s' if len(found) != 1 else ''} where {_esc(m.name)} differs most</summary>{items}</details>")
    return (f"<div style='font-weight:bold;margin-top:8px'>Where each system and the baseline differ most in "
            f"{_esc(m.name)}</div><div style='{NOTE}'>Segments both rated, the largest |gap| first; gap = the "
            f"system's {_esc(m.name)} − the baseline's; {_esc(m.name)} is {_esc(m.direction)}, so “better” is the "
            "system with the " + ("higher" if m.higher_is_better else "lower") + " score.</div>" + "".join(parts))


def _rated_span(c: ComparisonData) -> str:
    """How many segments each --scores metric rates per system, e.g. 'MQM: 527 of 1,002 per system'."""
    parts = []
    for m in c.metrics:
        low, high = min(s.rated for s in m.systems), max(s.rated for s in m.systems)
        parts.append(f"{m.name}: {low:,}{'' if low == high else f' to {high:,}'} of {len(c):,} per system")
    return "; ".join(parts)


def agreement_html(c: ComparisonData) -> str:
    """Every pair of metrics: segment-level Kendall's τ_b pooled and per system, system-level accuracy and τ."""
    if not c.agreement:
        return ""
    head = ["metrics", "segment τ_b, no grouping (segments)", *[f"τ_b by system: {_esc(n)}" for n in c.names],
            "τ_b by item (segments averaged)", "acc*_eq by item (ε; a constant metric)", "system pairwise accuracy",
            "system τ_b"]
    rows = [[f"{_esc(a.x)} vs {_esc(a.y)}", f"{_float(a.pooled.tau)} ({a.pooled.items})",
             *[_float(a.per_system[n].tau) for n in c.names], f"{_float(a.item.tau)} ({a.item.items})",
             f"{_float(a.item_accuracy)} ({_float(a.item_epsilon, '{:.4g}')}; {_float(a.item_constant)})",
             _float(a.system_accuracy), _float(a.system_tau)]
            for a in c.agreement]
    note = (f"<div style='{NOTE}'>Each metric turned so that higher is better; a segment counts where both have a "
            "score. τ_b as scipy.stats.kendalltau computes it; – where it is undefined (every score tied) or not "
            f"computed (more than {MAX_TAU_ITEMS:,} segments). System "
            f"level: each system's corpus BLEU and chrF over all {len(c):,} segments, each --scores metric's mean "
            f"over its rated ones ({_esc(_rated_span(c))}); pairwise accuracy counts a pair of systems both order the "
            f"same way. {_esc(AGREEMENT_SOURCES)}</div>")
    return _table("Metrics and people, segment by segment and system by system", head, rows, note)


def scatter_html(c: ComparisonData) -> str:
    """Sentence BLEU against each --scores metric, one point per rated segment of every system."""
    figures = []
    for m in c.metrics:
        xs, ys = [], []
        for name in c.names:
            values = c.metric_scores[m.name].scores[name]
            keep = ~np.isnan(values)
            xs.extend(c.sentence_bleu[name][keep].tolist())
            ys.extend(values[keep].tolist())
        if not xs:
            continue
        tau = next((a.pooled.tau for a in c.agreement if {a.x, a.y} == {"BLEU", m.name}), float("nan"))
        distinct = len(set(ys))
        desc = (f"Scatter plot: {len(xs)} segments (every system's rated segments), sentence BLEU (0 to 100) across, "
                f"{m.name} ({m.direction}) up"
                + ("" if m.higher_is_better else ", its axis turned so that better is up, from the highest score at "
                   "the bottom to the lowest at the top")
                + f", from {min(ys):.2f} to {max(ys):.2f} with {distinct} distinct values"
                f"{', jittered so that equal values show as a band' if distinct < len(ys) / 4 else ''}. Kendall's τ_b "
                f"between them (no grouping): {_float(tau)}. The agreement table holds the numbers.")
        jitter = 0.15 if distinct < len(ys) / 4 else 0.0

        def draw(ax, xs=xs, ys=ys, jitter=jitter, turn=not m.higher_is_better):
            plots.segment_scatter(ax, xs, ys, jitter=jitter)
            ax.set_xlim(-2, 102)
            if turn:  # lower is better: better up, as for BLEU and as lesson 12 plots MQM
                ax.invert_yaxis()

        figures.append((plots.figure_svg(f"Sentence BLEU and {m.name}", "sentence BLEU", f"{m.name} (better ↑)", draw,
                                         desc, FIGSIZE, (0.12, 0.15, 0.96, 0.9)),
                        f"Each dot a segment of one system; {m.name} is {m.direction}"
                        + ("." if m.higher_is_better else ", so its axis is turned: better is up, as for BLEU.")))
    return _figures_html(figures)


def disagreements_html(c: ComparisonData) -> str:
    """The segments where BLEU and each --scores metric disagree most: source, references, the output, and every
    system's output of the segment side by side."""
    if not c.disagreements:
        return ""
    items = []
    for d in c.disagreements:
        src = f"<div><b>source</b>: {_short(c.sources[d.segment])}</div>" if c.sources else ""
        refs = "".join(f"<div><b>reference {k}</b>: <span style='{MONO}'>{_short(r)}</span></div>"
                       for k, r in enumerate(c.references[d.segment], 1))
        items.append(
            f"<div class='compare-disagreement' style='border-top:1px solid #d0d7de;padding:6px 0'>"
            f"<div style='font-weight:bold'>segment {d.segment + 1}, {_esc(d.system)}: {_esc(d.x)} {d.x_score:.1f} "
            f"(better than {d.x_rank:.0%} of segments), {_esc(d.y)} {d.y_score:.2f} (better than {d.y_rank:.0%})"
            f"</div>{src}{refs}<div><b>{_esc(d.system)}</b>: <span style='{MONO}'>"
            f"{_short(c.outputs[d.system][d.segment])}</span></div>{_every_output(c, d)}</div>")
    return ("<div style='font-weight:bold;margin-top:8px'>Where BLEU and the other metrics disagree most</div>"
            f"<div style='{NOTE}'>Segments ranked among every rated segment of every system by sentence BLEU and by "
            "the metric (both turned so that higher is better, ties at their mean rank); the largest gaps between the "
            "two ranks first.</div>" + "".join(items))


def _every_output(c: ComparisonData, d) -> str:
    """Every system's output of the segment behind ``<details>``, each with its sentence BLEU and metric score."""
    scores = c.metric_scores[d.y].scores
    rows = "".join(
        f"<li><b>{_esc(name)}</b> · BLEU {c.sentence_bleu[name][d.segment]:.1f} · {_esc(d.y)} "
        f"{_float(float(scores[name][d.segment]), '{:.2f}')}: <span style='{MONO}'>"
        f"{_short(c.outputs[name][d.segment])}</span></li>" for name in c.names)
    return (f"<details><summary>every system's output of segment {d.segment + 1}</summary>"
            f"<ul style='padding-left:1.2em;margin:0'>{rows}</ul></details>")


def metrics_html(c: ComparisonData) -> str:
    """Every --scores metric, the agreement table, the scatter figures and the disagreements."""
    return ("".join(metric_html(c, m) for m in c.metrics) + people_html(c) + agreement_html(c) + scatter_html(c)
            + disagreements_html(c))


# --- the people against the metrics -------------------------------------------------------------------------------

PEOPLE_NOTE = ("Systems by the people's rank, best first. Rank 1 is the best, each metric read in its own direction "
               "(lower TER and fewer MQM error points are better); tied systems share the best rank of their group. "
               "Which system of a pair a metric finds better: the sign of the gap its paired tests test (a --scores "
               "metric: its means on the segments both systems are rated on); a tie is no disagreement. A "
               "disagreement is significant on a side when that metric's paired bootstrap, Holm-adjusted over its "
               "own pairs, is below {alpha:g}; “!” marks a pair significant on either side. Clusters: as the BLEU "
               "clusters, by the people's own tests.")


def _side_dict(side) -> dict:
    return {"system": side.system, "baseline": side.baseline, "difference": _num(side.difference),
            "ar_p_value_holm": side.ar_holm, "bootstrap_p_value_holm": side.bs_holm}


def _people_dict(t) -> dict:
    return {
        "people": t.people, "direction": "higher is better" if t.higher_is_better else "lower is better",
        "alpha": t.alpha,
        "rankings": [{"metric": r.metric, "direction": r.direction, "scores": {n: _num(v) for n, v in r.scores.items()},
                      "ranks": dict(r.ranks)} for r in t.rankings],
        "clusters": {test: [list(cluster) for cluster in found] for test, found in t.clusters.items()},
        "pairs": [_side_dict(p) | {"better": t.tests.better(p) or "",
                                   "bootstrap_significant_holm": significant(p, "BS", t.alpha)}
                  for p in t.tests.pairs],
        "disagreements": [{"metric": d.metric, "system": d.people_side.system, "baseline": d.people_side.baseline,
                           "metric_better": d.metric_better, "people_better": d.people_better,
                           "metric_difference": _num(d.metric_side.difference),
                           "metric_ar_p_value_holm": d.metric_side.ar_holm,
                           "metric_bootstrap_p_value_holm": d.metric_side.bs_holm,
                           "people_difference": _num(d.people_side.difference),
                           "people_ar_p_value_holm": d.people_side.ar_holm,
                           "people_bootstrap_p_value_holm": d.people_side.bs_holm,
                           "metric_significant": d.metric_significant, "people_significant": d.people_significant,
                           "flagged": d.flagged, "significant_by": d.significant_by}
                          for d in t.disagreements],
    }


def people_dict(c: ComparisonData) -> dict:
    """Each people-against-the-metrics table (none without --scores)."""
    return {"people": [_people_dict(t) for t in c.people]}


def people_csv(c: ComparisonData) -> dict[str, list[dict]]:
    """people_ranks.csv (per people and system: the score and rank by every metric), people_clusters.csv,
    people_pairs.csv (the people's own tests) and people_disagreements.csv (none without --scores)."""
    if not c.people:
        return {}
    data = [_people_dict(t) for t in c.people]
    return {
        "people_ranks": [{"people": t["people"], "system": n,
                          **{f"{r['metric']}_{what}": r[f"{what}s"][n] for r in t["rankings"]
                             for what in ("score", "rank")}}
                         for t, table in zip(data, c.people) for n in table.order],
        "people_clusters": [{"people": t["people"], "test": test, "cluster": k, "system": n}
                            for t in data for test, found in t["clusters"].items()
                            for k, cluster in enumerate(found, 1) for n in cluster],
        "people_pairs": [{"people": t["people"], **p} for t in data for p in t["pairs"]],
        "people_disagreements": [{"people": t["people"], **d} for t in data for d in t["disagreements"]],
    }


def _rank_cell(r, name: str, fmt: str = "{:.2f}") -> str:
    return f"{r.ranks[name]} ({_float(r.scores[name], fmt)})"


def _score_format(r) -> str:
    """BLEU, chrF and TER on their 0-100 scale with 2 decimals; a --scores metric with 3."""
    return "{:.2f}" if r.metric in ("BLEU", "chrF", "TER") else "{:.3f}"


def _disagreement_line(d) -> str:
    """One pair a metric and the people order the opposite way: each side's gap (first - second, as its numbers run),
    the system it finds better and its Holm-adjusted bootstrap p."""
    return (f"{'!' if d.flagged else ' '} {d.people_side.system} - {d.people_side.baseline}: {d.metric} "
            f"{d.metric_side.difference:+.3f}, {d.metric_better} better (Holm p(BS) {d.metric_side.bs_holm:.4f}); "
            f"{d.people} {d.people_side.difference:+.3f}, {d.people_better} better (Holm p(BS) "
            f"{d.people_side.bs_holm:.4f}); significant: {d.significant_by}")


def people_text(c: ComparisonData) -> list[str]:
    """The terminal's people-against-the-metrics tables: rank (score) by every metric, the clusters and the
    disagreements."""
    lines = []
    for t in c.people:
        width = max(len(n) for n in c.names) + 2
        cells = {r.metric: [_rank_cell(r, n, _score_format(r)) for n in c.names] for r in t.rankings}
        widths = {m: max(len(m) + 2, *(len(x) for x in v)) + 2 for m, v in cells.items()}
        lines += ["", f"{t.people} (the people, {'higher' if t.higher_is_better else 'lower'} is better) against "
                  "the metrics: rank (score) by each metric",
                  f"{'system':<{width}}" + "".join(f"{m + (' ↓' if not r.higher_is_better else ''):>{widths[m]}}"
                                                  for m, r in zip(cells, t.rankings))]
        lines += [f"{n:<{width}}" + "".join(f"{cells[m][c.names.index(n)]:>{widths[m]}}" for m in cells)
                  for n in t.order]
        lines += [f"{t.people} clusters (Holm, best first): {test}: "
                  + " > ".join("{" + ", ".join(cluster) + "}" for cluster in found)
                  for test, found in t.clusters.items()]
        if t.disagreements:
            lines.append(f"pairs a metric and {t.people} order the opposite way (! = significant on either side):")
            lines += [f"  {_disagreement_line(d)}" for d in t.disagreements]
        else:
            lines.append(f"no pair of systems that a metric and {t.people} order the opposite way")
        lines.append(PEOPLE_NOTE.format(alpha=t.alpha))
    return lines


def metric_pairs_text(m) -> list[str]:
    """A --scores metric's every pair: the gap, both p, Holm's adjusted p and the better system (BS, Holm)."""
    holm_ar, holm_bs = holm_pairs(m.all_pairs)
    return [f"  {p.system} - {p.baseline}: gap {p.difference:+.3f} on {p.segments} segments, p(AR) "
            f"{p.randomization.p_value:.4f}, p(BS) {p.bootstrap.p_value:.4f}, Holm-AR {a:.4f}, Holm-BS {b:.4f}; "
            f"better (BS, Holm): {_metric_winner(m, p, b)}" for p, a, b in zip(m.all_pairs, holm_ar, holm_bs)]


def _metric_winner(m, p, bs_holm: float) -> str:
    """The system the metric's bootstrap finds better after Holm, or "–"."""
    if not (bs_holm < ALPHA and p.difference):
        return "–"
    return p.system if m.higher_is_better == (p.difference > 0) else p.baseline


def people_latex(c: ComparisonData) -> list[str]:
    """Each people-against-the-metrics table: rank (score) by every metric, then the disagreements."""
    lines = []
    for t in c.people:
        lines += ["", r"\begin{tabular}{l" + "r" * len(t.rankings) + "}", r"\hline",
                  "System & " + " & ".join(latex_escape(r.metric) + (r" ($\uparrow$)" if r.higher_is_better
                                                                     else r" ($\downarrow$)") for r in t.rankings)
                  + r" \\", r"\hline"]
        lines += [f"{latex_escape(n)} & " + " & ".join(_rank_cell(r, n, _score_format(r)) for r in t.rankings)
                  + r" \\" for n in t.order]
        lines += [r"\hline", r"\end{tabular}",
                  f"% {latex_escape(t.people)} (the people) against the metrics: rank (score). "
                  + latex_escape(PEOPLE_NOTE.format(alpha=t.alpha))]
        lines += [f"% {latex_escape(t.people)} clusters (Holm, best first), {test}: "
                  + latex_escape(" > ".join("{" + ", ".join(cluster) + "}" for cluster in found))
                  for test, found in t.clusters.items()]
        if t.disagreements:
            lines += ["", r"\begin{tabular}{llllrrrrc}", r"\hline",
                      rf"Pair & Metric & Metric: better & {latex_escape(t.people)}: better & "
                      r"$\Delta$ metric & $\tilde p_\mathrm{BS}$ metric & "
                      rf"$\Delta$ {latex_escape(t.people)} & $\tilde p_\mathrm{{BS}}$ {latex_escape(t.people)} & "
                      r"Significant \\", r"\hline"]
            lines += [f"{latex_escape(d.people_side.system)} $-$ {latex_escape(d.people_side.baseline)} & "
                      f"{latex_escape(d.metric)} & {latex_escape(d.metric_better)} & {latex_escape(d.people_better)} & "
                      f"{d.metric_side.difference:+.3f} & {d.metric_side.bs_holm:.4f} & "
                      f"{d.people_side.difference:+.3f} & {d.people_side.bs_holm:.4f} & "
                      f"{latex_escape(d.significant_by)} \\\\" for d in t.disagreements]
            lines += [r"\hline", r"\end{tabular}",
                      f"% Every pair a metric and {latex_escape(t.people)} order the opposite way; $\\Delta$: the "
                      "first system - the second; p: the paired bootstrap, Holm-adjusted over that metric's pairs."]
        else:
            lines.append(f"% No pair of systems that a metric and {latex_escape(t.people)} order the opposite way.")
    return lines


def people_html(c: ComparisonData) -> str:
    """Each people-against-the-metrics table: rank (score) by every metric and the people's clusters, then every
    pair a metric and the people order the opposite way."""
    parts = []
    for t in c.people:
        rows = [[_esc(n)] + [_rank_cell(r, n, _score_format(r)) for r in t.rankings] for n in t.order]
        clusters = "".join(f"<br>{_esc(t.people)} clusters (Holm, best first), {test}: "
                           + _esc(" > ".join("{" + ", ".join(cluster) + "}" for cluster in found))
                           for test, found in t.clusters.items())
        note = f"<div style='{NOTE}'>{_esc(PEOPLE_NOTE.format(alpha=t.alpha))}{clusters}</div>"
        head = ["system", *[f"{_esc(r.metric)} ({'higher' if r.higher_is_better else 'lower'} is better)"
                            for r in t.rankings]]
        parts.append(_table(f"{t.people} (the people) against the metrics: rank (score)", head, rows, note))
        if not t.disagreements:
            parts.append(f"<div style='{NOTE}'>No pair of systems that a metric and {_esc(t.people)} order the "
                         "opposite way.</div>")
            continue
        drows = [[f"{_esc(d.people_side.system)} − {_esc(d.people_side.baseline)}", _esc(d.metric),
                  _esc(d.metric_better), _esc(d.people_better),
                  f"{d.metric_side.difference:+.3f} ({d.metric_side.bs_holm:.4f})",
                  f"{d.people_side.difference:+.3f} ({d.people_side.bs_holm:.4f})",
                  ("! " if d.flagged else "") + _esc(d.significant_by)] for d in t.disagreements]
        dnote = (f"<div style='{NOTE}'>gap = the first system − the second, as each metric's numbers run; in "
                 "brackets the paired bootstrap's p, Holm-adjusted over that metric's pairs.</div>")
        parts.append(_table(f"Where a metric and {t.people} disagree: every pair they order the opposite way",
                            ["pair", "metric", "metric: better", f"{_esc(t.people)}: better", "metric gap (Holm p)",
                             f"{_esc(t.people)} gap (Holm p)", "significant"], drows, dnote))
    return "".join(parts)
