"""A comparison as HTML: ``report_html``, the notebook view (one fragment, inline styles), and ``to_html``, one
standalone page that loads nothing from anywhere and runs no script. The side-by-side examples mark each output's
tokens with the explain view's chips (``explain_html.token_chips_html``); each bucket row opens its segments with
``<details>``. The markup is the templates' (``compare_report.html.j2``: the frame, a bucket's segments and words,
an example side by side; ``compare_tables.html.j2``: the tables, their cells and notes, the sections): this module
passes them text, numbers as the report prints them, and ``Cell``s, never markup of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path

import numpy as np

from ...metrics.agreement import MAX_TAU_ITEMS
from ...metrics.delta_accuracy import describe_accuracy, estimated_accuracy
from ...reports.explain import explain
from ...reports.explain_html import BOX, MONO, chip_legend_html, token_chips_html
from ...reports.templates import Markup, macros
from ..metrics import holm_pairs, oriented
from ..results import BucketTable, ComparisonData
from .common import (
    AGREEMENT_SOURCES,
    ALPHA,
    CHARACTER_TOKENIZERS,
    CLUSTERS_NOTE,
    KOCMI_NOTE,
    PEOPLE_NOTE,
    TER_NOTE,
    _chrf,
    _f_text,
    _float,
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
    tables,
    ter_verdict,
    tokens_note,
)
from .figures import _bars_figure, _figures_html, figures_html, scatter_html


@cache
def _frame():
    """The macros of compare_report.html.j2 (legend, report, a bucket's segments and words, side by side, page)."""
    return macros("compare_report.html.j2", box=Markup(BOX), mono=Markup(MONO))  # our own CSS, not user text


def _fragments(fragments: list[str]) -> list[Markup]:
    """Fragments rendered by the templates (this module's functions return them as ``str``), to be written as they
    are."""
    return [Markup(f) for f in fragments]


@dataclass(frozen=True)
class Cell:
    """A table cell with more than text: ``kind`` "interval" (``text``, then ``interval`` in grey, then ``tail``: a
    bucket's score), "mono" (``text`` in monospace: an n-gram) or "nowrap" (``text`` on one line: a pair)."""

    kind: str
    text: str
    interval: str = ""
    tail: str = ""


def _table(caption: str, head: list[str], rows: list[list[str | Cell]], note: str = "",
           details: list[str] | None = None, details_class: str = "bucket-segments") -> str:
    """A captioned table, its first column the row headers; ``details[i]``, if given and not empty, is a row under
    row i spanning every column (a bucket's segments, behind ``<details>``). ``caption``, ``head`` and the cells are
    text (or ``Cell``); ``note`` and ``details`` are fragments rendered by the templates."""
    return str(tables().table(caption, head, rows, Markup(note), _fragments(details) if details else None,
                              details_class))


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
    return str(_frame().legend(Markup(chip_legend_html()), analyses, character_note(c), tokens_note(c)))


def scores_html(c: ComparisonData) -> str:
    """Each system's BLEU, chrF (and TER), length ratio, and its gap to the baseline with both paired tests; the
    signatures under it."""
    pairs = {p.system: p for p in c.pairs}
    rows = []
    for s in c.systems:
        p = pairs.get(s.name)
        cells = [s.name + (" (baseline)" if s.name == c.baseline else ""), f"{s.bleu.score:.2f}",
                 _chrf(s), *([_ter(s)] if c.ter_signature else []), f"{s.length_ratio:.3f}"]
        if p is None:
            cells += ["–", "–", "–", "[{:.2f}, {:.2f}]".format(*c.pairs[0].bootstrap.baseline_interval)
                      if c.pairs else "–"]
        else:
            cells += [f"{p.difference:+.2f}", f"{p.randomization.p_value:.4f}", f"{p.bootstrap.p_value:.4f}",
                      "[{:.2f}, {:.2f}]".format(*p.bootstrap.system_interval)]
        rows.append(cells)
    note = tables().scores_note(c.settings.get("n_trials"), c.settings.get("n_samples"), draws_note(c),
                                sacrebleu_lines(c), c.signature, c.chrf_signature or "not computed", c.ter_signature,
                                TER_NOTE)
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
    head += [f"{test} p < {ALPHA:g}" for test in ("AR", "BS")]
    if fw:
        head += [f"{test} p < {fw['threshold']:.4f} (Bonferroni)" for test in ("AR", "BS")]
        head += [f"p({test}), Holm-adjusted" for test in ("AR", "BS")]
    rows = [_pair_row(p, fw, with_chrf, with_ter) for p in c.all_pairs]
    correction = fw and {"comparisons": fw["comparisons"], "next": fw["comparisons"] - 1,
                         "threshold": f"{fw['threshold']:.4f}"}
    note = tables().pairs_note(f"{ALPHA:g}", correction, with_chrf, with_ter, KOCMI_NOTE, clusters_text(c),
                               CLUSTERS_NOTE)
    return _table("Every pair of systems: both paired tests", head, rows, note)


def _pair_row(p, fw: dict | None, with_chrf: bool, with_ter: bool) -> list[str | Cell]:
    """One pair's row of the pairs table: BLEU's tests, then chrF's and TER's (if every pair has them), then the
    verdicts at ``ALPHA`` (and Bonferroni's and Holm's with more than one pair)."""
    cells: list[str | Cell] = [
        Cell("nowrap", f"{p.system} − {p.baseline}"), f"{p.difference:+.2f}",  # nowrap: not a letter a line
        "[{:+.2f}, {:+.2f}]".format(*p.bootstrap.difference_interval), f"{p.randomization.p_value:.4f}",
        f"{p.bootstrap.p_value:.4f}", f"{p.bootstrap.sacrebleu_p_value:.4f}",
        describe_accuracy(estimated_accuracy(p.difference, "BLEU"))]
    if with_chrf:
        cells += [f"{p.chrf_bootstrap.difference:+.2f}", f"{p.chrf_randomization.p_value:.4f}",
                  f"{p.chrf_bootstrap.p_value:.4f}"]
        cells += [f"{p.chrf_randomization_holm:.4f}", f"{p.chrf_bootstrap_holm:.4f}"] if fw else []
        cells += [describe_accuracy(estimated_accuracy(p.chrf_bootstrap.difference, "chrF"))]
    if with_ter:
        cells += [f"{p.ter_bootstrap.difference:+.2f}", f"{p.ter_randomization.p_value:.4f}",
                  f"{p.ter_bootstrap.p_value:.4f}"]
        cells += [f"{p.ter_randomization_holm:.4f}", f"{p.ter_bootstrap_holm:.4f}"] if fw else []
        cells += [ter_verdict(p, fw)]
    cells += [_yes(p.randomization.significant(ALPHA)), _yes(p.bootstrap.significant(ALPHA))]
    if fw:
        cells += [_yes(test.significant(fw["threshold"])) for test in (p.randomization, p.bootstrap)]
        cells += [f"{p.randomization_holm:.4f}", f"{p.bootstrap_holm:.4f}"]
    return cells


# --- tables -----------------------------------------------------------------------------------------------------
def word_accuracy_html(c: ComparisonData) -> str:
    """Word F-measure by frequency bucket, each bucket opening its examples (``word_examples_html``)."""
    w = c.word_accuracy
    ref_words = next(iter(w.counts.values())).reference
    rows = [[label, str(ref_words[b])] + [_f_text(fmeasure_or_none(w.counts[n], b)) for n in c.names]
            for b, label in enumerate(w.labels)]
    note = tables().word_accuracy_note(w.frequency_source, character_note(c))
    details = [word_examples_html(c, b) for b in range(len(w.labels))]
    return _table("Word F-measure by frequency bucket", ["frequency", "reference words", *c.names],
                  rows, note, details, "word-examples")


def word_examples_html(c: ComparisonData, bucket: int) -> str:
    """A frequency bucket's examples behind ``<details>``: segments whose first reference holds words of the bucket,
    and which of those words each output has ("" when the bucket has no reference word)."""
    found = c.word_accuracy.examples.get(bucket, [])
    if not found:
        return ""
    items = [(ex.segment + 1, ex.words, _cut(c.references[ex.segment][0]),
              [(n, ex.found[n], tuple(x for x in ex.words if x not in ex.found[n])
                if len(ex.found[n]) < len(ex.words) else None, _cut(c.outputs[n][ex.segment])) for n in c.names])
             for ex in found]
    return str(_frame().word_examples(c.word_accuracy.labels[bucket], items))


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


def _cut(text: str) -> str:
    """An output or reference as a drill-down shows it: at most MAX_SHOWN_CHARS, then " …"."""
    return text if len(text) <= MAX_SHOWN_CHARS else text[:MAX_SHOWN_CHARS] + " …"


def _segment_item(c: ComparisonData, name: str, i: int, metric=None) -> Markup:
    """One segment of a drill-down: the output, its sentence BLEU (against every reference of the segment; after
    ``metric``'s score, given a --scores metric) and every reference, so a score credited by a later reference is not
    shown beside the first one alone."""
    refs = c.references[i]
    against = f" against all {len(refs)} references" if len(refs) > 1 else ""
    metric_name = None if metric is None else metric.name
    metric_score = None if metric is None else c.metric_scores[metric.name].scores[name][i]
    return _frame().segment_item(i + 1, metric_name, metric_score, c.sentence_bleu[name][i], against,
                                 _cut(c.outputs[name][i]), [_cut(r) for r in refs])


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
        sides = [(side, [_segment_item(c, name, i, metric) for i in segments])
                 for side, segments in (("best", best), ("worst", worst)) if segments]
        columns.append((name, count, sides))
    if not columns:
        return ""
    return str(_frame().bucket_segments(t.labels[bucket], None if metric is None else metric.name, metric is not None,
                                        columns))


def bucket_html(t: BucketTable, caption: str, c: ComparisonData | None = None) -> str:
    """A bucketing's table: per bucket and system, segments · BLEU [95% interval]; given the comparison ``c``, each
    bucket row opens its segments (``bucket_segments_html``)."""
    names = list(t.scores)
    rows = []
    for b, label in enumerate(t.labels):
        cells: list[str | Cell] = [label]
        for n in names:
            s = t.scores[n][b]
            cells.append(f"{s.count}" if not s.count or t.counts_only else
                         Cell("interval", f"{s.count} · {s.bleu:.2f}", f"[{s.interval[0]:.1f}, {s.interval[1]:.1f}]"))
        rows.append(cells)
    details = [bucket_segments_html(c, t, b) for b in range(len(t.labels))] if c is not None else None
    note = tables().bucket_note(t.counts_only)
    return _table(caption, ["bucket", *names], rows, note, details)


def salient_html(c: ComparisonData) -> str:
    """Per pair, its two salient n-gram tables side by side on one row."""
    parts = []
    for s in c.salient_ngrams:
        pair = []
        for side, items in ((s.system, s.system_ngrams), (s.baseline, s.baseline_ngrams)):
            rows = [[Cell("mono", g.text), f"{g.score:.4f}", str(g.count1), str(g.count2)] for g in items[:15]]
            pair.append(_table(f"n-grams {s.compare_type}ed more by {side} ({s.system} vs {s.baseline})",
                               ["n-gram", "score", s.system, s.baseline], rows))
        parts.append(str(tables().salient_pair(_fragments(pair))))
    return "".join(parts)


def output_chips(c: ComparisonData, name: str, segment: int, max_tokens: int = 120) -> str:
    """System ``name``'s output of ``segment`` as the explain view's chips (its sentence BLEU, step by step)."""
    expl = explain(c.references[segment], c.outputs[name][segment], smoothing="exp", tokenize=c.options.tokenize,
                   lowercase=c.options.lowercase)
    return token_chips_html(expl, max_tokens)


def example_html(c: ComparisonData, e, chips: Callable[[ComparisonData, str, int], str] = output_chips) -> str:
    """One segment side by side: source, references, and both outputs with the explain view's chips."""
    return side_by_side_html(
        c, e.segment, f"{e.system} − {e.baseline} = {e.gap:+.1f} sentence BLEU",
        {name: f"sentence BLEU {c.sentence_bleu[name][e.segment]:.1f}" for name in (e.baseline, e.system)},
        lambda name: str(tables().chips_output(Markup(chips(c, name, e.segment)))))  # the explain view's template


def side_by_side_html(c: ComparisonData, i: int, heading: str, scores: dict[str, str], output: Callable[[str], str],
                      kind: str = "compare-example") -> str:
    """Segment ``i`` side by side: ``heading`` (text), source, every reference, and for each system of ``scores``
    its score text and ``output(name)`` (a fragment rendered by a template)."""
    columns = [(name, score, Markup(output(name))) for name, score in scores.items()]
    return str(_frame().side_by_side(kind, i + 1, heading, c.sources[i] if c.sources else None,
                                     c.references[i], columns))


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
    return str(_frame().report(len(c.names), len(c), c.baseline, Markup(legend_html(c)), Markup(scores_html(c)),
                               Markup(analyses_html(c)), Markup(examples), len(c.examples) - max_examples))


def to_html(c: ComparisonData, path: str | Path | None = None, title: str = "bleu_lab: comparing systems") -> str:
    """One standalone HTML page (inline styles, no scripts, no external resources)."""
    page = str(_frame().page(title, Markup(report_html(c, max_examples=len(c.examples)))))
    if path is not None:
        Path(path).write_text(page, encoding="utf-8")
    return page


def metric_html(c: ComparisonData, m) -> str:
    """One --scores metric: each system's mean [95% interval] with its rated and unrated counts, then every pair of
    systems with both paired tests, Holm's adjusted p and Kocmi et al.'s estimated accuracy."""
    rows = [[s.name, _float(s.mean), f"[{_float(s.interval[0])}, {_float(s.interval[1])}]", str(s.rated),
             str(s.unrated)] for s in m.systems]
    unrated = sum(s.unrated for s in m.systems)
    note = tables().metric_note(m.name, m.direction, m.source, m.note, c.settings.get("n_samples"), unrated)
    table = _table(f"{m.name}: each system", ["system", f"{m.name} (mean)", "95% interval", "rated", "not rated"],
                   rows, note)
    holm_ar, holm_bs = holm_pairs(m.all_pairs)
    head = ["pair", "gap", "95% interval of the gap", "segments", "p(AR)", "p(BS)", "p(AR), Holm", "p(BS), Holm",
            "better (BS, Holm)", "est. accuracy"]
    pair_rows = [[f"{p.system} − {p.baseline}", f"{p.difference:+.3f}",
                  "[{:+.3f}, {:+.3f}]".format(*p.bootstrap.difference_interval), str(p.segments),
                  f"{p.randomization.p_value:.4f}", f"{p.bootstrap.p_value:.4f}", f"{a:.4f}", f"{b:.4f}",
                  _metric_winner(m, p, b), describe_accuracy(m.estimated_accuracy(p.difference))]
                 for p, a, b in zip(m.all_pairs, holm_ar, holm_bs)]
    pair_note = tables().metric_pairs_note(m.name, m.direction, len(m.all_pairs), f"{ALPHA:g}", KOCMI_NOTE)
    return (table + (_table(f"{m.name}: every pair of systems", head, pair_rows, pair_note) if m.all_pairs else "")
            + metric_buckets_html(c, m) + metric_examples_html(c, m))


METRIC_BUCKETS = {"reference length": ("reference length", "tokens of the first reference", False),
                  "length difference, merged": ("length difference", "output length − reference length (tokens)",
                                                True)}


def metric_buckets_html(c: ComparisonData, m) -> str:
    """A metric's means per bucket: the figures (as BLEU's), then the tables."""
    figures, bucket_tables = [], []
    for t in m.buckets:
        what, xlabel, wide = METRIC_BUCKETS.get(t.bucketer.name, (t.bucketer.name, t.bucketer.name, False))
        series = {n: [x.mean for x in cells] for n, cells in t.scores.items()}
        figures.append((
            partial(_bars_figure, t.labels, series,
                    {n: [x.interval for x in cells] for n, cells in t.scores.items()},
                    {n: [x.rated for x in cells] for n, cells in t.scores.items()}, f"{m.name} by {what}",
                    xlabel, f"{m.name} (mean)",
                    f"Bar chart: the mean {m.name} ({m.direction}) of each system's rated segments in each "
                    "bucket, error bars the 95% bootstrap interval. ", "{:.3f}", "no rated segment", wide),
            f"Each system's rated segments grouped by {what} as in the BLEU figure; bar: the mean of their {m.name} "
            f"scores ({m.direction}: {'taller' if m.higher_is_better else 'shorter'} is better), a mean of segment "
            "scores, not a corpus score; error bars: 95% bootstrap intervals; no bar: no rated segment, or a mean of 0 "
            "(the table below tells them apart)."))
        rows = [[label] + [_metric_bucket_cell(t.scores[n][b], "{:.3f}") for n in t.scores]
                for b, label in enumerate(t.labels)]
        note = tables().metric_buckets_note(m.name, m.direction, c.settings.get("n_samples"), wide)
        details = [bucket_segments_html(c, t, b, m) for b in range(len(t.labels))]
        bucket_tables.append(_table(f"{m.name} by {what} (mean of segment scores)", ["bucket", *t.scores], rows,
                                    note, details))
    return _figures_html(figures) + "".join(bucket_tables)


def _metric_bucket_cell(cell, fmt: str) -> str | Cell:
    """A metric's bucket cell: rated · mean [interval] (+n not rated), or "–" when no segment of the bucket is rated
    (LaTeX's: ``latex._bucket_cell``)."""
    if not cell.rated:
        return f"– (+{cell.unrated} not rated)" if cell.unrated else "–"
    return Cell("interval", f"{cell.rated} · {fmt.format(cell.mean)}",
                "[{}, {}]".format(*(fmt.format(x) for x in cell.interval)),
                f" (+{cell.unrated} not rated)" if cell.unrated else "")


def metric_examples_html(c: ComparisonData, m) -> str:
    """For each system against the baseline, the segments where their scores in ``m`` differ most, side by side
    behind ``<details>``."""
    if not m.examples:
        return ""
    groups = []
    for name in c.names:
        found = [e for e in m.examples if e.system == name]
        if found:
            groups.append((name, len(found), _fragments([_metric_example(c, m, e) for e in found])))
    return str(tables().metric_examples(m.name, m.direction, m.higher_is_better, c.baseline, groups))


def _metric_example(c: ComparisonData, m, e) -> str:
    """One segment where a system and the baseline differ most in ``m``, side by side."""
    return side_by_side_html(
        c, e.segment, f"{e.system} − {e.baseline} = {e.gap:+.3f} {m.name}: {e.better} better ({m.direction})",
        {n: f"{m.name} {score:.3f} · sentence BLEU {c.sentence_bleu[n][e.segment]:.1f}"
         for n, score in ((e.baseline, e.baseline_score), (e.system, e.system_score))},
        lambda n: str(tables().mono_output(c.outputs[n][e.segment])), "compare-metric-example")


def agreement_html(c: ComparisonData) -> str:
    """Every pair of metrics: segment-level Kendall's τ_b pooled and per system, system-level accuracy and τ."""
    if not c.agreement:
        return ""
    head = ["metrics", "segment τ_b, no grouping (segments)", *[f"τ_b by system: {n}" for n in c.names],
            "τ_b by item (segments averaged)", "acc*_eq by item (ε; a constant metric)", "system pairwise accuracy",
            "system τ_b"]
    rows = [[f"{a.x} vs {a.y}", f"{_float(a.pooled.tau)} ({a.pooled.items})",
             *[_float(a.per_system[n].tau) for n in c.names], f"{_float(a.item.tau)} ({a.item.items})",
             f"{_float(a.item_accuracy)} ({_float(a.item_epsilon, '{:.4g}')}; {_float(a.item_constant)})",
             _float(a.system_accuracy), _float(a.system_tau)]
            for a in c.agreement]
    note = tables().agreement_note(f"{MAX_TAU_ITEMS:,}", f"{len(c):,}", _rated_span(c), AGREEMENT_SOURCES)
    return _table("Metrics and people, segment by segment and system by system", head, rows, note)


@dataclass(frozen=True)
class Disagreement:
    """A segment where BLEU and a --scores metric disagree, as the report shows it: the ``heading``, the
    ``source`` (or None), the ``references`` and ``system``'s ``output`` (each cut to MAX_SHOWN_CHARS), and
    ``every`` system's output with its scores (name, "BLEU … · metric …", output)."""

    segment: int
    heading: str
    source: str | None
    references: list[str]
    system: str
    output: str
    every: list[tuple[str, str, str]]


def disagreements_html(c: ComparisonData) -> str:
    """The segments where BLEU and each --scores metric disagree most: source, references, the output, and every
    system's output of the segment side by side."""
    if not c.disagreements:
        return ""
    items = []
    for d in c.disagreements:
        i, scores = d.segment, c.metric_scores[d.y].scores
        heading = (f"segment {i + 1}, {d.system}: {d.x} {d.x_score:.1f} (better than {d.x_rank:.0%} of segments), "
                   f"{d.y} {d.y_score:.2f} (better than {d.y_rank:.0%})")
        every = [(name, f"BLEU {c.sentence_bleu[name][i]:.1f} · {d.y} {_float(float(scores[name][i]), '{:.2f}')}",
                  _cut(c.outputs[name][i])) for name in c.names]
        items.append(Disagreement(i + 1, heading, _cut(c.sources[i]) if c.sources else None,
                                  [_cut(r) for r in c.references[i]], d.system, _cut(c.outputs[d.system][i]), every))
    return str(tables().disagreements(items))


def metrics_html(c: ComparisonData) -> str:
    """Every --scores metric, the agreement table, the scatter figures and the disagreements."""
    return ("".join(metric_html(c, m) for m in c.metrics) + people_html(c) + agreement_html(c) + scatter_html(c)
            + disagreements_html(c))


def people_html(c: ComparisonData) -> str:
    """Each people-against-the-metrics table: rank (score) by every metric and the people's clusters, then every
    pair a metric and the people order the opposite way."""
    parts = []
    for t in c.people:
        rows = [[n] + [_rank_cell(r, n, _score_format(r)) for r in t.rankings] for n in t.order]
        clusters = [f"{t.people} clusters (Holm, best first), {test}: "
                    + " > ".join("{" + ", ".join(cluster) + "}" for cluster in found)
                    for test, found in t.clusters.items()]
        note = tables().people_note(PEOPLE_NOTE.format(alpha=t.alpha), clusters)
        head = ["system", *[f"{r.metric} ({'higher' if r.higher_is_better else 'lower'} is better)"
                            for r in t.rankings]]
        parts.append(_table(f"{t.people} (the people) against the metrics: rank (score)", head, rows, note))
        if not t.disagreements:
            parts.append(str(tables().no_disagreement(t.people)))
            continue
        drows = [[f"{d.people_side.system} − {d.people_side.baseline}", d.metric, d.metric_better, d.people_better,
                  f"{d.metric_side.difference:+.3f} ({d.metric_side.bs_holm:.4f})",
                  f"{d.people_side.difference:+.3f} ({d.people_side.bs_holm:.4f})",
                  ("! " if d.flagged else "") + d.significant_by] for d in t.disagreements]
        dnote = tables().people_gaps_note()
        parts.append(_table(f"Where a metric and {t.people} disagree: every pair they order the opposite way",
                            ["pair", "metric", "metric: better", f"{t.people}: better", "metric gap (Holm p)",
                             f"{t.people} gap (Holm p)", "significant"], drows, dnote))
    return "".join(parts)
