"""A --scores metric's buckets and examples (``compare.metrics.metric_buckets``, ``metric_examples``): means per
bucket worked by hand, "–" for a bucket with no rated segment, unrated segments left out and counted, the means and
intervals equal to a direct numpy computation, the examples equal to a direct sort, and every export carrying them."""

import json
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bleu_lab.compare import compare_systems
from bleu_lab.compare.bucketers import LENGTH_DIFFERENCE_MERGED, REFERENCE_LENGTH
from bleu_lab.compare.metrics import metric_buckets, metric_examples
from bleu_lab.metrics.segment_scores import segment_scores


def words(n: int, start: int = 0) -> str:
    return " ".join(f"w{k}" for k in range(start, start + n))


# four segments whose first references have 5, 12, 15 and 25 tokens: reference-length buckets <10, [10,20) twice,
# [20,30); system a outputs the reference (length difference 0), b is 1 and 6 tokens short, 2 long, and exact
REFS = [words(5), words(12), words(15), words(25)]
OUTPUTS = {"a": list(REFS), "b": [words(4), words(6), words(17), words(25)]}
MQM = {"a": [1.0, 2.0, None, 4.0], "b": [0.0, 5.0, 3.0, None]}  # error points, lower is better


@pytest.fixture(scope="module")
def hand():
    mqm = segment_scores("MQM", MQM, higher_is_better=False)
    return compare_systems(OUTPUTS, REFS, sources=[f"source {i}" for i in range(4)], n_samples=50, n_trials=50,
                           seed=3, chrf=False, scores={"MQM": mqm})


def test_bucket_means_by_hand(hand):
    length, difference = hand.metrics[0].buckets
    assert length.bucketer == REFERENCE_LENGTH and difference.bucketer == LENGTH_DIFFERENCE_MERGED
    cells = {n: [(x.rated, x.unrated, None if np.isnan(x.mean) else x.mean) for x in length.scores[n]]
             for n in ("a", "b")}
    empty = [(0, 0, None)] * 4  # [30,40) .. >=60
    assert cells["a"] == [(1, 0, 1.0), (1, 1, 2.0), (1, 0, 4.0), *empty]  # segment 3 not rated: out, counted
    assert cells["b"] == [(1, 0, 0.0), (2, 0, 4.0), (0, 1, None), *empty]  # (5 + 3) / 2; segment 4 not rated
    assert length.scores["a"][0].interval == (1.0, 1.0)  # one rated segment: every resample is it
    rated = np.array([5.0, 3.0])  # b's [10,20): the interval resamples these two, as mean_interval does
    draws = np.sort(rated[np.random.default_rng(3).integers(2, size=(50, 2))].mean(1))
    assert length.scores["b"][1].interval == (draws[1], draws[48])  # 50 // 40 = 1 from each end
    # merged length differences: a all 0 (bucket "0"); b -1 -> [-5,0), -6 -> [-10,-5), +2 -> [1,6), 0 -> "0"
    labels = difference.labels
    assert labels == ["<-10", "[-10,-5)", "[-5,0)", "0", "[1,6)", "[6,11)", ">=11"]
    means = {n: {labels[b]: (x.rated, x.unrated, None if np.isnan(x.mean) else x.mean)
                 for b, x in enumerate(difference.scores[n]) if x.rated or x.unrated} for n in ("a", "b")}
    assert means["a"] == {"0": (3, 1, (1 + 2 + 4) / 3)}
    assert means["b"] == {"[-10,-5)": (1, 0, 5.0), "[-5,0)": (1, 0, 0.0), "0": (0, 1, None), "[1,6)": (1, 0, 3.0)}


def test_examples_by_hand_and_better_follows_the_direction(hand):
    found = [(e.segment, e.system, e.baseline, e.gap, e.better) for e in hand.metrics[0].examples]
    # both rated: segment 1 (0 - 1 = -1, b has fewer errors) and 2 (5 - 2 = +3, a has fewer); the larger gap first
    assert found == [(1, "b", "a", 3.0, "a"), (0, "b", "a", -1.0, "b")]
    higher = segment_scores("COMET", {"a": [0.1, 0.2], "b": [0.3, 0.2]}, higher_is_better=True)
    (only,) = metric_examples(higher, "a", ["a", "b"], 5)  # the zero gap is no example
    assert (only.segment, only.gap, only.better) == (0, pytest.approx(0.2), "b")


def test_bucket_rows_open_their_rated_segments_best_by_the_metric_first(hand):
    from bleu_lab.compare.metrics import oriented
    from bleu_lab.compare.reporters import bucket_segments, bucket_segments_html

    m, (length, _) = hand.metrics[0], hand.metrics[0].buckets
    better = {n: oriented(hand.metric_scores["MQM"].scores[n], False) for n in ("a", "b")}
    assert bucket_segments(hand, length, 1, "b", scores=better["b"]) == ([2, 1], [])  # 3 errors before 5
    assert bucket_segments(hand, length, 1, "a", scores=better["a"]) == ([1], [])  # segment 3 not rated: not shown
    drill = bucket_segments_html(hand, length, 1, m)
    assert "segments of [10,20): best and worst by MQM first" in drill and "(2 rated segments)" in drill
    assert drill.index("<b>segment 3</b> · MQM 3.000 · sentence BLEU") < drill.index("<b>segment 2</b> · MQM 5.000")
    only_a = bucket_segments_html(hand, length, 2, m)  # b has no rated segment of [20,30)
    assert "<b>a</b> (1 rated segment)" in only_a and "<b>b</b>" not in only_a
    assert bucket_segments_html(hand, length, 6, m) == ""  # >=60: empty


def test_empty_buckets_print_a_dash_never_zero(hand):
    page = hand.to_html()
    start = page.index("MQM by reference length (mean of segment scores)")
    table = page[start:page.index("</table>", start)]
    assert "<th scope='row'" in table
    row = table[table.index(">[20,30)</th>"):]
    row = row[:row.index("</tr>")]
    assert "1 · 4.000" in row and "– (+1 not rated)" in row  # a's one rated segment; b's bucket: none rated
    row = table[table.index("&gt;=60</th>"):]
    assert row[:row.index("</tr>")].count(">–</td>") == 2
    latex = hand.to_latex()
    assert r"$\geq$60 & -- & -- \\" in latex and r"[10,20) & 2.000 [2.000, 2.000] (1, +1) & " in latex
    data = hand.to_dict()["metrics"][0]["buckets"][0]["rows"]
    assert data[6]["mean"] == {"a": None, "b": None} and data[2]["mean"]["b"] is None
    assert data[2]["unrated"]["b"] == 1 and data[2]["rated"]["b"] == 0


def test_every_export_carries_the_buckets_and_examples(hand, tmp_path):
    data = json.loads(hand.to_json())["metrics"][0]
    assert [t["bucketing"] for t in data["buckets"]] == ["reference length", "length difference, merged"]
    assert data["examples"][0] == {
        "segment": 2, "system": "b", "baseline": "a", "system_score": 5.0, "baseline_score": 2.0, "gap": 3.0,
        "better": "a", "source": "source 1", "references": [REFS[1]], "outputs": {"a": REFS[1], "b": words(6)}}
    hand.to_csv(tmp_path)
    rows = (tmp_path / "metric_buckets.csv").read_text(encoding="utf-8").splitlines()
    assert rows[0] == "metric,bucketing,bucket,system,mean,interval_low,interval_high,rated,unrated"
    assert "MQM,reference length,\"[10,20)\",b,4.0," in "\n".join(rows)
    assert "MQM,reference length,\"[20,30)\",b,,,,0,1" in rows
    examples = (tmp_path / "metric_examples.csv").read_text(encoding="utf-8").splitlines()
    assert examples[0] == ("metric,segment,system,baseline,system_score,baseline_score,gap,better,source,"
                           "system_output,baseline_output,reference_1")
    assert examples[1].startswith("MQM,2,b,a,5.0,2.0,3.0,a,source 1,")
    latex = hand.to_latex()
    assert "MQM by reference length & a & b" in latex and "MQM by length difference, merged & a & b" in latex
    page = hand.to_html()
    for text in ("aria-label=\"MQM by reference length\"", "aria-label=\"MQM by length difference\"",
                 "MQM by length difference (mean of segment scores)", "Where each system and the baseline differ "
                 "most in MQM", "b against a: the 2 segments where MQM differs most", "class='compare-metric-example'",
                 "b − a = +3.000 MQM: a better (lower is better)", "not a corpus score"):
        assert text in page
    assert page.count("class='compare-metric-example'") == 2
    text = str(hand)
    assert "(metric_buckets.csv)" in text and "(metric_examples.csv)" in text


@st.composite
def scored_buckets(draw):
    n_systems, n_segments, n_buckets = draw(st.integers(1, 3)), draw(st.integers(1, 30)), draw(st.integers(1, 5))
    values = st.one_of(st.none(), st.floats(-50, 50, allow_nan=False).map(lambda x: round(x, 2)))
    scores = {f"s{k}": draw(st.lists(values, min_size=n_segments, max_size=n_segments)) for k in range(n_systems)}
    index = {name: np.array(draw(st.lists(st.integers(0, n_buckets - 1), min_size=n_segments,
                                          max_size=n_segments))) for name in scores}
    return scores, index, n_buckets


@settings(max_examples=60, deadline=None)
@given(scored_buckets(), st.integers(0, 2**32 - 1))
def test_bucket_means_equal_numpy(case, seed):
    from bleu_lab.compare.bucketers import Bucketer

    scores, index, n_buckets = case
    metric = segment_scores("M", scores, higher_is_better=True)
    bucketer = Bucketer("test", tuple(range(1, n_buckets)))
    table = metric_buckets(metric, bucketer, index, 40, seed)
    for name, values in scores.items():
        x = np.array([np.nan if v is None else v for v in values])
        for b in range(n_buckets):
            cell, members = table.scores[name][b], x[index[name] == b]
            rated = members[~np.isnan(members)]
            assert (cell.rated, cell.unrated) == (len(rated), len(members) - len(rated))
            if not len(rated):
                assert np.isnan(cell.mean) and np.isnan(cell.interval).all()
                continue
            assert cell.mean == pytest.approx(np.mean(rated), abs=1e-9)
            means = rated[np.random.default_rng(seed).integers(len(rated), size=(40, len(rated)))].mean(1)
            assert cell.interval == pytest.approx(tuple(np.sort(means)[[1, 38]]), abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.none(), st.integers(-5, 5)), st.one_of(st.none(), st.integers(-5, 5))),
                min_size=1, max_size=40), st.integers(0, 12), st.booleans())
def test_examples_equal_a_direct_sort(pairs, k, higher):
    metric = segment_scores("M", {"base": [p[0] for p in pairs], "sys": [p[1] for p in pairs]},
                            higher_is_better=higher)
    found = metric_examples(metric, "base", ["base", "sys"], k)
    both = np.array([i for i, (a, b) in enumerate(pairs) if a is not None and b is not None and a != b], dtype=int)
    gaps = np.array([pairs[i][1] - pairs[i][0] for i in both], dtype=float)
    expected = both[np.lexsort((both, -np.abs(gaps)))][:k] if len(both) else both
    assert [e.segment for e in found] == expected.tolist()
    for e in found:
        assert e.gap == pairs[e.segment][1] - pairs[e.segment][0]
        assert e.better == ("sys" if (e.gap > 0) == higher else "base")


@pytest.mark.skipif(not os.environ.get("BLEU_LAB_MTDATA"),
                    reason="needs the WMT21 en-de files: set BLEU_LAB_MTDATA to the folder holding en-de/")
def test_mqm_bucket_means_on_wmt21_equal_numpy():
    """Two MQM-rated WMT21 en-de systems: each reference-length bucket's MQM mean equals numpy's mean over the same
    rated segments, the buckets counted with sacrebleu's 13a tokenizer."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    from bleu_lab.compare.bucketers import LENGTH_CUTOFFS
    from bleu_lab.data import corpus_dir
    from bleu_lab.metrics.published_scores import FILE_NAMES, MQM_SEGMENTS_FILE, SEGMENT_REFERENCE
    from bleu_lab.metrics.segment_scores import read_segment_scores

    folder = Path(os.environ["BLEU_LAB_MTDATA"]) / "en-de"
    read = lambda path: path.read_text(encoding="utf-8").split("\n")[:-1]  # noqa: E731
    ref = read(folder / f"newstest2021.en-de.ref.{SEGMENT_REFERENCE}.de")
    names = ("Nemo", "Online-W")
    systems = {n: read(folder / f"newstest2021.en-de.hyp.{FILE_NAMES.get(n, n)}.de") for n in names}
    mqm = read_segment_scores("MQM", corpus_dir() / MQM_SEGMENTS_FILE, names, len(ref), higher_is_better=False)
    c = compare_systems(systems, ref, n_samples=100, n_trials=100, chrf=False, scores={"MQM": mqm})
    tokenize = Tokenizer13a()
    buckets = np.digitize([len(tokenize(r).split()) for r in ref], LENGTH_CUTOFFS)  # v < c_1 -> 0, ...
    table = c.metrics[0].buckets[0]
    for name in names:
        scores = mqm.scores[name]
        for b in range(len(LENGTH_CUTOFFS) + 1):
            chosen = scores[(buckets == b) & ~np.isnan(scores)]
            cell = table.scores[name][b]
            assert cell.rated == len(chosen) and cell.unrated == int(np.isnan(scores[buckets == b]).sum())
            if len(chosen):
                assert cell.mean == pytest.approx(chosen.mean())
            else:
                assert np.isnan(cell.mean)
    assert sum(x.rated for x in table.scores["Nemo"]) == 527
