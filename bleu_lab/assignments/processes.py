"""Every process a submission started is gone before the next one runs.

On Linux the grader makes itself a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``): a process that a kernel
started and left behind (forked, ``setsid``, its parent gone) is re-parented to the grader instead of to init, so it
stays in the grader's tree of descendants whatever session or process group it moved to. After each submission the
grader stops and kills every descendant it did not have before the batch, until none is left, and reaps them.
Elsewhere only the kernel's process group is killed (see the instructor guide).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time
from collections.abc import Iterator

PR_SET_CHILD_SUBREAPER = 36
PR_GET_CHILD_SUBREAPER = 37
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
    """Make this process the subreaper of its descendants for the block (True if it could); restore after."""
    prctl = _prctl()
    if prctl is None:
        yield False
        return
    was = ctypes.c_int(0)
    prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(was), 0, 0, 0)
    ok = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    try:
        yield ok
    finally:
        if ok and not was.value:
            prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)


def _parents() -> dict[int, int]:
    """Each process's parent (from /proc), zombies left out."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read().decode("ascii", "replace")
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()  # after "pid (name) ": state, ppid, ...
        if len(fields) > 1 and fields[0] != "Z":
            found[int(entry)] = int(fields[1])
    return found


def descendants(pid: int | None = None) -> set[int]:
    """The living processes below ``pid`` (default: this one); empty where /proc cannot be read."""
    pid = os.getpid() if pid is None else pid
    if not os.path.isdir("/proc/self"):
        return set()
    parents = _parents()
    children: dict[int, list[int]] = {}
    for child, parent in parents.items():
        children.setdefault(parent, []).append(child)
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _reap(pids: set[int]) -> None:
    """Collect those of ``pids`` that are finished children of this process (re-parented to it, now zombies)."""
    for pid in pids:
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, os.WNOHANG)


def end_leftovers(keep: set[int]) -> int:
    """Kill every descendant of this process not in ``keep``, until none is left; how many were killed."""
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
