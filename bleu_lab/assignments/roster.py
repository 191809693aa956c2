"""Whose notebook is which, settled before any kernel starts: one notebook per student and lesson.

**The student** is read from the folder layout the instructor guide documents, never from a file's name:

- nbgrader's layout ``.../submitted/STUDENT/ASSIGNMENT/NOTEBOOK.ipynb`` (or ``autograded/``), which ``bleu-lab
  collect`` writes: ``STUDENT``;
- else the folder the notebook is in: ``submissions/STUDENT/03_brevity_penalty.ipynb``. A notebook
  ``submissions/mallory/alice.ipynb`` is mallory's.

**One notebook per student and lesson** (``check_batch``): marks go into one cell per student and lesson, so where a
student handed in several notebooks of one lesson (JupyterLab's "Duplicate" makes ``03_brevity_penalty-Copy1.ipynb``
beside the lesson, and nbgrader submits it), the one named after the lesson (``03_brevity_penalty.ipynb``) is graded
and the others are named and not graded; if none, or several, are so named, none of them is graded and one line says
why. Only that student's lesson is affected, never the batch. ``grade_batch`` prints these lines before grading.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

NBGRADER_FOLDERS = ("submitted", "autograded")


def student_of(path: Path) -> str:
    """The student a submitted notebook belongs to: nbgrader's ``STUDENT`` in ``submitted/STUDENT/ASSIGNMENT/``
    (or ``autograded/``), else the name of the folder it is in (see the module's docstring)."""
    parts = Path(path).absolute().parts
    if len(parts) >= 4 and parts[-4] in NBGRADER_FOLDERS:
        return parts[-3]
    return parts[-2] if len(parts) >= 2 else ""


def check_batch(paths: Sequence[Path], lessons: Mapping[int, str],
                student: Callable[[Path], str] = student_of) -> tuple[dict[int, str], list[str]]:
    """Which notebooks of ``paths`` are not graded, and why (by index), and the lines that say so: ``lessons`` holds
    each notebook's lesson (by index; one that cannot be told is left out, and graded as usual: the grader says
    why), ``student`` names its student. Of a student's notebooks of one lesson, the one named ``LESSON.ipynb`` is
    graded; if not exactly one is, none is."""
    groups: dict[tuple[str, str], list[int]] = {}
    for index in sorted(lessons):
        groups.setdefault((student(paths[index]), lessons[index]), []).append(index)
    refused: dict[int, str] = {}
    lines = []
    for (who, lesson), indices in groups.items():
        if len(indices) < 2:
            continue
        named = [i for i in indices if Path(paths[i]).name == f"{lesson}.ipynb"]
        listed = ", ".join(str(paths[i]) for i in indices)
        if len(named) == 1:
            chosen = named[0]
            for i in indices:
                if i != chosen:
                    refused[i] = (f"another notebook of lesson {lesson} for student {who!r} is graded: "
                                  f"{paths[chosen]} (one per student and lesson: the one named {lesson}.ipynb)")
            extras = ", ".join(str(paths[i]) for i in indices if i != chosen)
            lines.append(f"batch: student {who!r} handed in {len(indices)} notebooks of lesson {lesson}: grading "
                         f"{paths[chosen]} (named after the lesson), not {extras}")
        else:
            why = "none is" if not named else f"{len(named)} are"
            for i in indices:
                refused[i] = (f"{len(indices)} notebooks of lesson {lesson} for student {who!r} ({listed}), and {why} "
                              f"named {lesson}.ipynb: none is graded; keep one")
            lines.append(f"batch: student {who!r} handed in {len(indices)} notebooks of lesson {lesson} ({listed}) "
                         f"and {why} named {lesson}.ipynb: none of them is graded (keep one, then grade it)")
    return refused, lines
