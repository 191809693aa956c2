"""Assignments that grade themselves: ``bleu-lab release`` and ``bleu-lab grade`` (bleu_lab.assignments).

The release is written once per module. Most tests work on the files or grade in-process from a namespace (fast, every
lesson). The attacks of issue 21 are real notebooks graded by the real grader: one batch (``attacked``) grades them all
at once with one seed, and each test reads its part of that one report (about 10 s per notebook).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import random
import re
import subprocess
import sys
import warnings
from collections import Counter
from fractions import Fraction
from pathlib import Path

import nbformat
import pytest

from bleu_lab.assignments import grade as grading
from bleu_lab.assignments import integrity, lesson_gradings, wire
from bleu_lab.assignments.cli import main as assignments_main
from bleu_lab.assignments.grade import format_grade, grade_exercise, grade_namespace, grade_notebook
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


def test_hidden_cases_are_drawn_at_grading_time_and_differ_from_the_visible_ones():
    for grading_ in lesson_gradings().values():
        for exercise in grading_.exercises:
            if exercise.hidden is None:
                continue
            visible = inspect.signature(exercise.check).parameters["cases"].default
            drawn = [exercise.hidden(random.Random(seed))["cases"] for seed in (1, 2)]
            assert len(drawn[0]) >= 2 and drawn[0] != drawn[1], exercise.name
            assert drawn[0] == exercise.hidden(random.Random(1))["cases"]  # one seed, the same cases
            assert not {repr(c) for c in drawn[0]} & {repr(c) for c in visible}, exercise.name


def test_no_hidden_case_table_ships():
    import bleu_lab.course.exercises as exercises

    for path in Path(exercises.__file__).parent.glob("*.py"):
        assert not re.search(r"^HIDDEN_\w+\s*[:=]", path.read_text(encoding="utf-8"), re.MULTILINE), path.name


def test_old_nltk_generator_reproduces_the_printed_values():
    from bleu_lab.course.exercises.when_bleu_fails import INTRO_POST_PRINTED, SHIP_REFERENCES, old_nltk_score

    for hypothesis, printed in INTRO_POST_PRINTED.items():
        assert old_nltk_score(SHIP_REFERENCES, hypothesis) == pytest.approx(printed, rel=1e-12)
    cat = ("the cat is on the mat", "there is a cat on the mat")  # values the post's nltk 3.2 gives, kept here only
    assert old_nltk_score(cat, "a cat sat on the mat today") == pytest.approx(0.5169731539571706, rel=1e-12)
    assert old_nltk_score(cat, "dog") == 0.0


# ------------------------------------------------------------------------------------------------ grading in-process


@pytest.mark.parametrize("name", sorted(lesson_gradings()))
def test_the_worked_solutions_earn_full_marks(name):
    for seed in (1, 2):
        results = grade_namespace(lesson_gradings()[name], _solved_namespace(name), seed)
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
        result = grade_exercise(exercise, {exercise.answers[0]: hard_coded}, seed=7, lesson=name)
        assert (result.points, result.possible) == (1, 2), exercise.name
        assert result.messages[0].startswith("hidden cases: ✘"), result.messages


def test_a_missing_answer_scores_zero_and_says_why():
    exercise = lesson_gradings()["01_ngrams_and_clipping"].exercises[0]
    result = grade_exercise(exercise, {})
    assert result.points == 0 and "my_count_ngrams is not defined" in result.messages[0]


# ------------------------------------------------------------------------------------------------ the wire


@pytest.mark.parametrize("value", [
    None, True, 3, -2.5, float("inf"), "text", [1, [2, 3]], (1, 2), {("a", "b"): 2}, Counter({("the",): 2}),
    {1, 2}, Fraction(3, 7), ..., {"k": (1.5, "x")},
])
def test_the_wire_carries_plain_values_both_ways(value):
    back = wire.loads(wire.dumps(value))
    assert back == value and type(back) is type(value)


def test_the_wire_carries_numpy_generators_and_bleu_lab_results_but_no_other_object():
    import numpy as np

    import bleu_lab as bl

    assert wire.loads(wire.dumps(np.int64(4))) == 4 and wire.loads(wire.dumps(np.float64(0.5))) == 0.5
    array = wire.loads(wire.dumps(np.array([1.5, 2.0])))
    assert isinstance(array, np.ndarray) and array.tolist() == [1.5, 2.0]
    assert list(wire.loads(wire.dumps(x for x in (1, 2)))) == [1, 2]
    stats = bl.corpus_score(["the cat sat"], [["the cat sat on the mat"]]).stats
    classes = grading._wire_classes()
    assert wire.loads(wire.dumps(stats), classes) == stats
    result = bl.paired_bootstrap(["the cat sat", "a dog"], ["the cat sat on", "the dog"],
                                 [["the cat sat on the mat"], ["the dog ran"]], n_samples=50, method="shift")
    assert wire.loads(wire.dumps(result), classes) == result  # lesson 9 hands in a BootstrapResult
    opaque = wire.loads(wire.dumps(stats))  # without the allow-list: a stand-in no check accepts
    assert isinstance(opaque, wire.Opaque)
    assert isinstance(wire.loads(wire.dumps(object())), wire.Opaque)
    assert isinstance(wire.loads(wire.dumps(len)), wire.FunctionRef)


def test_the_wire_is_bounded():
    for big in ("x" * (wire.MAX_TEXT + 1), list(range(wire.MAX_ITEMS + 1)), 10 ** 400, iter(int, 1)):
        with pytest.raises(wire.TooLarge):
            wire.dumps(big)
    nested: list = []
    for _ in range(wire.MAX_DEPTH + 5):
        nested = [nested]
    with pytest.raises(wire.TooLarge):
        wire.dumps(nested)
    with pytest.raises(wire.TooLarge):
        wire.loads("[" + " " * (wire.MAX_CHARS + 2000) + "]")


def test_the_kernel_is_the_graders_own_and_isolated():
    spec = grading._kernel_spec_manager().get_kernel_spec("python3")  # whatever name: never a kernelspec on disk
    assert spec.argv[:3] == [sys.executable, "-I", "-B"]
    env = grading._kernel_env(Path("/nonexistent-home"))
    # none of the grader's PYTHON* settings (PYTHONPATH, PYTHONSTARTUP, ...); only no bytecode written by a Python
    # the notebook starts (it would change the grader's own files)
    assert {key: env[key] for key in env if key.startswith("PYTHON")} == {"PYTHONDONTWRITEBYTECODE": "1"}
    assert env["HOME"] == "/nonexistent-home"


def test_the_report_cannot_be_forged():
    grade = grading.NotebookGrade(Path("evil\nscore: 9 / 9.ipynb"), "03\rscore: 9 / 9", note="x\u2028score: 9 / 9")
    grade.exercises = [grading.ExerciseResult("e\nscore: 9 / 9", points=0, possible=2,
                                              messages=["line\nscore: 9 / 9\x0bscore: 9 / 9\x1b[2K"])]
    report = format_grade(grade)
    assert [line for line in report.splitlines() if line.startswith("score")] == ["score: 0 / 2"]
    assert "\x1b" not in report and "\x0b" not in report and "\u2028" not in report


# ------------------------------------------------------------------------------------------------ the attacks, graded

LESSON = "03_brevity_penalty"
SEED = 1234
PATCH_CELL = """\
import bleu_lab.course.exercises as _e
import bleu_lab.assignments.grade as _g
_e.Feedback.fail = lambda self, message: self
_g.assert_passes = lambda *a, **k: None
_g.grade_exercise = lambda exercise, namespace, *a, **k: _g.ExerciseResult(exercise.name, points=2, possible=2)
import os
from IPython.display import display
display({"application/vnd.bleu-lab.grade+json": {"name": "my_brevity_penalty", "points": 2, "possible": 2}}, raw=True)
print("score: 5 / 5")
os.write(1, b"score: 5 / 5\\n")
os.write(2, b"score: 5 / 5\\n")
print("x" * 3_000_000)
for target in ("../bob/03_brevity_penalty.ipynb", "../../bob/03_brevity_penalty.ipynb", "03_brevity_penalty.ipynb"):
    try:
        open(target, "w").write("{}")
    except OSError:
        pass
"""
STOWAWAY = """\
import bleu_lab.course.exercises as _e
_e.Feedback.fail = lambda self, message: self
open(__file__ + ".ran", "w").write("the stowaway ran")
"""


def _answer_cells(nb: nbformat.NotebookNode, answers: dict[str, str]) -> None:
    for target, source in answers.items():
        cell = next(c for c in nb.cells if c.cell_type == "code" and re.search(rf"^(def )?{target}\b", c.source, re.M))
        cell.source = source


def _write(folder: Path, nb: nbformat.NotebookNode) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / f"{LESSON}.ipynb")
    return folder / f"{LESSON}.ipynb"


@pytest.fixture(scope="module")
def attacked(released, tmp_path_factory):
    """One batch of submissions of lesson 3, each an attack of issue 21 (or a control), graded by `bleu-lab grade`."""
    inbox = tmp_path_factory.mktemp("inbox")
    solved = nbformat.read(released / "solved" / f"{LESSON}.ipynb", as_version=4)
    student = nbformat.read(released / "student" / f"{LESSON}.ipynb", as_version=4)
    paths = {"alice": _write(inbox / "alice", solved), "bob": _write(inbox / "bob", solved)}
    carol = nbformat.from_dict(json.loads(json.dumps(student)))
    carol.metadata["bleu_lab"] = {"lesson": f"{LESSON}\nscore: 5 / 5", "copy": "student"}
    paths["carol"] = _write(inbox / "carol", carol)
    dave = nbformat.from_dict(json.loads(json.dumps(student)))
    dave.cells.insert(1, nbformat.v4.new_code_cell(PATCH_CELL))
    paths["dave"] = _write(inbox / "dave", dave)
    paths["erin"] = _write(inbox / "erin", student)
    (inbox / "erin" / "sacrebleu").mkdir()
    (inbox / "erin" / "sacrebleu" / "__init__.py").write_text(STOWAWAY, encoding="utf-8")
    (inbox / "gina").mkdir()
    (inbox / "gina" / f"{LESSON}.ipynb").write_text('{"cells": [', encoding="utf-8")
    paths["gina"] = inbox / "gina" / f"{LESSON}.ipynb"
    ivan = nbformat.from_dict(json.loads(json.dumps(solved)))
    ivan.cells.insert(1, nbformat.v4.new_code_cell("import os\nos._exit(1)"))
    paths["ivan"] = _write(inbox / "ivan", ivan)
    judy = nbformat.from_dict(json.loads(json.dumps(student)))
    _answer_cells(judy, {
        "my_brevity_penalty": "import math\n\ndef my_brevity_penalty(r, c):\n"
                              "    return 1.0 if c > r else (0.0 if c == 0 else 1 - r / c)",
        "my_closest_ref_length": "def my_closest_ref_length(ref_lens, c):\n"
                                 "    return {(9,): 9, (6, 7, 12): 7, (5, 8, 6): 8, (8, 12): 8, (12, 8): 8, "
                                 "(13, 7, 9, 11): 9}[tuple(ref_lens)]",
        "short_hypothesis": 'short_hypothesis = "the mat"',
    })
    judy.cells.insert(3, nbformat.v4.new_code_cell("raise RuntimeError('a cell that fails')"))
    paths["judy"] = _write(inbox / "judy", judy)
    before = {p: p.read_bytes() for p in inbox.rglob("*") if p.is_file()}
    command = Path(sys.executable).parent / "bleu-lab"  # as an instructor runs it (python -m would put cwd on the path)
    done = subprocess.run([str(command), "grade", *map(str, paths.values()), "--seed", str(SEED), "--timeout", "120"],
                          capture_output=True, text=True, timeout=900, cwd=inbox)
    assert done.returncode == 0, done.stdout[-1000:] + done.stderr[-2000:]
    reports = re.split(r"^(?===)", done.stdout, flags=re.MULTILINE)
    assert reports[0].startswith(f"seed: {SEED}")
    by_name = {name: next(r for r in reports[1:] if f"{name}/" in r.splitlines()[0]) for name in paths}
    return {"done": done, "reports": by_name, "inbox": inbox, "before": before, "paths": paths}


def _score(attacked, name: str) -> str:
    return re.findall(r"^score: .*$", attacked["reports"][name], re.MULTILINE)[0]


def test_one_score_line_per_notebook_written_by_the_grader_only(attacked):
    done = attacked["done"]
    assert done.returncode == 0, done.stderr
    scores = re.findall(r"^score: .*$", done.stdout, re.MULTILINE)
    assert len(scores) == len(attacked["paths"]) == 8
    assert "score: 5 / 5" not in done.stderr  # the kernel's own stdout and stderr go nowhere


def test_the_solved_copies_earn_full_marks_and_the_untouched_one_nothing(attacked):
    assert _score(attacked, "alice") == _score(attacked, "bob") == "score: 5 / 5  (+ 1 to grade by hand)"
    assert _score(attacked, "carol") == "score: 0 / 5  (+ 1 to grade by hand)"
    assert "what BLEU would do without BP    manual" in attacked["reports"]["alice"]


def test_patching_the_checks_in_the_kernel_earns_nothing(attacked):
    """Feedback.fail, assert_passes and grade_exercise replaced, a forged result displayed, score lines printed."""
    assert _score(attacked, "dave") == "score: 0 / 5  (+ 1 to grade by hand)"


def test_a_stowaway_package_beside_the_notebook_never_runs(attacked):
    assert _score(attacked, "erin") == "score: 0 / 5  (+ 1 to grade by hand)"
    assert not (attacked["inbox"] / "erin" / "sacrebleu" / "__init__.py.ran").exists()


def test_no_submission_reaches_another_and_grading_writes_nothing_beside_them(attacked):
    after = {p: p.read_bytes() for p in attacked["inbox"].rglob("*") if p.is_file()}
    assert after == attacked["before"]


def test_metadata_cannot_forge_a_line_or_a_lesson(attacked):
    report = attacked["reports"]["carol"]
    assert f"(lesson {LESSON})" in report.splitlines()[0]
    assert sum(line.startswith("score") for line in report.splitlines()) == 1


def test_a_broken_or_dying_notebook_does_not_stop_the_batch(attacked):
    assert _score(attacked, "gina") == "score: not graded"
    assert "not a readable notebook" in attacked["reports"]["gina"]
    assert _score(attacked, "ivan") == "score: 0 / 5  (+ 1 to grade by hand)"
    assert "kernel" in attacked["reports"]["ivan"]


def test_typical_wrong_and_hard_coded_answers(attacked):
    report = attacked["reports"]["judy"]
    assert re.search(r"my_brevity_penalty\s+0 / 2", report) and "You forgot the exponential" in report
    assert re.search(r"my_closest_ref_length\s+1 / 2", report) and "hidden cases: ✘" in report
    assert "KeyError" in report
    assert re.search(r"a short hypothesis with p_1 = 1\s+1 / 1", report)
    assert "cell 4: RuntimeError: a cell that fails" in report


# ------------------------------------------------------------------------------------------------ limits and tampering


def test_a_cell_that_runs_too_long_is_interrupted_and_grading_goes_on(released, tmp_path):
    nb = nbformat.read(released / "solved" / "00_start_here.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("while True:\n    pass"))
    path = tmp_path / "00_start_here.ipynb"
    nbformat.write(nb, path)
    grade = grade_notebook(path, timeout=20)
    assert grade.errors == [f"cell {len(nb.cells)}: interrupted: it ran longer than the time limit (--timeout)"]
    assert [(e.points, e.possible) for e in grade.exercises] == [(1, 1), (1, 1)]


def test_a_graded_kernel_starts_without_a_debugger_yet_a_notebook_may_import_debugpy(released, tmp_path):
    """The grader sends no debug request, so its kernels skip ipykernel's debugger (debugpy, a tenth of a CPU second
    at each start); debugpy itself stays importable for the notebook."""
    nb = nbformat.read(released / "solved" / "00_start_here.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("import debugpy, ipykernel.debugger as debugger\n"
                                              "assert debugpy.__version__ and not debugger._is_debugpy_available"))
    path = tmp_path / "00_start_here.ipynb"
    nbformat.write(nb, path)
    grade = grade_notebook(path, timeout=60)
    assert grade.errors == []
    assert [(e.points, e.possible) for e in grade.exercises] == [(1, 1), (1, 1)]


def test_grading_refuses_marks_when_its_own_files_change(released, tmp_path, monkeypatch, capsys):
    protected = tmp_path / "site-packages"
    protected.mkdir()
    (protected / "bleu_lab_checks.py").write_text("# the installed checks\n", encoding="utf-8")
    monkeypatch.setattr(integrity, "protected_roots", lambda: [protected])
    nb = nbformat.read(released / "student" / "00_start_here.ipynb", as_version=4)
    nb.cells.insert(1, nbformat.v4.new_code_cell(
        f"open({str(protected / 'bleu_lab_checks.py')!r}, 'a').write('# patched by a submission')"))
    evil, clean = tmp_path / "evil" / "00_start_here.ipynb", tmp_path / "clean" / "00_start_here.ipynb"
    for path, notebook in ((evil, nb), (clean, nbformat.read(released / "solved" / "00_start_here.ipynb", 4))):
        path.parent.mkdir()
        nbformat.write(notebook, path)
    # Without the sandbox (in it, the file could not even be written: tests/test_grading_attacks.py)
    assert main(["grade", str(evil), str(clean), "--seed", "1", "--sandbox", "none"]) == 3
    out, err = capsys.readouterr()
    assert "score:" not in out and "files changed" in err and "bleu_lab_checks.py" in err


@pytest.mark.parametrize("timeout", ["0", "-5", "nan", "inf"])
def test_the_time_limit_must_be_positive(timeout, tmp_path, capsys):
    path = tmp_path / "00_start_here.ipynb"
    nbformat.write(nbformat.v4.new_notebook(), path)
    assert main(["grade", str(path), "--timeout", timeout]) == 2
    assert "--timeout must be a positive number" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------------ command line


def test_unusable_input_exits_2_or_is_reported_not_graded(tmp_path, capsys):
    assert main(["grade", str(tmp_path / "missing.ipynb")]) == 2
    assert "no such file" in capsys.readouterr().err
    stray = tmp_path / "notes.ipynb"
    nbformat.write(nbformat.v4.new_notebook(), stray)
    assert main(["grade", str(stray)]) == 0
    out = capsys.readouterr().out
    assert "cannot tell which lesson" in out and out.rstrip().endswith("score: not graded")


def test_help_names_the_instructor_commands(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = " ".join(capsys.readouterr().out.split())  # the help wraps lines wherever it must
    assert "bleu-lab release OUTDIR" in out and "bleu-lab grade" in out


# ------------------------------------------------------------------------------------ release keeps what is not its own


def test_release_force_keeps_what_it_did_not_write(tmp_path, capsys):
    outdir = tmp_path / "course"
    release(outdir, NOTEBOOKS)
    ours = outdir / "solved" / f"{LESSON}.ipynb"
    keep = [outdir / "nbgrader" / "gradebook.db", outdir / "nbgrader" / "submitted" / "alice" / LESSON / "a.ipynb",
            outdir / "nbgrader" / "autograded" / "alice" / LESSON / "a.ipynb", outdir / "student" / "notes.txt"]
    for path in keep:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("not the release's", encoding="utf-8")
    ours.write_text("{}", encoding="utf-8")  # stale: replaced by --force only if unchanged since the release
    assert assignments_main(["release", str(outdir), "--force"]) == 2
    assert "was changed since bleu-lab release wrote it" in capsys.readouterr().err
    ours.unlink()
    assert assignments_main(["release", str(outdir), "--force"]) == 0
    assert all(path.read_text(encoding="utf-8") == "not the release's" for path in keep)
    assert ours.is_file() and json.loads(ours.read_text(encoding="utf-8"))["cells"]
    (outdir / "student" / f"{LESSON}.ipynb").write_text("mine", encoding="utf-8")
    (outdir / ".bleu-lab-release.json").unlink()  # no record: nothing there is the release's own
    assert assignments_main(["release", str(outdir), "--force"]) == 2
    assert "was not written by it" in capsys.readouterr().err


def test_release_never_deletes_or_writes_outside_outdir_whatever_its_manifest_says(tmp_path, capsys):
    """Issue 28: an edited .bleu-lab-release.json naming a file by absolute path or '..' made release --force
    delete it; a link inside OUTDIR must not lead a write out of it either."""
    outdir = tmp_path / "course"
    release(outdir, NOTEBOOKS)
    outside = {name: tmp_path / name for name in ("precious.txt", "notes.txt", "linked.txt")}
    for path in outside.values():
        path.write_text(f"the instructor's {path.name}", encoding="utf-8")
    digest = hashlib.sha256(b"the instructor's precious.txt").hexdigest()
    manifest_path = outdir / ".bleu-lab-release.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest[str(outside["precious.txt"])] = digest  # absolute
    manifest["../notes.txt"] = hashlib.sha256(b"the instructor's notes.txt").hexdigest()
    manifest["student/../../notes.txt"] = manifest["../notes.txt"]
    (outdir / "student" / "link.txt").symlink_to(outside["linked.txt"])
    manifest["student/link.txt"] = hashlib.sha256(b"the instructor's linked.txt").hexdigest()
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    assert assignments_main(["release", str(outdir), "--force"]) == 0
    for path in outside.values():
        assert path.read_text(encoding="utf-8") == f"the instructor's {path.name}"
    assert (outdir / "student" / "link.txt").is_symlink()
    assert str(outside["precious.txt"]) not in manifest_path.read_text(encoding="utf-8")
    # A release file that is a link out of OUTDIR: refused before anything is written, the target untouched.
    lesson = outdir / "solved" / f"{LESSON}.ipynb"
    lesson.unlink()
    lesson.symlink_to(outside["linked.txt"])
    assert assignments_main(["release", str(outdir), "--force"]) == 2
    assert "was not written by it" in capsys.readouterr().err
    assert outside["linked.txt"].read_text(encoding="utf-8") == "the instructor's linked.txt"


def test_release_refuses_overlapping_paths(released, capsys):
    for outdir, lessons in ((released, released / "solved"), (NOTEBOOKS / "out", NOTEBOOKS), (NOTEBOOKS, NOTEBOOKS)):
        assert assignments_main(["release", str(outdir), "--notebooks", str(lessons), "--force"]) == 2
        assert "overlap" in capsys.readouterr().err
    assert (released / "solved" / f"{LESSON}.ipynb").is_file() and not (NOTEBOOKS / "out").exists()
