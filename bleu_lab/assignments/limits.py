"""Marking under limits, and the limits of a submission's kernel.

Marking: the checks run in a child process with a wall-clock limit and an address-space limit.

The child is a ``fork`` of the grader taken after everything marking needs is imported, so it reads no file a
submission could have changed. It decodes the student's values and runs the checks; whenever a check calls a
student's function it asks the parent (which alone talks to the kernel) over a pipe, one length-prefixed JSON message
at a time. The parent kills the child when the wall-clock limit passes; ``RLIMIT_AS`` (the child's address space at
the fork plus ``megabytes``) turns an allocation beyond the limit into a ``MemoryError`` in the child.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import struct
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

HEADER = struct.Struct("!Q")
KERNEL_OOM_SCORE = 1000  # oom_score_adj of a kernel and its processes: the first the OOM killer ends
GRADER_OOM_SCORE = -500  # oom_score_adj of the grader, where it may set it (CAP_SYS_RESOURCE: root)
BOX_PROCESSES = 1024  # RLIMIT_NPROC in a kernel's user namespace (threads count: ~20 for a kernel, plus BLAS threads)
# Run by the interpreter before the kernel: join the given cgroups (their cgroup.procs files, if not "-"), set the
# given oom_score_adj and RLIMIT_NPROC (if not "-"), make the folders, become the given user (after handing it the
# private folder), then exec.
CONFINE = """\
import ctypes, os, resource, signal, sys
score, nproc, orphan, folders, user, groups = sys.argv[1:7]
if groups != "-":  # as root, before anything else: every process started from here on is counted there
    for procs in groups.split("\\n"):
        with open(procs, "w") as f:
            f.write(str(os.getpid()))
if score != "-":
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write(score)
    except OSError:
        pass
if nproc != "-":
    resource.setrlimit(resource.RLIMIT_NPROC, (int(nproc), int(nproc)))
if folders == "make":  # the kernel's home, IPython and Jupyter folders, in a private copy that starts empty
    for name in ("HOME", "IPYTHONDIR", "JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR",
                 "MPLCONFIGDIR", "TMPDIR"):
        if os.path.isabs(os.environ.get(name, "")):
            os.makedirs(os.environ[name], exist_ok=True)
if user != "-":  # root hands the private folder to an unprivileged user and becomes it, for good
    uid, gid, private = user.split(":", 2)
    uid, gid = int(uid), int(gid)
    for top, subfolders, files in os.walk(private):
        for path in (top, *(os.path.join(top, name) for name in subfolders + files)):
            os.chown(path, uid, gid, follow_symlinks=False)
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
if orphan == "kill":  # PR_SET_PDEATHSIG: killed when the grader ends (kept across exec; a change of user clears it)
    ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)
os.execv(sys.argv[7], sys.argv[7:])
"""
MAX_MESSAGE = 64_000_000  # bytes of one message either way (the kernel's replies are bounded far below)


SOCKET_PATH_MAX = 100  # bytes in a Unix socket's path: 107 on Linux, 103 on macOS
BELOW_ROOT = len("/bleu-lab-batch-12345678/bleu-lab-grade-12345678/ipc/k-99")  # a kernel's socket, from the root


def private_root() -> str:
    """Where the grader's private temporary folders go: the system's (``tempfile.gettempdir()``, i.e. ``TMPDIR``), or
    ``/tmp`` where that is too long for the kernels' sockets below it (``SOCKET_PATH_MAX``; macOS's ``TMPDIR`` is).
    ValueError if neither will do."""
    system = tempfile.gettempdir()
    for root in (system, "/tmp"):
        if len(os.fsencode(root)) + BELOW_ROOT <= SOCKET_PATH_MAX and os.path.isdir(root) and os.access(root, os.W_OK):
            return root
    raise ValueError(f"the temporary folder {system!r} is too long for the kernels' sockets below it (a socket's "
                     f"path has at most {SOCKET_PATH_MAX} bytes) and /tmp cannot be written: set TMPDIR to a folder "
                     f"of at most {SOCKET_PATH_MAX - BELOW_ROOT} characters")


class Exceeded(Exception):
    """Marking went beyond a limit ("30 s" or "512 MB") or died; ``str`` is the note for the report."""


def confine(executable: str, *, oom_score: int | None = None, processes: int | None = None,
            die_with_parent: bool = False, make_folders: bool = False,
            user: tuple[int, int, Path] | None = None, cgroups: list[Path] | None = None) -> list[str]:
    """The command prefix that moves the next command into ``cgroups`` (their ``cgroup.procs`` files, as root),
    sets its ``oom_score_adj`` and process limit (``None``: unchanged), all inherited by every process it starts,
    has it killed when its parent ends (``die_with_parent``), makes the folders its environment names
    (``make_folders``: HOME, IPYTHONDIR, ...) and, run as root, runs it as ``user`` (uid, gid, and the private
    folder that is handed to it); ``executable`` runs it."""
    return [executable, "-I", "-S", "-B", "-c", CONFINE, "-" if oom_score is None else str(oom_score),
            "-" if processes is None else str(processes), "kill" if die_with_parent else "-",
            "make" if make_folders else "-", "-" if user is None else f"{user[0]}:{user[1]}:{user[2]}",
            "\n".join(map(str, cgroups)) if cgroups else "-"]


@contextlib.contextmanager
def protect_grader():
    """For the block, this process's ``oom_score_adj`` is ``GRADER_OOM_SCORE`` where it may lower it (else left as
    it is: its kernels have ``KERNEL_OOM_SCORE``); restored after."""
    path = "/proc/self/oom_score_adj"
    try:
        with open(path, encoding="ascii") as f:
            was = f.read().strip()
        with open(path, "w", encoding="ascii") as f:
            f.write(str(min(GRADER_OOM_SCORE, int(was))))
    except (OSError, ValueError):
        was = None
    try:
        yield
    finally:
        if was is not None:
            with contextlib.suppress(OSError), open(path, "w", encoding="ascii") as f:
                f.write(was)


def _address_space() -> int | None:
    """This process's virtual memory size in bytes (Linux), else None."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return None


def _limit_memory(megabytes: int) -> None:
    import resource

    size = _address_space()
    if size is None:
        size = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    limit = size + megabytes * 1024 * 1024
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _send(fd: int, message: object) -> None:
    data = json.dumps(message, ensure_ascii=True, allow_nan=False).encode("ascii")
    data = HEADER.pack(len(data)) + data
    while data:
        data = data[os.write(fd, data):]


def _read_exact(fd: int, size: int, deadline: float | None) -> bytes:
    chunks, left = [], size
    while left:
        if deadline is not None:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([fd], [], [], wait)[0]:
                raise TimeoutError
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _receive(fd: int, deadline: float | None = None) -> object:
    (size,) = HEADER.unpack(_read_exact(fd, HEADER.size, deadline))
    if size > MAX_MESSAGE:
        raise EOFError
    return json.loads(_read_exact(fd, size, deadline))


def run_limited(work: Callable[[Callable[[dict], dict]], object], serve: Callable[[dict], dict], *,
                seconds: float, megabytes: int) -> object:
    """``work(ask)`` run in a forked child, its JSON-able result returned here; ``ask(request)`` sends a request
    to ``serve`` in this process and returns its reply. ``Exceeded`` if the child runs longer than ``seconds`` (then
    killed), runs out of its ``megabytes`` or dies."""
    if not hasattr(os, "fork"):  # no fork (Windows): marking runs here, without these limits
        return work(serve)
    from_parent, to_child = os.pipe()  # (read end, write end)
    from_child, to_parent = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # "multi-threaded, fork() may deadlock": see below
        pid = os.fork()
    if pid == 0:  # the child: only this thread runs here; it touches no lock the others held (no zmq, no asyncio)
        code = 1
        try:
            os.close(to_child)
            os.close(from_child)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            _limit_memory(megabytes)

            def ask(request: dict) -> dict:
                _send(to_parent, request)
                return _receive(from_parent)

            try:
                _send(to_parent, {"op": "done", "value": work(ask)})
            except MemoryError:
                _send(to_parent, {"op": "memory"})
            except Exception as exc:  # noqa: BLE001 - said in the report, not raised into the grader's code
                _send(to_parent, {"op": "failed", "why": f"{type(exc).__name__}: {str(exc)[:200]}"})
            code = 0
        except BaseException:  # noqa: BLE001 - the child never returns into the grader's code
            code = 1
        finally:
            os._exit(code)
    os.close(from_parent)
    os.close(to_parent)
    deadline = time.monotonic() + seconds
    try:
        while True:
            try:
                message = _receive(from_child, deadline)
            except TimeoutError:
                raise Exceeded(f"marking exceeded {seconds:g} s") from None
            except (EOFError, ValueError):
                raise Exceeded(_death(pid)) from None
            if not isinstance(message, dict):
                raise Exceeded("marking failed (a malformed message)")
            if message.get("op") == "done":
                return message.get("value")
            if message.get("op") == "memory":
                raise Exceeded(f"marking exceeded {megabytes} MB")
            if message.get("op") == "failed":
                raise Exceeded(f"marking failed ({message.get('why')})")
            reply = serve(message)
            if time.monotonic() > deadline:
                raise Exceeded(f"marking exceeded {seconds:g} s")
            try:
                _send(to_child, reply)
            except OSError:
                raise Exceeded(_death(pid)) from None
    finally:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        for fd in (to_child, from_child):
            with contextlib.suppress(OSError):
                os.close(fd)


def _death(pid: int) -> str:
    """Why the child ended without an answer."""
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return "marking failed (its process ended)"
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig in (signal.SIGSEGV, signal.SIGBUS, signal.SIGABRT):
            return f"marking failed (its process ended with signal {sig}: out of memory?)"
        return f"marking failed (its process ended with signal {sig})"
    return "marking failed (its process ended)"

