"""The box a submission's kernel runs in: bubblewrap where it can start, else the grader's own isolation.

Under **bubblewrap** (``bwrap``, Linux) the kernel sees a file system built for it: the system folders (``/usr``,
``/etc`` ...), the Python installation and the folders the interpreter puts on its path when started isolated
(``-I``: never the grader's working folder, a script's folder or ``PYTHONPATH``) read-only, of this checkout only
``bleu_lab/`` and ``data/`` (an empty ``notebooks/``: no worked solutions), the course's ``notebooks/solutions`` and
the grader's working folder (where it lies inside a bound folder) hidden under an empty tmpfs, ``/tmp`` and
``/dev/shm`` as sized tmpfs, and one writable folder: the submission's private copy (its working directory and
home), a sized tmpfs too, into which the folder of the kernel's sockets is bound. bubblewrap's own root and ``/dev``
are read-only. ``--unshare-all`` gives it no network and its own PID, IPC, UTS and user namespaces;
``--die-with-parent`` and the PID namespace end every process it started when the kernel ends; ``--new-session``
keeps it off the grader's terminal; ``--cap-drop ALL`` leaves root inside powerless. Without bubblewrap the kernel
gets a PID namespace of its own where the system allows (``processes.pid_namespace``). Either way ``limits.confine``
starts it as the OOM killer's first choice, with a process limit in its user namespace. Linux exempts root's processes
from that limit, in every user namespace, so a grader run as root starts bubblewrap (or, without it, the kernel) as the
unprivileged ``KERNEL_USER`` where that user can run this Python (``kernel_user``).

The grader talks to the kernel over ZeroMQ's ``ipc`` transport: Unix sockets in that bound private folder. A shared
loopback would need the kernel in the grader's network namespace (every local port reachable); sockets in a folder
that only the grader and this one kernel can see keep ``--unshare-net``. Where the grader is root, that folder is a
tmpfs of ``SOCKETS_BYTES`` it mounts (``mount_sockets``), in both modes: not the grader's disk. Where it cannot mount
(not root), bubblewrap makes that tmpfs in the box, the connection file alone bound into it, and the grader reaches
the sockets through the box's root (``seen_from_grader``); without bubblewrap it stays on the grader's disk.

Run as root, or in a cgroup delegated to its user (``delegated_hierarchies``), the grader also puts each kernel, box
and all, in a cgroup of its own (``kernel_cgroup``): at most
``BOX_PROCESSES`` processes, the same CPU weight as every other kernel (however many processes a notebook starts, they
share one kernel's part) and a memory limit (``kernel_memory``: a share of what the grader has) inside which the
out-of-memory killer acts. ``Sandbox.bounds`` says, on the report's second line, which of these hold here.
"""

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
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..hub.cgroups import Cgroup, Hierarchy, memory_available, own_hierarchies
from .limits import BELOW_ROOT, BOX_PROCESSES, KERNEL_OOM_SCORE, confine, private_root
from .processes import alive, children_of, pid_namespace
from .session import base_env

BWRAP = "bwrap"
KERNEL_USER = "nobody"  # who runs a kernel when the grader is root and has no bubblewrap
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
PROBE_TIMEOUT = 30  # seconds for bubblewrap to start a Python that does nothing
TMPFS_BYTES = 64 * 1024 * 1024  # /tmp and /dev/shm in the box (files counted by no process: by its cgroup's memory)
PRIVATE_BYTES = 256 * 1024 * 1024  # the private copy in the box (working folder and home), a tmpfs too
KERNEL_MEMORY = 2 * 1024 ** 3  # bytes of memory one kernel's cgroup may use at most (less on a smaller machine)
SOCKETS_BYTES = 1024 * 1024  # the tmpfs of a kernel's sockets folder (its sockets and connection file: a few kB)
CONNECTION_FILE = "kernel.json"  # the kernel's connection file, in its sockets folder
BOX_ROOT = "/proc/{pid}/root"  # the root of a process's mount namespace, as the grader reaches the box's files
PID_DIGITS = 7  # a pid's digits at most (Linux's pid_max is at most 4,194,304)
SUN_PATH = 107  # bytes of a Unix socket's path on Linux (its sockaddr_un's 108, less the final NUL)


@dataclass(frozen=True)
class Sandbox:
    """How kernels are boxed: ``kind`` is "bubblewrap" or "none"; ``why`` says why not, for the report's header."""

    kind: str
    why: str = ""  # "none": why not bubblewrap; bubblewrap run by root: why not as KERNEL_USER
    user: tuple[int, int] | None = None  # bubblewrap run by root: the (uid, gid) it runs as (``kernel_user``)
    cgroup: bool = False  # each kernel in a cgroup of its own, whose pids.max binds root too (``cgroups_work``)
    cpu: bool = False  # that cgroup has an equal CPU weight (``cgroup_bounds``)
    memory: bool = False  # that cgroup has a memory limit (``kernel_memory``), the OOM killer acting inside it
    sockets: bool = False  # the kernel's sockets folder is a tmpfs of SOCKETS_BYTES (``sockets_tmpfs_works``)
    sockets_in_box: bool = False  # that tmpfs is bubblewrap's, in the box (``sockets_in_box_work``): not root's mount
    jobs: int = 1  # kernels at once (the batch's --jobs): each kernel's memory is a share of what the grader has
    why_unbounded: str = ""  # why a bound of the cgroup or of the sockets folder is not enforced

    @property
    def bounds(self) -> str:
        """The report's words for the bounds a kernel's cgroup and sockets folder enforce, and those not enforced."""
        held, missing = [], []
        for enforced, said, unsaid in (
                (self.cpu, "an equal share of the CPU", "an equal CPU share (a notebook's processes may crowd out "
                 "its neighbour's)"),
                (self.memory, f"at most {kernel_memory(self.jobs) // 2 ** 20:,} MB of memory (out of memory, only "
                 "its own processes are killed)", "a memory limit (out of memory, the killer may end a neighbour's "
                 "kernel)"),
                (self.sockets, f"its sockets folder on a {SOCKETS_BYTES // 2 ** 20} MB tmpfs",
                 "a bounded sockets folder (on the grader's disk)")):
            (held if enforced else missing).append(said if enforced else unsaid)
        line = "; per kernel: " + ", ".join(held) if held else ""
        if missing:
            line += f"; not enforced ({self.why_unbounded or 'not possible here'}): " + ", ".join(missing)
        return line

    @property
    def header(self) -> str:
        if self.kind == "bubblewrap":
            sized = (f"/tmp and /dev/shm {TMPFS_BYTES // 2**20} MB each, its private copy {PRIVATE_BYTES // 2**20} MB"
                     if sized_tmpfs() else "/tmp, /dev/shm and its private copy on the grader's disk: this "
                     "bubblewrap cannot size a tmpfs (--size needs 0.5)")
            processes = f"at most {BOX_PROCESSES:,} processes"
            if self.user is not None:
                processes += f", as the unprivileged user {KERNEL_USER}"
            elif self.why and self.cgroup:  # root, and a cgroup's pids.max binds root's processes too
                processes += f" in a cgroup of its own, as root: {self.why}"
            elif self.why:  # root, and bubblewrap could not start as KERNEL_USER: Linux exempts root from the limit
                processes = f"as root, whom no process limit binds: {self.why}"
            return ("sandbox: bubblewrap (each kernel: read-only files, no network, its own processes "
                    f"({processes}), only its private copy writable, {sized})" + self.bounds)
        _, namespace = pid_namespace()
        _, user = kernel_user()
        group = f", at most {BOX_PROCESSES:,} processes in a cgroup of its own" if self.cgroup else ""
        return (f"sandbox: none ({self.why}): each kernel runs {user} in a private folder, {namespace}{group}; "
                "every process it starts is ended and every submitted file checked after it (see the instructor "
                "guide)" + self.bounds)


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


@functools.cache
def _installation() -> tuple[str, ...]:
    """The folders the interpreter itself puts on ``sys.path`` when started isolated (``-I``: the standard library,
    site-packages and what their ``.pth`` files add), never the working folder, a script's folder or PYTHONPATH.
    ``LD_LIBRARY_PATH`` is kept where set: an interpreter may need it to find its libpython, and without it the
    probe would fail and miss the folders the ``.pth`` files add (CI: a Python copied for ``nobody``)."""
    library = os.environ.get("LD_LIBRARY_PATH")
    env = {"PATH": os.defpath, **({"LD_LIBRARY_PATH": library} if library else {})}
    try:
        done = subprocess.run([sys.executable, "-I", "-c", "import json, sys; print(json.dumps(sys.path))"],
                              capture_output=True, text=True, timeout=PROBE_TIMEOUT, stdin=subprocess.DEVNULL,
                              cwd="/", env=env)
        return tuple(str(p) for p in json.loads(done.stdout))
    except (OSError, ValueError, subprocess.TimeoutExpired):
        import site
        import sysconfig

        paths = sysconfig.get_paths()
        return (paths["stdlib"], paths["platstdlib"], *site.getsitepackages())


def readable_folders() -> list[Path]:
    """The folders a kernel reads: system folders, the interpreter's installation and its isolated ``sys.path``
    (``_installation``; a clone's top folder never whole: only its ``bleu_lab`` and ``data``). Never a ``sys.path``
    entry of the grader's own start (``python -m``'s working folder, a script's folder, ``PYTHONPATH``)."""
    clone, _ = course_paths()
    found: set[Path] = set()
    for folder in SYSTEM_FOLDERS:
        if os.path.isdir(folder) and not os.path.islink(folder):
            found.add(Path(folder))
    exe = Path(sys.executable)
    for path in (sys.prefix, sys.base_prefix, sys.exec_prefix, exe.parent, exe.resolve().parent.parent,
                 *_installation()):
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


def covered_folders(readable: list[Path]) -> list[Path]:
    """The folders covered by an empty read-only tmpfs in the box: the course's solutions, and the working folder
    (an instructor's course or submissions) wherever it lies inside a bound folder, say ``/usr/local/course``."""
    _, hidden = course_paths()
    try:
        working = Path.cwd().resolve()
    except OSError:  # the working folder was removed: nothing of it to show
        return hidden
    return [*hidden, *([working] if any(working.is_relative_to(folder) for folder in readable) else [])]


def _in_venv(path: Path) -> bool:
    """Whether ``path`` is in a virtual environment (a folder above it holds ``pyvenv.cfg``)."""
    return any((parent / "pyvenv.cfg").is_file() for parent in (path, *path.parents))


@functools.cache
def sized_tmpfs() -> bool:
    """Whether this bubblewrap sizes a tmpfs (``--size``, bubblewrap 0.5 and later)."""
    try:
        done = subprocess.run([shutil.which(BWRAP) or BWRAP, "--help"], capture_output=True, text=True,
                              timeout=PROBE_TIMEOUT, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "--size" in done.stdout + done.stderr


def bwrap_prefix(private: Path, cwd: Path | None = None, sockets: Path | None = None) -> list[str]:
    """bubblewrap's arguments (up to ``--``) for a kernel whose only writable folder is ``private`` (working
    directory ``cwd``, default ``private``); ``/tmp`` and ``/dev/shm`` are tmpfs of ``TMPFS_BYTES`` each and
    ``private`` one of ``PRIVATE_BYTES`` in which only what is in it now (the kernel's sockets folder) is the
    grader's, bound; ``cwd`` starts empty. ``sockets`` (a folder of ``private``): instead of the grader's, a tmpfs of
    ``SOCKETS_BYTES`` in the box, into which only the connection file (``CONNECTION_FILE``) is bound, read-only: the
    grader reaches the kernel's sockets through the box's root (``seen_from_grader``). Where bubblewrap cannot size a
    tmpfs, all three are folders of ``private`` on the grader's disk (and ``sockets`` is bound). Everything else is
    read-only."""
    clone, _ = course_paths()
    argv = [shutil.which(BWRAP) or BWRAP, "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
            "--hostname", "grader", "--proc", "/proc", "--dev", "/dev"]
    if sized_tmpfs():
        argv += ["--size", str(TMPFS_BYTES), "--tmpfs", "/tmp", "--size", str(TMPFS_BYTES), "--tmpfs", "/dev/shm"]
    else:  # an unsized tmpfs takes up to half the RAM, counted to no process: the private copy's disk instead
        for name, folder in (("box-tmp", "/tmp"), ("box-shm", "/dev/shm")):
            (private / name).mkdir(mode=0o700, exist_ok=True)
            argv += ["--bind", str(private / name), folder]
    for folder in SYSTEM_FOLDERS:  # /bin -> usr/bin and the like, as on the host
        if os.path.islink(folder):
            argv += ["--symlink", os.readlink(folder), folder]
    readable = readable_folders()
    for folder in readable:
        argv += ["--ro-bind", str(folder), str(folder)]
    if clone is not None:
        argv += ["--dir", str(clone / "notebooks")]  # course_root() finds the clone; its lessons stay outside
    for folder in covered_folders(readable):
        if folder.is_dir():
            argv += ["--tmpfs", str(folder), "--remount-ro", str(folder)]
    cwd = cwd or private
    if sized_tmpfs():  # the private copy in the box: a tmpfs of PRIVATE_BYTES, but what the grader shares with it
        argv += ["--size", str(PRIVATE_BYTES), "--tmpfs", str(private)]
        for entry in sorted(private.iterdir()):  # the kernel's sockets and connection file, on the grader's disk
            if entry == sockets:  # or a tmpfs of the box's own, the connection file alone the grader's
                connection = str(entry / CONNECTION_FILE)
                argv += ["--size", str(SOCKETS_BYTES), "--tmpfs", str(entry), "--ro-bind", connection, connection]
            elif entry != cwd and not entry.is_symlink():
                argv += ["--bind", str(entry), str(entry)]
        if cwd != private:
            argv += ["--dir", str(cwd)]
    else:
        argv += ["--bind", str(private), str(private)]
    argv += ["--chdir", str(cwd)]
    argv += ["--remount-ro", "/dev", "--remount-ro", "/"]  # bubblewrap's own tmpfs: no file of any size there
    return [*argv, "--"]


@functools.cache
def kernel_user() -> tuple[tuple[int, int] | None, str]:
    """Without bubblewrap, a grader running as root (Gradescope's container) runs each kernel as the unprivileged
    ``KERNEL_USER``, which can neither signal nor ptrace the grader, nor write its files or ``results.json``, and
    which ``RLIMIT_NPROC`` binds (root is exempt from it): that user's (uid, gid) where it can run this Python and
    import what a kernel needs, else None; and the report's words for it."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return None, "as this user"
    import pwd  # Unix only

    try:
        entry = pwd.getpwnam(KERNEL_USER)
    except KeyError:
        return None, f"as root (there is no user {KERNEL_USER!r} to run it as)"
    user = (entry.pw_uid, entry.pw_gid)
    folder = Path(tempfile.mkdtemp(prefix="bleu-lab-user-", dir=private_root()))
    try:
        done = subprocess.run([*confine(sys.executable, user=(*user, folder)), sys.executable, "-I", "-B", "-c",
                               "import ipykernel, bleu_lab"], capture_output=True, text=True, cwd=folder,
                              timeout=PROBE_TIMEOUT, stdin=subprocess.DEVNULL, env=base_env())
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"as root ({KERNEL_USER} could not start this Python: {type(exc).__name__})"
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1][:200]
        return None, (f"as root: {KERNEL_USER} cannot run this Python ({last}); install the grader where every user "
                      "can read it, e.g. under /opt or /usr/local")
    return user, f"as the unprivileged user {KERNEL_USER}"


CGROUP_PARENT = "bleu-lab-grade"  # under the grader's own cgroup: one cgroup per kernel (``kernel_cgroup``)


@functools.cache
def cgroup_bounds() -> tuple[frozenset[str], str]:
    """What each kernel's cgroup of its own can enforce here (made and removed once to see): "pids" (a
    ``pids.max`` that binds root too), "cpu" (an equal CPU weight among the kernels) and "memory" (a memory limit,
    the out-of-memory killer acting inside it); and why the others cannot be. The cgroups are made below the
    grader's own (on Linux: v2, and v1's pids, cpu and memory), where it may (``delegated_hierarchies``): as root,
    or in a cgroup delegated to the grader's user. Linux exempts root from ``RLIMIT_NPROC``, not from a cgroup's
    limit, and a cgroup's processes are all found and ended, whatever they did."""
    if not sys.platform.startswith("linux"):
        return frozenset(), f"cgroups are Linux's, not {sys.platform}'s"
    found, why_not = delegated_hierarchies()
    if not found:
        return frozenset(), why_not
    _remove_dead_cgroups()
    group = Cgroup.make(f"probe-{os.getpid()}", KERNEL_MEMORY, None, CGROUP_PARENT, found,
                        pids_limit=BOX_PROCESSES, weight=True, oom_group=True)
    group.remove(parent=False)  # (another grader's kernels may be in it)
    took = {kind for kind, folder in (("pids", group.processes), ("cpu", group.weighted), ("memory", group.memory))
            if folder is not None}
    problems = [why_not] if why_not and {"pids", "cpu", "memory"} - took else []
    return frozenset(took), "; ".join([*problems, *group.problems])


SYSTEMD_SCOPE = "systemd-run --user --scope -p Delegate=yes bleu-lab grade ..."  # a delegated cgroup (systemd)


def delegated_hierarchies() -> tuple[list[Hierarchy], str]:
    """The hierarchies in which the grader may make each kernel's cgroup below its own (``Hierarchy.delegated``):
    every one as root; as another user, those whose cgroup is delegated to it (its folder and ``cgroup.procs`` its
    own). And, where a hierarchy with a kernel's controllers is left out, the report's words for why, with how to
    get a delegated cgroup where systemd runs (``SYSTEMD_SCOPE``)."""
    found = _kernel_hierarchies()
    if os.geteuid() == 0:
        return found, ""
    delegated = [h for h in found if h.delegated]
    left = sorted({str(h.own) for h in found if not h.delegated and (h.version == 2 or h.controllers)})
    if not left:
        return delegated, ""
    why = f"the grader is not root and its cgroup ({', '.join(left)}) is not delegated to it"
    if os.path.isdir("/run/systemd/system"):  # systemd is the init system (sd_booted)
        why += f": run it in a delegated one, {SYSTEMD_SCOPE}"
    return delegated, why


def cgroups_work() -> bool:
    """Whether each kernel can have a cgroup of its own whose ``pids.max`` binds it (``cgroup_bounds``)."""
    return "pids" in cgroup_bounds()[0]


def kernel_memory(jobs: int = 1) -> int:
    """The bytes of memory one kernel's cgroup may use: ``KERNEL_MEMORY``, or less where the grader has less
    (``cgroups.memory_available``: the machine, or a cgroup's limit above it), shared by the ``jobs`` kernels at once
    and the grader itself, so that the kernels' limits add up to less than what the grader has."""
    available = memory_available(_kernel_hierarchies())
    return KERNEL_MEMORY if available is None else min(KERNEL_MEMORY, available // (jobs + 1))


def _remove_dead_cgroups(age: float = 60) -> None:
    """Remove the kernel cgroups a grader that was killed left behind: empty, and made more than ``age`` seconds
    ago (a cgroup that holds a process cannot be removed; one just made waits for its kernel to join)."""
    for hierarchy in _kernel_hierarchies():
        try:
            entries = list(os.scandir(hierarchy.own / CGROUP_PARENT))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False) and time.time() - entry.stat().st_mtime > age:
                    os.rmdir(entry.path)
            except OSError:  # not empty, or gone meanwhile
                pass


def kernel_cgroup(box: Sandbox, name: str) -> Cgroup | None:
    """A new cgroup for one kernel (``CGROUP_PARENT/name``) with ``pids.max`` = ``BOX_PROCESSES``, where
    ``box.cgroup``, and the equal CPU weight and memory limit (``kernel_memory``) ``box`` promises; the caller ends
    and removes it (``Cgroup.end``, ``Cgroup.remove(parent=False)``: the parent is left, as another kernel's cgroup
    may be made in it at that moment)."""
    if not box.cgroup:
        return None
    group = Cgroup.make(name, kernel_memory(box.jobs) if box.memory else None, None, CGROUP_PARENT,
                        delegated_hierarchies()[0], pids_limit=BOX_PROCESSES, weight=box.cpu, oom_group=True)
    if group.processes is None or box.cpu and group.weighted is None or box.memory and group.memory is None:
        group.remove(parent=False)  # the report's header promised the bounds: no kernel runs without them
        raise OSError(f"the kernel's cgroup could not be made: {'; '.join(group.problems) or 'a controller is gone'}")
    return group


def with_bounds(box: Sandbox) -> Sandbox:
    """``box`` with the bounds this grader can enforce on each kernel (``cgroup_bounds``, ``sockets_tmpfs_works``,
    else ``sockets_in_box_work``), and why not the others."""
    kinds, why_not = cgroup_bounds()
    sockets, why_not_mounted = sockets_tmpfs_works()
    in_box, why_not_in_box = (False, "") if sockets else sockets_in_box_work(box)
    if not (sockets or in_box):
        why_not_mounted = f"{why_not_mounted} {why_not_in_box}".strip()
    whys = [*([why_not] if {"cpu", "memory"} - kinds else []), *([] if sockets or in_box else [why_not_mounted])]
    return dataclasses.replace(box, cgroup="pids" in kinds, cpu="cpu" in kinds, memory="memory" in kinds,
                               sockets=sockets or in_box, sockets_in_box=in_box,
                               why_unbounded="; ".join(dict.fromkeys(w for w in whys if w)))


def sockets_in_box_work(box: Sandbox) -> tuple[bool, str]:
    """Where the grader cannot mount (not root), whether bubblewrap can make the kernel's sockets folder a tmpfs of
    ``SOCKETS_BYTES`` in the box (``bwrap_prefix``'s ``sockets``): it sizes a tmpfs (``sized_tmpfs``), and a
    socket's path as the grader reaches it through the box's root (``seen_from_grader``) fits in a Unix socket's
    (``SUN_PATH``); and why not."""
    if box.kind != "bubblewrap":
        return False, "and the kernel has no box (bubblewrap) to make it in"
    if not sized_tmpfs():
        return False, "and this bubblewrap cannot size a tmpfs (--size needs 0.5)"
    longest = len(BOX_ROOT.format(pid="9" * PID_DIGITS)) + len(os.fsencode(private_root())) + BELOW_ROOT
    if longest > SUN_PATH:
        return False, f"and a socket's path through the box's root would be longer than {SUN_PATH} bytes: set TMPDIR " \
                      f"to a shorter folder"
    return True, ""


def seen_from_grader(box_pid: int, path: str, timeout: float = PROBE_TIMEOUT) -> str:
    """``path`` in the box of the bubblewrap whose process is ``box_pid``, as the grader reaches it: through the
    root of bubblewrap's child (``BOX_ROOT``: the box's first process, in the box's mount namespace; the grader may
    read it, as its own user's, or root). Waits up to ``timeout`` seconds for that child; OSError if none comes."""
    deadline = time.monotonic() + timeout
    while not (children := children_of(box_pid)):
        if time.monotonic() > deadline or not alive(box_pid):
            raise OSError(f"bubblewrap (process {box_pid}) started no box within {timeout:g} s")
        time.sleep(0.01)
    return BOX_ROOT.format(pid=min(children)) + path


def _kernel_hierarchies() -> list[Hierarchy]:  # where a kernel's cgroup is made: v2, and v1's pids, cpu and memory
    return own_hierarchies(frozenset({"pids", "cpu", "memory"}))


@functools.cache
def sockets_tmpfs_works() -> tuple[bool, str]:
    """Whether the grader can give each kernel's sockets folder a tmpfs of ``SOCKETS_BYTES`` (root, on Linux, where
    the system lets it mount: not in a container without ``CAP_SYS_ADMIN``): mounted once to see; and why not."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return False, "the grader is not root"
    folder = Path(tempfile.mkdtemp(prefix="bleu-lab-sockets-", dir=private_root()))
    try:
        return mount_sockets(folder), "cannot mount a tmpfs here"
    finally:
        unmount_sockets(folder)
        shutil.rmtree(folder, ignore_errors=True)


def mount_sockets(folder: Path) -> bool:
    """Mount a tmpfs of ``SOCKETS_BYTES`` on ``folder`` (a kernel's sockets folder, empty, on the grader's disk, that
    the grader and that kernel see: a write beyond it fails with "No space left on device"); False where it cannot
    (not root)."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return False
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    flags = 0x2 | 0x4 | 0x8  # MS_NOSUID | MS_NODEV | MS_NOEXEC
    options = f"size={SOCKETS_BYTES},nr_inodes=64,mode=0700".encode()
    return libc.mount(b"tmpfs", os.fsencode(folder), b"tmpfs", flags, options) == 0


def unmount_sockets(folder: Path) -> None:
    """Unmount ``mount_sockets``'s tmpfs on ``folder``, or every one below it (a batch folder a killed grader left),
    lazily: what still holds one lets go as it ends. Nothing where none is mounted."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return
    import ctypes

    top = os.path.realpath(folder)
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as f:
            points = [line.split()[4].replace("\\040", " ") for line in f]
    except OSError:
        return
    for point in sorted((p for p in points if p == top or p.startswith(top.rstrip("/") + "/")), reverse=True):
        ctypes.CDLL(None, use_errno=True).umount2(os.fsencode(point), 2)  # MNT_DETACH


def kernel_prefix(box: Sandbox, private: Path, cwd: Path, group: Cgroup | None = None,
                  sockets: Path | None = None) -> list[str]:
    """The command in front of a kernel's: bubblewrap's box (``bwrap_prefix``, the ``sockets`` folder a tmpfs of
    the box's where ``box.sockets_in_box``) or, without it, a PID namespace of
    its own where the system allows (``processes.pid_namespace``); either way started by ``limits.confine``: in
    ``group`` (``kernel_cgroup``), the OOM killer's first choice, killed with the grader, at most ``BOX_PROCESSES``
    processes in a user namespace (and, in the box, the folders its environment names made, inside its own
    tmpfs)."""
    if not sys.platform.startswith("linux"):
        return []
    procs = [folder / "cgroup.procs" for folder, _ in group.folders] if group is not None else None
    if box.kind == "bubblewrap":  # run by root: bubblewrap itself as box.user, so that the process limit binds
        owner = None if box.user is None else (*box.user, private)
        outer = confine(sys.executable, oom_score=KERNEL_OOM_SCORE, die_with_parent=True, user=owner, cgroups=procs)
        return [*outer, *bwrap_prefix(private, cwd, sockets if box.sockets_in_box else None),
                *confine(sys.executable, processes=BOX_PROCESSES, make_folders=sized_tmpfs())]
    outer = confine(sys.executable, oom_score=KERNEL_OOM_SCORE, die_with_parent=True, cgroups=procs)
    namespace, _ = pid_namespace()
    user, _ = kernel_user()
    if user is not None:  # as root: inside the namespace (unshare needs root), the kernel becomes the user
        return [*outer, *namespace, *confine(sys.executable, processes=BOX_PROCESSES, user=(*user, private))]
    inner = confine(sys.executable, processes=BOX_PROCESSES) if "--user" in namespace else []
    return [*outer, *namespace, *inner]


def _bwrap_at(prefix: list[str]) -> int | None:
    """Where bubblewrap starts in a kernel's command ``prefix`` (``kernel_prefix``), or None."""
    return next((i for i, arg in enumerate(prefix) if Path(arg).name == BWRAP), None)


def in_box(prefix: list[str]) -> bool:
    """Whether a kernel's command ``prefix`` starts it in bubblewrap's box."""
    return _bwrap_at(prefix) is not None


def with_box_args(prefix: list[str], args: list[str]) -> list[str]:
    """A kernel's command ``prefix`` with bubblewrap's ``args`` added at the end of its box's own (before its
    ``--``); ``prefix`` as it is where it starts no box."""
    start = _bwrap_at(prefix)
    if start is None:
        return prefix
    end = prefix.index("--", start)
    return [*prefix[:end], *args, *prefix[end:]]


def install_font_list(fonts: Mapping[str, bytes], prefix: list[str], home: Path) -> list[str]:
    """A copy of ``fonts`` (``matplotlib_font_list``) in the kernel's ``MPLCONFIGDIR`` (``home``/mpl), written by the
    grader; under bubblewrap, whose tmpfs hides the grader's side of the private folder, each file is also bound
    read-only at the same place in the box. Returns the kernel's command ``prefix`` with those binds."""
    if not fonts:
        return prefix
    folder = home / "mpl"
    folder.mkdir(parents=True, exist_ok=True)
    binds = []
    for name, content in sorted(fonts.items()):
        (folder / name).write_bytes(content)
        binds += ["--ro-bind", str(folder / name), str(folder / name)]
    return with_box_args(prefix, binds)


def probe(private: Path) -> Sandbox:
    """Bubblewrap if it starts this Python in its box here (Linux with user namespaces), else why not. Run by root,
    bubblewrap starts as ``kernel_user`` where that user can run it: Linux exempts root from ``RLIMIT_NPROC``, in
    every user namespace whose processes are root's, so only then does the box's process limit bind a fork bomb."""
    if not sys.platform.startswith("linux"):
        return Sandbox("none", f"bubblewrap runs on Linux only, not on {sys.platform}")
    if shutil.which(BWRAP) is None:
        return Sandbox("none", "bubblewrap (bwrap) is not installed")
    user, why_not = kernel_user()
    if user is not None:
        failed = _start(private, user)
        if not failed:
            return Sandbox("bubblewrap", user=user)
        why_not = f"as root: bubblewrap could not start as {KERNEL_USER} ({failed})"
    failed = _start(private, None)
    if failed:
        return Sandbox("none", failed)
    if os.geteuid() != 0:
        return Sandbox("bubblewrap")
    return Sandbox("bubblewrap", why_not.removeprefix("as root").lstrip(": ").removeprefix("(").removesuffix(")"))


def _start(private: Path, user: tuple[int, int] | None) -> str:
    """Why bubblewrap (run as ``user``, else as this user) cannot start this Python in its box; "" if it can."""
    owner = [] if user is None else confine(sys.executable, user=(*user, private))
    try:
        done = subprocess.run([*owner, *bwrap_prefix(private), sys.executable, "-I", "-B", "-c", "import ipykernel"],
                              capture_output=True, text=True, timeout=PROBE_TIMEOUT, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap could not start: {type(exc).__name__}"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        return f"bubblewrap could not start here: {last[:200]}"
    return ""
