"""Late work (issue 44): `bleu-lab collect --deadline` judges lateness, `bleu-lab grade` carries it into every export
and applies `--late-penalty`.

One real batch: homes in a temporary folder, laid out as the hub's `bleu-lab lessons` leaves them; bob saved the
solved lesson 0, and the deadline is his file's last change; then alice saved the solved lesson 0 and set its
modification time back to 2020 (`touch -d`), and dave saved the untouched copy: their change times (which no user can
set) are after the deadline, so both are late. The real `bleu-lab collect` and `bleu-lab grade --late-penalty
25%/day --csv --feedback --canvas` run on them; the marks CSV (what Moodle imports), the pages, Canvas's import, the
report and Gradescope's results must show lateness and the penalty, exactly.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from pathlib import Path

import pytest

from bleu_lab.assignments.cli import main as assignments_main
from bleu_lab.assignments.collect import collect
from bleu_lab.assignments.gradebook import gradescope_results
from bleu_lab.assignments.lateness import (
    Lateness,
    format_past,
    parse_past,
    parse_penalty,
    penalise,
    read_lateness,
)
from bleu_lab.assignments.release import release
from bleu_lab.assignments.results import ExerciseResult, NotebookGrade

REPO = Path(__file__).resolve().parent.parent
BLEU_LAB = Path(sys.executable).parent / "bleu-lab"
L0 = "00_start_here"
NOTEBOOK = ("bleu-lab-course", "notebooks")
FORGED = datetime(2020, 1, 1, tzinfo=UTC).timestamp()


def _save(homes: Path, student: str, source: Path) -> Path:
    folder = homes.joinpath(student, *NOTEBOOK)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{L0}.ipynb"
    shutil.copy(source, path)
    return path


def _save_after(homes: Path, student: str, source: Path, deadline: float) -> Path:
    """Save ``source`` as the student's lesson until its change time is after ``deadline`` (the kernel's clock ticks
    in milliseconds: a few tries at most, bounded at 10 s), its modification time set back to 2020 each time."""
    stop = time.monotonic() + 10
    while True:
        path = _save(homes, student, source)
        os.utime(path, (FORGED, FORGED))
        if path.stat().st_ctime > deadline:
            return path
        assert time.monotonic() < stop, "the change time did not pass the deadline within 10 s"


def _rows(path: Path) -> dict[str, dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return {row["student"]: row for row in csv.DictReader(f)}


@pytest.fixture(scope="module")
def late_batch():
    root = Path(tempfile.mkdtemp(prefix="bleu-lab-late-"))
    course = root / "release"
    release(course, REPO / "notebooks")
    homes = root / "home"
    bob = _save(homes, "bob", course / "solved" / f"{L0}.ipynb")
    deadline_ts = bob.stat().st_ctime
    deadline = datetime.fromtimestamp(deadline_ts, UTC)
    alice = _save_after(homes, "alice", course / "solved" / f"{L0}.ipynb", deadline_ts)
    dave = _save_after(homes, "dave", course / "student" / f"{L0}.ipynb", deadline_ts)
    late_by = {student: format_past(datetime.fromtimestamp(path.stat().st_ctime, UTC) - deadline)
               for student, path in (("alice", alice), ("dave", dave))}  # exactly, from the homes' files
    submitted = root / "course" / "submitted"
    gradebook = root / "Grades-BLEU.csv"  # as Canvas exports it (tests/test_canvas.py has the details)
    gradebook.write_text(f"Student,ID,SIS User ID,SIS Login ID,Section,Lesson 0: {L0} (222),Current Score\r\n"
                         "    Points Possible,,,,,2.00,(read only)\r\n"
                         '"Doe, Alice",1001,S1001,alice,Section A,,\r\n'
                         '"Roe, Bob",1002,S1002,bob,Section A,,\r\n'
                         '"Poe, Dave",1003,S1003,dave,Section A,,\r\n', encoding="utf-8")
    run = [str(BLEU_LAB)]
    collected = subprocess.run([*run, "collect", L0, "--homes", str(homes), "--to", str(submitted), "--deadline",
                                deadline.isoformat()], capture_output=True, text=True, timeout=120)
    notebooks = sorted(map(str, submitted.glob(f"*/{L0}/{L0}.ipynb")))
    graded = subprocess.run([*run, "grade", *notebooks, "--seed", "7", "--timeout", "120", "--late-penalty",
                             "25%/day", "--csv", str(root / "marks.csv"), "--feedback", str(root / "feedback"),
                             "--canvas", str(gradebook), "-o", str(root / "import.csv")],
                            capture_output=True, text=True, timeout=900)
    yield root, collected, graded, deadline, alice, late_by
    shutil.rmtree(root, ignore_errors=True)


def test_collect_judges_by_the_change_time_and_writes_the_deadline(late_batch):
    root, collected, _, deadline, alice, late_by = late_batch
    assert collected.returncode == 0, collected.stderr
    assert alice.stat().st_mtime == FORGED  # what alice set, and the change time she could not
    rows = _rows(root / "course" / f"{L0}-collected.csv")
    assert {s: (r["status"], r["late"]) for s, r in rows.items()} == {
        "alice": ("late", "yes"), "bob": ("collected", "no"), "dave": ("late", "yes")}
    assert {r["deadline"] for r in rows.values()} == {deadline.isoformat()}
    assert {s: r["late by"] for s, r in rows.items()} == {**late_by, "bob": ""}
    assert all(re.fullmatch(r"0 d 00:00:0\d(\.\d{6})?", by) for by in late_by.values()), late_by  # ms, not days


def test_grade_shows_lateness_and_the_penalty_in_every_export(late_batch):
    root, _, graded, _, _, late_by = late_batch
    alice_by, dave_by = late_by["alice"], late_by["dave"]
    assert graded.returncode == 0, graded.stderr[-2000:]
    # the report: a line of lateness above each score line, the mark after the penalty at its end
    scores = [line for line in graded.stdout.splitlines() if line.startswith("score:")]
    assert scores == ["score: 2 / 2  late: 1.5 / 2 after a penalty of 0.5", "score: 2 / 2",
                      "score: 0 / 2  late: 0 / 2 after a penalty of 0"]
    assert f"  late: last changed {alice_by} after the deadline" in graded.stdout
    assert "late penalty 0.5 (25%: 1 started day at 25%/day): 1.5 / 2" in graded.stdout
    assert "  handed in on time (last changed before the deadline" in graded.stdout
    # the marks CSV (Moodle's import): raw total, late, how late, penalty, final
    rows = _rows(root / "marks.csv")
    cells = {s: [r[f"{L0}: {c}"] for c in ("total", "possible", "late", "late by", "late penalty", "final")]
             for s, r in rows.items()}
    assert cells == {"alice": ["2", "2", "yes", alice_by, "0.5", "1.5"],
                     "bob": ["2", "2", "no", "", "0", "2"],
                     "dave": ["0", "2", "yes", dave_by, "0", "0"]}
    # the feedback pages
    alice = (root / "feedback" / "alice" / f"{L0}.html").read_text(encoding="utf-8")
    assert "Score: 1.5 / 2 after the late penalty (2 / 2 before it, 0.5 taken off)" in alice
    assert f"Handed in late: the notebook last changed {alice_by} (days hh:mm:ss) after the deadline" in alice
    assert "Late penalty: 25% of the 2 points possible: 1 started day late, at most the points earned: 0.5 taken " \
           "off (the rule: 25% of the points possible per started day late, at most 100%)" in alice
    bob = (root / "feedback" / "bob" / f"{L0}.html").read_text(encoding="utf-8")
    assert "Score: 2 / 2</p><p>Handed in on time" in bob
    # Canvas: the score imported is after the penalty (its import has no column for lateness), the report says so
    assert (root / "import.csv").read_text(encoding="utf-8").splitlines()[2:] == [
        '"Doe, Alice",1001,S1001,alice,Section A,1.5', '"Roe, Bob",1002,S1002,bob,Section A,2',
        '"Poe, Dave",1003,S1003,dave,Section A,0']
    assert ("late (2; the score imported is after the late penalty, 25% of the points possible per started day "
            f"late, at most 100%): alice ({alice_by}: 2 - 0.5 = 1.5); dave ({dave_by}: 0 - 0 = 0)") in graded.stderr


def test_canvas_from_the_marks_csv_alone_applies_the_same_penalty(late_batch, capsys):
    root, _, graded, _, _, late_by = late_batch
    assert graded.returncode == 0
    out = root / "import-again.csv"
    assert assignments_main(["grade", "--manual", str(root / "marks.csv"), "--canvas", str(root / "Grades-BLEU.csv"),
                             "-o", str(out), "--late-penalty", "25%/day"]) == 0
    assert out.read_text(encoding="utf-8") == (root / "import.csv").read_text(encoding="utf-8")
    assert f"alice ({late_by['alice']}: 2 - 0.5 = 1.5)" in capsys.readouterr().err


def test_gradescope_results_score_after_the_penalty(late_batch):
    """Gradescope's results.json of alice's notebook (the grade as the grader reports it): the score after the
    penalty, the output saying how late."""
    root, _, _, _, _, late_by = late_batch
    path = root / "course" / "submitted" / "alice" / L0 / f"{L0}.ipynb"
    grade = NotebookGrade(path, L0, [ExerciseResult("reading the explanation", 1, 1),
                                     ExerciseResult("a better translation", 1, 1)])
    results = gradescope_results([grade], late=read_lateness([path], rule=parse_penalty("25%/day")))
    assert results["score"] == 1.5
    assert "late penalty 0.5 (25%: 1 started day at 25%/day): 1.5 / 2" in results["output"]
    assert json.loads(json.dumps(results))["score"] == 1.5
    no_rule = gradescope_results([grade], late=read_lateness([path]))
    assert no_rule["score"] == 2 and f"late: last changed {late_by['alice']} after the deadline" in no_rule["output"]


def test_without_a_manifest_lateness_is_unknown_and_a_penalty_is_refused(tmp_path, capsys):
    """Notebooks that collect did not gather: lateness unknown (no column, no line); --late-penalty then refuses
    before grading, naming where the manifest was looked for."""
    path = tmp_path / "submitted" / "alice" / L0 / f"{L0}.ipynb"
    path.parent.mkdir(parents=True)
    shutil.copy(REPO / "notebooks" / f"{L0}.ipynb", path)
    late = read_lateness([path])
    assert not late.shown and late.line(2, 2, path) == ""
    assert assignments_main(["grade", str(path), "--late-penalty", "10%/day"]) == 2
    err = capsys.readouterr().err
    assert "--late-penalty 10%/day: no notebook's lateness is known" in err
    assert "collect with bleu-lab collect --deadline, or give its manifest with --manifest" in err
    assert assignments_main(["grade", str(path), "--manifest", str(tmp_path / "nope.csv")]) == 2
    assert "--manifest" in capsys.readouterr().err


def test_a_notebook_changed_since_collect_has_unknown_lateness(tmp_path):
    """The manifest's row is the notebook's only if its SHA-256 is: a copy changed since (by anyone) is not judged."""
    homes = tmp_path / "home"
    _save(homes, "erin", REPO / "notebooks" / f"{L0}.ipynb")
    report = collect(L0, homes, tmp_path / "submitted", deadline=datetime(2000, 1, 1, tzinfo=UTC))
    copy = tmp_path / "submitted" / "erin" / L0 / f"{L0}.ipynb"
    assert read_lateness([copy]).of(copy).late is True
    copy.write_bytes(copy.read_bytes() + b" ")
    lateness = read_lateness([copy]).of(copy)
    assert lateness.late is None and "changed since it was collected" in lateness.note
    assert str(report.manifest) in lateness.note


@pytest.mark.parametrize("bad, says", [
    ("10", "expected P% (P% of the points once late"), ("10%/week", "expected P%"), ("-5%", "expected P%"),
    ("0%", "the penalty must be above 0% and at most 100%, not 0%"),
    ("150%/day", "the penalty must be above 0% and at most 100%, not 150%"),
    ("10%/day,max=5%", "max=5% is below the daily 10%"), ("10%/day,max=101%", "max must be above 0%"),
    ("1e2%", "expected P%"), ("nan%", "expected P%")])
def test_bad_late_penalties_are_refused_in_one_line_naming_the_flag(bad, says, tmp_path, capsys):
    path = tmp_path / "x.ipynb"
    assert assignments_main(["grade", str(path), f"--late-penalty={bad}"]) == 2
    err = capsys.readouterr().err
    assert f"--late-penalty {bad!r}: " in err and says in err and err.count("\n") == 1


def test_the_penalty_is_exact_capped_and_never_below_zero():
    """Per started day (1 s late is a day, 24 h 1 s two), at most max=, never more than the marks earned, in exact
    fractions (by-hand marks given as floats are read as the decimals they print)."""
    rule = parse_penalty("10%/day,max=25%")
    late = [Lateness(True, timedelta(seconds=s)) for s in (1, 86400, 86401, 10 * 86400)]
    assert [penalise(6, 6, x, rule).penalty for x in late] == [Fraction(3, 5), Fraction(3, 5), Fraction(6, 5),
                                                                 Fraction(3, 2)]
    assert penalise(Fraction(1, 2), 6.0, late[0], parse_penalty("12.5%")).final == 0  # 0.75 off 0.5: 0, not -0.25
    third = penalise(0.3, 3, late[2], parse_penalty("33.3%/day"))  # 1.998 off 0.3 earned: all of it, exactly
    assert (third.raw, third.penalty, third.final, third.share) == (Fraction(3, 10), Fraction(3, 10), 0,
                                                                    Fraction(666, 1000))
    assert penalise(2, 2, Lateness(False), rule).penalty == 0 and penalise(2, 2, Lateness(), rule).final == 2
    with pytest.raises(ValueError, match="time past the deadline is unknown, so its days late are too"):
        penalise(2, 2, Lateness(True), rule)
    assert penalise(2, 2, Lateness(True), parse_penalty("100%")).final == 0
    day_and_a_microsecond = timedelta(days=1, microseconds=1)  # the started days are exact, to the microsecond
    assert format_past(day_and_a_microsecond) == "1 d 00:00:00.000001"
    assert parse_past("1 d 00:00:00.000001") == day_and_a_microsecond
    assert Lateness(True, parse_past(format_past(day_and_a_microsecond))).days == 2


def test_mark_takes_the_late_penalty_off_the_total_with_the_mark_by_hand_in_every_export(tmp_path, monkeypatch,
                                                                                         capsys):
    """A late lesson 3 (a written answer: worth 6) graded with --late-penalty by the real command, then `bleu-lab mark
    --set` its mark by hand: the marks CSV (Moodle's import), the feedback page, Canvas's import and Gradescope's
    results all show the penalty, 2 started days at 10%/day of 6 = 1.2, taken off the total with the mark (6 - 1.2 =
    4.8), written again from the stored grades with no kernel run and the manifest not read again."""
    from bleu_lab.assignments import cli as assignments_cli
    from bleu_lab.assignments.gradebook import by_hand_column
    from bleu_lab.assignments.session import KernelSession

    lesson = "03_brevity_penalty"
    release(tmp_path / "course", REPO / "notebooks")
    home = tmp_path.joinpath("home", "alice", *NOTEBOOK)
    home.mkdir(parents=True)
    shutil.copy(tmp_path / "course" / "solved" / f"{lesson}.ipynb", home / f"{lesson}.ipynb")
    deadline = datetime.now(UTC) - timedelta(hours=30)  # saved just before: 30 h late, less a moment: 2 started days
    collect(lesson, tmp_path / "home", tmp_path / "submitted", deadline=deadline)
    (tmp_path / "Grades.csv").write_text(
        f"Student,ID,SIS User ID,SIS Login ID,Section,Lesson 3: {lesson} (12345)\r\n    Points Possible,,,,,6.00\r\n"
        '"Doe, Alice",1001,S1001,alice,Section A,\r\n', encoding="utf-8")
    done = subprocess.run([str(BLEU_LAB), "grade", f"submitted/alice/{lesson}/{lesson}.ipynb", "--seed", "7",
                           "--late-penalty", "10%/day", "--csv", "marks.csv", "--feedback", "feedback",
                           "--gradescope", "results.json", "--canvas", "Grades.csv", "-o", "import.csv"],
                          capture_output=True, text=True, timeout=900, cwd=tmp_path)  # relative paths: mark runs
    assert done.returncode == 0, done.stderr[-3000:]                                  # from another folder
    assert "score: 5 / 5  (+ 1 to grade by hand)  late: 3.8 / 6 after a penalty of 1.2" in done.stdout
    written = by_hand_column(lesson, "what BLEU would do without BP")
    page = tmp_path / "feedback" / "alice" / f"{lesson}.html"

    def exports() -> tuple:
        row = _rows(tmp_path / "marks.csv")["alice"]
        results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
        canvas = (tmp_path / "import.csv").read_text(encoding="utf-8").splitlines()[2].split(",")[-1]
        return ([row[c] for c in (written, f"{lesson}: total", f"{lesson}: possible", f"{lesson}: late",
                                  f"{lesson}: late penalty", f"{lesson}: final")],
                results["score"], canvas, page.read_text(encoding="utf-8"))

    row, score, canvas, html = exports()
    assert (row, score, canvas) == (["", "5", "6", "yes", "1.2", "3.8"], 3.8, "3.8")
    assert "Score: 3.8 / 6 after the late penalty (5 / 6 before it, 1.2 taken off)" in html

    def no_kernel(*args, **kwargs):
        raise AssertionError("bleu-lab mark ran a notebook")

    monkeypatch.setattr(KernelSession, "__init__", no_kernel)
    monkeypatch.setattr(assignments_cli, "grade_batch", no_kernel)
    (tmp_path / f"{lesson}-collected.csv").unlink()  # the lateness is the one stored with the grades
    assert assignments_main(["mark", str(tmp_path / "marks.csv.grades.json"), "--set", "alice:03:what=1"]) == 0
    capsys.readouterr()
    row, score, canvas, html = exports()
    assert (row, score, canvas) == (["1", "6", "6", "yes", "1.2", "4.8"], 4.8, "4.8")
    assert "Score: 4.8 / 6 after the late penalty (6 / 6 before it, 1.2 taken off)" in html
    assert "Late penalty: 20% of the 6 points possible: 2 started days late, at most the points earned: 1.2 taken " \
           "off" in html
    assert re.search(r"Handed in late: the notebook last changed 1 d 05:59:\d\d(\.\d{6})? \(days hh:mm:ss\) after the "
                     r"deadline \(", html)  # saved just before the deadline was set
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert "late penalty 1.2 (20%: 2 started days at 10%/day): 4.8 / 6" in results["output"]
