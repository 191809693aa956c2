"""The shipped WMT21 en-de table holds exactly the published numbers, and the agreement measures are right."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_real_data import official_scores

from bleu_lab.metrics.agreement import (
    kendall_tau,
    pair_decisions,
    pairwise_accuracy,
    ranking,
    resampled_pairwise_accuracy,
)
from bleu_lab.metrics.published_scores import COMET_REFERENCES, REFERENCES, load_system_scores

# A second, independent copy of the published MQM table: the README of github.com/google/wmt-mqm-human-evaluation,
# "newstest2021 / English to German", rows "| System | expert-based MQM | WMT DA |" as printed there.
PUBLISHED_MQM_TABLE = """
| ref-C | 0.51(1) | 0.320(3) |
| VolcTrans-GLAT | 1.04(2) | 0.301(6) |
| Facebook-AI | 1.05(3) | 0.378(2) |
| ref-A | 1.22(4) | 0.280(8) |
| Nemo | 1.34(5) | 0.250(10) |
| HuaweiTSC | 1.38(6) | 0.312(4) |
| Online-W | 1.46(7) | 0.391(1) |
| UEdin | 1.51(8) | 0.305(5) |
| eTranslation | 1.70(9) | 0.281(7) |
| VolcTrans-AT | 1.74(10) | 0.280(9) |
"""


def published_rows():
    for line in PUBLISHED_MQM_TABLE.strip().splitlines():
        system, mqm, da = (cell.strip() for cell in line.strip("| ").split("|"))
        yield system, mqm, da


def value_and_rank(cell: str) -> tuple[float, int]:
    value, rank = cell.rstrip(")").split("(")
    return float(value), int(rank)


def test_every_mqm_and_da_number_is_the_published_one():
    table = {row.system: row for row in load_system_scores()}
    published = list(published_rows())
    assert list(table) == [system for system, _, _ in published]
    for system, mqm, da in published:
        assert (table[system].mqm, table[system].mqm_rank) == value_and_rank(mqm), system
        assert (table[system].wmt_da, table[system].wmt_da_rank) == value_and_rank(da), system


def test_printed_ranks_follow_from_printed_scores():
    """MQM ranks ascend with the error score; DA ranks descend with the score (0.280 vs 0.280: printed order)."""
    rows = load_system_scores()
    assert [r.mqm_rank for r in sorted(rows, key=lambda r: r.mqm)] == list(range(1, len(rows) + 1))
    by_da = sorted(rows, key=lambda r: (-r.wmt_da, r.wmt_da_rank))
    assert [r.wmt_da_rank for r in by_da] == list(range(1, len(rows) + 1))


def test_da_ties_in_the_rounded_scores_are_broken_by_the_published_ranks():
    """0.280 for ref-A and VolcTrans-AT is rounding: the source ranks them 8 and 9, and wmt_da_by_rank keeps that."""
    rows = {row.system: row for row in load_system_scores()}
    assert rows["ref-A"].wmt_da == rows["VolcTrans-AT"].wmt_da == 0.280
    assert rows["ref-A"].wmt_da_by_rank > rows["VolcTrans-AT"].wmt_da_by_rank
    by_rank = sorted(rows.values(), key=lambda r: -r.wmt_da_by_rank)
    assert [r.wmt_da for r in by_rank] == sorted((r.wmt_da for r in by_rank), reverse=True)  # same order as the scores
    assert len({r.wmt_da_by_rank for r in by_rank}) == len(by_rank)  # and no ties


def test_da_against_mqm_the_numbers_lesson_10_prints():
    """Lesson 10: DA orders 28 of 45 pairs as MQM does, tau = 11/45; on the 8 machine systems 17 of 28 (BLEU: 24)."""
    rows = load_system_scores()
    quality, da = [-r.mqm for r in rows], [r.wmt_da_by_rank for r in rows]
    assert pairwise_accuracy(da, quality) * 45 == pytest.approx(28)
    assert kendall_tau(da, quality) == pytest.approx((28 - 17) / 45)
    machines = [r for r in rows if not r.is_human]
    quality, da = [-r.mqm for r in machines], [r.wmt_da_by_rank for r in machines]
    assert pairwise_accuracy(da, quality) * 28 == pytest.approx(17)
    assert pairwise_accuracy([r.bleu["all"] for r in machines], quality) * 28 == pytest.approx(24)
    # the rounded scores would tie ref-A and VolcTrans-AT and give 27 of 45 and tau_b = 0.22 instead
    rounded = [r.wmt_da for r in rows]
    assert pairwise_accuracy(rounded, [-r.mqm for r in rows]) * 45 == pytest.approx(27)


def test_machines_have_bleu_and_chrf_for_every_reference_and_humans_none():
    for row in load_system_scores():
        if row.is_human:
            assert row.bleu == {} and row.chrf == {} and row.official_name == ""
        else:
            assert set(row.bleu) == set(row.chrf) == set(REFERENCES)
            for ref in ("A", "C", "D"):
                assert row.bleu[ref] < row.bleu["all"] and row.chrf[ref] < row.chrf["all"]


def test_bleu_and_chrf_are_the_official_wmt21_numbers(mtdata):
    official = official_scores(mtdata)
    machines = [row for row in load_system_scores() if not row.is_human]
    assert len(machines) == 8
    for row in machines:
        for ref in REFERENCES:
            assert row.bleu[ref] == official[("en-de", row.official_name, f"bleu-{ref}")], (row.system, ref)
            assert row.chrf[ref] == official[("en-de", row.official_name, f"chrf-{ref}")], (row.system, ref)


def published_comet(mtdata, ref: str) -> dict[str, float]:
    """One of the organisers' files: "system<TAB>COMET against reference ref", one line per system."""
    path = mtdata / "comet" / "en-de" / f"COMET_newstest2021_ref-{ref}.tsv"
    lines = path.read_text(encoding="utf-8").splitlines()
    return {system: float(score) for system, score in (line.split("\t") for line in lines)}


def test_comet_is_the_organisers_published_numbers(mtdata):
    """Every COMET number of data/wmt21 equals the organisers' file for its reference, to the last digit; a human
    translation is scored against the other references only, and the files have no row for it against itself."""
    rows = load_system_scores()
    for ref in COMET_REFERENCES:
        published = published_comet(mtdata, ref)
        assert f"ref-{ref}" not in published
        for row in rows:
            if row.system == f"ref-{ref}":
                assert ref not in row.comet
            else:
                assert row.comet[ref] == published[row.system], (row.system, ref)


def test_every_system_has_comet_against_every_reference_but_its_own():
    for row in load_system_scores():
        own = {row.system.removeprefix("ref-")} if row.is_human else set()
        assert set(row.comet) == set(COMET_REFERENCES) - own, row.system
        assert all(0 < value < 1 for value in row.comet.values())


def test_comet_against_mqm_the_numbers_lesson_10_prints():
    """Lesson 10: on the 8 machine systems COMET orders 20, 22 and 21 of the 28 pairs as MQM does (references A, C,
    D), fewer than BLEU with the same reference (26, 25, 24) or with all three (24); against DA 17, 17 and 18.
    Against reference D, which scores the human translations too, COMET orders 29 of the 45 pairs as MQM does."""
    rows = load_system_scores()
    machines = [r for r in rows if not r.is_human]
    quality, da = [-r.mqm for r in machines], [r.wmt_da_by_rank for r in machines]
    for ref, comet_pairs, bleu_pairs, da_pairs in (("A", 20, 26, 17), ("C", 22, 25, 17), ("D", 21, 24, 18)):
        comet = [r.comet[ref] for r in machines]
        assert pairwise_accuracy(comet, quality) * 28 == pytest.approx(comet_pairs), ref
        assert pairwise_accuracy([r.bleu[ref] for r in machines], quality) * 28 == pytest.approx(bleu_pairs), ref
        assert pairwise_accuracy(comet, da) * 28 == pytest.approx(da_pairs), ref
        assert kendall_tau(comet, quality) == pytest.approx((2 * comet_pairs - 28) / 28), ref
    comet_d = [r.comet["D"] for r in rows]
    assert pairwise_accuracy(comet_d, [-r.mqm for r in rows]) * 45 == pytest.approx(29)
    assert pairwise_accuracy(comet_d, [r.wmt_da_by_rank for r in rows]) * 45 == pytest.approx(32)


# ---------------------------------------------------------------------------------------------- agreement


def test_pairwise_accuracy_by_hand():
    # three systems: (a,b) and (a,c) agree, (b,c) disagree -> 2/3
    decisions = pair_decisions(["a", "b", "c"], [30.0, 28.0, 29.0], [0.4, 0.3, 0.1])
    assert [d.agree for d in decisions] == [True, True, False]
    assert pairwise_accuracy([30.0, 28.0, 29.0], [0.4, 0.3, 0.1]) == pytest.approx(2 / 3)
    assert pairwise_accuracy([1, 2, 3, 4], [10, 20, 30, 40]) == 1.0
    assert pairwise_accuracy([1, 2, 3, 4], [40, 30, 20, 10]) == 0.0


def test_resampled_pairwise_accuracy_by_hand():
    """Three systems: pairs (0,1) and (0,2) agree, (1,2) does not. A draw [0, 0, 1] counts pair (0,1) twice: 1; a draw
    [1, 2, 2]: (1,2) twice, 0; [0, 1, 2]: 2/3; [2, 2, 2] has no pair and is drawn again."""
    metric, human = [1.0, 2.0, 3.0], [1.0, 3.0, 2.0]
    agrees = {(0, 1): True, (0, 2): True, (1, 2): False}
    rng, expected = np.random.default_rng(7), []
    while len(expected) < 60:  # the same draws from numpy, each counted pair by pair of its positions
        draw = rng.integers(0, 3, size=3).tolist()
        pairs = [tuple(sorted(p)) for p in itertools.combinations(draw, 2) if p[0] != p[1]]
        if pairs:
            expected.append(sum(agrees[p] for p in pairs) / len(pairs))
    got = resampled_pairwise_accuracy(metric, human, n_samples=60, seed=7)
    assert got.tolist() == pytest.approx(expected)
    assert {round(v, 9) for v in got} <= {0.0, round(2 / 3, 9), 1.0} and len(set(got.tolist())) == 3


def test_resampled_pairwise_accuracy_pairs_metrics_and_refuses_too_much_work():
    machines = [r for r in load_system_scores() if not r.is_human]
    quality = [-r.mqm for r in machines]
    assert set(resampled_pairwise_accuracy(quality, quality, n_samples=50).tolist()) == {1.0}
    assert set(resampled_pairwise_accuracy([-q for q in quality], quality, n_samples=50).tolist()) == {0.0}
    bleu = resampled_pairwise_accuracy([r.bleu["all"] for r in machines], quality, seed=3)
    assert bleu.mean() == pytest.approx(pairwise_accuracy([r.bleu["all"] for r in machines], quality), abs=0.02)
    assert bleu.tolist() == resampled_pairwise_accuracy([r.bleu["all"] for r in machines], quality, seed=3).tolist()
    with pytest.raises(ValueError, match="use fewer draws"):
        resampled_pairwise_accuracy(list(range(2000)), list(range(2000)), n_samples=1000)
    with pytest.raises(ValueError, match="n_samples must be a whole number"):
        resampled_pairwise_accuracy([1, 2], [1, 2], n_samples=0)


def test_kendall_tau_by_hand_with_ties():
    # x = 1, 2, 2, 3 and y = 1, 2, 3, 4: 6 pairs, one tie in x, 5 concordant -> 5 / sqrt(5 * 6) (tau-b)
    assert kendall_tau([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(5 / math.sqrt(30))
    assert kendall_tau([1, 2, 3], [3, 2, 1]) == -1.0
    assert kendall_tau(np.array([0.2, 0.1]), np.array([5.0, 7.0])) == -1.0


@given(st.lists(st.integers(-50, 50), min_size=2, max_size=9, unique=True),
       st.lists(st.integers(-50, 50), min_size=9, max_size=9, unique=True))
def test_without_ties_tau_is_twice_accuracy_minus_one(x, y):
    y = y[: len(x)]
    assert kendall_tau(x, y) == pytest.approx(2 * pairwise_accuracy(x, y) - 1)


@given(st.lists(st.integers(0, 4), min_size=2, max_size=8), st.data())
def test_kendall_tau_b_matches_its_definition(x, data):
    y = data.draw(st.lists(st.integers(0, 4), min_size=len(x), max_size=len(x)))
    pairs = list(itertools.combinations(range(len(x)), 2))
    s = [np.sign(x[i] - x[j]) * np.sign(y[i] - y[j]) for i, j in pairs]
    tx = sum(x[i] == x[j] for i, j in pairs)
    ty = sum(y[i] == y[j] for i, j in pairs)
    if tx == len(pairs) or ty == len(pairs):
        with pytest.raises(ValueError, match="undefined"):
            kendall_tau(x, y)
        return
    expected = (sum(v > 0 for v in s) - sum(v < 0 for v in s)) / math.sqrt((len(pairs) - tx) * (len(pairs) - ty))
    assert kendall_tau(x, y) == pytest.approx(expected)
    assert -1 <= kendall_tau(x, y) <= 1


def test_ranking_best_first():
    assert ranking(["a", "b", "c"], [1.0, 3.0, 2.0]) == ["b", "c", "a"]


@pytest.mark.parametrize("metric,human,error,words", [
    ([1.0], [2.0], ValueError, "at least two systems"),
    ([1.0, 2.0], [1.0], ValueError, "1 scores for 2 systems"),
    ([1.0, float("nan")], [1.0, 2.0], ValueError, "finite"),
    ("12", [1.0, 2.0], TypeError, "metric must be a list"),
    ([1.0, "2"], [1.0, 2.0], TypeError, "metric must hold numbers"),
    ([1.0, 2.0], [True, False], TypeError, "human must hold numbers"),
    (None, [1.0, 2.0], TypeError, "metric must be a list"),
])
def test_bad_input_gets_a_clear_error(metric, human, error, words):
    with pytest.raises(error, match=words):
        pairwise_accuracy(metric, human)
    with pytest.raises(error):
        kendall_tau(metric, human)
