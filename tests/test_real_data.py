"""On the real WMT21 news test sets, corpus_score reproduces the official BLEU table (needs ../shared/mtdata)."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest
from nltk.translate.bleu_score import corpus_bleu as nltk_corpus_bleu

import bleu_lab

OFFICIAL_TOKENIZER = {"de-en": "13a", "en-de": "13a", "en-zh": "zh", "en-ja": "char"}
REFS = {"de-en": "AB", "en-de": "ACD", "en-zh": "AB", "en-ja": "A"}
SAMPLE = [
    ("de-en", "Facebook-AI"), ("de-en", "happypoet"),
    ("en-de", "VolcTrans-GLAT"), ("en-de", "nuclear_trans"),
    ("en-zh", "WeChat-AI"), ("en-zh", "Online-G"),
    ("en-ja", "NiuTrans"), ("en-ja", "Online-B"),
]


def read_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def official_scores(mtdata: Path) -> dict[tuple[str, str, str], float]:
    with open(mtdata / "wmt21-official-automatic-scores.tsv", encoding="utf-8") as f:
        return {(r["pair"], r["system"], r["metric"]): float(r["score"]) for r in csv.DictReader(f, delimiter="\t")}


def load(mtdata: Path, pair: str, system: str, refs: str) -> tuple[list[str], list[list[str]]]:
    src, tgt = pair.split("-")
    hyps = read_lines(mtdata / pair / f"newstest2021.{pair}.hyp.{system}.{tgt}")
    streams = [read_lines(mtdata / pair / f"newstest2021.{pair}.ref.{r}.{tgt}") for r in refs]
    return hyps, [list(seg) for seg in zip(*streams)]


@pytest.mark.parametrize("pair,system", SAMPLE)
def test_corpus_score_reproduces_official_wmt21_bleu(mtdata, pair, system):
    table = official_scores(mtdata)
    ref_sets = list(REFS[pair]) + ([REFS[pair]] if len(REFS[pair]) > 1 else [])
    for refs in ref_sets:
        metric = f"bleu-{refs}" if len(refs) == 1 else "bleu-all"
        hyps, references = load(mtdata, pair, system, refs)
        ours = bleu_lab.corpus_score(hyps, references, tokenize=OFFICIAL_TOKENIZER[pair])
        assert math.isclose(ours.score, table[(pair, system, metric)], abs_tol=1e-9), (pair, system, metric)


def test_corpus_bleu_equals_nltk_on_real_tokenized_data(mtdata):
    hyps, references = load(mtdata, "en-de", "Facebook-AI", "ACD")
    hyp_tokens = [bleu_lab.tokenize(h) for h in hyps]
    ref_tokens = [[bleu_lab.tokenize(r) for r in seg] for seg in references]
    ours = bleu_lab.corpus_bleu(ref_tokens, hyp_tokens)
    assert math.isclose(ours, nltk_corpus_bleu(ref_tokens, hyp_tokens), rel_tol=1e-12)
    # Every segment has >= 4 tokens here, so nltk and sacrebleu agree too.
    assert math.isclose(100 * ours, bleu_lab.corpus_score(hyps, references).score, rel_tol=1e-12)


def test_short_segments_make_nltk_and_sacrebleu_differ_on_real_data(mtdata):
    hyps, references = load(mtdata, "de-en", "Facebook-AI", "A")
    hyp_tokens = [bleu_lab.tokenize(h) for h in hyps]
    ref_tokens = [[bleu_lab.tokenize(r) for r in seg] for seg in references]
    stats = bleu_lab.corpus_stats(ref_tokens, hyp_tokens)
    assert stats.short[3] > 0  # some hypotheses have fewer than 4 tokens
    nltk_style = bleu_lab.corpus_bleu(ref_tokens, hyp_tokens)
    assert math.isclose(nltk_style, nltk_corpus_bleu(ref_tokens, hyp_tokens), rel_tol=1e-12)
    assert nltk_style * 100 < bleu_lab.corpus_score(hyps, references).score


def test_wmt21_official_en_ja_bleu_is_char_and_ja_mecab_cannot_give_it(mtdata):
    """Lesson 7, section 5: WMT21's official English→Japanese BLEU (Facebook-AI 46.83) is sacrebleu's tok:char;
    ja-mecab, sacrebleu's default for a Japanese target, gives 31.6 for the same output."""
    pytest.importorskip("MeCab", reason="ja-mecab needs the mecab extra (pip install -e '.[mecab]')")
    pytest.importorskip("ipadic", reason="ja-mecab needs the mecab extra (pip install -e '.[mecab]')")
    table = official_scores(mtdata)
    hyps, references = load(mtdata, "en-ja", "Facebook-AI", "A")
    official = table[("en-ja", "Facebook-AI", "bleu-A")]
    assert round(official, 2) == 46.83
    assert math.isclose(bleu_lab.corpus_score(hyps, references, tokenize="char").score, official, abs_tol=1e-9)
    mecab = bleu_lab.corpus_score(hyps, references, tokenize="ja-mecab")
    assert round(mecab.score, 1) == 31.6 and "tok:ja-mecab" in mecab.signature
