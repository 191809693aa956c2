"""A comparison as LaTeX: ``to_latex``'s booktabs tables, every text escaped (``latex_escape``).
"""

from __future__ import annotations

from pathlib import Path

from ..metrics import holm_pairs
from ..results import ComparisonData
from .common import (
    ALPHA,
    PEOPLE_NOTE,
    TER_NOTE,
    _chrf,
    _metric_winner,
    _rank_cell,
    _score_format,
    _ter,
    _yes,
    clusters_text,
    draws_note,
    family_wise,
    ter_lines,
)

LATEX_SPECIALS = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                  "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}


def latex_escape(text: str) -> str:
    return "".join(LATEX_SPECIALS.get(ch, ch) for ch in text)


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


def _bucket_cell(cell, fmt: str) -> str:
    """A metric's bucket cell for LaTeX: mean [interval] (rated, +n not rated), or "--" when no segment of the
    bucket is rated (the HTML report's: ``html._metric_bucket_cell``)."""
    if not cell.rated:
        return f"-- (+{cell.unrated} not rated)" if cell.unrated else "--"
    interval = "[{}, {}]".format(*(fmt.format(x) for x in cell.interval))
    return f"{fmt.format(cell.mean)} {interval} ({cell.rated}{f', +{cell.unrated}' if cell.unrated else ''})"
