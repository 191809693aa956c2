"""A comparison as plain text: ``to_text``, what ``bleu-lab compare`` prints.
"""

from __future__ import annotations

from ..metrics import holm_pairs
from ..results import ComparisonData
from .common import (
    ALPHA,
    PEOPLE_NOTE,
    TER_NOTE,
    _chrf,
    _f_text,
    _metric_winner,
    _rank_cell,
    _rated_span,
    _score_format,
    _ter,
    _yes,
    clusters_text,
    draws_note,
    family_wise,
    fmeasure_or_none,
    sacrebleu_lines,
    ter_lines,
    tokens_note,
)


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
