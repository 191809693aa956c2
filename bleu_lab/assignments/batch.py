"""A batch: ``grade_batch`` reads and backs up every file first, then grades the notebooks one by one, each parsed
only when its turn comes, and prints each report; after each notebook its processes are ended, the grader's files
checked and the submitted files restored."""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path

from . import lesson_gradings
from .integrity import BatchFiles, TamperingError
from .notebook import (
    DEFAULT_TIMEOUT,
    MARK_MEMORY,
    Context,
    _grade_one,
    check_memory,
    check_sandbox,
    check_timeout,
)
from .processes import descendants, end_leftovers, subreaper
from .report import _clean, _tampered, format_grade
from .results import NotebookGrade
from .submissions import MAX_NOTEBOOK_MB, check_notebook_mb, read_submission


def grade_batch(paths: list[Path], *, timeout: int = DEFAULT_TIMEOUT, seed: int | None = None,
                lesson: str | None = None, out=None, grades: list[NotebookGrade] | None = None,
                sandbox: str = "auto", memory: int = MARK_MEMORY, max_notebook_mb: float = MAX_NOTEBOOK_MB) -> int:
    """Grade each notebook of ``paths`` and print its report (one ``score:`` line each) to ``out``; return the exit
    code: 0, or 3 if the grader's files changed during a run (that notebook's marks and the rest are withheld).
    Each reported ``NotebookGrade`` is also appended to ``grades`` (for ``gradebook``'s exports). ``sandbox``:
    "auto", "bubblewrap" (required) or "none" (``choose_sandbox``); ``memory``: megabytes for marking one notebook;
    ``max_notebook_mb``: a larger file is refused unread. Every file is read and backed up before the first
    submission runs; each is parsed only when its turn comes, and nothing of it is kept once its grade is out."""
    out = out or sys.stdout
    check_timeout(timeout)
    check_sandbox(sandbox)
    check_memory(memory)
    check_notebook_mb(max_notebook_mb)
    sys.dont_write_bytecode = True
    for path in paths:  # an instructor's typo stops the batch before anything runs (a link or FIFO does not)
        if not os.path.lexists(path):
            raise FileNotFoundError(f"{path}: no such file")
    if lesson is not None and lesson not in lesson_gradings():
        raise ValueError(f"--lesson {lesson}: there is no such lesson (one of {', '.join(sorted(lesson_gradings()))})")
    seed = secrets.randbelow(2 ** 32) if seed is None else seed
    context = Context.start(sandbox, memory)
    batch = context.batch = BatchFiles(max_notebook_mb)
    try:
        print(f"seed: {seed}  (hidden cases; bleu-lab grade --seed {seed} draws the same ones)", file=out, flush=True)
        print(context.sandbox.header, file=out, flush=True)
        unread: dict[Path, str] = {}
        for path in paths:  # each file is read once, before any submission runs (its bytes kept on disk only)
            try:
                batch.add(path)
            except (OSError, ValueError) as err:
                unread[path] = str(err)
        with subreaper():
            keep = descendants()
            for path in paths:
                nb, lesson_or_error = None, unread.get(path, "")
                if path not in unread:
                    try:
                        nb, lesson_or_error = read_submission(path, lesson, batch.read(path),
                                                              max_mb=max_notebook_mb)
                    except (OSError, ValueError) as err:
                        nb, lesson_or_error = None, str(err)
                grade = _grade_in_batch(path, nb, lesson_or_error, timeout, seed, context, keep)
                del nb
                if isinstance(grade, TamperingError):
                    _tampered(path, grade)
                    return 3
                print(format_grade(grade), file=out, flush=True)
                if grades is not None:
                    grades.append(grade)
    finally:
        context.close()
        batch.close()
    return 0


def _grade_in_batch(path: Path, nb, lesson_or_error: str, timeout: float, seed: int, context: Context,
                    keep: set[int]) -> NotebookGrade | TamperingError:
    """One submission of a batch, then: its processes ended, the grader's files checked, the other submissions
    restored if it changed them."""
    if nb is None:
        return NotebookGrade(path, "?", note=f"not graded: {lesson_or_error}", graded=False,
                             sandbox=context.sandbox.kind)
    try:
        grade = _grade_one(path, nb, lesson_or_error, timeout, seed, context)
    except TamperingError as exc:
        end_leftovers(keep)
        return exc
    except Exception as exc:  # noqa: BLE001 - one notebook never stops the batch
        grade = NotebookGrade(path, lesson_or_error, note=f"not graded: {type(exc).__name__}", graded=False,
                              sandbox=context.sandbox.kind)
    ended = end_leftovers(keep)
    if ended and context.sandbox.kind == "none":  # (a bubblewrap box's own processes may still be exiting)
        grade.note = (grade.note + "; " if grade.note else "") + (
            f"{ended} process{'es' if ended > 1 else ''} it left running {'were' if ended > 1 else 'was'} ended")
    try:
        context.check(f"while {path} ran")
    except TamperingError as exc:
        return exc
    restored = context.batch.restore() if context.batch is not None else []
    if restored:
        names = ", ".join(str(p) for p in restored[:5]) + (" ..." if len(restored) > 5 else "")
        grade.note = (grade.note + "; " if grade.note else "") + f"it changed submitted files (restored): {names}"
        print(f"bleu-lab grade: warning: {_clean(str(path))} changed submitted files, restored: {_clean(names)}",
              file=sys.stderr, flush=True)
    return grade
