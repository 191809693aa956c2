"""``bleu-lab release``'s nbgrader source (OUTDIR/nbgrader): its metadata, and nbgrader itself grading with it.

The structure tests need only nbformat. The end-to-end test runs nbgrader (`generate_assignment`, then `autograde` of
a perfect and an untouched submission); nbgrader is not in the students' install, so it skips where nbgrader is not
installed, unless BLEU_LAB_REQUIRE_NBGRADER is set (CI sets it in a venv with nbgrader: see .ci/run).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from bleu_lab.assignments import lesson_gradings
from bleu_lab.assignments.nbgrader_source import SOLUTION
from bleu_lab.assignments.release import SCRATCH_CELL, release, worked_solutions

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO / "notebooks"
LESSON = "03_brevity_penalty"  # function exercises with hidden cases, a by-hand answer and a written answer; fast
MARKERS = re.compile(r"### (BEGIN|END) (SOLUTION|HIDDEN TESTS)")


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    outdir = tmp_path_factory.mktemp("course")
    release(outdir, NOTEBOOKS)
    return outdir / "nbgrader"


def _nbgrader_cells(nb: nbformat.NotebookNode) -> list[tuple[dict, str]]:
    return [(c.metadata["nbgrader"], c.source) for c in nb.cells if "nbgrader" in c.metadata]


@pytest.mark.parametrize("name", sorted(lesson_gradings()))
def test_every_exercise_has_its_test_cells_and_every_solution_its_region(course, name):
    nb = nbformat.read(course / "source" / name / f"{name}.ipynb", as_version=4)
    cells = _nbgrader_cells(nb)
    ids = [meta["grade_id"] for meta, _ in cells]
    assert len(ids) == len(set(ids)) and all(re.fullmatch(r"[\w-]+", i) for i in ids)

    solutions = worked_solutions(nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4), NOTEBOOKS)
    regions = [source for meta, source in cells if meta["solution"]]
    assert regions == [SOLUTION.format(s) for s in solutions.values()]

    tests = {meta["grade_id"]: (meta, source) for meta, source in cells if meta["grade"]}
    for index, exercise in enumerate(lesson_gradings()[name].exercises):
        if exercise.manual:  # a written answer: graded by hand, no nbgrader points
            assert f"test-{index}" not in tests
            continue
        meta, source = tests.pop(f"test-{index}")
        assert meta["points"] == 1 and meta["locked"] and f"assert_passes({name!r}, {index})" in source
        if exercise.hidden is not None:
            meta, source = tests.pop(f"test-{index}-hidden")
            assert meta["points"] == 1 and "### BEGIN HIDDEN TESTS" in source and "hidden=True" in source
    assert tests == {}


def test_the_config_hands_out_the_scratch_cell(course):
    config = (course / "nbgrader_config.py").read_text(encoding="utf-8")
    assert repr(SCRATCH_CELL) in config and "c.Execute.timeout" in config


def _nbgrader() -> str:
    found = shutil.which("nbgrader", path=str(Path(sys.executable).parent))
    if found is None:
        if os.environ.get("BLEU_LAB_REQUIRE_NBGRADER"):
            pytest.fail("BLEU_LAB_REQUIRE_NBGRADER is set but nbgrader is not installed in this venv")
        pytest.skip("nbgrader is not installed (instructors: pip install -e \".[grading]\"); CI runs this test")
    return found


def _with_venv_bin(path: str | None) -> str:
    """PATH with this venv's scripts first: nbgrader runs `alembic` from PATH to open its gradebook."""
    return os.pathsep.join(p for p in (str(Path(sys.executable).parent), path) if p)


def _run(course: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER")}
    env.update(JUPYTER_CONFIG_DIR=str(course / ".jupyter"), JUPYTER_DATA_DIR=str(course / ".jupyter-data"),
               PYTHONPATH=os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p),
               PATH=_with_venv_bin(os.environ.get("PATH")))
    done = subprocess.run([_nbgrader(), *args], cwd=course, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def _submit(course: Path, student: str, nb: nbformat.NotebookNode) -> None:
    folder = course / "submitted" / student / LESSON
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / f"{LESSON}.ipynb")


def test_nbgrader_hands_out_no_solution_and_grades_with_the_lessons_checks(course, monkeypatch):
    _nbgrader()
    monkeypatch.setenv("PATH", _with_venv_bin(os.environ.get("PATH")))
    _run(course, "generate_assignment", LESSON, "--force")
    handed_out = nbformat.read(course / "release" / LESSON / f"{LESSON}.ipynb", as_version=4)
    text = "\n".join(c.source for c in handed_out.cells)
    assert not MARKERS.search(text) and "hidden=True" not in text
    source = nbformat.read(course / "source" / LESSON / f"{LESSON}.ipynb", as_version=4)
    solutions = {c.metadata["nbgrader"]["grade_id"]: c.source for c in source.cells
                 if c.metadata.get("nbgrader", {}).get("solution")}
    for cell in handed_out.cells:
        if cell.metadata.get("nbgrader", {}).get("solution"):
            assert cell.source.strip() == SCRATCH_CELL
            solution = MARKERS.sub("", solutions[cell.metadata["nbgrader"]["grade_id"]]).strip()
            assert solution and solution not in text

    _submit(course, "untouched", handed_out)
    perfect = nbformat.read(course / "release" / LESSON / f"{LESSON}.ipynb", as_version=4)
    for cell in perfect.cells:  # a student who wrote the worked solutions into the scratch cells
        if cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = MARKERS.sub("", solutions[cell.metadata["nbgrader"]["grade_id"]]).strip()
    _submit(course, "perfect", perfect)
    _run(course, "autograde", LESSON, "--create")

    from nbgrader.api import Gradebook

    exercises = lesson_gradings()[LESSON].exercises
    possible = sum(e.points for e in exercises)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        scores = {s: gradebook.find_submission(LESSON, s) for s in ("perfect", "untouched")}
        assert scores["perfect"].max_score == possible == 5
        assert scores["perfect"].score == possible
        assert scores["untouched"].score == 0
