"""How ``bleu-lab grade`` marks a lesson: the ``GRADING`` declaration each lesson's check module ends with.

A declaration names, for each exercise, the check, the student's objects it takes and, for a function exercise, how to
draw hidden cases at grading time (a function of a seeded ``random.Random``: no hidden case ships); ``hidden.py``
draws the sentences.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .feedback import Feedback


@dataclass(frozen=True)
class GradedExercise:
    """How ``bleu-lab grade`` marks one exercise of a lesson.

    ``check(*answers)`` is the lesson's own check, called on the student's objects named ``answers``; it earns 1 point.
    ``hidden`` (function exercises only) draws other inputs at grading time, ``hidden(rng)`` -> keyword arguments of
    the check (usually ``{"cases": ...}``) from a seeded ``random.Random``; ``check(*answers, **hidden(rng))`` earns 1
    more point, so that an answer hard-coded for the visible cases does not pass, and no hidden case ships.
    A ``manual`` exercise (a written answer) earns no automatic points: the report shows the student's text and these
    key points to the grader, and the solved copy shows ``model_answer``.
    ``implemented_by`` names bleu_lab's own functions that do what the exercise asks for (``"bleu_lab.module.name"``
    or ``"bleu_lab.module.Class.method"``): ``bleu-lab grade`` marks the exercise again with them taken out of the
    student's kernel, and an answer that is, wraps or calls one of them gets no points (``assignments.own_code``).
    ``()`` says that no bleu_lab function is the answer (a value, a text, or an exercise about using bleu_lab);
    ``None`` is undeclared, which the tests refuse for every graded exercise.
    """

    name: str
    check: Callable[..., Feedback]
    answers: tuple[str, ...]
    hidden: Callable[[random.Random], Mapping[str, object]] | None = None
    manual: str = ""
    model_answer: str = ""
    implemented_by: tuple[str, ...] | None = None

    @property
    def points(self) -> int:
        """Automatic points: 0 for a manual exercise, else 1 for the visible check and 1 for the hidden cases."""
        return 0 if self.manual else 1 + (self.hidden is not None)


@dataclass(frozen=True)
class LessonGrading:
    """The graded exercises of one lesson notebook (its file name without ``.ipynb``), in notebook order."""

    notebook: str
    exercises: tuple[GradedExercise, ...]
