"""The students' servers where the hub's machine has no systemd: a cgroup per student, as SystemdSpawner's unit is.

SystemdSpawner (jupyterhub-systemdspawner) runs each student's server in a systemd unit: ``MemoryMax=`` and
``CPUQuota=`` limit everything the student runs, together, and ``systemctl stop`` ends every process in the unit's
cgroup (systemd's default ``KillMode=control-group``), whatever left the server's process group or session.
JupyterHub's LocalProcessSpawner, the fallback without systemd, does neither: it ignores ``mem_limit`` and
``cpu_limit`` and, on stop, signals only the server's own process (SIGINT, SIGTERM, SIGKILL to its pid), so a
kernel's children and whatever a student started with ``setsid`` or ``nohup`` keep running after the culler stopped
the server.

``FallbackSpawner`` is LocalProcessSpawner with what the unit gave, done by hand in the kernel's cgroup files (as
root, the hub's usual user with local accounts):

- before the server starts, a cgroup for the student under the hub's own cgroup (so a limit set on the hub, a
  container's or a slice's, still covers its students), in each hierarchy the machine lets root write: cgroup v2
  (``/sys/fs/cgroup``, or ``/sys/fs/cgroup/unified`` beside v1) and, where memory or cpu are v1 controllers, their
  v1 hierarchies. Limits where a controller allows: ``memory.max`` (v2) or ``memory.limit_in_bytes`` (v1) = the
  spawner's ``mem_limit``, for all the student's processes together (RAM; swap is not limited, as with
  ``MemoryMax=``); ``cpu.max`` (v2) or ``cpu.cfs_quota_us`` (v1) = ``cpu_limit`` cores per 100 ms period
  (systemd's ``CPUQuota=``). The server's process joins them between fork and exec, as root, before it becomes the
  student, so every process it starts is born inside (a process cannot leave a cgroup without root);
- after the server stops (the culler's, an admin's or the hub's stop, or its own exit, which the hub's poll finds),
  every process left in the cgroup is killed (``cgroup.kill`` on v2, SIGKILL to each pid in ``cgroup.procs`` on v1
  until none is left), and the cgroup is removed; a server that exited while the hub was down leaves its processes
  until the student's next server starts, which first empties the cgroup;
- where no cgroup can be made (not root, or ``/sys/fs/cgroup`` read-only, as in an unprivileged container), no limit
  is enforced, and after the server stops every remaining process of the student's own uid is killed (each student
  is a local account: with LocalProcessSpawner nothing else of the hub's runs as them; a student's own ssh session
  on the same machine would end too).

What the machine allows is probed once, at the hub's start (``probe``), and said in one line (``describe``).
"""

from __future__ import annotations

import asyncio
import os
import pwd
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from jupyterhub.spawner import LocalProcessSpawner
from traitlets import Unicode

from .cgroups import Cgroup, Hierarchy, hierarchies

StudentCgroup = Cgroup  # one student's cgroup: made, joined, ended and removed by the spawner

CGROUP_PARENT = "bleu-lab-hub"  # the folder, under the hub's own cgroup, that holds one cgroup per student


def end_uid(uid: int, timeout: float = 10) -> set[int]:
    """SIGKILL every process whose real or effective uid is ``uid`` (never root's or the hub's own), until none is
    left or ``timeout``; return the pids still there."""
    if uid in (0, os.getuid()):
        raise ValueError(f"uid: refusing to kill every process of uid {uid} (root's or the hub's own)")
    deadline = time.monotonic() + timeout
    while (left := _pids_of(uid)) and time.monotonic() < deadline:
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            except PermissionError:  # the hub is not root: nothing of the student's can be ended
                return _pids_of(uid)
        time.sleep(0.05)
    return _pids_of(uid)


def _pids_of(uid: int) -> set[int]:
    found = set()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            status = Path(entry.path, "status").read_text()
        except OSError:  # gone meanwhile
            continue
        fields = {line.split(":", 1)[0]: line.split()[1:] for line in status.splitlines() if ":" in line}
        if str(uid) in fields.get("Uid", [])[:2] and fields.get("State", ["Z"])[0] != "Z":  # real or effective uid
            found.add(int(entry.name))
    return found


@dataclass(frozen=True)
class Probe:
    """What a student's cgroup gets on this machine (from making and removing one, at the hub's start)."""

    tracked: bool  # every process of a server is in a cgroup the hub ends
    memory: bool
    cpu: bool
    problems: tuple[str, ...]


def probe(parent: str = CGROUP_PARENT, found: list[Hierarchy] | None = None) -> Probe:
    """Make a student's cgroup with a 1 GB limit and a 1-core quota, see what took, remove it."""
    try:
        group = StudentCgroup.make(f"probe-{os.getpid()}", 2**30, 1.0, parent, found)
    except OSError as err:  # no /proc/self/mountinfo: not Linux
        return Probe(False, False, False, (f"no cgroups: {err}",))
    group.remove()
    return Probe(bool(group.folders), group.memory is not None, group.cpu is not None, tuple(group.problems))


def describe(found: Probe, mem_limit: object, cpu_limit: object) -> str:
    """One line for the hub's log: what is enforced in the fallback, and what is not."""
    stop = ("when the hub stops a server (the idle culler, an admin, the hub's shutdown) every process of it ends, "
            "including those that left its session (setsid, nohup)")
    if not found.tracked:
        return (f"no systemd and no writable cgroup here ({'; '.join(found.problems) or 'not Linux'}), so "
                f"mem_limit ({mem_limit}) and cpu_limit ({cpu_limit}) are NOT enforced; {stop}: every process of the "
                "student's uid is killed after the server stops")
    limits = {"mem_limit": (mem_limit, found.memory), "cpu_limit": (cpu_limit, found.cpu)}
    enforced = [f"{name} {value}" for name, (value, took) in limits.items() if took]
    missing = [f"{name} ({value})" for name, (value, took) in limits.items() if not took]
    said = f"{' and '.join(enforced)} enforced on all of a student's processes together" if enforced else ""
    unsaid = f"{' and '.join(missing)} NOT enforced ({'; '.join(found.problems)})" if missing else ""
    return (f"no systemd, so each student's server runs in a cgroup of its own ({CGROUP_PARENT}/NAME under the "
            f"hub's cgroup): {', '.join(x for x in (said, unsaid) if x)}; {stop}")


_UNKNOWN = object()  # a server started before the hub restarted: its cgroup is found again by the student's name


class FallbackSpawner(LocalProcessSpawner):
    """LocalProcessSpawner with a cgroup per student: ``mem_limit`` and ``cpu_limit`` enforced where the machine's
    cgroups allow, and every process of a server ended when it stops or exits (module docstring)."""

    cgroup_parent = Unicode(CGROUP_PARENT, help="The folder, under the hub's own cgroup, that holds one cgroup "
                            "per student.").tag(config=True)
    _cgroup = _UNKNOWN  # the running server's StudentCgroup; None once its processes were ended

    def student_cgroup(self) -> StudentCgroup:
        return StudentCgroup.make(self.user.name, self.mem_limit, self.cpu_limit, self.cgroup_parent)

    async def start(self):
        self._cgroup = await asyncio.to_thread(self.student_cgroup)
        for problem in self._cgroup.problems:
            self.log.warning("%s's cgroup: %s", self.user.name, problem)
        return await super().start()

    def make_preexec_fn(self, name):
        become_student = super().make_preexec_fn(name)
        group = self._cgroup

        def preexec():
            group.join(os.getpid())  # still root: into the cgroup before becoming the student
            become_student()

        return preexec

    async def poll(self):
        """As LocalProcessSpawner's; and once the server's process is gone (stopped, or exited by itself: the hub
        then never calls ``stop``), what it left is ended."""
        status = await super().poll()
        if status is not None and isinstance(self._cgroup, StudentCgroup):
            await asyncio.to_thread(self.end_processes)
        return status

    async def stop(self, now=False):
        await super().stop(now=now)
        if self._cgroup is not None:  # not yet ended by poll (or started before the hub restarted)
            await asyncio.to_thread(self.end_processes)

    def end_processes(self) -> None:
        """After the server stopped: kill what is left of it (its cgroup's processes, else its uid's)."""
        group = self._cgroup if isinstance(self._cgroup, StudentCgroup) else self.student_cgroup()
        self._cgroup = None
        if group.folders:
            left = group.end()
            group.remove()
        else:
            try:
                left = end_uid(pwd.getpwnam(self.user.name).pw_uid)
            except (KeyError, ValueError) as err:
                self.log.warning("%s: processes not ended after the server stopped: %s", self.user.name, err)
                return
        if left:
            self.log.warning("%s: processes %s outlived SIGKILL", self.user.name, sorted(left))


__all__ = ["FallbackSpawner", "Hierarchy", "Probe", "StudentCgroup", "describe", "end_uid", "hierarchies", "probe"]
