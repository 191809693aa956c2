"""Reporters: a ``Comparison`` as plain data, JSON, CSV, LaTeX, text and HTML. Nothing here computes a score.

The HTML is one fragment with inline styles only (the notebook view) or, from ``to_html``, one standalone page
that loads nothing from anywhere. The side-by-side examples mark each output's tokens with the explain view's chips
(``explain_html.token_chips_html``): the longest n-gram through each token that the references credit.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..explain import explain
from ..explain_html import BOX, CELL, LEGEND_TEXT, MONO, TABLE, token_chips_html
from ..spreadsheet import write_csv

if TYPE_CHECKING:
    from .comparison import BucketTable, Comparison


def _num(value: float) -> float | None:
    """A float for JSON: NaN (an empty bucket) becomes null."""
    return None if isinstance(value, float) and math.isnan(value) else float(value)


# --- plain data --------------------------------------------------------------------------------------------------


def to_dict(c: Comparison) -> dict:
    """Every table of the report as lists and dicts of plain values (JSON-ready)."""
    return {
        "signature": c.signature,
        "chrf_signature": c.chrf_signature,
        "baseline": c.baseline,
        "segments": len(c),
        "settings": dict(c.settings),
        "systems": [
            {"name": s.name, "bleu": s.bleu.score, "chrf": s.chrf.score if s.chrf else None,
             "length_ratio": s.length_ratio, "hyp_len": s.bleu.sys_len, "ref_len": s.bleu.ref_len,
             "precisions": list(s.bleu.precisions),
             "bp": s.bleu.bp}
            for s in c.systems
        ],
        "pairs": [
            {"system": p.system, "baseline": p.baseline, "difference": p.difference,
             "ar_p_value": p.randomization.p_value, "bootstrap_p_value": p.bootstrap.p_value,
             "bootstrap_p_value_method": p.bootstrap.method, "win_rate": p.bootstrap.win_rate,
             "system_interval": list(p.bootstrap.system_interval),
             "baseline_interval": list(p.bootstrap.baseline_interval),
             "difference_interval": list(p.bootstrap.difference_interval),
             "ar_signature": p.randomization.signature, "bootstrap_signature": p.bootstrap.signature}
            for p in c.pairs
        ],
        "word_accuracy": [
            {"bucket": label,
             "fmeasure": {n: w.fmeasure(b) for n, w in c.word_accuracy.counts.items()},
             "precision": {n: w.precision(b) for n, w in c.word_accuracy.counts.items()},
             "recall": {n: w.recall(b) for n, w in c.word_accuracy.counts.items()},
             "matches": {n: w.matches[b] for n, w in c.word_accuracy.counts.items()},
             "output_words": {n: w.output[b] for n, w in c.word_accuracy.counts.items()},
             "reference_words": next(iter(c.word_accuracy.counts.values())).reference[b]}
            for b, label in enumerate(c.word_accuracy.labels)
        ],
        "word_accuracy_frequencies": c.word_accuracy.frequency_source,
        "length_buckets": _bucket_rows(c.length_buckets),
        "length_difference_buckets": _bucket_rows(c.length_difference_buckets),
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
    }


def _bucket_rows(t: BucketTable) -> list[dict]:
    return [
        {"bucket": label,
         "count": {n: s[b].count for n, s in t.scores.items()},
         "bleu": {n: _num(s[b].bleu) for n, s in t.scores.items()},
         "interval": {n: [_num(x) for x in s[b].interval] for n, s in t.scores.items()}}
        for b, label in enumerate(t.labels)
    ]


def _ngram(g) -> dict:
    return {"ngram": g.text, "score": g.score, "count_system": g.count1, "count_baseline": g.count2}


def to_json(c: Comparison, path: str | Path | None = None) -> str:
    text = json.dumps(to_dict(c), ensure_ascii=False, indent=1)
    if path is not None:
        Path(path).write_text(text + "\n", encoding="utf-8")
    return text


# --- CSV and LaTeX -----------------------------------------------------------------------------------------------


def to_csv(c: Comparison, directory: str | Path) -> list[Path]:
    """scores.csv, pairs.csv, word_accuracy.csv, length_buckets.csv, length_difference_buckets.csv,
    sentence_bleu_buckets.csv, salient_ngrams.csv, examples.csv."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    data = to_dict(c)
    tables = {
        "scores": [{k: s[k] for k in ("name", "bleu", "chrf", "length_ratio", "hyp_len", "ref_len")}
                   for s in data["systems"]],
        "pairs": [{k: (v if not isinstance(v, list) else " ".join(f"{x:.4f}" for x in v)) for k, v in p.items()}
                  for p in data["pairs"]],
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
             "reference": e["references"][0]}
            for e in data["examples"]
        ],
    }
    for key in ("length_buckets", "length_difference_buckets", "sentence_bleu_buckets"):
        tables[key] = [
            {"bucket": r["bucket"], "system": n, "count": r["count"][n], "bleu": r["bleu"][n],
             "interval_low": r["interval"][n][0], "interval_high": r["interval"][n][1]}
            for r in data[key] for n in c.names
        ]
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


def to_latex(c: Comparison, path: str | Path | None = None) -> str:
    """The scores table: BLEU, chrF, length ratio, and against the baseline the gap, both p-values and the
    system's 95% bootstrap interval. The signatures go in a footnote line."""
    pairs = {p.system: p for p in c.pairs}
    lines = [
        r"\begin{tabular}{lrrrrrrl}",
        r"\hline",
        r"System & BLEU & chrF & Len. ratio & $\Delta$BLEU & $p_\mathrm{AR}$ & $p_\mathrm{BS}$ & 95\% interval \\",
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
        lines.append(f"{latex_escape(s.name)} & {s.bleu.score:.2f} & {_chrf(s)} & {s.length_ratio:.3f} & "
                     f"{tail} \\\\")
    lines += [r"\hline", r"\end{tabular}",
              f"% BLEU: {latex_escape(c.signature)}", f"% chrF2: {latex_escape(c.chrf_signature or 'not computed')}"]
    text = "\n".join(lines) + "\n"
    if path is not None:
        Path(path).write_text(text, encoding="utf-8")
    return text


# --- text ---------------------------------------------------------------------------------------------------------


def to_text(c: Comparison) -> str:
    """A terminal summary: the scores, the tests and word accuracy."""
    width = max(len(n) for n in c.names) + 2
    out = [f"{len(c)} segments, baseline {c.baseline}", f"BLEU signature: {c.signature}",
           f"{'system':<{width}}  BLEU    chrF   ratio   gap     p(AR)   p(BS)   95% interval"]
    pairs = {p.system: p for p in c.pairs}
    for s in c.systems:
        p = pairs.get(s.name)
        tail = "(baseline)" if p is None else (
            f"{p.difference:+6.2f}  {p.randomization.p_value:.4f}  {p.bootstrap.p_value:.4f}  "
            "[{:.2f}, {:.2f}]".format(*p.bootstrap.system_interval))
        out.append(f"{s.name:<{width}}  {s.bleu.score:6.2f}  {_chrf(s):>6}  {s.length_ratio:.3f}  {tail}")
    out.append("\nword F-measure by reference frequency:")
    out.append(f"{'bucket':<12}" + "".join(f"{n:>{width + 2}}" for n in c.names))
    for b, label in enumerate(c.word_accuracy.labels):
        out.append(f"{label:<12}" + "".join(f"{c.word_accuracy.counts[n].fmeasure(b):>{width + 2}.4f}"
                                          for n in c.names))
    return "\n".join(out)


# --- HTML ---------------------------------------------------------------------------------------------------------

TH = f"{CELL};background:#f6f8fa;text-align:left"
NUM = f"{CELL};text-align:right;font-variant-numeric:tabular-nums"


def _table(caption: str, head: list[str], rows: list[list[str]], note: str = "") -> str:
    header = "".join(f"<th scope='col' style='{TH}'>{h}</th>" for h in head)
    body = "".join(
        "<tr>" + f"<th scope='row' style='{TH}'>{r[0]}</th>" + "".join(f"<td style='{NUM}'>{x}</td>" for x in r[1:])
        + "</tr>" for r in rows
    )
    return (
        f"<div style='overflow-x:auto;margin:6px 0' role='region' tabindex='0' aria-label='{html.escape(caption)}'>"
        f"<table style='{TABLE}'><caption style='text-align:left;font-weight:bold;padding:2px 0'>"
        f"{html.escape(caption)}</caption><thead><tr>{header}</tr></thead><tbody>{body}</tbody></table>"
        f"{note}</div>"
    )


def _esc(text: str) -> str:
    return html.escape(text)


def scores_html(c: Comparison) -> str:
    pairs = {p.system: p for p in c.pairs}
    rows = []
    for s in c.systems:
        p = pairs.get(s.name)
        cells = [_esc(s.name) + (" (baseline)" if s.name == c.baseline else ""), f"{s.bleu.score:.2f}",
                 _chrf(s), f"{s.length_ratio:.3f}"]
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
        "resamples), two-sided, gaps shifted to the null; interval: 95% of the resampled BLEU scores."
        f"<br><code style='{MONO}'>BLEU {_esc(c.signature)}</code><br>"
        f"<code style='{MONO}'>chrF2 {_esc(c.chrf_signature or 'not computed')}</code></div>"
    )
    return _table("Scores", ["system", "BLEU", "chrF", "length ratio", "gap", "p(AR)", "p(BS)", "95% interval"],
                  rows, note)


def word_accuracy_html(c: Comparison) -> str:
    w = c.word_accuracy
    ref_words = next(iter(w.counts.values())).reference
    rows = [[_esc(label), str(ref_words[b])] + [f"{w.counts[n].fmeasure(b):.4f}" for n in c.names]
            for b, label in enumerate(w.labels)]
    note = (f"<div style='font-size:0.85em;color:#444'>word F-measure against the first reference; a word's bucket "
            f"is its frequency in the {_esc(w.frequency_source)}.</div>")
    return _table("Word F-measure by frequency bucket", ["frequency", "reference words", *map(_esc, c.names)],
                  rows, note)


def bucket_html(t: BucketTable, caption: str) -> str:
    names = list(t.scores)
    rows = []
    for b, label in enumerate(t.labels):
        cells = [_esc(label)]
        for n in names:
            s = t.scores[n][b]
            cells.append(f"{s.count}" if not s.count else
                         f"{s.count} · {s.bleu:.2f} <span style='color:#444'>[{s.interval[0]:.1f}, "
                         f"{s.interval[1]:.1f}]</span>")
        rows.append(cells)
    note = "<div style='font-size:0.85em;color:#444'>segments · BLEU [95% bootstrap interval]</div>"
    return _table(caption, ["bucket", *map(_esc, names)], rows, note)


def salient_html(c: Comparison) -> str:
    parts = []
    for s in c.salient_ngrams:
        for side, items in ((s.system, s.system_ngrams), (s.baseline, s.baseline_ngrams)):
            rows = [[f"<span style='{MONO}'>{_esc(g.text)}</span>", f"{g.score:.4f}", str(g.count1), str(g.count2)]
                    for g in items[:15]]
            parts.append(_table(f"n-grams {s.compare_type}ed more by {side} ({s.system} vs {s.baseline})",
                                ["n-gram", "score", _esc(s.system), _esc(s.baseline)], rows))
    return "<div style='display:flex;flex-wrap:wrap;gap:12px'>" + "".join(parts) + "</div>"


def output_chips(c: Comparison, name: str, segment: int, max_tokens: int = 120) -> str:
    """System ``name``'s output of ``segment`` as the explain view's chips (its sentence BLEU, step by step)."""
    expl = explain(c.references[segment], c.outputs[name][segment], smoothing="exp", tokenize=c.options.tokenize,
                   lowercase=c.options.lowercase)
    return token_chips_html(expl, max_tokens)


def example_html(c: Comparison, e, chips: Callable[[Comparison, str, int], str] = output_chips) -> str:
    """One segment side by side: source, references, and both outputs with the explain view's chips."""
    i = e.segment
    cols = []
    for name in (e.baseline, e.system):
        cols.append(
            f"<div style='flex:1 1 20em;min-width:0'><div><b>{_esc(name)}</b> sentence BLEU "
            f"{c.sentence_bleu[name][i]:.1f}</div><div class='bleu-tokens' style='line-height:2;{MONO}'>"
            f"{chips(c, name, i)}</div></div>"
        )
    src = f"<div><b>source</b>: {_esc(c.sources[i])}</div>" if c.sources else ""
    refs = "".join(f"<div><b>reference {k}</b>: {_esc(r)}</div>" for k, r in enumerate(c.references[i], 1))
    return (
        f"<div class='compare-example' style='border-top:1px solid #d0d7de;padding:6px 0'>"
        f"<div style='font-weight:bold'>segment {i + 1}: {_esc(e.system)} − {_esc(e.baseline)} = {e.gap:+.1f} "
        f"sentence BLEU</div>{src}{refs}<div style='display:flex;flex-wrap:wrap;gap:12px'>{''.join(cols)}</div></div>"
    )


def analyses_html(c: Comparison) -> str:
    """The tables between the scores and the examples: word accuracy, the three bucketings, the salient n-grams."""
    return (
        word_accuracy_html(c)
        + bucket_html(c.length_buckets, "BLEU by reference length (tokens of the first reference)")
        + bucket_html(c.length_difference_buckets, "BLEU by length difference (output − first reference, tokens)")
        + bucket_html(c.sentence_bleu_buckets, "BLEU by sentence-BLEU band")
        + salient_html(c)
    )


def report_html(c: Comparison, max_examples: int = 10) -> str:
    """The notebook view: every table and the first examples, one fragment with inline styles."""
    examples = "".join(example_html(c, e) for e in c.examples[:max_examples])
    more = len(c.examples) - max_examples
    return (
        f"<div class='bleu-compare' style=\"{BOX}\">"
        f"<div><b>Comparing {len(c.names)} systems</b> on {len(c)} segments (baseline {_esc(c.baseline)})</div>"
        + scores_html(c) + analyses_html(c)
        + "<div style='font-weight:bold;margin-top:8px'>Where the systems differ most (sentence BLEU)</div>"
        + examples
        + (f"<div><i>… {more} more examples in the full report</i></div>" if more > 0 else "")
        + f"<div style='margin-top:6px;font-size:0.85em;color:#444'>{_esc(LEGEND_TEXT)}</div></div>"
    )


def to_html(c: Comparison, path: str | Path | None = None, title: str = "bleu_lab: comparing systems") -> str:
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
