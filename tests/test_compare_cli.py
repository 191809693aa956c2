"""``bleu-lab compare``: the exports it writes, and one clear line for every bad input (exit status 2)."""

from __future__ import annotations

import json
import re
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
