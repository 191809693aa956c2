"""Hidden points mean the student's own code (issue 35): an answer that is, wraps or calls bleu_lab's own
implementation of what its exercise asks for gets no points, through the real ``bleu-lab grade``, with and without
bubblewrap.

Each mode grades one batch: the solved lessons 3 and 4 (lesson 4's sentence BLEU calls bleu_lab's p_n and BP, which
earlier lessons ask for: allowed), and copies of the solved lesson 3 whose last cell puts bleu_lab's own functions in
place of the answers, in every form (the function itself, a lambda, ``functools.partial``, a call inside the student's
function, an import inside it, ``getattr``) and with attempts to undo the stand-ins (reloading the module,
``sys.modules`` surgery; under bubblewrap also executing the module's file, loading it under another name and copying
a ``__code__``). The two modes run at the same time. The sandboxed run skips with bubblewrap's reason where it cannot
start here; with ``BLEU_LAB_REQUIRE_SANDBOX=1`` (CI) it fails instead.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from test_grading_attacks import _need

from bleu_lab.assignments import grade as grading
from bleu_lab.assignments import lesson_gradings, own_code
from bleu_lab.assignments.release import release

REPO = Path(__file__).resolve().parent.parent
SEED = 35
TIMEOUT = 60
LESSON = "03_brevity_penalty"
LINE = "uses bleu_lab's own {}: write it yourself"

# name -> (the cell appended to the solved lesson 3, the function the report names for my_brevity_penalty, for
# my_closest_ref_length). Two forms a notebook (lesson 3 asks for two functions); the first also undoes the stand-ins
# the two ways a kernel can without reading a file: every bleu_lab module dropped from sys.modules and imported again,
# and a fresh copy of the module (importlib.reload) at each call.
FORMS = {
    "itself_and_lambda": ("import importlib, sys\n"
                          "for name in [n for n in sys.modules if n.startswith('bleu_lab')]:\n"
                          "    del sys.modules[name]\n"
                          "from bleu_lab.brevity import brevity_penalty as my_brevity_penalty\n"
                          "import bleu_lab.brevity\n"
                          "my_closest_ref_length = lambda ref_lens, c: (\n"
                          "    importlib.reload(bleu_lab.brevity).closest_length(ref_lens, c))",
                          "brevity_penalty", "closest_length"),
    "partial_and_call": ("import functools\nimport bleu_lab\n"
                         "my_brevity_penalty = functools.partial(bleu_lab.brevity_penalty)\n"
                         "def my_closest_ref_length(ref_lens, c):\n"
                         "    return bleu_lab.closest_ref_length([['w'] * n for n in ref_lens], c)",
                         "brevity_penalty", "closest_ref_length"),
    "import_and_getattr": ("import importlib\n"
                           "def my_brevity_penalty(r, c):\n"
                           "    from bleu_lab.brevity import brevity_penalty as bp\n"
                           "    return bp(r, c)\n"
                           "my_closest_ref_length = getattr(importlib.import_module('bleu_lab.' + 'brevity'), "
                           "'closest_' + 'length')",
                           "brevity_penalty", "closest_length"),
}
# Under bubblewrap only: the module's file itself (which --sandbox none cannot hide: see docs/grading_notes.md).
FILE_FORMS = {
    "exec_file_and_code": ("import importlib.util\nimport bleu_lab.brevity\n"
                           "source = open(bleu_lab.brevity.__file__).read().replace('from .', 'from bleu_lab.')\n"
                           "copied = {'__name__': 'copied'}\n"
                           "exec(compile(source, 'copied.py', 'exec'), copied)\n"
                           "my_brevity_penalty = copied['brevity_penalty']\n"
                           "spec = importlib.util.spec_from_file_location('bleu_lab.brevity2',\n"
                           "                                              bleu_lab.brevity.__file__)\n"
                           "module = importlib.util.module_from_spec(spec)\n"
                           "spec.loader.exec_module(module)\n"
                           "def my_closest_ref_length(ref_lens, c):\n"
                           "    pass\n"
                           "my_closest_ref_length.__code__ = module.closest_length.__code__",
                           "brevity_penalty", "closest_length"),
}



def _reports(stdout: str) -> dict[str, str]:
    """Each notebook's report (its lines up to its score line) by the notebook's file stem."""
    found = {}
    for block in re.findall(r"^== .*?^score: .*?$", stdout, re.S | re.M):
        found[Path(block.split("\n", 1)[0].split(" (lesson")[0][3:]).stem] = block
    return found


def _points(report: str, exercise: str) -> str:
    return re.search(rf"^  {re.escape(exercise)}\s+(\d+ / \d+)$", report, re.M).group(1)


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, dict[str, str] | str]:
    """Both modes' reports (or, for a mode that cannot run here, why), graded at the same time."""
    root = tmp_path_factory.mktemp("own_code")
    release(root / "course", REPO / "notebooks")
    solved = root / "course" / "solved"
    batches, runs = {}, {}
    for mode in ("none", "bubblewrap"):
        folder = root / mode
        folder.mkdir()
        paths = []
        for lesson in (LESSON, "04_putting_it_together"):
            (folder / f"solved_{lesson}.ipynb").write_bytes((solved / f"{lesson}.ipynb").read_bytes())
            paths.append(folder / f"solved_{lesson}.ipynb")
        forms = {**FORMS, **(FILE_FORMS if mode == "bubblewrap" else {})}
        for name, (cell, _, _) in forms.items():
            nb = nbformat.read(solved / f"{LESSON}.ipynb", as_version=4)
            nb.cells.append(nbformat.v4.new_code_cell(cell))
            nbformat.write(nb, folder / f"{name}_{LESSON}.ipynb")
            paths.append(folder / f"{name}_{LESSON}.ipynb")
        batches[mode] = paths
    for mode, paths in batches.items():
        box = grading.choose_sandbox("auto") if mode == "bubblewrap" else None
        if box is not None and box.kind != "bubblewrap":
            runs[mode] = box.why
            continue
        command = [str(Path(sys.executable).parent / "bleu-lab"), "grade", *map(str, paths), "--seed", str(SEED),
                   "--timeout", str(TIMEOUT), "--sandbox", mode]
        runs[mode] = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=root)
    results = {}
    for mode, run in runs.items():
        if isinstance(run, str):
            results[mode] = run
            continue
        out, err = run.communicate(timeout=900)
        assert run.returncode == 0, err
        results[mode] = _reports(out)
    return results


def _mode(graded, mode: str) -> dict[str, str]:
    _need(mode)
    return graded[mode]


@pytest.mark.parametrize("mode", ["none", "bubblewrap"])
def test_the_solved_lessons_keep_full_marks(graded, mode):
    reports = _mode(graded, mode)
    for lesson, score in ((LESSON, "5 / 5"), ("04_putting_it_together", "4 / 4")):
        report = reports[f"solved_{lesson}"]
        assert f"score: {score}" in report, report
        assert "uses bleu_lab's own" not in report


@pytest.mark.parametrize("mode", ["none", "bubblewrap"])
@pytest.mark.parametrize("form", [*FORMS, *FILE_FORMS])
def test_bleu_labs_own_function_gets_no_points(graded, mode, form):
    if form in FILE_FORMS and mode == "none":
        pytest.skip("--sandbox none cannot hide bleu_lab's files from the kernel (docs/grading_notes.md)")
    report = _mode(graded, mode)[f"{form}_{LESSON}"]
    _, bp, closest = {**FORMS, **FILE_FORMS}[form]
    assert _points(report, "my_brevity_penalty") == "0 / 2", report
    assert _points(report, "my_closest_ref_length") == "0 / 2", report
    assert LINE.format(bp) in report and LINE.format(closest) in report, report
    assert _points(report, "a short hypothesis with p_1 = 1") == "1 / 1", report  # the other marks stand
    assert "score: 1 / 5" in report, report


def test_every_graded_exercise_declares_bleu_labs_answer():
    """Each exercise says which bleu_lab functions are its answer (``()``: none), and each name is a function of a
    bleu_lab module; the function exercises of lessons that ask for a BLEU piece declare at least one."""
    asks_for_a_function = set()
    for grading_ in lesson_gradings().values():
        for exercise in grading_.exercises:
            assert exercise.implemented_by is not None, f"{grading_.notebook}: {exercise.name} declares nothing"
            assert isinstance(exercise.implemented_by, tuple)
            if exercise.implemented_by:
                asks_for_a_function.add(exercise.name)
        own_code.overlay(grading_)  # every declared name is found, or ValueError
    assert {"my_count_ngrams", "my_clip", "my_modified_precision", "my_brevity_penalty", "my_closest_ref_length",
            "my_geometric_mean", "my_sentence_bleu", "old_nltk_bleu", "my_exp_smoothing", "my_method1",
            "my_corpus_bleu", "my_ar_p_value", "my_bonferroni", "my_pairwise_accuracy", "my_word_counts",
            "my_fmeasure", "my_salient_score", "my_kendall_tau"} <= asks_for_a_function


def test_a_stand_in_keeps_no_line_of_the_original():
    source = (REPO / "bleu_lab" / "brevity.py").read_text(encoding="utf-8")
    stand_in = own_code.stand_in_source(source, ["brevity_penalty", "closest_length"], "bleu_lab.brevity")
    assert "math.exp(1 - r / c)" in source and "math.exp(1 - r / c)" not in stand_in
    assert "key=lambda r: (abs(r - hyp_len), r)" not in stand_in
    assert "def closest_ref_length(" in stand_in  # what is not declared stays
    with pytest.raises(ValueError, match="not a function defined in bleu_lab.brevity"):
        own_code.stand_in_source(source, ["no_such_function"], "bleu_lab.brevity")


STAND_IN_WORLDS = """
import importlib, json, sys
for lesson, boot, functions in json.loads(sys.stdin.read()):
    exec(boot, {})
    import bleu_lab
    for qualified in functions:
        module, _, name = qualified.rpartition(".")
        try:
            target = importlib.import_module(module)
        except ImportError:
            module, _, cls = module.rpartition(".")
            target = getattr(importlib.import_module(module), cls)
        found = getattr(target, name)
        try:
            (found.fget if isinstance(found, property) else found)(None, None)
        except RuntimeError as exc:
            assert "is not available to graded code" in str(exc), exc
        else:
            raise AssertionError(qualified + " still runs")
    if lesson != "01_ngrams_and_clipping":
        assert bleu_lab.count_ngrams("a b a", 1)[("a",)] == 2  # what no exercise of the lesson asks for still runs
    sys.meta_path.pop(0)
    for name in [n for n in sys.modules if n.startswith("bleu_lab")]:
        del sys.modules[name]
print("ok")
"""


def test_each_lessons_stand_in_world_imports_and_hides_its_answers():
    """bleu_lab imports with each lesson's stand-ins (an honest notebook runs), and each declared function raises
    the stand-in's error."""
    worlds = [(name, world.boot(), list(world.functions)) for name, g in sorted(lesson_gradings().items())
              if (world := own_code.overlay(g)) is not None]
    assert len(worlds) >= 9
    done = subprocess.run([sys.executable, "-I", "-c", STAND_IN_WORLDS], input=json.dumps(worlds),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_no_worked_solution_calls_what_its_lesson_declares():
    """The worked solutions earn full marks in the stand-in world: none names a function its lesson declares (the
    real grader's run of the solved lessons 3 and 4 is above)."""
    import ast

    checked = 0
    for name, grading_ in lesson_gradings().items():
        declared = {qualified.rsplit(".", 1)[-1] for qualified in own_code.declared(grading_)}
        answers = {answer for e in grading_.exercises if e.implemented_by for answer in e.answers}
        for path in sorted((REPO / "notebooks" / "solutions").glob(f"{name[:2]}_*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            if not any(isinstance(n, ast.FunctionDef) and n.name in answers for n in tree.body):
                continue  # a value exercise's solution may use anything
            checked += 1
            used = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
            used |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
            used |= {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
            assert not used & declared, f"{path.name} calls {used & declared}, which {name} declares"
    assert checked >= 17


def test_the_verdict_keeps_only_what_the_stand_in_run_confirms():
    """``judge``: an exercise keeps its points only if the stand-in run earns as many; otherwise 0 and the line,
    naming the function the stand-in's error names, else the ones the exercise declares (a run that broke)."""
    from types import SimpleNamespace

    from bleu_lab.assignments.grade import ExerciseResult

    exercises = {e.name: e for e in lesson_gradings()[LESSON].exercises if e.implemented_by}
    first = SimpleNamespace(exercises=[ExerciseResult("my_brevity_penalty", 2, 2, hidden_points=1),
                                       ExerciseResult("my_closest_ref_length", 2, 2, hidden_points=1),
                                       ExerciseResult("a short hypothesis with p_1 = 1", 1, 1)])
    called = "raised RuntimeError: bleu_lab's own closest_ref_length is not available to graded code: write it yourself"
    again = SimpleNamespace(note="", exercises=[ExerciseResult("my_brevity_penalty", 2, 2),
                                                ExerciseResult("my_closest_ref_length", 1, 2, messages=[called])])
    own_code.judge(first, again, exercises)
    assert [(r.points, r.hidden_points) for r in first.exercises] == [(2, 1), (0, 0), (1, 0)]
    assert first.exercises[1].messages == [
        "uses bleu_lab's own closest_ref_length: write it yourself (with it hidden, your answer earned 1 of 2 points)"]


def test_a_stand_in_run_that_could_not_finish_is_tried_again_and_never_accuses():
    """``recheck``: a stand-in run that stopped (a dead kernel, a time limit) or met an OS error the ordinary run did
    not is run again; one that finishes then judges as usual; if none finishes, the exercises are "not marked: grade
    again" with no points and no accusation, or, beside other notebooks, left for the batch to retry alone."""
    from bleu_lab.assignments.grade import ExerciseResult, NotebookGrade

    grading_ = lesson_gradings()[LESSON]

    def first() -> NotebookGrade:
        return NotebookGrade(Path("n.ipynb"), LESSON, [ExerciseResult("my_brevity_penalty", 2, 2, hidden_points=1),
                                                       ExerciseResult("my_closest_ref_length", 2, 2, hidden_points=1),
                                                       ExerciseResult("a short hypothesis with p_1 = 1", 1, 1)])

    confirmed = NotebookGrade(Path("n.ipynb"), LESSON, [ExerciseResult("my_brevity_penalty", 2, 2),
                                                        ExerciseResult("my_closest_ref_length", 2, 2)])
    died = NotebookGrade(Path("n.ipynb"), LESSON, stopped="the kernel failed (DeadKernelError)")
    disk = NotebookGrade(Path("n.ipynb"), LESSON, errors=["cell 3: OSError: [Errno 28] No space left on device"])
    for disturbed in (died, disk):
        runs = iter([disturbed, confirmed])
        grade = own_code.recheck(first(), grading_, lambda world, runs=runs: next(runs))
        assert (grade.score, grade.unmarked, grade.retry) == (5, [], "")
        grade = own_code.recheck(first(), grading_, lambda world, again=disturbed: again)
        assert (grade.score, grade.unmarked, grade.retry) == (1, ["my_brevity_penalty", "my_closest_ref_length"], "")
        text = grading.format_grade(grade)
        assert "uses bleu_lab's own" not in text and "not marked: grade again" in text, text
        assert "score: 1 / 5  (not marked: 4 points: grade again)" in text
        grade = own_code.recheck(first(), grading_, lambda world, again=disturbed: again, tries=1,
                                 last=False)
        assert grade.retry and grade.score == 5 and not grade.unmarked  # the batch decides, alone


def test_the_box_binds_each_stand_in_and_hides_the_compiled_copies(tmp_path):
    """Under bubblewrap: the stand-in read-only over the module's file, an empty read-only folder over the
    ``__pycache__`` beside it (a ``.pyc`` of the original could be loaded with ``marshal``)."""
    package = tmp_path / "package"
    (package / "__pycache__").mkdir(parents=True)
    (package / "__pycache__" / "brevity.cpython-311.pyc").write_bytes(b"compiled original")
    lesson = lesson_gradings()[LESSON]
    world = own_code.Overlay(lesson, ("bleu_lab.brevity.brevity_penalty",),
                             {"bleu_lab.brevity": (package / "brevity.py", "def brevity_penalty(): raise\n")})
    args = world.bwrap_args(tmp_path / "own")
    stand_in = args[args.index(str(package / "brevity.py")) - 1]
    assert args[args.index(stand_in) - 1] == "--ro-bind"
    assert Path(stand_in).read_text() == "def brevity_penalty(): raise\n"
    cache = str(package / "__pycache__")
    assert args[args.index(cache) - 1] == "--tmpfs" and args[args.index(cache) + 1:][:2] == ["--remount-ro", cache]
