"""One notebook, start to end: the batch's ``Context`` (snapshot, import guard, sandbox, limits), the notebook run
in its box (``session``), the grader's files checked before any marking (where the kernel could write them: without
bubblewrap), then the marking in a child process under limits (``limits.run_limited``, ``marking``)."""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..course.exercises import LessonGrading
from . import lesson_gradings, own_code
from .integrity import BatchFiles, ImportGuard, Snapshot, TamperingError, _import_everything
from .limits import Exceeded, private_root, run_limited
from .marking import Marker, _wire_classes, grade_namespace
from .processes import descendants, end_leftovers, subreaper
from .results import ExerciseResult, NotebookGrade
from .sandbox import (
    CONNECTION_FILE,
    Sandbox,
    install_font_list,
    kernel_cgroup,
    kernel_prefix,
    mount_sockets,
    probe,
    seen_from_grader,
    unmount_sockets,
    with_bounds,
)
from .session import (
    KernelSession,
    _bounded_client_class,
    _cell_timeout,
    _kernel_env,
    _kernel_spec_manager,
    _kill_group,
    _process_group,
    _run_cells,
    matplotlib_font_list,
)
from .submissions import lesson_of, read_submission

DEFAULT_TIMEOUT = 600  # seconds of wall clock to run one notebook (and as much again, at most, to mark it)
MARK_MEMORY = 1024  # MB of address space marking one notebook may add (the checks and the decoded answers)
SANDBOX_MODES = ("auto", "bubblewrap", "none")


@dataclass
class Context:
    """What one batch shares: the snapshot of the grader's files, the import guard, the sandbox and the limits."""

    snapshot: Snapshot
    sandbox: Sandbox
    memory: int = MARK_MEMORY
    guard: ImportGuard | None = None
    batch: BatchFiles | None = None  # the submitted files, to restore after each submission
    fonts: dict[str, bytes] = field(default_factory=dict)  # matplotlib's font list, for every kernel
    alone: bool = True  # no other notebook is graded beside this one (a disturbed run is tried again at once)

    @classmethod
    def start(cls, sandbox: str = "auto", memory: int = MARK_MEMORY) -> Context:
        """Import everything marking needs, choose the sandbox, build matplotlib's font list for the kernels, snapshot
        the grader's files and guard later imports (``ValueError`` for an unknown mode, or "bubblewrap" where it cannot
        start)."""
        check_sandbox(sandbox)
        check_memory(memory)
        _import_everything()
        box = choose_sandbox(sandbox)
        fonts = matplotlib_font_list()
        snapshot = Snapshot.take()
        guard = ImportGuard(snapshot)
        sys.meta_path.insert(0, guard)
        return cls(snapshot, box, memory, guard, fonts=fonts)

    def close(self) -> None:
        if self.guard in sys.meta_path:
            sys.meta_path.remove(self.guard)

    def check(self, when: str) -> None:
        """``TamperingError`` if a file the grader runs changed (``when``: "while X ran")."""
        changed = self.snapshot.changes(Snapshot.take())
        if changed:
            raise TamperingError(when, changed)


def check_sandbox(mode: object) -> None:
    if mode not in SANDBOX_MODES:
        raise ValueError(f"--sandbox must be one of {', '.join(SANDBOX_MODES)}, not {mode!r}")


def check_memory(megabytes: object) -> None:
    if isinstance(megabytes, bool) or not isinstance(megabytes, int) or not 64 <= megabytes <= 1_000_000:
        raise ValueError(f"--memory must be a whole number of megabytes from 64 to 1000000, not {megabytes!r}")


def choose_sandbox(mode: str) -> Sandbox:
    """The sandbox of ``mode``: "auto" (bubblewrap where it starts, else none), "bubblewrap" (required: ValueError
    saying why it cannot start), "none" (the grader's own isolation only)."""
    if mode == "none":
        return with_bounds(Sandbox("none", "--sandbox none"))
    base = Path(tempfile.mkdtemp(prefix="bleu-lab-probe-", dir=private_root()))
    try:
        box = probe(base)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    if mode == "bubblewrap" and box.kind != "bubblewrap":
        raise ValueError(f"--sandbox bubblewrap: {box.why}")
    return with_bounds(box)


def grade_notebook(path: Path, timeout: int = DEFAULT_TIMEOUT, seed: int = 0, *, nb=None,
                   lesson: str | None = None, sandbox: str = "auto", memory: int = MARK_MEMORY) -> NotebookGrade:
    """Run a submission (``nb``, already read from ``path``, or read now) in an isolated kernel (``sandbox``: see
    ``choose_sandbox``) and mark its lesson's exercises in a child process under limits. ``timeout`` (> 0) bounds the
    run in wall-clock seconds, and the marking; ``memory`` the marking's megabytes. ``TamperingError`` if the
    grader's files changed."""
    check_timeout(timeout)
    if nb is None:
        try:
            nb, lesson = read_submission(path, lesson)
        except ValueError as err:
            return NotebookGrade(path, "?", note=f"not graded: {err}", graded=False)
    elif lesson is None:
        lesson = lesson_of(nb.metadata, path, lesson_gradings())
    context = Context.start(sandbox, memory)
    try:
        with subreaper():
            keep = descendants()
            try:
                grade = _grade_one(path, nb, lesson, timeout, seed, context)
            finally:
                end_leftovers(keep)
        context.check(f"while {path} ran")
    finally:
        context.close()
    return grade


def _grade_one(path: Path, nb, lesson: str, timeout: float, seed: int, context: Context,
               own: own_code.Overlay | None = None) -> NotebookGrade:
    """Run one submission in its box, check the grader's files (without bubblewrap), then mark it in a child process
    under limits; then (``own_code``) mark again, in ``own``'s world, the exercises whose points need the student's
    own code."""
    import nbformat
    from jupyter_client import AsyncKernelManager

    grading = lesson_gradings()[lesson] if own is None else own.grading
    grade = NotebookGrade(path, lesson, sandbox=context.sandbox.kind)
    if not grading.exercises:
        grade.note = f"lesson {lesson} declares no graded exercises (GRADING in its bleu_lab.course.exercises module)"
        return grade
    # private (0700), never beside the submissions; in a batch, inside its folder (removed with it after a crash)
    parent = context.batch.backup if context.batch else private_root()
    base = Path(tempfile.mkdtemp(prefix="bleu-lab-grade-", dir=parent))
    pgid = group = None
    try:
        work, sockets = base / "work", base / "ipc"
        work.mkdir()
        sockets.mkdir()
        in_box = context.sandbox.sockets_in_box  # (else, where the header promised it, no kernel runs without)
        if context.sandbox.sockets and not in_box and not mount_sockets(sockets):
            raise OSError("the kernel's sockets folder could not be mounted")
        copy = nbformat.from_dict(json.loads(json.dumps(nb)))
        for cell in copy.cells:
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
        nbformat.write(copy, work / "submission.ipynb")
        group = kernel_cgroup(context.sandbox, base.name)
        prefix = kernel_prefix(context.sandbox, base, work, group, sockets)
        first = ""
        if own is not None:  # after kernel_prefix, which binds what the private folder holds now
            prefix, first = own.kernel(prefix, base / "own")
        prefix = install_font_list(context.fonts, prefix, base / "home")
        options = {} if os.name == "nt" else {"transport": "ipc", "ip": str(sockets / "k")}
        km = (_boxed_manager_class() if in_box else AsyncKernelManager)(
            kernel_spec_manager=_kernel_spec_manager(prefix, first), kernel_name="bleu-lab-grader",
            connection_file=str(sockets / CONNECTION_FILE), **options)
        deadline = [time.monotonic() + timeout]  # counted again from when the kernel is up
        client = _bounded_client_class()(
            copy, km=km, timeout_func=lambda cell: _cell_timeout(client, deadline[0]), allow_errors=True,
            interrupt_on_timeout=True, store_widget_state=False, iopub_timeout=4, startup_timeout=60,
            error_on_timeout={"ename": "TimeoutError", "evalue": "time limit", "traceback": []},
            resources={"metadata": {"path": str(work)}})
        client.current_timeout = None
        try:
            with client.setup_kernel(env=_kernel_env(base / "home"), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=str(work)):
                pgid = _process_group(km)
                deadline[0] = time.monotonic() + timeout
                _run_cells(client, copy, deadline[0], grade)
                grade.stopped = grade.note  # (set only where the run stopped before its end)
                if context.sandbox.kind != "bubblewrap":  # (in the box, every file of the grader's is read-only)
                    context.check(f"while {path} ran")  # before any marking: nothing of a changed file is read
                session = KernelSession(client, budget=timeout)
                try:
                    session.install()
                except RuntimeError as exc:
                    grade.note = (grade.note + "; " if grade.note else "") + f"could not read the answers: {exc}"
                    grade.stopped = grade.note
                grade.exercises = _mark(grading, session, seed, timeout, context.memory)
                grade.stopped = grade.stopped or session.broken
        except TamperingError:
            raise
        except Exceeded as exc:
            grade.exercises = [ExerciseResult(e.name, possible=e.points, manual=bool(e.manual),
                                              messages=[f"not graded: {exc}"]) for e in grading.exercises]
            grade.note = (grade.note + "; " if grade.note else "") + f"not graded: {exc}"
            grade.stopped = grade.stopped or f"not graded: {exc}"
        except Exception as exc:  # noqa: BLE001 - a kernel that cannot start or dies: this notebook gets 0
            if not grade.exercises:
                grade.exercises = [ExerciseResult(e.name, possible=e.points, manual=bool(e.manual),
                                                  messages=["could not be graded: the kernel failed"])
                                   for e in grading.exercises]
            grade.note = (grade.note + "; " if grade.note else "") + f"the kernel failed ({type(exc).__name__})"
            grade.stopped = grade.stopped or grade.note
    finally:
        _kill_group(pgid)
        if group is not None:  # every process of the kernel's, wherever it went
            group.end()
            group.remove(parent=False)
        unmount_sockets(base / "ipc")
        shutil.rmtree(base, ignore_errors=True)
    if own is not None:
        return grade
    return recheck_own_code(path, nb, grade, timeout, seed, context, first=True)


@functools.cache
def _boxed_manager_class():
    """jupyter_client's kernel manager for a kernel whose sockets folder is a tmpfs in its box (``sandbox``'s
    ``sockets_in_box``): once the kernel's process has started, the manager and its clients connect to the sockets
    through the box's root (``seen_from_grader``); the kernel binds them at the path in its connection file."""
    from jupyter_client import AsyncKernelManager

    class BoxedManager(AsyncKernelManager):
        async def _async_post_start_kernel(self, **kw):  # (start_kernel's step after the launch, before connecting)
            self.ip = seen_from_grader(self.provisioner.pid, self.ip)
            await super()._async_post_start_kernel(**kw)

    return BoxedManager


def recheck_own_code(path: Path, nb, grade: NotebookGrade, timeout: float, seed: int, context: Context, *,
                     first: bool) -> NotebookGrade:
    """``grade`` marked again in the stand-in world (``own_code.recheck``). A stand-in run that does not finish is
    tried again at once where nothing is graded beside it (``context.alone``); else, on the ``first`` try,
    ``grade.retry`` asks the batch to try once more alone; a run that never finishes leaves the exercises not marked."""
    tries, last = (2, True) if context.alone and first else (1, context.alone or not first)
    return own_code.recheck(grade, lesson_gradings()[grade.lesson],
                            lambda world: _grade_one(path, nb, grade.lesson, timeout, seed, context, world),
                            tries=tries, last=last)


def _mark(grading: LessonGrading, session: KernelSession, seed: int, seconds: float,
          megabytes: int) -> list[ExerciseResult]:
    """The lesson's checks on the student's values, run in a child process (``limits.run_limited``): at most
    ``seconds`` of wall clock and ``megabytes`` more memory; ``Exceeded`` otherwise."""
    classes = _wire_classes()
    names = list(dict.fromkeys(name for exercise in grading.exercises for name in exercise.answers))

    def work(ask: Callable[[dict], dict]) -> list[dict]:
        values = Marker(ask, classes).answers(names)
        return [dataclasses.asdict(result) for result in grade_namespace(grading, values, seed)]

    results = run_limited(work, session.serve, seconds=seconds, megabytes=megabytes)
    known = {f.name for f in dataclasses.fields(ExerciseResult)}
    return [ExerciseResult(**{k: v for k, v in item.items() if k in known}) for item in results]


def check_timeout(timeout: object) -> None:
    """``timeout`` must be a positive number of seconds (0 or less would mean no limit at all)."""
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout < 10 ** 7:
        raise ValueError(f"--timeout must be a positive number of seconds, not {timeout!r}")
