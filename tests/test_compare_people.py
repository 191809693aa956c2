"""The people against the metrics (bleu_lab.compare.people): ranks with ties in each metric's direction, the people's
clusters, and the pairs a metric and the people order the opposite way, with and without significance, worked by
hand; every export of compare_systems(..., scores=...) carries the table; on WMT21 en-de the MQM ranks are the
published table's."""

import csv
import json
import os
from pathlib import Path

import numpy as np
import pytest

from bleu_lab.compare.people import MetricTests, PairSide, people_table, ranks
from bleu_lab.data import corpus_dir
from bleu_lab.metrics.published_scores import MQM_SEGMENTS_FILE, RATED_SYSTEMS, load_system_scores
from bleu_lab.metrics.segment_scores import segment_scores

ROOT = Path(__file__).resolve().parent.parent
NEWS = ROOT / "data" / "news"


def test_ties_share_the_best_rank_of_their_group_in_each_direction():
    assert ranks({"x": 3.0, "y": 3.0, "z": 1.0, "w": 3.0}, True) == {"x": 1, "y": 1, "w": 1, "z": 4}
    assert ranks({"x": 3.0, "y": 3.0, "z": 1.0, "w": 3.0}, False) == {"z": 1, "x": 2, "y": 2, "w": 2}
    assert ranks({"a": 0.5, "b": 0.7, "c": 0.6}, False) == {"a": 1, "c": 2, "b": 3}


# Three systems, pairs in compare_systems' order (b - a, c - a, c - b); Holm-adjusted p given: (difference, AR, BS).
MQM = MetricTests("MQM", False, {"a": 1.0, "b": 2.0, "c": 2.0}, (
    PairSide("b", "a", 1.0, 0.01, 0.01),    # a has fewer errors: a better, significant
    PairSide("c", "a", 1.0, 0.2, 0.3),      # a better, not significant
    PairSide("c", "b", 0.0, 1.0, 1.0)))     # a tie
BLEU = MetricTests("BLEU", True, {"a": 20.0, "b": 25.0, "c": 20.0}, (
    PairSide("b", "a", 5.0, 0.001, 0.002),  # b better, significant: against MQM, significant on both sides
    PairSide("c", "a", 0.0, 1.0, 1.0),      # a tie: no disagreement
    PairSide("c", "b", -5.0, 0.3, 0.4)))    # b better; MQM ties them: no disagreement
TER = MetricTests("TER", False, {"a": 60.0, "b": 61.0, "c": 59.0}, (
    PairSide("b", "a", 1.0, 0.5, 0.5),      # a better (lower TER), as MQM
    PairSide("c", "a", -1.0, 0.01, 0.4),    # c better, MQM a: a disagreement significant on neither side (AR's p is
    PairSide("c", "b", -2.0, 0.5, 0.5)))    # not the one read)


def test_a_hand_worked_table():
    t = people_table(MQM, [BLEU, MQM, TER], 0.05)
    assert [r.metric for r in t.rankings] == ["MQM", "BLEU", "TER"]
    assert t.ranking("MQM").ranks == {"a": 1, "b": 2, "c": 2}
    assert t.ranking("BLEU").ranks == {"a": 2, "b": 1, "c": 2}
    assert t.ranking("TER").ranks == {"a": 2, "b": 3, "c": 1}
    assert t.order == ["a", "b", "c"]
    # a differs from b (BS 0.01, AR 0.01) but not from c (0.3, 0.2): {a, c} > {b}; c before b, tied at 2.0
    assert t.clusters == {"AR": [["a", "c"], ["b"]], "BS": [["a", "c"], ["b"]]}
    found = {(d.metric, d.people_side.system, d.people_side.baseline): d for d in t.disagreements}
    assert set(found) == {("BLEU", "b", "a"), ("TER", "c", "a")}
    both = found["BLEU", "b", "a"]
    assert (both.metric_better, both.people_better, both.flagged, both.significant_by) == ("b", "a", True, "both")
    assert both.metric_side.bs_holm == 0.002 and both.people_side.bs_holm == 0.01
    neither = found["TER", "c", "a"]
    assert (neither.metric_better, neither.people_better, neither.flagged, neither.significant_by) == \
        ("c", "a", False, "neither")


def test_one_side_significant_is_flagged_with_its_name():
    quiet_mqm = MetricTests("MQM", False, MQM.scores, tuple(PairSide(p.system, p.baseline, p.difference, 0.5, 0.5)
                                                            for p in MQM.pairs))
    d = next(d for d in people_table(quiet_mqm, [BLEU], 0.05).disagreements)
    assert (d.flagged, d.significant_by, d.metric_significant, d.people_significant) == (True, "BLEU", True, False)
    loud_bleu_only_mqm = people_table(MQM, [MetricTests("BLEU", True, BLEU.scores, tuple(
        PairSide(p.system, p.baseline, p.difference, 0.9, 0.9) for p in BLEU.pairs))], 0.05).disagreements[0]
    assert (loud_bleu_only_mqm.flagged, loud_bleu_only_mqm.significant_by) == (True, "MQM")


def test_two_systems_have_no_clusters():
    two = MetricTests("H", True, {"a": 1.0, "b": 2.0}, (PairSide("b", "a", 1.0, 0.01, 0.01),))
    bleu = MetricTests("BLEU", True, {"a": 2.0, "b": 1.0}, (PairSide("b", "a", -1.0, 0.5, 0.5),))
    t = people_table(two, [bleu], 0.05)
    assert t.clusters == {} and t.order == ["b", "a"] and t.disagreements[0].significant_by == "H"


# --- in a comparison and every export --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def news():
    """Three news systems and made-up error counts that put literal first: BLEU ranks it last by far."""
    from bleu_lab.compare import compare_systems

    names = ("fluent", "literal", "degraded")
    systems = {n: (NEWS / f"sys.{n}.de").read_text(encoding="utf-8").splitlines() for n in names}
    ref = (NEWS / "ref.A.de").read_text(encoding="utf-8").splitlines()
    rng = np.random.default_rng(3)
    low = {"literal": 0, "fluent": 3, "degraded": 3}
    values = {n: [None if i % 4 == 0 else float(rng.integers(low[n], low[n] + 3)) for i in range(len(ref))]
              for n in names}
    mqm = segment_scores("MQM", values, higher_is_better=False)
    comet = segment_scores("COMET", {n: [0.5 + 0.01 * (i % 7) for i in range(len(ref))] for n in names},
                           higher_is_better=True)
    return compare_systems(systems, ref, scores={"MQM": mqm, "COMET": comet}, people=["MQM"], n_samples=300,
                           n_trials=400, seed=5, ter=True), values


def test_the_comparison_ranks_every_metric_and_flags_the_contradiction(news):
    c, values = news
    assert [t.people for t in c.people] == ["MQM"]  # --people MQM: COMET is a metric, not the people
    t = c.people[0]
    assert [r.metric for r in t.rankings] == ["MQM", "BLEU", "chrF", "TER", "COMET"]
    means = {n: np.mean([v for v in values[n] if v is not None]) for n in values}
    assert t.ranking("MQM").scores == pytest.approx(means)
    assert t.ranking("MQM").ranks["literal"] == 1
    bleu = {s.name: s.bleu.score for s in c.systems}
    assert t.ranking("BLEU").ranks == {n: 1 + sum(b > bleu[n] for b in bleu.values()) for n in bleu}
    assert t.ranking("TER").ranks["literal"] == 3  # the most edits
    d = next(d for d in t.disagreements if d.metric == "BLEU" and "literal" in (d.metric_better, d.people_better)
             and "fluent" in (d.metric_better, d.people_better))
    assert (d.metric_better, d.people_better, d.significant_by) == ("fluent", "literal", "both")
    mqm = next(m for m in c.metrics if m.name == "MQM")
    test = next(p for p in mqm.all_pairs if {p.system, p.baseline} == {"fluent", "literal"})
    assert d.people_side.difference == test.difference
    assert t.clusters["BS"][0] == ["literal"]
    # COMET ties every system (equal means): no disagreement with it
    assert not [d for d in t.disagreements if d.metric == "COMET"] and set(t.ranking("COMET").ranks.values()) == {1}


def test_every_export_carries_the_people_table(news, tmp_path):
    c, _ = news
    t = c.people[0]
    data = json.loads(c.to_json())["people"][0]
    assert data["people"] == "MQM" and data["direction"] == "lower is better"
    assert [r["metric"] for r in data["rankings"]] == ["MQM", "BLEU", "chrF", "TER", "COMET"]
    assert data["rankings"][0]["ranks"] == t.ranking("MQM").ranks
    assert data["clusters"] == t.clusters and len(data["pairs"]) == 3
    assert len(data["disagreements"]) == len(t.disagreements) > 0
    assert {"metric_bootstrap_p_value_holm", "people_bootstrap_p_value_holm", "flagged", "significant_by"} <= \
        set(data["disagreements"][0])

    written = {p.name for p in c.to_csv(tmp_path)}
    assert {"people_ranks.csv", "people_clusters.csv", "people_pairs.csv", "people_disagreements.csv"} <= written
    with open(tmp_path / "people_ranks.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["people", "system", "MQM_score", "MQM_rank", "BLEU_score", "BLEU_rank", "chrF_score",
                             "chrF_rank", "TER_score", "TER_rank", "COMET_score", "COMET_rank"]
    assert [r["system"] for r in rows] == t.order and rows[0]["MQM_rank"] == "1"
    with open(tmp_path / "people_disagreements.csv", encoding="utf-8") as f:
        assert len(list(csv.DictReader(f))) == len(t.disagreements)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("`--csv DIR`")
    assert all(f"`{name}`" in readme[start:readme.index("\n\n", start)] for name in written)

    terminal = str(c)
    assert "MQM (the people, lower is better) against the metrics: rank (score) by each metric" in terminal
    assert "MQM clusters (Holm, best first): BS: {literal}" in terminal
    assert any(line.startswith("  ! ") and ": BLEU " in line and "fluent better (Holm p(BS) 0.0" in line
               and "literal better" in line and line.endswith("significant: both") for line in terminal.splitlines())
    # the people's own pairwise tests, in the terminal and in LaTeX (issue 45)
    assert "  literal - fluent: gap " in terminal and "better (BS, Holm): literal" in terminal
    latex = c.to_latex()
    assert r"literal $-$ fluent & " in latex and "better (BS, Holm)" in latex
    assert r"System & MQM ($\downarrow$) & BLEU ($\uparrow$) & chrF ($\uparrow$) & TER ($\downarrow$)" in latex
    assert r"literal & 1 (" in latex and "% MQM clusters (Holm, best first), BS: \\{literal" in latex
    assert r"Pair & Metric & Metric: better & MQM: better" in latex

    page = c.to_html()
    assert "MQM (the people) against the metrics: rank (score)" in page
    assert "Where a metric and MQM disagree: every pair they order the opposite way" in page


def test_people_must_name_a_scores_metric(tmp_path, capsys):
    from bleu_lab.compare import compare_systems
    from bleu_lab.compare.cli import main

    with pytest.raises(ValueError, match="people names 'DA', which is not a scores metric"):
        compare_systems({"a": ["x y"], "b": ["x z"]}, ["x y"], people=["DA"])
    assert main(["--refs", str(NEWS / "ref.A.de"), "--systems", str(NEWS / "sys.strong.de"),
                 str(NEWS / "sys.fluent.de"), "--people", "DA"]) == 2
    assert "--people DA: no --scores DA=FILE" in capsys.readouterr().err


@pytest.mark.skipif(not os.environ.get("BLEU_LAB_MTDATA"),
                    reason="needs the WMT21 en-de files: set BLEU_LAB_MTDATA to the folder holding en-de/")
def test_wmt21_mqm_ranks_are_the_published_table(tmp_path):
    """bleu-lab compare on the eight MQM-rated WMT21 en-de systems: MQM's ranks are the published table's order of
    those systems, BLEU's the order of the published BLEU against the same reference."""
    from bleu_lab.compare.cli import main
    from bleu_lab.metrics.published_scores import FILE_NAMES, SEGMENT_REFERENCE

    folder = Path(os.environ["BLEU_LAB_MTDATA"]) / "en-de"
    files = [str(folder / f"newstest2021.en-de.hyp.{FILE_NAMES.get(s, s)}.de") for s in RATED_SYSTEMS]
    out = tmp_path / "r.json"
    assert main(["--refs", str(folder / f"newstest2021.en-de.ref.{SEGMENT_REFERENCE}.de"), "--systems", *files,
                 "--names", *RATED_SYSTEMS, "--samples", "200", "--trials", "200", "--no-chrf",
                 "--scores", f"MQM={corpus_dir() / MQM_SEGMENTS_FILE}", "--lower-is-better", "MQM",
                 "--json", str(out)]) == 0
    table = json.loads(out.read_text(encoding="utf-8"))["people"][0]
    published = {row.system: row for row in load_system_scores() if row.system in RATED_SYSTEMS}
    by_rank = sorted(published, key=lambda s: published[s].mqm_rank)
    mqm = next(r for r in table["rankings"] if r["metric"] == "MQM")["ranks"]
    assert sorted(mqm, key=mqm.get) == by_rank  # the published order, e.g. VolcTrans-GLAT before Facebook-AI
    assert mqm["VolcTrans-GLAT"] == 1 and mqm["Facebook-AI"] == 2
    bleu = next(r for r in table["rankings"] if r["metric"] == "BLEU")
    official = {s: published[s].bleu[SEGMENT_REFERENCE] for s in RATED_SYSTEMS}
    assert bleu["scores"] == pytest.approx(official)
    assert sorted(bleu["ranks"], key=bleu["ranks"].get) == sorted(RATED_SYSTEMS, key=lambda s: -official[s])
    assert len(table["pairs"]) == 28 and all(d["metric"] == "BLEU" for d in table["disagreements"])
    # the instructor's guide: BLEU ranks Online-W 3rd, MQM 5th; BLEU's preference over HuaweiTSC and Nemo is
    # significant, MQM's opposite one is not
    assert (bleu["ranks"]["Online-W"], mqm["Online-W"]) == (3, 5)
    for other in ("HuaweiTSC", "Nemo"):
        d = next(d for d in table["disagreements"] if {d["system"], d["baseline"]} == {"Online-W", other})
        assert (d["metric_better"], d["people_better"], d["significant_by"]) == ("Online-W", other, "BLEU")
