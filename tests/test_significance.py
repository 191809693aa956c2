"""Paired significance tests: the same numbers as sacrebleu's PairedTest for the same seed.

Checklist:
- the vectorized scorer is score_from_stats on every row (every smoothing, effective order, max order),
  and sacrebleu's compute_bleu on int64 rows (randomization) and float32 rows (bootstrap), bit for bit;
- the statistics rows are sacrebleu's per-segment statistics;
- with method="sacrebleu", p-values are equal, bootstrap means and CIs (half-widths) equal, on the shipped corpus
  and on WMT21;
- by default approximate randomization counts the shuffles that tie the observed gap (Noreen): identical systems
  and a one-sentence change are not significant, and few changed segments give the exact permutation p-value;
- sacrebleu's bootstrap p-value is the folded, upper-tail count (one-sided for a clear gap, below ~0.42 near 0);
- a zero difference is never "significant", bad input fails with a message naming the argument.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU
from sacrebleu.significance import PairedTest, _bootstrap_resample, estimate_ci

import bleu_lab
import bleu_lab.metrics.significance as sig
from bleu_lab.data import load_corpus
from bleu_lab.metrics.significance import (
    BootstrapResult,
    RandomizationResult,
    paired_bootstrap,
    paired_randomization,
    randomization_p_value,
    row_to_stats,
    sacrebleu_bootstrap_p_value,
    scores_from_rows,
    shift_p_value,
    stats_matrix,
)
from bleu_lab.sacrebleu_style import ScoreOptions, score_from_stats

# --- the vectorized scorer ----------------------------------------------------------------------------


@st.composite
def summed_rows(draw, order: int):
    """Plausible corpus statistics rows: matches <= totals, totals shrinking with n, some zeros."""
    rows = []
    for _ in range(draw(st.integers(1, 6))):
        hyp_len = draw(st.integers(0, 60))
        ref_len = draw(st.integers(0, 60))
        totals = [max(0, hyp_len - n) for n in range(order)]
        matches = [draw(st.integers(0, t)) for t in totals]
        rows.append([hyp_len, ref_len, *matches, *totals])
    return rows


OPTIONS = st.builds(
    ScoreOptions,
    tokenize=st.just("13a"),
    smooth_method=st.sampled_from(["exp", "floor", "add-k", "none"]),
    smooth_value=st.one_of(st.none(), st.sampled_from([0.0, 0.01, 0.1, 0.5, 1, 2])),
    effective_order=st.booleans(),
    max_ngram_order=st.integers(1, 5),
)


@given(data=st.data(), options=OPTIONS)
def test_scores_from_rows_is_score_from_stats_on_every_row(data, options):
    rows = data.draw(summed_rows(options.max_ngram_order))
    expected = [score_from_stats(row_to_stats(r), options).score for r in rows]
    assert scores_from_rows(np.array(rows, dtype=np.float64), options).tolist() == expected
    if options.smooth_method != "add-k" or float(options.smooth_value or 1).is_integer():
        assert scores_from_rows(np.array(rows, dtype=np.int64), options).tolist() == expected


def _sacrebleu_metric(options: ScoreOptions) -> BLEU:
    return BLEU(smooth_method=options.smooth_method, smooth_value=options.smooth_value,
                effective_order=options.effective_order, max_ngram_order=options.max_ngram_order)


@settings(max_examples=150)
@given(data=st.data(), options=OPTIONS, dtype=st.sampled_from([np.int64, np.float32]))
def test_scores_from_rows_is_sacrebleu_compute_bleu_for_the_dtype_its_tests_use(data, options, dtype):
    """int64 rows as in the randomization test, float32 rows as in the bootstrap: same floats, bit for bit."""
    rows = np.array(data.draw(summed_rows(options.max_ngram_order)), dtype=dtype)
    metric = _sacrebleu_metric(options)
    expected = [metric._compute_score_from_stats(row.copy()).score for row in rows]
    assert scores_from_rows(rows, options).tolist() == expected


def test_float32_rows_round_precisions_like_sacrebleus_bootstrap():
    """Why the dtype matters: 100 * 1 / 3 in float32 is not the float64 value, and sacrebleu's bootstrap sees it."""
    row = [[6, 6, 2, 1, 1, 1, 6, 5, 4, 3]]
    options = ScoreOptions()
    as_float32 = scores_from_rows(np.array(row, dtype=np.float32), options)[0]
    as_int = scores_from_rows(np.array(row, dtype=np.int64), options)[0]
    assert as_float32 != as_int and math.isclose(as_float32, as_int, rel_tol=1e-6)


def test_scores_from_rows_rejects_rows_of_the_wrong_shape():
    with pytest.raises(ValueError, match="2-d array"):
        scores_from_rows(np.zeros(10))
    with pytest.raises(ValueError, match="max_ngram_order is 4"):
        scores_from_rows(np.zeros((2, 8)))


# --- statistics rows --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def news():
    return load_corpus("news")


def test_stats_matrix_rows_are_sacrebleus_segment_statistics(news):
    hyps, refs = news.systems["literal"], news.references_for("A")
    rows = stats_matrix(hyps, refs)
    assert rows.dtype == np.int64 and rows.shape == (len(hyps), 10)
    assert rows.tolist() == BLEU()._extract_corpus_statistics(hyps, [news.reference_streams["A"]])


def test_summed_rows_give_corpus_score(news):
    hyps, refs = news.systems["fluent"], news.references
    rows = stats_matrix(hyps, refs, lowercase=True)
    pooled = row_to_stats(rows.sum(0), len(hyps))
    assert score_from_stats(pooled, ScoreOptions(lowercase=True), "var") == bleu_lab.corpus_score(
        hyps, refs, lowercase=True
    )


# --- equal to sacrebleu's PairedTest ---------------------------------------------------------------


def sacrebleu_paired(baseline, system, streams, test_type, n, seed, monkeypatch, **options):
    """sacrebleu's (baseline, system) results; it reads the seed from $SACREBLEU_SEED."""
    monkeypatch.setenv("SACREBLEU_SEED", str(seed))
    _, scores = PairedTest([("baseline", baseline), ("system", system)], {"BLEU": BLEU(**options)}, streams,
                           test_type=test_type, n_samples=n)()
    return scores["BLEU"]


def assert_same_bootstrap(ours: BootstrapResult, theirs) -> None:
    base, system = theirs
    assert ours.p_value == system.p_value
    assert ours.baseline.score == base.score and ours.system.score == system.score
    assert ours.baseline_mean == pytest.approx(base.mean, abs=1e-9)
    assert ours.baseline_ci == pytest.approx(base.ci, abs=1e-9)
    assert ours.system_mean == pytest.approx(system.mean, abs=1e-9)
    assert ours.system_ci == pytest.approx(system.ci, abs=1e-9)


def assert_same_randomization(ours: RandomizationResult, theirs) -> None:
    base, system = theirs
    assert ours.p_value == system.p_value
    assert ours.baseline.score == base.score and ours.system.score == system.score


NEWS_CASES = [  # baseline, system, options: close pairs make p-values that are not at their minimum
    ("degraded", "fluent", {}),
    ("strong", "salad", {"lowercase": True}),
    ("fluent", "literal", {"tokenize": "intl", "smooth_method": "floor"}),
]


@pytest.mark.parametrize(("baseline", "system", "options"), NEWS_CASES)
@pytest.mark.parametrize("seed", [12345, 2024])
def test_bootstrap_equals_sacrebleu_on_the_news_corpus(news, monkeypatch, baseline, system, options, seed):
    hyp_a, hyp_b = news.systems[baseline], news.systems[system]
    ours = paired_bootstrap(hyp_a, hyp_b, news.references_for("A"), n_samples=500, seed=seed, **options)
    theirs = sacrebleu_paired(hyp_a, hyp_b, [news.reference_streams["A"]], "bs", 500, seed, monkeypatch, **options)
    assert_same_bootstrap(ours, theirs)


@pytest.mark.parametrize(("baseline", "system", "options"), NEWS_CASES)
@pytest.mark.parametrize("seed", [12345, 2024])
def test_randomization_equals_sacrebleu_on_the_news_corpus(news, monkeypatch, baseline, system, options, seed):
    hyp_a, hyp_b = news.systems[baseline], news.systems[system]
    ours = paired_randomization(hyp_a, hyp_b, news.references_for("A"), n_trials=2000, seed=seed, method="sacrebleu",
                                **options)
    theirs = sacrebleu_paired(hyp_a, hyp_b, [news.reference_streams["A"]], "ar", 2000, seed, monkeypatch, **options)
    assert_same_randomization(ours, theirs)


def test_two_references_equal_sacrebleu(news, monkeypatch):
    """Segments 1-60 have both references; sacrebleu takes them as two streams, bleu_lab per segment."""
    hyp_a, hyp_b = news.systems["fluent"][:60], news.systems["degraded"][:60]
    streams = [news.reference_streams["A"][:60], news.reference_streams["B"][:60]]
    refs = news.references[:60]
    assert all(len(r) == 2 for r in refs)
    assert_same_bootstrap(paired_bootstrap(hyp_a, hyp_b, refs, n_samples=300),
                          sacrebleu_paired(hyp_a, hyp_b, streams, "bs", 300, 12345, monkeypatch))
    assert_same_randomization(paired_randomization(hyp_a, hyp_b, refs, n_trials=1000, method="sacrebleu"),
                              sacrebleu_paired(hyp_a, hyp_b, streams, "ar", 1000, 12345, monkeypatch))


def test_fallbacks_for_huge_corpora_give_the_same_result(news, monkeypatch):
    """Past 2^24 float32 sums round: the bootstrap then sums in float32 as sacrebleu does (rounding included),
    the randomization multiplies in float64. Both paths are forced here on a small corpus."""
    hyp_a, hyp_b, refs = news.systems["degraded"], news.systems["fluent"], news.references_for("A")
    fast = paired_bootstrap(hyp_a, hyp_b, refs, n_samples=300)
    fast_ar = paired_randomization(hyp_a, hyp_b, refs, n_trials=500)
    monkeypatch.setattr(sig, "FLOAT32_EXACT", 0)
    slow = paired_bootstrap(hyp_a, hyp_b, refs, n_samples=300)
    assert slow == fast
    slow_ar = paired_randomization(hyp_a, hyp_b, refs, n_trials=500)
    assert slow_ar == fast_ar and np.array_equal(slow_ar.trial_differences, fast_ar.trial_differences)
    assert_same_bootstrap(slow, sacrebleu_paired(hyp_a, hyp_b, [news.reference_streams["A"]], "bs", 300, 12345,
                                                 monkeypatch))


def test_float32_rounding_of_huge_sums_is_sacrebleus(monkeypatch):
    """Statistics whose resampled sums pass 2^24 round in float32; the bootstrap rounds exactly as sacrebleu."""
    rng = np.random.default_rng(0)
    totals = rng.integers(2_000_000, 3_000_000, size=(40, 1))
    rows = np.hstack([totals, totals + 7, totals // 2, totals // 3, totals // 4, totals // 5,
                      totals, totals - 1, totals - 2, totals - 3])
    other = rows.copy()
    other[:, 2:6] = other[:, 2:6] * 9 // 10
    options = ScoreOptions()
    setup = sig._Setup(options, rows, other, score_from_stats(row_to_stats(rows.sum(0), 40), options),
                       score_from_stats(row_to_stats(other.sum(0), 40), options))
    monkeypatch.setattr(sig, "_prepare", lambda *args: setup)
    ours = paired_bootstrap([], [], [], n_samples=200, seed=99)
    monkeypatch.setenv("SACREBLEU_SEED", "99")
    _, scores = _bootstrap_resample(rows.tolist(), BLEU(), 200)
    assert (ours.baseline_mean, ours.baseline_ci) == estimate_ci(np.array([x.score for x in scores]))
    assert rows.sum(0).max() > 2**24


WMT_PAIRS = [  # (pair, reference letters, baseline, system)
    ("en-de", "A", "Facebook-AI", "VolcTrans-GLAT"),
    ("de-en", "AB", "Online-B", "UEdin"),
]


@pytest.mark.parametrize(("pair", "refs", "baseline", "system"), WMT_PAIRS)
def test_equal_to_sacrebleu_on_wmt21(mtdata, monkeypatch, pair, refs, baseline, system):
    src, trg = pair.split("-")
    folder = mtdata / pair

    def read(kind, name):
        return (folder / f"newstest2021.{pair}.{kind}.{name}.{trg}").read_text(encoding="utf-8").split("\n")[:-1]

    hyp_a, hyp_b = read("hyp", baseline), read("hyp", system)
    streams = [read("ref", r) for r in refs]
    per_segment = [list(seg) for seg in zip(*streams)]
    assert_same_bootstrap(paired_bootstrap(hyp_a, hyp_b, per_segment, n_samples=200, seed=777),
                          sacrebleu_paired(hyp_a, hyp_b, streams, "bs", 200, 777, monkeypatch))
    assert_same_randomization(paired_randomization(hyp_a, hyp_b, per_segment, n_trials=500, seed=777,
                                                   method="sacrebleu"),
                              sacrebleu_paired(hyp_a, hyp_b, streams, "ar", 500, 777, monkeypatch))


# --- behaviour ------------------------------------------------------------------------------------


def test_systems_sharing_lines_equal_sacrebleu(news, monkeypatch):
    """Lines both systems translate the same are counted once; the numbers do not change."""
    hyp_a = news.systems["strong"]
    hyp_b = [b if i % 3 else a for i, (a, b) in enumerate(zip(hyp_a, news.systems["literal"]))]
    refs, streams = news.references_for("A"), [news.reference_streams["A"]]
    assert_same_bootstrap(paired_bootstrap(hyp_a, hyp_b, refs, n_samples=300),
                          sacrebleu_paired(hyp_a, hyp_b, streams, "bs", 300, 12345, monkeypatch))
    assert_same_randomization(paired_randomization(hyp_a, hyp_b, refs, n_trials=500, method="sacrebleu"),
                              sacrebleu_paired(hyp_a, hyp_b, streams, "ar", 500, 12345, monkeypatch))


def test_identical_systems_are_never_significant(news):
    hyps, refs = news.systems["strong"], news.references_for("A")
    boot = paired_bootstrap(hyps, list(hyps), refs, n_samples=99)
    rand = paired_randomization(hyps, list(hyps), refs, n_trials=99)
    strict = paired_randomization(hyps, list(hyps), refs, n_trials=99, method="sacrebleu")
    assert rand.p_value == 1.0 and rand.ties == 99  # every shuffle ties the zero gap, and ties count
    for result in (boot, strict):
        assert result.p_value == 1 / 100  # sacrebleu's rules count only strictly larger gaps
    for result in (boot, rand, strict):
        assert result.difference == 0 and not result.significant()
        assert "identical scores" in str(result)


def _one_sentence_change(news):
    """strong, with segment 6 replaced by the degraded system's output."""
    base = news.systems["strong"]
    changed = list(base)
    changed[5] = news.systems["degraded"][5]
    assert changed[5] != base[5]
    return base, changed


def test_a_one_sentence_change_is_not_significant_by_default(news, monkeypatch):
    """With one differing segment every shuffle reproduces the observed gap (swapped or not): counting ties gives
    p = 1; sacrebleu's strict count gives the smallest possible p, 1 / (N + 1), and calls it significant."""
    base, changed = _one_sentence_change(news)
    refs = news.references_for("A")
    ours = paired_randomization(base, changed, refs, n_trials=500)
    assert ours.difference != 0 and ours.ties == 500
    assert ours.p_value == 1.0 and not ours.significant()
    assert "not significant" in str(ours) and "500 trials tie it" in str(ours)
    theirs = paired_randomization(base, changed, refs, n_trials=500, method="sacrebleu")
    assert theirs.p_value == 1 / 501 and theirs.significant()
    assert_same_randomization(theirs, sacrebleu_paired(base, changed, [news.reference_streams["A"]], "ar", 500,
                                                       12345, monkeypatch))
    assert np.array_equal(ours.trial_differences, theirs.trial_differences)  # the same shuffles, counted two ways
    assert ours.p_value_as("sacrebleu") == theirs.p_value and theirs.p_value_as("noreen") == ours.p_value


def test_few_changed_segments_give_the_exact_permutation_p_value(news):
    """Six differing segments: 2^6 assignments, enumerated. The default p-value estimates the exact permutation
    p-value (ties counted); sacrebleu's strict count falls below it by the share of tying assignments."""
    strong, degraded, refs = news.systems["strong"], news.systems["degraded"], news.references_for("A")
    changed_at = [3, 30, 57, 84, 111, 138]
    base = [degraded[i] if i in changed_at else s for i, s in enumerate(strong)]
    rows_base, rows_sys = stats_matrix(base, refs), stats_matrix(strong, refs)
    observed = abs(bleu_lab.corpus_score(strong, refs).score - bleu_lab.corpus_score(base, refs).score)
    gaps = []
    for mask in range(2 ** len(changed_at)):
        swap = np.zeros(len(strong), dtype=bool)
        swap[[i for bit, i in enumerate(changed_at) if mask >> bit & 1]] = True
        a = np.where(swap[:, None], rows_base, rows_sys).sum(0)
        b = np.where(swap[:, None], rows_sys, rows_base).sum(0)
        gaps.append(abs(scores_from_rows(a[None])[0] - scores_from_rows(b[None])[0]))
    gaps = np.array(gaps)
    exact = np.mean(gaps >= observed)
    assert np.sum(gaps == observed) >= 2  # at least: nothing swapped, everything swapped
    ours = paired_randomization(base, strong, refs, n_trials=20000)
    theirs = paired_randomization(base, strong, refs, n_trials=20000, method="sacrebleu")
    standard_error = math.sqrt(exact * (1 - exact) / 20000)
    assert abs(ours.p_value - exact) < 4 * standard_error + 1e-4
    assert abs(theirs.p_value - np.mean(gaps > observed)) < 4 * standard_error + 1e-4
    assert theirs.p_value < ours.p_value


WORDS = st.sampled_from("the a cat dog sat on mat house der die das Haus".split())
SENTENCE = st.lists(WORDS, min_size=0, max_size=9).map(" ".join)


@settings(max_examples=25, deadline=None)
@given(data=st.data(), seed=st.integers(1, 2**31))
def test_generated_corpora_randomization_equals_sacrebleu_and_ties_are_the_difference(data, seed):
    """Small generated corpora, the system differing from the baseline on a few segments (many ties): with
    method="sacrebleu" the p-value is sacrebleu's PairedTest(test_type="ar") for the same seed; the default adds
    exactly the tying trials."""
    n = data.draw(st.integers(2, 10))
    refs = data.draw(st.lists(SENTENCE.filter(str.strip), min_size=n, max_size=n))
    base = data.draw(st.lists(SENTENCE, min_size=n, max_size=n))
    changed = data.draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=min(n, 3)))
    system = [data.draw(SENTENCE) if i in changed else b for i, b in enumerate(base)]
    ours = paired_randomization(base, system, [[r] for r in refs], n_trials=200, seed=seed, method="sacrebleu")
    metric = BLEU()
    previous = os.environ.get("SACREBLEU_SEED")  # hypothesis runs many examples: no function-scoped monkeypatch
    os.environ["SACREBLEU_SEED"] = str(seed)
    try:
        _, scores = PairedTest([("baseline", base), ("system", system)], {"BLEU": metric}, [refs], test_type="ar",
                               n_samples=200)()
    finally:
        if previous is None:
            del os.environ["SACREBLEU_SEED"]
        else:
            os.environ["SACREBLEU_SEED"] = previous
    assert_same_randomization(ours, scores["BLEU"])
    default = paired_randomization(base, system, [[r] for r in refs], n_trials=200, seed=seed)
    assert default.p_value == pytest.approx(ours.p_value + default.ties / 201, abs=1e-12)
    assert default.ties >= 1  # each trial swaps none or all of <= 3 differing segments with chance >= 1/4


def test_randomization_p_value_counts_ties_or_not():
    trials = np.array([0.5, 1.0, 1.0, 2.0, 0.1])
    assert randomization_p_value(trials, 1.0) == (3 + 1) / 6
    assert randomization_p_value(trials, -1.0) == (3 + 1) / 6  # a signed gap: its size counts
    assert randomization_p_value(trials, 1.0, "sacrebleu") == (1 + 1) / 6
    assert randomization_p_value(np.zeros(9), 0.0) == 1.0
    with pytest.raises(ValueError, match="method must be one of 'noreen', 'sacrebleu'"):
        randomization_p_value(trials, 1.0, "strict")


def test_unknown_randomization_method_is_a_clear_error(news):
    with pytest.raises(ValueError, match="method must be one of 'noreen', 'sacrebleu', got 'shift'"):
        paired_randomization(news.systems["fluent"], news.systems["strong"], news.references_for("A"),
                             method="shift")


def test_result_fields_and_views(news):
    hyp_a, hyp_b, refs = news.systems["strong"], news.systems["fluent"], news.references_for("A")
    boot = paired_bootstrap(hyp_a, hyp_b, refs, n_samples=200, seed=3)
    assert boot.baseline == bleu_lab.corpus_score(hyp_a, refs) and boot.system == bleu_lab.corpus_score(hyp_b, refs)
    assert boot.difference == boot.system.score - boot.baseline.score < 0
    assert boot.significant() and boot.significant(0.01)
    assert boot.baseline_samples.shape == boot.system_samples.shape == (200,)
    assert boot.baseline_mean == pytest.approx(boot.baseline_samples.mean())
    assert boot.signature == "nrefs:1|bs:200|seed:3|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"
    text = str(boot)
    assert "Paired bootstrap resampling (200 resamples, seed 3)" in text
    low, high = boot.system_interval
    assert f"p = {boot.p_value:.4f}" in text and f"[{low:6.2f}, {high:6.2f}]" in text
    assert high - low == pytest.approx(2 * boot.system_ci) and low <= boot.system_mean <= high
    assert boot.method == "sacrebleu" and "anti-conservative" in text
    assert boot.win_rate == np.mean(boot.system_samples > boot.baseline_samples) < 0.05
    gaps = np.sort(boot.system_samples - boot.baseline_samples)  # the 95% interval of the paired gap: 5th, 195th
    assert boot.difference_interval == (gaps[5], gaps[194]) and gaps[5] < boot.difference < gaps[194] < 0
    assert "<table>" in boot._repr_html_() and boot.signature in boot._repr_html_()

    rand = paired_randomization(hyp_a, hyp_b, refs, n_trials=300, seed=3)
    assert rand.trial_differences.shape == (300,)
    assert rand.method == "noreen" and rand.ties == 0
    assert rand.p_value == (np.sum(rand.trial_differences >= abs(rand.difference)) + 1) / 301
    assert "ar:300|seed:3" in rand.signature
    assert "Paired approximate randomization (300 trials, seed 3)" in str(rand)
    assert "no trial ties it" in str(rand)
    assert "p = " in rand._repr_html_() and "tie the observed gap counted" in rand._repr_html_()


def test_same_seed_same_result_and_none_draws_fresh(news):
    hyp_a, hyp_b, refs = news.systems["degraded"], news.systems["fluent"], news.references_for("A")
    assert paired_bootstrap(hyp_a, hyp_b, refs, n_samples=100, seed=5) == paired_bootstrap(
        hyp_a, hyp_b, refs, n_samples=100, seed=5
    )
    fresh = paired_randomization(hyp_a, hyp_b, refs, n_trials=100, seed=None)
    assert 0 < fresh.p_value <= 1 and "seed:none" in fresh.signature


def test_progress_bars_go_to_stderr(news, capsys):
    paired_randomization(news.systems["strong"], news.systems["fluent"], news.references_for("A"), n_trials=50,
                         progress=True)
    captured = capsys.readouterr()
    assert captured.out == ""


def test_significant_checks_alpha(news):
    result = paired_randomization(news.systems["strong"], news.systems["fluent"], news.references_for("A"),
                                  n_trials=20)
    with pytest.raises(ValueError, match="alpha"):
        result.significant(5)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"n_samples": 0}, ValueError, "n_samples must be >= 1, got 0"),
        ({"n_samples": 10.0}, TypeError, "n_samples must be an int"),
        ({"n_samples": True}, TypeError, "n_samples must be an int"),
        ({"seed": -1}, ValueError, "seed must be >= 0"),
        ({"seed": "12345"}, TypeError, "seed must be an int"),
        ({"smoothing": "exp"}, TypeError, "unknown score option 'smoothing'; choose from tokenize"),
        ({"tokenize": "moses"}, ValueError, "unknown tokenize 'moses'"),
    ],
)
def test_bad_options_are_named(kwargs, error, message):
    with pytest.raises(error, match=message):
        paired_bootstrap(["a b"], ["a c"], [["a b"]], **kwargs)


def test_n_trials_is_checked():
    with pytest.raises(ValueError, match="n_trials must be >= 1"):
        paired_randomization(["a b"], ["a c"], [["a b"]], n_trials=0)


@pytest.mark.parametrize(
    ("baseline", "system", "references", "error", "message"),
    [
        (["a", "b"], ["a"], [["a"], ["b"]], ValueError, "baseline_hypotheses has 2 and system_hypotheses has 1"),
        (["a", "b"], ["a", "b"], [["a"]], ValueError, "baseline_hypotheses has 2 and references has 1"),
        ([], [], [], ValueError, "the corpus is empty"),
        ("a b", ["a b"], [["a b"]], TypeError, "baseline_hypotheses must be a list"),
        (["a b"], [b"a b"], [["a b"]], TypeError, "bytes"),
        (["a b"], ["a b"], ["a b"], TypeError, r"references\[0\] must be a list"),
        (["a b"], ["a b"], [[]], ValueError, r"references\[0\] is empty"),
    ],
)
def test_bad_corpora_are_named(baseline, system, references, error, message):
    with pytest.raises(error, match=message):
        paired_randomization(baseline, system, references, n_trials=10)


# --- the shift-to-null bootstrap p-value and Koehn's win rate ----------------------------------------------


def test_shift_method_keeps_the_draws_and_changes_only_the_p_value(news):
    hyp_a, hyp_b, refs = news.systems["fluent"], news.systems["degraded"], news.references_for("A")
    default = paired_bootstrap(hyp_a, hyp_b, refs, n_samples=300, seed=7)
    shift = paired_bootstrap(hyp_a, hyp_b, refs, n_samples=300, seed=7, method="shift")
    assert (shift.system_mean, shift.system_ci, shift.win_rate) == (default.system_mean, default.system_ci,
                                                                    default.win_rate)
    gaps = shift.system_samples - shift.baseline_samples
    expected = (np.sum(np.abs(gaps - gaps.mean()) >= abs(shift.difference)) + 1) / 301
    assert shift.method == "shift" and shift.p_value == expected
    assert "shifted to the null" in str(shift)


def test_sacrebleu_bootstrap_p_value_is_the_folded_upper_tail(news):
    """sacrebleu's p from the resampled scores: the default method's p, and for a gap clear of zero about half the
    two-sided shift p (degraded -> fluent: 0.070 against 0.141)."""
    hyp_a, hyp_b, refs = news.systems["degraded"], news.systems["fluent"], news.references_for("A")
    boot = paired_bootstrap(hyp_a, hyp_b, refs)
    theirs = sacrebleu_bootstrap_p_value(boot.system_samples, boot.baseline_samples, boot.difference)
    shift = shift_p_value(boot.system_samples, boot.baseline_samples, boot.difference)
    assert theirs == boot.p_value
    assert shift == paired_bootstrap(hyp_a, hyp_b, refs, method="shift").p_value
    assert 0.4 < theirs / shift < 0.6


@given(st.lists(st.floats(0.01, 20), min_size=2, max_size=60), st.floats(0, 10))
def test_for_positive_gaps_sacrebleus_p_is_the_one_sided_upper_tail(gaps, observed):
    """When every resampled gap is positive, folding changes nothing: sacrebleu counts g_i - mean(g) > |observed|,
    the upper one of the two tails the shift p-value counts."""
    gaps = np.array(gaps)
    base = np.zeros_like(gaps)
    upper = (np.sum(gaps - gaps.mean() > observed) + 1) / (len(gaps) + 1)
    assert sacrebleu_bootstrap_p_value(gaps, base, observed) == upper
    assume(not np.any(np.abs(gaps - gaps.mean()) == observed))
    assert upper <= shift_p_value(gaps, base, observed)


def test_near_a_zero_gap_sacrebleus_p_stays_below_about_042():
    """Normally spread gaps around 0: the folded gaps above their mean are P(|Z| > sqrt(2/pi)) = 0.425 of them,
    and sacrebleu's p cannot exceed that share whatever the observed gap."""
    gaps = np.random.default_rng(1).normal(0.0, 1.0, 100_000)
    ceiling = 2 * (1 - 0.5 * (1 + math.erf(math.sqrt(2 / math.pi) / math.sqrt(2))))
    assert ceiling == pytest.approx(0.4249, abs=1e-4)
    for observed in (0.0, 0.01, 0.1):
        p = sacrebleu_bootstrap_p_value(gaps, np.zeros_like(gaps), observed)
        assert p <= ceiling + 0.005
    assert sacrebleu_bootstrap_p_value(gaps, np.zeros_like(gaps), 0.0) == pytest.approx(ceiling, abs=0.005)


def test_koehn_rule_fires_in_either_direction(news):
    refs = news.references_for("A")
    better = paired_bootstrap(news.systems["fluent"], news.systems["strong"], refs, n_samples=200)
    worse = paired_bootstrap(news.systems["strong"], news.systems["fluent"], refs, n_samples=200)
    close = paired_bootstrap(news.systems["degraded"], news.systems["fluent"], refs, n_samples=200)
    assert better.win_rate == 1.0 and better.koehn_rule()
    assert worse.win_rate == 0.0 and worse.koehn_rule()
    assert 0.05 < close.win_rate < 0.95 and not close.koehn_rule() and close.koehn_rule(0.9)
    with pytest.raises(ValueError, match="level must be a number between 0.5 and 1"):
        close.koehn_rule(95)


def test_unknown_method_is_a_clear_error(news):
    with pytest.raises(ValueError, match="method must be one of 'sacrebleu', 'shift'"):
        paired_bootstrap(news.systems["fluent"], news.systems["strong"], news.references_for("A"), method="koehn")


def _coin_toss_pair(news, rng):
    """Two equally good systems: each segment's output is taken from system X or Y by a fair coin, twice."""
    x, y = news.systems["fluent"], news.systems["degraded"]
    first = [a if coin else b for a, b, coin in zip(x, y, rng.integers(2, size=len(x)))]
    second = [a if coin else b for a, b, coin in zip(x, y, rng.integers(2, size=len(x)))]
    return first, second


def test_shift_p_values_are_calibrated_for_equally_good_systems(news):
    """Under the null the shift test flags about 5% at 0.05 and its p-values spread over (0, 1]."""
    rng = np.random.default_rng(2024)
    refs = news.references_for("A")
    p_values = []
    for trial in range(120):
        first, second = _coin_toss_pair(news, rng)
        p_values.append(paired_bootstrap(first, second, refs, n_samples=300, seed=trial + 1, method="shift").p_value)
    p_values = np.array(p_values)
    false_alarms = np.mean(p_values < 0.05)
    assert 0.0 <= false_alarms <= 0.11  # 5% expected; 0.11 is beyond 2.5 standard errors of 120 trials
    assert np.mean(p_values > 0.5) > 0.35 and p_values.max() > 0.9  # spread over (0, 1], not bunched low


def test_progress_bars_count_resamples_and_reach_the_end(news, monkeypatch):
    import tqdm.auto

    bars = []

    class Recording:
        def __init__(self, iterable=None, total=None, desc="", leave=True):
            self.iterable, self.total, self.desc, self.n = iterable, total, desc, 0
            bars.append(self)

        def __iter__(self):
            for item in self.iterable:
                self.n += 1
                yield item

        def update(self, count):
            self.n += count

        def close(self):
            pass

    monkeypatch.setattr(tqdm.auto, "tqdm", Recording)
    refs = news.references_for("A")
    paired_bootstrap(news.systems["fluent"], news.systems["strong"], refs, n_samples=2500, seed=1, progress=True)
    paired_randomization(news.systems["fluent"], news.systems["strong"], refs, n_trials=2100, seed=1, progress=True)
    counted = {bar.desc: (bar.n, bar.total) for bar in bars}
    assert counted["bootstrap resamples"] == (2500, 2500)
    assert counted["randomization trials"] == (2100, 2100)
    assert counted["baseline"][0] == len(refs)  # the segment bar is exhausted, so it ends at 100%


# --- Holm's step-down adjusted p-values ---------------------------------------------------------------------------


def test_holm_adjusted_by_hand():
    # sorted: 0.005 (x4 = 0.02), 0.01 (x3 = 0.03), 0.03 (x2 = 0.06), 0.04 (x1 = 0.04, raised to 0.06 by the running
    # maximum); given back in the order of the input
    assert sig.holm_adjusted([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert sig.holm_adjusted([0.3, 0.6]) == pytest.approx([0.6, 0.6])  # 2 x 0.3, then max(0.6, 0.6)
    assert sig.holm_adjusted([0.7, 0.2, 0.9]) == pytest.approx([1.0, 0.6, 1.0])  # 3 x 0.2, then capped at 1
    assert sig.holm_adjusted(np.array([0.02, 0.02])) == [0.04, 0.04]  # ties get the same value
    assert sig.holm_adjusted([]) == [] and sig.holm_adjusted([0.03]) == [0.03]


def _step_down_rejections(p_values: list[float], alpha: float) -> set[int]:
    """Holm's procedure as his paper states it: going up the sorted p-values, reject while p_(k) <= alpha/(m-k+1)."""
    rejected = set()
    m = len(p_values)
    for k, index in enumerate(sorted(range(m), key=p_values.__getitem__)):
        if p_values[index] > alpha / (m - k):
            break
        rejected.add(index)
    return rejected


@given(st.lists(st.floats(0, 1), min_size=1, max_size=12), st.sampled_from([0.01, 0.05, 0.1]))
def test_holm_adjusted_rejects_what_the_step_down_procedure_rejects_and_at_least_bonferroni(p_values, alpha):
    adjusted = sig.holm_adjusted(p_values)
    m = len(p_values)
    assume(all(not math.isclose(a, alpha, rel_tol=1e-9) for a in adjusted))  # no float tie at the threshold
    assert {i for i, a in enumerate(adjusted) if a <= alpha} == _step_down_rejections(p_values, alpha)
    for p, a in zip(p_values, adjusted):
        assert p <= a <= min(1.0, m * p) + 1e-15  # never above Bonferroni's adjusted p-value
    by_p = sorted(range(m), key=p_values.__getitem__)
    assert all(adjusted[i] <= adjusted[j] for i, j in zip(by_p, by_p[1:]))  # monotone in p


def test_holm_adjusted_equals_statsmodels_when_installed():
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    p_values = [0.01, 0.04, 0.03, 0.005, 0.2, 0.2, 0.0001]
    expected = multitest.multipletests(p_values, method="holm")[1]
    assert sig.holm_adjusted(p_values) == pytest.approx(list(expected))


@pytest.mark.parametrize("bad, message", [
    ("0.1", "p_values must be a list"), ([0.1, 1.5], r"p_values\[1\] is 1.5"), ([True], r"p_values\[0\] is True"),
    ([float("nan")], r"p_values\[0\] is nan"), ([-0.1], "between 0 and 1"),
])
def test_holm_adjusted_refuses_what_is_no_list_of_p_values(bad, message):
    with pytest.raises((TypeError, ValueError), match=message):
        sig.holm_adjusted(bad)


# --- Holm's step-down adjustment, as compare uses it ----------------------------------------------------------------


def test_holm_adjusted_by_hand_with_ties_and_the_cap():
    # m = 4; sorted 0.01 < 0.02 < 0.03 < 0.5: 4 * 0.01 = 0.04; 3 * 0.02 = 0.06; 2 * 0.03 = 0.06; 1 * 0.5 = 0.5
    assert sig.holm_adjusted([0.03, 0.5, 0.01, 0.02]) == pytest.approx([0.06, 0.5, 0.04, 0.06])
    # the running maximum: 3 * 0.02 = 0.06 would fall below 4 * 0.02 = 0.08 of a tie before it
    assert sig.holm_adjusted([0.02, 0.02, 0.02, 0.9]) == pytest.approx([0.08, 0.08, 0.08, 0.9])
    # capped at 1, and one p-value is its own adjustment
    assert sig.holm_adjusted([0.4, 0.6, 0.3]) == pytest.approx([0.9, 0.9, 0.9])
    assert sig.holm_adjusted([0.7]) == [0.7]
    assert sig.holm_adjusted([]) == []


@pytest.mark.parametrize("bad", [[0.1, 1.5], [-0.01], [float("nan")], ["0.1"], [True], 0.3])
def test_holm_adjusted_refuses_what_is_not_a_p_value(bad):
    with pytest.raises((ValueError, TypeError), match="p_values"):
        sig.holm_adjusted(bad)


# --- chrF and TER: the same paired tests over their per-segment statistics, equal to sacrebleu's --------------------


def _close_pair():
    """fluent against fluent with 4 segments taken from literal: a gap the tests find neither certain nor absent."""
    corpus = load_corpus()
    fluent, literal = corpus.systems["fluent"], corpus.systems["literal"]
    mixed = [literal[i] if i % 40 == 0 else h for i, h in enumerate(fluent)]
    return fluent, mixed, [corpus.references_for("A")[i][0] for i in range(len(fluent))], \
        [seg[0] for seg in corpus.references_for("B")]


@pytest.mark.parametrize("metric", ["chrF", "TER"])
@pytest.mark.parametrize("n_refs", [1, 2])
def test_chrf_and_ter_paired_tests_equal_sacrebleus(metric, n_refs, monkeypatch):
    from sacrebleu.metrics import CHRF, TER

    base, system, ref_a, ref_b = _close_pair()
    streams = [ref_a, ref_b][:n_refs]
    refs = [list(seg) for seg in zip(*streams)]
    peer = CHRF() if metric == "chrF" else TER()
    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    for test_type, n in (("bs", 500), ("ar", 700)):
        _, scores = PairedTest([("baseline", base), ("system", system)], {metric: peer}, streams,
                               test_type=test_type, n_samples=n)()
        theirs = next(v for k, v in scores.items() if k != "System")
        if test_type == "bs":
            ours = sig.paired_bootstrap(base, system, refs, n_samples=n, metric=metric)
            assert_same_bootstrap(ours, theirs)
        else:
            ours = sig.paired_randomization(base, system, refs, n_trials=n, metric=metric, method="sacrebleu")
            assert_same_randomization(ours, theirs)
        assert 0.01 < ours.p_value < 0.9  # a p the draws decide, not the floor 1 / (n + 1)
        assert ours.metric == ("chrF2" if metric == "chrF" else "TER") and ours.metric in str(ours)
    assert ours.signature.startswith(f"nrefs:{n_refs}|ar:700|seed:12345|")


def test_one_paired_test_over_any_statistic_bleu_is_not_a_special_case():
    """paired_rows gives each metric's rows and scorer; the BLEU rows go through the same test functions."""
    base, system, ref_a, _ = _close_pair()
    refs = [[r] for r in ref_a]
    for metric in sig.METRICS:
        rows = sig.paired_rows(metric, base, system, refs)
        assert rows.base_rows.shape == rows.sys_rows.shape and len(rows.base_rows) == len(base)
        assert rows.scores(rows.base_rows.sum(0, keepdims=True))[0] == pytest.approx(rows.baseline.score)
        direct = sig.bootstrap_from_rows(rows, n_samples=200)
        assert direct.p_value == sig.paired_bootstrap(base, system, refs, n_samples=200, metric=metric).p_value
    with pytest.raises(ValueError, match="metric must be one of 'BLEU', 'chrF', 'TER'"):
        sig.paired_rows("COMET", base, system, refs)
    with pytest.raises(TypeError, match="TER takes no options"):
        sig.paired_rows("TER", base, system, refs, lowercase=True)


def test_the_tests_products_run_on_one_blas_thread_and_restore_it():
    """The paired tests' products run on one BLAS thread (a second one spins on a busy machine: bench_compare.py);
    numpy's own setting comes back after them."""
    from threadpoolctl import threadpool_info

    from bleu_lab.metrics.significance import one_blas_thread

    def blas_threads() -> list[int]:
        return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]

    before = blas_threads()
    if not before:
        pytest.skip("numpy here reports no BLAS library to threadpoolctl")
    with one_blas_thread():
        assert blas_threads() == [1] * len(before)
    assert blas_threads() == before
