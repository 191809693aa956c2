"""``bleu-lab grade NOTEBOOK ...``: marks that depend only on what the student's code returns.

Before the first submission runs, every file is read once (a link or a special file is refused, never followed),
backed up and fingerprinted; the grader imports everything marking needs (bleu_lab, sacrebleu and its tokenizers,
nltk's BLEU, numpy, nbclient ...), snapshots the files it runs (``Snapshot``) and guards any later import
(``ImportGuard``). Then, for each submission:

1. **Run it in a box.** Only the ``.ipynb`` is copied, into a private temporary folder that is the kernel's working
   directory and home; the kernel is the grader's own (``python -I -B``), with fresh IPython and Jupyter folders, its
   output to ``/dev/null``, a wall-clock limit for the whole notebook and a cap on the output kept. Under bubblewrap
   (``sandbox``) it sees the system read-only, no network, no other submission, no solution, and its own PIDs.
2. **Check the grader's files** (bleu_lab, everything on ``sys.path`` from the standard library on, the interpreter)
   against the snapshot *before* any marking: a change stops the batch, and no file of it is ever read.
3. **Ask for plain values.** The grader sends the kernel the code of ``wire`` and asks for each answer by name; the
   replies (bounded JSON text) go undecoded to the marking process. A function answer comes back as a name: the
   checks get a ``KernelFunction`` that sends each call's arguments to the kernel (``CALL_TIMEOUT`` seconds a call).
4. **Mark under limits.** The lessons' own checks (``bleu_lab.exercises``) run in a forked child (``limits``) with a
   wall-clock limit (``--timeout``) and a memory limit (``--memory``), on the visible cases and on hidden cases drawn
   now from ``--seed`` (nothing hidden ships). Beyond a limit the notebook gets 0 and a note; the batch goes on.
5. **Clean up.** Every process the submission started is ended (``processes``: the grader is their subreaper), the
   grader's files are checked again, and a submitted file that changed is restored and the submission named.

Points: 1 for the visible check, 1 more for the hidden cases (function exercises), all or nothing each; a written
answer is "manual": shown with its key points, not counted.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import itertools
import json
import os
import random
import secrets
import shutil
import signal
import stat
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
from .limits import Exceeded, run_limited
from .processes import descendants, end_leftovers, subreaper
from .sandbox import Sandbox, bwrap_prefix, probe

DEFAULT_TIMEOUT = 600  # seconds of wall clock to run one notebook (and as much again, at most, to mark it)
CALL_TIMEOUT = 10  # seconds for one call of a student's function
OUTPUT_LIMIT = 1_000_000  # characters a kernel may send for a notebook's own cells (beyond: dropped, cell stopped)
MAX_NOTEBOOK_MB = 5  # a larger notebook is refused unread (--max-notebook-mb)
MAX_CELLS = 2000  # a notebook with more cells is refused before nbformat reads it (the lessons have at most 80)
MAX_BRACKETS = 500_000  # "[" and "{" in a notebook's bytes: more JSON lists and objects are refused unparsed
READ_SECONDS, READ_MEMORY = 20, 512  # the child process that parses one notebook: wall clock, MB of address space
MARK_MEMORY = 1024  # MB of address space marking one notebook may add (the checks and the decoded answers)
REPLY_LIMIT = 8 * wire.MAX_CHARS  # characters the kernel may send in answer to one request of the grader
MAX_MESSAGE_BYTES = 2 * REPLY_LIMIT + 1_000_000  # one message's bytes on the wire (a reply, JSON-escaped, fits)
RECEIVE_QUEUE = 1  # messages of a kernel the grader's ZeroMQ sockets hold before reading them
SANDBOX_MODES = ("auto", "bubblewrap", "none")
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
    sandbox: str = ""  # how its kernel was boxed: "bubblewrap" or "none"

    @property
    def score(self) -> int:
        return sum(e.points for e in self.exercises)

    @property
    def possible(self) -> int:
        return sum(e.possible for e in self.exercises)


class TamperingError(RuntimeError):
    """The grader's own files changed while a submission ran (``when``), or a changed file was about to be imported:
    ``changed`` names them."""

    def __init__(self, when: str, changed: list[str]) -> None:
        super().__init__(f"{when}: {', '.join(changed[:5])}")
        self.when, self.changed = when, changed


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
    except MemoryError:
        raise  # beyond marking's memory limit: the whole notebook's marking stops, and says so
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
    random markers, at most ``CALL_TIMEOUT`` seconds each and ``budget`` seconds in all. The replies are JSON text,
    passed undecoded to the marking process (``Marker``): the grader's own process never decodes a student's value."""

    def __init__(self, client, budget: float) -> None:
        self.client = client
        self.deadline = time.monotonic() + budget
        self.namespace = "_bleu_lab_grader_" + secrets.token_hex(4)
        self.broken = ""

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
        self.client.grading, self.client.reply_kept = True, 0
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

    def serve(self, request: Mapping[str, object]) -> dict[str, str]:
        """The kernel's JSON text for one request of the marking process: ``{"text": ...}`` or ``{"error": ...}``."""
        try:
            if request.get("op") == "answers":
                names = [str(name) for name in request.get("names", [])]
                return {"text": self._request(f"{self.namespace}['answers'](globals(), {names!r})")}
            if request.get("op") == "call":
                name, args_json = str(request.get("name")), str(request.get("args"))
                return {"text": self._request(f"{self.namespace}['call'](globals(), {name!r}, {args_json!r})")}
        except RuntimeError as exc:
            return {"error": str(exc)}
        return {"error": "not a request of the grader"}


class Marker:
    """The marking process's side of the kernel: decodes the replies that ``KernelSession`` passes on (under the
    marking limits) and hands the checks plain values and ``KernelFunction``s."""

    def __init__(self, ask: Callable[[dict], dict], classes: Mapping[str, type]) -> None:
        self.ask, self.classes = ask, classes

    def _text(self, request: dict) -> str:
        reply = self.ask(request)
        if "error" in reply:
            raise RuntimeError(str(reply["error"]))
        return str(reply.get("text", ""))

    def answers(self, names: Iterable[str]) -> dict[str, object]:
        """The student's values of ``names`` (functions as ``KernelFunction``; ``Unreadable`` where none came)."""
        names = list(names)
        try:
            reply = json.loads(self._text({"op": "answers", "names": names}))
        except (RuntimeError, ValueError) as exc:
            return {name: Unreadable(str(exc)) for name in names}
        found: dict[str, object] = {}
        for name in names:
            item = reply.get(name, {}) if isinstance(reply, dict) else {}
            if not isinstance(item, dict) or item.get("missing"):
                continue
            if "raised" in item:
                found[name] = Unreadable("it cannot be read as a plain value ({}: {})".format(
                    *(list(item["raised"]) + ["", ""])[:2]))
                continue
            try:
                value = wire.decode(item.get("ok"), self.classes)
            except MemoryError:
                raise
            except Exception as exc:  # noqa: BLE001 - anything malformed is unreadable, never trusted
                found[name] = Unreadable(f"malformed value ({type(exc).__name__}: {str(exc)[:100]})")
                continue
            found[name] = KernelFunction(self, name) if isinstance(value, wire.FunctionRef) else value
        return found

    def call(self, name: str, args: tuple) -> object:
        """The student's ``name(*args)``, run in the kernel; its decoded result, or its exception re-raised here."""
        try:
            args_json = json.dumps([wire.encode(a) for a in args], allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise RuntimeError(f"the grader could not send these arguments ({exc})") from exc
        reply = json.loads(self._text({"op": "call", "name": name, "args": args_json}))
        if not isinstance(reply, dict):
            raise RuntimeError("the kernel sent a malformed reply")
        if "raised" in reply:
            kind, message = (list(reply["raised"]) + ["", ""])[:2]
            raise student_error(str(kind), str(message))
        return wire.decode(reply.get("ok"), self.classes)


class KernelFunction:
    """The grader's stand-in for a student's function: calling it runs the function in the student's kernel on the
    same (serialised) arguments and returns the decoded result. The checks call it like any function."""

    def __init__(self, session: Marker, name: str) -> None:
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


def message_size(msg: Mapping) -> int:
    """About the characters of a kernel message's content as JSON (every string, key and value: text, data,
    metadata, transient, comm data ...) plus the bytes of its binary buffers: what the kernel made the grader receive.
    Counted in place, depth first (no copy of a large message is made)."""
    size, stack = 0, [iter((msg.get("content"),))]
    while stack:
        for item in stack[-1]:
            if isinstance(item, str):
                size += len(item) + 2
            elif isinstance(item, dict):
                size += 2 + 2 * len(item)
                stack.append(itertools.chain.from_iterable(item.items()))
                break
            elif isinstance(item, (list, tuple)):
                size += 2 + len(item)
                stack.append(iter(item))
                break
            else:  # a number, true, false, null
                size += 8
        else:
            stack.pop()
    return size + sum(len(buffer) for buffer in msg.get("buffers") or ())


def _bounded_client_class():
    """nbclient's NotebookClient under the output cap: every message the kernel sends for a cell (stream, display
    data and its updates, metadata, errors, comm messages) counts toward OUTPUT_LIMIT characters for the notebook's own
    cells and REPLY_LIMIT for each request of the grader; beyond the cap a message is dropped unread (only the
    "idle" status that ends a cell still passes), and the notebook's cell is interrupted (``over_limit``). Error
    messages are kept shortened. Its kernel client refuses (disconnects) any single message over MAX_MESSAGE_BYTES and
    queues at most RECEIVE_QUEUE messages unread, so that what the grader holds of a kernel's output is bounded."""
    import asyncio

    import zmq
    import zmq.asyncio
    from jupyter_client.asynchronous import AsyncKernelClient
    from jupyter_core.utils import ensure_async
    from nbclient import NotebookClient
    from nbclient.util import run_sync
    from traitlets import default

    class BoundedKernelClient(AsyncKernelClient):
        @default("context")
        def _bounded_context(self):
            self._created_context = True
            context = zmq.asyncio.Context()
            context.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
            context.setsockopt(zmq.RCVHWM, RECEIVE_QUEUE)  # the rest waits in the kernel (or is dropped there)
            return context

    class BoundedClient(NotebookClient):
        kept = 0
        reply_kept = 0
        current_timeout = CALL_TIMEOUT
        grading = False  # True once the grader's own requests run
        over_limit = False  # the notebook's own output went over OUTPUT_LIMIT
        _interrupt = None

        _monitor = None

        async def async_start_new_kernel_client(self):
            self.km.client_factory = BoundedKernelClient
            kc = await super().async_start_new_kernel_client()
            self._watch_iopub()
            return kc

        start_new_kernel_client = run_sync(async_start_new_kernel_client)

        def _watch_iopub(self) -> None:
            """Watch the output channel for a disconnection (what ZeroMQ does to a message over its size limit)."""
            socket = self.kc.iopub_channel.socket
            address = f"inproc://bleu-lab-iopub-{secrets.token_hex(8)}"
            socket.monitor(address, zmq.EVENT_DISCONNECTED)
            self._monitor = zmq.Context.shadow(socket.context.underlying).socket(zmq.PAIR)
            self._monitor.connect(address)

        def iopub_lost(self) -> bool:
            """Whether the output channel was cut since it was last watched (a message over MAX_MESSAGE_BYTES)."""
            return self._monitor is not None and bool(self._monitor.poll(0))

        def reset_iopub(self) -> None:
            """A new output channel, ready: whatever the kernel had queued on the old one is dropped unread."""
            if self._monitor is not None:
                self._monitor.close(linger=0)
            self.kc.iopub_channel.stop()
            self.kc._iopub_channel = None
            self.kc.iopub_channel.start()
            self._watch_iopub()
            run_sync(self.kc.wait_for_ready)(timeout=30)

        def process_message(self, msg, cell, cell_index):
            full = self.reply_kept > REPLY_LIMIT if self.grading else self.kept > OUTPUT_LIMIT
            size = 0 if full else message_size(msg)  # (beyond the cap nothing is kept: no need to measure)
            if self.grading:  # a reply: the kernel prints it, so the kernel (the student) decides its size
                self.reply_kept += size
                over = self.reply_kept > REPLY_LIMIT
            else:
                self.kept += size
                over = self.kept > OUTPUT_LIMIT
                if over and not self.over_limit:
                    self.over_limit = True
                    self._interrupt = asyncio.ensure_future(ensure_async(self.km.interrupt_kernel()))
            if over:
                content = msg.get("content", {})
                if msg.get("msg_type") == "status" and isinstance(content, dict):
                    state = content.get("execution_state")  # the cell's end still passes, and nothing else
                    msg = {**msg, "content": {"execution_state": state if isinstance(state, str) else ""}}
                    return super().process_message(msg, cell, cell_index)
                return None
            return super().process_message(msg, cell, cell_index)

        def output(self, outs, msg, display_id, cell_index):
            content = msg.get("content", {})
            if msg.get("msg_type") == "error":
                msg = {**msg, "content": {"ename": str(content.get("ename", ""))[:100],
                                          "evalue": str(content.get("evalue", ""))[:300], "traceback": []}}
            return super().output(outs, msg, display_id, cell_index)

    return BoundedClient


def _kernel_spec_manager(prefix: list[str] | None = None):
    """A kernelspec of the grader's own (not one a submission could rewrite on disk): this Python, isolated, writing
    no bytecode (so that any change to a ``__pycache__`` is a submission's doing), after ``prefix`` (bubblewrap's
    command line, whose kernel is interrupted by a message: a signal to bwrap would not reach it)."""
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager

    root = str(Path(__file__).resolve().parent.parent.parent)
    boot = (f"import sys; sys.path.append({root!r}); "  # after site-packages: bleu_lab for an uninstalled checkout
            "from ipykernel.kernelapp import launch_new_instance; launch_new_instance()")
    argv = [sys.executable, "-I", "-B", "-c", boot, "-f", "{connection_file}"]
    if prefix:  # in its PID namespace the kernel's parent is PID 1: ipykernel would take it for a dead parent
        argv = [*prefix, *argv, "--IPKernelApp.parent_handle=0"]
    spec = KernelSpec(argv=argv,
                      display_name="bleu-lab grader", language="python", metadata={},
                      interrupt_mode="message" if prefix else "signal")

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


@dataclass
class Context:
    """What one batch shares: the snapshot of the grader's files, the import guard, the sandbox and the limits."""

    snapshot: Snapshot
    sandbox: Sandbox
    memory: int = MARK_MEMORY
    guard: ImportGuard | None = None
    batch: BatchFiles | None = None  # the submitted files, to restore after each submission

    @classmethod
    def start(cls, sandbox: str = "auto", memory: int = MARK_MEMORY) -> Context:
        """Import everything marking needs, choose the sandbox, snapshot the grader's files and guard later imports
        (``ValueError`` for an unknown mode, or "bubblewrap" where it cannot start)."""
        check_sandbox(sandbox)
        check_memory(memory)
        _import_everything()
        box = choose_sandbox(sandbox)
        snapshot = Snapshot.take()
        guard = ImportGuard(snapshot)
        sys.meta_path.insert(0, guard)
        return cls(snapshot, box, memory, guard)

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
        return Sandbox("none", "--sandbox none")
    base = Path(tempfile.mkdtemp(prefix="bleu-lab-probe-"))
    try:
        box = probe(base)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    if mode == "bubblewrap" and box.kind != "bubblewrap":
        raise ValueError(f"--sandbox bubblewrap: {box.why}")
    return box


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


def _grade_one(path: Path, nb, lesson: str, timeout: float, seed: int, context: Context) -> NotebookGrade:
    """Run one submission in its box, check the grader's files, then mark it in a child process under limits."""
    import nbformat
    from jupyter_client import AsyncKernelManager

    grading = lesson_gradings()[lesson]
    grade = NotebookGrade(path, lesson, sandbox=context.sandbox.kind)
    if not grading.exercises:
        grade.note = f"lesson {lesson} declares no graded exercises (GRADING in its bleu_lab.exercises module)"
        return grade
    base = Path(tempfile.mkdtemp(prefix="bleu-lab-grade-"))  # private (0700), never beside the submissions
    pgid = None
    try:
        work, sockets = base / "work", base / "ipc"
        work.mkdir()
        sockets.mkdir()
        copy = nbformat.from_dict(json.loads(json.dumps(nb)))
        for cell in copy.cells:
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
        nbformat.write(copy, work / "submission.ipynb")
        prefix = bwrap_prefix(base, work) if context.sandbox.kind == "bubblewrap" else None
        options = {} if os.name == "nt" else {"transport": "ipc", "ip": str(sockets / "k")}
        km = AsyncKernelManager(kernel_spec_manager=_kernel_spec_manager(prefix), kernel_name="bleu-lab-grader",
                                connection_file=str(sockets / "kernel.json"), **options)
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
                context.check(f"while {path} ran")  # before any marking: nothing of a changed file is ever read
                session = KernelSession(client, budget=timeout)
                try:
                    session.install()
                except RuntimeError as exc:
                    grade.note = (grade.note + "; " if grade.note else "") + f"could not read the answers: {exc}"
                grade.exercises = _mark(grading, session, seed, timeout, context.memory)
        except TamperingError:
            raise
        except Exceeded as exc:
            grade.exercises = [ExerciseResult(e.name, possible=e.points, manual=bool(e.manual),
                                              messages=[f"not graded: {exc}"]) for e in grading.exercises]
            grade.note = (grade.note + "; " if grade.note else "") + f"not graded: {exc}"
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
        if client.over_limit or client.iopub_lost():
            what = (f"one message over {MAX_MESSAGE_BYTES // 1_000_000} MB" if client.iopub_lost() else
                    f"{OUTPUT_LIMIT:,} characters in all")
            grade.note = (f"its output went over the limit ({what}): cell {index + 1} was stopped there and the "
                          "cells below were not run")
            client.over_limit = True
            client.reset_iopub()
            break
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


def check_notebook_mb(megabytes: object) -> None:
    if isinstance(megabytes, bool) or not isinstance(megabytes, (int, float)) or not 0 < megabytes <= 1000:
        raise ValueError(f"--max-notebook-mb must be a number of megabytes above 0 and at most 1000, not {megabytes!r}")


def read_regular(path: Path, max_mb: float = MAX_NOTEBOOK_MB) -> bytes:
    """The bytes of the regular file at ``path``, never following a link: ``FileNotFoundError`` if nothing is
    there, ``ValueError`` ("a link", "not a regular file", larger than ``max_mb`` megabytes: never read) otherwise."""
    limit = int(max_mb * 1_000_000)
    too_large = f"larger than {max_mb:g} MB (--max-notebook-mb): not read"
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such file") from None
    if stat.S_ISLNK(st.st_mode):
        raise ValueError("a link (a submission must be the notebook itself; links are never followed)")
    if not stat.S_ISREG(st.st_mode):
        raise ValueError("not a regular file")
    if st.st_size > limit:
        raise ValueError(too_large)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise ValueError(f"cannot be read ({exc.strerror})") from exc
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):  # replaced between the two looks
            raise ValueError("not a regular file")
        data = f.read(limit + 1)
    if len(data) > limit:  # grew since
        raise ValueError(too_large)
    return data


def parse_notebook(data: bytes) -> dict:
    """What grading needs of a notebook file's bytes, as plain JSON: ``{"cells": [[type, source], ...],
    "lesson": the release's lesson name or None}``, or ``{"refused": why}``. More than ``MAX_CELLS`` cells are
    refused before nbformat reads the notebook. Run it in a child under limits (``read_submission``)."""
    import nbformat

    try:
        text = data.decode("utf-8")
        raw = json.loads(text)
    except (UnicodeDecodeError, ValueError) as exc:
        return {"refused": f"not a readable notebook ({type(exc).__name__})"}
    cells = raw.get("cells") if isinstance(raw, dict) else None
    if isinstance(cells, list) and len(cells) > MAX_CELLS:
        return {"refused": f"more than {MAX_CELLS:,} cells ({len(cells):,}): not read"}
    try:
        nb = nbformat.reads(text, as_version=4)
    except Exception as exc:  # noqa: BLE001 - nbformat raises several kinds for a file that is no notebook
        return {"refused": f"not a readable notebook ({type(exc).__name__})"}
    if len(nb.cells) > MAX_CELLS:  # an older format's worksheets, converted
        return {"refused": f"more than {MAX_CELLS:,} cells ({len(nb.cells):,}): not read"}
    info = nb.metadata.get(METADATA_KEY)
    lesson = info.get("lesson") if isinstance(info, Mapping) else None
    return {"cells": [[str(cell.get("cell_type")), str(cell.get("source", ""))] for cell in nb.cells],
            "lesson": lesson if isinstance(lesson, str) else None}


def read_submission(path: Path, lesson: str | None = None, data: bytes | None = None, *,
                    max_mb: float = MAX_NOTEBOOK_MB):
    """The notebook at ``path`` (or in ``data``, its bytes already read) and its lesson (``lesson`` if given). Parsed
    in a child process (``READ_SECONDS``, ``READ_MEMORY``): only its cells' types and sources come back, in a fresh
    notebook. FileNotFoundError if there is no file; ValueError with a clear message if it is a link, a special file,
    too large, has too many cells or is no notebook of a lesson."""
    import nbformat

    data = read_regular(path, max_mb) if data is None else data
    if len(data) > max_mb * 1_000_000:
        raise ValueError(f"larger than {max_mb:g} MB (--max-notebook-mb): not read")
    brackets = data.count(b"[") + data.count(b"{")  # at least as many as its JSON lists and objects
    if brackets > MAX_BRACKETS:
        raise ValueError(f"more than {MAX_BRACKETS:,} JSON lists and objects ({brackets:,} brackets): not read")
    try:
        parsed = run_limited(lambda ask: parse_notebook(data), lambda request: {"error": "no requests"},
                             seconds=READ_SECONDS, megabytes=READ_MEMORY)
    except Exceeded as exc:
        raise ValueError("not read: " + str(exc).replace("marking", "parsing it", 1)) from None
    if "refused" in parsed:
        raise ValueError(str(parsed["refused"]))
    new_cell = {"code": nbformat.v4.new_code_cell, "markdown": nbformat.v4.new_markdown_cell}
    nb = nbformat.v4.new_notebook(cells=[new_cell.get(kind, nbformat.v4.new_raw_cell)(source)
                                         for kind, source in parsed["cells"]])
    if parsed["lesson"] is not None:
        nb.metadata[METADATA_KEY] = {"lesson": parsed["lesson"]}
    gradings = lesson_gradings()
    if lesson is not None and lesson not in gradings:
        raise ValueError(f"there is no lesson {lesson!r}")
    return nb, lesson or lesson_of(nb.metadata, path, gradings)


@dataclass
class Snapshot:
    """What the grader and its kernels run: each file's size, inode and change time (a change time cannot be set
    back, so any write, rename or ``touch`` shows)."""

    files: dict[str, tuple[int, int, int]]
    roots: list[Path] = field(default_factory=list)

    @classmethod
    def take(cls) -> Snapshot:
        roots = protected_roots()
        return cls(dict(_walk_protected(roots)), roots)

    def changes(self, other: Snapshot) -> list[str]:
        """Files added, removed or changed since this snapshot (sorted). A new ``.pyc`` is not counted: another
        process on the machine may compile a module for the first time (kernels and the grader write none)."""
        return sorted(path for path in self.files.keys() | other.files.keys()
                      if self.files.get(path) != other.files.get(path)
                      and not (path not in self.files and path.endswith(".pyc")))


class ImportGuard:
    """A ``sys.meta_path`` finder that lets no module be imported from a protected source file that changed (or
    appeared) since the snapshot: ``TamperingError`` instead. A ``.pyc`` that appeared since (another process may
    compile a module for the first time; a submission may forge one) is never read: the module is compiled from its
    checked source. The grader imports what marking needs before the first submission runs; this covers the rest."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.files = {os.path.realpath(path): state for path, state in snapshot.files.items()}
        self.roots = [os.path.realpath(root) for root in snapshot.roots]

    def _state(self, path: str | None) -> str:
        """"same" as in the snapshot, "changed", "new" (in a protected folder, not in the snapshot) or "outside"."""
        if not path or not os.path.isabs(path):
            return "outside"
        real = os.path.realpath(path)
        try:
            st = os.lstat(real)
        except OSError:
            return "outside"
        if real in self.files:
            return "same" if self.files[real] == (st.st_size, st.st_ino, st.st_ctime_ns) else "changed"
        return "new" if any(real.startswith(root + os.sep) for root in self.roots) else "outside"

    def find_spec(self, name, path=None, target=None):
        import importlib.machinery

        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is None or not spec.has_location:
            return None  # the usual finders import it
        if self._state(spec.origin) in ("changed", "new"):
            raise TamperingError("a module about to be imported changed since the grader started", [spec.origin])
        cached = getattr(spec, "cached", None)
        state = self._state(cached) if cached and os.path.exists(cached) else "outside"
        if state == "changed":
            raise TamperingError("a module about to be imported changed since the grader started", [cached])
        if state == "new" and isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            spec.loader = _SourceOnlyLoader(spec.loader.name, spec.loader.path)
            return spec
        return None

    def invalidate_caches(self) -> None:
        pass


def _source_only_loader_class():
    import importlib.machinery

    class SourceOnlyLoader(importlib.machinery.SourceFileLoader):
        """Compiles the module from its source, never from a ``.pyc``."""

        def get_code(self, fullname):
            return compile(self.get_data(self.path), self.path, "exec", dont_inherit=True)

    return SourceOnlyLoader


_SourceOnlyLoader = _source_only_loader_class()


def protected_roots() -> list[Path]:
    """The folders whose files the grading depends on: every folder on ``sys.path`` (site-packages, and what a
    ``.pth`` file adds), the standard library, this checkout's bleu_lab and data, and the interpreter."""
    import site
    import sysconfig

    package_root = Path(__file__).resolve().parent.parent.parent
    stdlib = sysconfig.get_paths()["stdlib"]
    # sys.path from the standard library on: what site adds (site-packages, and .pth files' folders), not the
    # script's folder or the working directory in front
    tail = sys.path[sys.path.index(stdlib):] if stdlib in sys.path else []
    roots = {Path(p) for p in [*site.getsitepackages(), *tail] if p and os.path.isabs(p) and Path(p).is_dir()}
    roots = {root for root in roots if not package_root.resolve().is_relative_to(root.resolve())}  # not the clone
    roots |= {Path(stdlib)}
    roots |= {package_root / name for name in PROTECTED_PACKAGES if (package_root / name).is_dir()}
    return sorted(roots)


def _walk_protected(roots: list[Path]):
    for root in roots:
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


class BatchFiles:
    """Every submitted file of a batch, fingerprinted (type, SHA-256) and backed up in a private folder when first
    read; ``restore()`` after each submission puts back any that changed and names them."""

    def __init__(self, max_mb: float = MAX_NOTEBOOK_MB) -> None:
        self.backup = Path(tempfile.mkdtemp(prefix="bleu-lab-batch-"))  # 0700
        self.files: dict[Path, tuple[str, int, Path]] = {}
        self.max_mb = max_mb

    def add(self, path: Path) -> None:
        """Read the file at ``path`` (``read_regular``: OSError or ValueError), back it up and fingerprint it."""
        data = read_regular(path, self.max_mb)
        copy = self.backup / str(len(self.files))
        copy.write_bytes(data)
        self.files[path] = (hashlib.sha256(data).hexdigest(), stat.S_IMODE(os.lstat(path).st_mode), copy)

    def read(self, path: Path) -> bytes:
        """The bytes of ``path`` as they were when added (from the backup, checked against the fingerprint)."""
        digest, _, copy = self.files[path]
        data = copy.read_bytes()
        if hashlib.sha256(data).hexdigest() != digest:
            raise ValueError("its copy changed while the batch ran: not graded")
        return data

    def restore(self) -> list[Path]:
        """The files that changed since they were read (each now restored), in batch order."""
        changed = []
        for path, (digest, mode, copy) in self.files.items():
            try:
                now = hashlib.sha256(read_regular(path, self.max_mb)).hexdigest()
            except (OSError, ValueError):
                now = None
            if now == digest:
                continue
            changed.append(path)
            with contextlib.suppress(FileNotFoundError):
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path)
                else:
                    os.unlink(path)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), mode)
            with os.fdopen(fd, "wb") as f:
                f.write(copy.read_bytes())
        return changed

    def close(self) -> None:
        shutil.rmtree(self.backup, ignore_errors=True)


def grade_batch(paths: list[Path], *, timeout: int = DEFAULT_TIMEOUT, seed: int | None = None,
                lesson: str | None = None, out=None, grades: list[NotebookGrade] | None = None,
                sandbox: str = "auto", memory: int = MARK_MEMORY, max_notebook_mb: float = MAX_NOTEBOOK_MB) -> int:
    """Grade each notebook of ``paths`` and print its report (one ``score:`` line each) to ``out``; return the exit
    code: 0, or 3 if the grader's files changed during a run (that notebook's marks and the rest are withheld).
    Each reported ``NotebookGrade`` is also appended to ``grades`` (for ``gradebook``'s exports). ``sandbox``:
    "auto", "bubblewrap" (required) or "none" (``choose_sandbox``); ``memory``: megabytes for marking one notebook;
    ``max_notebook_mb``: a larger file is refused unread. Every file is read and backed up before the first
    submission runs; each is parsed only when its turn comes, and nothing of it is kept once its grade is out."""
    out = out or sys.stdout
    check_timeout(timeout)
    check_sandbox(sandbox)
    check_memory(memory)
    check_notebook_mb(max_notebook_mb)
    sys.dont_write_bytecode = True
    for path in paths:  # an instructor's typo stops the batch before anything runs (a link or FIFO does not)
        if not os.path.lexists(path):
            raise FileNotFoundError(f"{path}: no such file")
    if lesson is not None and lesson not in lesson_gradings():
        raise ValueError(f"--lesson {lesson}: there is no such lesson (one of {', '.join(sorted(lesson_gradings()))})")
    seed = secrets.randbelow(2 ** 32) if seed is None else seed
    context = Context.start(sandbox, memory)
    batch = context.batch = BatchFiles(max_notebook_mb)
    try:
        print(f"seed: {seed}  (hidden cases; bleu-lab grade --seed {seed} draws the same ones)", file=out, flush=True)
        print(context.sandbox.header, file=out, flush=True)
        unread: dict[Path, str] = {}
        for path in paths:  # each file is read once, before any submission runs (its bytes kept on disk only)
            try:
                batch.add(path)
            except (OSError, ValueError) as err:
                unread[path] = str(err)
        with subreaper():
            keep = descendants()
            for path in paths:
                nb, lesson_or_error = None, unread.get(path, "")
                if path not in unread:
                    try:
                        nb, lesson_or_error = read_submission(path, lesson, batch.read(path),
                                                              max_mb=max_notebook_mb)
                    except (OSError, ValueError) as err:
                        nb, lesson_or_error = None, str(err)
                grade = _grade_in_batch(path, nb, lesson_or_error, timeout, seed, context, keep)
                del nb
                if isinstance(grade, TamperingError):
                    _tampered(path, grade)
                    return 3
                print(format_grade(grade), file=out, flush=True)
                if grades is not None:
                    grades.append(grade)
    finally:
        context.close()
        batch.close()
    return 0


def _grade_in_batch(path: Path, nb, lesson_or_error: str, timeout: float, seed: int, context: Context,
                    keep: set[int]) -> NotebookGrade | TamperingError:
    """One submission of a batch, then: its processes ended, the grader's files checked, the other submissions
    restored if it changed them."""
    if nb is None:
        return NotebookGrade(path, "?", note=f"not graded: {lesson_or_error}", graded=False,
                             sandbox=context.sandbox.kind)
    try:
        grade = _grade_one(path, nb, lesson_or_error, timeout, seed, context)
    except TamperingError as exc:
        end_leftovers(keep)
        return exc
    except Exception as exc:  # noqa: BLE001 - one notebook never stops the batch
        grade = NotebookGrade(path, lesson_or_error, note=f"not graded: {type(exc).__name__}", graded=False,
                              sandbox=context.sandbox.kind)
    ended = end_leftovers(keep)
    if ended and context.sandbox.kind == "none":  # (a bubblewrap box's own processes may still be exiting)
        grade.note = (grade.note + "; " if grade.note else "") + (
            f"{ended} process{'es' if ended > 1 else ''} it left running {'were' if ended > 1 else 'was'} ended")
    try:
        context.check(f"while {path} ran")
    except TamperingError as exc:
        return exc
    restored = context.batch.restore() if context.batch is not None else []
    if restored:
        names = ", ".join(str(p) for p in restored[:5]) + (" ..." if len(restored) > 5 else "")
        grade.note = (grade.note + "; " if grade.note else "") + f"it changed submitted files (restored): {names}"
        print(f"bleu-lab grade: warning: {_clean(str(path))} changed submitted files, restored: {_clean(names)}",
              file=sys.stderr, flush=True)
    return grade


def _tampered(path: Path, error: TamperingError) -> None:
    shown = ", ".join(_clean(c) for c in error.changed[:5]) + (" ..." if len(error.changed) > 5 else "")
    print(f"bleu-lab grade: error: the grader's files changed while {_clean(str(path))} ran: {shown}. No marks "
          "are reported for it or for the notebooks after it: reinstall bleu_lab and its environment, and "
          "grade untrusted notebooks in the bubblewrap sandbox, a container or a throwaway account (see the "
          "instructor guide).", file=sys.stderr, flush=True)


def _import_everything() -> None:
    """Import what marking (and the grader) needs now, before any submission runs, so that no file a submission
    could change is read later: every module of bleu_lab and sacrebleu (its tokenizers too), nltk's BLEU, numpy,
    nbclient and jupyter_client; then draw every lesson's hidden cases once."""
    import importlib
    import pkgutil

    import nbclient  # noqa: F401
    import nbformat  # noqa: F401
    import numpy  # noqa: F401
    from jupyter_client import AsyncKernelManager  # noqa: F401

    for top in ("sacrebleu", "nltk.translate", "bleu_lab"):
        try:
            package = importlib.import_module(top)
        except ImportError:
            continue
        for module in pkgutil.walk_packages(package.__path__, top + ".", onerror=lambda name: None):
            if module.name.endswith(".__main__") or top == "nltk.translate" and not module.name.endswith(
                    ("bleu_score", "api")):
                continue  # a command line that would run
            with contextlib.suppress(Exception):  # an optional tokenizer without its extra (ja-mecab ...)
                importlib.import_module(module.name)
    for name in ("fractions", "decimal", "statistics", "difflib", "unicodedata", "csv", "math", "re", "regex",
                 "nltk.translate.bleu_score", "json", "collections", "dataclasses"):
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
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
