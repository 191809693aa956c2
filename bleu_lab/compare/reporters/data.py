"""A comparison as plain data: ``to_dict`` (and its metrics' and people's parts), and ``to_json`` for a file.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..metrics import holm_pairs
from ..people import significant
from ..results import BucketTable, ComparisonData
from .common import _num, _pair, family_wise, fmeasure_or_none, tokens_note


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
