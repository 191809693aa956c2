"""Marks that reach a gradebook (issue 28): `bleu-lab grade --csv / --gradescope` and `bleu-lab gradescope`.

The exports are checked twice: on grades built by hand (every layout and edge, fast) and on real batches graded by
the real `bleu-lab grade` (the files opened with csv and json). The Gradescope autograder is built by the real command
(a real wheel, built from this clone), unpacked into a temporary folder laid out like Gradescope's /autograder, and
its run_autograder run there on a solved, an untouched and a broken submission, with this venv's Python standing in
for the venv setup.sh would have made. setup.sh itself runs against stand-ins for python and apt-get that record what
it asks for (installing the wheel for real, with its dependencies, is .ci/wheel_check.sh's job).
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import nbformat
import pytest

from bleu_lab.assignments import lesson_gradings
from bleu_lab.assignments.cli import main as assignments_main
from bleu_lab.assignments.grade import ExerciseResult, NotebookGrade
from bleu_lab.assignments.gradebook import gradescope_results, marks_table, write_marks_csv
from bleu_lab.assignments.gradescope import CONFIG_NAME, check_config
from bleu_lab.assignments.release import release
from bleu_lab.assignments.roster import check_batch, student_of

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO / "notebooks"
BLEU_LAB = Path(sys.executable).parent / "bleu-lab"  # as an instructor runs it
SEED = 4321
L0, L3 = "00_start_here", "03_brevity_penalty"  # 2 points, no hidden cases; 5 points, hidden cases and a written answer


@pytest.fixture(scope="module")
def released(tmp_path_factory) -> Path:
    outdir = tmp_path_factory.mktemp("course")
    release(outdir, NOTEBOOKS)
    return outdir


def _copy(source: Path, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(source.read_bytes())
    return target


def _broken(target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text('{"cells": [', encoding="utf-8")
    return target


# ------------------------------------------------------------------------------------------------ by hand


def _full(lesson: str, path: str) -> NotebookGrade:
    """A notebook of ``lesson`` with every automatic point (and written answers to grade by hand)."""
    grade = NotebookGrade(Path(path), lesson)
    for e in lesson_gradings()[lesson].exercises:
        answer = "my words" if e.manual else ""
        grade.exercises.append(ExerciseResult(e.name, e.points, e.points, bool(e.manual), answer=answer,
                                              hidden_points=int(e.hidden is not None)))
    return grade


def test_the_student_is_nbgraders_folder_or_the_notebooks_folder_never_the_file_name(tmp_path):
    assert student_of(tmp_path / "nb" / "submitted" / "s042" / "hw1" / f"{L3}.ipynb") == "s042"
    assert student_of(tmp_path / "nb" / "autograded" / "s042" / "hw1" / "anything.ipynb") == "s042"
    assert student_of(tmp_path / "inbox" / "alice" / f"{L3}.ipynb") == "alice"
    assert student_of(tmp_path / "submissions" / "mallory" / "alice.ipynb") == "mallory"
    assert student_of(tmp_path / "submitted" / "mallory" / "alice.ipynb") == "mallory"  # not nbgrader's depth


def test_one_notebook_per_student_and_lesson_the_one_named_after_it_or_none():
    """``check_batch``: of a student's notebooks of one lesson, the one named after the lesson is graded and the
    others are named; with none or several so named, none is, in one line; nobody else is touched."""
    paths = [Path(f"/s/mallory/{L3}.ipynb"), Path(f"/s/mallory/{L3}-Copy1.ipynb"), Path("/s/mallory/alice.ipynb"),
             Path(f"/s/alice/{L3}.ipynb"), Path("/s/zoe/mine.ipynb"), Path("/s/zoe/mine-Copy1.ipynb"),
             Path(f"/c/submitted/yan/hw1/{L3}.ipynb"), Path(f"/c/submitted/yan/hw2/{L3}.ipynb"),
             Path(f"/s/zoe/{L0}.ipynb"), Path("/s/zoe/notes.ipynb")]
    lessons = {i: L3 for i in range(8)} | {8: L0}  # notes.ipynb: no lesson could be told (graded, and says so)
    refused, lines = check_batch(paths, lessons)
    assert sorted(refused) == [1, 2, 4, 5, 6, 7]
    assert f"is graded: /s/mallory/{L3}.ipynb" in refused[1] and "'mallory'" in refused[2]
    assert "none is graded" in refused[4] and "2 are named" in refused[6]
    assert len(lines) == 3 and lines[0] == (f"batch: student 'mallory' handed in 3 notebooks of lesson {L3}: grading "
                                            f"/s/mallory/{L3}.ipynb (named after the lesson), not "
                                            f"/s/mallory/{L3}-Copy1.ipynb, /s/mallory/alice.ipynb")


def test_marks_table_one_row_per_student_a_column_per_exercise_and_no_zero_that_was_not_earned():
    alice3 = _full(L3, f"/c/submitted/alice/hw/{L3}.ipynb")
    alice3.exercises[1].points, alice3.exercises[1].hidden_points = 1, 0  # my_closest_ref_length: hidden failed
    grades = [
        _full(L0, f"/c/submitted/alice/hw/{L0}.ipynb"), alice3,
        NotebookGrade(Path(f"/c/submitted/bob/hw/{L0}.ipynb"), L0,
                      [ExerciseResult(e.name, 0, e.points) for e in lesson_gradings()[L0].exercises]),
        NotebookGrade(Path(f"/c/submitted/carol/hw/{L3}.ipynb"), "?", note="not graded: not a readable notebook",
                      graded=False),
    ]
    columns, rows = marks_table(grades)
    auto3 = [e.name for e in lesson_gradings()[L3].exercises if not e.manual]
    assert columns == ["student", *(f"{L0}: {e.name}" for e in lesson_gradings()[L0].exercises), f"{L0}: total",
                       f"{L0}: possible", *(f"{L3}: {name}" for name in auto3),
                       f"{L3}: what BLEU would do without BP (by hand)", f"{L3}: total", f"{L3}: possible",
                       "total", "possible", "notes"]
    by = {row["student"]: row for row in rows}
    assert [row["student"] for row in rows] == ["alice", "bob", "carol"]
    assert (by["alice"][f"{L0}: total"], by["alice"][f"{L3}: total"], by["alice"]["total"]) == (2, 4, 6)
    assert by["alice"][f"{L3}: my_closest_ref_length"] == 1 and by["alice"]["possible"] == 8  # with the written answer
    assert "to grade by hand: what BLEU would do without BP" in by["alice"]["notes"]
    assert (by["bob"][f"{L0}: total"], by["bob"][f"{L3}: total"], by["bob"]["total"]) == (0, "", 0)
    assert by["carol"][f"{L3}: total"] == "" and by["carol"]["total"] == ""
    assert "not a readable notebook" in by["carol"]["notes"]
    with pytest.raises(ValueError, match="two notebooks of lesson 00_start_here for student 'alice'"):
        marks_table([*grades, _full(L0, f"/c/submitted/alice/other/{L0}.ipynb")])


def test_the_csv_opens_as_data_in_a_spreadsheet(tmp_path):
    path = write_marks_csv(tmp_path / "marks.csv", [_full(L0, f"/c/submitted/=HYPERLINK(1)/hw/{L0}.ipynb")])
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows[0]["student"] == "'=HYPERLINK(1)" and rows[0][f"{L0}: total"] == "2"
    assert list(rows[0]) == ["student", f"{L0}: reading the explanation", f"{L0}: a better translation",
                             f"{L0}: total", f"{L0}: possible", "notes"]  # one lesson: no grand total


def test_gradescope_results_follow_the_documented_format_and_hide_hidden_cases_until_published():
    grade = _full(L3, f"/autograder/submission/{L3}.ipynb")
    grade.exercises[1].points, grade.exercises[1].hidden_points = 1, 0
    grade.exercises[1].messages = ["hidden cases: ✘ my_closest_ref_length([13, 7], 10) returned 13, expected 7"]
    grade.exercises[0].points, grade.exercises[0].hidden_points = 1, 1  # visible check failed, hidden cases passed
    grade.exercises[0].messages = ["✘ my_brevity_penalty: you forgot the exponential"]
    results = gradescope_results([grade], [L3], extra={"seed": 7})
    assert set(results) == {"score", "output", "stdout_visibility", "tests", "extra_data"}
    assert results["score"] == 3 == sum(t["score"] for t in results["tests"])
    assert sum(t["max_score"] for t in results["tests"]) == 5 and results["stdout_visibility"] == "hidden"
    tests = {t["name"]: t for t in results["tests"]}
    assert all(set(t) == {"name", "score", "max_score", "output", "visibility"} for t in results["tests"])
    visible, hidden = tests[f"{L3}: my_closest_ref_length"], tests[f"{L3}: my_closest_ref_length (hidden cases)"]
    assert (visible["score"], visible["visibility"], visible["output"]) == (1, "visible", "passed")
    assert (hidden["score"], hidden["visibility"]) == (0, "after_published") and "[13, 7]" in hidden["output"]
    assert all("[13, 7]" not in t["output"] for t in results["tests"] if t["visibility"] == "visible")
    bp = tests[f"{L3}: my_brevity_penalty"]
    assert bp["score"] == 0 and "exponential" in bp["output"]
    assert tests[f"{L3}: my_brevity_penalty (hidden cases)"]["score"] == 1
    written = tests[f"{L3}: what BLEU would do without BP (written answer)"]
    assert written["max_score"] == 0 and "by hand" in written["output"] and "my words" in written["output"]
    # the lesson's line: out of its full points (6, as the feedback page, marks.csv and Canvas), naming what waits
    assert f"{L3} ({L3}.ipynb): 3 / 6 (1 point to grade by hand, not marked yet: what BLEU would do without BP)" \
        in results["output"].splitlines(), results["output"]


def test_gradescope_results_score_a_missing_or_duplicated_lesson_zero_with_a_reason():
    results = gradescope_results([_full(L0, f"/s/{L0}.ipynb")], [L0, L3])
    assert results["score"] == 2
    missing = [t for t in results["tests"] if t["name"].startswith(L3) and t["max_score"]]
    assert missing and all(t["score"] == 0 and "no notebook of lesson 03_brevity_penalty" in t["output"]
                           for t in missing)
    with pytest.raises(ValueError, match="two notebooks of lesson 00_start_here"):
        gradescope_results([_full(L0, f"/s/{L0}.ipynb"), _full(L0, "/s/copy.ipynb")], [L0])
    with pytest.raises(ValueError, match="no such lesson: 99_nothing"):
        gradescope_results([], ["99_nothing"])


# ------------------------------------------------------------------------------------------------ the real grader


# Appended to the solved lesson 3: with bleu_lab's own functions hidden (the grader's second run, which checks that the
# answers are the student's own code), the kernel is killed, as the out-of-memory killer would end it; ``{marker}``:
# only the first time that file is missing (None: every time).
KILLED_IN_THE_STAND_IN_RUN = """
import os, pathlib, signal
import bleu_lab.brevity
try:
    bleu_lab.brevity.brevity_penalty(10, 12)
except RuntimeError:  # hidden: this is the run that checks the answers are the student's own
    marker = {marker!r}
    if marker is None or not pathlib.Path(marker).exists():
        if marker is not None:
            pathlib.Path(marker).write_text("killed once")
        os.kill(os.getpid(), signal.SIGKILL)
"""


def _with_cell(source: Path, target: Path, cell: str) -> Path:
    nb = nbformat.read(source, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(cell))
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, target)
    return target


@pytest.fixture(scope="module")
def graded_batch(released, tmp_path_factory):
    """An nbgrader-style batch graded by `bleu-lab grade --csv --feedback`: alice solved lessons 0 and 3, bob handed
    lesson 0 in untouched, carol's lesson 0 is no notebook at all; mallory solved lesson 0 and handed in beside it
    JupyterLab's duplicate of the untouched lesson and a solved lesson 0 named alice.ipynb; dave solved lesson 3, and
    his kernel dies in every run with bleu_lab's functions hidden."""
    root = tmp_path_factory.mktemp("nbgrader") / "submitted"
    paths = [_copy(released / "solved" / f"{L0}.ipynb", root / "alice" / "hw1" / f"{L0}.ipynb"),
             _copy(released / "solved" / f"{L3}.ipynb", root / "alice" / "hw1" / f"{L3}.ipynb"),
             _copy(released / "student" / f"{L0}.ipynb", root / "bob" / "hw1" / f"{L0}.ipynb"),
             _broken(root / "carol" / "hw1" / f"{L0}.ipynb"),
             _copy(released / "student" / f"{L0}.ipynb", root / "mallory" / "hw1" / f"{L0}-Copy1.ipynb"),
             _copy(released / "solved" / f"{L0}.ipynb", root / "mallory" / "hw1" / f"{L0}.ipynb"),
             _copy(released / "solved" / f"{L0}.ipynb", root / "mallory" / "hw1" / "alice.ipynb"),
             _with_cell(released / "solved" / f"{L3}.ipynb", root / "dave" / "hw1" / f"{L3}.ipynb",
                        KILLED_IN_THE_STAND_IN_RUN.format(marker=None))]
    marks, feedback = root.parent / "marks.csv", root.parent / "feedback"
    done = subprocess.run([str(BLEU_LAB), "grade", *map(str, paths), "--seed", str(SEED), "--timeout", "120",
                           "--csv", str(marks), "--feedback", str(feedback)], capture_output=True, text=True,
                          timeout=900, cwd=root.parent)
    return done, marks, feedback


def _rows(marks: Path) -> dict[str, dict[str, str]]:
    with marks.open(encoding="utf-8", newline="") as f:
        return {row["student"]: row for row in csv.DictReader(f)}


def test_grade_csv_opens_with_the_reports_totals(graded_batch):
    done, marks, _ = graded_batch
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"wrote {marks}" in done.stderr and not marks.with_name("marks.csv.journal").exists()
    rows = _rows(marks)
    assert sorted(rows) == ["alice", "bob", "carol", "dave", "mallory"]
    assert (rows["alice"][f"{L0}: total"], rows["alice"][f"{L3}: total"], rows["alice"]["total"]) == ("2", "5", "7")
    assert rows["alice"]["possible"] == rows["bob"]["possible"] == "8"  # 2 + 5 + 1 for the written answer
    assert rows["alice"][f"{L3}: my_brevity_penalty"] == "2"
    assert (rows["bob"][f"{L0}: total"], rows["bob"][f"{L3}: total"], rows["bob"]["total"]) == ("0", "", "0")
    assert rows["carol"][f"{L0}: total"] == "" and "not a readable notebook" in rows["carol"]["notes"]
    scores = [line for line in done.stdout.splitlines() if line.startswith("score:")]
    assert scores == ["score: 2 / 2", "score: 5 / 5  (+ 1 to grade by hand)", "score: 0 / 2", "score: not graded",
                      "score: not graded", "score: 2 / 2", "score: not graded",
                      "score: 1 / 5  (+ 1 to grade by hand)  (not marked: 4 points: grade again)"]


def test_a_students_extra_notebooks_are_named_before_grading_and_stop_no_export(graded_batch):
    """mallory's duplicate and her alice.ipynb are named before the first report and not graded: her lesson 0 is
    the notebook named after it, alice's marks are alice's own, and every export is written."""
    done, marks, feedback = graded_batch
    head = done.stdout.split("\n== ", 1)[0]
    assert f"batch: student 'mallory' handed in 3 notebooks of lesson {L0}: grading " in head, head
    assert "-Copy1.ipynb" in head and "alice.ipynb" in head and "'alice'" not in head
    rows = _rows(marks)
    assert (rows["mallory"][f"{L0}: total"], rows["alice"][f"{L0}: total"]) == ("2", "2")
    assert "another notebook of lesson 00_start_here for student 'mallory' is graded" in rows["mallory"]["notes"]
    assert "alice.ipynb" in rows["mallory"]["notes"] and "Copy1" not in rows["alice"]["notes"]
    assert "Score: 2 / 2" in (feedback / "mallory" / f"{L0}.html").read_text(encoding="utf-8")
    assert sorted(p.name for p in (feedback / "mallory").iterdir()) == [f"{L0}.html"]


def test_a_run_with_bleu_labs_functions_hidden_that_dies_is_not_marked_never_an_accusation(graded_batch):
    """dave's kernel dies in the run that checks his answers are his own, again when it is retried alone: those
    exercises are "not marked: grade again" in the report, the CSV and his feedback page, with no points and no
    accusation; his other mark stands."""
    done, marks, feedback = graded_batch
    report = done.stdout.split(f"== {marks.parent / 'submitted' / 'dave'}", 1)[1]
    assert "uses bleu_lab's own" not in done.stdout + marks.read_text(encoding="utf-8")
    assert report.count("not marked: grade again (0 / 2)") == 2 and "not marked: grade again: my_brevity" in report
    if "sandbox: bubblewrap" in done.stdout:  # (--jobs 2: the second try waits until nothing runs beside it)
        assert "runs again once nothing runs beside it" in done.stderr
    row = _rows(marks)["dave"]
    assert (row[f"{L3}: my_brevity_penalty"], row[f"{L3}: my_closest_ref_length"], row[f"{L3}: total"]) == ("", "", "")
    assert row[f"{L3}: a short hypothesis with p_1 = 1"] == "1" and "not marked: grade again" in row["notes"]
    page = (feedback / "dave" / f"{L3}.html").read_text(encoding="utf-8")
    assert "not marked yet" in page.lower() and "uses bleu_lab" not in page and "Score: 1 / 6" in page


# The grader, dying the moment a finished export would be renamed over the file it replaces.
CRASH_ON_RENAME = """
import os, sys, types
import bleu_lab.files
fake = types.ModuleType("os")
fake.__dict__.update(vars(os))
def crash(*args, **kwargs):
    os._exit(137)
fake.replace = crash
bleu_lab.files.os = fake
from bleu_lab.assignments.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_crash_while_exporting_loses_no_mark_and_the_same_command_resumes(released, tmp_path):
    """The grader dies as the new marks.csv would replace the earlier one: that file is untouched, the journal keeps
    every mark, and the same command again resumes them all, grading nothing, and writes the CSV. erin's kernel is
    killed once in the run with bleu_lab's functions hidden: run again at once (--jobs 1), it finishes, and her marks
    are whole."""
    shared = Path(tempfile.mkdtemp(prefix="bleu-lab-test-killed-once-", dir="/tmp"))  # (a kernel's, too, unboxed)
    shared.chmod(0o1777)
    try:
        paths = [_with_cell(released / "solved" / f"{L3}.ipynb", tmp_path / "submissions" / "erin" / f"{L3}.ipynb",
                            KILLED_IN_THE_STAND_IN_RUN.format(marker=str(shared / "killed"))),
                 _copy(released / "student" / f"{L0}.ipynb", tmp_path / "submissions" / "bob" / f"{L0}.ipynb")]
        marks = tmp_path / "marks.csv"
        marks.write_text("the earlier marks\n", encoding="utf-8")
        args = ["grade", *map(str, paths), "--seed", str(SEED), "--timeout", "120", "--sandbox", "none", "--jobs",
                "1", "--csv", str(marks)]
        crashed = subprocess.run([sys.executable, "-c", CRASH_ON_RENAME, *args], capture_output=True, text=True,
                                 timeout=900, cwd=tmp_path)
        assert crashed.returncode == 137, crashed.stderr[-2000:]
        assert (shared / "killed").exists() and "uses bleu_lab's own" not in crashed.stdout
        assert "score: 5 / 5  (+ 1 to grade by hand)" in crashed.stdout, crashed.stdout[-3000:]
        assert marks.read_text(encoding="utf-8") == "the earlier marks\n"
        assert marks.with_name("marks.csv.journal").exists()
        again = subprocess.run([str(BLEU_LAB), *args], capture_output=True, text=True, timeout=900, cwd=tmp_path)
        assert again.returncode == 0, again.stderr[-2000:]
        assert "resumed: 2 of 2 notebooks" in again.stdout
        rows = _rows(marks)
        assert (rows["erin"][f"{L3}: total"], rows["bob"][f"{L0}: total"]) == ("5", "0")
        assert not marks.with_name("marks.csv.journal").exists()
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def test_grade_gradescope_writes_one_submissions_results(released, tmp_path):
    notebook = _copy(released / "solved" / f"{L0}.ipynb", tmp_path / "dan" / f"{L0}.ipynb")
    out = tmp_path / "results.json"
    assert assignments_main(["grade", str(notebook), "--seed", "1", "--timeout", "120", "--gradescope", str(out)]) == 0
    results = json.loads(out.read_text(encoding="utf-8"))
    assert results["score"] == 2 and [t["score"] for t in results["tests"]] == [1, 1]
    assert f"{L0} ({L0}.ipynb): 2 / 2" in results["output"]


def test_exports_are_refused_before_grading_when_they_cannot_be_right(tmp_path, capsys):
    a, b = tmp_path / "alice" / f"{L0}.ipynb", tmp_path / "bob" / f"{L0}.ipynb"
    for path in (a, b):
        path.parent.mkdir(parents=True)
        nbformat.write(nbformat.v4.new_notebook(), path)
    assert assignments_main(["grade", str(a), str(b), "--gradescope", str(tmp_path / "r.json")]) == 2
    assert "one submission's results" in capsys.readouterr().err
    assert assignments_main(["grade", str(a), "--csv", str(a)]) == 2
    assert "--csv" in capsys.readouterr().err and a.stat().st_size > 0
    assert assignments_main(["grade", str(a), "--csv", str(tmp_path / "no" / "m.csv")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert not list(tmp_path.glob("*.csv")) and not list(tmp_path.glob("*.json"))


# ------------------------------------------------------------------------------------------------ the autograder


@pytest.fixture(scope="module")
def autograder_zip(tmp_path_factory) -> Path:
    """`bleu-lab gradescope 03_brevity_penalty -o autograder.zip`, with the wheel built from this clone."""
    path = tmp_path_factory.mktemp("gradescope") / "autograder.zip"
    done = subprocess.run([str(BLEU_LAB), "gradescope", L3, "-o", str(path), "--timeout", "120"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Gradescope's autograder for 03_brevity_penalty" in done.stdout
    return path


def _gradescope_root(zip_path: Path, root: Path, submission: dict[str, Path | str]) -> Path:
    """A folder laid out like Gradescope's /autograder: source/ (the zip unpacked), run_autograder, submission/, and
    the venv setup.sh makes, here a stand-in whose python is this test's."""
    with zipfile.ZipFile(zip_path) as archive:
        archive.extractall(root / "source")
    (root / "run_autograder").write_bytes((root / "source" / "run_autograder").read_bytes())
    (root / "run_autograder").chmod(0o755)
    python = root / "bleu-lab-venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    python.chmod(0o755)
    (root / "submission").mkdir()
    for name, content in submission.items():
        target = root / "submission" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Path):
            target.write_bytes(content.read_bytes())
        else:
            target.write_text(content, encoding="utf-8")
    return root


def _run_autograder(root: Path) -> tuple[subprocess.CompletedProcess, dict]:
    env = {**os.environ, "AUTOGRADER_ROOT": str(root)}
    done = subprocess.run(["bash", str(root / "run_autograder")], capture_output=True, text=True, timeout=600,
                          env=env, cwd=root)
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    return done, results


def test_the_zip_holds_what_gradescope_runs(autograder_zip, tmp_path):
    with zipfile.ZipFile(autograder_zip) as archive:
        infos = {info.filename: info for info in archive.infolist()}
        wheel = next(name for name in infos if name.startswith("bleu_lab-") and name.endswith(".whl"))
        config = json.loads(archive.read(CONFIG_NAME))
        archive.extract(wheel, tmp_path)
    assert {"setup.sh", "run_autograder", CONFIG_NAME, "constraints.txt", wheel} == set(infos)
    for script in ("setup.sh", "run_autograder"):
        assert stat.S_IMODE(infos[script].external_attr >> 16) == 0o755
    assert config == {"lessons": [L3], "timeout": 120, "seed": None}
    with zipfile.ZipFile(tmp_path / wheel) as built:
        names = set(built.namelist())
    assert "bleu_lab/assignments/gradescope.py" in names and "bleu_lab/course/exercises/brevity_penalty.py" in names
    pins = (tmp_path / "c.txt")
    with zipfile.ZipFile(autograder_zip) as archive:
        pins.write_bytes(archive.read("constraints.txt"))
    assert "sacrebleu==2.6.0" in pins.read_text() and "./" not in pins.read_text()


def test_run_autograder_full_marks_for_the_solved_lesson(autograder_zip, released, tmp_path):
    solved = released / "solved" / f"{L3}.ipynb"
    root = _gradescope_root(autograder_zip, tmp_path / "autograder", {f"{L3}.ipynb": solved})
    done, results = _run_autograder(root)
    assert done.returncode == 0, done.stderr[-3000:]
    assert results["score"] == 5 == sum(t["max_score"] for t in results["tests"])
    assert {t["visibility"] for t in results["tests"] if "hidden cases" in t["name"]} == {"after_published"}
    assert results["stdout_visibility"] == "hidden" and isinstance(results["extra_data"]["seed"], int)
    assert "score: 5 / 5" in done.stdout  # the grader's own report, for the instructor


def test_run_autograder_nothing_for_the_untouched_release_whatever_its_name(autograder_zip, released, tmp_path):
    root = _gradescope_root(autograder_zip, tmp_path / "autograder",
                            {"my work/lesson three.ipynb": released / "student" / f"{L3}.ipynb",
                             ".ipynb_checkpoints/x-checkpoint.ipynb": "not graded"})
    done, results = _run_autograder(root)
    assert done.returncode == 0, done.stderr[-3000:]
    assert results["score"] == 0 and sum(t["max_score"] for t in results["tests"]) == 5
    assert "not yet" in " ".join(t["output"] for t in results["tests"])  # the checks' own feedback


def test_run_autograder_a_broken_notebook_scores_zero_with_a_readable_message(autograder_zip, tmp_path):
    root = _gradescope_root(autograder_zip, tmp_path / "autograder", {f"{L3}.ipynb": '{"cells": ['})
    done, results = _run_autograder(root)
    assert done.returncode == 0, done.stderr[-3000:]
    assert results["score"] == 0
    assert f"{L3}.ipynb could not be graded: not a readable notebook" in results["output"]
    assert all("not a readable notebook" in t["output"] for t in results["tests"] if t["max_score"])
    empty = _gradescope_root(autograder_zip, tmp_path / "empty", {"answers.txt": "I forgot the notebook"})
    done, results = _run_autograder(empty)
    assert results["score"] == 0 and "no notebook of lesson 03_brevity_penalty in the submission" in results["output"]


def test_run_autograder_an_assignment_of_two_lessons_places_each_notebook_by_its_metadata(autograder_zip, released,
                                                                                          tmp_path):
    root = _gradescope_root(autograder_zip, tmp_path / "autograder",
                            {"week1.ipynb": released / "solved" / f"{L0}.ipynb"})
    (root / "source" / CONFIG_NAME).write_text(json.dumps({"lessons": [L0, L3], "timeout": 120, "seed": 5}))
    done, results = _run_autograder(root)
    assert done.returncode == 0, done.stderr[-3000:]
    assert results["score"] == 2 and sum(t["max_score"] for t in results["tests"]) == 7
    assert results["extra_data"] == {"seed": 5, "lessons": [L0, L3]}
    assert f"{L0} (week1.ipynb): 2 / 2" in results["output"]
    assert f"{L3}: 0 / 5: no notebook of lesson {L3} in the submission" in results["output"]


def test_run_autograder_before_setup_says_so(autograder_zip, tmp_path):
    root = _gradescope_root(autograder_zip, tmp_path / "autograder", {})
    (root / "bleu-lab-venv" / "bin" / "python").unlink()
    done, results = _run_autograder(root)
    assert done.returncode == 1 and results["score"] == 0 and "not set up" in results["output"]
    broken = _gradescope_root(autograder_zip, tmp_path / "broken", {})
    (broken / "source" / CONFIG_NAME).write_text('{"lessons": ["99_nothing"], "timeout": 120}', encoding="utf-8")
    done, results = _run_autograder(broken)
    assert done.returncode == 1 and results["score"] == 0 and "autograder failed" in results["output"]
    assert "LESSON '99_nothing': there is no such lesson" in done.stderr


STUB = """#!/bin/bash
echo "$(basename "$0") $*" >> "$LOG"
if [ "$1" = "-c" ]; then exit {version_ok}; fi
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
    mkdir -p "$3/bin"
    printf '%s' "$PIP_STUB" > "$3/bin/pip"
    cp "$3/bin/pip" "$3/bin/python"
    chmod +x "$3/bin/pip" "$3/bin/python"
fi
"""
# The venv's pip and python: each records its call; with FAIL_CONSTRAINTS set, an install pinned by -c fails (the
# instructor's versions do not exist for this Python).
PIP_STUB = """#!/bin/bash
echo "venv-$(basename "$0") $*" >> "$LOG"
if [ -n "$FAIL_CONSTRAINTS" ] && [ "$3" = "-c" ]; then exit 1; fi
"""
APT_GET = """#!/bin/bash
echo "apt-get $*" >> "$LOG"
printf '%s' "$PYTHON_STUB" > "$(dirname "$0")/python3.11"
chmod +x "$(dirname "$0")/python3.11"
"""


def unpacked_with_tools(autograder_zip: Path, tmp_path: Path) -> tuple[Path, str, Path]:
    """The zip unpacked in a Gradescope-like root, its wheel's name, and a PATH folder holding only the shell tools
    setup.sh uses (the test adds its stand-ins for python and apt-get)."""
    root = tmp_path / "autograder"
    with zipfile.ZipFile(autograder_zip) as archive:
        archive.extractall(root / "source")
        wheel = next(n for n in archive.namelist() if n.endswith(".whl"))
    tools = tmp_path / "bin"
    tools.mkdir()
    for tool in ("bash", "mkdir", "basename", "dirname", "chmod", "cp"):
        (tools / tool).symlink_to(subprocess.check_output(["bash", "-c", f"command -v {tool}"], text=True).strip())
    return root, wheel, tools


@pytest.mark.parametrize("image", ["python 3.12", "python 3.10 only"])
def test_setup_sh_installs_the_carried_wheel_and_nothing_else(autograder_zip, tmp_path, image):
    """setup.sh, run against stand-ins: a Python >= 3.11 is used as it is; with only 3.10 (Ubuntu 22.04, Gradescope's
    default image) it asks apt for python3.11. Then one pip install: the wheel of the zip with its "lessons" extra
    (the kernel and notebook packages grading needs), pinned by constraints.txt; then bubblewrap from apt, where it is
    missing."""
    root, wheel, tools = unpacked_with_tools(autograder_zip, tmp_path)
    if image == "python 3.12":
        (tools / "python3.12").write_text(STUB.format(version_ok=0))
        (tools / "python3.12").chmod(0o755)
    else:
        (tools / "python3").write_text(STUB.format(version_ok=1))
        (tools / "python3").chmod(0o755)
        (tools / "apt-get").write_text(APT_GET)
        (tools / "apt-get").chmod(0o755)
    log = tmp_path / "log"
    env = {"PATH": str(tools), "AUTOGRADER_ROOT": str(root), "LOG": str(log), "PYTHON_STUB": STUB.format(version_ok=0),
           "PIP_STUB": PIP_STUB, "FAIL_CONSTRAINTS": ""}
    done = subprocess.run([str(tools / "bash"), str(root / "source" / "setup.sh")], capture_output=True, text=True,
                          env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    calls = log.read_text().splitlines()
    python = "python3.12" if image == "python 3.12" else "python3.11"
    expected = [f"{python} -c import sys; sys.exit(sys.version_info < (3, 11))",
                f"{python} -m venv {root}/bleu-lab-venv",
                f"venv-pip install --no-cache-dir -c {root}/source/constraints.txt {root}/source/{wheel}[lessons]"]
    if image != "python 3.12":
        expected = ["python3 -c import sys; sys.exit(sys.version_info < (3, 11))",
                    "apt-get update", "apt-get install -y python3.11 python3.11-venv", *expected[1:]]
    assert calls[:len(expected)] == expected
    rest = calls[len(expected):]
    assert rest[0].startswith("venv-python -I -c ")
    # then bubblewrap, for the grader's sandbox (asked of apt where there is one; no apt-get here: a warning)
    assert rest[1:] == ([] if image == "python 3.12" else ["apt-get update", "apt-get install -y bubblewrap"])
    assert check_config(root / "source")["lessons"] == [L3]  # what that last call checks, with the real bleu_lab


def test_setup_sh_falls_back_when_the_pinned_versions_do_not_install(autograder_zip, tmp_path):
    """constraints.txt pins the instructor's versions; where they do not exist for Gradescope's Python (numpy 2.5 and
    Python 3.11), setup.sh says so and installs the wheel with the newest versions that fit."""
    root, wheel, tools = unpacked_with_tools(autograder_zip, tmp_path)
    (tools / "python3.12").write_text(STUB.format(version_ok=0))
    (tools / "python3.12").chmod(0o755)
    log = tmp_path / "log"
    env = {"PATH": str(tools), "AUTOGRADER_ROOT": str(root), "LOG": str(log), "PIP_STUB": PIP_STUB,
           "FAIL_CONSTRAINTS": "1"}
    done = subprocess.run([str(tools / "bash"), str(root / "source" / "setup.sh")], capture_output=True, text=True,
                          env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "constraints.txt do not install on this Python" in done.stderr
    pips = [c for c in log.read_text().splitlines() if c.startswith("venv-pip ")]
    assert pips == [f"venv-pip install --no-cache-dir -c {root}/source/constraints.txt {root}/source/{wheel}[lessons]",
                    f"venv-pip install --no-cache-dir {root}/source/{wheel}[lessons]"]


def test_gradescope_command_refuses_what_it_cannot_build(tmp_path, capsys):
    out = tmp_path / "a.zip"
    assert assignments_main(["gradescope", "99_nothing", "-o", str(out)]) == 2
    assert "LESSON '99_nothing': there is no such lesson" in capsys.readouterr().err
    assert assignments_main(["gradescope", L3, "-o", str(out), "--wheel", str(tmp_path / "none.whl")]) == 2
    assert "--wheel" in capsys.readouterr().err
    fake = tmp_path / "bleu_lab-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(fake, "w") as archive:
        archive.writestr("other/__init__.py", "")
    assert assignments_main(["gradescope", L3, "-o", str(out), "--wheel", str(fake)]) == 2
    assert "holds no bleu_lab/assignments/grade.py" in capsys.readouterr().err
    assert assignments_main(["gradescope", L3, "-o", str(tmp_path / "a.tar")]) == 2
    assert "expected a .zip" in capsys.readouterr().err
    assert assignments_main(["gradescope", L3, "-o", str(out), "--timeout", "0"]) == 2
    assert not out.exists()
