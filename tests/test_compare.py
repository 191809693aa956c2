"""bleu_lab.compare: exact against sacrebleu (BLEU, chrF, sentence BLEU) and compare-mt 0.2.10 (word accuracy by
frequency, length ratio, length-difference counts, salient n-grams), on data/news and on WMT21 (../shared/mtdata)."""

from __future__ import annotations

import html
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st

from bleu_lab.compare import compare_systems
from bleu_lab.compare.bucketers import FREQUENCY, LENGTH_DIFFERENCE, SENTENCE_BLEU, word_frequencies
from bleu_lab.compare.reporters import NUM, TER_NOTE, latex_escape
from bleu_lab.compare.scorers import ngram_counts, salient_ngrams, word_counts
from bleu_lab.data import read_lines, references_per_segment
from bleu_lab.tokenization import tokenize_13a

NEWS = Path(__file__).resolve().parent.parent / "data" / "news"
WMT_SYSTEMS = {
    "en-de": ("ACD", ["VolcTrans-GLAT", "Facebook-AI", "UEdin", "Online-B"], "13a"),
    "de-en": ("AB", ["VolcTrans-GLAT", "Facebook-AI", "happypoet"], "13a"),
    "en-zh": ("AB", ["WeChat-AI", "NiuTrans", "Online-G"], "zh"),
}
FAST = {"n_samples": 200, "n_trials": 500}


def news(name: str) -> list[str]:
    return read_lines(NEWS / name)


@pytest.fixture(scope="module")
def news_comparison():
    systems = {n: news(f"sys.{n}.de") for n in ("strong", "fluent", "literal")}
    return compare_systems(systems, news("ref.A.de"), sources=news("src.en"), **FAST)


# --- exact against sacrebleu -------------------------------------------------------------------------------------


def check_against_sacrebleu(comparison, systems: dict[str, list[str]], streams: list[list[str]], tokenize: str):
    bleu = sacrebleu.BLEU(tokenize=tokenize)
    chrf = sacrebleu.CHRF()
    for s in comparison.systems:
        expected = bleu.corpus_score(systems[s.name], streams)
        assert abs(s.bleu.score - expected.score) <= 1e-9
        assert s.bleu.signature == str(bleu.get_signature())
        assert s.length_ratio == pytest.approx(expected.sys_len / expected.ref_len, abs=1e-12)
        assert abs(s.chrf.score - chrf.corpus_score(systems[s.name], streams).score) <= 1e-9
    sentence = sacrebleu.BLEU(tokenize=tokenize, effective_order=True)
    name = comparison.names[-1]
    for i in range(0, len(comparison), max(1, len(comparison) // 40)):
        expected = sentence.sentence_score(systems[name][i], [stream[i] for stream in streams]).score
        assert abs(comparison.sentence_bleu[name][i] - expected) <= 1e-9


def test_news_scores_equal_sacrebleu(news_comparison):
    systems = {n: news(f"sys.{n}.de") for n in ("strong", "fluent", "literal")}
    check_against_sacrebleu(news_comparison, systems, [news("ref.A.de")], "13a")


def test_bucket_bleu_is_sacrebleu_on_the_bucket_segments(news_comparison):
    c = news_comparison
    bleu = sacrebleu.BLEU()
    for name in c.names:  # a sentence-BLEU band is defined by the score: counts only (as compare-mt shows them)
        scores = c.sentence_bleu_buckets.scores[name]
        assert [s.count for s in scores] == [sum(SENTENCE_BLEU.bucket(v) == b for v in c.sentence_bleu[name])
                                             for b in range(len(scores))]
        assert c.sentence_bleu_buckets.counts_only and all(math.isnan(s.bleu) for s in scores)
    for table in (c.length_buckets, c.length_difference_buckets, c.length_difference_merged):
        for name in c.names:
            scores = table.scores[name]
            assert sum(s.count for s in scores) == len(c)
            for b, s in enumerate(scores):
                members = [i for i in range(len(c)) if c.bucket_of[table.bucketer.name][name][i] == b]
                assert s.count == len(members)
                if members:
                    expected = bleu.corpus_score([c.outputs[name][i] for i in members],
                                                 [[c.references[i][0] for i in members]]).score
                    assert abs(s.bleu - expected) <= 1e-9
                    assert s.interval[0] <= s.interval[1]
                else:
                    assert math.isnan(s.bleu)


def test_pairs_are_the_significance_module(news_comparison):
    from bleu_lab.metrics.significance import paired_bootstrap, paired_randomization

    c = news_comparison
    pair = c.pairs[0]
    refs = c.references
    boot = paired_bootstrap(c.outputs[pair.baseline], c.outputs[pair.system], refs, n_samples=200, method="shift")
    ar = paired_randomization(c.outputs[pair.baseline], c.outputs[pair.system], refs, n_trials=500)
    assert pair.bootstrap.p_value == boot.p_value and pair.randomization.p_value == ar.p_value
    assert pair.bootstrap.system_interval == boot.system_interval
    assert pair.difference == pytest.approx(c.system(pair.system).bleu.score - c.system(pair.baseline).bleu.score)


def test_examples_are_the_largest_sentence_bleu_gaps(news_comparison):
    c = news_comparison
    for name in c.names[1:]:
        gaps = [float(c.sentence_bleu[name][i] - c.sentence_bleu[c.baseline][i]) for i in range(len(c))]
        mine = [e for e in c.examples if e.system == name]
        assert len(mine) == 10
        assert [abs(e.gap) for e in mine] == sorted((abs(g) for g in gaps if g), reverse=True)[:10]
        assert all(e.gap == pytest.approx(gaps[e.segment]) for e in mine)


# --- exact against compare-mt (pre-tokenized input, tokenize="none") ----------------------------------------------


def run_compare_mt(tmp_path: Path, ref: list[str], outs: list[list[str]]) -> str:
    pytest.importorskip("compare_mt", reason="compare-mt (and six) are in the test extras: pip install -e '.[test]'")
    files = []
    for k, lines in enumerate([ref, *outs]):
        path = tmp_path / f"f{k}.txt"
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        files.append(str(path))
    cmd = [sys.executable, "-m", "compare_mt.compare_mt_main", *files, "--compare_sentence_examples", "--seed", "1"]
    return subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=tmp_path, timeout=600).stdout


def printed_table(text: str, header: str) -> dict[str, list[str]]:
    """compare-mt's printed table after the line ``header``: {row label: cells}."""
    lines = text.split(header, 1)[1].split("\n\n", 1)[0].strip().split("\n")[1:]
    return {cells[0]: cells[1:] for cells in (line.split("\t") for line in lines)}


def check_against_compare_mt(tmp_path: Path, ref: list[str], systems: dict[str, list[str]], comparison) -> None:
    """Word F-measure per frequency bucket, length ratio and length-difference counts to compare-mt's 4 decimals."""
    names = list(systems)
    text = run_compare_mt(tmp_path, ref, [systems[n] for n in names])
    word = printed_table(text, "--- word fmeas by frequency bucket")
    assert list(word) == FREQUENCY.labels == [r["bucket"] for r in comparison.to_dict()["word_accuracy"]]
    for b, label in enumerate(FREQUENCY.labels):
        assert word[label] == [f"{comparison.word_accuracy.counts[n].fmeasure(b):.4f}" for n in names]
    ratios = re.search(r"\nlength ratio\t(.*)\n", text).group(1).split("\t")
    assert [r.split()[0] for r in ratios] == [f"{comparison.system(n).length_ratio:.4f}" for n in names]
    diff = printed_table(text, "--- bucket type: len(output)-len(reference), statistic type: count")
    assert list(diff) == LENGTH_DIFFERENCE.labels
    for b, label in enumerate(LENGTH_DIFFERENCE.labels):
        assert diff[label] == [str(comparison.length_difference_buckets.scores[n][b].count) for n in names]


def check_salient_against_compare_mt(ref_tokens, out_tokens: dict, comparison) -> None:
    """Every listed n-gram's score is compare-mt's; the lists hold compare-mt's top scores (ties ordered apart)."""
    pytest.importorskip("compare_mt", reason="compare-mt (and six) are in the test extras: pip install -e '.[test]'")
    from compare_mt import ngram_utils, stat_utils

    base = comparison.baseline
    _, base_match, _, _ = ngram_utils.compare_ngrams(ref_tokens, out_tokens[base])
    for pair in comparison.salient_ngrams:
        _, match, _, _ = ngram_utils.compare_ngrams(ref_tokens, out_tokens[pair.system])
        theirs = stat_utils.extract_salient_features(match, base_match, alpha=1.0)
        ranked = sorted(theirs.values(), reverse=True)
        assert [g.score for g in pair.system_ngrams] == ranked[:50]
        assert [g.score for g in pair.baseline_ngrams] == sorted(ranked)[:50]
        for g in pair.system_ngrams + pair.baseline_ngrams:
            assert g.score == theirs[g.ngram]
            assert (g.count1, g.count2) == (match[g.ngram], base_match[g.ngram])


def pretokenized(lines: list[str], tokenizer=tokenize_13a) -> list[str]:
    return [tokenizer(line) for line in lines]


def test_news_equals_compare_mt(tmp_path):
    ref = pretokenized(news("ref.A.de"))
    systems = {n: pretokenized(news(f"sys.{n}.de")) for n in ("strong", "fluent", "literal")}
    c = compare_systems(systems, ref, tokenize="none", **FAST)
    check_against_compare_mt(tmp_path, ref, systems, c)
    check_salient_against_compare_mt([r.split(" ") for r in ref], {n: [h.split(" ") for h in s]
                                                                   for n, s in systems.items()}, c)


def load_wmt(mtdata: Path, pair: str):
    refs, names, tok = WMT_SYSTEMS[pair]
    tgt = pair.split("-")[1]
    folder = mtdata / pair
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent")
    systems = {n: read_lines(folder / f"newstest2021.{pair}.hyp.{n}.{tgt}") for n in names}
    streams = [read_lines(folder / f"newstest2021.{pair}.ref.{r}.{tgt}") for r in refs]
    return systems, streams, tok


@pytest.mark.parametrize("pair", sorted(WMT_SYSTEMS))
def test_wmt21_scores_equal_sacrebleu(mtdata, pair):
    systems, streams, tok = load_wmt(mtdata, pair)
    c = compare_systems(systems, references_per_segment(streams), tokenize=tok, **FAST)
    check_against_sacrebleu(c, systems, streams, tok)
    assert c.signature.startswith(f"nrefs:{len(streams)}|")


@pytest.mark.parametrize("pair", sorted(WMT_SYSTEMS))
def test_wmt21_equals_compare_mt(mtdata, pair, tmp_path):
    systems, streams, tok = load_wmt(mtdata, pair)
    tokenizer = sacrebleu.BLEU(tokenize=tok).tokenizer
    ref = pretokenized(streams[0], tokenizer)
    pretok = {n: pretokenized(s, tokenizer) for n, s in systems.items()}
    c = compare_systems(pretok, ref, tokenize="none", **FAST)
    check_against_compare_mt(tmp_path, ref, pretok, c)
    check_salient_against_compare_mt([r.split(" ") for r in ref], {n: [h.split(" ") for h in s]
                                                                   for n, s in pretok.items()}, c)


words = st.lists(st.sampled_from("a b c d e f g h".split()), min_size=1, max_size=12)


@settings(max_examples=150)
@given(st.lists(st.tuples(words, words, words), min_size=1, max_size=8))
def test_word_accuracy_and_ngrams_equal_compare_mt_on_generated_corpora(corpus):
    pytest.importorskip("compare_mt", reason="compare-mt (and six) are in the test extras: pip install -e '.[test]'")
    from compare_mt import bucketers, ngram_utils, stat_utils

    ref, out1, out2 = ([list(seg[k]) for seg in corpus] for k in range(3))
    freq = word_frequencies(ref)
    n = len(FREQUENCY.cutoffs) + 1
    theirs, *_ = bucketers.FreqWordBucketer(freq_data=ref).calc_statistics(ref, [out1, out2])
    for k, out in enumerate((out1, out2)):
        mine = word_counts(ref, out, lambda w: FREQUENCY.bucket(freq.get(w, 0)), n)
        for b in range(n):
            matches, ref_total, out_total, rec, prec, fmeas = theirs[k][b]
            assert (mine.matches[b], mine.reference[b], mine.output[b]) == (matches, ref_total, out_total)
            assert (mine.recall(b), mine.precision(b), mine.fmeasure(b)) == (rec, prec, fmeas)
    for kind, index in (("match", 1), ("over", 2), ("under", 3)):
        c1, c2 = ngram_counts(ref, out1)[kind], ngram_counts(ref, out2)[kind]
        assert ngram_counts(ref, out1, kinds=(kind,)) == {kind: c1}  # a report counts only the kind it shows
        t1, t2 = ngram_utils.compare_ngrams(ref, out1)[index], ngram_utils.compare_ngrams(ref, out2)[index]
        assert {g: v for g, v in t1.items() if v} == dict(c1)
        expected = stat_utils.extract_salient_features(t1, t2, alpha=0.5)
        first, second = salient_ngrams(c1, c2, alpha=0.5, top=10**6)
        assert {g.ngram: g.score for g in first} == {g: s for g, s in expected.items() if t1[g] or t2[g]}


def test_ngram_counts_names_an_unknown_kind():
    with pytest.raises(ValueError, match=r"kinds must be among match, over, under, got \['overs'\]"):
        ngram_counts([["a"]], [["a"]], kinds=("match", "overs"))


# --- exports ----------------------------------------------------------------------------------------------------


def test_json_has_the_issue_keys(news_comparison, tmp_path):
    data = json.loads(news_comparison.to_json(tmp_path / "r.json"))
    for key in ("systems", "pairs", "word_accuracy", "length_buckets", "sentence_bleu_buckets", "salient_ngrams",
                "examples", "signature"):
        assert key in data
    assert set(data["systems"][0]) >= {"name", "bleu", "chrf", "length_ratio"}
    assert set(data["word_accuracy"][0]) >= {"bucket", "fmeasure"}
    assert set(data["word_accuracy"][0]["fmeasure"]) == {"strong", "fluent", "literal"}
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8")) == data
    assert len(data["pairs"]) == 2 and data["pairs"][0]["baseline"] == "strong"


def test_csv_and_latex(news_comparison, tmp_path):
    files = news_comparison.to_csv(tmp_path / "csv")
    assert {f.name for f in files} >= {"scores.csv", "word_accuracy.csv", "length_buckets.csv", "pairs.csv"}
    scores = (tmp_path / "csv" / "scores.csv").read_text(encoding="utf-8").splitlines()
    assert scores[0].startswith("name,bleu,chrf,length_ratio") and len(scores) == 4
    latex = news_comparison.to_latex()
    assert latex.startswith("\\begin{tabular}") and "\\end{tabular}" in latex
    assert f"{news_comparison.system('fluent').bleu.score:.2f}" in latex


def test_html_is_standalone_and_escaped():
    systems = {"a<b": ["<script>x</script> & y", "z"], "c": ["x y", "z"]}
    c = compare_systems(systems, [["x & y"], ["z"]], **FAST)
    page = c.to_html()
    assert "<script>" not in page and "&lt;" in page
    assert not re.search(r"(src|href)=['\"]?(https?:)?//", page)
    assert "a&lt;b" in c._repr_html_()


def test_frequency_file(tmp_path):
    path = tmp_path / "freq.tsv"
    path.write_text("the\t5000\ncat\t3\n", encoding="utf-8")
    c = compare_systems([["the cat"], ["the dog"]], ["the cat"], frequencies=path, **FAST)
    rows = {r["bucket"]: r for r in c.to_dict()["word_accuracy"]}
    assert rows[">=1000"]["matches"] == {"sys1": 1, "sys2": 1} and rows["3"]["matches"] == {"sys1": 1, "sys2": 0}
    (tmp_path / "bad.tsv").write_text("the 5000\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 1"):
        compare_systems([["the cat"]], ["the cat"], frequencies=tmp_path / "bad.tsv", **FAST)


@pytest.mark.parametrize("kwargs,error,message", [
    ({"systems": {"a": ["x"], "b": ["x", "y"]}}, ValueError, "'b' has 2 lines but 'a' has 1"),
    ({"systems": [["x"]], "names": ["a", "b"]}, ValueError, "names has 2 entries"),
    ({"systems": [["x"], ["y"]], "names": ["a", "a"]}, ValueError, "two systems are called 'a'"),
    ({"systems": {"a": ["x"]}, "baseline": "z"}, ValueError, "baseline 'z' is not one of"),
    ({"systems": {"a": ["x"]}, "references": ["x", "y"]}, ValueError, "references has 2 segments"),
    ({"systems": ["x", "y"]}, TypeError, "wrap it"),
    ({"systems": {}}, ValueError, "systems is empty"),
    ({"systems": {"a": ["x"]}, "tokenize": "moses"}, ValueError, "tokenize"),
    ({"systems": {"a": [3]}}, TypeError, "systems\\['a'\\]"),
    ({"systems": {"a": ["x"]}, "alpha": 0}, ValueError, "alpha"),
])
def test_bad_input_gets_a_clear_error(kwargs, error, message):
    args = {"references": ["x"], **FAST, **kwargs}
    with pytest.raises(error, match=message):
        compare_systems(**args)


def test_csv_cells_a_spreadsheet_would_run_are_written_as_text(tmp_path):
    """OWASP's CSV-injection rule: a system output starting with = + - @ is prefixed with ' in examples.csv."""
    import csv

    attack = '=HYPERLINK("http://example.invalid","click")'
    c = compare_systems({"base": ["the cat sat", "a b"], "new": [attack, "@SUM(1+1) b"]},
                        [["the cat sat"], ["a b"]], **FAST)
    c.to_csv(tmp_path / "csv")
    with (tmp_path / "csv" / "examples.csv").open(encoding="utf-8", newline="") as f:
        cells = [cell for row in csv.reader(f) for cell in row]
    assert "'" + attack in cells and attack not in cells
    assert not any(cell.startswith(("=", "+", "@")) for cell in cells)
    with (tmp_path / "csv" / "scores.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert all(float(r["bleu"]) >= 0 for r in rows)  # numbers stay numbers


# --- every pair, figures, drill-down, legend (issue 30) ---------------------------------------------------------


def test_every_pair_is_tested_with_both_tests_and_bonferroni(news_comparison, tmp_path):
    """All pairs, not only against the baseline; each is the significance module's result on that pair; with three
    systems Bonferroni (lesson 9) reads each at 0.05 / 3, in the JSON, the CSV and the HTML."""
    import csv

    from bleu_lab.metrics.significance import bonferroni_alpha, paired_bootstrap, paired_randomization

    c = news_comparison
    assert [(p.system, p.baseline) for p in c.all_pairs] == [
        ("fluent", "strong"), ("literal", "strong"), ("literal", "fluent")]
    assert c.pairs == c.all_pairs[:2]
    for pair in c.all_pairs:
        base, system = c.outputs[pair.baseline], c.outputs[pair.system]
        ar = paired_randomization(base, system, c.references, n_trials=500)
        boot = paired_bootstrap(base, system, c.references, n_samples=200, method="shift")
        assert (pair.randomization.p_value, pair.bootstrap.p_value) == (ar.p_value, boot.p_value)
        assert pair.difference == pytest.approx(boot.difference)
    data = c.to_dict()
    assert data["family_wise"] == {"method": "Bonferroni", "alpha": 0.05, "comparisons": 3,
                                   "threshold": bonferroni_alpha(0.05, 3)}
    assert bonferroni_alpha(0.05, 3) == 0.05 / 3
    for row, pair in zip(data["all_pairs"], c.all_pairs):
        assert row["ar_significant_bonferroni"] == (pair.randomization.p_value < 0.05 / 3 and pair.difference != 0)
        assert row["bootstrap_significant_bonferroni"] == (pair.bootstrap.p_value < 0.05 / 3
                                                           and pair.difference != 0)
        assert row["ar_significant"] == (pair.randomization.p_value < 0.05)
    c.to_csv(tmp_path)
    with (tmp_path / "all_pairs.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [(r["system"], r["baseline"]) for r in rows] == [(p.system, p.baseline) for p in c.all_pairs]
    assert float(rows[2]["difference_interval_low"]) <= float(rows[2]["difference"])
    assert {float(r["bonferroni_threshold"]) for r in rows} == {0.05 / 3}
    summary = str(c)
    assert "every pair, Bonferroni: significant when p < 0.05 / 3 = 0.0167" in summary
    assert "literal - fluent" in summary
    page = c.to_html()
    assert "Every pair of systems" in page and "literal − fluent" in page
    assert "Bonferroni correction for 3 pairs tested together (lesson 9)" in page
    latex = c.to_latex()
    every = latex[latex.index("Pair & $\\Delta$BLEU"):]  # the second table: every pair
    for pair in c.all_pairs:
        threshold = 0.05 / 3
        marks = " & ".join("yes" if test.significant(level) else "no" for level in (0.05, threshold)
                           for test in (pair.randomization, pair.bootstrap))
        row = (f"{pair.system} $-$ {pair.baseline} & {pair.difference:+.2f} & "
               "[{:+.2f}, {:+.2f}] & ".format(*pair.bootstrap.difference_interval)
               + f"{pair.randomization.p_value:.4f} & {pair.bootstrap.p_value:.4f} & {marks} & "
               f"{pair.randomization_holm:.4f} & {pair.bootstrap_holm:.4f} \\\\")
        assert row in every.splitlines()
    assert "AR $p<0.0167$ (Bonf.)" in every and "Bonferroni's correction for 3 pairs tested together" in every


def test_two_systems_have_one_pair_and_nothing_to_correct():
    c = compare_systems({n: news(f"sys.{n}.de")[:40] for n in ("strong", "fluent")}, news("ref.A.de")[:40], **FAST)
    assert len(c.all_pairs) == 1 and c.to_dict()["family_wise"] is None
    assert c.to_dict()["all_pairs"][0]["ar_significant_bonferroni"] is None
    assert "One pair: nothing to correct" in c._repr_html_() and "(Bonferroni)" not in c._repr_html_()
    assert c.to_latex().count("\\begin{tabular}") == 1  # the one pair is the scores table's row


def test_names_reach_the_figures_as_typed_and_one_system_has_no_pair_table():
    """matplotlib would read $...$ as math and drop a legend name starting with _; HTML is escaped."""
    names = ["$x$", "_base", "a<b>&", "x" * 40]
    c = compare_systems({n: ["the cat sat", "a dog", ""] for n in names}, [["the cat sat on"], ["a dog"], ["x"]],
                        **FAST)
    legend = re.findall(r">([^<>]+)</text>", re.findall(r"<svg.*?</svg>", c.to_html(), flags=re.S)[0])
    assert ["$x$", "_base", "a&lt;b&gt;&amp;", "x" * 17 + "…"] == legend[-4:]
    single = compare_systems({"only": ["the cat"]}, [["the cat"]], **FAST)
    assert "Every pair of systems" not in single.to_html() and single.to_html().count("<svg ") == 4


def test_the_figures_are_inline_svg_with_a_title_and_a_text_alternative(news_comparison):
    from bleu_lab.compare.reporters import figures_html

    c = news_comparison
    html_text = figures_html(c)
    svgs = re.findall(r"<svg\b.*?</svg>", html_text, flags=re.S)
    titles = ["BLEU by reference length", "BLEU by length difference", "Word F-measure by frequency bucket",
              "Sentence-BLEU distribution"]
    assert len(svgs) == 4
    for svg, title in zip(svgs, titles):
        assert re.match(rf'<svg [^>]*role="img" aria-label="{title}"', svg)
        assert f"<title>{title}</title><desc>" in svg
        assert "<script" not in svg and "<style" not in svg and "<image" not in svg
        assert not re.search(r"(href|src)=\"(?!#)", svg)  # only references inside the figure
    ids = re.findall(r' id="([^"]+)"', html_text)
    assert len(ids) == len(set(ids))  # several figures on one page
    for ref in re.findall(r'(?:url\(#|href="#)([^)"]+)', html_text):
        assert ref in ids
    # the text alternative carries the numbers: each system's BLEU and interval in the first length bucket
    desc = re.search(r"<desc>(.*?)</desc>", svgs[0], flags=re.S).group(1)
    first = c.length_buckets.scores["fluent"][1]
    assert f"[10,20): {first.bleu:.1f} [{first.interval[0]:.1f}, {first.interval[1]:.1f}]" in desc
    for view in (c._repr_html_(), c.to_html()):
        assert view.count("<svg ") == 4


def test_the_app_and_the_notebook_view_show_the_figures(news_comparison):
    from bleu_lab.compare.reporters import analyses_html

    assert analyses_html(news_comparison).count('role="img"') == 4


def test_each_bucket_row_opens_its_segments_best_and_worst_first(news_comparison):
    from bleu_lab.compare.reporters import bucket_html, bucket_segments

    c = news_comparison
    for table in (c.length_buckets, c.length_difference_buckets, c.sentence_bleu_buckets):
        page = bucket_html(table, "t", c)
        non_empty = [b for b in range(len(table.labels)) if any(s[b].count for s in table.scores.values())]
        assert page.count("<details>") == len(non_empty)
        for b in non_empty:
            for name in c.names:
                members = [i for i in range(len(c)) if c.bucket_of[table.bucketer.name][name][i] == b]
                assert len(members) == table.scores[name][b].count
                best, worst = bucket_segments(c, table, b, name)
                scores = c.sentence_bleu[name]
                ranked = sorted(members, key=lambda i: (-scores[i], i))
                assert best == ranked[:2]
                assert worst == sorted(ranked[2:], key=lambda i: (scores[i], i))[:2]
                assert not set(best) & set(worst)
                for i in best + worst:
                    assert f"<b>segment {i + 1}</b> · sentence BLEU {scores[i]:.1f}" in page
    assert "<details>" not in bucket_html(c.length_buckets, "t")  # without the comparison: the plain table


def test_the_legend_comes_first_and_the_salient_tables_of_a_pair_share_a_row(news_comparison):
    c = news_comparison
    view = c._repr_html_()
    assert view.index("How to read this report") < view.index("<caption") < view.index("<svg ")
    assert "✂ clipped away" in view and "✗ in no reference" in view
    legend = view[view.index("How to read this report"):view.index("<caption")]
    for style in ("background:#deebf7", "background:#9ecae1", "background:#2171b5", "background:#08519c"):
        assert style in legend  # the chips' highlight colours, shown on sample chips
    rows = re.findall(r"<div class='compare-salient-pair'.*?(?=<div class='compare-salient-pair'|<div style='font-w)",
                      view, flags=re.S)
    assert len(rows) == len(c.salient_ngrams) == 2
    for row, pair in zip(rows, c.salient_ngrams):
        assert "grid-template-columns:repeat(2" in row
        assert f"matched more by {pair.system} (" in row and f"matched more by {pair.baseline} (" in row


@pytest.mark.parametrize("tokenize,note", [("zh", "every Chinese character is a token"),
                                           ("char", "every character is a token"), ("13a", None)])
def test_under_a_character_tokenizer_a_word_is_a_character(tokenize, note):
    c = compare_systems({"a": ["我们去了北京。", "很好"], "b": ["我去北京。", "好"]}, ["我们去了北京。", "很好"],
                        tokenize=tokenize, **FAST)
    for view in (c._repr_html_(), c.to_html()):
        if note is None:
            assert "is a character" not in view
        else:
            assert note in view and "so a “word” in this report" in view and "is a character" in view


def test_bonferroni_alpha_is_checked():
    from bleu_lab.metrics.significance import bonferroni_alpha

    assert bonferroni_alpha(0.05, 10) == 0.005
    with pytest.raises(ValueError, match="comparisons"):
        bonferroni_alpha(0.05, 0)
    with pytest.raises(ValueError, match="alpha"):
        bonferroni_alpha(5, 2)


def test_the_readme_describes_the_csv_files_as_written(news_comparison, tmp_path):
    """Every CSV file `--csv` writes is named in the README, and every interval column (``_low``/``_high``) it
    names is a column of the file it says."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    start = readme.index("`--csv DIR`")
    paragraph = readme[start:readme.index("\n\n", start)]
    files = news_comparison.to_csv(tmp_path)
    headers = {f.name: f.read_text(encoding="utf-8").splitlines()[0].split(",") for f in files}
    assert all(f"`{name}`" in paragraph for name in headers)
    for name in ("pairs.csv", "all_pairs.csv"):
        for interval in ("system_interval", "baseline_interval", "difference_interval"):
            assert {f"{interval}_low", f"{interval}_high"} <= set(headers[name])
            assert not any(column == interval for column in headers[name])  # no [low, high] cell left
    assert "`system_interval_low`, `system_interval_high`" in paragraph and "`difference_interval_*`" in paragraph
    assert {"bonferroni_threshold", "ar_significant_bonferroni"} <= set(headers["all_pairs.csv"])
    for name in ("length_buckets.csv", "length_difference_buckets.csv"):
        assert headers[name] == ["bucket", "system", "count", "bleu", "interval_low", "interval_high"]
    assert headers["sentence_bleu_buckets.csv"] == ["bucket", "system", "count"]  # a band is defined by the score
    assert "`interval_low`,\n`interval_high`" in paragraph or "`interval_low`, `interval_high`" in paragraph


# --- many systems: Holm beside Bonferroni, draws that can reach the threshold, clusters ------------------------------


def test_holm_is_the_adjustment_of_every_pairs_p_in_every_output(news_comparison, tmp_path):
    import csv

    from bleu_lab.metrics.significance import holm_adjusted

    c = news_comparison
    ar = holm_adjusted([p.randomization.p_value for p in c.all_pairs])
    bs = holm_adjusted([p.bootstrap.p_value for p in c.all_pairs])
    assert [(p.randomization_holm, p.bootstrap_holm) for p in c.all_pairs] == list(zip(ar, bs))
    rows = c.to_dict()["all_pairs"]
    assert [(r["ar_p_value_holm"], r["bootstrap_p_value_holm"]) for r in rows] == list(zip(ar, bs))
    assert [r["ar_significant_holm"] for r in rows] == [a < 0.05 and p.difference != 0 for a, p in zip(ar, c.all_pairs)]
    c.to_csv(tmp_path)
    with (tmp_path / "all_pairs.csv").open(encoding="utf-8", newline="") as f:
        assert [float(r["bootstrap_p_value_holm"]) for r in csv.DictReader(f)] == pytest.approx(bs)
    page, text = c.to_html(), str(c)
    assert "p(AR), Holm-adjusted" in page and "Holm 1979" in page and "Holm-AR Holm-BS" in text
    for p in c.all_pairs:
        assert f"{p.randomization_holm:.4f}  {p.bootstrap_holm:.4f}" in text
        assert f"<td style='{NUM}'>{p.bootstrap_holm:.4f}</td>" in page


def test_chrfs_pairs_are_a_family_of_their_own_holm_adjusted_in_every_output(news_comparison, tmp_path):
    """chrF's p of every pair get Holm's adjustment over chrF's own pairs (BLEU's are another family), checked against
    a hand computation of the step-down on the first pair's family."""
    import csv

    from bleu_lab.metrics.significance import holm_adjusted

    c = news_comparison
    for test in ("randomization", "bootstrap"):
        raw = [getattr(p, f"chrf_{test}").p_value for p in c.all_pairs]
        order = sorted(range(len(raw)), key=raw.__getitem__)
        by_hand, running = [0.0] * len(raw), 0.0
        for rank, k in enumerate(order):  # the smallest p times m, the next times m - 1, never below the one before
            running = max(running, min(1.0, raw[k] * (len(raw) - rank)))
            by_hand[k] = running
        assert [getattr(p, f"chrf_{test}_holm") for p in c.all_pairs] == pytest.approx(by_hand, abs=1e-12)
        assert holm_adjusted(raw) == [getattr(p, f"chrf_{test}_holm") for p in c.all_pairs]
    rows = c.to_dict()["all_pairs"]
    assert [r["chrf_bootstrap_p_value_holm"] for r in rows] == [p.chrf_bootstrap_holm for p in c.all_pairs]
    c.to_csv(tmp_path)
    with (tmp_path / "all_pairs.csv").open(encoding="utf-8", newline="") as f:
        assert [float(r["chrf_ar_p_value_holm"]) for r in csv.DictReader(f)] == pytest.approx(
            [p.chrf_randomization_holm for p in c.all_pairs])
    page = c.to_html()
    assert "chrF p(BS), Holm-adjusted" in page and "Holm's adjustment over the pairs' chrF tests" in page
    for p in c.all_pairs:
        assert f"<td style='{NUM}'>{p.chrf_bootstrap_holm:.4f}</td>" in page


def test_five_systems_with_few_draws_are_raised_so_a_large_gap_can_be_significant(tmp_path):
    """The issue's case: --samples 100 --trials 100 on the five news systems (10 pairs, 0.05 / 10 = 0.005 below
    1 / 101): every pair read "no". The draws are raised to 1,000 and said so; the -43.9 gap is significant."""
    names = ("strong", "fluent", "literal", "degraded", "salad")
    c = compare_systems({n: news(f"sys.{n}.de") for n in names}, news("ref.A.de"), n_samples=100, n_trials=100,
                        chrf=False)
    assert c.settings["n_samples"] == c.settings["n_trials"] == 1000
    assert c.settings["raised"] == {"n_samples": [100, 1000], "n_trials": [100, 1000]}
    assert all(p.bootstrap.n_samples == 1000 and p.randomization.n_trials == 1000 for p in c.all_pairs)
    widest = max(c.all_pairs, key=lambda p: abs(p.difference))
    assert abs(widest.difference) > 40
    assert widest.bootstrap.significant(0.05 / 10) and widest.randomization.significant(0.05 / 10)
    assert widest.bootstrap_holm < 0.05 and widest.randomization_holm < 0.05
    note = "Raised bootstrap resamples from 100 to 1,000 (--samples)"
    assert note in str(c) and note in c.to_html() and note in c.to_latex()
    assert c.to_dict()["draws_raised"] == {"n_samples": {"requested": 100, "used": 1000},
                                           "n_trials": {"requested": 100, "used": 1000}}


def test_eleven_systems_at_the_defaults_can_reach_bonferronis_threshold():
    from bleu_lab.compare.comparison import reachable_draws

    # 55 pairs: 0.05 / 55 = 0.00091 is below 1 / 1001; 3,000 is the first multiple of 1,000 at most half of it
    assert reachable_draws(1000, 55, 1002, "n_samples") == 3000
    assert 1 / 3001 <= 0.05 / 55 / 2 < 1 / 2001
    assert reachable_draws(10000, 55, 1002, "n_trials") == 10000  # 1 / 10001 is below it already
    assert reachable_draws(1000, 45, 1002, "n_samples") == 1000  # ten systems at the defaults: 1 / 1001 < 0.05 / 45
    assert reachable_draws(10, 1, 50, "n_samples") == 1000  # one pair: 1 / 11 is not below 0.05
    assert reachable_draws(10, 0, 50, "n_samples") == 10  # one system: no pair is tested


def test_draws_past_the_memory_bound_are_refused_naming_the_flag(monkeypatch, tmp_path):
    import bleu_lab.compare.comparison as comparison
    from bleu_lab.cli import main

    monkeypatch.setattr(comparison, "MAX_DRAWS", 50_000)  # 1,000 draws x 160 segments would be 160,000
    names = ("strong", "fluent", "literal", "degraded", "salad")
    with pytest.raises(comparison.ThresholdOutOfReach, match=r"n_samples 1,000 would reach below it.*compare fewer "
                       "systems"):
        compare_systems({n: news(f"sys.{n}.de") for n in names}, news("ref.A.de"), n_samples=100, n_trials=100)
    args = ["compare", "--refs", str(NEWS / "ref.A.de"), "--systems", *(str(NEWS / f"sys.{n}.de") for n in names),
            "--samples", "100", "--trials", "100"]
    assert main(args) == 2


def test_clusters_group_the_systems_not_significantly_different_from_the_best(news_comparison):
    names = ("strong", "fluent", "literal", "degraded", "salad")
    c = compare_systems({n: news(f"sys.{n}.de") for n in names}, news("ref.A.de"), chrf=False, **FAST)
    bleu = {s.name: s.bleu.score for s in c.systems}
    for test in ("AR", "BS"):
        found = c.clusters[test]
        assert sorted(n for cluster in found for n in cluster) == sorted(names)
        left = sorted(names, key=lambda n: -bleu[n])
        for cluster in found:  # by hand: the best left, then every system Holm does not set apart from it
            best = left[0]
            same = [n for n in left if n == best or not any(
                {p.system, p.baseline} == {best, n} and p.difference != 0
                and (p.randomization_holm if test == "AR" else p.bootstrap_holm) < 0.05 for p in c.all_pairs)]
            assert cluster == same
            left = [n for n in left if n not in same]
    assert "clusters (Holm, best first): AR: {" in str(c) and "compare-clusters" in c.to_html()
    assert c.to_dict()["clusters"] == {t: [list(x) for x in v] for t, v in c.clusters.items()}
    assert news_comparison.clusters  # three systems get clusters too


# --- the drill-down with several references ----------------------------------------------------------------------


def test_the_drill_down_shows_every_reference_beside_a_score_computed_against_them_all(tmp_path):
    """The issue's case: an output equal to the third reference scores 100, and the drill-down showed it beside the
    first reference only. Every reference is shown (HTML drill-down, examples, the widget's segments, CSV)."""
    import csv

    from bleu_lab.compare.reporters import bucket_segments_html
    from bleu_lab.course.widgets.compare import SegmentFilter, segments_view

    refs = [["Das Denkmal wird vorerst gelagert.", "Das Monument wird erst einmal gelagert.",
             "Das Denkmal wird vorerst aufbewahrt."],
            ["Der Hund schläft im Garten.", "Im Garten schläft der Hund.", "Der Hund ruht im Garten."]]
    c = compare_systems({"base": ["Das Denkmal bleibt.", "Der Hund schläft."],
                         "new": ["Das Denkmal wird vorerst aufbewahrt.", "Der Hund schläft."]}, refs, **FAST)
    assert c.sentence_bleu["new"][0] == pytest.approx(100.0)
    table = c.sentence_bleu_buckets
    top = int(c.bucket_of[table.bucketer.name]["new"][0])
    drill = bucket_segments_html(c, table, top)
    assert "sentence BLEU 100.0 against all 3 references" in drill
    for k, ref in enumerate(refs[0], 1):
        assert f"reference {k}: <span" in drill and ref in drill
    view = segments_view(c, SegmentFilter("new"), chips=lambda c, name, i: c.outputs[name][i])
    assert all(ref in view.html for ref in refs[0] + refs[1])
    c.to_csv(tmp_path)
    with (tmp_path / "examples.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [rows[0][f"reference_{k}"] for k in (1, 2, 3)] == refs[0]


# --- the report's smaller fixes -------------------------------------------------------------------------------------


def test_an_empty_frequency_bucket_prints_a_dash_not_zero(news_comparison, tmp_path):
    """The <1 bucket of reference counts holds no reference word by construction: no recall, no F-measure."""
    import csv

    c = news_comparison
    empty = [b for b in range(len(c.word_accuracy.labels))
             if not next(iter(c.word_accuracy.counts.values())).reference[b]]
    assert 0 in empty  # "<1"
    rows = c.to_dict()["word_accuracy"]
    for b in empty:
        assert set(rows[b]["fmeasure"].values()) == {None} and set(rows[b]["recall"].values()) == {None}
    assert all(v is not None for b, r in enumerate(rows) if b not in empty for v in r["fmeasure"].values())
    text = str(c)
    line = next(x for x in text.splitlines() if x.startswith("<1 "))
    assert line.split()[1:] == ["–"] * len(c.names)
    assert "<td style='" + NUM + "'>–</td>" in c.to_html()
    c.to_csv(tmp_path)
    with (tmp_path / "word_accuracy.csv").open(encoding="utf-8", newline="") as f:
        first = [r for r in csv.DictReader(f) if r["bucket"] == "<1"]
    assert first and all(r["fmeasure"] == "" and r["recall"] == "" for r in first)


def test_sentence_bleu_bands_are_counts_only_and_the_length_difference_figure_is_merged(news_comparison):
    c = news_comparison
    page = c.to_html()
    start = page.index("Segments by sentence-BLEU band")
    table = page[start:page.index("</table>", start)]
    assert "counts only" in page[start:page.index("</div>", page.index("</table>", start))]
    cells = re.findall(f"<td style='{re.escape(NUM)}'>(.*?)</td>", table)
    assert cells and all(cell.isdigit() for cell in cells)  # no BLEU, no interval: counts
    assert "BLEU by sentence-BLEU band" not in page
    assert c.length_difference_merged.labels == ["<-10", "[-10,-5)", "[-5,0)", "0", "[1,6)", "[6,11)", ">=11"]
    assert "merges the table's 17 buckets" in html.unescape(page)
    assert len(c.length_difference_buckets.labels) == 17  # the table keeps compare-mt's buckets
    merged = c.to_dict()["length_difference_buckets_merged"]
    assert [r["bucket"] for r in merged] == c.length_difference_merged.labels
    assert set(c.to_dict()["sentence_bleu_buckets"][0]) == {"bucket", "count"}


def test_the_bootstrap_p_sacrebleu_prints_is_sacrebleus_own_for_the_same_draws(monkeypatch):
    """The issue's point: the report's p(BS) is two-sided and shifted; sacrebleu --paired-bs prints another p for the
    same draws. The report gives sacrebleu's, and it is what sacrebleu's PairedTest prints."""
    from sacrebleu.metrics import BLEU
    from sacrebleu.significance import PairedTest

    systems = {n: news(f"sys.{n}.de") for n in ("strong", "fluent", "literal")}
    refs = [news("ref.A.de"), news("ref.B.de")]
    c = compare_systems(systems, [list(seg) for seg in zip(*refs)], n_samples=300, n_trials=200, chrf=False)
    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    for pair in c.pairs:
        _, scores = PairedTest([(pair.baseline, systems[pair.baseline]), (pair.system, systems[pair.system])],
                               {"BLEU": BLEU()}, refs, test_type="bs", n_samples=300)()
        assert pair.bootstrap.sacrebleu_p_value == scores["BLEU"][1].p_value
        line = (f"{pair.system}: sacrebleu --paired-bs prints p = {scores['BLEU'][1].p_value:.4f} for these resamples: "
                "it folds the gaps and counts the upper tail only, roughly a one-sided p")
        assert line in str(c) and line in c.to_html()
    assert [r["bootstrap_p_value_sacrebleu"] for r in c.to_dict()["pairs"]] == [
        p.bootstrap.sacrebleu_p_value for p in c.pairs]
    assert "p as sacrebleu --paired-bs prints it" in c.to_html()


def test_the_report_says_buckets_use_the_signatures_tokens_not_compare_mts_spaces(news_comparison):
    note = "compare-mt splits on spaces only"
    assert note in str(news_comparison) and note in news_comparison.to_html()
    assert "-t none" in news_comparison.to_dict()["tokens_note"]
    pre = compare_systems({n: pretokenized(news(f"sys.{n}.de"))[:30] for n in ("strong", "fluent")},
                          pretokenized(news("ref.A.de"))[:30], tokenize="none", **FAST)
    assert note not in str(pre) and note not in pre.to_html()


def test_each_word_frequency_bucket_links_segments_with_its_words(news_comparison):
    c = news_comparison
    ref_tokens = [tokenize_13a(seg[0]).split() for seg in c.references]
    freq = word_frequencies(ref_tokens)
    page = c.to_html()
    assert c.word_accuracy.examples
    for b, found in c.word_accuracy.examples.items():
        assert 1 <= len(found) <= 3
        assert f"words of {c.word_accuracy.labels[b]}:" in page.replace("&lt;", "<").replace("&gt;", ">")
        for ex in found:
            assert ex.words and all(FREQUENCY.bucket(freq.get(w, 0)) == b and w in ref_tokens[ex.segment]
                                    for w in ex.words)
            for name in c.names:
                out = set(tokenize_13a(c.outputs[name][ex.segment]).split())
                assert ex.found[name] == tuple(w for w in ex.words if w in out)
        missing = [not all(len(ex.found[n]) == len(ex.words) for n in c.names) for ex in found]
        assert missing == sorted(missing, reverse=True)  # segments where some output misses a word come first


# --- chrF gets the paired tests too ---------------------------------------------------------------------------------


def test_every_pair_has_chrfs_paired_tests_equal_to_sacrebleus(monkeypatch, tmp_path):
    from sacrebleu.metrics import CHRF
    from sacrebleu.significance import PairedTest

    from bleu_lab.metrics.significance import paired_bootstrap, paired_randomization

    systems = {n: news(f"sys.{n}.de") for n in ("strong", "fluent", "literal")}
    refs = [news("ref.A.de"), news("ref.B.de")]
    per_segment = [list(seg) for seg in zip(*refs)]
    c = compare_systems(systems, per_segment, n_samples=300, n_trials=400)
    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    for pair in c.all_pairs:
        base, system = systems[pair.baseline], systems[pair.system]
        assert pair.chrf_bootstrap.difference == pytest.approx(c.system(pair.system).chrf.score
                                                               - c.system(pair.baseline).chrf.score, abs=1e-12)
        boot = paired_bootstrap(base, system, per_segment, n_samples=300, method="shift", metric="chrF")
        ar = paired_randomization(base, system, per_segment, n_trials=400, metric="chrF")
        assert (pair.chrf_bootstrap.p_value, pair.chrf_randomization.p_value) == (boot.p_value, ar.p_value)
        for test_type, n, ours in (("bs", 300, pair.chrf_bootstrap.sacrebleu_p_value),
                                   ("ar", 400, pair.chrf_randomization.p_value_as("sacrebleu"))):
            _, scores = PairedTest([("b", base), ("s", system)], {"chrF": CHRF()}, refs, test_type=test_type,
                                   n_samples=n)()
            assert ours == next(v for k, v in scores.items() if k != "System")[1].p_value
    row = c.to_dict()["all_pairs"][0]
    assert row["chrf_bootstrap_p_value"] == c.all_pairs[0].chrf_bootstrap.p_value
    assert "chrF p(AR)" in c.to_html() and "chrF, fluent - strong: gap" in str(c)
    assert compare_systems(systems, per_segment, chrf=False, **FAST).all_pairs[0].chrf_bootstrap is None


# --- TER (opt-in) gets the paired tests too -------------------------------------------------------------------------


def ter_systems(segments: int = 60):
    """strong, fluent, and fluent with every 12th segment taken from literal (a close pair: TER p-values that the
    draws decide, not the floor 1 / (n + 1)); the first 60 segments have both references."""
    fluent, literal = news("sys.fluent.de")[:segments], news("sys.literal.de")[:segments]
    systems = {"strong": news("sys.strong.de")[:segments], "fluent": fluent,
               "mixed": [literal[i] if i % 12 == 0 else h for i, h in enumerate(fluent)]}
    return systems, [news("ref.A.de")[:segments], news("ref.B.de")[:segments]]


def check_ter_against_sacrebleu(c, systems, streams, n_samples: int, n_trials: int, monkeypatch) -> list[float]:
    """Every system's corpus TER and every pair's TER tests are sacrebleu's own output (PairedTest, the same seed and
    draws): sacrebleu's p-values, the baseline's and the system's bootstrap mean and 95% CI, the scores. Returns the
    p-values sacrebleu printed."""
    from sacrebleu.metrics import TER
    from sacrebleu.significance import PairedTest

    for s in c.systems:
        metric = TER()
        theirs = metric.corpus_score(systems[s.name], streams)
        assert (s.ter.score, s.ter.edits, s.ter.ref_length) == (theirs.score, theirs.num_edits, theirs.ref_length)
        assert c.ter_signature == s.ter.signature == str(metric.get_signature())
    monkeypatch.setenv("SACREBLEU_SEED", str(c.settings["seed"]))
    printed = []
    for pair in c.all_pairs:
        base, system = systems[pair.baseline], systems[pair.system]
        for test_type, n, ours in (("bs", n_samples, pair.ter_bootstrap), ("ar", n_trials, pair.ter_randomization)):
            _, scores = PairedTest([("b", base), ("s", system)], {"TER": TER()}, streams, test_type=test_type,
                                   n_samples=n)()
            bl, sy = next(v for k, v in scores.items() if k != "System")
            assert (ours.baseline.score, ours.system.score) == (bl.score, sy.score)
            if test_type == "bs":
                assert ours.sacrebleu_p_value == sy.p_value
                assert (ours.baseline_mean, ours.baseline_ci) == (bl.mean, bl.ci)
                assert (ours.system_mean, ours.system_ci) == (sy.mean, sy.ci)
            else:
                assert ours.p_value_as("sacrebleu") == sy.p_value
            printed.append(sy.p_value)
    return printed


def test_every_pair_has_ters_paired_tests_equal_to_sacrebleus(monkeypatch):
    """The issue: TER gets both paired tests, equal to sacrebleu --paired-bs / --paired-ar on the same files (two
    references, as sacrebleu reads two reference files), on the draws BLEU's tests use; Holm over TER's pairs; lower
    TER is better."""
    from bleu_lab.metrics.significance import holm_adjusted, paired_bootstrap, paired_randomization

    systems, streams = ter_systems()
    per_segment = [list(seg) for seg in zip(*streams)]
    c = compare_systems(systems, per_segment, n_samples=300, n_trials=400, chrf=False, ter=True)
    printed = check_ter_against_sacrebleu(c, systems, streams, 300, 400, monkeypatch)
    assert any(0.01 < p < 0.9 for p in printed)  # the close pair: a p the draws decide
    for pair in c.all_pairs:
        base, system = systems[pair.baseline], systems[pair.system]
        boot = paired_bootstrap(base, system, per_segment, n_samples=300, method="shift", metric="TER")
        ar = paired_randomization(base, system, per_segment, n_trials=400, metric="TER")
        assert (pair.ter_bootstrap.p_value, pair.ter_randomization.p_value) == (boot.p_value, ar.p_value)
        assert pair.ter_difference == c.system(pair.system).ter.score - c.system(pair.baseline).ter.score
        assert pair.ter_bootstrap.signature.startswith("nrefs:2|bs:300|seed:12345|case:lc|tok:tercom|")
    assert [(p.ter_randomization_holm, p.ter_bootstrap_holm) for p in c.all_pairs] == list(zip(
        holm_adjusted([p.ter_randomization.p_value for p in c.all_pairs]),
        holm_adjusted([p.ter_bootstrap.p_value for p in c.all_pairs])))
    clear = next(p for p in c.all_pairs if (p.system, p.baseline) == ("fluent", "strong"))
    assert clear.ter_difference > 0 and clear.ter_bootstrap_holm < 0.05 and clear.ter_better() == "strong"
    close = next(p for p in c.all_pairs if (p.system, p.baseline) == ("mixed", "fluent"))
    assert close.ter_bootstrap_holm >= 0.05 and close.ter_better() is None
    assert c.all_pairs[0].bootstrap.p_value == compare_systems(systems, per_segment, n_samples=300, n_trials=400,
                                                               chrf=False).all_pairs[0].bootstrap.p_value


def test_ter_is_off_by_default_and_every_report_carries_it_when_on(tmp_path):
    import csv

    systems, streams = ter_systems(40)
    refs = streams[0]
    off = compare_systems(systems, refs, chrf=False, **FAST)
    assert off.systems[0].ter is None and off.all_pairs[0].ter_bootstrap is None and off.ter_signature == ""
    assert "TER" not in str(off) and "TER" not in off.to_latex() and "ter_difference" not in off.to_dict()["pairs"][0]
    c = compare_systems(systems, refs, **FAST, ter=True)
    data = c.to_dict()
    assert data["ter_signature"] == c.ter_signature and data["ter_signature"].startswith("nrefs:1|case:lc|tok:tercom")
    assert [s["ter"] for s in data["systems"]] == [s.ter.score for s in c.systems]
    for row, pair in zip(data["all_pairs"], c.all_pairs):
        assert row["ter_difference"] == pair.ter_bootstrap.difference
        assert row["ter_bootstrap_p_value_sacrebleu"] == pair.ter_bootstrap.sacrebleu_p_value
        assert row["ter_system_interval"] == list(pair.ter_bootstrap.system_interval)
        assert row["ter_bootstrap_p_value_holm"] == pair.ter_bootstrap_holm
        assert row["ter_better"] == (pair.ter_better() or "")
    c.to_csv(tmp_path)
    with (tmp_path / "scores.csv").open(encoding="utf-8", newline="") as f:
        assert [float(r["ter"]) for r in csv.DictReader(f)] == [s.ter.score for s in c.systems]
    with (tmp_path / "all_pairs.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert {"ter_difference_interval_low", "ter_difference_interval_high", "ter_ar_p_value_holm"} <= set(rows[0])
    text, latex, page = str(c), c.to_latex(), c.to_html()
    assert TER_NOTE in text and latex_escape(TER_NOTE) in latex and html.escape(TER_NOTE) in page
    assert "a corpus score" in TER_NOTE and "Lower is better" in TER_NOTE and "mean" not in TER_NOTE
    pair = c.all_pairs[0]
    assert (f"{pair.system} - {pair.baseline}: TER gap {pair.ter_difference:+.2f}, p(AR) "
            f"{pair.ter_randomization.p_value:.4f}") in text
    assert f"& {c.systems[0].ter.score:.2f} &" in latex and "TER$\\downarrow$" in latex
    assert "TER (corpus, lower is better)" in page and "better by TER (BS, Holm)" in page
    assert f"<td style='{NUM}'>{pair.ter_bootstrap_holm:.4f}</td>" in page


def test_a_segment_too_long_for_ter_is_refused_before_any_work(monkeypatch):
    """TER's shift search slows down fast with length: past MAX_TER_WORDS words the comparison is refused, naming the
    segment, before anything is tokenized; without TER the same segment is compared."""
    import bleu_lab.compare.comparison as comparison
    from bleu_lab.metrics.ter import MAX_TER_WORDS

    long = "word " * (MAX_TER_WORDS + 1)
    systems = {"a": ["x y", "z"], "b": ["x y", long]}
    assert compare_systems(systems, ["x y", "z"], chrf=False, **FAST).systems[1].ter is None

    def tokenized(*args, **kwargs):
        raise AssertionError("tokenized before TER's bound was checked")

    monkeypatch.setattr(comparison, "make_preprocessor", tokenized)
    with pytest.raises(ValueError, match=rf"systems\['b'\]\[1\] has {MAX_TER_WORDS + 1} words; TER takes at most"):
        compare_systems(systems, ["x y", "z"], ter=True, **FAST)


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_ter_must_be_a_bool(value):
    with pytest.raises(TypeError, match=r"ter must be True or False"):
        compare_systems({"a": ["x y"], "b": ["x z"]}, ["x y"], ter=value, **FAST)


def test_wmt21_ter_tests_equal_sacrebleus(mtdata, monkeypatch):
    """Real data, kept cheap: the first 100 segments of WMT21 en-de, two systems, references A and C."""
    systems, streams, _ = load_wmt(mtdata, "en-de")
    systems = {n: systems[n][:100] for n in ("Facebook-AI", "UEdin")}
    streams = [s[:100] for s in streams[:2]]
    c = compare_systems(systems, references_per_segment(streams), n_samples=200, n_trials=300, chrf=False, ter=True)
    check_ter_against_sacrebleu(c, systems, streams, 200, 300, monkeypatch)


ter_words = st.lists(st.sampled_from("a b c d e f g A".split()), min_size=0, max_size=10).map(" ".join)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(ter_words, ter_words, ter_words, st.one_of(st.none(), ter_words)), min_size=2, max_size=10),
       st.integers(1, 2**31 - 1))
def test_generated_corpora_ter_tests_equal_sacrebleus(segments, seed):
    """Generated corpora, some segments with a second reference and some without (sacrebleu reads a missing line of
    a reference file as None), empty lines included: corpus TER and both TER tests are sacrebleu's for any seed but 0
    (sacrebleu's PairedTest draws fresh randomness for SACREBLEU_SEED=0)."""
    from sacrebleu.metrics import TER
    from sacrebleu.significance import PairedTest

    systems = {"base": [s[0] for s in segments], "new": [s[1] for s in segments]}
    streams = [[s[2] for s in segments], [s[3] for s in segments]]
    refs = [[r for r in seg if r is not None] for seg in zip(*streams)]
    c = compare_systems(systems, refs, n_samples=60, n_trials=80, seed=seed, chrf=False, ter=True)
    for s in c.systems:
        assert s.ter.score == TER().corpus_score(systems[s.name], streams).score
    pair = c.all_pairs[0]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SACREBLEU_SEED", str(seed))
        for test_type, n in (("bs", 60), ("ar", 80)):
            _, scores = PairedTest([("b", systems["base"]), ("s", systems["new"])], {"TER": TER()}, streams,
                                   test_type=test_type, n_samples=n)()
            theirs = next(v for k, v in scores.items() if k != "System")[1].p_value
            ours = (pair.ter_bootstrap.sacrebleu_p_value if test_type == "bs"
                    else pair.ter_randomization.p_value_as("sacrebleu"))
            assert ours == theirs
