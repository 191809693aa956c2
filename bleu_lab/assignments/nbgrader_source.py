"""The lessons as nbgrader source notebooks (``OUTDIR/nbgrader/``, written by ``bleu-lab release``).

For a course that hands out and collects with nbgrader: each worked solution becomes a solution region
(``### BEGIN SOLUTION`` ... ``### END SOLUTION``) in the cell where the lesson loads it, so
``nbgrader generate_assignment`` hands out the student copy's scratch cell there. At the end of the notebook, one
autograded test cell per exercise calls the lesson's own check on the student's objects (1 point), and one more,
inside ``### BEGIN HIDDEN TESTS``, its hidden cases (1 point): the same marks as ``bleu-lab grade``. Written answers
earn no nbgrader points; ``bleu-lab grade`` prints each with its key points for the person who grades them.
"""

from __future__ import annotations

import copy

import nbformat

from ..course.exercises import LessonGrading
from . import METADATA_KEY

SOLUTION = "### BEGIN SOLUTION\n{}\n### END SOLUTION"
HIDDEN = "### BEGIN HIDDEN TESTS\n{}\n### END HIDDEN TESTS"
TEST_CALL = "from bleu_lab.assignments.grade import assert_passes\n\nassert_passes({lesson!r}, {index}{hidden})"
TESTS_HEADING = ("## Autograder tests\n\nnbgrader runs these cells to mark the exercises above with the lesson's own "
                 "checks. Run them to see whether your answers pass; do not change them.")
CONFIG = '''"""nbgrader's configuration for bleu_lab's lessons, written by `bleu-lab release`: run nbgrader here."""

c = get_config()  # noqa: F821 - nbgrader defines it
# Where a worked solution was, the handed-out lesson gets the student copy's scratch cell.
c.ClearSolutions.code_stub = {{"python": {stub!r}}}
# Some lessons run thousands of resamples in one cell.
c.Execute.timeout = 300
'''


def nbgrader_source(student: nbformat.NotebookNode, solutions: dict[int, str], name: str,
                    grading: LessonGrading | None) -> nbformat.NotebookNode:
    """The student copy of lesson ``name`` with nbgrader's metadata: ``solutions`` (cell index -> worked solution)
    as solution regions, and a test cell per exercise of ``grading`` (its hidden cases in a second one)."""
    nb = copy.deepcopy(student)
    for index, solution in solutions.items():
        cell = nb.cells[index]
        cell.source = SOLUTION.format(solution)
        cell.metadata["nbgrader"] = _cell_metadata(f"solution-{index}", solution=True)
    exercises = grading.exercises if grading else ()
    tests = []
    for index, exercise in enumerate(exercises):
        if exercise.manual:
            continue
        call = TEST_CALL.format(lesson=name, index=index, hidden="")
        tests.append(_test_cell(f"test-{index}", f"# {exercise.name}: the lesson's check\n{call}"))
        if exercise.hidden is not None:
            hidden = HIDDEN.format(TEST_CALL.format(lesson=name, index=index, hidden=", hidden=True"))
            tests.append(_test_cell(f"test-{index}-hidden", f"# {exercise.name}: hidden cases\n{hidden}"))
    if tests:
        nb.cells += [nbformat.v4.new_markdown_cell(TESTS_HEADING), *tests]
    nb.metadata[METADATA_KEY] = {"lesson": name, "copy": "nbgrader-source"}
    return nb


def nbgrader_config(code_stub: str) -> str:
    """The text of ``nbgrader_config.py``: the course settings these sources need."""
    return CONFIG.format(stub=code_stub)


def _test_cell(grade_id: str, source: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["nbgrader"] = _cell_metadata(grade_id, grade=True, points=1)
    return cell


def _cell_metadata(grade_id: str, *, solution: bool = False, grade: bool = False, points: int = 0) -> dict:
    """nbgrader's cell metadata (schema version 3): a solution cell, or a locked, autograded test cell."""
    meta = {"grade": grade, "grade_id": grade_id, "locked": grade, "schema_version": 3, "solution": solution,
            "task": False}
    if grade:
        meta["points"] = points
    return meta
