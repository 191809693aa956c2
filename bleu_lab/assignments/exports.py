"""The exports of a graded batch, written from its grades and the written answers' marks by hand: the one implementation
that ``bleu-lab grade`` runs once a batch is graded and ``bleu-lab mark`` runs again, from the stored grades
(``hand_marks``), each time it records a mark (no kernel runs again).

``ExportSettings`` are the export options of ``grade`` (``--csv``, ``--gradescope``, ``--feedback``,
``--feedback-hidden``, ``--canvas``/``-o``/``--assignment``/``--points``/``--allow-missing``), kept in the stored grades
so that ``mark`` rewrites the same files the same way.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from .canvas import Gradebook, read_gradebook, write_canvas
from .feedback import HIDDEN_POLICIES, write_feedback
from .gradebook import gradescope_results, write_gradescope, write_marks_csv
from .private import close_file
from .results import NotebookGrade
from .roster import student_of

PATHS = ("csv", "gradescope", "feedback", "canvas", "output")  # the settings that are files or folders


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

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> ExportSettings:
        """The settings of ``grade``'s options."""
        return cls(**{f.name: getattr(args, f.name) for f in fields(cls)})

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
        return settings


def write_exports(settings: ExportSettings, grades: Sequence[NotebookGrade],
                  by_hand: Mapping[str, Mapping[str, float]] | None, prog: str,
                  book: Gradebook | None = None) -> None:
    """Write every export ``settings`` asks for from ``grades`` and the marks ``by_hand`` (by student, then column:
    ``gradebook.read_by_hand``'s shape), each line of what was written on stderr. ``book``: Canvas's gradebook when
    already read (else read from ``settings.canvas``)."""
    grades = list(grades)
    if settings.csv is not None:
        write_marks_csv(settings.csv, grades, by_hand)
        close_file(settings.csv)  # 0600 whatever the umask: the marks are the instructor's
        print(f"{prog}: wrote {settings.csv} ({len(grades)} notebooks)", file=sys.stderr)
    if settings.gradescope is not None:
        students = {student_of(g.path) for g in grades}
        marks = (by_hand or {}).get(next(iter(students))) if len(students) == 1 else None
        write_gradescope(settings.gradescope, gradescope_results(grades, by_hand=marks))
        close_file(settings.gradescope)
        print(f"{prog}: wrote {settings.gradescope}", file=sys.stderr)
    if settings.feedback is not None:
        pages = write_feedback(settings.feedback, grades, settings.feedback_hidden, by_hand)
        print(f"{prog}: wrote {len(pages)} feedback pages in {settings.feedback}", file=sys.stderr)
    if settings.canvas is not None and settings.output is not None:
        book = book if book is not None else read_gradebook(settings.canvas)
        report = write_canvas(book, settings.output, grades, by_hand, settings.assignment, settings.points,
                              settings.allow_missing)
        print(f"{prog}: {report}", file=sys.stderr)
