"""Marks that reach a gradebook: ``bleu-lab grade ... --csv marks.csv`` and ``--gradescope results.json``.

Both exports are built from the ``NotebookGrade`` list that ``grade_batch`` reports, and from the lessons' own
declarations (``lesson_gradings``), so a column or a test exists for every exercise of a lesson whether or not a
notebook reached it.

**CSV for an LMS** (``marks_table``): one row per student, the student's id in the first column, ``student``
(``roster.student_of``: nbgrader's ``submitted/STUDENT/ASSIGNMENT/``, else the folder the notebook is in; never the
file's name).

Then, for each lesson of the batch in lesson order, a column per automatically marked exercise (``03_brevity_penalty:
my_brevity_penalty``, its points), a column per written answer for its mark by hand (``03_brevity_penalty: what BLEU
would do without BP (by hand)``: empty, for the instructor to fill; ``--manual FILE`` reads them back from such a file,
``bleu-lab mark`` fills them), ``03_brevity_penalty: total`` (the automatic marks plus the marks by hand given so far:
``lesson_total``) and ``03_brevity_penalty: possible`` (the automatic points plus ``WRITTEN_POINTS`` per written answer,
as in Canvas); with several lessons, ``total`` and ``possible`` over all of them (a lesson the student did not hand in
counts in ``possible``); last, ``notes`` (why a notebook was not graded, and the written answers still to grade by
hand). A cell is empty where there is no mark (no notebook of that lesson, or one that could not be graded: ``notes``
says why; an exercise not marked, whose run with bleu_lab's functions hidden could not finish: its cell and its lesson's
total, ``notes`` saying "not marked: grade again"), never a 0 that looks earned; ``total`` is empty too where a lesson
handed in has no total. Written with ``bleu_lab.reports.spreadsheet.write_csv`` (UTF-8, a header row, text cells a
spreadsheet would run as a formula prefixed with ``'``).

**Gradescope** (``gradescope_results``): the results format of Gradescope's autograder specification,
https://gradescope-autograders.readthedocs.io/en/latest/specs/ ("Output format", "Controlling Test Case
Visibility", "Controlling standard output visibility"): a top-level ``score`` and ``output``, and ``tests``, each
with ``name``, ``score``, ``max_score``, ``output`` and ``visibility``. Each function exercise is two tests: its
visible check (``visible``) and its hidden cases (``after_published``: their details, which name the hidden inputs,
are shown to the student only once the instructor publishes the grades; Gradescope then also hides the total until
then). A written answer is a test worth 0 points ("graded by hand") until it has a mark by hand (``bleu-lab mark``),
then worth ``WRITTEN_POINTS`` with that mark, in the score; the output's line for the lesson gives its total out of
the lesson's full points (written answers included, as every other export) and names what waits for a mark by hand.
``stdout_visibility`` is ``hidden``: the
grader's printed report (hidden cases included) is for the instructor.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from ..course.exercises import LessonGrading
from ..files import write_whole
from ..reports.spreadsheet import FORMULA_STARTS, write_csv
from . import lesson_gradings
from .grade import ExerciseResult, NotebookGrade
from .lateness import LateWork, Marked, exact, number, points
from .results import WRITTEN_POINTS
from .roster import student_of

HIDDEN_PREFIX = "hidden cases:"  # how grade_exercise starts the message of failed hidden cases
ANSWER_SHOWN = 1000  # characters of a written answer echoed back in its Gradescope test
GRADESCOPE_SPEC = "https://gradescope-autograders.readthedocs.io/en/latest/specs/"
MAX_MARKS_BYTES = 50_000_000
BY_HAND = " (by hand)"  # ends the column of a written answer's mark


def student_id(path: Path, lessons: Iterable[str] = ()) -> str:
    """The student a submitted notebook belongs to: ``roster.student_of`` (``lessons``, no longer needed, is
    ignored)."""
    return student_of(path)


# ------------------------------------------------------------------------------------------------ CSV for an LMS


def _auto_exercises(grading: LessonGrading) -> list[str]:
    return [e.name for e in grading.exercises if not e.manual]


def _possible(grading: LessonGrading) -> int:
    """A lesson's total: its automatic points plus ``WRITTEN_POINTS`` per written answer."""
    return sum(e.points for e in grading.exercises) + WRITTEN_POINTS * sum(1 for e in grading.exercises if e.manual)


def plain(number: float) -> int | float:
    """``number`` as an ``int`` where it is whole (a CSV cell ``6``, not ``6.0``)."""
    return int(number) if float(number).is_integer() else number


@dataclass(frozen=True)
class LessonTotal:
    """One graded notebook's total with its marks by hand: ``score`` out of ``possible`` (before any late penalty),
    the written answers still to mark (``to_mark``: not in ``score``), and, with lateness (``lateness.LateWork``),
    ``marked``: that total before and after the late penalty."""

    score: int | float
    possible: int
    to_mark: tuple[str, ...] = ()
    marked: Marked | None = None

    @property
    def final(self) -> Fraction:
        """The total after the late penalty (``score`` where there is none), exactly."""
        return self.marked.final if self.marked is not None else exact(self.score)

    @property
    def penalty(self) -> Fraction:
        """The points the late penalty takes off (0 where there is none)."""
        return self.marked.penalty if self.marked is not None else Fraction(0)


def lesson_total(grade: NotebookGrade, by_hand: Mapping[str, float] | None = None,
                 late: LateWork | None = None) -> LessonTotal:
    """The total of a graded notebook, the one every export shows: its automatic points plus the marks by hand of its
    written answers (``by_hand``: the student's, by ``by_hand_column``), out of the automatic points plus
    ``WRITTEN_POINTS`` per written answer; with ``late``, the late penalty on that whole total (``LateWork.mark``:
    a share of that possible, exact)."""
    marks = by_hand or {}
    given = Fraction(0)
    to_mark = []
    for e in grade.exercises:
        if e.manual:
            mark = marks.get(by_hand_column(grade.lesson, e.name))
            if mark is None:
                to_mark.append(e.name)
            else:
                given += exact(mark)
    raw = exact(grade.score) + given
    marked = late.mark(raw, grade.worth, grade.path) if late is not None else None
    return LessonTotal(plain(float(raw)) if raw.denominator != 1 else raw.numerator, grade.worth, tuple(to_mark),
                       marked)


def _batch_lessons(grades: Sequence[NotebookGrade], gradings: Mapping[str, LessonGrading]) -> list[str]:
    return sorted({g.lesson for g in grades if g.lesson in gradings})


def marks_columns(lessons: Sequence[str], gradings: Mapping[str, LessonGrading] | None = None,
                  late: LateWork | None = None) -> list[str]:
    """The CSV's header for a batch of ``lessons`` (with ``late`` shown: each lesson's ``late_columns``)."""
    gradings = lesson_gradings() if gradings is None else gradings
    columns = ["student"]
    for lesson in lessons:
        columns += [f"{lesson}: {name}" for name in _auto_exercises(gradings[lesson])]
        columns += [by_hand_column(lesson, e.name) for e in gradings[lesson].exercises if e.manual]
        columns += [f"{lesson}: total", f"{lesson}: possible"] + late_columns(lesson, late)
    if len(lessons) > 1:
        columns += ["total", "possible"] + (["final"] if late is not None and late.rule is not None else [])
    return columns + ["notes"]


def late_columns(lesson: str, late: LateWork | None) -> list[str]:
    """A lesson's columns of lateness where it is shown (``LateWork.shown``): ``late`` (yes / no / empty: unknown)
    and ``late by`` (``1 d 02:03:04``); with ``--late-penalty`` also ``late penalty`` (points taken off the total) and
    ``final`` (the total after it)."""
    if late is None or not late.shown:
        return []
    columns = [f"{lesson}: late", f"{lesson}: late by"]
    if late.rule is not None:
        columns += [f"{lesson}: late penalty", f"{lesson}: final"]
    return columns


def by_hand_column(lesson: str, exercise: str) -> str:
    """The column of a written answer's mark, which the grader leaves empty for the instructor to fill."""
    return f"{lesson}: {exercise}{BY_HAND}"


def read_marks(path: str | Path, option: str = "--manual") -> list[dict[str, object]]:
    """The rows of a marks CSV as ``--csv`` wrote it (``student`` as it was before ``write_csv`` protected it), its
    ``(by hand)`` columns as numbers (empty: ""). ValueError naming the cell that is not a mark (a number >= 0), and
    ``option``, the option that gave the file."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{option} {path}: no such file (the marks CSV that --csv wrote, filled in)")
    if path.stat().st_size > MAX_MARKS_BYTES:
        raise ValueError(f"{option} {path}: larger than {MAX_MARKS_BYTES // 1_000_000} MB, not a marks CSV")
    with path.open(encoding="utf-8-sig", newline="") as f:
        reader = csv.DictReader(f)
        if not reader.fieldnames or "student" not in reader.fieldnames:
            raise ValueError(f"{option} {path}: no 'student' column (give the marks CSV that --csv wrote)")
        rows: list[dict[str, object]] = []
        for line, row in enumerate(reader, start=2):
            if None in row:
                raise ValueError(f"{option} {path}: line {line} has more cells than the header (a comma in a cell "
                                 "that is not quoted?)")
            marks: dict[str, object] = dict(row)
            student = row["student"] or ""
            marks["student"] = student[1:] if student.startswith("'") and student[1:].startswith(FORMULA_STARTS) \
                else student
            for column, value in row.items():
                if not (column or "").endswith(BY_HAND) or not (value or "").strip():
                    continue
                try:
                    mark = float(value.strip().replace(",", "."))
                except ValueError:
                    mark = -1.0
                if not 0 <= mark < float("inf"):
                    raise ValueError(f"{option} {path}, line {line}, {column!r}: {value!r} is not a mark (a number "
                                     ">= 0, or empty)")
                marks[column] = mark
            rows.append(marks)
    return rows


def read_by_hand(path: str | Path, option: str = "--manual") -> dict[str, dict[str, float]]:
    """``--manual FILE``: the marks by hand of a marks CSV (``read_marks``), by student and column; empty cells are
    left out."""
    found = {str(row["student"]): {c: v for c, v in row.items() if c.endswith(BY_HAND) and v != ""}
             for row in read_marks(path, option)}
    return {student: marks for student, marks in found.items() if marks}


def marks_table(grades: Sequence[NotebookGrade], by_hand: Mapping[str, Mapping[str, float]] | None = None,
                late: LateWork | None = None) -> tuple[list[str], list[dict[str, object]]]:
    """The CSV's columns and rows (one per student, sorted by id), with the marks ``by_hand`` (``read_by_hand``) in
    their columns and in the totals (``lesson_total``) and, with ``late`` (``lateness``), each notebook's lateness and
    the late penalty on that total. A notebook that was not graded only adds its note; ValueError, naming both
    notebooks, if two graded notebooks give one student the same lesson (``grade_batch(students=...)`` grades one of
    them)."""
    gradings = lesson_gradings()
    lessons = _batch_lessons(grades, gradings)
    columns = marks_columns(lessons, gradings, late)
    rows: dict[str, dict[str, object]] = {}
    placed: dict[tuple[str, str], Path] = {}
    notes: dict[str, list[str]] = {}
    handed_in: dict[str, set[str]] = {}  # the lessons of each student's notebooks
    for grade in grades:
        student = student_of(grade.path)
        marks = (by_hand or {}).get(student, {})
        row = rows.setdefault(student, {"student": student})
        notes.setdefault(student, [])
        if grade.lesson not in gradings:
            notes[student].append(f"{Path(grade.path).name}: {grade.note or 'not graded'}")
            continue
        handed_in.setdefault(student, set()).add(grade.lesson)
        if not grade.graded:
            notes[student].append(f"{grade.lesson} ({Path(grade.path).name}): {grade.note or 'not graded'}")
            continue
        key = (student, grade.lesson)
        if key in placed:
            raise ValueError(f"two notebooks of lesson {grade.lesson} for student {student!r}: {placed[key]} and "
                             f"{grade.path}. Grade them in separate batches, or name each student's folder")
        placed[key] = grade.path
        by_name = {e.name: e for e in grade.exercises}
        for name in _auto_exercises(gradings[grade.lesson]):
            result = by_name.get(name)
            row[f"{grade.lesson}: {name}"] = "" if result is not None and result.unmarked else (
                result.points if result is not None else 0)
        total = lesson_total(grade, marks, late)
        row[f"{grade.lesson}: total"] = "" if grade.unmarked else total.score
        if late is not None and late.shown:
            notes[student] += _late_cells(row, grade, late, total)
        if grade.note:
            notes[student].append(f"{grade.lesson}: {grade.note}")
        if total.to_mark:
            notes[student].append(f"{grade.lesson}: to grade by hand: {', '.join(total.to_mark)}")
    for student, row in rows.items():
        for lesson in lessons:
            row[f"{lesson}: possible"] = _possible(gradings[lesson])
        if len(lessons) > 1:
            totals = [row.get(f"{lesson}: total", "") for lesson in handed_in.get(student, ())]
            row["total"] = plain(sum(totals)) if totals and "" not in totals else ""
            row["possible"] = sum(_possible(gradings[lesson]) for lesson in lessons)
            if late is not None and late.rule is not None:
                finals = [row.get(f"{lesson}: final", "") for lesson in handed_in.get(student, ())]
                row["final"] = points(sum(exact(f) for f in finals)) if finals and "" not in finals else ""
        row["notes"] = "; ".join(notes[student])
        row.update({c: plain(mark) for c, mark in (by_hand or {}).get(student, {}).items() if c in columns})
    return columns, [{c: rows[s].get(c, "") for c in columns} for s in sorted(rows)]


def _late_cells(row: dict[str, object], grade: NotebookGrade, late: LateWork, total: LessonTotal) -> list[str]:
    """Fill a graded notebook's ``late_columns`` in ``row`` (the penalty on ``total``, marks by hand included); the
    notes to add (why its lateness is unknown)."""
    lateness = late.of(grade.path)
    row[f"{grade.lesson}: late"] = lateness.cell()
    row[f"{grade.lesson}: late by"] = lateness.by()
    if late.rule is not None and row[f"{grade.lesson}: total"] != "":
        row[f"{grade.lesson}: late penalty"] = points(total.penalty)
        row[f"{grade.lesson}: final"] = points(total.final)
    return [f"{grade.lesson}: {lateness.describe()}"] if lateness.late is None else []


def write_marks_csv(path: str | Path, grades: Sequence[NotebookGrade],
                    by_hand: Mapping[str, Mapping[str, float]] | None = None, late: LateWork | None = None) -> Path:
    """Write ``marks_table(grades, by_hand, late)`` to ``path`` (through ``write_csv``: formula-safe cells)."""
    columns, rows = marks_table(grades, by_hand, late)
    return write_csv(path, rows, columns)


# ------------------------------------------------------------------------------------------------ Gradescope


def _split_messages(result: ExerciseResult) -> tuple[list[str], list[str]]:
    """The messages of the visible check, and those of the hidden cases."""
    visible = [m for m in result.messages if not m.startswith(HIDDEN_PREFIX)]
    hidden = [m for m in result.messages if m.startswith(HIDDEN_PREFIX)]
    return visible, hidden


def _exercise_tests(lesson: str, exercise, result: ExerciseResult | None, why_none: str,
                    mark: float | None = None) -> list[dict]:
    """One exercise's Gradescope tests: the visible check, its hidden cases, or the written answer (0 points until
    ``mark``, its mark by hand, is given)."""
    name = f"{lesson}: {exercise.name}"
    if exercise.manual:
        text = result.answer if result is not None else ""
        answer = f" Your answer: {text[:ANSWER_SHOWN]}" + (" ..." if len(text) > ANSWER_SHOWN else "") if text else ""
        if mark is not None and result is not None:
            return [{"name": f"{name} (written answer)", "score": plain(mark), "max_score": WRITTEN_POINTS,
                     "visibility": "visible", "output": "Marked by hand." + answer}]
        return [{"name": f"{name} (written answer)", "score": 0, "max_score": 0, "visibility": "visible",
                 "output": "Graded by hand, not part of this score." + answer}]
    if result is None:
        tests = [{"name": name, "score": 0, "max_score": 1, "output": why_none, "visibility": "visible"}]
        if exercise.hidden is not None:
            tests.append({"name": f"{name} (hidden cases)", "score": 0, "max_score": 1, "output": why_none,
                          "visibility": "after_published"})
        return tests
    visible_messages, hidden_messages = _split_messages(result)
    hidden_points = result.hidden_points if exercise.hidden is not None else 0
    visible_points = result.points - hidden_points
    tests = [{"name": name, "score": visible_points, "max_score": 1, "visibility": "visible",
              "output": "passed" if visible_points else "\n".join(visible_messages) or "not passed"}]
    if exercise.hidden is not None:
        if hidden_points:
            output = "passed the hidden cases"
        else:
            output = "\n".join(hidden_messages) or ("not passed: " + "\n".join(visible_messages)
                                                    if visible_messages else "not passed")
        tests.append({"name": f"{name} (hidden cases)", "score": hidden_points, "max_score": 1,
                      "output": output, "visibility": "after_published"})
    return tests


def gradescope_results(grades: Sequence[NotebookGrade], lessons: Sequence[str] | None = None,
                       notes: Sequence[str] = (), extra: Mapping[str, object] | None = None,
                       by_hand: Mapping[str, float] | None = None, late: LateWork | None = None) -> dict:
    """One submission's results in Gradescope's format (``GRADESCOPE_SPEC``), from the grades of its notebooks.

    ``lessons``: the lessons the submission should hold (default: those of ``grades``); one with no notebook scores 0
    with a test per exercise saying so. ValueError if two notebooks are of one lesson (a submission holds one each).
    ``notes``: lines for the submission's ``output`` (e.g. files that were not graded). ``by_hand``: the student's
    marks by hand (by ``by_hand_column``), in the written answers' tests and the score (``lesson_total``). ``late``
    (``lateness``): each lesson's line says how late, and with a penalty rule the score is the total after the late
    penalty (on the total with the marks by hand, as in every export).
    """
    gradings = lesson_gradings()
    lessons = list(lessons) if lessons is not None else _batch_lessons(grades, gradings)
    unknown = [lesson for lesson in lessons if lesson not in gradings]
    if unknown:
        raise ValueError(f"no such lesson: {', '.join(unknown)} (one of {', '.join(sorted(gradings))})")
    by_lesson: dict[str, NotebookGrade] = {}
    lines = list(notes)
    for grade in sorted(grades, key=lambda g: not g.graded):  # a lesson's graded notebook before the others
        if grade.lesson not in lessons:
            why = grade.note or f"lesson {grade.lesson} is not part of this assignment ({', '.join(lessons)})"
            lines.append(f"{Path(grade.path).name}: not graded: {why.removeprefix('not graded: ')}")
            continue
        if grade.lesson in by_lesson and grade.graded:
            raise ValueError(f"two notebooks of lesson {grade.lesson}: {by_lesson[grade.lesson].path} and "
                             f"{grade.path}; one submission holds one notebook of each lesson")
        if grade.lesson in by_lesson:
            lines.append(f"{Path(grade.path).name}: {grade.note or 'not graded'}")
            continue
        by_lesson[grade.lesson] = grade
    unplaced = len(lines) > len(notes)  # notebooks of the submission that are of no lesson of it
    tests: list[dict] = []
    score = Fraction(0)
    for lesson in lessons:
        grade = by_lesson.get(lesson)
        if grade is None and unplaced:
            why = f"no notebook of lesson {lesson} could be graded (see the files above)"
        elif grade is None:
            why = f"no notebook of lesson {lesson} in the submission (upload {lesson}.ipynb)"
        elif not grade.graded:
            why = f"{Path(grade.path).name} could not be graded: {grade.note.removeprefix('not graded: ')}"
        else:
            why = "not graded"
        results = {e.name: e for e in grade.exercises} if grade is not None and grade.graded else {}
        marks = by_hand or {}
        for exercise in gradings[lesson].exercises:
            tests += _exercise_tests(lesson, exercise, results.get(exercise.name), why,
                                     marks.get(by_hand_column(lesson, exercise.name)))
        if grade is None or not grade.graded:
            lines.append(f"{lesson}: 0 / {sum(e.points for e in gradings[lesson].exercises)}: {why}")
            continue
        total = lesson_total(grade, by_hand, late)
        score += total.final
        line = f"{lesson} ({Path(grade.path).name}): {total.score} / {total.possible}"  # as the late line and Canvas
        if total.to_mark:
            waiting = WRITTEN_POINTS * len(total.to_mark)
            line += f" ({waiting} point{'s' if waiting != 1 else ''} to grade by hand, not marked yet: " \
                f"{', '.join(total.to_mark)})"
        late_line = late.line(total.score, total.possible, grade.path) if late is not None else ""
        if late_line:
            line += f"; {late_line}"
        if grade.note:
            line += f"; note: {grade.note}"
        if grade.errors:
            line += f"; cells that raised: {'; '.join(grade.errors[:5])}" + (" ..." if len(grade.errors) > 5 else "")
        lines.append(line)
    results_json = {"score": number(score), "output": "\n".join(lines), "stdout_visibility": "hidden", "tests": tests}
    if extra:
        results_json["extra_data"] = dict(extra)
    return results_json


def write_gradescope(path: str | Path, results: Mapping[str, object]) -> Path:
    """Write Gradescope's ``results.json`` (whole: ``files.write_whole``)."""
    return write_whole(path, json.dumps(results, indent=1, ensure_ascii=False) + "\n")
