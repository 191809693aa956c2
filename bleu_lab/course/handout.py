"""A lesson as handed out for graded work: without its worked solutions (``bleu-lab release``'s ``student/`` copy,
and ``bleu-lab lessons --no-solutions``).

Each ``# %load solutions/NAME.py`` cell becomes an empty scratch cell, the sentences that point to worked solutions
are taken out of the text, and the outputs of the exercise cells are cleared (a printed check or answer would give
the answer away). This module imports nothing of bleu_lab, so the course copy (``bleu_lab.course``) and the
assignments (``bleu_lab.assignments``) can both use it.
"""

from __future__ import annotations

import copy
import re

import nbformat

# A notebook's metadata key with what the release knows about it: {"lesson": "01_ngrams_and_clipping", "copy": ...}.
METADATA_KEY = "bleu_lab"
LOAD_CELL = re.compile(r"^\s*#\s*%load\s+(solutions/[\w.-]+\.py)\s*$")
SCRATCH_CELL = "# Scratch cell: this copy of the lesson has no worked solutions. Write your answer above its check."
NO_SOLUTIONS_NOTE = "(This copy of the lesson has no worked solutions.)"
# A sentence of the lesson's text that points to the worked solutions.
SOLUTION_SENTENCE = re.compile(r"%load|worked solution", re.IGNORECASE)
LIST_MARKER = re.compile(r"\s*(?:[-*+]\s+)?")
HEADING = re.compile(r"^#{1,6}\s+(.*)$", re.MULTILINE)
CHECK_CALL = re.compile(r"\bcheck_\w+\(|bleu_lab\.exercises")


def student_copy(lesson: nbformat.NotebookNode, name: str) -> nbformat.NotebookNode:
    """The lesson without solutions: scratch cells for ``%load`` cells, no pointers to them, no exercise outputs."""
    nb = copy.deepcopy(lesson)
    exercises = exercise_cells(nb.cells)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            cell.source = without_solution_sentences(cell.source)
        elif cell.cell_type == "code":
            if LOAD_CELL.match(cell.source):
                cell.source = SCRATCH_CELL
            if i in exercises or not cell.source.strip() or cell.source == SCRATCH_CELL:
                cell.outputs, cell.execution_count = [], None
    nb.metadata[METADATA_KEY] = {"lesson": name, "copy": "student"}
    return nb


def without_solution_sentences(text: str) -> str:
    """``text`` with each run of sentences that mention worked solutions replaced by one short note."""
    parts = re.split(r"(?<=[.!?])(\s+)", text)
    out: list[str] = []
    dropped = False
    for k, part in enumerate(parts):
        if k % 2:  # the whitespace between two sentences
            out.append(part)
        elif SOLUTION_SENTENCE.search(part):
            if not dropped:
                out.append(LIST_MARKER.match(part).group(0) + NO_SOLUTIONS_NOTE)
            elif out and out[-1].isspace():
                out.pop()
            dropped = True
        else:
            out.append(part)
            dropped = False
    return "".join(out)


def exercise_cells(cells: list[nbformat.NotebookNode]) -> set[int]:
    """The code cells of the exercises: under an "Exercise" heading, or calling a check."""
    found, in_exercise = set(), False
    for i, cell in enumerate(cells):
        if cell.cell_type == "markdown":
            headings = HEADING.findall(cell.source)
            if headings:
                in_exercise = "exercise" in headings[-1].lower()
        elif cell.cell_type == "code" and (in_exercise or CHECK_CALL.search(cell.source)):
            found.add(i)
    return found
