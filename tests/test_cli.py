"""The command line: the numbers it prints are the API's, and every mistake gets one clear line and exit code 2."""

from __future__ import annotations

import gzip
import io
import platform
import subprocess
import sys
from pathlib import Path

import pytest
import sacrebleu
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bleu_lab
from bleu_lab.cli import main
from bleu_lab.data import corpus_dir, load_corpus

NEWS = corpus_dir() / "news"
STRONG, FLUENT, REF_A, REF_B = (str(NEWS / f) for f in ("sys.strong.de", "sys.fluent.de", "ref.A.de", "ref.B.de"))


@pytest.fixture(scope="module")
def news():
    return load_corpus("news")


def run_main(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_score_and_signature(capsys, news):
    code, out, err = run_main(capsys, STRONG, REF_A)
    expected = bleu_lab.corpus_score(news.systems["strong"], news.references_for("A"))
    assert code == 0 and err == ""
    assert out == f"{expected}\nsignature: {expected.signature}\n"


def test_options_reach_the_score(capsys, news):
    code, out, _ = run_main(capsys, FLUENT, REF_A, "-t", "intl", "-lc", "-s", "floor", "--smooth-value", "0.2")
    expected = bleu_lab.corpus_score(news.systems["fluent"], news.references_for("A"), tokenize="intl",
                                     lowercase=True, smooth_method="floor", smooth_value=0.2)
    assert code == 0 and out.splitlines() == [str(expected), f"signature: {expected.signature}"]
    assert "case:lc" in out and "tok:intl" in out and "smooth:floor[0.20]" in out


def test_empty_reference_lines_are_empty_references_as_in_sacrebleu_and_noted(capsys, news):
    code, out, err = run_main(capsys, STRONG, REF_A, REF_B)
    streams = [news.reference_streams["A"], news.reference_streams["B"]]
    expected = bleu_lab.corpus_score(news.systems["strong"], [list(refs) for refs in zip(*streams)])
    metric = sacrebleu.BLEU()
    theirs = metric.corpus_score(news.systems["strong"], streams)
    assert code == 0 and out.splitlines() == [str(expected), f"signature: {metric.get_signature()}"]
    assert f"BLEU = {theirs.score:.2f} " in out
    assert err == (f"note: {REF_B} has 100 empty lines, read as an empty reference, as sacrebleu reads it (length 0: "
                   "a short hypothesis there escapes the brevity penalty, see lesson 8; --drop-empty-refs reads it as "
                   "no reference)\n")


def test_drop_empty_refs_reads_them_as_missing_and_says_so_in_the_signature(capsys, news):
    code, out, err = run_main(capsys, STRONG, REF_A, REF_B, "--drop-empty-refs")
    expected = bleu_lab.corpus_score(news.systems["strong"], news.references)
    streams = [news.reference_streams["A"], [line or None for line in news.reference_streams["B"]]]
    metric = sacrebleu.BLEU()
    theirs = metric.corpus_score(news.systems["strong"], streams)  # sacrebleu's API reading of None
    assert code == 0 and out.splitlines() == [str(expected), f"signature: {metric.get_signature()}"]
    assert "nrefs:var|" in out and f"BLEU = {theirs.score:.2f} " in out
    assert "read as 'no reference for this segment' (--drop-empty-refs)" in err


def test_a_blank_reference_line_scores_as_sacrebleus_command_line_does(tmp_path):
    """The finding: one reference file with a blank line, bleu-lab 51.34 and sacrebleu 100.0 under one signature."""
    hyp = write(tmp_path / "hyp.txt", b"the cat sat on the mat\n\n")
    ref1 = write(tmp_path / "ref1.txt", b"the cat sat on the mat\nsomething else here\n")
    ref2 = write(tmp_path / "ref2.txt", b"the cat sat on the mat\n\n")
    ours = subprocess.run([sys.executable, "-m", "bleu_lab", hyp, ref1, ref2], capture_output=True, text=True,
                          check=True).stdout
    theirs = subprocess.run([str(Path(sys.executable).with_name("sacrebleu")), ref1, ref2, "-i", hyp, "-b", "-w", "2"],
                            capture_output=True, text=True, check=True).stdout
    assert theirs.strip() == "100.00" and ours.startswith("BLEU = 100.00 ") and "nrefs:2|" in ours


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(*[st.sampled_from(["", "the cat", "a cat sat", "the the mat", "on the mat ."])] * 3),
                     min_size=1, max_size=6))
def test_blank_lines_in_any_file_match_sacrebleu(capsys, tmp_path_factory, rows):
    folder = tmp_path_factory.mktemp("blank")
    hyps, ref1, ref2 = ([row[i] for row in rows] for i in range(3))
    paths = [write(folder / f"{name}.txt", "".join(f"{line}\n" for line in lines).encode())
             for name, lines in (("h", hyps), ("r1", ref1), ("r2", ref2))]
    code, out, _ = run_main(capsys, *paths)
    metric = sacrebleu.BLEU()
    theirs = metric.corpus_score(hyps, [ref1, ref2])  # what sacrebleu's command line scores
    assert code == 0 and out.splitlines()[0].startswith(f"BLEU = {theirs.score:.2f} ")
    assert out.splitlines()[1] == f"signature: {metric.get_signature()}"


def test_explain_shows_segment_n_counting_from_1(capsys, news):
    code, out, _ = run_main(capsys, STRONG, REF_A, REF_B, "--explain", "2")
    explanation = bleu_lab.explain(news.references[1], news.systems["strong"][1], smoothing="exp", tokenize="13a")
    assert code == 0
    assert f"Segment 2 (line 2 of {STRONG})" in out
    assert out.rstrip("\n").endswith(str(explanation))


def test_compare_runs_approximate_randomization_by_default(capsys, news):
    code, out, err = run_main(capsys, STRONG, REF_A, "--compare", FLUENT, "--trials", "300", "--seed", "9")
    refs = news.references_for("A")
    rand = bleu_lab.paired_randomization(news.systems["strong"], news.systems["fluent"], refs, n_trials=300, seed=9)
    assert code == 0 and err == ""
    assert f"baseline: {STRONG}" in out and f"system:   {FLUENT}" in out
    assert str(rand) in out and "tie the observed gap counted" in out
    assert "bootstrap" not in out and "sacrebleu --paired-ar" not in out  # no trial ties: both counts agree


def test_paired_bs_runs_the_bootstrap_and_names_sacrebleus_p(capsys, news):
    code, out, err = run_main(capsys, STRONG, REF_A, "--compare", FLUENT, "--paired-bs", "--samples", "200",
                              "--seed", "9")
    refs = news.references_for("A")
    boot = bleu_lab.paired_bootstrap(news.systems["strong"], news.systems["fluent"], refs, n_samples=200, seed=9,
                                     method="shift")
    theirs = bleu_lab.paired_bootstrap(news.systems["strong"], news.systems["fluent"], refs, n_samples=200, seed=9)
    assert code == 0 and err == ""
    assert str(boot) in out and "randomization" not in out
    assert (f"sacrebleu --paired-bs with SACREBLEU_SEED=9 prints p = {theirs.p_value:.4f} for these resamples: "
            "it folds the gaps and counts the upper tail only, roughly a one-sided p") in out


def test_both_flags_run_both_tests_randomization_first(capsys, news):
    code, out, _ = run_main(capsys, STRONG, REF_A, "--compare", FLUENT, "-par", "-pbs", "--samples", "200",
                            "--trials", "300")
    refs = news.references_for("A")
    boot = bleu_lab.paired_bootstrap(news.systems["strong"], news.systems["fluent"], refs, n_samples=200,
                                     method="shift")
    rand = bleu_lab.paired_randomization(news.systems["strong"], news.systems["fluent"], refs, n_trials=300)
    assert code == 0 and out.index(str(rand)) < out.index(str(boot))
    assert "SACREBLEU_SEED" not in out  # the default seed is sacrebleu's default too


def test_compare_with_identical_outputs_has_nothing_to_test(capsys, news):
    for flags in ([], ["--paired-bs"], ["--paired-ar", "--paired-bs"]):
        code, out, _ = run_main(capsys, STRONG, REF_A, "--compare", STRONG, *flags)
        assert code == 0 and out.rstrip("\n").endswith("identical outputs: nothing to test")
        assert "p = " not in out and out.count("BLEU = 57.17") == 2


def test_a_one_sentence_change_is_not_significant(capsys, tmp_path, news):
    """Every shuffle ties the observed gap: p = 1 with ties counted; sacrebleu's count is printed beside it."""
    changed = list(news.systems["strong"])
    changed[5] = news.systems["degraded"][5]
    path = write(tmp_path / "changed.de", ("\n".join(changed) + "\n").encode("utf-8"))
    code, out, _ = run_main(capsys, STRONG, REF_A, "--compare", path, "--trials", "400")
    theirs = bleu_lab.paired_randomization(news.systems["strong"], changed, news.references_for("A"), n_trials=400,
                                           method="sacrebleu")
    assert code == 0 and "400 trials tie it" in out
    assert "p = 1.0000 (two-sided, shuffles that tie the observed gap counted; not significant at the 0.05 level" in out
    assert theirs.p_value == 1 / 401
    assert (f"sacrebleu --paired-ar prints p = {theirs.p_value:.4f} for these trials: it does not count the 400 "
            "that tie the observed gap") in out


def test_counts_for_a_test_that_does_not_run_get_a_note(capsys):
    code, out, err = run_main(capsys, STRONG, REF_A, "--compare", FLUENT, "--samples", "50", "--trials", "100")
    assert code == 0 and "randomization (100 trials" in out
    assert err == "note: --samples is for --paired-bs, which is not running (add --paired-bs to run it)\n"


def test_help_says_which_test_runs(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "approximate randomization unless --paired-bs is given" in text
    assert "--paired-ar, -par" in text and "--paired-bs, -pbs" in text and "give both flags to run both tests" in text


def test_help_names_every_subcommand_and_each_one_answers_help(capsys):
    from bleu_lab.cli import CLASSROOM_COMMANDS, COURSE_COMMANDS

    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    for command in (*CLASSROOM_COMMANDS, *COURSE_COMMANDS, "why", "compare", "classroom"):
        assert f"'bleu-lab {command} " in text, command
        with pytest.raises(SystemExit) as exit_:
            main([command, "--help"])
        assert exit_.value.code == 0 and "usage: bleu-lab " + command in capsys.readouterr().out


def test_python_dash_m_and_the_console_script():
    for command in ([sys.executable, "-m", "bleu_lab"], [str(Path(sys.executable).with_name("bleu-lab"))]):
        if not Path(command[0]).exists():
            pytest.skip("the bleu-lab console script is not installed (pip install -e .)")
        done = subprocess.run([*command, STRONG, REF_A], capture_output=True, text=True, check=False)
        assert done.returncode == 0 and done.stdout.startswith("BLEU = 57.17 "), done.stderr


def write(path: Path, content: bytes) -> str:
    path.write_bytes(content)
    return str(path)


def _flipped_gzip() -> bytes:
    """A gzip file with one flipped bit in its compressed data (zlib raises zlib.error, not an OSError)."""
    packed = bytearray(gzip.compress(b"hello world\n" * 1000))
    packed[30] ^= 0xFF
    return bytes(packed)


@pytest.mark.parametrize(
    ("make_args", "message"),
    [
        (lambda t: [STRONG, str(t / "missing.de")], "reference file not found: {t}/missing.de"),
        (lambda t: [str(t / "nohyp.de"), REF_A], "hypothesis file not found: {t}/nohyp.de"),
        (lambda t: [write(t / "two.de", b"a\nb\n"), REF_A],
         f"reference file {REF_A} has 160 lines but hypothesis file {{t}}/two.de has 2"),
        (lambda t: [STRONG, REF_A, write(t / "ref2.de", b"x\n")],
         f"reference 2 file {{t}}/ref2.de has 1 line but hypothesis file {STRONG} has 160"),
        (lambda t: [STRONG, REF_A, str(t / "gone.de")], "reference 2 file not found: {t}/gone.de"),
        (lambda t: [STRONG, write(t / "r.de.gz", gzip.compress(b"a\n" * 500)[:-20])],
         "reference file {t}/r.de.gz is not a valid gzip file"),
        (lambda t: [STRONG, REF_A, write(t / "r2.de.gz", _flipped_gzip())],
         "reference 2 file {t}/r2.de.gz is not a valid gzip file: Error -3 while decompressing data"),
        (lambda t: [write(t / "h.de.gz", b"not gzip at all\n"), REF_A],
         "hypothesis file {t}/h.de.gz is not a valid gzip"),
        (lambda t: [write(t / "empty.de", b""), write(t / "ref.de", b"")],
         "hypothesis file {t}/empty.de is empty: nothing to score"),
        (lambda t: [STRONG, REF_A, "-s", "add-k", "--smooth-value", "1e308"],
         "--smooth-value 1e+308 is too large: the score overflows (inf)"),
        (lambda t: [STRONG, REF_A, "--compare", write(t / "three.de", b"a\nb\nc\n")],
         f"hypothesis file {{t}}/three.de has 3 lines but hypothesis file {STRONG} has 160"),
        (lambda t: [write(t / "bad.de", b"ok\nbad \xff byte\n"), write(t / "r.de", b"ok\nfine\n")],
         "hypothesis file {t}/bad.de is not valid UTF-8: byte 0xff at line 2, column 5"),
        (lambda t: [STRONG, REF_A, "--explain", "161"],
         f"--explain 161 is out of range: {STRONG} has segments 1 to 160"),
        (lambda t: [STRONG, REF_A, "--compare", FLUENT, "--samples", "0"], "--samples must be >= 1, got 0"),
        (lambda t: [STRONG, REF_A, "--paired-bs"],
         f"--paired-bs needs --compare HYP2: the system file to test against {STRONG}"),
        (lambda t: [STRONG, REF_A, "-par"],
         f"--paired-ar needs --compare HYP2: the system file to test against {STRONG}"),
        (lambda t: [STRONG, REF_A, "--seed", "-3"], "--seed must be >= 0, got -3"),
        (lambda t: [STRONG, REF_A, "--smooth-value", "-1"], "smooth_value must be a finite number >= 0, got -1.0"),
    ],
)
def test_errors_are_one_line_with_exit_code_2(capsys, tmp_path, make_args, message):
    code, out, err = run_main(capsys, *make_args(tmp_path))
    assert code == 2 and out == ""
    assert err.startswith(f"bleu-lab: error: {message.format(t=tmp_path)}")
    assert err.endswith("\n") and err.count("\n") == 1 and "Traceback" not in err


def test_errors_have_no_traceback_in_a_real_process(tmp_path):
    done = subprocess.run([sys.executable, "-m", "bleu_lab", STRONG, str(tmp_path / "nope.de")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"python -m bleu_lab: error: reference file not found: {tmp_path}/nope.de\n"


def test_usage_errors_come_from_argparse(capsys):
    with pytest.raises(SystemExit) as info:
        main([STRONG])
    assert info.value.code == 2 and "the following arguments are required: REF" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([STRONG, REF_A, "-t", "moses"])
    assert "invalid choice: 'moses'" in capsys.readouterr().err


# --- input as sacrebleu reads it, and input no test set can be ---------------------------------------------------


def test_standard_input_and_gzip_files_read_like_plain_files(capsys, tmp_path, monkeypatch):
    import gzip
    import io

    plain = run_main(capsys, STRONG, REF_A)[1]
    packed = tmp_path / "ref.A.de.gz"
    packed.write_bytes(gzip.compress(Path(REF_A).read_bytes()))
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(Path(STRONG).read_bytes())))
    assert run_main(capsys, "-", str(packed))[1] == plain


def test_a_byte_order_mark_is_kept_as_sacrebleu_keeps_it_and_noted(capsys, tmp_path):
    import sacrebleu

    hyp = tmp_path / "bom.de"
    hyp.write_bytes(b"\xef\xbb\xbf" + Path(STRONG).read_bytes())
    code, out, err = run_main(capsys, str(hyp), REF_A)
    lines = hyp.read_text(encoding="utf-8").split("\n")[:-1]
    theirs = sacrebleu.corpus_bleu(lines, [load_corpus("news").reference_streams["A"]])
    assert code == 0 and "byte order mark" in err and err.count("\n") == 1 and "Traceback" not in err
    assert f"BLEU = {theirs.score:.2f}" in out and lines[0].startswith("\ufeff")


def test_blank_reference_file_still_counts_in_nrefs(capsys, tmp_path):
    blank = tmp_path / "blank.de"
    blank.write_text("\n" * len(Path(REF_A).read_text(encoding="utf-8").splitlines()), encoding="utf-8")
    code, out, _ = run_main(capsys, STRONG, REF_A, str(blank))
    assert code == 0 and "nrefs:2|" in out and "nrefs:1|" not in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["/dev/zero", REF_A], "line 1, has more than 20,000 characters"),  # endless, one line: refused at 80 kB
        ([STRONG, REF_A, "--compare", FLUENT, "--paired-bs", "--samples", "1000000000"],
         "--samples 1000000000 on 160 segments needs 160,000,000,000 random draws; at most 50,000,000 fit in "
         "memory: use --samples 312500 or fewer\n"),  # no "at most 0 segments"
        ([STRONG, REF_A, "--compare", FLUENT, "--trials", "1000000"], "needs 160,000,000 random draws; at most "
         "50,000,000 fit in memory: use --trials 312500 or fewer, or compare at most 50 segments at a time\n"),
    ],
)
def test_impossible_sizes_are_one_line_errors(capsys, args, message):
    if args[0] == "/dev/zero" and not Path("/dev/zero").exists():
        pytest.skip("this system has no /dev/zero")
    code, _, err = run_main(capsys, *args)
    assert code == 2 and message in err and err.count("\n") == 1 and "Traceback" not in err


def test_explain_writes_terminal_control_sequences_from_the_input_as_escapes(capsys, tmp_path):
    hyp = write(tmp_path / "h.de", "a \x1b[2J\x1b]0;owned\x07 cat\r on\u202e mat\x9b\n".encode())
    code, out, _ = run_main(capsys, hyp, write(tmp_path / "r.de", b"a cat on the mat\n"), "--explain", "1")
    assert code == 0 and all(escape in out for escape in ("\\x1b", "\\x07", "\\u202e", "\\x9b"))
    assert not any(ch in out for ch in "\x1b\x07\r\u202e\x9b")


def test_explain_keeps_joiners_and_non_latin_text(capsys, tmp_path):
    persian = "می\u200cخواهم"  # a zero-width non-joiner belongs to the word
    hyp = write(tmp_path / "h.fa", f"{persian} بروم\n".encode())
    code, out, _ = run_main(capsys, hyp, write(tmp_path / "r.fa", f"{persian} بروم\n".encode()), "--explain", "1")
    assert code == 0 and persian in out


@pytest.mark.parametrize("data", [b"the cat\ron the mat\r\nthe dog\n", b"a\rb\rc\r", b"a\r\r\nb\n\rc"])
def test_standard_input_splits_a_lone_cr_as_sacrebleu_reads_it(capsys, monkeypatch, tmp_path, data):
    lines = [line.rstrip() for line in io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")]  # sacrebleu's stdin
    ref = write(tmp_path / "ref.txt", "".join(f"{line} x\n" for line in lines).encode())
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, out, _ = run_main(capsys, "-", ref)
    theirs = sacrebleu.BLEU().corpus_score(lines, [[f"{line} x" for line in lines]])
    assert code == 0 and out.startswith(f"BLEU = {theirs.score:.2f} ") and f"hyp_len = {theirs.sys_len} " in out


def test_standard_input_through_sacrebleus_own_command_line(tmp_path):
    data = b"the cat sat\ron the mat\nthe dog\n"
    ref = write(tmp_path / "ref.txt", b"the cat sat\non the mat\nthe dog\n")
    ours = subprocess.run([sys.executable, "-m", "bleu_lab", "-", ref], input=data, capture_output=True, check=True)
    theirs = subprocess.run([str(Path(sys.executable).with_name("sacrebleu")), ref, "-b", "-w", "2"], input=data,
                            capture_output=True, check=True)
    assert ours.stdout.decode().startswith(f"BLEU = {theirs.stdout.decode().strip()} ")


# --- guard rails ----------------------------------------------------------------------------------------------------


def test_version_names_bleu_lab_sacrebleu_nltk_and_python(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out.strip()
    assert out.startswith(f"bleu-lab {bleu_lab.__version__} (sacrebleu {sacrebleu.__version__}, nltk ")
    assert f"Python {sys.version_info.major}.{sys.version_info.minor}" in out


def test_version_without_nltk_leaves_it_out(capsys, monkeypatch):
    """The base install has no nltk (only the lessons use it): the version line names what is there."""
    import importlib.metadata

    real = importlib.metadata.version

    def version(name: str) -> str:
        if name == "nltk":
            raise importlib.metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(importlib.metadata, "version", version)
    with pytest.raises(SystemExit):
        main(["--version"])
    out = capsys.readouterr().out.strip()
    assert out == (f"bleu-lab {bleu_lab.__version__} (sacrebleu {sacrebleu.__version__}, "
                   f"Python {platform.python_version()})")


@pytest.mark.parametrize("language,ref,hyp,advice", [
    ("Chinese", "我们今天去公园散步。\n他喜欢读书和写字。\n", "我们今天去公园走路。\n他喜欢看书和写字。\n",
     ["use --tokenize zh"]),
    ("Japanese", "猫はマットの上に座っていた。\n今日は良い天気です。\n",
     "猫がマットの上に座った。\n今日はいい天気です。\n", ["use --tokenize ja-mecab", "--tokenize char"]),
    ("Thai", "แมวนั่งอยู่บนเสื่อ\nวันนี้อากาศดี\n", "แมวนั่งบนเสื่อ\nวันนี้อากาศดีมาก\n", ["use --tokenize char"]),
])
def test_unspaced_text_scored_with_a_word_tokenizer_gets_a_warning_naming_the_tokenizer(capsys, tmp_path, language,
                                                                                       ref, hyp, advice):
    ref_file, hyp_file = write(tmp_path / "ref.txt", ref.encode()), write(tmp_path / "hyp.txt", hyp.encode())
    code, out, err = run_main(capsys, hyp_file, ref_file)
    assert code == 0 and "BLEU = " in out
    (note,) = [line for line in err.splitlines() if line.startswith("note: ")]
    assert f"look like {language} text" in note and "--tokenize 13a" in note and "#147" in note
    assert all(a in note for a in advice), note
    code, out, err = run_main(capsys, hyp_file, ref_file, "--tokenize", "char")
    assert code == 0 and "look like" not in err


def test_german_text_gets_no_tokenizer_warning(capsys):
    code, out, err = run_main(capsys, STRONG, REF_A)
    assert code == 0 and "look like" not in err


def test_a_missing_file_hints_at_the_course_folder(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_main(capsys, "data/news/sys.strong.de", "data/news/ref.A.de")
    assert code == 2
    assert "hypothesis file not found: data/news/sys.strong.de" in err
    assert "bleu-lab lessons" in err and "bleu-lab-course/data/news/sys.strong.de" in err
    copy = tmp_path / "bleu-lab-course" / "data" / "news"
    copy.mkdir(parents=True)
    (copy / "sys.strong.de").write_text("x\n", encoding="utf-8")
    code, out, err = run_main(capsys, "data/news/sys.strong.de", "data/news/ref.A.de")
    assert code == 2 and "the course's copy is bleu-lab-course/data/news/sys.strong.de" in err
    code, out, err = run_main(capsys, "nothere.txt", "data/news/ref.A.de")
    assert err.strip().endswith("hypothesis file not found: nothere.txt")  # no course file of that name: no hint
