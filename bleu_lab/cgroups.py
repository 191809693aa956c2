"""Control groups, as Linux mounts them: which hierarchies there are (cgroup v2, and v1's memory and cpu
controllers beside it) and where this process's own cgroup is in each. Used by the hub's fallback spawner (a cgroup
per student) and by the benchmarks (the CPU time of a whole process tree, whatever reaped it)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Hierarchy:
    """A mounted cgroup hierarchy: its version, the v1 controllers it carries, and this process's own cgroup folder."""

    version: int  # 1 or 2
    controllers: frozenset[str]  # v1: the controllers mounted there (v2: read from cgroup.controllers instead)
    own: Path  # this process's cgroup in it, as a folder under its mount point


def hierarchies(mountinfo: str, proc_cgroup: str) -> list[Hierarchy]:
    """The cgroup hierarchies of ``/proc/self/mountinfo``, each with the folder of the process's own cgroup in it
    (from ``/proc/self/cgroup``: ``ID:CONTROLLERS:PATH``, ``0::PATH`` for v2). A mount whose root is a sub-cgroup
    (a container's view) is placed by the path relative to that root."""
    own_v1: dict[frozenset[str], str] = {}
    own_v2 = None
    for line in proc_cgroup.splitlines():
        number, controllers, path = line.split(":", 2)
        if number == "0" and not controllers:
            own_v2 = path
        else:
            own_v1[frozenset(controllers.split(","))] = path
    found = []
    for line in mountinfo.splitlines():
        fields = line.split()
        if "-" not in fields:
            continue
        dash = fields.index("-")
        root, mount, fstype, super_options = fields[3], Path(fields[4]), fields[dash + 1], fields[dash + 3]
        if fstype == "cgroup2" and own_v2 is not None:
            version, controllers, path = 2, frozenset(), own_v2
        elif fstype == "cgroup":
            controllers = frozenset(super_options.split(",")) & {"memory", "cpu"}
            path = next((p for names, p in own_v1.items() if controllers and controllers <= names), None)
            if path is None:
                continue
            version = 1
        else:
            continue
        inside = path == root or path.startswith(root.rstrip("/") + "/")
        found.append(Hierarchy(version, controllers, mount / os.path.relpath(path, root) if inside else mount))
    return found


def write_value(path: Path, value: str) -> None:
    """Write ``value`` to a cgroup file in one ``write(2)``, as the cgroup files want."""
    with open(path, "w") as f:
        f.write(value)


def own_hierarchies() -> list[Hierarchy]:
    """``hierarchies`` of this process, read from ``/proc/self`` ([] where there is none, as off Linux)."""
    try:
        return hierarchies(Path("/proc/self/mountinfo").read_text(), Path("/proc/self/cgroup").read_text())
    except OSError:
        return []
