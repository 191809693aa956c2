"""A comparison as CSV files: ``to_csv`` writes one file per table of ``to_dict`` (through
``bleu_lab.reports.spreadsheet.write_csv``, which neutralises spreadsheet formulas).
"""

from __future__ import annotations

from pathlib import Path

from ...reports.spreadsheet import write_csv
from ..results import ComparisonData
from .data import _people_dict, metrics_dict, to_dict


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
