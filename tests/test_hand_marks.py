"""Written answers marked in one pass (issue 44): `bleu-lab grade` stores its grades beside its exports, `bleu-lab mark
GRADES --set ... / --from ...` records marks by hand beside them and writes every export again from the stored grades
(no kernel runs), and every export shows the same total: the marks CSV (Moodle's import), the feedback pages, Canvas's
import and Gradescope's results.

A real batch is graded by the real `bleu-lab grade` (alice's solved lesson 3; bob's solved lesson 3 whose written
answer carries markup), then marked with the real `bleu-lab mark`. The page itself is driven in a real browser in
tests/browser/test_mark_page.py.
"""

from __future__ import annotations

import copy
import csv
import json
import stat
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from bleu_lab.assignments import cli as assignments_cli
from bleu_lab.assignments import hand_marks
from bleu_lab.assignments.cli import main as assignments_main
from bleu_lab.assignments.exports import ExportSettings
from bleu_lab.assignments.gradebook import by_hand_column, gradescope_results
from bleu_lab.assignments.mark_page import Filter, MarkingSession
from bleu_lab.assignments.release import release
from bleu_lab.assignments.session import KernelSession

REPO = Path(__file__).resolve().parent.parent
BLEU_LAB = Path(sys.executable).parent / "bleu-lab"
L3 = "03_brevity_penalty"
WRITTEN = by_hand_column(L3, "what BLEU would do without BP")
EVIL = ("Without BP short outputs of reference words would score high <script>alert(1)</script> "
        "<img src=x onerror=alert(2)>")
GRADEBOOK = (
    f"Student,ID,SIS User ID,SIS Login ID,Section,Lesson 3: {L3} (12345)\r\n"
    "    Points Possible,,,,,6.00\r\n"
    '"Doe, Alice",1001,S1001,alice@uni.example,Section A,\r\n'
    '"Roe, Bob",1002,S1002,bob@uni.example,Section A,\r\n'
)


def _rows(path: Path) -> dict[str, dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return {row["student"]: row for row in csv.DictReader(f)}


def _canvas_cells(path: Path) -> dict[str, str]:
    rows = list(csv.reader(path.read_text(encoding="utf-8-sig").splitlines()))
    return {row[3].split("@")[0]: row[5] for row in rows[2:]}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """`bleu-lab grade` with --csv, --feedback and --canvas on two solved lesson 3 notebooks (bob's written answer
    replaced by one holding markup)."""
    root = tmp_path_factory.mktemp("hand-marks")
    release(root / "course", REPO / "notebooks")
    solved = root / "course" / "solved" / f"{L3}.ipynb"
    notebooks = []
    for student in ("alice", "bob"):
        target = root / "submitted" / student / L3 / f"{L3}.ipynb"
        target.parent.mkdir(parents=True)
        nb = nbformat.read(solved, as_version=4)
        if student == "bob":
            nb.cells.append(nbformat.v4.new_code_cell(f"answer = {EVIL!r}"))
        nbformat.write(nb, target)
        notebooks.append(target)
    (root / "Grades.csv").write_text(GRADEBOOK, encoding="utf-8")
    out = {"marks": root / "marks.csv", "feedback": root / "feedback", "canvas": root / "import.csv"}
    done = subprocess.run([str(BLEU_LAB), "grade", *map(str, notebooks), "--seed", "44", "--csv", str(out["marks"]),
                           "--feedback", str(out["feedback"]), "--canvas", str(root / "Grades.csv"), "-o",
                           str(out["canvas"])], capture_output=True, text=True, timeout=900, cwd=root)
    assert done.returncode == 0, done.stderr[-3000:]
    out["store"] = root / "marks.csv.grades.json"
    out["stdout"] = done.stdout
    out["command"] = done.args
    return out


def test_grade_stores_its_grades_privately_and_the_totals_wait_for_the_written_answers(graded):
    store = graded["store"]
    assert store.is_file() and stat.S_IMODE(store.stat().st_mode) == 0o600
    assert graded["stdout"].count("score: 5 / 5  (+ 1 to grade by hand)") == 2
    rows = _rows(graded["marks"])
    assert (rows["alice"][f"{L3}: total"], rows["alice"][f"{L3}: possible"], rows["alice"][WRITTEN]) == ("5", "6", "")
    assert "to grade by hand: what BLEU would do without BP" in rows["alice"]["notes"]
    page = (graded["feedback"] / "alice" / f"{L3}.html").read_text(encoding="utf-8")
    assert "Score: 5 / 6" in page and "not marked yet" in page
    assert _canvas_cells(graded["canvas"]) == {"alice": "5", "bob": "5"}
    stored = hand_marks.load_grades(store)
    assert [a.student for a in hand_marks.written_answers(stored, {})] == ["alice", "bob"]


def test_mark_records_marks_and_every_export_shows_the_same_total_without_running_a_kernel(graded, monkeypatch,
                                                                                           capsys):
    def no_kernel(*args, **kwargs):
        raise AssertionError("bleu-lab mark ran a notebook")

    monkeypatch.setattr(KernelSession, "__init__", no_kernel)
    monkeypatch.setattr(assignments_cli, "grade_batch", no_kernel)
    store = graded["store"]
    before = graded["marks"].read_bytes()
    assert assignments_main(["mark", str(store), "--set", "alice:03:what=2"]) == 2  # more than the answer's 1 point
    assert "'2' is not a mark: expected a number from 0 to 1" in capsys.readouterr().err
    for bad, why in (("alice:03:what=-1", "expected a number from 0 to 1"), ("alice:03:what=nan", "not a mark"),
                     ("alice:03:what=good", "not a mark"), ("carol:03:what=1", "no written answer of theirs"),
                     ("alice:03:nothing=1", "expected one of 'what BLEU would do without BP'"),
                     ("alice=1", "expected STUDENT:LESSON:EXERCISE=MARK")):
        assert assignments_main(["mark", str(store), "--set", "alice:03:what=1", "--set", bad]) == 2, bad
        assert why in capsys.readouterr().err, bad
    assert graded["marks"].read_bytes() == before  # nothing recorded: every mark is checked first
    assert not hand_marks.hand_marks_path(store).exists()

    assert assignments_main(["mark", str(store), "--set", f"alice:{L3}:what BLEU would do without BP=1",
                             "--set", "bob:03:what=0,5"]) == 0
    assert "recorded 2 marks by hand" in capsys.readouterr().out
    recorded = hand_marks.hand_marks_path(store)
    assert stat.S_IMODE(recorded.stat().st_mode) == 0o600
    assert json.loads(recorded.read_text(encoding="utf-8"))["marks"] == {"alice": {WRITTEN: 1}, "bob": {WRITTEN: 0.5}}
    rows = _rows(graded["marks"])
    assert (rows["alice"][WRITTEN], rows["alice"][f"{L3}: total"], rows["alice"][f"{L3}: possible"]) == ("1", "6", "6")
    assert (rows["bob"][WRITTEN], rows["bob"][f"{L3}: total"]) == ("0.5", "5.5")
    assert "to grade by hand" not in rows["alice"]["notes"] + rows["bob"]["notes"]
    for student, score in (("alice", "6 / 6"), ("bob", "5.5 / 6")):
        page = (graded["feedback"] / student / f"{L3}.html").read_text(encoding="utf-8")
        assert f"Score: {score}" in page and "not marked yet" not in page
        assert stat.S_IMODE((graded["feedback"] / student / f"{L3}.html").stat().st_mode) == 0o600
    assert _canvas_cells(graded["canvas"]) == {"alice": "6", "bob": "5.5"}
    stored = hand_marks.load_grades(store)
    alice = [g for g in stored.grades if g.path.parts[-3] == "alice"]
    results = gradescope_results(alice, by_hand=hand_marks.load_hand_marks(store)["alice"])
    written = next(t for t in results["tests"] if t["name"].endswith("(written answer)"))
    assert (results["score"], written["score"], written["max_score"]) == (6, 1, 1)


def test_mark_from_a_filled_marks_csv_and_a_mark_removed(graded, capsys, tmp_path):
    store = graded["store"]
    rows = list(_rows(graded["marks"]).values())
    rows[0][WRITTEN], rows[1][WRITTEN] = "0", ""  # alice 0; bob's cell left empty: his mark stays
    filled = tmp_path / "filled.csv"
    with filled.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    assert assignments_main(["mark", str(store), "--from", str(filled)]) == 0
    capsys.readouterr()
    assert (_rows(graded["marks"])["alice"][f"{L3}: total"], _rows(graded["marks"])["bob"][f"{L3}: total"]) == (
        "5", "5.5")
    rows[0][WRITTEN] = "3"
    with filled.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    assert assignments_main(["mark", str(store), "--from", str(filled)]) == 2
    assert f"--from {filled}: alice, {L3}, 'what BLEU would do without BP': '3' is not a" in capsys.readouterr().err
    assert assignments_main(["mark", str(store), "--set", "bob:03:what="]) == 0  # removed: to grade by hand again
    row = _rows(graded["marks"])["bob"]
    assert (row[WRITTEN], row[f"{L3}: total"]) == ("", "5") and "to grade by hand" in row["notes"]
    assert assignments_main(["mark", str(graded["marks"])]) == 2
    assert "not the grades that bleu-lab grade stored" in capsys.readouterr().err


def test_the_page_keeps_a_students_answer_as_text(graded):
    page = MarkingSession(hand_marks.load_grades(graded["store"]), "bleu-lab", token="t").page()
    assert "<script>alert" not in page and "<img" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(2)&gt;" in page
    assert page.count('<form method="post" action="/mark"') == 2 and "short output; a high score" in page


def test_the_page_lists_one_student_or_the_answers_still_to_mark(graded):
    session = MarkingSession(hand_marks.load_grades(graded["store"]), "bleu-lab", token="t")
    forms = '<form method="post" action="/mark"'
    assert session.page().count(forms) == 2 and "Listing" not in session.page()
    bob = session.page(chosen=Filter("BO"))  # part of the login, any case
    assert bob.count(forms) == 1 and '<h2 id="title-1">bob: ' in bob and "Listing 1 of 2" in bob
    assert '<input type="hidden" name="student" value="BO">' in bob  # each mark form carries the filter back
    to_mark = sum(1 for a in session.answers() if a.mark is None)
    assert session.page(chosen=Filter(unmarked=True)).count(forms) == to_mark
    assert "No written answer is listed with this filter." in session.page(chosen=Filter("carol"))
    assert Filter.from_query({"student": [" bob "], "unmarked": ["1"]}).query() == {"student": "bob", "unmarked": "1"}


def test_a_regrade_keeps_the_marks_by_hand(graded, capsys):
    assert assignments_main(["mark", str(graded["store"]), "--set", "alice:03:what=1"]) == 0
    capsys.readouterr()
    done = subprocess.run(graded["command"], capture_output=True, text=True, timeout=900,
                          cwd=graded["store"].parent)  # the same grade command again
    assert done.returncode == 0, done.stderr[-3000:]
    rows = _rows(graded["marks"])
    assert (rows["alice"][WRITTEN], rows["alice"][f"{L3}: total"]) == ("1", "6")
    assert (rows["bob"][WRITTEN], rows["bob"][f"{L3}: total"]) == ("", "5")
    assert _canvas_cells(graded["canvas"]) == {"alice": "6", "bob": "5"}


def test_a_regrade_drops_a_mark_whose_answer_changed_and_lists_it_to_mark_again(graded, tmp_path, monkeypatch,
                                                                               capsys):
    """A mark is bound to the answer it marks (its text's SHA-256): a regrade that finds Alice's answer changed drops
    her mark and lists the answer to mark again (grade's output, the page); Bob's, unchanged, keeps his."""
    stored = hand_marks.load_grades(graded["store"])
    marks = tmp_path / "marks.csv"
    store = hand_marks.save_grades(tmp_path / "marks.csv.grades.json", stored.grades, ExportSettings(csv=marks))
    assert assignments_main(["mark", str(store), "--set", "alice:03:what=1", "--set", "bob:03:what=0.5"]) == 0
    capsys.readouterr()
    regraded = copy.deepcopy(stored.grades)
    [alice] = [g for g in regraded if g.path.parts[-3] == "alice"]
    [written] = [e for e in alice.exercises if e.manual]
    written.answer += " (and one more sentence, written after the mark)"

    def batch(paths, *, export, **options):  # the regrade's kernels, their grades given: no notebook runs
        export(regraded)
        return 0

    monkeypatch.setattr(assignments_cli, "grade_batch", batch)
    assert assignments_main(["grade", *(str(g.path) for g in regraded), "--csv", str(marks)]) == 0
    assert f"to mark again (1, the written answer changed since its mark, which is dropped): alice: {WRITTEN}" in \
        capsys.readouterr().err
    rows = _rows(marks)
    assert (rows["alice"][WRITTEN], rows["alice"][f"{L3}: total"]) == ("", "5")
    assert (rows["bob"][WRITTEN], rows["bob"][f"{L3}: total"]) == ("0.5", "5.5")
    assert "to grade by hand: what BLEU would do without BP" in rows["alice"]["notes"]
    recorded = json.loads(hand_marks.hand_marks_path(store).read_text(encoding="utf-8"))
    assert (recorded["marks"], recorded["again"]) == ({"bob": {WRITTEN: 0.5}}, {"alice": [WRITTEN]})
    page = MarkingSession(hand_marks.load_grades(store), "bleu-lab", token="t").page()
    assert page.count("to mark again: the answer changed since its mark (a regrade)") == 1
    assert assignments_main(["mark", str(store), "--set", "alice:03:what=0"]) == 0  # marked again: bound anew
    recorded = json.loads(hand_marks.hand_marks_path(store).read_text(encoding="utf-8"))
    assert recorded["again"] == {} and recorded["answers"]["alice"][WRITTEN] == hand_marks.answer_digest(
        written.answer)
    assert _rows(marks)["alice"][f"{L3}: total"] == "5"


def test_mark_writes_gradescopes_results_again_with_the_mark_in_the_score(tmp_path, capsys):
    from bleu_lab.assignments import lesson_gradings
    from bleu_lab.assignments.results import ExerciseResult, NotebookGrade

    grade = NotebookGrade(tmp_path / "alice" / f"{L3}.ipynb", L3)
    for e in lesson_gradings()[L3].exercises:
        grade.exercises.append(ExerciseResult(e.name, e.points, e.points, bool(e.manual), answer="my words",
                                              key_points=e.manual, hidden_points=int(e.hidden is not None)))
    results = tmp_path / "results.json"
    store = hand_marks.save_grades(tmp_path / "results.json.grades.json", [grade], ExportSettings(gradescope=results))
    assert assignments_main(["mark", str(store), "--set", "alice:03:what=0.5"]) == 0
    capsys.readouterr()
    written = json.loads(results.read_text(encoding="utf-8"))
    test = next(t for t in written["tests"] if t["name"].endswith("(written answer)"))
    assert (written["score"], test["score"], test["max_score"]) == (5.5, 0.5, 1)
    assert f"{L3} ({L3}.ipynb): 5.5 / 6" in written["output"]
    assert stat.S_IMODE(results.stat().st_mode) == 0o600


def test_grade_with_feedback_pages_alone_stores_its_grades_in_the_new_folder_and_mark_reads_them(graded, tmp_path):
    """`--feedback DIR` with no other export, DIR not there yet: the grades go to DIR/.bleu-lab-grades.json (DIR made
    0700), which `collect --return` leaves out, and a mark recorded there reaches the student's page."""
    command = graded["command"]
    notebook = command[2]  # alice's solved lesson 3
    feedback = tmp_path / "new" / "feedback"
    done = subprocess.run([str(BLEU_LAB), "grade", notebook, "--seed", "44", "--feedback", str(feedback)],
                          capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    store = feedback / hand_marks.FEEDBACK_ONLY_NAME
    assert stat.S_IMODE(store.stat().st_mode) == 0o600 and stat.S_IMODE(feedback.stat().st_mode) == 0o700
    page = feedback / "alice" / f"{L3}.html"
    assert "Score: 5 / 6" in page.read_text(encoding="utf-8")
    assert assignments_main(["mark", str(store), "--set", "alice:03:what=1"]) == 0
    assert "Score: 6 / 6" in page.read_text(encoding="utf-8")
