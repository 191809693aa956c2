"""``bleu-lab compare``: the exports it writes, and one clear line for every bad input (exit status 2)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from bleu_lab.cli import main

NEWS = Path(__file__).resolve().parent.parent / "data" / "news"
FAST = ["--samples", "100", "--trials", "200"]


def compare(*args: str) -> int:
    return main(["compare", *args])


def test_writes_every_export(tmp_path, capsys):
    out = tmp_path / "out"
    code = compare("--refs", str(NEWS / "ref.A.de"), "--systems", str(NEWS / "sys.strong.de"),
                   str(NEWS / "sys.literal.de"), "--names", "strong", "literal", "--source", str(NEWS / "src.en"),
                   "--json", str(tmp_path / "r.json"), "--html", str(tmp_path / "r.html"),
                   "--latex", str(tmp_path / "r.tex"), "--csv", str(out), *FAST)
    assert code == 0
    printed = capsys.readouterr().out
    assert "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp" in printed and "literal" in printed
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert [s["name"] for s in data["systems"]] == ["strong", "literal"]
    assert data["examples"][0]["source"] in (NEWS / "src.en").read_text(encoding="utf-8")
    assert (tmp_path / "r.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert "\\begin{tabular}" in (tmp_path / "r.tex").read_text(encoding="utf-8")
    assert (out / "word_accuracy.csv").exists()


def test_without_matplotlib_the_html_report_has_its_tables_and_says_what_adds_the_figures(tmp_path, capsys,
                                                                                          monkeypatch):
    """The base install (no "plots" extra): the page is written with every table, and where the figures would be one
    line names matplotlib and the command that adds it; the command line says so too. --json is unchanged."""
    for name in ("matplotlib", "PIL"):
        monkeypatch.setitem(sys.modules, name, None)  # as if not installed: find_spec gives None
    args = ["--refs", str(NEWS / "ref.A.de"), "--systems", str(NEWS / "sys.strong.de"), str(NEWS / "sys.fluent.de"),
            "--names", "strong", "fluent", *FAST]
    assert compare(*args, "--html", str(tmp_path / "r.html"), "--json", str(tmp_path / "r.json")) == 0
    err = capsys.readouterr().err
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "<svg" not in page and "BLEU by reference length" in page and "<table" in page
    notes = re.findall(r"<p class='compare-figures-missing'[^>]*>([^<]*)</p>", page)
    assert len(notes) == 1 and notes[0].startswith("The figures need matplotlib, which this environment lacks")
    assert "-m pip install -e &quot;.[plots]&quot; (in " in notes[0]  # a clone: its plots extra
    assert "note: " + str(tmp_path / "r.html") + " has no figures. The figures need matplotlib" in err
    monkeypatch.undo()
    assert compare(*args, "--json", str(tmp_path / "with.json")) == 0
    assert (tmp_path / "with.json").read_text(encoding="utf-8") == (tmp_path / "r.json").read_text(encoding="utf-8")


def test_default_names_and_two_reference_files(capsys):
    code = compare("--refs", str(NEWS / "ref.A.de"), str(NEWS / "ref.B.de"), "--systems", str(NEWS / "sys.strong.de"),
                   str(NEWS / "sys.fluent.de"), "--no-chrf", *FAST)
    assert code == 0
    printed = capsys.readouterr().out
    assert "sys.strong.de" in printed and "nrefs:var" in printed  # ref.B.de is empty on lines 61-160


def write(path: Path, text: str | bytes) -> str:
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return str(path)


@pytest.mark.parametrize("case,message", [
    ("short_system", "system file .*short.txt has 2 lines but system file .*sys.strong.de has 160 lines"),
    ("short_reference", "reference file .*short.txt has 2 lines but system file .*sys.strong.de has 160 lines"),
    ("latin1", "reference file .*latin1.txt is not valid UTF-8: byte 0xe4 at line 1"),
    ("names", "--names has 1 names but --systems has 2 files"),
    ("missing", "reference file not found: .*nothere.txt"),
    ("baseline", "baseline 'nobody' is not one of the systems"),
])
def test_bad_input_is_one_line(tmp_path, capsys, case, message):
    strong, fluent = str(NEWS / "sys.strong.de"), str(NEWS / "sys.fluent.de")
    short = write(tmp_path / "short.txt", "a\nb\n")
    args = {
        "short_system": ["--refs", str(NEWS / "ref.A.de"), "--systems", strong, short],
        "short_reference": ["--refs", short, "--systems", strong],
        "latin1": ["--refs", write(tmp_path / "latin1.txt", "K\xe4se\n".encode("latin-1") * 160), "--systems", strong],
        "names": ["--refs", str(NEWS / "ref.A.de"), "--systems", strong, fluent, "--names", "one"],
        "missing": ["--refs", str(tmp_path / "nothere.txt"), "--systems", strong],
        "baseline": ["--refs", str(NEWS / "ref.A.de"), "--systems", strong, "--baseline", "nobody"],
    }[case]
    assert compare(*args, *FAST) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bleu-lab compare: error: ")
    assert re.search(message, err[0])


def test_a_file_too_big_is_one_line(tmp_path, capsys, monkeypatch):
    import bleu_lab.data

    monkeypatch.setattr(bleu_lab.data, "MAX_INPUT_BYTES", 1000)
    assert compare("--refs", str(NEWS / "ref.A.de"), "--systems", str(NEWS / "sys.strong.de"), *FAST) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and re.search(r"system file .*sys.strong.de is larger than", err[0])


def test_an_upload_too_big_names_the_file():
    from bleu_lab.compare.files import decode_text_file

    with pytest.raises(ValueError, match=r"reference file big.txt has 200 bytes; at most 10 are accepted"):
        decode_text_file("big.txt", b"x\n" * 100, "reference", max_bytes=10)


# --- guard rails: checked before any work ---------------------------------------------------------------------------


def _no_work(*args, **kwargs):
    raise AssertionError("the comparison ran before its inputs and outputs were checked")


@pytest.mark.parametrize("case,message", [
    ("html_is_a_folder", r"--html .*out is a folder: give a file name, e.g. --html .*report.html"),
    ("json_folder_missing", r"--json .*nowhere/r.json: the folder .*nowhere does not exist"),
    ("latex_is_a_folder", r"--latex .*out is a folder"),
    ("csv_is_a_file", r"--csv .*taken.txt is a file: --csv takes a folder"),
    ("csv_folder_missing", r"--csv .*nowhere/tables: the folder .*nowhere does not exist"),
    ("same_system_twice", r"--systems: .*sys.strong.de is given twice: give each file once"),
    ("same_system_by_two_paths", r"--systems: .*sys.strong.de is given twice \(as .*sys.strong.de\)"),
])
def test_outputs_and_repeated_systems_are_refused_before_any_work(tmp_path, capsys, monkeypatch, case, message):
    import bleu_lab.compare.cli

    monkeypatch.setattr(bleu_lab.compare.cli, "compare_systems", _no_work)
    (tmp_path / "out").mkdir()
    strong, fluent = str(NEWS / "sys.strong.de"), str(NEWS / "sys.fluent.de")
    base = ["--refs", str(NEWS / "ref.A.de"), "--systems", strong, fluent]
    args = {
        "html_is_a_folder": [*base, "--html", str(tmp_path / "out")],
        "json_folder_missing": [*base, "--json", str(tmp_path / "nowhere" / "r.json")],
        "latex_is_a_folder": [*base, "--latex", str(tmp_path / "out")],
        "csv_is_a_file": [*base, "--csv", write(tmp_path / "taken.txt", "x\n")],
        "csv_folder_missing": [*base, "--csv", str(tmp_path / "nowhere" / "tables")],
        "same_system_twice": ["--refs", str(NEWS / "ref.A.de"), "--systems", strong, fluent, strong],
        "same_system_by_two_paths": ["--refs", str(NEWS / "ref.A.de"), "--systems", strong,
                                     str(NEWS / ".." / "news" / "sys.strong.de")],
    }[case]
    assert compare(*args, *FAST) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bleu-lab compare: error: "), err
    assert re.search(message, err[0]), err[0]


def test_an_output_folder_that_is_not_writable_is_refused(tmp_path, capsys, monkeypatch):
    import os

    import bleu_lab.compare.cli

    if os.geteuid() == 0:
        pytest.skip("root may write into any folder: the permission check cannot fail here")
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    monkeypatch.setattr(bleu_lab.compare.cli, "compare_systems", _no_work)
    assert compare("--refs", str(NEWS / "ref.A.de"), "--systems", str(NEWS / "sys.strong.de"),
                   "--html", str(locked / "r.html"), *FAST) == 2
    assert "is not writable" in capsys.readouterr().err


def test_chinese_scored_with_13a_gets_a_warning_naming_zh(tmp_path, capsys):
    ref = write(tmp_path / "ref.zh", "我们今天去公园散步。\n他喜欢读书和写字。\n")
    hyp = write(tmp_path / "hyp.zh", "我们今天去公园走路。\n他喜欢看书和写字。\n")
    assert compare("--refs", ref, "--systems", hyp, "--no-chrf", *FAST) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if line.startswith("note: ")]
    assert any("Chinese" in n and "--tokenize 13a" in n and "use --tokenize zh" in n and "#147" in n for n in notes)
    assert compare("--refs", ref, "--systems", hyp, "--no-chrf", "--tokenize", "zh", *FAST) == 0
    assert "Chinese" not in capsys.readouterr().err


def test_version(capsys):
    import bleu_lab

    with pytest.raises(SystemExit) as exit_:
        compare("--version")
    assert exit_.value.code == 0
    assert capsys.readouterr().out.startswith(f"bleu-lab {bleu_lab.__version__} (sacrebleu ")


def test_too_many_draws_names_the_flag_and_what_fits(tmp_path, capsys):
    """The paired tests' memory bound (significance.MAX_DRAWS) said with this command's flags."""
    from bleu_lab.metrics.significance import MAX_DRAWS

    lines = "a b\n" * 1000
    for name in ("r.txt", "a.txt", "b.txt"):
        (tmp_path / name).write_text(lines, encoding="utf-8")
    trials = MAX_DRAWS // 1000 + 1
    code = compare("--refs", str(tmp_path / "r.txt"), "--systems", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"),
                   "--samples", "10", "--trials", str(trials))
    error = capsys.readouterr().err
    assert code == 2 and error.count("\n") == 1 and "n_trials" not in error
    assert f"--trials {trials} on 1,000 segments" in error
    assert f"use --trials {MAX_DRAWS // 1000} or fewer, or compare at most {MAX_DRAWS // trials:,} segments" in error


def test_ter_flag_adds_corpus_ter_and_its_paired_tests(tmp_path, capsys):
    from sacrebleu.metrics import TER

    from bleu_lab.compare.cli import build_parser
    from bleu_lab.compare.comparison import TER_SECONDS

    strong, literal = NEWS / "sys.strong.de", NEWS / "sys.literal.de"
    code = compare("--refs", str(NEWS / "ref.A.de"), "--systems", str(strong), str(literal), "--names", "strong",
                   "literal", "--ter", "--no-chrf", "--json", str(tmp_path / "r.json"), *FAST)
    assert code == 0
    printed = capsys.readouterr().out
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    refs = [(NEWS / "ref.A.de").read_text(encoding="utf-8").splitlines()]
    expected = [TER().corpus_score(path.read_text(encoding="utf-8").splitlines(), refs).score
                for path in (strong, literal)]
    assert [s["ter"] for s in data["systems"]] == expected
    row = data["all_pairs"][0]
    assert row["ter_difference"] == pytest.approx(expected[1] - expected[0], abs=1e-12)
    assert row["ter_better"] == "strong" and "better (BS): strong (lower TER)" in printed
    assert "TER signature: nrefs:1|case:lc|tok:tercom" in printed
    help_text = " ".join(build_parser().format_help().split())
    assert f"about {TER_SECONDS} CPU seconds per system and reference file" in help_text
    assert compare("--refs", str(NEWS / "ref.A.de"), "--systems", str(strong), str(literal), "--no-chrf", *FAST) == 0
    assert "TER" not in capsys.readouterr().out  # off by default
