"""A comparison as HTML: ``report_html``, the notebook view (one fragment, inline styles), and ``to_html``, one
standalone page that loads nothing from anywhere and runs no script. The side-by-side examples mark each output's
tokens with the explain view's chips (``explain_html.token_chips_html``); each bucket row opens its segments with
``<details>``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, partial
from pathlib import Path

import numpy as np

from ...metrics.agreement import MAX_TAU_ITEMS
from ...metrics.delta_accuracy import describe_accuracy, estimated_accuracy
from ...reports.explain import explain
from ...reports.explain_html import BOX, CELL, MONO, TABLE, chip_legend_html, token_chips_html
from ...reports.templates import Markup, macros
from ..metrics import holm_pairs, oriented
from ..results import BucketTable, ComparisonData
from .common import (
    AGREEMENT_SOURCES,
    ALPHA,
    CHARACTER_TOKENIZERS,
    CLUSTERS_NOTE,
    KOCMI_NOTE,
    NOTE,
    PEOPLE_NOTE,
    TER_NOTE,
    _bucket_cell,
    _chrf,
    _esc,
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
    ter_verdict,
    tokens_note,
)
from .figures import _bars_figure, _figures_html, figures_html, scatter_html

# --- HTML ---------------------------------------------------------------------------------------------------------
TH = f"{CELL};background:#f6f8fa;text-align:left"


NUM = f"{CELL};text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap"


@cache
def _frame():
    """The macros of compare_report.html.j2 (table, legend, report, page)."""
    return macros("compare_report.html.j2", th=Markup(TH), num=Markup(NUM), cell=Markup(CELL),
                  table_style=Markup(TABLE), box=Markup(BOX), mono=Markup(MONO))  # our own CSS, not user text


def _markup(fragments: list[str]) -> list[Markup]:
    """Fragments the reporters rendered (escaped where they hold text), to be written as they are."""
    return [Markup(f) for f in fragments]


def _table(caption: str, head: list[str], rows: list[list[str]], note: str = "",
           details: list[str] | None = None, details_class: str = "bucket-segments") -> str:
    """A captioned table, its first column the row headers; ``details[i]``, if given and not empty, is a row under
    row i spanning every column (a bucket's segments, behind ``<details>``). ``head``, ``rows``, ``note`` and
    ``details`` are markup; the caption is text."""
    return str(_frame().table(caption, _markup(head), [_markup(r) for r in rows], Markup(note),
                              _markup(details) if details else None, details_class))


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
    items = [(ex.segment + 1, ex.words, _cut(c.references[ex.segment][0]),
              [(n, ex.found[n], tuple(x for x in ex.words if x not in ex.found[n])
                if len(ex.found[n]) < len(ex.words) else None, _cut(c.outputs[n][ex.segment])) for n in c.names])
             for ex in found]
    return str(_frame().word_examples(c.word_accuracy.labels[bucket], items))


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


def _cut(text: str) -> str:
    """An output or reference as a drill-down shows it: at most MAX_SHOWN_CHARS, then " …"."""
    return text if len(text) <= MAX_SHOWN_CHARS else text[:MAX_SHOWN_CHARS] + " …"


def _short(text: str) -> str:
    return _esc(_cut(text))


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
    columns = [(name, score, Markup(output(name))) for name, score in scores.items()]
    return str(_frame().side_by_side(kind, i + 1, Markup(heading), c.sources[i] if c.sources else None,
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
