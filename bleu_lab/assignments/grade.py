"""``bleu-lab grade NOTEBOOK ...``: run submitted lessons in a fresh kernel and mark their exercises.

Each notebook runs top to bottom in a new kernel (a cell that raises does not stop the rest; a cell that runs too
long is interrupted). Then one grading cell per exercise, appended at the end, calls the lesson's own check on the
student's objects in that kernel, and again on the exercise's hidden cases.

Points: 1 for the visible check, 1 more for the hidden cases (function exercises only), all or nothing each; a
written answer is "manual": shown with its key points, not counted in the total.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..exercises import Feedback, GradedExercise, LessonGrading, reset_tries
from . import METADATA_KEY, lesson_gradings

RESULT_MIME = "application/vnd.bleu-lab.grade+json"
GRADE_CELL = "import bleu_lab.assignments.grade as _bleu_lab_grade\n_bleu_lab_grade.kernel_report({lesson!r}, {index})"
DEFAULT_TIMEOUT = 120  # seconds per cell


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


@dataclass
class NotebookGrade:
    """The marks of one submitted notebook."""

    path: Path
    lesson: str
    exercises: list[ExerciseResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # cells of the submission that raised
    note: str = ""

    @property
    def score(self) -> int:
        return sum(e.points for e in self.exercises)

    @property
    def possible(self) -> int:
        return sum(e.possible for e in self.exercises)


def grade_exercise(exercise: GradedExercise, namespace: Mapping[str, object]) -> ExerciseResult:
    """Mark one exercise from the student's objects in ``namespace`` (a kernel's, or any dict)."""
    result = ExerciseResult(exercise.name, possible=exercise.points, manual=bool(exercise.manual))
    args = _answers(exercise, namespace)
    if isinstance(args, str):
        result.messages.append(args)
        return result
    visible = _run_check(exercise.check, args, {})
    if exercise.manual:
        result.answer = "; ".join(f"{name} = {value!r}" for name, value in zip(exercise.answers, args))
        result.key_points = exercise.manual
        result.messages.append(f"keyword check (a hint for the grader): {'found' if visible.passed else 'missing'}")
        return result
    result.points += visible.passed
    if not visible.passed:
        result.messages.append(str(visible))
    if exercise.hidden is not None:
        hidden = _run_check(exercise.check, args, exercise.hidden)
        result.points += hidden.passed
        if not hidden.passed and visible.passed:
            result.messages.append("hidden cases: " + str(hidden))
        elif not hidden.passed:
            result.messages.append("hidden cases: not passed either")
    return result


def _answers(exercise: GradedExercise, namespace: Mapping[str, object]) -> list[object] | str:
    """The student's objects the exercise's check takes, or why they are missing."""
    missing = [name for name in exercise.answers if name not in namespace]
    if missing:
        return (f"{', '.join(missing)} is not defined after running the notebook "
                "(a cell above raised, or the name was changed)")
    return [namespace[name] for name in exercise.answers]


def grade_namespace(grading: LessonGrading, namespace: Mapping[str, object]) -> list[ExerciseResult]:
    """Mark every exercise of a lesson from one namespace."""
    return [grade_exercise(exercise, namespace) for exercise in grading.exercises]


def _run_check(check: Callable[..., Feedback], args: list[object], kwargs: Mapping[str, object]) -> Feedback:
    """A check's feedback, as on a first try (tiered hints never show the answer); a crash is a failure."""
    reset_tries()
    try:
        feedback = check(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - an answer that crashes the check fails it
        return Feedback(check.__name__).fail(f"the check could not run on this answer: {type(exc).__name__}: {exc}")
    return feedback if isinstance(feedback, Feedback) else Feedback(check.__name__).fail("the check returned nothing")


def kernel_report(lesson: str, index: int) -> None:
    """In the student's kernel: mark exercise ``index`` of ``lesson`` and display the result for the grader."""
    from IPython import get_ipython
    from IPython.display import display

    shell = get_ipython()
    namespace = shell.user_ns if shell is not None else {}
    result = grade_exercise(lesson_gradings()[lesson].exercises[index], namespace)
    display({RESULT_MIME: asdict(result)}, raw=True)


def assert_passes(lesson: str, index: int, *, hidden: bool = False) -> None:
    """An nbgrader test cell of ``bleu-lab release``'s nbgrader source: exercise ``index`` of ``lesson`` passes.

    Runs in the student's kernel on their objects, on the visible cases or (``hidden=True``) on the hidden ones, and
    raises ``AssertionError`` with the check's feedback otherwise, which nbgrader shows the student.
    """
    from IPython import get_ipython

    exercise = lesson_gradings()[lesson].exercises[index]
    shell = get_ipython()
    args = _answers(exercise, shell.user_ns if shell is not None else {})
    if isinstance(args, str):
        raise AssertionError(f"{exercise.name}: {args}")
    feedback = _run_check(exercise.check, args, exercise.hidden if hidden else {})
    if not feedback.passed:
        raise AssertionError(f"{exercise.name}{' (hidden cases)' if hidden else ''}:\n{feedback}")
    print(f"{exercise.name}: passed{' on the hidden cases' if hidden else ''}")


def lesson_of(metadata: Mapping[str, object], path: Path, lessons: Mapping[str, LessonGrading]) -> str:
    """The lesson a notebook is: from the release's metadata, else from its file name."""
    info = metadata.get(METADATA_KEY)
    if isinstance(info, Mapping) and isinstance(info.get("lesson"), str):
        return info["lesson"]
    names = sorted((name for name in lessons if name in path.stem), key=len, reverse=True)
    if names:
        return names[0]
    raise ValueError(f"{path}: cannot tell which lesson this is (no '{METADATA_KEY}' metadata from bleu-lab release, "
                     f"and the file name contains none of {', '.join(sorted(lessons))})")


def read_submission(path: Path):
    """The notebook at ``path`` and the lesson it is; OSError or ValueError with a clear message if it is neither."""
    import nbformat

    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as exc:  # noqa: BLE001 - nbformat raises several kinds for a file that is no notebook
        raise ValueError(f"{path}: not a readable notebook ({type(exc).__name__}: {exc})") from exc
    return nb, lesson_of(nb.metadata, path, lesson_gradings())


def grade_notebook(path: Path, timeout: int = DEFAULT_TIMEOUT) -> NotebookGrade:
    """Run a submitted notebook in a fresh kernel and mark its lesson's exercises."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import DeadKernelError

    nb, lesson = read_submission(path)
    grading = lesson_gradings().get(lesson)
    grade = NotebookGrade(path, lesson)
    if grading is None or not grading.exercises:
        grade.note = f"lesson {lesson} declares no graded exercises (GRADING in its bleu_lab.exercises module)"
        return grade
    first = len(nb.cells)
    nb.cells += [nbformat.v4.new_code_cell(GRADE_CELL.format(lesson=lesson, index=i))
                 for i in range(len(grading.exercises))]
    client = NotebookClient(
        nb, timeout=timeout, kernel_name="python3", allow_errors=True, interrupt_on_timeout=True,
        error_on_timeout={"ename": "TimeoutError", "evalue": f"interrupted after {timeout} s", "traceback": []},
        resources={"metadata": {"path": str(path.resolve().parent)}}, store_widget_state=False,
    )
    try:
        client.execute(env=_kernel_env(), stderr=subprocess.DEVNULL)  # the kernel's own log, not the student's
    except DeadKernelError as exc:
        grade.note = f"the kernel died while running the notebook ({exc}); exercises not reached get 0"
    grade.errors = [f"cell {i + 1}: {error}" for i, cell in enumerate(nb.cells[:first]) if (error := _error(cell))]
    for exercise, cell in zip(grading.exercises, nb.cells[first:]):
        grade.exercises.append(_result(exercise, cell))
    return grade


def _kernel_env() -> dict[str, str]:
    """The grader's environment, with this bleu_lab first on the kernel's path: the same checks on both sides."""
    root = str(Path(__file__).resolve().parent.parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return env


def _error(cell) -> str:
    """The error a code cell raised ('' if none)."""
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            if output.get("ename") in ("KeyboardInterrupt", "TimeoutError"):
                return "interrupted: it ran longer than the time limit (--timeout)"
            return f"{output.get('ename')}: {output.get('evalue')}"
    return ""


def _result(exercise: GradedExercise, cell) -> ExerciseResult:
    """The result a grading cell displayed, or 0 points with the reason it has none."""
    for output in cell.get("outputs", []):
        data = output.get("data", {}).get(RESULT_MIME)
        if data:
            return ExerciseResult(**data)
    why = _error(cell) or "the kernel did not get to this exercise"
    return ExerciseResult(exercise.name, possible=exercise.points, manual=bool(exercise.manual),
                          messages=[f"could not be graded: {why}"])


def format_grade(grade: NotebookGrade) -> str:
    """The report of one notebook: each exercise's points, the feedback of failed checks, then the score line."""
    lines = [f"== {grade.path} (lesson {grade.lesson})"]
    width = max((len(e.name) for e in grade.exercises), default=0)
    for e in grade.exercises:
        marks = "manual" if e.manual else f"{e.points} / {e.possible}"
        lines.append(f"  {e.name:<{width}}  {marks}")
        if e.manual:
            lines.append(f"      answer: {e.answer or '(none)'}")
            lines.append(f"      key points: {e.key_points}")
        if e.manual or e.points < e.possible:
            lines += ["      " + line for message in e.messages for line in message.splitlines()]
    if grade.errors:
        lines.append(f"  cells that raised ({len(grade.errors)}): " + "; ".join(grade.errors[:5])
                     + (" ..." if len(grade.errors) > 5 else ""))
    if grade.note:
        lines.append(f"  note: {grade.note}")
    manual = sum(e.manual for e in grade.exercises)
    lines.append(f"score: {grade.score} / {grade.possible}" + (f"  (+ {manual} to grade by hand)" if manual else ""))
    return "\n".join(lines)
