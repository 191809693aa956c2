"""What ``bleu-lab grade`` gives: the marks of one exercise (``ExerciseResult``) and of one notebook
(``NotebookGrade``), plain dataclasses that the report, the journal and the exports read."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

WRITTEN_POINTS = 1  # what a written answer is worth in a lesson's total (Canvas's unless --points says otherwise)


@dataclass
class ExerciseResult:
    """The marks of one exercise: points out of ``possible``, and the checks' messages when they did not pass."""

    name: str
    points: int = 0
    possible: int = 0
    manual: bool = False
    messages: list[str] = field(default_factory=list)
    answer: str = ""  # a written answer, for the person who grades it
    key_points: str = ""
    hidden_points: int = 0  # of ``points``, those the hidden cases earned (the rest: the visible check)
    unmarked: str = ""  # why it could not be marked (its points are withheld, nobody is accused); "" once marked


@dataclass
class NotebookGrade:
    """The marks of one submitted notebook (``graded`` False: none, see ``note``; an exercise in ``unmarked``: not
    that one, and the notebook is to be graded again)."""

    path: Path
    lesson: str
    exercises: list[ExerciseResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # cells of the submission that raised
    note: str = ""
    graded: bool = True
    sandbox: str = ""  # how its kernel was boxed: "bubblewrap" or "none"
    stopped: str = ""  # why its run stopped before the end (the kernel died, a time limit ...); "": it ran to the end
    retry: str = ""  # its run with bleu_lab's functions hidden did not finish (why): the batch tries it again, alone

    @property
    def unmarked(self) -> list[str]:
        """The exercises that could not be marked (``ExerciseResult.unmarked``): to grade again."""
        return [e.name for e in self.exercises if e.unmarked]

    @property
    def score(self) -> int:
        return sum(e.points for e in self.exercises)

    @property
    def possible(self) -> int:
        return sum(e.possible for e in self.exercises)

    @property
    def worth(self) -> int:
        """The lesson's total: ``possible`` (the automatic points) plus ``WRITTEN_POINTS`` per written answer (marked
        by hand), the points possible of every export and of the late penalty."""
        return self.possible + WRITTEN_POINTS * sum(1 for e in self.exercises if e.manual)
