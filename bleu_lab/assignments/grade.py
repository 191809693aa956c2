"""``bleu-lab grade NOTEBOOK ...``: marks that depend only on what the student's code returns.

For each submission (read once, before anything runs):

1. **Run it in isolation.** Only the ``.ipynb`` is copied, into a private temporary folder that is the kernel's working
   directory and home; the kernel is the grader's own (``python -I -B``: no script folder, working directory, user
   site-packages or ``PYTHON*`` variable on ``sys.path``, no bytecode written), with fresh IPython and Jupyter
   folders, its output to ``/dev/null``, a wall-clock limit for the whole notebook and a cap on the output kept.
2. **Ask it for plain values.** After the last cell, the grader sends the kernel the code of ``wire`` and asks for
   each answer by name: numbers, strings, lists, dicts ... come back as bounded JSON. A function answer comes back as
   a name; the grader hands the checks a ``KernelFunction`` that sends each call's arguments to the kernel and
   returns the decoded result (or raises the student's exception by name), at most ``CALL_TIMEOUT`` seconds a call.
3. **Mark in the grader.** The lessons' own checks (``bleu_lab.exercises``) run here, in the grader's process, on
   those values, on the visible cases and on hidden cases drawn now from ``--seed`` (nothing hidden ships). Nothing
   the kernel prints, displays or patches reaches a mark: its objects never cross, only values.
4. **Refuse tampered runs.** The files the grader and the kernels run (bleu_lab, site-packages, the interpreter) are
   snapshotted (size, inode, change time) before the batch and compared after each notebook; a change stops the batch
   and withholds that notebook's marks.

Points: 1 for the visible check, 1 more for the hidden cases (function exercises), all or nothing each; a written
answer is "manual": shown with its key points, not counted.
"""

from __future__ import annotations

import json
import os
import random
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..exercises import MAX_ANSWER_CHARS, Feedback, GradedExercise, LessonGrading, reset_tries, shown
from . import METADATA_KEY, lesson_gradings, wire

DEFAULT_TIMEOUT = 600  # seconds of wall clock to run one notebook (and as much again, at most, to mark it)
CALL_TIMEOUT = 10  # seconds for one call of a student's function
OUTPUT_LIMIT = 1_000_000  # characters of a notebook's own output kept (the rest is dropped unread)
MAX_NOTEBOOK_BYTES = 50_000_000
PROTECTED_PACKAGES = ("bleu_lab", "data")  # beside the site-packages: this checkout's package and its data
SKIPPED_IN_STDLIB = ("site-packages", "test", "idlelib", "tkinter", "turtledemo", "ensurepip")
WIRE_CLASSES = ("bleu_lab.significance.BootstrapResult", "bleu_lab.significance.RandomizationResult",
                "bleu_lab.sacrebleu_style.BleuScore", "bleu_lab.statistics.BleuStats")


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


@dataclass
class NotebookGrade:
    """The marks of one submitted notebook (``graded`` False: none, see ``note``)."""

    path: Path
    lesson: str
    exercises: list[ExerciseResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # cells of the submission that raised
    note: str = ""
    graded: bool = True

    @property
    def score(self) -> int:
        return sum(e.points for e in self.exercises)

    @property
    def possible(self) -> int:
        return sum(e.possible for e in self.exercises)


class TamperingError(RuntimeError):
    """The grader's own files changed while a submission ran."""


# ------------------------------------------------------------------------------------------- marking (in the grader)


def hidden_rng(seed: int, lesson: str, exercise: str) -> random.Random:
    """The random source of one exercise's hidden cases: the same seed draws the same cases, whatever the order."""
    return random.Random(f"{seed}:{lesson}:{exercise}")


def grade_exercise(exercise: GradedExercise, namespace: Mapping[str, object], seed: int = 0,
                   lesson: str = "") -> ExerciseResult:
    """Mark one exercise from the student's values in ``namespace`` (decoded values, ``KernelFunction``s or any
    objects), with the visible check and hidden cases drawn from ``seed``."""
    result = ExerciseResult(exercise.name, possible=exercise.points, manual=bool(exercise.manual))
    args = _answers(exercise, namespace)
    if isinstance(args, str):
        result.messages.append(args)
        return result
    visible = _run_check(exercise.check, args, {})
    if exercise.manual:
        result.answer = "; ".join(f"{name} = {shown(value, MAX_ANSWER_CHARS)}"  # as much as the check reads
                                  for name, value in zip(exercise.answers, args))
        result.key_points = exercise.manual
        result.messages += [m for m in visible.messages if not m.startswith(("recorded:", "a model answer"))]
        return result
    result.points += visible.passed
    if not visible.passed:
        result.messages.append(str(visible))
    if exercise.hidden is not None:
        cases = exercise.hidden(hidden_rng(seed, lesson, exercise.name))
        hidden = _run_check(exercise.check, args, cases)
        result.points += hidden.passed
        result.hidden_points = int(hidden.passed)
        if not hidden.passed and visible.passed:
            result.messages.append("hidden cases: " + str(hidden))
        elif not hidden.passed:
            result.messages.append("hidden cases: not passed either")
    return result


def _answers(exercise: GradedExercise, namespace: Mapping[str, object]) -> list[object] | str:
    """The student's values the exercise's check takes, or why they are missing."""
    missing = [name for name in exercise.answers if name not in namespace]
    if missing:
        return (f"{', '.join(missing)} is not defined after running the notebook "
                "(a cell above raised, or the name was changed)")
    problems = [f"{name}: {namespace[name].why}" for name in exercise.answers
                if isinstance(namespace[name], Unreadable)]
    if problems:
        return "could not read the answer: " + "; ".join(problems)
    return [namespace[name] for name in exercise.answers]


def grade_namespace(grading: LessonGrading, namespace: Mapping[str, object], seed: int = 0) -> list[ExerciseResult]:
    """Mark every exercise of a lesson from one namespace."""
    return [grade_exercise(exercise, namespace, seed, grading.notebook) for exercise in grading.exercises]


def _run_check(check: Callable[..., Feedback], args: list[object], kwargs: Mapping[str, object]) -> Feedback:
    """A check's feedback, as on a first try (tiered hints never show the answer); a crash is a failure."""
    reset_tries()
    try:
        feedback = check(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - an answer that crashes the check fails it
        return Feedback(check.__name__).fail(f"the check could not run on this answer: {type(exc).__name__}: {exc}")
    return feedback if isinstance(feedback, Feedback) else Feedback(check.__name__).fail("the check returned nothing")


# ------------------------------------------------------------------------------------- the kernel, at arm's length


@dataclass(frozen=True)
class Unreadable:
    """An answer the kernel could not hand over as a plain value."""

    why: str


class StudentError(Exception):
    """An exception the student's function raised in the kernel (its class name and message, nothing else)."""


_STUDENT_ERRORS: dict[str, type[StudentError]] = {}


def student_error(name: str, message: str) -> StudentError:
    """A ``StudentError`` whose class is named like the student's exception, so the checks' hints still read it
    ("raised ZeroDivisionError: division by zero")."""
    safe = name if name.isidentifier() else "Error"
    if safe not in _STUDENT_ERRORS:
        _STUDENT_ERRORS[safe] = type(safe, (StudentError,), {})
    return _STUDENT_ERRORS[safe](message)


class KernelSession:
    """Requests to one student's kernel, each a cell of the grader's own whose printed output is read between two
    random markers, at most ``CALL_TIMEOUT`` seconds each and ``budget`` seconds in all."""

    def __init__(self, client, budget: float) -> None:
        self.client = client
        self.deadline = time.monotonic() + budget
        self.namespace = "_bleu_lab_grader_" + secrets.token_hex(4)
        self.broken = ""
        self.classes = _wire_classes()

    def _request(self, code: str) -> str:
        """Run ``code`` (which prints one marked JSON text) in the kernel; the text, or raise RuntimeError."""
        import nbformat

        if self.broken:
            raise RuntimeError(self.broken)
        marker = secrets.token_hex(16)
        cell = nbformat.v4.new_code_cell(
            f"print({marker!r}, {code}, {marker!r}, sep='')")
        left = self.deadline - time.monotonic()
        if left <= 1:
            self.broken = "the time limit for marking this notebook ran out"
            raise RuntimeError(self.broken)
        self.client.current_timeout = max(1, int(min(CALL_TIMEOUT, left)))
        self.client.grading = True
        cells = self.client.nb.cells
        cells.append(cell)
        try:
            self.client.execute_cell(cell, len(cells) - 1)
        except Exception as exc:  # noqa: BLE001 - a dead or stuck kernel ends the marking of this notebook
            self.broken = f"the kernel stopped answering ({type(exc).__name__})"
            raise RuntimeError(self.broken) from exc
        finally:
            cells.pop()
        text = "".join(o.get("text", "") for o in cell.outputs if o.get("name") == "stdout")
        start, end = text.find(marker), text.rfind(marker)
        if start < 0 or end <= start:
            error = _error(cell)
            if "time limit" in error:
                self.broken = f"a call ran longer than {CALL_TIMEOUT} s, and the kernel was interrupted"
                raise RuntimeError(f"it ran longer than {CALL_TIMEOUT} s")
            raise RuntimeError(error or "the kernel sent no answer (its output was cut or replaced)")
        return text[start + len(marker):end]

    def install(self) -> None:
        """Send ``wire``'s code (and its two helpers) into the kernel, under a name no lesson uses."""
        source = wire.SOURCE + wire.KERNEL_HELPERS
        self._request(f"(globals().__setitem__({self.namespace!r}, {{}}) or exec({source!r}, "
                      f"globals()[{self.namespace!r}]) or 'installed')")

    def answers(self, names: Iterable[str]) -> dict[str, object]:
        """The student's values of ``names`` (functions as ``KernelFunction``; ``Unreadable`` where none came)."""
        names = list(names)
        try:
            reply = json.loads(self._request(f"{self.namespace}['answers'](globals(), {names!r})"))
        except (RuntimeError, ValueError) as exc:
            return {name: Unreadable(str(exc)) for name in names}
        found: dict[str, object] = {}
        for name in names:
            item = reply.get(name, {}) if isinstance(reply, dict) else {}
            if item.get("missing"):
                continue
            if "raised" in item:
                found[name] = Unreadable("it cannot be read as a plain value ({}: {})".format(*item["raised"]))
                continue
            try:
                value = wire.decode(item.get("ok"), self.classes)
            except Exception as exc:  # noqa: BLE001 - anything malformed is unreadable, never trusted
                found[name] = Unreadable(f"malformed value ({type(exc).__name__})")
                continue
            found[name] = KernelFunction(self, name) if isinstance(value, wire.FunctionRef) else value
        return found

    def call(self, name: str, args: tuple) -> object:
        """The student's ``name(*args)``, run in the kernel; its decoded result, or its exception re-raised here."""
        try:
            args_json = json.dumps([wire.encode(a) for a in args], allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise RuntimeError(f"the grader could not send these arguments ({exc})") from exc
        reply = json.loads(self._request(f"{self.namespace}['call'](globals(), {name!r}, {args_json!r})"))
        if not isinstance(reply, dict):
            raise RuntimeError("the kernel sent a malformed reply")
        if "raised" in reply:
            kind, message = (list(reply["raised"]) + ["", ""])[:2]
            raise student_error(str(kind), str(message))
        return wire.decode(reply.get("ok"), self.classes)


class KernelFunction:
    """The grader's stand-in for a student's function: calling it runs the function in the student's kernel on the
    same (serialised) arguments and returns the decoded result. The checks call it like any function."""

    def __init__(self, session: KernelSession, name: str) -> None:
        self.session, self.__name__ = session, name

    def __call__(self, *args: object) -> object:
        return self.session.call(self.__name__, args)

    def __repr__(self) -> str:
        return f"<your function {self.__name__}>"


def _wire_classes() -> dict[str, type]:
    """The bleu_lab result classes an answer may be (the only classes the grader rebuilds)."""
    import importlib

    found = {}
    for qualified in WIRE_CLASSES:
        module, _, name = qualified.rpartition(".")
        found[qualified] = getattr(importlib.import_module(module), name)
    return found


# ------------------------------------------------------------------------------------------- one notebook


def _bounded_client_class():
    """nbclient's NotebookClient, keeping at most OUTPUT_LIMIT characters of a notebook's own output, error
    messages shortened, and everything the grader's requests print (which ``wire`` bounds)."""
    from nbclient import NotebookClient

    class BoundedClient(NotebookClient):
        kept = 0
        current_timeout = CALL_TIMEOUT
        grading = False  # True once the grader's own requests run

        def output(self, outs, msg, display_id, cell_index):
            content = msg.get("content", {})
            if msg.get("msg_type") == "error":
                msg = {**msg, "content": {"ename": str(content.get("ename", ""))[:100],
                                          "evalue": str(content.get("evalue", ""))[:300], "traceback": []}}
            elif not self.grading:
                size = len(str(content.get("text", ""))) + sum(len(str(v)) for v in content.get("data", {}).values())
                if self.kept + size > OUTPUT_LIMIT:
                    return None
                self.kept += size
            return super().output(outs, msg, display_id, cell_index)

    return BoundedClient


def _kernel_spec_manager():
    """A kernelspec of the grader's own (not one a submission could rewrite on disk): this Python, isolated, writing
    no bytecode (so that any change to a ``__pycache__`` is a submission's doing)."""
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager

    root = str(Path(__file__).resolve().parent.parent.parent)
    boot = (f"import sys; sys.path.append({root!r}); "  # after site-packages: bleu_lab for an uninstalled checkout
            "from ipykernel.kernelapp import launch_new_instance; launch_new_instance()")
    spec = KernelSpec(argv=[sys.executable, "-I", "-B", "-c", boot, "-f", "{connection_file}"],
                      display_name="bleu-lab grader", language="python", metadata={})

    class GraderSpecs(KernelSpecManager):
        def get_kernel_spec(self, kernel_name, *args, **kwargs):
            return spec

    return GraderSpecs()


def _kernel_env(home: Path) -> dict[str, str]:
    """A minimal environment: fresh home, IPython, Jupyter and matplotlib folders inside the private temp folder."""
    for sub in ("ipython", "jupyter-config", "jupyter-data", "runtime", "mpl", "tmp"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    return {"PATH": os.environ.get("PATH", os.defpath), "LANG": os.environ.get("LANG", "C.UTF-8"),
            "HOME": str(home), "IPYTHONDIR": str(home / "ipython"), "JUPYTER_CONFIG_DIR": str(home / "jupyter-config"),
            "JUPYTER_DATA_DIR": str(home / "jupyter-data"), "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
            "MPLCONFIGDIR": str(home / "mpl"), "MPLBACKEND": "agg", "TMPDIR": str(home / "tmp"),
            "JUPYTER_PLATFORM_DIRS": "1"}


def grade_notebook(path: Path, timeout: int = DEFAULT_TIMEOUT, seed: int = 0, *, nb=None,
                   lesson: str | None = None) -> NotebookGrade:
    """Run a submission (``nb``, already read from ``path``, or read now) in an isolated kernel and mark its
    lesson's exercises in this process. ``timeout`` (> 0) bounds the run in wall-clock seconds, and the marking."""
    import nbformat
    from jupyter_client import AsyncKernelManager

    check_timeout(timeout)
    if nb is None:
        try:
            nb, lesson = read_submission(path, lesson)
        except ValueError as err:
            return NotebookGrade(path, "?", note=f"not graded: {err}", graded=False)
    elif lesson is None:
        lesson = lesson_of(nb.metadata, path, lesson_gradings())
    grading = lesson_gradings()[lesson]
    grade = NotebookGrade(path, lesson)
    if not grading.exercises:
        grade.note = f"lesson {lesson} declares no graded exercises (GRADING in its bleu_lab.exercises module)"
        return grade
    base = Path(tempfile.mkdtemp(prefix="bleu-lab-grade-"))  # private (0700), never beside the submissions
    pgid = None
    try:
        work = base / "work"
        work.mkdir()
        copy = nbformat.from_dict(json.loads(json.dumps(nb)))
        for cell in copy.cells:
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
        nbformat.write(copy, work / "submission.ipynb")
        km = AsyncKernelManager(kernel_spec_manager=_kernel_spec_manager(), kernel_name="bleu-lab-grader")
        deadline = [time.monotonic() + timeout]  # counted again from when the kernel is up
        client = _bounded_client_class()(
            copy, km=km, timeout_func=lambda cell: _cell_timeout(client, deadline[0]), allow_errors=True,
            interrupt_on_timeout=True, store_widget_state=False, iopub_timeout=4, startup_timeout=60,
            error_on_timeout={"ename": "TimeoutError", "evalue": "time limit", "traceback": []},
            resources={"metadata": {"path": str(work)}})
        client.current_timeout = None
        try:
            with client.setup_kernel(env=_kernel_env(base / "home"), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL):
                pgid = _process_group(km)
                deadline[0] = time.monotonic() + timeout
                _run_cells(client, copy, deadline[0], grade)
                session = KernelSession(client, budget=timeout)
                try:
                    session.install()
                except RuntimeError as exc:
                    grade.note = (grade.note + "; " if grade.note else "") + f"could not read the answers: {exc}"
                names = [name for exercise in grading.exercises for name in exercise.answers]
                values = session.answers(dict.fromkeys(names))
                grade.exercises = grade_namespace(grading, values, seed)
        except Exception as exc:  # noqa: BLE001 - a kernel that cannot start or dies: this notebook gets 0
            if not grade.exercises:
                grade.exercises = [ExerciseResult(e.name, possible=e.points, manual=bool(e.manual),
                                                  messages=["could not be graded: the kernel failed"])
                                   for e in grading.exercises]
            grade.note = (grade.note + "; " if grade.note else "") + f"the kernel failed ({type(exc).__name__})"
    finally:
        _kill_group(pgid)
        shutil.rmtree(base, ignore_errors=True)
    return grade


def _cell_timeout(client, deadline: float) -> int:
    """The seconds a cell may run: what is left of the notebook's time, or (for the grader's requests) one call's."""
    if client.current_timeout is not None:
        return client.current_timeout
    return max(1, int(deadline - time.monotonic()))


def _run_cells(client, nb, deadline: float, grade: NotebookGrade) -> None:
    """Run the submission's code cells in order until the time limit; record the cells that raised."""
    from nbclient.exceptions import DeadKernelError

    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if time.monotonic() >= deadline:
            grade.note = "the time limit (--timeout) ran out: the cells below were not run"
            break
        try:
            client.execute_cell(cell, index)
        except DeadKernelError:
            grade.note = "the kernel died while running the notebook"
            raise
        if error := _error(cell):
            grade.errors.append(f"cell {index + 1}: {error}")
            if "time limit" in error:
                grade.note = "the time limit (--timeout) ran out: the cells below were not run"
                break


def _process_group(km) -> int | None:
    provisioner = getattr(km, "provisioner", None)
    return getattr(provisioner, "pgid", None)


def _kill_group(pgid: int | None) -> None:
    """End whatever the kernel started in its process group (a background process of the notebook)."""
    if pgid and pgid != os.getpgid(0) and hasattr(os, "killpg"):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass


def _error(cell) -> str:
    """The error a code cell raised ('' if none)."""
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            if output.get("ename") in ("KeyboardInterrupt", "TimeoutError"):
                return "interrupted: it ran longer than the time limit (--timeout)"
            return f"{output.get('ename')}: {output.get('evalue')}"
    return ""


# ------------------------------------------------------------------------------------------- a batch


def check_timeout(timeout: object) -> None:
    """``timeout`` must be a positive number of seconds (0 or less would mean no limit at all)."""
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout < 10 ** 7:
        raise ValueError(f"--timeout must be a positive number of seconds, not {timeout!r}")


def lesson_of(metadata: Mapping[str, object], path: Path, lessons: Mapping[str, LessonGrading]) -> str:
    """The lesson a notebook is: from the release's metadata (if it names a lesson), else from its file name."""
    info = metadata.get(METADATA_KEY)
    if isinstance(info, Mapping) and info.get("lesson") in lessons:
        return str(info["lesson"])
    names = sorted((name for name in lessons if name in path.stem), key=len, reverse=True)
    if names:
        return names[0]
    raise ValueError(f"cannot tell which lesson this is (no lesson in its '{METADATA_KEY}' metadata, and the file "
                     f"name contains none of {', '.join(sorted(lessons))}); pass --lesson")


def read_submission(path: Path, lesson: str | None = None):
    """The notebook at ``path`` and its lesson (``lesson`` if given). FileNotFoundError if there is no file;
    ValueError with a clear message if it is no notebook of a lesson."""
    import nbformat

    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    if path.stat().st_size > MAX_NOTEBOOK_BYTES:
        raise ValueError(f"larger than {MAX_NOTEBOOK_BYTES // 1_000_000} MB")
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as exc:  # noqa: BLE001 - nbformat raises several kinds for a file that is no notebook
        raise ValueError(f"not a readable notebook ({type(exc).__name__})") from exc
    gradings = lesson_gradings()
    if lesson is not None and lesson not in gradings:
        raise ValueError(f"there is no lesson {lesson!r}")
    return nb, lesson or lesson_of(nb.metadata, path, gradings)


@dataclass
class Snapshot:
    """What the grader and its kernels run: each file's size, inode and change time (a change time cannot be set
    back, so any write, rename or ``touch`` shows)."""

    files: dict[str, tuple[int, int, int]]

    @classmethod
    def take(cls) -> Snapshot:
        return cls(dict(_walk_protected()))

    def changes(self, other: Snapshot) -> list[str]:
        """Files added, removed or changed since this snapshot (sorted). A new ``.pyc`` is not counted: another
        process on the machine may compile a module for the first time (kernels and the grader write none)."""
        return sorted(path for path in self.files.keys() | other.files.keys()
                      if self.files.get(path) != other.files.get(path)
                      and not (path not in self.files and path.endswith(".pyc")))


def protected_roots() -> list[Path]:
    """The folders whose files the grading depends on: site-packages, this checkout's bleu_lab and data, and the
    interpreter."""
    import site
    import sysconfig

    roots = {Path(p) for p in site.getsitepackages() if Path(p).is_dir()}
    roots |= {Path(sysconfig.get_paths()["stdlib"])}
    package_root = Path(__file__).resolve().parent.parent.parent
    roots |= {package_root / name for name in PROTECTED_PACKAGES if (package_root / name).is_dir()}
    return sorted(roots)


def _walk_protected():
    for root in protected_roots():
        for folder, dirs, files in os.walk(root):
            # The stdlib's own site-packages and tests are not on a venv's path.
            dirs[:] = [d for d in dirs if not (folder == str(root) and d in SKIPPED_IN_STDLIB)]
            for name in files:
                path = os.path.join(folder, name)
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                yield path, (st.st_size, st.st_ino, st.st_ctime_ns)
    exe = Path(sys.executable)
    for path in {exe, exe.resolve()}:
        st = os.lstat(path)
        yield str(path), (st.st_size, st.st_ino, st.st_ctime_ns)


def grade_batch(paths: list[Path], *, timeout: int = DEFAULT_TIMEOUT, seed: int | None = None,
                lesson: str | None = None, out=None, grades: list[NotebookGrade] | None = None) -> int:
    """Grade each notebook of ``paths`` and print its report (one ``score:`` line each) to ``out``; return the exit
    code: 0, or 3 if the grader's files changed during a run (that notebook's marks and the rest are withheld).
    Each reported ``NotebookGrade`` is also appended to ``grades`` (for ``gradebook``'s exports)."""
    out = out or sys.stdout
    check_timeout(timeout)
    sys.dont_write_bytecode = True
    for path in paths:  # an instructor's typo stops the batch before anything runs
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such file")
    if lesson is not None and lesson not in lesson_gradings():
        raise ValueError(f"--lesson {lesson}: there is no such lesson (one of {', '.join(sorted(lesson_gradings()))})")
    seed = secrets.randbelow(2 ** 32) if seed is None else seed
    print(f"seed: {seed}  (hidden cases; bleu-lab grade --seed {seed} draws the same ones)", file=out, flush=True)
    submissions = []
    for path in paths:  # each file is read once, before any submission runs
        try:
            submissions.append((path, *read_submission(path, lesson)))
        except ValueError as err:
            submissions.append((path, None, str(err)))
    _import_everything()
    before = Snapshot.take()
    for path, nb, lesson_or_error in submissions:
        if nb is None:
            grade = NotebookGrade(path, "?", note=f"not graded: {lesson_or_error}", graded=False)
        else:
            try:
                grade = grade_notebook(path, timeout, seed, nb=nb, lesson=lesson_or_error)
            except Exception as exc:  # noqa: BLE001 - one notebook never stops the batch
                grade = NotebookGrade(path, lesson_or_error, note=f"not graded: {type(exc).__name__}", graded=False)
        changed = before.changes(Snapshot.take())
        if changed:
            shown = ", ".join(_clean(c) for c in changed[:5]) + (" ..." if len(changed) > 5 else "")
            print(f"bleu-lab grade: error: the grader's files changed while {_clean(str(path))} ran: {shown}. No marks "
                  "are reported for it or for the notebooks after it: reinstall bleu_lab and its environment, and "
                  "grade untrusted notebooks in a container or a throwaway account (see the instructor guide).",
                  file=sys.stderr, flush=True)
            return 3
        print(format_grade(grade), file=out, flush=True)
        if grades is not None:
            grades.append(grade)
    return 0


def _import_everything() -> None:
    """Import what marking needs now, so that no file a submission could change is read later."""
    import nbclient  # noqa: F401
    import nbformat  # noqa: F401
    from jupyter_client import AsyncKernelManager  # noqa: F401

    for grading in lesson_gradings().values():
        for exercise in grading.exercises:
            if exercise.hidden is not None:
                exercise.hidden(random.Random(0))
    _wire_classes()


# ------------------------------------------------------------------------------------------- the report


def _clean(text: str) -> str:
    """``text`` on one line: every control or line-separating character escaped (so no text of a submission can
    start a line of the report, e.g. a forged ``score:``)."""
    return "".join(ch if ch.isprintable() or ch == " " else ascii(ch)[1:-1] for ch in str(text)
                   if unicodedata.category(ch) != "Cf" or ch.isprintable())


def format_grade(grade: NotebookGrade) -> str:
    """The report of one notebook: each exercise's points, the feedback of failed checks, then the one score line.
    Every line but the last starts with "==" or spaces."""
    lines = [f"== {_clean(str(grade.path))} (lesson {_clean(grade.lesson)})"]
    width = max((len(e.name) for e in grade.exercises), default=0)
    for e in grade.exercises:
        marks = "manual" if e.manual else f"{e.points} / {e.possible}"
        lines.append(f"  {_clean(e.name):<{width}}  {marks}")
        if e.manual:
            lines.append(f"      answer: {_clean(e.answer) or '(none)'}")
            lines.append(f"      key points: {_clean(e.key_points)}")
        if e.manual or e.points < e.possible:
            lines += ["      " + _clean(line) for message in e.messages for line in message.split("\n")]
    if grade.errors:
        lines.append(f"  cells that raised ({len(grade.errors)}): " + _clean("; ".join(grade.errors[:5]))
                     + (" ..." if len(grade.errors) > 5 else ""))
    if grade.note:
        lines.append(f"  note: {_clean(grade.note)}")
    if not grade.graded:
        lines.append("score: not graded")
        return "\n".join(lines)
    manual = sum(e.manual for e in grade.exercises)
    lines.append(f"score: {grade.score} / {grade.possible}" + (f"  (+ {manual} to grade by hand)" if manual else ""))
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------- nbgrader's test cells


def assert_passes(lesson: str, index: int, *, hidden: bool = False) -> None:
    """An nbgrader test cell of ``bleu-lab release``'s nbgrader source: exercise ``index`` of ``lesson`` passes.

    Runs in the student's kernel on their objects (so, unlike ``bleu-lab grade``, a notebook can forge it: see the
    instructor guide), on the visible cases or (``hidden=True``) on hidden cases drawn now at random, and raises
    ``AssertionError`` with the check's feedback otherwise, which nbgrader shows the student.
    """
    from IPython import get_ipython

    exercise = lesson_gradings()[lesson].exercises[index]
    shell = get_ipython()
    args = _answers(exercise, shell.user_ns if shell is not None else {})
    if isinstance(args, str):
        raise AssertionError(f"{exercise.name}: {args}")
    cases = exercise.hidden(random.Random(secrets.randbits(64))) if hidden and exercise.hidden else {}
    feedback = _run_check(exercise.check, args, cases)
    if not feedback.passed:
        raise AssertionError(f"{exercise.name}{' (hidden cases)' if hidden else ''}:\n{feedback}")
    print(f"{exercise.name}: passed{' on the hidden cases' if hidden else ''}")
