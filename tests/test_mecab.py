"""sacrebleu's optional 'ja-mecab' and 'ko-mecab' tokenizers (the "mecab" extra: tokenization.MECAB_INSTALL).

With the extra installed, bleu_lab's scores equal sacrebleu's (sentence and corpus, counts and signature) and ``why``
finds a ja-mecab number. Without it these tests skip with a reason, unless BLEU_LAB_REQUIRE_MECAB is set (CI sets it
in a venv with the extra: see .ci/run). The missing-package error is tested everywhere, by hiding the modules.
The sentences are written for these tests.
"""

from __future__ import annotations

import math
import os

import pytest
import sacrebleu
from sacrebleu.metrics import BLEU

import bleu_lab as bl
from bleu_lab import tokenization
from bleu_lab.cli import main
from bleu_lab.readings.catalogue import Workspace, readings

JAPANESE = (
    ["猫が窓の外を静かに見ている。", "今日は朝から雨が降っています。", "私は駅で友達を待っていました。"],
    [["猫は窓の外を静かに見ていた。", "今日は朝からずっと雨です。", "私は駅で友人を待っていた。"],
     ["窓の外を猫が見ている。", "朝から雨が降っている。", "駅で友達を待っていました。"]],
)
KOREAN = (
    ["고양이가 창밖을 조용히 보고 있다.", "오늘은 아침부터 비가 내립니다.", "나는 역에서 친구를 기다렸다."],
    [["고양이는 창밖을 조용히 보고 있었다.", "오늘은 아침부터 계속 비가 온다.", "나는 역에서 친구를 기다리고 있었다."],
     ["창밖을 고양이가 보고 있다.", "아침부터 비가 내리고 있습니다.", "역에서 친구를 기다렸다."]],
)
CORPORA = {"ja-mecab": JAPANESE, "ko-mecab": KOREAN}


def require(name: str) -> None:
    """Skip (or, under BLEU_LAB_REQUIRE_MECAB, fail) where the packages of tokenizer ``name`` are missing."""
    if not tokenization.optional_tokenizer_available(name):
        modules = " and ".join(tokenization.OPTIONAL_TOKENIZERS[name][1])
        if os.environ.get("BLEU_LAB_REQUIRE_MECAB"):
            pytest.fail(f"BLEU_LAB_REQUIRE_MECAB is set but {modules} cannot be imported in this venv")
        pytest.skip(f"{name} needs {modules} (the mecab extra: {tokenization.MECAB_INSTALL}); CI runs these tests")


def per_segment(streams: list[list[str]]) -> list[list[str]]:
    return [list(seg) for seg in zip(*streams)]


@pytest.mark.parametrize("name", list(CORPORA))
@pytest.mark.parametrize("lowercase", [False, True])
@pytest.mark.parametrize("smooth_method", ["exp", "floor", "none"])
def test_corpus_score_equals_sacrebleu(name, lowercase, smooth_method):
    require(name)
    hyps, streams = CORPORA[name]
    metric = BLEU(tokenize=name, lowercase=lowercase, smooth_method=smooth_method)
    theirs = metric.corpus_score(hyps, streams)
    ours = bl.corpus_score(hyps, per_segment(streams), tokenize=name, lowercase=lowercase,
                           smooth_method=smooth_method)
    assert math.isclose(ours.score, theirs.score, rel_tol=1e-9, abs_tol=1e-9), (ours.score, theirs.score)
    assert list(ours.counts) == list(theirs.counts) and list(ours.totals) == list(theirs.totals)
    assert (ours.sys_len, ours.ref_len) == (theirs.sys_len, theirs.ref_len)
    assert ours.signature == metric.get_signature().format()
    assert f"|tok:{name}-0.996" in ours.signature  # MeCab's version, as sacrebleu writes it


@pytest.mark.parametrize("name", list(CORPORA))
def test_sentence_score_equals_sacrebleu(name):
    require(name)
    hyps, streams = CORPORA[name]
    metric = BLEU(tokenize=name, effective_order=True)  # sacrebleu.sentence_bleu's settings
    for hyp, refs in zip(hyps, per_segment(streams)):
        theirs = metric.sentence_score(hyp, refs)
        assert theirs.score == sacrebleu.sentence_bleu(hyp, refs, tokenize=name).score
        ours = bl.sentence_score(hyp, refs, tokenize=name)
        assert math.isclose(ours.score, theirs.score, rel_tol=1e-9, abs_tol=1e-9), (hyp, ours.score, theirs.score)
        assert list(ours.counts) == list(theirs.counts) and list(ours.totals) == list(theirs.totals)
        assert ours.signature == metric.get_signature().format()
        explained = bl.explain(refs, hyp, tokenize=name, smoothing="exp")  # the explain view reads the same tokens
        assert math.isclose(explained.score * 100, theirs.score, rel_tol=1e-9, abs_tol=1e-9)


@pytest.mark.parametrize("name", list(CORPORA))
def test_tokens_are_sacrebleus(name):
    require(name)
    hyps, _ = CORPORA[name]
    theirs = BLEU(tokenize=name).tokenizer
    for hyp in hyps:
        assert bl.tokenize(hyp, tokenize=name) == theirs(hyp).split()
    assert tokenization.tokenizer_signature(name) == theirs.signature()


def test_the_cli_scores_with_ja_mecab(tmp_path, capsys):
    require("ja-mecab")
    hyps, streams = JAPANESE
    hyp_file, ref_file = tmp_path / "hyp.ja", tmp_path / "ref.ja"
    hyp_file.write_text("\n".join(hyps) + "\n", encoding="utf-8")
    ref_file.write_text("\n".join(streams[0]) + "\n", encoding="utf-8")
    assert main([str(hyp_file), str(ref_file), "--tokenize", "ja-mecab"]) == 0
    out = capsys.readouterr().out
    metric = BLEU(tokenize="ja-mecab")
    theirs = metric.corpus_score(hyps, streams[:1])
    assert metric.get_signature().format() in out and f"{theirs.score:.2f}" in out


def test_why_recovers_a_ja_mecab_number():
    require("ja-mecab")
    hyps, streams = JAPANESE
    reported = round(sacrebleu.corpus_bleu(hyps, streams, tokenize="ja-mecab").score, 2)
    result = bl.why(hyps, per_segment(streams), reported)
    assert any(r.name == "sacrebleu corpus_bleu" and r.settings == {"tokenize": "ja-mecab"} for r in result.matches), \
        [r.label() for r in result.matches]


@pytest.fixture
def without_mecab(monkeypatch):
    """bleu_lab as it runs where the mecab packages are not installed: importing them raises ImportError."""
    hidden = {module for _, modules in tokenization.OPTIONAL_TOKENIZERS.values() for module in modules}
    real = tokenization.import_module

    def import_module(name, *args):
        if name in hidden:
            raise ImportError(f"No module named {name!r}")
        return real(name, *args)

    monkeypatch.setattr(tokenization, "import_module", import_module)


@pytest.mark.parametrize("name", list(CORPORA))
def test_without_the_packages_the_error_says_what_to_install(without_mecab, name):
    hyps, streams = CORPORA[name]
    for call in (lambda: bl.corpus_score(hyps, per_segment(streams), tokenize=name),
                 lambda: bl.sentence_score(hyps[0], streams[0][:1], tokenize=name),
                 lambda: bl.tokenize(hyps[0], tokenize=name)):
        with pytest.raises(ImportError, match=r'\.whl\[mecab\]') as info:
            call()
        assert isinstance(info.value, ValueError) and name in str(info.value)
        assert tokenization.MECAB_INSTALL in str(info.value)
    assert name not in tokenization.available_tokenizers()
    workspace = Workspace(hyps, per_segment(streams))
    assert all(r.settings.get("tokenize") != name for r in readings(workspace))  # `why` runs without them


def test_without_the_packages_the_cli_prints_one_error_line(without_mecab, tmp_path, capsys):
    hyp_file = tmp_path / "hyp.ja"
    hyp_file.write_text(JAPANESE[0][0] + "\n", encoding="utf-8")
    assert main([str(hyp_file), str(hyp_file), "-t", "ja-mecab"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and tokenization.MECAB_INSTALL in err and "Traceback" not in err


def test_the_install_hint_names_this_versions_wheel_and_a_clone():
    """A student with a wheel cannot `pip install "bleu_lab[mecab]"` (bleu_lab is not on PyPI): the hint gives the
    wheel's file name with the extra, for the version installed, and the editable form for a clone."""
    assert f'pip install "bleu_lab-{bl.__version__}-py3-none-any.whl[mecab]"' in tokenization.MECAB_INSTALL
    assert 'pip install -e ".[mecab]"' in tokenization.MECAB_INSTALL
    assert "bleu_lab[mecab]" not in tokenization.MECAB_INSTALL.replace(".whl[mecab]", "")


def test_unknown_tokenizers_are_still_refused():
    with pytest.raises(ValueError, match="unknown tokenize 'mecab'; choose one of .*'ja-mecab', 'ko-mecab'"):
        bl.corpus_score(["a"], [["a"]], tokenize="mecab")


def test_the_widgets_offer_the_installed_mecab_tokenizers():
    from bleu_lab.course import widgets as bw
    from bleu_lab.course.widgets.compare import compare_upload

    require("ja-mecab")
    hyps, streams = JAPANESE
    pg = bw.playground(hyps[0], [streams[0][0]], smoothing="exp")
    assert "ja-mecab" in [value for _, value in pg.tokenize.options]
    pg.tokenize.value = "ja-mecab"
    theirs = BLEU(tokenize="ja-mecab", effective_order=True).sentence_score(hyps[0], [streams[0][0]]).score
    assert f"{theirs / 100:.4f}" in pg.score.value
    assert "ja-mecab" in compare_upload().tokenize.options


def test_without_the_packages_the_widgets_do_not_offer_them(without_mecab):
    from bleu_lab.course.widgets.compare import compare_upload
    from bleu_lab.course.widgets.model import tokenizer_options

    assert not {"ja-mecab", "ko-mecab"} & {value for _, value in tokenizer_options()}
    assert not {"ja-mecab", "ko-mecab"} & set(compare_upload().tokenize.options)
