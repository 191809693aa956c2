"""Canvas round trip (issue 36): `bleu-lab grade ... --canvas GRADEBOOK.csv -o IMPORT.csv`, and the written answers'
marks by hand (`--csv`'s "(by hand)" columns, read back with `--manual`).

The gradebooks are laid out as Canvas's exporter writes them (lib/gradebook_exporter.rb in instructure/canvas-lms:
`Student, ID, SIS User ID, SIS Login ID, Section`, assignments as `Title (id)`, read-only totals, a `Manual Posting`
row, the `    Points Possible` row, names as `Last, First` with quotes and commas, `="..."` for a name starting with
`=`, Canvas's Test Student last), with a comma or (a user's choice) a semicolon, a byte-order mark and decimal commas.
The written file is read back by `canvas_reads`, a transcription of what lib/gradebook_importer.rb checks: a header
whose first cells hold "Student" and "ID" and whose identity columns end with "Section", a row whose first cell holds
"Points Possible", students found by ID, SIS User ID or SIS Login ID.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from bleu_lab.assignments import lesson_gradings
from bleu_lab.assignments.canvas import canvas_import, read_gradebook, write_canvas
from bleu_lab.assignments.cli import main as assignments_main
from bleu_lab.assignments.grade import ExerciseResult, NotebookGrade
from bleu_lab.assignments.gradebook import by_hand_column, read_by_hand, write_marks_csv

L0, L3 = "00_start_here", "03_brevity_penalty"
WRITTEN = by_hand_column(L3, "what BLEU would do without BP")
TOTALS = "Current Points,Final Points,Current Score,Unposted Current Score,Final Score,Unposted Final Score"
EXPORT = (
    f"Student,ID,SIS User ID,SIS Login ID,Section,Lesson 1 (12301),Lesson 3: {L3} (12345),{TOTALS}\r\n"
    ",,,,,,Manual Posting,,,,,,\r\n"
    "    Points Possible,,,,,10.00,7.00,(read only),(read only),(read only),(read only),(read only),(read only)\r\n"
    '"Doe, Alice",1001,S1001,alice@uni.example,"Section A, Monday",9.00,,9.00,9.00,90.00,90.00,52.94,52.94\r\n'
    '"O\'Brien, Bob ""Bobby""",1002,S1002,Bob@uni.example,Section A,8.00,2.00,10.00,10.00,58.82,58.82,58.82,58.82\r\n'
    '"Ng, Carol",1003,S1003,carol@uni.example,Section B,7.00,4.00,11.00,11.00,64.71,64.71,64.71,64.71\r\n'
    '"=""=1+1""",1004,s1004,dave@uni.example,Section B,,,,,,,,\r\n'
    '"Student, Test",1099,,,Section A,,,,,,,,\r\n'
)


def _grade(student: str, lesson: str, lost: int = 0) -> NotebookGrade:
    """A graded notebook in nbgrader's layout, ``lost`` points short of full marks (taken from the first exercise)."""
    grade = NotebookGrade(Path(f"/c/submitted/{student}/{lesson}/{lesson}.ipynb"), lesson)
    for e in lesson_gradings()[lesson].exercises:
        grade.exercises.append(ExerciseResult(e.name, e.points, e.points, bool(e.manual),
                                              answer="my words" if e.manual else "",
                                              hidden_points=int(e.hidden is not None)))
    first = grade.exercises[0]
    first.points -= lost
    first.hidden_points = min(first.hidden_points, first.points)
    return grade


def canvas_reads(path: Path) -> dict[str, object]:
    """What Canvas's gradebook importer takes from ``path`` (its checks, transcribed): the assignments, their points,
    and each student's ID, SIS ids and cells by assignment."""
    raw = path.read_bytes().decode("utf-8-sig")
    first = raw.splitlines()[:3]
    semicolon = all(len(next(csv.reader([line], delimiter=";"))) > len(next(csv.reader([line]))) for line in first)
    rows = list(csv.reader(io.StringIO(raw, newline=""), delimiter=";" if semicolon else ","))
    header = rows[0]
    assert len(header) > 3 and "Student" in header[0] and "ID" in header[1]
    identity = 3
    if re.search(r"SIS\s+User\s+ID", header[2]) and re.search(r"SIS\s+Login\s+ID", header[3]):
        identity += 2
    assert "Section" in header[identity - 1]
    assignments = header[identity:]
    points = next(row for row in rows[1:] if "Points Possible" in row[0])
    students = {row[1]: {"sis_user_id": row[2], "sis_login_id": row[3], "name": row[0],
                         "cells": dict(zip(assignments, row[identity:]))}
                for row in rows[1:] if "Points Possible" not in row[0]}
    return {"assignments": assignments, "points": dict(zip(assignments, points[identity:])), "students": students}


@pytest.fixture
def gradebook(tmp_path) -> Path:
    path = tmp_path / "2026-11-26T1200_Grades-BLEU.csv"
    path.write_bytes(EXPORT.encode("utf-8"))
    return path


def test_the_import_holds_the_identity_columns_the_points_row_and_the_lessons_marks(gradebook, tmp_path):
    grades = [_grade("alice", L3), _grade("bob", L3, lost=2), _grade("s1004", L3, lost=5), _grade("zed", L3)]
    out = tmp_path / "import.csv"
    with pytest.raises(ValueError, match=r"^--canvas: 1 students of the batch are not in Canvas's gradebook \(zed\)"):
        write_canvas(read_gradebook(gradebook), out, grades, {"alice": {WRITTEN: 2.0}}, points=7)
    assert not out.exists()
    report = write_canvas(read_gradebook(gradebook), out, grades, {"alice": {WRITTEN: 2.0}}, points=7,
                          allow_missing=True)
    read = canvas_reads(out)
    column = f"Lesson 3: {L3} (12345)"
    assert read["assignments"] == [column] and read["points"] == {column: "7.00"}
    students = read["students"]
    assert students["1001"]["cells"][column] == "7"  # 5 automatic + 2 by hand
    assert students["1002"]["cells"][column] == "3"  # bob@uni.example's login, matched case-blind: no mark by hand
    assert students["1004"]["cells"][column] == "0"
    assert students["1003"]["cells"][column] == "4.00"  # carol: no notebook, her cell as exported
    assert students["1099"]["cells"][column] == ""  # the Test Student, as exported
    assert students["1002"]["name"] == 'O\'Brien, Bob "Bobby"' and students["1004"]["name"] == '="=1+1"'
    text = out.read_text(encoding="utf-8")
    assert text.splitlines()[0] == f"Student,ID,SIS User ID,SIS Login ID,Section,{column}"
    assert text.splitlines()[1] == "    Points Possible,,,,,7.00"
    assert '"Doe, Alice",1001,S1001,alice@uni.example,"Section A, Monday",7' in text
    assert report.matched == {"alice": "login", "bob": "login", "s1004": "SIS User ID"}
    assert report.unmatched_marks == ["zed"] and report.unmatched_canvas == ["Ng, Carol (carol@uni.example)"]
    assert report.test_student and report.no_manual == ["bob", "s1004"]
    said = str(report)
    assert "matched 1 by SIS User ID, 2 by login" in said
    assert "in the marks but not in Canvas (1, not imported): zed" in said
    assert "Canvas's Test Student: left as exported" in said


def test_sis_login_id_is_matched_first_and_a_semicolon_export_with_a_bom_comes_back_alike(tmp_path):
    export = EXPORT.replace(",", ";").replace("7.00", "7,00").replace('"Doe; Alice"', '"Doe, Alice"')
    export = export.replace("alice@uni.example", "alice").replace('"Section A; Monday"', '"Section A, Monday"')
    path = tmp_path / "grades.csv"
    path.write_bytes(b"\xef\xbb\xbf" + export.encode("utf-8"))
    book = read_gradebook(path)
    assert book.delimiter == ";" and book.bom
    out = tmp_path / "import.csv"
    report = write_canvas(book, out, [_grade("alice", L3, lost=1)], {"alice": {WRITTEN: 1.5}}, points=7)
    assert report.matched == {"alice": "SIS Login ID"}
    assert out.read_bytes().startswith(b"\xef\xbb\xbf")
    read = canvas_reads(out)
    assert read["students"]["1001"]["cells"][f"Lesson 3: {L3} (12345)"] == "5.5"
    assert read["students"]["1001"]["name"] == "Doe, Alice"


def test_points_that_do_not_fit_are_refused_never_rescaled(gradebook, tmp_path):
    book = read_gradebook(gradebook)
    out = tmp_path / "import.csv"
    rows = [{"student": "alice", f"{L3}: total": 5, WRITTEN: ""}]
    with pytest.raises(ValueError, match=r"worth 10 points and 00_start_here is worth 2: set the assignment's points "
                       "in Canvas to 2 "):
        canvas_import(book, out, [{"student": "alice", f"{L0}: total": 2}], L0, lesson_gradings()[L0],
                      "Lesson 1 (12301)")
    book.points[book.header.index(f"Lesson 3: {L3} (12345)")] = "4.00"
    with pytest.raises(ValueError, match=r"worth 4 points and 03_brevity_penalty is worth 6 \(5 for its checks, 1 for "
                       r"each of its 1 written answers\): set the assignment's points in Canvas to 6 and export again "
                       r"\(marks"):
        canvas_import(book, out, rows, L3, lesson_gradings()[L3], points=4)  # --points cannot make room for less
    book.points[book.header.index(f"Lesson 3: {L3} (12345)")] = "10.00"  # issue 44: 10 for a 6-point lesson
    with pytest.raises(ValueError, match=r"worth 10 points and 03_brevity_penalty is worth 6 .* or give --points 10 "
                       r"if the written answers are worth 5 together"):
        canvas_import(book, out, rows, L3, lesson_gradings()[L3])
    with pytest.raises(ValueError, match=r"^--points 7: Canvas's 'Lesson 3: 03_brevity_penalty \(12345\)' is worth 10"):
        canvas_import(book, out, rows, L3, lesson_gradings()[L3], points=7)
    assert canvas_import(book, out, rows, L3, lesson_gradings()[L3], points=10).points_possible == 10
    book.points[book.header.index(f"Lesson 3: {L3} (12345)")] = "6.00"  # the lesson's total: no --points needed
    assert canvas_import(book, out, rows, L3, lesson_gradings()[L3]).points_possible == 6
    out.unlink()
    book.points[book.header.index(f"Lesson 3: {L3} (12345)")] = "7.00"
    with pytest.raises(ValueError, match=r"alice's marks by hand for 03_brevity_penalty \(3\) exceed .* \(2 of 7"):
        canvas_import(book, out, [{**rows[0], WRITTEN: 3}], L3, lesson_gradings()[L3], points=7)
    with pytest.raises(ValueError, match="--assignment 'Lesson 9': no such assignment"):
        canvas_import(book, out, rows, L3, lesson_gradings()[L3], "Lesson 9")
    with pytest.raises(ValueError, match="no assignment's title holds '00_start_here': name the lesson's with"):
        canvas_import(book, out, rows, L0, lesson_gradings()[L0])
    with pytest.raises(ValueError, match="one lesson's column, and this batch has 2 lessons"):
        write_canvas(book, out, [_grade("alice", L3), _grade("alice", L0)])
    assert not out.exists()
    assert canvas_import(book, out, rows, L3, lesson_gradings()[L3], "12345", 7).assignment.endswith("(12345)")


def test_a_file_that_is_no_canvas_export_is_refused_in_one_line(tmp_path):
    path = tmp_path / "marks.csv"
    path.write_text("student,total\nalice,5\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not a Canvas gradebook export"):
        read_gradebook(path)
    path.write_text(EXPORT.replace("    Points Possible", "Alice again"), encoding="utf-8")
    with pytest.raises(ValueError, match="no 'Points Possible' row"):
        read_gradebook(path)
    path.write_bytes(EXPORT.encode("latin-1", "replace").replace(b"Doe", b"D\xf6e"))
    with pytest.raises(ValueError, match="not UTF-8"):
        read_gradebook(path)
    # issue 43: a student named "Points Possible" (a display name is the student's choice), before or after the others
    for row in ('"Points Possible",1005,S1005,pp@uni.example,Section B,,5.00,,,,,,\r\n',
                "    Points Possible,,,,,1,1\r\n"):
        for where in ('"Doe, Alice"', '"Student, Test"'):
            path.write_text(EXPORT.replace(where, row + where, 1), encoding="utf-8")
            with pytest.raises(ValueError, match=r"^--canvas .*, line (4|8): a (second row|row after the students) "
                               r"named 'Points Possible' \(a student of that name\?\): Canvas writes one such row"):
                read_gradebook(path)
    path.write_text(EXPORT.replace("    Points Possible,", '"Points Possible",1005,S1005,pp@uni.example,Section B,,5.00'
                                   ",,,,,,\r\n    Points Possible,", 1), encoding="utf-8")
    with pytest.raises(ValueError, match=r"line 3: a row with a student's ID \(1005\) named 'Points Possible'"):
        read_gradebook(path)


def test_the_marks_csv_has_a_column_for_each_written_answer_and_manual_reads_it_back(tmp_path):
    marks = write_marks_csv(tmp_path / "marks.csv", [_grade("alice", L3), _grade("=cmd", L3, lost=1)])
    with marks.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [row["student"] for row in rows] == ["'=cmd", "alice"]  # formula-safe, as write_csv writes it
    assert WRITTEN in rows[1] and rows[1][WRITTEN] == "" and rows[1][f"{L3}: total"] == "5"
    assert list(rows[1]).index(WRITTEN) == list(rows[1]).index(f"{L3}: total") - 1
    rows[1][WRITTEN], rows[0][WRITTEN] = "2", "1.5"  # the instructor fills the column in a spreadsheet
    with marks.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    by_hand = read_by_hand(marks)
    assert by_hand == {"=cmd": {WRITTEN: 1.5}, "alice": {WRITTEN: 2.0}}
    again = write_marks_csv(tmp_path / "again.csv", [_grade("alice", L3)], by_hand)
    with again.open(encoding="utf-8", newline="") as f:
        row = next(csv.DictReader(f))
    assert (row[WRITTEN], row[f"{L3}: total"]) == ("2", "7")  # issue 44: the total holds the mark by hand
    rows[1][WRITTEN] = "good"
    with marks.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    with pytest.raises(ValueError, match=r"line 3, '03_brevity_penalty: what BLEU .*\(by hand\)': 'good' is not a"):
        read_by_hand(marks)


def test_grade_refuses_canvas_options_before_grading(gradebook, tmp_path, capsys):
    notebook = tmp_path / "alice" / f"{L3}.ipynb"
    notebook.parent.mkdir()
    notebook.write_text("{}", encoding="utf-8")
    assert assignments_main(["grade", str(notebook), "--canvas", str(gradebook)]) == 2
    assert "--canvas GRADEBOOK and -o FILE go together" in capsys.readouterr().err
    assert assignments_main(["grade", str(notebook), "--canvas", str(tmp_path / "none.csv"), "-o",
                             str(tmp_path / "i.csv")]) == 2
    assert "no such file (export it from Canvas" in capsys.readouterr().err
    assert assignments_main(["grade", str(notebook), "--lesson", L0, "--canvas", str(gradebook), "-o",
                             str(tmp_path / "i.csv")]) == 2
    assert "no assignment's title holds '00_start_here'" in capsys.readouterr().err
    canvas = ["--canvas", str(gradebook), "-o", str(tmp_path / "i.csv")]
    assert assignments_main(["grade", str(notebook), *canvas]) == 2  # issue 44: 7 points for a 6-point lesson
    assert "is worth 7 points and 03_brevity_penalty is worth 6 (5 for its checks, 1 for each of its 1 written " \
        "answers): set the assignment's points in Canvas to 6 and export again, or give --points 7" in (
            capsys.readouterr().err)
    stranger = tmp_path / "zed" / f"{L3}.ipynb"  # a student the gradebook does not have
    stranger.parent.mkdir()
    stranger.write_text("{}", encoding="utf-8")
    assert assignments_main(["grade", str(notebook), str(stranger), *canvas, "--points", "7"]) == 2
    assert "bleu-lab: error: --canvas: 1 students of the batch are not in Canvas's gradebook (zed): their marks " \
        "would never reach it. Add them to the course and export the gradebook again, or give --allow-missing" in (
            capsys.readouterr().err)
    assert not (tmp_path / "i.csv").exists()
    manual = tmp_path / "marks.csv"
    manual.write_text("student,notes\nalice,\n", encoding="utf-8")
    assert assignments_main(["grade", str(notebook), "--manual", str(manual), "--csv", str(manual)]) == 2
    assert "--csv" in capsys.readouterr().err and manual.read_text(encoding="utf-8") == "student,notes\nalice,\n"


def test_marks_by_hand_reach_canvas_from_the_marks_csv_alone_without_grading_again(gradebook, tmp_path, capsys):
    marks = write_marks_csv(tmp_path / "marks.csv", [_grade("alice", L3, lost=1), _grade("bob", L3)])
    text = marks.read_text(encoding="utf-8").splitlines()
    assert text[0].split(",").index(WRITTEN) == 4
    filled = tmp_path / "marks-by-hand.csv"  # the instructor's spreadsheet, saved as CSV: alice's answer gets 1.5
    filled.write_text("\n".join([text[0], text[1].replace(",,4,", ",1.5,4,", 1), text[2]]) + "\n", encoding="utf-8")
    out = tmp_path / "import.csv"
    assert assignments_main(["grade", "--manual", str(filled), "--canvas", str(gradebook), "-o", str(out),
                             "--points", "7"]) == 0
    assert "matched 2 by login" in capsys.readouterr().err
    cells = {sid: s["cells"][f"Lesson 3: {L3} (12345)"] for sid, s in canvas_reads(out)["students"].items()}
    assert (cells["1001"], cells["1002"], cells["1003"]) == ("5.5", "5", "4.00")
    assert assignments_main(["grade", "--canvas", str(gradebook), "-o", str(out)]) == 2
    assert "give the notebooks to grade" in capsys.readouterr().err
    assert assignments_main(["grade", "--manual", str(filled), "--canvas", str(gradebook), "-o", str(filled)]) == 2
    assert "is one of the files it reads" in capsys.readouterr().err
    assert assignments_main(["grade", "--manual", str(filled), "--lesson", L0, "--canvas", str(gradebook), "-o",
                             str(out)]) == 2
    assert "has no column '00_start_here: total'" in capsys.readouterr().err
    filled.write_text("\n".join([text[0], text[1].replace(",,4,", ",1.5,,4,", 1)]) + "\n", encoding="utf-8")
    assert assignments_main(["grade", "--manual", str(filled), "--canvas", str(gradebook), "-o", str(out)]) == 2
    assert "line 2 has more cells than the header" in capsys.readouterr().err
