"""Written answers marked in one pass: the stored grades of a batch, the marks by hand beside them, and the exports
written again from both (``bleu-lab mark``), without running a notebook again.

- **The stored grades** (``GRADES_SUFFIX``): ``bleu-lab grade`` with an export writes its batch's ``NotebookGrade``s
  and its export options (``exports.ExportSettings``) to ``marks.csv.grades.json`` beside its first export file
  (``--csv``, ``--gradescope``, ``-o``; with ``--feedback DIR`` alone, ``DIR/.bleu-lab-grades.json``), or to
  ``--grades FILE``. A regrade replaces it.
- **The marks by hand** (``HAND_SUFFIX``): ``marks.csv.hand-marks.json`` beside it, ``{student: {column: mark}}`` by
  the marks CSV's ``(by hand)`` columns (``gradebook.by_hand_column``), each bound to the answer it marks: the SHA-256
  of the answer's text when it was marked (``answers``). Kept across a regrade (``grade`` reads them back, and
  ``--manual`` overrides them) while the answer is the same; a mark whose answer changed is dropped and the answer
  listed to mark again (``again``, ``still_marked``), on the page and in ``grade``'s output.
- **A mark** is a number from 0 to the written answer's points (``max_mark``: ``gradebook.WRITTEN_POINTS``, or what
  Canvas's ``--points`` leaves the written answers); anything else is refused naming the answer and what was expected.
  Marks are checked all together before any is recorded; then the file is written whole and private
  (``private.write_private``: a new 0600 file renamed into place) and every export is written again
  (``exports.write_exports``, the same code ``grade`` runs).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from . import lesson_gradings
from .exports import ExportSettings, write_exports
from .gradebook import WRITTEN_POINTS, by_hand_column, plain, read_by_hand
from .journal import grade_from_json, grade_to_json
from .private import write_private
from .results import NotebookGrade
from .roster import student_of

GRADES_SUFFIX = ".grades.json"
HAND_SUFFIX = ".hand-marks.json"
FEEDBACK_ONLY_NAME = ".bleu-lab-grades.json"  # in --feedback DIR (collect --return skips dot files)
GRADES_FORMAT = "bleu-lab grades"
HAND_FORMAT = "bleu-lab hand marks"
MAX_STORE_BYTES = 200_000_000


@dataclass
class StoredGrades:
    """A batch's grades as ``bleu-lab grade`` stored them, with its export options."""

    path: Path
    grades: list[NotebookGrade]
    exports: ExportSettings


@dataclass(frozen=True)
class WrittenAnswer:
    """One written answer to mark: whose, which, the student's text, the rubric, and its mark so far (None: none)."""

    student: str
    lesson: str
    exercise: str
    answer: str
    key_points: str
    model_answer: str
    messages: tuple[str, ...]
    max_points: float
    mark: float | None
    again: bool = False  # it had a mark, dropped when a regrade found the answer changed: to mark again

    @property
    def column(self) -> str:
        return by_hand_column(self.lesson, self.exercise)


@dataclass(frozen=True)
class Change:
    """A mark to record (``mark`` None: remove the one given)."""

    student: str
    lesson: str
    exercise: str
    mark: float | None


def default_store(settings: ExportSettings) -> Path | None:
    """Where ``grade`` stores its grades without ``--grades``: beside its first export file, else in ``--feedback``."""
    for path in (settings.csv, settings.gradescope, settings.output):
        if path is not None:
            return path.with_name(path.name + GRADES_SUFFIX)
    return settings.feedback / FEEDBACK_ONLY_NAME if settings.feedback is not None else None


def hand_marks_path(store: Path) -> Path:
    """The marks by hand beside the stored grades ``store``
    (``marks.csv.grades.json``: ``marks.csv.hand-marks.json``)."""
    return store.with_name(store.name.removesuffix(GRADES_SUFFIX).removesuffix(".json") + HAND_SUFFIX)


def save_grades(path: Path, grades: Sequence[NotebookGrade], settings: ExportSettings) -> Path:
    """Store a batch's grades and export options at ``path`` (whole, 0600; its folder made 0700 if missing: with
    ``--feedback DIR`` alone, the grades are stored before the pages make DIR)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    item = {"format": GRADES_FORMAT, "version": 1, "exports": settings.to_json(),
            "grades": [grade_to_json(g) for g in grades]}
    return write_private(path, json.dumps(item, ensure_ascii=False, indent=1) + "\n")


def _read_json(path: Path, what: str, expected: str) -> dict:
    if not path.is_file():
        raise FileNotFoundError(f"{what} {path}: no such file ({expected})")
    if path.stat().st_size > MAX_STORE_BYTES:
        raise ValueError(f"{what} {path}: larger than {MAX_STORE_BYTES // 1_000_000} MB, not {expected}")
    try:
        item = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"{what} {path}: not {expected} ({exc})") from None
    if not isinstance(item, dict):
        raise ValueError(f"{what} {path}: not {expected}")
    return item


def load_grades(path: Path) -> StoredGrades:
    """The stored grades at ``path`` (FileNotFoundError / ValueError naming it when it is not such a file)."""
    path = Path(path)
    expected = "the grades that bleu-lab grade stored beside its exports (e.g. marks.csv.grades.json)"
    item = _read_json(path, "GRADES", expected)
    if item.get("format") != GRADES_FORMAT or not isinstance(item.get("grades"), list):
        raise ValueError(f"GRADES {path}: not {expected}")
    try:
        grades = [grade_from_json(g) for g in item["grades"]]
        exports = ExportSettings.from_json(item.get("exports", {}))
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"GRADES {path}: not {expected} ({exc})") from None
    return StoredGrades(path, grades, exports)


@dataclass
class HandMarks:
    """What ``bleu-lab mark`` recorded: the marks, the SHA-256 of each marked answer's text (``answer_digest``; none
    in a file of version 1) and the answers to mark again (their mark dropped: the answer changed), each by student and
    column."""

    marks: dict[str, dict[str, float]]
    answers: dict[str, dict[str, str]]
    again: dict[str, list[str]]


def answer_digest(text: str) -> str:
    """The SHA-256 of a written answer's text, which binds a mark to the answer it marks."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def answer_digests(grades: Iterable[NotebookGrade]) -> dict[str, dict[str, str]]:
    """``answer_digest`` of every written answer of ``grades``' graded notebooks, by student and column."""
    digests: dict[str, dict[str, str]] = {}
    for grade in grades:
        if grade.graded:
            for e in grade.exercises:
                if e.manual:
                    digests.setdefault(student_of(grade.path), {})[by_hand_column(grade.lesson, e.name)] = \
                        answer_digest(e.answer)
    return digests


def _text_maps(value: object, kind: type) -> bool:
    return isinstance(value, dict) and all(
        isinstance(by, dict) and all(isinstance(v, kind) for v in by.values()) for by in value.values())


def load_hand_record(store: Path) -> HandMarks:
    """What is recorded beside the stored grades ``store`` (nothing yet: empty); ValueError naming the file when it is
    not what ``bleu-lab mark`` writes."""
    path = hand_marks_path(store)
    if not path.exists():
        return HandMarks({}, {}, {})
    item = _read_json(path, "marks by hand", "the marks that bleu-lab mark records")
    marks, answers, again = item.get("marks"), item.get("answers", {}), item.get("again", {})
    if item.get("format") != HAND_FORMAT or not _text_maps(marks, int | float) or not all(
            math.isfinite(v) for by in marks.values() for v in by.values()) or not _text_maps(answers, str) or not (
            isinstance(again, dict) and all(isinstance(c, list) and all(isinstance(x, str) for x in c)
                                            for c in again.values())):
        raise ValueError(f"marks by hand {path}: not the marks that bleu-lab mark records")
    return HandMarks({str(s): {str(c): float(v) for c, v in by.items()} for s, by in marks.items() if by},
                     {str(s): dict(by) for s, by in answers.items()}, {str(s): list(c) for s, c in again.items() if c})


def load_hand_marks(store: Path) -> dict[str, dict[str, float]]:
    """The marks by hand beside the stored grades ``store`` (none yet: {})."""
    return load_hand_record(store).marks


def save_hand_marks(store: Path, marks: Mapping[str, Mapping[str, float]],
                    answers: Mapping[str, Mapping[str, str]] | None = None,
                    again: Mapping[str, Iterable[str]] | None = None) -> Path:
    """Write the marks by hand beside ``store`` (whole, 0600), each with its answer's digest from ``answers`` (where
    known), and the answers to mark ``again``."""
    digests = answers or {}
    item = {"format": HAND_FORMAT, "version": 2,
            "marks": {s: {c: plain(v) for c, v in sorted(by.items())} for s, by in sorted(marks.items()) if by},
            "answers": {s: {c: digests[s][c] for c in sorted(by) if c in digests.get(s, {})}
                        for s, by in sorted(marks.items()) if by and s in digests},
            "again": {s: sorted(set(c)) for s, c in sorted((again or {}).items()) if c}}
    return write_private(hand_marks_path(store), json.dumps(item, ensure_ascii=False, indent=1) + "\n")


def still_marked(store: Path, grades: Sequence[NotebookGrade]) -> tuple[dict[str, dict[str, float]], list[str]]:
    """After a regrade (``grades``): the marks recorded beside ``store`` whose written answer is the one marked (a
    mark with no digest, from a file of version 1, or whose answer is not in ``grades``, is kept), and each dropped
    mark's "student: column" (its answer changed since it was marked: recorded as to mark again, the file rewritten)."""
    record = load_hand_record(store)
    now = answer_digests(grades)
    dropped: list[str] = []
    again = {s: set(c) for s, c in record.again.items()}
    for student, by in record.marks.items():
        for column in sorted(by):
            marked, current = record.answers.get(student, {}).get(column), now.get(student, {}).get(column)
            if marked is not None and current is not None and marked != current:
                del by[column]
                again.setdefault(student, set()).add(column)
                dropped.append(f"{student}: {column}")
    if dropped:
        save_hand_marks(store, record.marks, record.answers, again)
    return {s: by for s, by in record.marks.items() if by}, dropped


def max_mark(lesson: str, settings: ExportSettings) -> float:
    """What one written answer of ``lesson`` is worth: ``WRITTEN_POINTS``, or with Canvas's ``--points N`` the rest of
    N over the automatic points, shared by the lesson's written answers."""
    grading = lesson_gradings()[lesson]
    written = sum(1 for e in grading.exercises if e.manual)
    if settings.points is None or not written:
        return WRITTEN_POINTS
    return plain((settings.points - sum(e.points for e in grading.exercises)) / written)


def written_answers(stored: StoredGrades, marks: Mapping[str, Mapping[str, float]],
                    again: Mapping[str, Iterable[str]] | None = None) -> list[WrittenAnswer]:
    """Every written answer of the batch's graded notebooks, by student then lesson, with its rubric and mark (and
    whether it is to mark ``again``: its earlier mark dropped, the answer changed)."""
    gradings = lesson_gradings()
    found = []
    for grade in sorted(stored.grades, key=lambda g: (student_of(g.path), g.lesson)):
        if not grade.graded or grade.lesson not in gradings:
            continue
        student = student_of(grade.path)
        models = {e.name: e.model_answer for e in gradings[grade.lesson].exercises}
        for e in grade.exercises:
            if e.manual:
                found.append(WrittenAnswer(
                    student, grade.lesson, e.name, e.answer, e.key_points, models.get(e.name, ""),
                    tuple(e.messages), max_mark(grade.lesson, stored.exports),
                    marks.get(student, {}).get(by_hand_column(grade.lesson, e.name)),
                    by_hand_column(grade.lesson, e.name) in (again or {}).get(student, ())))
    return found


def parse_mark(text: str, answer: WrittenAnswer) -> float | None:
    """A mark as typed (``""``: none), checked: a number from 0 to the answer's points (ValueError naming the
    answer and what is expected)."""
    text = text.strip()
    if not text:
        return None
    try:
        mark = float(text.replace(",", "."))
    except ValueError:
        mark = math.nan
    if not 0 <= mark <= answer.max_points:
        raise ValueError(f"{answer.student}, {answer.lesson}, {answer.exercise!r}: {text!r} is not a mark: expected a "
                         f"number from 0 to {answer.max_points:g} (or nothing, for no mark)")
    return mark


def find_answer(answers: Sequence[WrittenAnswer], student: str, lesson: str, exercise: str) -> WrittenAnswer:
    """The written answer of ``student`` for ``lesson`` (its name or its number, e.g. ``03``) and ``exercise`` (its
    name, or the start of it); ValueError saying which exist."""
    mine = [a for a in answers if a.student == student]
    if not mine:
        shown = ", ".join(sorted({a.student for a in answers})[:10]) or "none"
        raise ValueError(f"student {student!r}: no written answer of theirs in the stored grades (students: {shown})")
    lessons = sorted({a.lesson for a in mine})
    chosen = [x for x in lessons if x == lesson] or [x for x in lessons if x.split("_", 1)[0] == lesson]
    if len(chosen) != 1:
        raise ValueError(f"{student}: lesson {lesson!r}: expected one of {', '.join(lessons)} (or its number)")
    mine = [a for a in mine if a.lesson == chosen[0]]
    hits = [a for a in mine if a.exercise == exercise] or [
        a for a in mine if a.exercise.casefold().startswith(exercise.casefold()) and exercise]
    if len(hits) != 1:
        raise ValueError(f"{student}, {chosen[0]}: written answer {exercise!r}: expected one of "
                         + ", ".join(repr(a.exercise) for a in mine) + " (or the start of its name)")
    return hits[0]


def parse_set(text: str, answers: Sequence[WrittenAnswer]) -> Change:
    """``--set STUDENT:LESSON:EXERCISE=MARK`` (``MARK`` empty: remove the mark), checked against ``answers``."""
    where, equals, value = text.rpartition("=")
    parts = where.split(":", 2)
    if not equals or len(parts) != 3:
        raise ValueError(f"--set {text!r}: expected STUDENT:LESSON:EXERCISE=MARK, e.g. "
                         "alice:03:what BLEU would do without BP=1")
    answer = find_answer(answers, *(part.strip() for part in parts))
    return Change(answer.student, answer.lesson, answer.exercise, parse_mark(value, answer))


def changes_from_csv(path: Path, answers: Sequence[WrittenAnswer]) -> list[Change]:
    """``--from MARKS.csv``: the filled ``(by hand)`` cells of a marks CSV (``gradebook.read_by_hand``), each checked
    against ``answers``; empty cells change nothing."""
    by_column = {(a.student, a.column): a for a in answers}
    changes = []
    for student, marks in read_by_hand(path, option="--from").items():
        for column, mark in marks.items():
            answer = by_column.get((student, column))
            if answer is None:
                raise ValueError(f"--from {path}: {student}, {column!r}: no such written answer in the stored grades")
            try:
                changes.append(Change(student, answer.lesson, answer.exercise, parse_mark(f"{mark:g}", answer)))
            except ValueError as exc:
                raise ValueError(f"--from {path}: {exc}") from None
    return changes


def apply_changes(marks: Mapping[str, Mapping[str, float]], changes: Iterable[Change]) -> dict[str, dict[str, float]]:
    """``marks`` with ``changes`` made (a new mapping)."""
    updated = {student: dict(by) for student, by in marks.items()}
    for change in changes:
        column = by_hand_column(change.lesson, change.exercise)
        if change.mark is None:
            updated.get(change.student, {}).pop(column, None)
        else:
            updated.setdefault(change.student, {})[column] = change.mark
    return {student: by for student, by in updated.items() if by}


def record(stored: StoredGrades, changes: Sequence[Change], prog: str) -> dict[str, dict[str, float]]:
    """Record ``changes`` (already checked) beside the stored grades, then write every export again from the stored
    grades and all the marks by hand; the marks now recorded."""
    before = load_hand_record(stored.path)
    marks = apply_changes(before.marks, changes)
    answers = {s: dict(by) for s, by in before.answers.items()}
    again = {s: set(c) for s, c in before.again.items()}
    now = answer_digests(stored.grades)
    for change in changes:  # each mark given now is bound to the answer it marks, and is no longer to mark again
        column = by_hand_column(change.lesson, change.exercise)
        again.get(change.student, set()).discard(column)
        if column in now.get(change.student, {}):
            answers.setdefault(change.student, {})[column] = now[change.student][column]
    save_hand_marks(stored.path, marks, answers, again)
    try:
        write_exports(stored.exports, stored.grades, marks, prog)
    except (OSError, ValueError) as exc:
        raise ValueError(f"the marks are recorded in {hand_marks_path(stored.path)}, but the exports could not be "
                         f"written again ({exc}): fix that, then record any mark again to write them") from exc
    return marks
