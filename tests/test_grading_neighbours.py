"""The attacks of issue 43 on a classmate graded beside: what one notebook does with the CPU, memory or disk never
lowers the mark of a solved notebook graded at the same time (``bleu-lab grade --jobs 2``).

The grader runs in a cgroup this test makes, as on a course server whose grader has one CPU and a memory cap (a
systemd slice, a container): 1 CPU (``cpu.cfs_quota_us`` / ``cpu.max``) and ``MEMORY_CAP`` bytes. One batch holds
each attack followed by a solved lesson 3, so that each solved one is graded beside an attack:

- 120 busy-looping processes, each in a session of its own, then a sleep (once a classmate's 5 / 5 became 0 / 5:
  "interrupted: it ran longer than the time limit");
- 120 processes of 20 MB each, more than the cap: the out-of-memory killer once took the classmate's kernel, the
  largest process with the same ``oom_score_adj``;
- 300 MB written into the kernel's sockets folder, once on the grader's disk outside every limit.

Without bubblewrap (``--jobs 1`` only: a notebook's processes are all ended before the next runs) the sockets folder
is bounded too. Each batch runs twice: as root, and as ``nobody`` (with a Python every user can run), in the same
cgroup delegated to it (the folders and their ``cgroup.procs`` chowned, as systemd's ``Delegate=yes`` does): the
grader makes the kernels' cgroups there, and under bubblewrap the sockets folder is a tmpfs of the box's own; without
bubblewrap nothing bounds it, and the report says so. Only root makes the test's cgroups: elsewhere these tests skip.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from test_grading_attacks import REPO, SEED, _nb, _need, _reports, _with_cell, _write

from bleu_lab.assignments import sandbox
from bleu_lab.assignments.release import release
from bleu_lab.hub.cgroups import Cgroup, own_hierarchies

L0, L3 = "00_start_here", "03_brevity_penalty"
TIMEOUT = 30  # seconds to run one notebook, and again to mark it: the solved lesson 3 needs a few CPU seconds
MEMORY_CAP = 2 * 1024 ** 3  # the grader's cgroup (grader, workers, kernels): less than the spread below
SOLVED = "score: 5 / 5  (+ 1 to grade by hand)"

CPU_HOG = """\
import subprocess, sys, time
for _ in range(120):
    subprocess.Popen([sys.executable, "-S", "-c", "import os; os.setsid()\\nwhile True: pass"])
time.sleep(10 ** 6)
"""
MEMORY_SPREAD = """\
import subprocess, sys
ALLOCATE = "b = bytearray(20 * 2 ** 20)\\nfor i in range(0, len(b), 4096): b[i] = 1\\nimport time\\ntime.sleep(10 ** 6)"
children = [subprocess.Popen([sys.executable, "-S", "-c", ALLOCATE]) for _ in range(120)]
for child in children:
    child.wait()
"""
SOCKETS_FILL = """\
import os
from ipykernel.kernelapp import IPKernelApp
folder = os.path.dirname(IPKernelApp.instance().connection_file)
chunk = b"\\0" * (1 << 20)
with open(os.path.join(folder, "fill"), "wb") as f:
    for _ in range(300):
        f.write(chunk)
"""


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    outdir = tmp_path_factory.mktemp("course")
    release(outdir, REPO / "notebooks")
    return outdir


@pytest.fixture(scope="module")
def nobody(tmp_path_factory):
    """A folder every user can reach, with a Python ``nobody`` can run (``reachable_environment``: this one, or a
    copy where it lies under /root), and nobody's (uid, gid)."""
    from hub_harness import reachable_environment

    try:
        entry = pwd.getpwnam(sandbox.KERNEL_USER)
    except KeyError:
        pytest.skip(f"this system has no user {sandbox.KERNEL_USER!r}")
    shared = Path(tempfile.mkdtemp(prefix="bl-neighbours-", dir="/tmp"))
    try:
        shared.chmod(0o755)
        bin_dir, extra = reachable_environment(shared)
        yield {"shared": shared, "bin": bin_dir, "env": extra, "user": (entry.pw_uid, entry.pw_gid)}
    finally:
        shutil.rmtree(shared, ignore_errors=True)


@contextlib.contextmanager
def capped(name: str, owner: tuple[int, int] | None = None):
    """A cgroup of 1 CPU and ``MEMORY_CAP`` bytes under this process's own, delegated to ``owner`` (uid, gid) where
    given (its folders and the files that move a process chowned, as systemd's ``Delegate=yes``; its limits stay
    root's); ended and removed after (with the kernels' parent folder the grader leaves inside)."""
    group = Cgroup.make(name, MEMORY_CAP, 1.0, "bleu-lab-tests", own_hierarchies(frozenset({"memory", "cpu", "pids"})))
    try:
        if group.cpu is None or group.memory is None:
            pytest.skip(f"no cgroup with a CPU quota and a memory limit here: {'; '.join(group.problems)}")
        for folder, _ in group.folders if owner else ():
            for path in (folder, *(folder / name for name in ("cgroup.procs", "tasks", "cgroup.threads",
                                                                "cgroup.subtree_control"))):
                with contextlib.suppress(FileNotFoundError):
                    os.chown(path, *owner)
        yield group
    finally:
        group.end()
        for folder, _ in group.folders:
            for inside, _, _ in sorted(os.walk(folder), reverse=True)[:-1]:
                with contextlib.suppress(OSError):
                    os.rmdir(inside)
        group.remove()


def _grade(paths: list[Path], mode: str, jobs: int, cwd: Path, group: Cgroup,
           user: dict | None = None) -> subprocess.CompletedProcess:
    """``bleu-lab grade`` in ``group``: as root, or as ``user`` (the ``nobody`` fixture), moved there by root first."""
    bin_dir = Path(sys.executable).parent if user is None else user["bin"]
    command = [str(bin_dir / "bleu-lab"), "grade", *map(str, paths), "--seed", str(SEED),
               "--timeout", str(TIMEOUT), "--sandbox", mode, "--jobs", str(jobs)]
    env = os.environ if user is None else {**os.environ, **user["env"], "HOME": str(cwd)}
    return subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=cwd, env=env,
                          preexec_fn=_starter(group, user))


def _starter(group: Cgroup, user: dict | None):
    """What a child runs before its command: join ``group`` as root (on v2, moving a process needs the cgroup above
    both), then become ``user`` where given."""
    def start() -> None:
        group.join(os.getpid())
        if user is not None:
            os.setgroups([])
            os.setgid(user["user"][1])
            os.setuid(user["user"][0])

    return start


@pytest.fixture(scope="module", params=["bubblewrap", "none", "bubblewrap as nobody", "none as nobody"])
def beside(request, course, tmp_path_factory):
    """Under bubblewrap, each attack then a solved lesson 3, two at a time (``--jobs 2``); without it (one at a
    time), the sockets folder's fill and a solved lesson 3. As root, or as nobody in a cgroup delegated to it."""
    mode, _, who = request.param.partition(" as ")
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        pytest.skip("only root makes the test's cgroups (the report says what is not enforced: the test below)")
    _need(mode)
    (kinds, why), (mounts, why_not) = sandbox.cgroup_bounds(), sandbox.sockets_tmpfs_works()
    if not kinds >= {"pids", "cpu", "memory"} or not mounts:
        pytest.skip(f"root, but the kernels' bounds cannot be made here: {why or why_not}")
    user = request.getfixturevalue("nobody") if who else None
    if user is None:
        inbox = tmp_path_factory.mktemp(f"neighbours-{mode}")
    else:
        inbox = Path(tempfile.mkdtemp(prefix=f"inbox-{mode}-", dir=user["shared"]))
    student, solved = _nb(course, "student", L0), _nb(course, "solved", L3)
    attacks = {"hog": CPU_HOG, "spread": MEMORY_SPREAD, "fill": SOCKETS_FILL} if mode == "bubblewrap" else {
        "fill": SOCKETS_FILL}
    paths = []
    for name, cell in attacks.items():
        paths.append(_write(inbox / name / f"{L0}.ipynb", _with_cell(student, cell)))
        paths.append(_write(inbox / f"beside-{name}" / f"{L3}.ipynb", solved))
    if user is not None:
        for top, folders, files in os.walk(inbox):
            for path in (top, *(os.path.join(top, name) for name in folders + files)):
                os.chown(path, *user["user"])
    with capped(f"{mode}-{who or 'root'}-{os.getpid()}", user and user["user"]) as group:
        done = _grade(paths, mode, 2 if mode == "bubblewrap" else 1, inbox, group, user)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    reports = {Path(r.splitlines()[0][3:].split(" (lesson")[0]).parent.name: r for r in _reports(done.stdout)[1:]}
    return {"mode": mode, "who": who or "root", "done": done, "reports": reports, "attacks": list(attacks)}


def _sockets_bounded(beside) -> bool:
    """Root mounts the sockets folder's tmpfs; another user has bubblewrap make it in the box, or nothing."""
    return beside["who"] == "root" or beside["mode"] == "bubblewrap"


def test_the_report_says_each_kernels_bounds(beside):
    header = beside["done"].stdout.splitlines()[1]
    jobs = 2 if beside["mode"] == "bubblewrap" else 1
    memory = min(sandbox.KERNEL_MEMORY, MEMORY_CAP // (jobs + 1)) // 2 ** 20  # a share of the cap the grader has
    held = (f"per kernel: an equal share of the CPU, at most {memory:,} MB of memory (out of memory, only its own "
            "processes are killed)")
    if _sockets_bounded(beside):
        assert f"{held}, its sockets folder on a 1 MB tmpfs" in header, header
        assert "not enforced" not in header, header
    else:
        assert header.endswith(f"{held}; not enforced (the grader is not root and the kernel has no box (bubblewrap) "
                               "to make it in): a bounded sockets folder (on the grader's disk)"), header


def test_a_solved_classmate_keeps_full_marks_beside_each_attack(beside):
    for name in beside["attacks"]:
        report = beside["reports"][f"beside-{name}"]
        assert report.rstrip().endswith(SOLVED), report
        assert "note:" not in report, report


def test_each_attack_costs_only_its_own_limits(beside):
    reports = beside["reports"]
    # The sockets folder is a 1 MB tmpfs: the write stops there (unbounded without root and bubblewrap: 300 MB).
    full = re.search(r"cells that raised \(\d+\): cell 2: OSError: \[Errno 28\] No space left on device",
                     reports["fill"])
    assert bool(full) == _sockets_bounded(beside), reports["fill"]
    if beside["mode"] == "bubblewrap":
        # The hog's own cells ran out of time; the spread's kernel was killed inside its own cgroup.
        assert "time limit" in reports["hog"] and reports["hog"].rstrip().endswith("score: 0 / 2"), reports["hog"]
        assert "the kernel died" in reports["spread"] or "the kernel failed" in reports["spread"], reports["spread"]


def test_a_grader_that_is_not_root_says_which_bounds_it_cannot_enforce():
    box = sandbox.Sandbox("bubblewrap", why_unbounded="the grader is not root", jobs=2)
    assert box.header.endswith(
        "; not enforced (the grader is not root): an equal CPU share (a notebook's processes may crowd out its "
        "neighbour's), a memory limit (out of memory, the killer may end a neighbour's kernel), a bounded sockets "
        "folder (on the grader's disk)"), box.header
    held = sandbox.Sandbox("none", "--sandbox none", cgroup=True, cpu=True, sockets=True, why_unbounded="no memory")
    assert "; per kernel: an equal share of the CPU, its sockets folder on a 1 MB tmpfs; not enforced (no memory): a " \
        "memory limit" in held.header, held.header


PROBE = "import json; from bleu_lab.assignments import sandbox; kinds, why = sandbox.cgroup_bounds(); " \
        "print(json.dumps([sorted(kinds), why]))"


@pytest.mark.parametrize("delegated", [True, False])
def test_a_grader_that_is_not_root_makes_the_kernels_cgroups_where_its_own_is_delegated(nobody, delegated):
    """As nobody, in the test's cgroup delegated to it: each kernel's cgroup, with every bound; in one that is not,
    none, and the report's words name the cgroup (and, where systemd runs, how to get a delegated one)."""
    import json

    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        pytest.skip("only root makes the test's cgroups")
    with capped(f"probe-{delegated}-{os.getpid()}", nobody["user"] if delegated else None) as group:
        done = subprocess.run([str(nobody["bin"] / "python"), "-I", "-c", PROBE], capture_output=True, text=True,
                              timeout=120, cwd=nobody["shared"], env={**os.environ, **nobody["env"]},
                              preexec_fn=_starter(group, nobody))
    assert done.returncode == 0, done.stderr[-3000:]
    kinds, why = json.loads(done.stdout)
    if delegated:
        assert (kinds, why) == (["cpu", "memory", "pids"], ""), done.stdout
    else:
        assert kinds == [] and why.startswith("the grader is not root and its cgroup ("), why
        assert all(str(folder) in why for folder, version in group.folders if version == 1), why
        assert (sandbox.SYSTEMD_SCOPE in why) == os.path.isdir("/run/systemd/system"), why
