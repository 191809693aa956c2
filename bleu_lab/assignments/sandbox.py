"""The box a submission's kernel runs in: bubblewrap where it can start, else the grader's own isolation.

Under **bubblewrap** (``bwrap``, Linux) the kernel sees a file system built for it: the system folders (``/usr``,
``/etc`` ...), the Python installation and the folders on ``sys.path`` read-only, of this checkout only ``bleu_lab/``
and ``data/`` (an empty ``notebooks/``: no worked solutions), the course's ``notebooks/solutions`` hidden under an
empty tmpfs wherever it is installed, a private ``/tmp``, and one writable folder: the submission's private copy (its
working directory, home and the kernel's sockets). ``--unshare-all`` gives it no network and its own PID, IPC, UTS
and user namespaces; ``--die-with-parent`` and the PID namespace end every process it started when the kernel ends;
``--new-session`` keeps it off the grader's terminal; ``--cap-drop ALL`` leaves root inside powerless.

The grader talks to the kernel over ZeroMQ's ``ipc`` transport: Unix sockets in that bound private folder. A shared
loopback would need the kernel in the grader's network namespace (every local port reachable); sockets in a folder
that only the grader and this one kernel can see keep ``--unshare-net``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

BWRAP = "bwrap"
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
PROBE_TIMEOUT = 30  # seconds for bubblewrap to start a Python that does nothing


@dataclass(frozen=True)
class Sandbox:
    """How kernels are boxed: ``kind`` is "bubblewrap" or "none"; ``why`` says why not, for the report's header."""

    kind: str
    why: str = ""

    @property
    def header(self) -> str:
        if self.kind == "bubblewrap":
            return ("sandbox: bubblewrap (each kernel: read-only files, no network, its own processes, only its "
                    "private copy writable)")
        return (f"sandbox: none ({self.why}): each kernel runs as this user in a private folder; every process it "
                "starts is ended and every submitted file checked after it (see the instructor guide)")


def course_paths() -> tuple[Path | None, list[Path]]:
    """The top of a clone (``None`` for an installed wheel) and the course's solutions folders to hide."""
    from ..course import course_root

    try:
        root = course_root()
    except FileNotFoundError:
        return None, []
    package = Path(__file__).resolve().parent.parent
    clone = root if root != package / "course_files" else None
    return clone, [root / "notebooks" / "solutions"]


def readable_folders() -> list[Path]:
    """The folders a kernel reads: system folders, the interpreter's installation and ``sys.path`` (a clone's top
    folder never whole: only its ``bleu_lab`` and ``data``)."""
    clone, _ = course_paths()
    found: set[Path] = set()
    for folder in SYSTEM_FOLDERS:
        if os.path.isdir(folder) and not os.path.islink(folder):
            found.add(Path(folder))
    exe = Path(sys.executable)
    for path in (sys.prefix, sys.base_prefix, sys.exec_prefix, exe.parent, exe.resolve().parent.parent,
                 *sys.path):
        if not path or not os.path.isabs(path) or not os.path.isdir(path):
            continue
        path = Path(path).resolve()
        if clone is not None and (clone.is_relative_to(path) or path.is_relative_to(clone) and not _in_venv(path)):
            continue  # the clone, a folder above it or in it (but a venv in it): only its package and data, below
        found.add(path)
    if clone is not None:
        found |= {clone / "bleu_lab", clone / "data"}
    # A folder inside another is bound with it.
    return sorted(p for p in found if not any(p != q and p.is_relative_to(q) for q in found))


def _in_venv(path: Path) -> bool:
    """Whether ``path`` is in a virtual environment (a folder above it holds ``pyvenv.cfg``)."""
    return any((parent / "pyvenv.cfg").is_file() for parent in (path, *path.parents))


def bwrap_prefix(private: Path, cwd: Path | None = None) -> list[str]:
    """bubblewrap's arguments (up to ``--``) for a kernel whose only writable folder is ``private`` (working
    directory ``cwd``, default ``private``)."""
    clone, hidden = course_paths()
    argv = [shutil.which(BWRAP) or BWRAP, "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
            "--hostname", "grader", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    for folder in SYSTEM_FOLDERS:  # /bin -> usr/bin and the like, as on the host
        if os.path.islink(folder):
            argv += ["--symlink", os.readlink(folder), folder]
    for folder in readable_folders():
        argv += ["--ro-bind", str(folder), str(folder)]
    if clone is not None:
        argv += ["--dir", str(clone / "notebooks")]  # course_root() finds the clone; its lessons stay outside
    for folder in hidden:
        if folder.is_dir():
            argv += ["--tmpfs", str(folder), "--remount-ro", str(folder)]
    argv += ["--bind", str(private), str(private), "--chdir", str(cwd or private)]
    return [*argv, "--"]


def probe(private: Path) -> Sandbox:
    """Bubblewrap if it starts this Python in its box here (Linux with user namespaces), else why not."""
    if not sys.platform.startswith("linux"):
        return Sandbox("none", f"bubblewrap runs on Linux only, not on {sys.platform}")
    if shutil.which(BWRAP) is None:
        return Sandbox("none", "bubblewrap (bwrap) is not installed")
    try:
        done = subprocess.run([*bwrap_prefix(private), sys.executable, "-I", "-B", "-c", "import ipykernel"],
                              capture_output=True, text=True, timeout=PROBE_TIMEOUT, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Sandbox("none", f"bubblewrap could not start: {type(exc).__name__}")
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        return Sandbox("none", f"bubblewrap could not start here: {last[:200]}")
    return Sandbox("bubblewrap")
