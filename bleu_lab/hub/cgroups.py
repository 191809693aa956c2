"""Control groups, as Linux mounts them: which hierarchies there are (cgroup v2, and v1's controllers beside it),
where this process's own cgroup is in each, and ``Cgroup``: a cgroup of ours made in each, with limits where a
controller allows, that ends every process in it. Used by the hub's fallback spawner (a cgroup per student), by the
grader (a cgroup per kernel, whose ``pids.max`` binds root too) and by the benchmarks (the CPU time of a whole process
tree, whatever reaped it)."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

PERIOD_US = 100_000  # the CPU quota's period: 100 ms, as systemd's CPUQuota= uses
CPU_SHARES, CPU_WEIGHT = "1024", "100"  # one cgroup's CPU weight among its siblings (v1, v2): the defaults, said


@dataclass(frozen=True)
class Hierarchy:
    """A mounted cgroup hierarchy: its version, the v1 controllers it carries, and this process's own cgroup folder."""

    version: int  # 1 or 2
    controllers: frozenset[str]  # v1: the controllers mounted there (v2: read from cgroup.controllers instead)
    own: Path  # this process's cgroup in it, as a folder under its mount point

    @property
    def delegated(self) -> bool:
        """Whether this process may make cgroups below its own and move its processes into them: root, or a user to
        whom the folder and its ``cgroup.procs`` are delegated (owned by it, say chowned by root or by systemd's
        ``Delegate=yes``)."""
        return os.access(self.own, os.W_OK | os.X_OK) and os.access(self.own / "cgroup.procs", os.W_OK)


def hierarchies(mountinfo: str, proc_cgroup: str,
                controllers: frozenset[str] = frozenset({"memory", "cpu"})) -> list[Hierarchy]:
    """The cgroup hierarchies of ``/proc/self/mountinfo`` (v2, and v1's that carry one of ``controllers``), each
    with the folder of the process's own cgroup in it (from ``/proc/self/cgroup``: ``ID:CONTROLLERS:PATH``,
    ``0::PATH`` for v2). A mount whose root is a sub-cgroup (a container's view) is placed by the path relative to
    that root."""
    own_v1: dict[frozenset[str], str] = {}
    own_v2 = None
    for line in proc_cgroup.splitlines():
        number, names, path = line.split(":", 2)
        if number == "0" and not names:
            own_v2 = path
        else:
            own_v1[frozenset(names.split(","))] = path
    found = []
    for line in mountinfo.splitlines():
        fields = line.split()
        if "-" not in fields:
            continue
        dash = fields.index("-")
        root, mount, fstype, super_options = fields[3], Path(fields[4]), fields[dash + 1], fields[dash + 3]
        if fstype == "cgroup2" and own_v2 is not None:
            version, carried, path = 2, frozenset(), own_v2
        elif fstype == "cgroup":
            carried = frozenset(super_options.split(",")) & controllers
            path = next((p for names, p in own_v1.items() if carried and carried <= names), None)
            if path is None:
                continue
            version = 1
        else:
            continue
        inside = path == root or path.startswith(root.rstrip("/") + "/")
        found.append(Hierarchy(version, carried, mount / os.path.relpath(path, root) if inside else mount))
    return found


def write_value(path: Path, value: str) -> None:
    """Write ``value`` to a cgroup file in one ``write(2)``, as the cgroup files want."""
    with open(path, "w") as f:
        f.write(value)


def own_hierarchies(controllers: frozenset[str] = frozenset({"memory", "cpu"})) -> list[Hierarchy]:
    """``hierarchies`` of this process, read from ``/proc/self`` ([] where there is none, as off Linux)."""
    try:
        return hierarchies(Path("/proc/self/mountinfo").read_text(), Path("/proc/self/cgroup").read_text(),
                           controllers)
    except OSError:
        return []


@dataclass
class Cgroup:
    """A cgroup's folders, one per usable hierarchy, and the limits each one enforces."""

    folders: list[tuple[Path, int]] = field(default_factory=list)  # (folder, cgroup version)
    memory: Path | None = None  # the folder whose memory limit is set
    cpu: Path | None = None  # the folder whose CPU quota is set
    processes: Path | None = None  # the folder whose process limit (pids.max) is set
    weighted: Path | None = None  # the folder whose CPU weight is set (an equal share among its siblings)
    problems: list[str] = field(default_factory=list)  # what could not be made, and why

    @classmethod
    def make(cls, name: str, mem_limit: int | None, cpu_limit: float | None, parent: str,
             found: list[Hierarchy] | None = None, pids_limit: int | None = None, weight: bool = False,
             oom_group: bool = False) -> Cgroup:
        """Create ``PARENT/NAME`` under this process's own cgroup in each writable hierarchy (emptied of any process
        a crashed owner left there), with the memory limit (bytes), CPU quota (cores) and process limit where a
        controller allows; ``weight``: the CPU weight written (an equal share with each sibling cgroup, however many
        processes each holds); ``oom_group``: on v2, the out-of-memory killer ends the whole cgroup at once
        (``memory.oom.group``; on v1 it ends the largest process inside the cgroup)."""
        if found is None:
            found = own_hierarchies(frozenset({"memory", "cpu", *(["pids"] if pids_limit else [])}))
        group = cls()
        for hierarchy in sorted(found, key=lambda h: -h.version):  # v2 first: it tracks, and kills in one write
            folder = hierarchy.own / parent / name
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                group.problems.append(f"cannot create {folder}: {err.strerror}")
                continue
            group.folders.append((folder, hierarchy.version))
            if hierarchy.version == 2:
                wanted = {kind for kind, limit in (("memory", mem_limit), ("cpu", cpu_limit or weight),
                                                   ("pids", pids_limit)) if limit}
                available = _enable_v2(hierarchy.own, folder, group.problems, wanted)
            else:
                available = hierarchy.controllers
            if mem_limit and group.memory is None and "memory" in available:
                limit = "memory.max" if hierarchy.version == 2 else "memory.limit_in_bytes"
                group.memory = _limit(folder, limit, str(int(mem_limit)), group.problems)
                if group.memory and oom_group and hierarchy.version == 2:
                    _limit(folder, "memory.oom.group", "1", group.problems)
            if weight and group.weighted is None and "cpu" in available:
                group.weighted = _limit(folder, *(("cpu.weight", CPU_WEIGHT) if hierarchy.version == 2 else
                                                  ("cpu.shares", CPU_SHARES)), group.problems)
            if cpu_limit and group.cpu is None and "cpu" in available:
                quota = str(max(1000, round(cpu_limit * PERIOD_US)))
                if hierarchy.version == 2:
                    group.cpu = _limit(folder, "cpu.max", f"{quota} {PERIOD_US}", group.problems)
                elif _limit(folder, "cpu.cfs_period_us", str(PERIOD_US), group.problems):
                    group.cpu = _limit(folder, "cpu.cfs_quota_us", quota, group.problems)
            if pids_limit and group.processes is None and "pids" in available:
                group.processes = _limit(folder, "pids.max", str(int(pids_limit)), group.problems)
        for controller, wanted, got in (("memory", mem_limit, group.memory), ("cpu", cpu_limit, group.cpu),
                                        ("cpu", weight, group.weighted), ("pids", pids_limit, group.processes)):
            if wanted and got is None and group.folders and not any(controller in p for p in group.problems):
                group.problems.append(f"no cgroup hierarchy here gives the {controller} controller")
        group.end()  # nothing starts beside what a previous owner left
        return group

    def join(self, pid: int) -> None:
        """Move process ``pid`` into every folder (as root; e.g. a server's process, between fork and exec)."""
        for folder, _ in self.folders:
            write_value(folder / "cgroup.procs", str(pid))

    def pids(self) -> set[int]:
        found = set()
        for folder, _ in self.folders:
            with contextlib.suppress(FileNotFoundError):
                found |= {int(p) for p in (folder / "cgroup.procs").read_text().split()}
        return found

    def end(self, timeout: float = 10) -> set[int]:
        """Kill every process in the cgroup (``cgroup.kill`` where v2 has it, else SIGKILL each pid until none is
        left, as a fork between reading and killing adds one); return the pids that outlived ``timeout``."""
        v2 = next((folder for folder, version in self.folders if version == 2), None)
        deadline = time.monotonic() + timeout
        while (left := self.pids()) and time.monotonic() < deadline:
            if v2 is not None and (v2 / "cgroup.kill").exists():
                write_value(v2 / "cgroup.kill", "1")
            else:
                for pid in left:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
            time.sleep(0.05)
        return self.pids()

    def remove(self, parent: bool = True) -> None:
        """Remove the (empty) folders, and (``parent``) the parent where no other cgroup is left in it."""
        for folder, _ in self.folders:
            for path in (folder, folder.parent) if parent else (folder,):
                with contextlib.suppress(FileNotFoundError, OSError):
                    path.rmdir()


def memory_available(found: list[Hierarchy] | None = None) -> int | None:
    """The bytes of memory this process and its descendants may use: the machine's (``MemTotal``), or less where a
    cgroup above it has a lower limit (v1: ``hierarchical_memory_limit``; v2: the lowest ``memory.max`` from its own
    cgroup up). None where neither can be read (not Linux)."""
    if found is None:
        found = own_hierarchies(frozenset({"memory"}))
    limits = []
    with contextlib.suppress(OSError, ValueError, StopIteration):
        total = next(line for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal:"))
        limits.append(int(total.split()[1]) * 1024)
    for hierarchy in found:
        if hierarchy.version == 1 and "memory" in hierarchy.controllers:
            with contextlib.suppress(OSError, ValueError):
                for line in (hierarchy.own / "memory.stat").read_text().splitlines():
                    if line.startswith("hierarchical_memory_limit "):
                        limits.append(int(line.split()[1]))
        elif hierarchy.version == 2:
            for folder in (hierarchy.own, *hierarchy.own.parents):
                try:
                    value = (folder / "memory.max").read_text().strip()
                except OSError:
                    break  # the top of the hierarchy (no memory.max) or above its mount
                if value.isdigit():
                    limits.append(int(value))
    return min(limits, default=None)


def _enable_v2(own: Path, folder: Path, problems: list[str], wanted: set[str]) -> frozenset[str]:
    """Make cgroup v2's ``wanted`` controllers available in ``folder`` (``own/PARENT/NAME``): enabled in the
    subtree_control of ``own`` and of the parent. Writing ``own``'s fails (EBUSY) where this process's own cgroup
    holds processes and is not the root (v2 lets no cgroup have both processes and controlled children)."""
    wanted = set(wanted) & set((own / "cgroup.controllers").read_text().split())
    for level in (own, folder.parent):
        for controller in sorted(wanted):
            if controller in (level / "cgroup.subtree_control").read_text().split():
                continue
            try:
                write_value(level / "cgroup.subtree_control", f"+{controller}")
            except OSError as err:
                problems.append(f"cannot enable the {controller} controller in {level}: {err.strerror}")
    return frozenset((folder / "cgroup.controllers").read_text().split())


def _limit(folder: Path, name: str, value: str, problems: list[str]) -> Path | None:
    try:
        write_value(folder / name, value)
    except OSError as err:
        problems.append(f"cannot write {value} to {folder / name}: {err.strerror}")
        return None
    return folder
