"""The student's kernel, at arm's length: the grader's own kernel spec and environment, nbclient under the output
cap (``BoundedClient``), the notebook's cells run in order, and ``KernelSession``: the grader's requests whose printed
replies go undecoded to the marking process."""

from __future__ import annotations

import itertools
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

from . import wire
from .limits import private_root
from .results import NotebookGrade
from .submissions import new_cell

CALL_TIMEOUT = 10  # seconds for one call of a student's function
OUTPUT_LIMIT = 1_000_000  # characters a kernel may send for a notebook's own cells (beyond: dropped, cell stopped)
REPLY_LIMIT = 8 * wire.MAX_CHARS  # characters the kernel may send in answer to one request of the grader
MAX_MESSAGE_BYTES = 2 * REPLY_LIMIT + 1_000_000  # one message's bytes on the wire (a reply, JSON-escaped, fits)
RECEIVE_QUEUE = 1  # messages of a kernel the grader's ZeroMQ sockets hold before reading them
REPLY_GRACE = 5  # seconds a cell's execute_reply may come after the kernel said it is idle (it is sent before)


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

        if self.broken:
            raise RuntimeError(self.broken)
        marker = secrets.token_hex(16)
        cell = new_cell("code", f"print({marker!r}, {code}, {marker!r}, sep='')")
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

        async def _async_poll_for_reply(self, msg_id, cell, timeout, task_poll_output_msg, task_poll_kernel_alive):
            """nbclient's wait for the cell's execute_reply, ended ``REPLY_GRACE`` seconds after the cell's "idle"
            status where no reply came: ipykernel drops the reply when an interrupt (the output cap's) reaches the
            kernel after the cell's code but before that reply is sent (the kernel flushing its output), and then goes
            idle; nbclient would wait for it until the time limit, holding the notebook's worker."""
            reply = asyncio.ensure_future(super()._async_poll_for_reply(
                msg_id, cell, timeout, task_poll_output_msg, task_poll_kernel_alive))
            try:
                await asyncio.wait((reply, task_poll_output_msg), return_when=asyncio.FIRST_COMPLETED)
                if not reply.done() and _ended(task_poll_output_msg):
                    await asyncio.wait((reply,), timeout=REPLY_GRACE)
                if not reply.done() and _ended(task_poll_output_msg):
                    reply.cancel()
                    task_poll_kernel_alive.cancel()
                    return {"header": {}, "parent_header": {"msg_id": msg_id}, "metadata": {},
                            "content": {"status": "aborted"}}  # (the cell's outputs came on iopub: all it has)
                return await reply
            except asyncio.CancelledError:  # the kernel died (nbclient cancels this wait)
                reply.cancel()
                raise

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


def _ended(task) -> bool:
    """Whether nbclient's task reading a cell's output ended at the cell's "idle" status (not cancelled or failed)."""
    return task.done() and not task.cancelled() and task.exception() is None


# ipykernel's debugger left out of a graded kernel: the grader sends no debug request, and importing debugpy (which
# ipykernel does at each start where it is installed) costs a tenth of a CPU second a kernel. ipykernel notes at
# import that debugpy is missing; then debugpy is importable again, for a notebook that imports it.
NO_DEBUGGER = 'sys.modules["debugpy"] = None; import ipykernel.debugger; del sys.modules["debugpy"]; '


def _kernel_spec_manager(prefix: list[str] | None = None, first: str = ""):
    """A kernelspec of the grader's own (not one a submission could rewrite on disk): this Python, isolated, writing
    no bytecode (so that any change to a ``__pycache__`` is a submission's doing), after ``prefix`` (bubblewrap's
    command line, whose kernel is interrupted by a message: a signal to bwrap would not reach it); ``first``: code the
    kernel runs before anything else (``own_code``'s stand-ins)."""
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager

    root = str(Path(__file__).resolve().parent.parent.parent)
    boot = (f"exec({first!r}, {{}}); " if first else "") + (
        f"import sys; sys.path.append({root!r}); "  # after site-packages: bleu_lab for an uninstalled checkout
        f"{NO_DEBUGGER}from ipykernel.kernelapp import launch_new_instance; launch_new_instance()")
    # A traceback in one line: the grader keeps only an error's name and message (BoundedClient.output), and
    # IPython's full tracebacks cost a tenth of a CPU second each (a notebook run without bleu_lab's functions
    # raises in every cell that calls one). No history database: writing each cell (the grader's forty-odd
    # requests included) into SQLite is a third of what a short cell costs the kernel.
    argv = [sys.executable, "-I", "-B", "-c", boot, "-f", "{connection_file}", "--InteractiveShell.xmode=Minimal",
            "--HistoryManager.enabled=False"]
    if prefix:  # in its PID namespace the kernel's parent is PID 1: ipykernel would take it for a dead parent
        argv = [*prefix, *argv, "--IPKernelApp.parent_handle=0"]
    spec = KernelSpec(argv=argv,
                      display_name="bleu-lab grader", language="python", metadata={},
                      interrupt_mode="message" if prefix else "signal")

    class GraderSpecs(KernelSpecManager):
        def get_kernel_spec(self, kernel_name, *args, **kwargs):
            return spec

    return GraderSpecs()


def base_env() -> dict[str, str]:
    """What a kernel keeps of the grader's environment: ``PATH``, ``LANG`` and, where set, ``LD_LIBRARY_PATH`` (an
    interpreter may need it to find its libpython)."""
    library = os.environ.get("LD_LIBRARY_PATH")
    return {"PATH": os.environ.get("PATH", os.defpath), "LANG": os.environ.get("LANG", "C.UTF-8"),
            **({"LD_LIBRARY_PATH": library} if library else {})}


# numpy's BLAS (OpenBLAS, MKL or an OpenMP build) on one thread in a graded kernel: a lesson's arrays are small, and
# the grader runs as many kernels at once as there are CPUs (--jobs), so each one's own pool of threads would only
# compete with the others (and count toward the box's process limit).
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _kernel_env(home: Path) -> dict[str, str]:
    """A minimal environment (``base_env``): fresh home, IPython, Jupyter and matplotlib folders inside the private
    temp folder; no bytecode written (the kernel runs with ``-B``; a Python the notebook starts inherits this): without
    the sandbox, a Python a notebook started wrote the editable install's finder ``.pyc`` (missing in a fresh venv)
    into the grader's site-packages, and the grader stopped the batch for its changed files."""
    for sub in ("ipython", "jupyter-config", "jupyter-data", "runtime", "mpl", "tmp"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    return {**base_env(), "HOME": str(home), "IPYTHONDIR": str(home / "ipython"),
            "JUPYTER_CONFIG_DIR": str(home / "jupyter-config"),
            "JUPYTER_DATA_DIR": str(home / "jupyter-data"), "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
            "MPLCONFIGDIR": str(home / "mpl"), "MPLBACKEND": "agg", "TMPDIR": str(home / "tmp"),
            "JUPYTER_PLATFORM_DIRS": "1", "PYTHONDONTWRITEBYTECODE": "1", **ONE_THREAD}


FONT_LIST_BYTES = 8_000_000  # one font list file of matplotlib's (about 1 kB per font installed)
FONT_LIST_SECONDS = 120  # to build it, once per batch


def matplotlib_font_list() -> dict[str, bytes]:
    """matplotlib's font list (``fontlist-v*.json``, name -> content) as a graded kernel builds it in its empty
    ``MPLCONFIGDIR`` on its first plot (fontconfig's list and each font's properties: a tenth of a CPU second here, a
    second or more where many fonts are installed). Built once, before any submission runs, by this Python in a
    kernel's environment; each kernel then gets a copy (``sandbox.install_font_list``). {} where it cannot be built (no
    matplotlib): each kernel builds its own."""
    folder = Path(tempfile.mkdtemp(prefix="bleu-lab-fonts-", dir=private_root()))
    try:
        env = _kernel_env(folder / "home")
        subprocess.run([sys.executable, "-I", "-B", "-c", "import matplotlib.font_manager"], env=env, cwd=folder,
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=FONT_LIST_SECONDS, check=True)
        made = sorted(Path(env["MPLCONFIGDIR"]).glob("fontlist-v*.json"))
        return {path.name: path.read_bytes() for path in made if path.stat().st_size <= FONT_LIST_BYTES}
    except (OSError, subprocess.SubprocessError):
        return {}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


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
