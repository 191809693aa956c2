"""The exports of a graded batch, written from its grades and the written answers' marks by hand: the one implementation
that ``bleu-lab grade`` runs once a batch is graded and ``bleu-lab mark`` runs again, from the stored grades
(``hand_marks``), each time it records a mark (no kernel runs again).

``ExportSettings`` are the export options of ``grade`` (``--csv``, ``--gradescope``, ``--feedback``,
``--feedback-hidden``, ``--canvas``/``-o``/``--assignment``/``--points``/``--allow-missing``, ``--late-penalty``) and
each notebook's lateness as ``grade`` read it from collect's manifest (``lateness``), kept in the stored grades so that
``mark`` rewrites the same files the same way, the late penalty applied again to the totals with the marks by hand
(the manifest is not read again: a notebook's lateness is the one it was graded with).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from .canvas import Gradebook, read_gradebook, write_canvas
from .feedback import HIDDEN_POLICIES, write_feedback
from .gradebook import gradescope_results, write_gradescope, write_marks_csv
from .lateness import Lateness, LateWork, format_past, parse_past, parse_penalty
from .private import close_file
from .results import NotebookGrade
from .roster import student_of

PATHS = ("csv", "gradescope", "feedback", "canvas", "output")  # the settings that are files or folders
STORED = ("lateness",)  # settings that no option gives: what grade read (each notebook's lateness)


@dataclass
class ExportSettings:
    """Where a batch's marks go, as ``bleu-lab grade``'s options gave them (paths absolute once stored)."""

    csv: Path | None = None
    gradescope: Path | None = None
    feedback: Path | None = None
    feedback_hidden: str = HIDDEN_POLICIES[0]
    canvas: Path | None = None
    output: Path | None = None
    assignment: str | None = None
    points: float | None = None
    allow_missing: bool = False
    late_penalty: str | None = None
    lateness: dict[str, dict[str, object]] = field(default_factory=dict)  # by the grade's path: ``lateness_json``

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> ExportSettings:
        """The settings of ``grade``'s options (the lateness is recorded once graded: ``record_lateness``)."""
        return cls(**{f.name: getattr(args, f.name) for f in fields(cls) if f.name not in STORED})

    def record_lateness(self, grades: Sequence[NotebookGrade], late: LateWork | None) -> None:
        """Keep each graded notebook's lateness (``late``, read from collect's manifest), by its path as stored."""
        self.lateness = {str(g.path): lateness_json(late.of(g.path)) for g in grades} if late is not None else {}

    def late_work(self, grades: Sequence[NotebookGrade]) -> LateWork:
        """The lateness of ``grades`` as recorded, and the ``--late-penalty`` rule (``lateness.LateWork``)."""
        work = LateWork(rule=parse_penalty(self.late_penalty))
        for g in grades:
            if str(g.path) in self.lateness:
                work.by_path[Path(g.path).absolute()] = lateness_from_json(self.lateness[str(g.path)])
        return work

    @property
    def any(self) -> bool:
        """Whether any export is asked for."""
        return any(getattr(self, name) is not None for name in PATHS)

    def to_json(self) -> dict:
        """The settings as JSON, paths absolute (so ``mark`` finds them from any folder)."""
        item = asdict(self)
        for name in PATHS:
            if item[name] is not None:
                item[name] = str(Path(item[name]).absolute())
        return item

    @classmethod
    def from_json(cls, item: Mapping[str, object]) -> ExportSettings:
        """The settings back from ``to_json`` (ValueError for anything else)."""
        if not isinstance(item, Mapping):
            raise ValueError("its 'exports' is not an object")
        known = {f.name for f in fields(cls)}
        settings = cls(**{k: v for k, v in item.items() if k in known})
        for name in PATHS:
            value = getattr(settings, name)
            if value is not None:
                if not isinstance(value, str):
                    raise ValueError(f"its export {name!r} is {value!r}, not a path")
                setattr(settings, name, Path(value))
        if settings.feedback_hidden not in HIDDEN_POLICIES:
            raise ValueError(f"its feedback_hidden is {settings.feedback_hidden!r}, not one of {HIDDEN_POLICIES}")
        if settings.late_penalty is not None and not isinstance(settings.late_penalty, str):
            raise ValueError(f"its late_penalty is {settings.late_penalty!r}, not a rule")
        parse_penalty(settings.late_penalty)  # ValueError naming the rule when it is not one
        if not isinstance(settings.lateness, Mapping):
            raise ValueError("its 'lateness' is not an object")
        for item in settings.lateness.values():
            lateness_from_json(item)
        return settings


def lateness_json(late: Lateness) -> dict[str, object]:
    """A notebook's lateness as stored (``late``: true / false / null; ``late by``: ``lateness.format_past``)."""
    return {"late": late.late, "late by": format_past(late.past) if late.past is not None else "",
            "deadline": late.deadline, "note": late.note}


def lateness_from_json(item: object) -> Lateness:
    """``lateness_json``'s item back (ValueError for anything else)."""
    if not isinstance(item, Mapping) or item.get("late") not in (True, False, None):
        raise ValueError(f"a notebook's lateness is {item!r}, not one that bleu-lab grade stored")
    by = item.get("late by") or ""
    past = parse_past(by)
    if by and past is None:
        raise ValueError(f"a notebook's 'late by' is {by!r}, not days hh:mm:ss")
    return Lateness(item["late"], past, str(item.get("deadline") or ""), str(item.get("note") or ""))


def write_exports(settings: ExportSettings, grades: Sequence[NotebookGrade],
                  by_hand: Mapping[str, Mapping[str, float]] | None, prog: str,
                  book: Gradebook | None = None) -> None:
    """Write every export ``settings`` asks for from ``grades`` and the marks ``by_hand`` (by student, then column:
    ``gradebook.read_by_hand``'s shape), with the lateness and late penalty of ``settings`` (on each total with its
    marks by hand: ``gradebook.lesson_total``), each line of what was written on stderr. ``book``: Canvas's gradebook
    when already read (else read from ``settings.canvas``)."""
    grades = list(grades)
    late = settings.late_work(grades)
    if settings.csv is not None:
        write_marks_csv(settings.csv, grades, by_hand, late)
        close_file(settings.csv)  # 0600 whatever the umask: the marks are the instructor's
        print(f"{prog}: wrote {settings.csv} ({len(grades)} notebooks)", file=sys.stderr)
    if settings.gradescope is not None:
        students = {student_of(g.path) for g in grades}
        marks = (by_hand or {}).get(next(iter(students))) if len(students) == 1 else None
        write_gradescope(settings.gradescope, gradescope_results(grades, by_hand=marks, late=late))
        close_file(settings.gradescope)
        print(f"{prog}: wrote {settings.gradescope}", file=sys.stderr)
    if settings.feedback is not None:
        pages = write_feedback(settings.feedback, grades, settings.feedback_hidden, by_hand, late)
        print(f"{prog}: wrote {len(pages)} feedback pages in {settings.feedback}", file=sys.stderr)
    if settings.canvas is not None and settings.output is not None:
        book = book if book is not None else read_gradebook(settings.canvas)
        report = write_canvas(book, settings.output, grades, by_hand, settings.assignment, settings.points,
                              settings.allow_missing, late)
        print(f"{prog}: {report}", file=sys.stderr)
