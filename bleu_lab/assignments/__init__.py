"""Assignments that grade themselves: ``bleu-lab release OUTDIR`` and ``bleu-lab grade NOTEBOOK ...``.

- ``release``: the lessons without their worked solutions (``OUTDIR/student/``), with them (``OUTDIR/solved/``), and
  as nbgrader's source (``OUTDIR/nbgrader/``, test cells calling the same checks: ``nbgrader_source``).
- ``grade``: runs each submitted notebook in a fresh kernel, then the lesson's own checks on the student's objects,
  plus hidden cases for the function exercises.

What is graded is declared by each lesson's check module, ``bleu_lab.course.exercises.<module>.GRADING`` (a
``LessonGrading``); a new lesson needs only its notebook and that declaration.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from ..course import course_root, exercises
from ..course.exercises import LessonGrading
from ..course.handout import METADATA_KEY as METADATA_KEY  # the notebooks' metadata key (re-exported)


def lesson_gradings() -> dict[str, LessonGrading]:
    """Every lesson's grading declaration, by notebook name (file name without ``.ipynb``)."""
    found: dict[str, LessonGrading] = {}
    for module in pkgutil.iter_modules(exercises.__path__):
        grading = getattr(importlib.import_module(f"{exercises.__name__}.{module.name}"), "GRADING", None)
        if isinstance(grading, LessonGrading):
            found[grading.notebook] = grading
    return found


def default_notebooks_dir() -> Path:
    """The lessons as bleu_lab ships them: the course's ``notebooks/`` (installed package or clone)."""
    return course_root() / "notebooks"
