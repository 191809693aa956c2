"""Every process a submission started is gone before the next one runs.

On Linux the grader makes itself a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``): a process that a kernel
started and left behind (forked, ``setsid``, its parent gone) is re-parented to the grader instead of to init, so it
stays in the grader's tree of descendants whatever session or process group it moved to. After each submission the
grader stops and kills every descendant it did not have before the batch, until none is left, and reaps them.
Elsewhere only the kernel's process group is killed (see the instructor guide).

Descendants are found in two views of ``/proc`` joined (each thread's ``children`` and each process's parent), and
a process counts as running while any of its threads does: a leader that ended with the raw ``exit`` system call
shows as a zombie while its other threads (and their children) run on. Where the system allows it without
bubblewrap, each kernel also gets its own PID namespace (``pid_namespace``: util-linux ``unshare``), so that every
process it starts dies with it; the /proc walk is what holds where it cannot (a container without user namespaces).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

from .limits import protect_grader

PR_SET_CHILD_SUBREAPER = 36
PR_GET_CHILD_SUBREAPER = 37
PR_SET_DUMPABLE, PR_GET_DUMPABLE = 4, 3
UNSHARE = "unshare"
EXIT_GRACE = 2.0  # seconds a process on its way out gets to finish exiting before it counts as left behind
SIGKILL_BIT = 1 << (signal.SIGKILL - 1)  # in /proc/PID/status's pending-signal masks
KILL_ROUNDS = 50  # a process that forks while being killed: its children are killed in the next round


def _prctl():
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


@contextlib.contextmanager
def subreaper() -> Iterator[bool]:
    """For the block, this process is the subreaper of its descendants (True if it could), not dumpable (no process
    of its user may ptrace it or read its memory) and the OOM killer's last choice (``limits.protect_grader``);
    all restored after."""
    prctl = _prctl()
    if prctl is None:
        yield False
        return
    was = ctypes.c_int(0)
    prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(was), 0, 0, 0)
    ok = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0)
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    try:
        with protect_grader():
            yield ok
    finally:
        if dumpable == 1:
            prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
        if ok and not was.value:
            prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)


@functools.cache
def pid_namespace() -> tuple[list[str], str]:
    """A command prefix that starts a command as PID 1 of a PID namespace of its own (its own /proc where allowed),
    ended with everything in it when the prefix's process ends, and a line for the report; ``([], why not)`` where
    this system allows none (no util-linux ``unshare``, or user namespaces forbidden, as in many containers)."""
    if not sys.platform.startswith("linux"):
        return [], f"PID namespaces are Linux's, not {sys.platform}'s"
    unshare = shutil.which(UNSHARE)
    if unshare is None:
        return [], "util-linux unshare is not installed"
    user = [] if os.geteuid() == 0 else ["--user", "--map-current-user"]
    why = ""
    for extra in (["--mount-proc"], []):
        argv = [unshare, *user, "--pid", "--fork", "--kill-child", *extra]
        try:
            done = subprocess.run([*argv, sys.executable, "-I", "-S", "-c", "import os; assert os.getpid() == 1"],
                                  capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return [], f"unshare could not start: {type(exc).__name__}"
        if done.returncode == 0:
            return argv, "its own PID namespace (unshare" + (", its own /proc)" if extra else ")")
        why = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1][:200]
    return [], f"no PID namespace: {why}"


def _stat(path: str) -> tuple[str, int] | None:
    """The state letter and parent PID in a ``/proc/.../stat`` file (None if it cannot be read)."""
    try:
        with open(path, "rb") as f:
            stat = f.read().decode("ascii", "replace")
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2:].split()  # after "pid (name) ": state, ppid, ...
    return (fields[0], int(fields[1])) if len(fields) > 1 and fields[1].lstrip("-").isdigit() else None


def alive(pid: int) -> bool:
    """Whether any thread of process ``pid`` still runs. A leader that ended with the raw ``exit`` system call shows
    as a zombie ("Z") while its other threads run on: every thread in ``/proc/PID/task`` is looked at."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for tid in tasks:
        found = _stat(f"/proc/{pid}/task/{tid}/stat")
        if found is not None and found[0] not in "ZXx":
            return True
    return False


def children_of(pid: int) -> set[int]:
    """The children of every thread of ``pid`` (``/proc/PID/task/*/children``; a child forked by any thread)."""
    found: set[int] = set()
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                found.update(int(child) for child in f.read().split())
        except (OSError, ValueError):
            continue
    return found


def _parents() -> dict[int, int]:
    """Each process's parent (from every ``/proc/PID/stat``, zombie-looking ones included)."""
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (stat := _stat(f"/proc/{entry}/stat")) is not None:
            found[int(entry)] = stat[1]
    return found


def descendants(pid: int | None = None) -> set[int]:
    """The processes below ``pid`` (default: this one) with a thread still running; empty where /proc cannot be read.

    Two views of the tree, joined: each thread's ``children`` file and each process's parent in its ``stat``; a
    process is followed whatever its state (a zombie-looking leader may have live threads and children), and
    counted if ``alive``."""
    pid = os.getpid() if pid is None else pid
    if not os.path.isdir("/proc/self"):
        return set()
    children: dict[int, set[int]] = {}
    for child, parent in _parents().items():
        children.setdefault(parent, set()).add(child)
    seen, todo = set(), [pid]
    while todo:
        here = todo.pop()
        for child in children.get(here, set()) | children_of(here):
            if child not in seen and child != pid:
                seen.add(child)
                todo.append(child)
    return {child for child in seen if alive(child)}


def _reap(pids: set[int]) -> None:
    """Collect those of ``pids`` that are finished children of this process (re-parented to it, now zombies)."""
    for pid in pids:
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, os.WNOHANG)


def _exiting(pid: int) -> bool:
    """Whether ``pid`` is on its way out: its leader thread has ended (state "Z") while some thread still winds down,
    or a SIGKILL is pending for it (sent, not yet acted on: a kernel's launcher killed a moment ago)."""
    found = _stat(f"/proc/{pid}/stat")
    if found is not None and found[0] in "ZXx":
        return True
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            status = f.read().decode("ascii", "replace")
    except OSError:
        return True  # gone already
    for line in status.splitlines():
        name, _, mask = line.partition(":")
        if name in ("SigPnd", "ShdPnd") and int(mask.strip() or "0", 16) & SIGKILL_BIT:
            return True
    return False


def end_leftovers(keep: set[int], grace: float = EXIT_GRACE) -> int:
    """Kill every descendant of this process not in ``keep``, until none is left; how many were killed. A process
    whose leader has ended is given ``grace`` seconds to finish exiting first (a kernel's launcher, just killed, is
    not a leftover); one that is still running after that (a leader ended by the raw ``exit`` system call while a
    thread works on) is killed and counted like any other."""
    deadline = time.monotonic() + grace
    while (left := descendants() - keep) and all(_exiting(pid) for pid in left) and time.monotonic() < deadline:
        _reap(left)
        time.sleep(0.02)
    killed: set[int] = set()
    for _ in range(KILL_ROUNDS):
        left = descendants() - keep
        if not left:
            break
        for pid in left:  # stop them all first, so that none forks or runs while the others die
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGSTOP)
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        killed |= left
        time.sleep(0.02)
        _reap(killed)
    _reap(killed)
    return len(killed)
