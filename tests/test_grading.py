"""Assignments that grade themselves: ``bleu-lab release`` and ``bleu-lab grade`` (bleu_lab.assignments).

The release is written once per module. Most tests work on the files or grade in-process from a namespace (fast, every
lesson); the kernel tests grade a few lessons end to end (about 5 s per notebook).
"""

from __future__ import annotations

import inspect
import json
import re
import warnings
from pathlib import Path

import nbformat
import pytest

from bleu_lab.assignments import lesson_gradings
from bleu_lab.assignments.cli import main as assignments_main
from bleu_lab.assignments.grade import grade_exercise, grade_namespace, grade_notebook
from bleu_lab.assignments.release import LOAD_CELL, release
from bleu_lab.cli import main

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO / "notebooks"
LESSONS = sorted(NOTEBOOKS.glob("*.ipynb"))
CHECK_CALL = re.compile(r"^(check_\w+)\(", re.MULTILINE)


@pytest.fixture(scope="module")
def released(tmp_path_factory) -> Path:
    outdir = tmp_path_factory.mktemp("course")
    release(outdir, NOTEBOOKS)
    return outdir


def _texts(path: Path) -> str:
    """Everything a person can read in a notebook: sources, outputs and metadata (the file as written)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    parts = [path.read_text(encoding="utf-8")]
    for cell in nb["cells"]:
        parts.append("".join(cell["source"]))
        for output in cell.get("outputs", []):
            parts.append("".join(output.get("text", "")))
            parts += ["".join(v) if isinstance(v, list) else str(v) for v in output.get("data", {}).values()]
    return "\n".join(parts)


def _solution_sources(lesson: nbformat.NotebookNode) -> list[str]:
    """The solution files a lesson's ``# %load`` cells name, in order."""
    return [m.group(1) for c in lesson.cells if c.cell_type == "code" and (m := LOAD_CELL.match(c.source))]


def _solved_namespace(name: str) -> dict:
    """The objects a perfect student ends with: the lesson's solution files run in order, plus model answers."""
    namespace: dict = {}
    lesson = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for source in _solution_sources(lesson):
            exec(compile((NOTEBOOKS / source).read_text(encoding="utf-8"), source, "exec"), namespace)  # noqa: S102
    for exercise in lesson_gradings()[name].exercises:
        if exercise.manual:
            namespace[exercise.answers[0]] = exercise.model_answer
    return namespace


# ------------------------------------------------------------------------------------------------ release


def test_release_writes_every_lesson_twice(released):
    names = [p.name for p in LESSONS]
    assert sorted(p.name for p in (released / "student").glob("*.ipynb")) == names
    assert sorted(p.name for p in (released / "solved").glob("*.ipynb")) == names
    assert not list(released.rglob("solutions"))


def test_release_holds_no_solution_text(released):
    """Every solution line (not a comment, > 20 characters) that the lesson itself does not show is absent."""
    lesson_texts = "\n".join(cell.source for path in LESSONS for cell in nbformat.read(path, as_version=4).cells
                             if not LOAD_CELL.match(cell.source))
    student = {p.name: _texts(p) for p in (released / "student").glob("*.ipynb")}
    checked = 0
    for solution in sorted((NOTEBOOKS / "solutions").glob("*.py")):
        for line in solution.read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if len(line) <= 20 or line.startswith("#") or line in lesson_texts:
                continue  # a comment, or scaffolding the lesson shows itself (imports, signatures, check calls)
            checked += 1
            leaks = [name for name, text in student.items() if line in text]
            assert not leaks, f"{solution.name}: {line!r} is in {leaks}"
    assert checked > 60


def test_release_has_no_load_cells_and_no_exercise_outputs(released):
    for path in (released / "student").glob("*.ipynb"):
        text = _texts(path)
        assert "%load" not in text and "solutions/" not in text, path.name
        nb = nbformat.read(path, as_version=4)
        assert nb.metadata["bleu_lab"] == {"lesson": path.stem, "copy": "student"}
        for cell in nb.cells:
            if cell.cell_type == "code" and CHECK_CALL.search(cell.source):
                assert cell.outputs == [], f"{path.name}: the output of {cell.source!r} is kept"


def test_solved_copy_holds_the_solutions_and_the_key_points(released):
    for path in LESSONS:
        solved = _texts(released / "solved" / path.name)
        for source in _solution_sources(nbformat.read(path, as_version=4)):
            assert (NOTEBOOKS / source).read_text(encoding="utf-8").strip() in solved
    solved = _texts(released / "solved" / "03_brevity_penalty.ipynb")
    without_bp = next(e for e in lesson_gradings()["03_brevity_penalty"].exercises if e.manual)
    assert without_bp.manual in solved and repr(without_bp.model_answer) in solved


def test_release_refuses_to_overwrite_without_force(released, capsys):
    assert assignments_main(["release", str(released)]) == 2
    assert "--force" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------------ declarations


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_every_check_of_a_lesson_is_declared(path):
    """Each check a lesson calls is graded, with objects the lesson defines: a new lesson only declares GRADING."""
    called = {m for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "code"
              for m in CHECK_CALL.findall(cell.source)}
    grading = lesson_gradings().get(path.stem)
    declared = {e.check.__name__ for e in grading.exercises} if grading else set()
    assert called == declared
    source = "\n".join(cell.source for cell in nbformat.read(path, as_version=4).cells)
    for exercise in grading.exercises if grading else ():
        for name in exercise.answers:
            assert re.search(rf"^(def )?{name}\b", source, re.MULTILINE), f"{path.stem} never defines {name}"


def test_hidden_cases_are_other_inputs_than_the_visible_ones():
    for grading in lesson_gradings().values():
        for exercise in grading.exercises:
            if exercise.hidden is None:
                continue
            visible = inspect.signature(exercise.check).parameters["cases"].default
            hidden = exercise.hidden["cases"]
            assert len(hidden) >= 2
            assert not {repr(c) for c in hidden} & {repr(c) for c in visible}, exercise.name


# ------------------------------------------------------------------------------------------------ grading in-process


@pytest.mark.parametrize("name", sorted(lesson_gradings()))
def test_the_worked_solutions_earn_full_marks(name):
    results = grade_namespace(lesson_gradings()[name], _solved_namespace(name))
    assert [(r.name, r.points) for r in results] == [(r.name, r.possible) for r in results]
    assert all(r.possible == 0 for r in results if r.manual)


@pytest.mark.parametrize("name", sorted(lesson_gradings()))
def test_an_answer_hard_coded_for_the_visible_cases_fails_the_hidden_ones(name):
    """A function that only replays the solution's answers to the visible check's inputs earns 1 point of 2."""
    namespace = _solved_namespace(name)
    for exercise in lesson_gradings()[name].exercises:
        if exercise.hidden is None:
            continue
        solution, table = namespace[exercise.answers[0]], {}

        def recorder(*args, solution=solution, table=table):
            table[repr(args)] = solution(*args)
            return table[repr(args)]

        def hard_coded(*args, table=table):
            return table[repr(args)]

        assert exercise.check(recorder).passed
        result = grade_exercise(exercise, {exercise.answers[0]: hard_coded})
        assert (result.points, result.possible) == (1, 2), exercise.name
        assert result.messages[0].startswith("hidden cases: ✘"), result.messages


def test_a_missing_answer_scores_zero_and_says_why():
    exercise = lesson_gradings()["01_ngrams_and_clipping"].exercises[0]
    result = grade_exercise(exercise, {})
    assert result.points == 0 and "my_count_ngrams is not defined" in result.messages[0]


# ------------------------------------------------------------------------------------------------ grading in a kernel


def test_grade_command_gives_the_solved_copies_full_marks(released, capsys):
    paths = [released / "solved" / name for name in ("01_ngrams_and_clipping.ipynb", "03_brevity_penalty.ipynb")]
    assert main(["grade", *map(str, paths)]) == 0
    out = capsys.readouterr().out
    assert re.findall(r"^score: .*$", out, re.MULTILINE) == ["score: 5 / 5", "score: 5 / 5  (+ 1 to grade by hand)"]
    assert re.search(r"what BLEU would do without BP\s+manual", out)


def test_the_untouched_release_scores_zero(released):
    for name in ("01_ngrams_and_clipping", "03_brevity_penalty"):
        grade = grade_notebook(released / "student" / f"{name}.ipynb")
        assert grade.lesson == name and grade.possible == 5
        assert all(e.points == 0 for e in grade.exercises)
        assert all(e.messages for e in grade.exercises)


def _student_copy(released: Path, tmp_path: Path, name: str, answers: dict[str, str]) -> Path:
    """The student copy of a lesson with the answer cells that define the given names replaced."""
    nb = nbformat.read(released / "student" / f"{name}.ipynb", as_version=4)
    for target, source in answers.items():
        cell = next(c for c in nb.cells if c.cell_type == "code" and re.search(rf"^(def )?{target}\b", c.source, re.M))
        cell.source = source
    nb.cells.insert(3, nbformat.v4.new_code_cell("raise RuntimeError('a cell that fails')"))
    path = tmp_path / "alice" / f"{name}.ipynb"
    path.parent.mkdir(exist_ok=True)
    nbformat.write(nb, path)
    return path


def test_typical_wrong_answers_get_no_marks_and_the_checks_feedback(released, tmp_path):
    path = _student_copy(released, tmp_path, "03_brevity_penalty", {
        "my_brevity_penalty": "import math\n\ndef my_brevity_penalty(r, c):\n"
                              "    return 1.0 if c > r else (0.0 if c == 0 else 1 - r / c)",
        "my_closest_ref_length": "def my_closest_ref_length(ref_lens, c):\n"
                                 "    return {(9,): 9, (6, 7, 12): 7, (5, 8, 6): 8, (8, 12): 8, (12, 8): 8, "
                                 "(13, 7, 9, 11): 9}[tuple(ref_lens)]",
        "short_hypothesis": 'short_hypothesis = "the mat"',
    })
    grade = grade_notebook(path)
    marks = {e.name: (e.points, e.possible) for e in grade.exercises}
    assert marks == {"my_brevity_penalty": (0, 2), "my_closest_ref_length": (1, 2),
                     "a short hypothesis with p_1 = 1": (1, 1), "what BLEU would do without BP": (0, 0)}
    bp, closest = grade.exercises[0], grade.exercises[1]
    assert "You forgot the exponential" in bp.messages[0]
    assert closest.messages[0].startswith("hidden cases: ✘") and "KeyError" in closest.messages[0]
    assert grade.errors == ["cell 4: RuntimeError: a cell that fails"]


def test_an_unclipped_count_gets_no_marks(released, tmp_path):
    path = _student_copy(released, tmp_path, "01_ngrams_and_clipping", {
        "my_clip": "def my_clip(hyp_counts, refs_counts):\n    return dict(hyp_counts)",
    })
    clip = next(e for e in grade_notebook(path).exercises if e.name == "my_clip")
    assert (clip.points, clip.possible) == (0, 2)
    assert "its count in the hypothesis, not clipped" in clip.messages[0]


def test_a_cell_that_runs_too_long_is_interrupted_and_grading_goes_on(released, tmp_path):
    nb = nbformat.read(released / "student" / "00_start_here.ipynb", as_version=4)
    nb.cells.insert(3, nbformat.v4.new_code_cell("while True:\n    pass"))
    path = tmp_path / "00_start_here.ipynb"
    nbformat.write(nb, path)
    grade = grade_notebook(path, timeout=5)
    assert grade.errors == ["cell 4: interrupted: it ran longer than the time limit (--timeout)"]
    assert [(e.points, e.possible) for e in grade.exercises] == [(0, 1), (0, 1)]
    assert all("could not be graded" not in m for e in grade.exercises for m in e.messages)


# ------------------------------------------------------------------------------------------------ command line


def test_unusable_input_exits_2_with_one_clear_line(tmp_path, capsys):
    assert main(["grade", str(tmp_path / "missing.ipynb")]) == 2
    assert "no such file" in capsys.readouterr().err
    stray = tmp_path / "notes.ipynb"
    nbformat.write(nbformat.v4.new_notebook(), stray)
    assert main(["grade", str(stray)]) == 2
    assert "cannot tell which lesson" in capsys.readouterr().err


def test_help_names_the_instructor_commands(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "bleu-lab release OUTDIR" in out and "bleu-lab grade" in out
