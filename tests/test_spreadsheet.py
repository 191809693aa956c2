"""Every CSV bleu_lab writes is safe to open in a spreadsheet (OWASP's CSV-injection rule)."""

import csv

from hypothesis import given
from hypothesis import strategies as st

from bleu_lab.reports.spreadsheet import FORMULA_STARTS, PLAIN_NUMBER, safe_cell, write_csv


def test_formula_cells_become_text_and_numbers_stay(tmp_path):
    path = write_csv(tmp_path / "t.csv", [{"name": "=1+1", "score": -0.5, "note": "-x"},
                                           {"name": "plain", "score": 3, "note": "@me"}])
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows == [{"name": "'=1+1", "score": "-0.5", "note": "'-x"},
                    {"name": "plain", "score": "3", "note": "'@me"}]


def test_text_that_is_a_plain_number_stays_as_it_is():
    """A bucket label such as -3 is read as a number by a spreadsheet, never run: no quote."""
    assert [safe_cell(v) for v in ("-3", "+2", "-0.25", "1e-5")] == ["-3", "+2", "-0.25", "1e-5"]
    assert [safe_cell(v) for v in ("-3+1", "-2,-1", "+A1", "-1e5+cmd|' /C calc'!A0")] == \
        ["'-3+1", "'-2,-1", "'+A1", "'-1e5+cmd|' /C calc'!A0"]


def test_empty_table_with_and_without_header(tmp_path):
    assert write_csv(tmp_path / "a.csv", []).read_text(encoding="utf-8") == ""
    header_only = write_csv(tmp_path / "b.csv", [], fieldnames=["student", "total"])
    assert header_only.read_text(encoding="utf-8").splitlines() == ["student,total"]


@given(st.text(max_size=20))
def test_no_text_cell_starts_a_formula(text):
    cell = safe_cell(text)
    assert not str(cell).startswith(FORMULA_STARTS) or PLAIN_NUMBER.fullmatch(text)
    assert str(cell).removeprefix("'") == text or cell == text
