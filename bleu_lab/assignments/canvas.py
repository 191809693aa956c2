"""``bleu-lab grade ... --canvas GRADEBOOK.csv -o IMPORT.csv``: a lesson's marks as a file Canvas's gradebook import
takes, built from the gradebook Canvas exports.

The layout, as Canvas's own code writes and reads it (``lib/gradebook_exporter.rb`` and ``lib/gradebook_importer.rb``
in https://github.com/instructure/canvas-lms):

- the header: ``Student`` (or ``LastName, FirstName``), ``ID``, then ``SIS User ID``, ``SIS Login ID`` (and
  ``Integration ID``, ``Root Account`` where the account shows them), ending with ``Section``; custom columns; then
  each assignment as ``Title (id)``; then read-only totals (``Current Score`` ...);
- an optional row of ``Manual Posting`` marks, then the ``    Points Possible`` row (the assignments' points, the
  totals ``(read only)``); then one row per student, Canvas's Test Student last;
- a name starting with ``=`` written as ``="..."``; a UTF-8 byte-order mark and ``;`` as the separator where the user
  chose them (the importer detects ``;`` and reads ``5,5`` as ``5.5``).

The importer identifies a student by ``ID``, then ``SIS User ID``, then ``SIS Login ID``, then the name; it needs the
header up to ``Section``; it ignores unchanged cells and read-only columns. So the file written here holds the
identity columns exactly as exported, the lesson's assignment column, the ``Points Possible`` row as exported, and
every exported student: a matched student gets the lesson's marks, every other row keeps its exported cell (no change).

A marks row (``gradebook.marks_table``: the student is a hub login, a folder name or nbgrader's id) is matched to a
Canvas row by ``SIS Login ID``, else ``SIS User ID``, else the login part (before ``@``) of the SIS Login ID, ignoring
case; the report says how each was matched and lists the unmatched on both sides.

The score is the lesson's automatic points (the sum of its exercises' columns in the marks) plus the marks given by
hand to its written answers (``bleu-lab mark``, or ``--manual``): the total of every other export. Canvas's
points possible for the assignment must be the lesson's total: its automatic points plus ``WRITTEN_POINTS`` for each
written answer (lesson 3: 5 + 1 = 6). Other points are refused, never rescaled, unless ``--points N`` says that
Canvas's N is meant: N at least the automatic points, and above them only for a lesson with written answers (the rest
is theirs). A student of the batch whom no Canvas row matches stops the command (before grading where it can tell)
unless ``--allow-missing``: a mark that would silently never reach the gradebook is a lost mark. A row named
``Points Possible`` other than Canvas's own (a second one, or one with a student's ID: a student can choose that
display name) is refused in one line, never read as the points.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from ..course.exercises import LessonGrading
from . import lesson_gradings
from .grade import NotebookGrade
from .gradebook import WRITTEN_POINTS, by_hand_column, marks_table
from .lateness import UNKNOWN, Lateness, LateWork, Penalty, exact, from_cells, penalise
from .lateness import points as format_points
from .private import write_private
from .roster import student_of

EXPORTER = "https://github.com/instructure/canvas-lms/blob/master/lib/gradebook_exporter.rb"
IMPORTER = "https://github.com/instructure/canvas-lms/blob/master/lib/gradebook_importer.rb"
IDENTITY = ("Student", "LastName", "FirstName", "ID", "SIS User ID", "SIS Login ID", "Integration ID", "Root Account",
            "Section")
NOT_ASSIGNMENTS = re.compile(r"Current Score|Current Points|Current Grade|Final Score|Final Points|Final Grade|"
                             r"Override Score|Override Grade|Override Status")
TITLE_AND_ID = re.compile(r"\A(.*)\s\((\d+)\)\Z")  # Canvas's Assignment.title_and_id
POINTS_ROW = "    Points Possible"
MATCH_KINDS = ("SIS Login ID", "SIS User ID", "login")
MAX_GRADEBOOK_BYTES = 50_000_000


@dataclass
class Gradebook:
    """A Canvas gradebook export: its header, the number of identity columns (up to ``Section``), the Points Possible
    row, the student rows, and how it was written (separator, byte-order mark)."""

    header: list[str]
    identity: int
    points: list[str]
    students: list[list[str]]
    delimiter: str = ","
    bom: bool = False

    def column(self, name: str) -> int | None:
        return self.header.index(name) if name in self.header else None

    @property
    def assignments(self) -> list[str]:
        return [h for h in self.header[self.identity:] if TITLE_AND_ID.match(h) and not NOT_ASSIGNMENTS.search(h)]


def _number(text: str) -> float | None:
    text = text.strip()
    if re.fullmatch(r"-?[0-9.,]+", text):
        *head, last = re.split(r"[.,]", text)
        try:
            return float(f"{''.join(head)}.{last}" if head else last)
        except ValueError:
            return None
    return None


def read_gradebook(path: Path) -> Gradebook:
    """Read a gradebook CSV as Canvas exports it (ValueError naming ``--canvas`` and what is wrong)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"--canvas {path}: no such file (export it from Canvas: Grades, Export)")
    if path.stat().st_size > MAX_GRADEBOOK_BYTES:
        raise ValueError(f"--canvas {path}: larger than {MAX_GRADEBOOK_BYTES // 1_000_000} MB, not a gradebook")
    raw = path.read_bytes()
    bom = raw.startswith(b"\xef\xbb\xbf")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"--canvas {path}: not UTF-8 ({exc.reason} at byte {exc.start}); export it again") from None
    first = text.splitlines()[:3]
    counts = {d: {len(next(csv.reader([line], delimiter=d))) for line in first} for d in ",;"}
    delimiter = ";" if len(counts[";"]) == 1 and max(counts[";"]) > max(counts[","]) else ","
    rows = [[cell.strip("\r") for cell in row] for row in csv.reader(io.StringIO(text, newline=""),
                                                                     delimiter=delimiter)]
    if not rows or len(rows[0]) < 4 or "Student" not in rows[0][0] and rows[0][0] != "LastName":
        raise ValueError(f"--canvas {path}: not a Canvas gradebook export (its header starts with Student, ID, "
                         "SIS User ID, SIS Login ID, Section)")
    header = rows[0]
    if "Section" not in header:
        raise ValueError(f"--canvas {path}: no Section column (Canvas's import needs the columns up to Section)")
    identity = header.index("Section") + 1
    points: list[str] = []
    students = []
    for line, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if row[0].strip() == "Points Possible":
            if points or students or (len(row) > 1 and row[1].strip()):
                why = "a second row" if points else "a row after the students" if students else (
                    f"a row with a student's ID ({row[1].strip()})")
                raise ValueError(f"--canvas {path}, line {line}: {why} named 'Points Possible' (a student of that "
                                 "name?): Canvas writes one such row, before the students, and this one is not read "
                                 "as the points; remove the row or have the name changed in Canvas, and export again")
            points = row
        elif all(re.fullmatch(r"\s*(Muted|Manual Posting.*)?\s*", cell, re.IGNORECASE) for cell in row):
            continue  # the row of manually posted assignments
        else:
            students.append(row + [""] * (len(header) - len(row)))
    if not points:
        raise ValueError(f"--canvas {path}: no 'Points Possible' row (export the gradebook from Canvas again)")
    return Gradebook(header, identity, points + [""] * (len(header) - len(points)), students, delimiter, bom)


def choose_assignment(book: Gradebook, lesson: str, wanted: str | None) -> str:
    """The header of the lesson's assignment column: ``wanted`` (a title, ``Title (id)`` or an id), else the one
    column whose title holds the lesson's name."""
    columns = book.assignments
    if wanted is not None:
        hits = [c for c in columns if wanted in (c, TITLE_AND_ID.match(c).group(1), TITLE_AND_ID.match(c).group(2))]
    else:
        hits = [c for c in columns if lesson.casefold() in c.casefold()]
    if len(hits) == 1:
        return hits[0]
    shown = "; ".join(columns) or "none"
    if wanted is not None and not hits:
        raise ValueError(f"--assignment {wanted!r}: no such assignment in the gradebook (its assignments: {shown}); "
                         "create the assignment in Canvas first, then export the gradebook again")
    why = "several assignments match" if hits else f"no assignment's title holds {lesson!r}"
    raise ValueError(f"--canvas: {why}: name the lesson's with --assignment (one of: {shown})")


def _is_test_student(book: Gradebook, row: list[str]) -> bool:
    """Canvas's Test Student (the student view): named Student, Test, with no SIS id or login."""
    ids = [row[i] for i in (book.column("SIS User ID"), book.column("SIS Login ID")) if i is not None]
    return row[0].strip() in ("Student, Test", "Test Student") and not any(v.strip() for v in ids)


def _keys(book: Gradebook, row: list[str]) -> dict[str, str]:
    keys = {}
    for kind in ("SIS Login ID", "SIS User ID"):
        index = book.column(kind)
        if index is not None and row[index].strip():
            keys[kind] = row[index].strip().casefold()
    if "SIS Login ID" in keys:
        keys["login"] = keys["SIS Login ID"].split("@")[0]
    return keys


@dataclass
class CanvasReport:
    path: Path
    assignment: str
    points_possible: float
    matched: dict[str, str] = field(default_factory=dict)  # marks student -> how it matched
    unmatched_marks: list[str] = field(default_factory=list)  # students of the marks not in Canvas
    unmatched_canvas: list[str] = field(default_factory=list)  # Canvas students with no mark (left as exported)
    ambiguous: list[str] = field(default_factory=list)
    test_student: bool = False
    no_manual: list[str] = field(default_factory=list)  # matched, written answers without a mark yet
    late: list[str] = field(default_factory=list)  # matched and late: how late, and the penalty
    rule: Penalty | None = None

    def __str__(self) -> str:
        counts = {kind: sum(1 for how in self.matched.values() if how == kind) for kind in MATCH_KINDS}
        how = ", ".join(f"{n} by {kind}" for kind, n in counts.items() if n) or "none"
        lines = [f"wrote {self.path}: {len(self.matched)} marks for Canvas's {self.assignment!r} "
                 f"(worth {self.points_possible:g} points), matched {how}"]
        if self.unmatched_marks:
            lines.append(f"  in the marks but not in Canvas ({len(self.unmatched_marks)}, not imported): "
                         + ", ".join(self.unmatched_marks))
        if self.ambiguous:
            lines += [f"  not imported, ambiguous: {line}" for line in self.ambiguous]
        if self.unmatched_canvas:
            lines.append(f"  in Canvas without a mark ({len(self.unmatched_canvas)}, their cell left as exported): "
                         + "; ".join(self.unmatched_canvas))
        if self.test_student:
            lines.append("  Canvas's Test Student: left as exported")
        if self.no_manual:
            lines.append(f"  written answers without a mark by hand yet ({len(self.no_manual)}; their automatic marks "
                         "only): " + ", ".join(self.no_manual))
        if self.late:
            how = (f"the score imported is after the late penalty, {self.rule.describe()}" if self.rule is not None
                   else "no --late-penalty: the score imported is the marks earned; Canvas's import has no column for "
                   "lateness")
            lines.append(f"  late ({len(self.late)}; {how}): " + "; ".join(self.late))
        return "\n".join(lines)


def _format(points: float) -> str:
    return str(int(points)) if float(points).is_integer() else f"{points:.2f}".rstrip("0")


def points_possible(book: Gradebook, column: str, lesson: str, grading: LessonGrading,
                    points: float | None = None) -> float:
    """Canvas's points possible for ``column``, once it fits the lesson (see the module: its total, or what
    ``points`` (``--points``) says); ValueError naming the fix otherwise."""
    index = book.header.index(column)
    possible = _number(book.points[index])
    if possible is None:
        raise ValueError(f"--canvas: {column!r} has no points possible ({book.points[index]!r}) in the gradebook")
    automatic = sum(e.points for e in grading.exercises)
    written = sum(1 for e in grading.exercises if e.manual)
    total = automatic + WRITTEN_POINTS * written
    worth = f"{lesson} is worth {total:g}" + (f" ({automatic} for its checks, {WRITTEN_POINTS} for each of its "
                                             f"{written} written answers)" if written else "")
    if points is not None and points != possible:
        raise ValueError(f"--points {points:g}: Canvas's {column!r} is worth {possible:g} points in this export; give "
                         f"--points {possible:g}, or change the assignment in Canvas and export again")
    if possible < automatic or (possible != automatic and not written):
        raise ValueError(f"--canvas: Canvas's {column!r} is worth {possible:g} points and {worth}: set the "
                         f"assignment's points in Canvas to {total:g} and export again (marks are never rescaled)")
    if possible != total and points is None:
        raise ValueError(f"--canvas: Canvas's {column!r} is worth {possible:g} points and {worth}: set the "
                         f"assignment's points in Canvas to {total:g} and export again, or give --points {possible:g} "
                         f"if the written answers are worth {possible - automatic:g} together (marks are never "
                         "rescaled)")
    return possible


def missing_students(book: Gradebook, students: Sequence[str]) -> list[str]:
    """The students (a hub login, a folder name, nbgrader's id) that no Canvas row matches."""
    rows = [row for row in book.students if not _is_test_student(book, row)]
    return [student for student in students if _match(book, rows, student) == ""]


def refuse_missing(missing: Sequence[str]) -> None:
    """ValueError naming the students of the batch that are not in Canvas's gradebook (unless ``--allow-missing``)."""
    if missing:
        shown = ", ".join(missing[:10]) + (f" and {len(missing) - 10} more" if len(missing) > 10 else "")
        raise ValueError(f"--canvas: {len(missing)} students of the batch are not in Canvas's gradebook ({shown}): "
                         "their marks would never reach it. Add them to the course and export the gradebook again, or "
                         "give --allow-missing to write the import without them")


def canvas_import(book: Gradebook, out: Path, rows: Sequence[Mapping[str, object]], lesson: str,
                  grading: LessonGrading, assignment: str | None = None, points: float | None = None,
                  allow_missing: bool = False, late: Mapping[str, Lateness] | None = None,
                  rule: Penalty | None = None) -> CanvasReport:
    """Write the import file for ``lesson`` from the marks ``rows`` (``gradebook.marks_table``'s, by-hand columns
    filled or not) and return what matched. ValueError when Canvas's points possible do not fit the lesson
    (``points_possible``), and, unless ``allow_missing``, when a student of the marks is not in Canvas. ``late``: each
    student's lateness (``lateness``); with ``rule`` (``--late-penalty``) a late student's score is after the penalty,
    a share of Canvas's points possible (``lateness.penalise``)."""
    column = choose_assignment(book, lesson, assignment)
    index = book.header.index(column)
    possible = points_possible(book, column, lesson, grading, points)
    automatic = sum(e.points for e in grading.exercises)
    written = [e.name for e in grading.exercises if e.manual]
    room = possible - automatic
    report = CanvasReport(Path(out), column, possible, rule=rule)
    canvas_rows = [row for row in book.students if not _is_test_student(book, row)]
    report.test_student = len(canvas_rows) < len(book.students)
    scores: dict[int, str] = {}
    for marks in rows:
        student = str(marks["student"])
        found = _match(book, canvas_rows, student)
        if isinstance(found, str):
            (report.ambiguous if found else report.unmatched_marks).append(
                f"{student}: {found}" if found else student)
            continue
        row_index, how = found
        if row_index in scores:
            report.ambiguous.append(f"{student}: the Canvas row {canvas_rows[row_index][0]!r} also matched another")
            continue
        earned = _automatic(marks, student, lesson, grading)
        if earned is None:
            continue  # no mark (not handed in, or not graded): the exported cell stays
        by_hand = [marks.get(by_hand_column(lesson, name), "") for name in written]
        given = [float(v) for v in by_hand if v not in ("", None)]
        if len(given) < len(written):
            report.no_manual.append(student)
        if sum(given) > room:
            raise ValueError(f"--manual: {student}'s marks by hand for {lesson} ({sum(given):g}) exceed what the "
                             f"written answers are worth in Canvas ({room:g} of {possible:g} points)")
        lateness = (late or {}).get(student, UNKNOWN)
        marked = penalise(exact(earned) + sum((exact(v) for v in given), Fraction(0)), possible, lateness, rule)
        scores[row_index] = format_points(marked.final) if marked.penalty else _format(earned + sum(given))
        if lateness.late:
            report.late.append(f"{student} ({lateness.by() or 'late'}" + (
                f": {format_points(marked.raw)} - {format_points(marked.penalty)} = {format_points(marked.final)}"
                if rule is not None else "") + ")")
        report.matched[student] = how
    if not allow_missing:
        refuse_missing(report.unmatched_marks)
    login = book.column("SIS Login ID")
    for i, row in enumerate(canvas_rows):
        if i not in scores:
            report.unmatched_canvas.append(f"{row[0]} ({row[login] if login is not None else row[1]})")
    _write(book, out, index, {id(canvas_rows[i]): score for i, score in scores.items()})
    return report


def _automatic(marks: Mapping[str, object], student: str, lesson: str, grading: LessonGrading) -> float | None:
    """A marks row's automatic points for ``lesson``: the sum of its exercises' columns (whatever its ``total`` holds:
    a marks CSV's total includes the marks by hand it was written with; a row with no exercise column: its total), or
    None where there is no mark (its ``total`` empty: not handed in, not graded, an exercise not marked)."""
    total = marks.get(f"{lesson}: total", "")
    if total in ("", None):
        return None
    columns = [f"{lesson}: {e.name}" for e in grading.exercises if not e.manual]
    if not any(column in marks for column in columns):
        columns = [f"{lesson}: total"]
    points = 0.0
    for column in columns:
        cell = marks.get(column, "")
        value = _number(str(cell)) if cell not in ("", None) else None
        if value is None:
            raise ValueError(f"marks: {student}'s {column!r} is {cell!r}, not a number")
        points += value
    return points


def _match(book: Gradebook, rows: list[list[str]], student: str) -> tuple[int, str] | str:
    """The Canvas row of a marks student and how it matched; "" if none, else why it is ambiguous."""
    wanted = student.strip().casefold()
    for kind in MATCH_KINDS:
        hits = [i for i, row in enumerate(rows) if _keys(book, row).get(kind) == wanted]
        if len(hits) == 1:
            return hits[0], kind
        if len(hits) > 1:
            return f"{len(hits)} Canvas students have the {kind} {student!r}"
    return ""


def _write(book: Gradebook, out: Path, index: int, scores: Mapping[int, str]) -> None:
    """The import file: identity columns and the points row as exported, the assignment column with the marks."""
    keep = list(range(book.identity)) + [index]
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, delimiter=book.delimiter, lineterminator="\r\n")
    writer.writerow([book.header[i] for i in keep])
    writer.writerow([POINTS_ROW] + [book.points[i] for i in keep[1:]])
    for row in book.students:
        cells = [row[i] for i in keep]
        if id(row) in scores:
            cells[-1] = scores[id(row)]
        writer.writerow(cells)
    write_private(Path(out), ("\ufeff" if book.bom else "").encode() + buffer.getvalue().encode("utf-8"))


def write_canvas(book: Gradebook, out: Path, grades: Sequence[NotebookGrade],
                 by_hand: Mapping[str, Mapping[str, float]] | None = None, assignment: str | None = None,
                 points: float | None = None, allow_missing: bool = False,
                 late: LateWork | None = None) -> CanvasReport:
    """``--canvas``: the import file of a batch of one lesson (ValueError for several), with the late penalty of
    ``late`` (``lateness``) where it gives a rule."""
    gradings = lesson_gradings()
    lessons = sorted({g.lesson for g in grades if g.lesson in gradings})
    if len(lessons) != 1:
        raise ValueError(f"--canvas writes one lesson's column, and this batch has {len(lessons)} lessons "
                         f"({', '.join(lessons) or 'none graded'}): grade one lesson at a time")
    _, rows = marks_table(grades, by_hand)
    students = {student_of(g.path): late.of(g.path) for g in grades
                if late is not None and g.graded and g.lesson == lessons[0]}
    return canvas_import(book, out, rows, lessons[0], gradings[lessons[0]], assignment, points, allow_missing,
                         students, late.rule if late is not None else None)


def canvas_from_marks(book: Gradebook, out: Path, rows: Sequence[Mapping[str, object]], lesson: str | None = None,
                      assignment: str | None = None, points: float | None = None,
                      allow_missing: bool = False, rule: Penalty | None = None) -> CanvasReport:
    """``--manual MARKS --canvas ... -o ...`` without notebooks: the import file from a marks CSV (``read_marks``)
    alone, its automatic totals as graded and its by-hand marks as filled in (no grading again), and its lateness
    (``LESSON: late``, ``LESSON: late by``) under ``rule`` (``--late-penalty``)."""
    gradings = lesson_gradings()
    columns = list(rows[0]) if rows else []
    lessons = [c.removesuffix(": total") for c in columns if c.removesuffix(": total") in gradings]
    if lesson is not None:
        if lesson not in lessons:
            raise ValueError(f"--lesson {lesson}: the marks CSV has no column '{lesson}: total' "
                             f"(its lessons: {', '.join(lessons) or 'none'})")
        lessons = [lesson]
    if len(lessons) != 1:
        raise ValueError(f"--manual: the marks CSV holds {len(lessons)} lessons ({', '.join(lessons) or 'none'}): "
                         "name the one for Canvas with --lesson")
    lesson = lessons[0]
    late = {str(row["student"]): from_cells(row.get(f"{lesson}: late"), row.get(f"{lesson}: late by")) for row in rows}
    if rule is not None and not any(v.late is not None for v in late.values()):
        raise ValueError(f"--late-penalty {rule.text}: the marks CSV has no lateness ('{lesson}: late' empty or "
                         "missing): grade with collect's manifest beside the submitted folder, or --manifest")
    for lateness in late.values():
        if rule is not None:
            rule.share(lateness)  # a per-day rule and a late student of unknown days: refused before writing
    return canvas_import(book, out, rows, lesson, gradings[lesson], assignment, points, allow_missing, late, rule)
