"""The report of ``bleu-lab grade``: each notebook's marks and feedback, ending in its one ``score:`` line that no
text of a submission can forge (``format_grade``), and the error when the grader's files changed."""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

from .integrity import TamperingError
from .lateness import LateWork, points
from .results import NotebookGrade


def _tampered(path: Path, error: TamperingError) -> None:
    shown = ", ".join(_clean(c) for c in error.changed[:5]) + (" ..." if len(error.changed) > 5 else "")
    print(f"bleu-lab grade: error: the grader's files changed while {_clean(str(path))} ran: {shown}. No marks "
          "are reported for it or for the notebooks after it: reinstall bleu_lab and its environment, and "
          "grade untrusted notebooks in the bubblewrap sandbox, a container or a throwaway account (see the "
          "instructor guide).", file=sys.stderr, flush=True)


def _clean(text: str) -> str:
    """``text`` on one line: every control or line-separating character escaped (so no text of a submission can
    start a line of the report, e.g. a forged ``score:``)."""
    return "".join(ch if ch.isprintable() or ch == " " else ascii(ch)[1:-1] for ch in str(text)
                   if unicodedata.category(ch) != "Cf" or ch.isprintable())


def format_grade(grade: NotebookGrade, late: LateWork | None = None) -> str:
    """The report of one notebook: each exercise's points ("not marked: grade again" where its run with bleu_lab's
    functions hidden could not finish), the feedback of failed checks, its lateness (``late``: collect's manifest and
    ``--late-penalty``), then the one score line, with the mark after the late penalty where one applies. Every line
    but the last starts with "==" or spaces."""
    lines = [f"== {_clean(str(grade.path))} (lesson {_clean(grade.lesson)})"]
    width = max((len(e.name) for e in grade.exercises), default=0)
    for e in grade.exercises:
        marks = "manual" if e.manual else f"not marked: grade again (0 / {e.possible})" if e.unmarked else (
            f"{e.points} / {e.possible}")
        lines.append(f"  {_clean(e.name):<{width}}  {marks}")
        if e.manual:
            lines.append(f"      answer: {_clean(e.answer) or '(none)'}")
            lines.append(f"      key points: {_clean(e.key_points)}")
        if e.manual or e.points < e.possible:
            lines += ["      " + _clean(line) for message in e.messages for line in message.split("\n")]
    if grade.errors:
        lines.append(f"  cells that raised ({len(grade.errors)}): " + _clean("; ".join(grade.errors[:5]))
                     + (" ..." if len(grade.errors) > 5 else ""))
    if grade.note:
        lines.append(f"  note: {_clean(grade.note)}")
    late_line = late.line(grade.score if grade.graded else None, grade.worth, grade.path) if late is not None else ""
    if late_line:
        lines.append(f"  {_clean(late_line)}")
    if not grade.graded:
        lines.append("score: not graded")
        return "\n".join(lines)
    manual = sum(e.manual for e in grade.exercises)
    withheld = sum(e.possible for e in grade.exercises if e.unmarked)
    lines.append(f"score: {grade.score} / {grade.possible}" + (f"  (+ {manual} to grade by hand)" if manual else "")
                 + (f"  (not marked: {withheld} points: grade again)" if withheld else "")
                 + _after_penalty(grade, late))
    return "\n".join(lines)


def _after_penalty(grade: NotebookGrade, late: LateWork | None) -> str:
    """The score line's end where a late penalty applies: ``  late: 4 / 5 after a penalty of 1``; a share of the
    lesson's total (``NotebookGrade.worth``: written answers included, as in every export), on the marks so far (the
    written answers' marks by hand come later: ``bleu-lab mark`` applies it again to the total with them)."""
    if late is None or late.rule is None or not late.of(grade.path).late:
        return ""
    marked = late.mark(grade.score, grade.worth, grade.path)
    return f"  late: {points(marked.final)} / {grade.worth} after a penalty of {points(marked.penalty)}"
