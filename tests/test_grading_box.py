"""The box around a submission (issue 35): every process of a submission dies with it, memory pressure kills the
submission and never the grader, and the box shows only what marking needs.

Each attack is a real notebook graded by the real ``bleu-lab grade`` (or ``python -m bleu_lab grade``, or
``run_autograder`` in a temporary folder laid out like Gradescope's). A container where neither bubblewrap nor
``unshare`` may create namespaces (Gradescope's Docker) is stood in for by a ``bwrap`` and an ``unshare`` first on
``PATH`` that fail as they do there. The bubblewrap runs skip with bubblewrap's reason where it cannot start here
(with ``BLEU_LAB_REQUIRE_SANDBOX=1``, as in CI, they fail instead), through ``test_grading_attacks``'s helpers.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from test_grading_attacks import (
    BACKSTOP,
    FINISH_TIMEOUT,
    REPO,
    SEED,
    _nb,
    _need,
    _reports,
    _wait_for,
    _with_cell,
    _write,
)

from bleu_lab.assignments import gradescope, processes, sandbox
from bleu_lab.assignments.release import release

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the box is Linux's (/proc, namespaces)")

L0, L3 = "00_start_here", "03_brevity_penalty"
# --timeout of every run here: each notebook (the attacks included) is to finish, and what the tests below look at is
# never the time limit; a wall-clock limit of 40 s once cut off a fork bomb's count on a loaded CI machine.
TIMEOUT = FINISH_TIMEOUT
EXIT_SYSCALL = {"x86_64": 60, "aarch64": 93}.get(platform.machine())

# A helper whose main thread ends with the raw exit system call while a second thread works on: /proc shows its
# leader as a zombie ("Z"); the thread waits for that (at most 300 s), then writes the leader's state down. It then
# waits (at most 900 s) for the grader's next kernel (a process below the grader whose command
# line holds the kernel's connection file), connects and installs an input transformer that breaks every cell; in a
# Gradescope layout it also rewrites results/results.json (in the grader's working folder) to full marks.
HELPER = """\
import ctypes, json, os, sys, threading, time
EVIDENCE, GRADER, EXIT = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
LEADER = os.getpid()

def ancestors(pid):
    while pid > 1:
        try:
            stat = open(f"/proc/{pid}/stat", "rb").read()
        except OSError:
            return
        pid = int(stat[stat.rfind(b")") + 2:].split()[1])
        yield pid

def state(pid):
    stat = open(f"/proc/{pid}/stat", "rb").read()
    return stat[stat.rfind(b")") + 2:].split()[0].decode()

def attack():
    end = time.time() + 300
    while state(LEADER) != "Z" and time.time() < end:
        time.sleep(0.05)
    open(EVIDENCE + ".state", "w").write(state(LEADER) + " " + str(LEADER))
    try:
        results = os.path.join(os.readlink(f"/proc/{GRADER}/cwd"), "results", "results.json")
    except OSError:
        results = None
    own, end, mine = set(os.listdir("/proc")), time.time() + 900, set()
    for pid in own:  # its own kernel (and a fork of it, which shows the same command line) is left alone
        try:
            argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\\0")
        except OSError:
            continue
        if b"-f" in argv:
            mine.add(argv[argv.index(b"-f") + 1])
    while time.time() < end:
        try:
            if json.load(open(results)).get("score") != 5:
                with open(results, "w") as f:
                    json.dump({"score": 5, "output": "all tests passed"}, f)
                open(EVIDENCE + ".results", "w").write("rewrote")
        except (OSError, TypeError, ValueError, AttributeError):
            pass
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or pid in own:
                continue
            try:
                argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\\0")
            except OSError:
                continue
            if b"launch_new_instance" not in b" ".join(argv) or b"-f" not in argv:
                continue
            own.add(pid)
            if GRADER not in ancestors(int(pid)) or argv[argv.index(b"-f") + 1] in mine:
                continue  # never another grader's kernel on this machine, nor its own
            connection = argv[argv.index(b"-f") + 1].decode()
            try:
                for _ in range(6000):
                    if os.path.exists(connection):
                        break
                    time.sleep(0.05)
                from jupyter_client import BlockingKernelClient
                client = BlockingKernelClient(connection_file=connection)
                client.load_connection_file()
                client.start_channels()
                client.execute("get_ipython().input_transformers_post.append("
                               "lambda lines: ['1/0' + chr(10)] if lines else lines)")
                client.get_shell_msg(timeout=300)
                open(EVIDENCE, "a").write("connected to " + connection + "\\n")
            except Exception as exc:
                open(EVIDENCE + ".failed", "a").write(repr(exc) + "\\n")
        time.sleep(0.05)

threading.Thread(target=attack).start()
time.sleep(0.2)
ctypes.CDLL(None).syscall(EXIT, 0)
"""

ZOMBIE_LEADER = """\
import os, subprocess, sys
subprocess.Popen([sys.executable, "-c", {helper!r}, {evidence!r}, str(os.getppid()), "{exit}"],
                 start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                 stderr=subprocess.DEVNULL)
assert open("/proc/self/oom_score_adj").read().split() == ["1000"], "the kernel is not the OOM killer's first choice"
"""


def _zombie_leader(nb, evidence: Path):
    return _with_cell(nb, ZOMBIE_LEADER.format(helper=HELPER, evidence=str(evidence), exit=EXIT_SYSCALL))


def _fake_container(tmp_path: Path) -> dict[str, str]:
    """An environment whose ``bwrap`` and ``unshare`` fail as they do in a container without user namespaces."""
    fake = tmp_path / "fake-bin"
    fake.mkdir()
    for name in ("bwrap", "unshare"):
        (fake / name).write_text(f'#!/bin/sh\necho "{name}: Operation not permitted" >&2\nexit 1\n', encoding="ascii")
        (fake / name).chmod(0o755)
    return {**os.environ, "PATH": f"{fake}{os.pathsep}{os.environ.get('PATH', os.defpath)}"}


def _grade_env(paths: list[Path], mode: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    command = [str(Path(sys.executable).parent / "bleu-lab"), "grade", *map(str, paths), "--seed", str(SEED),
               "--timeout", str(TIMEOUT), "--sandbox", mode]
    return subprocess.run(command, capture_output=True, text=True, timeout=BACKSTOP, cwd=cwd, env=env)


def _leader(evidence: Path) -> tuple[str, int]:
    state, pid = Path(str(evidence) + ".state").read_text().split()
    return state, int(pid)


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    """The lessons as `bleu-lab release` hands them out: solved/ and student/ copies."""
    outdir = tmp_path_factory.mktemp("course")
    release(outdir, REPO / "notebooks")
    return outdir


@pytest.fixture(scope="module")
def zombie_exit():
    if EXIT_SYSCALL is None:
        pytest.skip(f"the exit system call's number on {platform.machine()} is not known to this test")


def test_a_zombie_looking_leader_with_a_live_thread_is_found_and_killed(zombie_exit, tmp_path):
    """The /proc walk on its own: a leader in state Z whose second thread runs and forks is a living descendant."""
    evidence = tmp_path / "evidence"
    # the helper attacks only kernels below the process it is given: this test's, which starts none (given PID 1, as
    # once here, it attacked every kernel on the machine, other tests' graders' included, until it was killed)
    code = ("import subprocess, sys; subprocess.Popen([sys.executable, '-c', sys.argv[1], sys.argv[2], "
            f"'{os.getpid()}', sys.argv[3]], start_new_session=True)")
    with processes.subreaper():
        keep = processes.descendants()
        subprocess.run([sys.executable, "-c", code, HELPER, str(evidence), str(EXIT_SYSCALL)], check=True,
                       timeout=BACKSTOP)
        _wait_for(Path(str(evidence) + ".state").exists, "the helper wrote its leader's state")
        state, leader = _leader(evidence)
        assert state == "Z" and processes.alive(leader)
        assert leader in processes.descendants() - keep
        assert processes.end_leftovers(keep) >= 1
        assert not processes.alive(leader) and not processes.descendants() - keep


@pytest.mark.parametrize("where", ["pid namespace", "container"])
def test_a_zombie_looking_leftover_never_reaches_the_next_kernel(zombie_exit, where, course, tmp_path):
    """`--sandbox none`: a lesson-0 submission leaves the helper above; the solved lesson 3 graded after it keeps
    5 / 5, the helper is gone after the batch. With unshare the kernel has its own PID namespace; in a container
    where it may not, the grader's walk of /proc finds and ends the helper."""
    env = _fake_container(tmp_path) if where == "container" else dict(os.environ)
    if where == "pid namespace" and not processes.pid_namespace()[0]:
        pytest.skip(processes.pid_namespace()[1])
    evidence = tmp_path / "leftover"
    eve = _with_cell(_zombie_leader(_nb(course, "student", L0), evidence), FONT_LIST)
    paths = [_write(tmp_path / "eve" / f"{L0}.ipynb", eve),
             _write(tmp_path / "victim" / f"{L3}.ipynb", _nb(course, "solved", L3))]
    done = _grade_env(paths, "none", tmp_path, env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    reports = _reports(done.stdout)
    header = reports[0].splitlines()[1]
    assert ("its own PID namespace" in header) == (where == "pid namespace"), header
    state, leader = _leader(evidence)
    assert state == "Z"  # the attack had its shape: a zombie-looking leader with a live thread
    assert "cells that raised" not in reports[1], reports[1]  # oom_score_adj 1000, and the grader's font list
    assert reports[2].rstrip().endswith("score: 5 / 5  (+ 1 to grade by hand)"), reports[2]
    assert not evidence.exists(), evidence.read_text()
    if where == "container":  # a host PID: ended by the grader, and said so
        assert not processes.alive(leader)
        assert re.search(r"note: .*\d+ process(es)? it left running (was|were) ended", reports[1]), reports[1]


def _gradescope_root(root: Path, lesson: str, submission) -> Path:
    """A folder laid out like Gradescope's /autograder (source/ with the configuration, run_autograder, a stand-in
    venv whose python is this test's, submission/)."""
    (root / "source").mkdir(parents=True)
    config = {"lessons": [lesson], "timeout": TIMEOUT, "seed": SEED}
    (root / "source" / gradescope.CONFIG_NAME).write_text(json.dumps(config), encoding="utf-8")
    (root / "run_autograder").write_text(gradescope.RUN_AUTOGRADER, encoding="utf-8")
    python = root / gradescope.VENV / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    python.chmod(0o755)
    _write(root / "submission" / f"{lesson}.ipynb", submission)
    return root


def test_results_json_keeps_the_graders_score(zombie_exit, course, tmp_path):
    """run_autograder where bubblewrap and unshare fail (Gradescope's Docker): the helper would rewrite
    results.json to 5 points after the grader wrote 2; it is ended before results.json is written (atomically, then
    read back), and the file still says 2 once the helper is gone."""
    evidence = tmp_path / "leftover"
    root = _gradescope_root(tmp_path / "autograder", L0, _zombie_leader(_nb(course, "solved", L0), evidence))
    env = {**_fake_container(tmp_path), "AUTOGRADER_ROOT": str(root)}
    done = subprocess.run(["bash", str(root / "run_autograder")], capture_output=True, text=True,
                          timeout=BACKSTOP, env=env, cwd=root)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "sandbox: none" in done.stdout and "no PID namespace" in done.stdout
    state, leader = _leader(evidence)
    assert state == "Z" and not processes.alive(leader)  # gone: it can rewrite nothing after this
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert results["score"] == 2, results
    assert results.get("output") != "all tests passed"
    assert not Path(str(evidence) + ".results").exists()
    assert not list((root / "results").glob(".results-*"))  # no temporary file left beside it


# Run as root without a namespace (Gradescope's container), a kernel becomes the unprivileged user "nobody": it tries
# to signal every process above it and to write results.json where Gradescope reads it, and writes down how it went.
AS_NOBODY = """\
import json, os, resource
lines = [f"uid {{os.getuid()}}", f"nproc {{resource.getrlimit(resource.RLIMIT_NPROC)[0]}}"]
pid = os.getppid()
while pid > 1:
    try:
        os.kill(pid, 0)
        lines.append(f"signal {{pid}}: sent")
    except PermissionError:
        lines.append(f"signal {{pid}}: refused")
    pid = int(open(f"/proc/{{pid}}/stat").read().rsplit(")", 1)[1].split()[1])
try:
    with open({results!r}, "w") as f:
        json.dump({{"score": 5, "output": "all tests passed"}}, f)
    lines.append("results: written")
except PermissionError:
    lines.append("results: refused")
with open({evidence!r}, "w") as f:
    f.write("\\n".join(lines))
"""


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root runs a kernel as another user")
def test_as_root_without_namespaces_the_kernel_runs_as_nobody(course, tmp_path):
    """run_autograder as root where bubblewrap and unshare fail (Gradescope's Docker), with a Python every user can
    run (the guide's /opt or /usr/local; here a copy where this one lies under /root): the kernel runs as nobody, so
    it can signal no process above it (the grader included) and cannot write results.json, which keeps the grader's
    score; RLIMIT_NPROC binds it."""
    import pwd

    from hub_harness import reachable_environment

    try:
        pwd.getpwnam(sandbox.KERNEL_USER)
    except KeyError:
        pytest.skip(f"this system has no user {sandbox.KERNEL_USER!r}")
    shared = Path(tempfile.mkdtemp(prefix="bl-nobody-", dir="/tmp"))  # reachable by every user, as /autograder is
    try:
        shared.chmod(0o755)
        bin_dir, extra = reachable_environment(shared)
        evidence_dir = shared / "evidence"
        evidence_dir.mkdir()
        evidence_dir.chmod(0o1777)
        root = shared / "autograder"
        results = root / "results" / "results.json"
        evidence = evidence_dir / "nobody"
        solved = _with_cell(_nb(course, "solved", L0), AS_NOBODY.format(results=str(results), evidence=str(evidence)))
        _gradescope_root(root, L0, solved)
        (root / "results").mkdir()
        python = root / gradescope.VENV / "bin" / "python"
        library = "".join(f"{k}={v} " for k, v in extra.items())
        python.write_text(f'#!/bin/sh\nexec env {library}"{bin_dir / "python"}" "$@"\n', encoding="utf-8")
        env = {**_fake_container(tmp_path), "AUTOGRADER_ROOT": str(root)}
        done = subprocess.run(["bash", str(root / "run_autograder")], capture_output=True, text=True,
                              timeout=BACKSTOP, env=env, cwd=root)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        assert f"each kernel runs as the unprivileged user {sandbox.KERNEL_USER}" in done.stdout, done.stdout[:2000]
        lines = evidence.read_text(encoding="utf-8").splitlines()
        assert lines[0] == f"uid {pwd.getpwnam(sandbox.KERNEL_USER).pw_uid}", lines
        assert lines[1] == "nproc 1024", lines
        signals = [line for line in lines if line.startswith("signal ")]
        assert signals and all(line.endswith(": refused") for line in signals), lines
        assert lines[-1] == "results: refused", lines
        assert json.loads(results.read_text(encoding="utf-8"))["score"] == 2
    finally:
        shutil.rmtree(shared, ignore_errors=True)


# Forks sleeping children until the system refuses one (or 2,000 of them run), ends them, and raises with the count:
# the report's "cells that raised" carries it out of the box. Each child sleeps until it is killed (on a loaded
# machine the forks may take more than a minute: none may end and free its place meanwhile).
FORK_BOMB = """\
import os, signal, time
children, refused = [], "none"
try:
    while len(children) < 2000:
        pid = os.fork()
        if pid == 0:
            time.sleep(3600)
            os._exit(0)
        children.append(pid)
except OSError as err:
    refused = f"errno {err.errno}"
for pid in children:
    os.kill(pid, signal.SIGKILL)
for pid in children:
    os.waitpid(pid, 0)
raise RuntimeError(f"uid {os.getuid()} forked {len(children)} refused {refused}")
"""


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root runs bubblewrap as another user")
def test_as_root_bubblewrap_runs_as_nobody_and_the_process_limit_binds(course, tmp_path):
    """Linux exempts root from RLIMIT_NPROC in every user namespace: a grader run as root (with a Python every user
    can run) starts bubblewrap as nobody, so a fork bomb in the box is refused at the box's process limit, the report
    says so, and the notebook keeps its marks."""
    import pwd

    from hub_harness import reachable_environment

    _need("bubblewrap")
    try:
        pwd.getpwnam(sandbox.KERNEL_USER)
    except KeyError:
        pytest.skip(f"this system has no user {sandbox.KERNEL_USER!r}")
    shared = Path(tempfile.mkdtemp(prefix="bl-nobody-", dir="/tmp"))
    try:
        shared.chmod(0o755)
        bin_dir, extra = reachable_environment(shared)
        bomb = _write(tmp_path / "eve" / f"{L0}.ipynb", _with_cell(_nb(course, "solved", L0), FORK_BOMB, at=1))
        done = subprocess.run([str(bin_dir / "bleu-lab"), "grade", str(bomb), "--seed", str(SEED), "--timeout",
                               str(TIMEOUT), "--sandbox", "bubblewrap"], capture_output=True, text=True,
                              timeout=BACKSTOP, cwd=tmp_path, env={**os.environ, **extra})
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        header = done.stdout.splitlines()[1]
        assert f"at most 1,024 processes, as the unprivileged user {sandbox.KERNEL_USER}" in header, header
        report = _reports(done.stdout)[1]
        found = re.search(r"RuntimeError: uid (\d+) forked (\d+) refused (.*)$", report, re.MULTILINE)
        assert found, report
        assert int(found.group(1)) == pwd.getpwnam(sandbox.KERNEL_USER).pw_uid, report
        assert 900 < int(found.group(2)) < 1024 and found.group(3) == "errno 11", report  # EAGAIN: over RLIMIT_NPROC
        assert report.rstrip().endswith("score: 2 / 2"), report
    finally:
        shutil.rmtree(shared, ignore_errors=True)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root's kernels get a cgroup")
def test_as_root_bubblewrap_as_root_is_bound_by_the_kernels_cgroup(course, tmp_path):
    """Where nobody cannot run the grader's Python (this venv's, under /root), bubblewrap runs as root, whom
    RLIMIT_NPROC never binds: the kernel's own cgroup (pids.max 1,024) refuses the fork bomb instead."""
    _need("bubblewrap")
    if not sandbox.cgroups_work():
        pytest.skip("no cgroup with the pids controller can be made here")
    if sandbox.kernel_user()[0] is not None:
        pytest.skip(f"{sandbox.KERNEL_USER} can run this Python: bubblewrap runs as it (the test above)")
    bomb = _write(tmp_path / "eve" / f"{L0}.ipynb", _with_cell(_nb(course, "solved", L0), FORK_BOMB, at=1))
    done = subprocess.run([str(Path(sys.executable).parent / "bleu-lab"), "grade", str(bomb), "--seed", str(SEED),
                           "--timeout", str(TIMEOUT), "--sandbox", "bubblewrap"], capture_output=True, text=True,
                          timeout=BACKSTOP, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    header = done.stdout.splitlines()[1]
    assert "at most 1,024 processes in a cgroup of its own, as root" in header, header
    report = _reports(done.stdout)[1]
    found = re.search(r"RuntimeError: uid (\d+) forked (\d+) refused (.*)$", report, re.MULTILINE)
    assert found, report
    assert found.group(1) == "0", report  # root in the box's user namespace: RLIMIT_NPROC alone would not bind
    assert 900 < int(found.group(2)) < 1024 and found.group(3) == "errno 11", report  # EAGAIN: over pids.max
    assert report.rstrip().endswith("score: 2 / 2"), report


# Files in the box's tmpfs count toward no process's memory: unbounded, 1.2 GB of them made the OOM killer end the
# grader. Each flood below is refused by size (or as a read-only file system); the notebook still gets its marks.
FLOOD = """\
chunk = b"\\0" * (1 << 20)
with open({path!r}, "wb") as f:
    for _ in range(1200):
        f.write(chunk)
"""
# A graded kernel's matplotlib finds the font list the grader built once for the batch (building its own costs a
# tenth of a CPU second here, seconds where many fonts are installed).
FONT_LIST = """\
import logging
seen = []
handler = logging.Handler(logging.DEBUG)
handler.emit = lambda record: seen.append(record.getMessage())
logger = logging.getLogger("matplotlib.font_manager")
logger.setLevel(logging.DEBUG)
logger.addHandler(handler)
import matplotlib.font_manager
assert any(m.startswith("Using fontManager instance from") for m in seen), "the kernel built its own font list"
"""
LIMITS = FONT_LIST + """\
import resource
assert open("/proc/self/oom_score_adj").read().split() == ["1000"], "the kernel is not the OOM killer's first choice"
assert 0 < resource.getrlimit(resource.RLIMIT_NPROC)[1] <= 1024, "no limit on the number of processes"
import os
assert os.environ.get("OPENBLAS_NUM_THREADS") == "1", "numpy's BLAS may start a thread per CPU in each kernel"
assert os.environ.get("PYTHONDONTWRITEBYTECODE") == "1", "a Python the notebook starts may write the grader's .pyc"
"""


# Looks for a solved lesson 3 under every mount point of the box (as the student did through
# /proc/self/mountinfo) and runs its code cells; the next cell names whatever it found.
MOUNTS = """\
import json, os
found = []
for line in open("/proc/self/mountinfo"):
    point = line.split()[4].replace("\\\\040", " ")
    if point.startswith(("/usr", "/proc", "/dev", "/sys")):
        continue
    for folder, dirs, files in os.walk(point):
        if folder.count(os.sep) - point.count(os.sep) >= 3:
            dirs[:] = []
        if "03_brevity_penalty.ipynb" in files and "solved" in folder:
            found.append(os.path.join(folder, "03_brevity_penalty.ipynb"))
for path in found[:1]:
    for cell in json.load(open(path))["cells"]:
        if cell["cell_type"] == "code":
            try:
                exec("".join(cell["source"]), globals())
            except BaseException:
                pass
"""
NAME_THEM = """\
assert not found, "visible in the box: " + ", ".join(found)
"""


@pytest.fixture(scope="module")
def boxed(course, tmp_path_factory) -> subprocess.CompletedProcess:
    """One bubblewrap batch, run as `python -m bleu_lab grade` with PYTHONPATH=. from an instructor's folder that
    holds solved/ and submissions/: a lesson 0 that floods the box's memory file systems, then a student copy of
    lesson 3 that looks for solved/ through /proc/self/mountinfo."""
    _need("bubblewrap")
    folder = tmp_path_factory.mktemp("instructor")
    shutil.copytree(course / "solved", folder / "solved")
    flood = _nb(course, "solved", L0)
    for at, path in enumerate(["/dev/shm/flood", "/tmp/flood", "flood", "/dev/flood", "/flood"], start=1):
        flood = _with_cell(flood, FLOOD.format(path=path), at=at)
    flood = _with_cell(flood, LIMITS, at=6)
    student = _nb(course, "student", L3)
    looker = _with_cell(_with_cell(student, MOUNTS, at=len(student.cells)), NAME_THEM, at=len(student.cells) + 1)
    paths = [_write(folder / "submissions" / "eve" / f"{L0}.ipynb", flood),
             _write(folder / "submissions" / "mallory" / f"{L3}.ipynb", looker)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([".", str(folder)])}
    done = subprocess.run([sys.executable, "-m", "bleu_lab", "grade", *(str(p.relative_to(folder)) for p in paths),
                           "--seed", str(SEED), "--timeout", str(TIMEOUT), "--sandbox", "bubblewrap"],
                          capture_output=True, text=True, timeout=BACKSTOP, cwd=folder, env=env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done


def test_files_in_the_boxs_memory_are_refused_by_size(boxed):
    """1,200 MB into /dev/shm, /tmp and the working folder stop at their size; bubblewrap's own root and /dev are
    read-only; the kernel is the OOM killer's first choice and has a process limit; the notebook keeps its marks."""
    if not sandbox.sized_tmpfs():
        pytest.skip("this bubblewrap cannot size a tmpfs (--size needs bubblewrap 0.5)")
    header = boxed.stdout.splitlines()[1]
    assert f"/dev/shm {sandbox.TMPFS_BYTES // 2 ** 20} MB each, its private copy" in header, header
    report = _reports(boxed.stdout)[1]
    raised = report[report.index("cells that raised (5): "):].splitlines()[0]
    for cell in (2, 3, 4):
        assert f"cell {cell}: OSError: [Errno 28] No space left on device" in raised, raised
    assert "cell 5: OSError: [Errno 30] Read-only file system: '/dev/flood'" in raised, raised
    assert "cell 6: OSError: [Errno 30] Read-only file system: '/flood'" in raised, raised
    assert report.rstrip().endswith("score: 2 / 2"), report


def test_python_m_from_a_course_folder_exposes_nothing(boxed):
    """The working folder (sys.path[0] under `python -m`, and PYTHONPATH) is not in the box: the student copy of
    lesson 3 that looks for solved/ finds nothing and keeps the untouched copy's 0 / 5."""
    report = _reports(boxed.stdout)[2]
    assert "visible in the box" not in report, report
    assert re.findall(r"^score: .*$", report, re.MULTILINE) == ["score: 0 / 5  (+ 1 to grade by hand)"], report


def test_the_box_binds_neither_the_working_folder_nor_the_graders_path(tmp_path, monkeypatch):
    """However the grader was started (``python -m``: sys.path[0] is the working folder; PYTHONPATH), the folders
    bound into the box are the interpreter's own: none is the working folder, above it or in it. A working folder
    inside a bound folder (here a stand-in system folder) is covered by an empty read-only tmpfs."""
    course = (tmp_path / "course").resolve()
    (course / "solved").mkdir(parents=True)
    monkeypatch.chdir(course)
    monkeypatch.syspath_prepend(str(course))
    monkeypatch.syspath_prepend(str(course / "solved"))
    monkeypatch.setenv("PYTHONPATH", str(course))
    for folder in sandbox.readable_folders():
        assert not course.is_relative_to(folder) and not folder.is_relative_to(course), folder
    assert course not in sandbox.covered_folders(sandbox.readable_folders())
    monkeypatch.setattr(sandbox, "SYSTEM_FOLDERS", (*sandbox.SYSTEM_FOLDERS, str(tmp_path.resolve())))
    assert course in sandbox.covered_folders(sandbox.readable_folders())
    (tmp_path / "private" / "ipc").mkdir(parents=True)
    argv = sandbox.bwrap_prefix(tmp_path / "private", tmp_path / "private" / "work")
    if sandbox.sized_tmpfs():  # the private copy: a sized tmpfs, the grader's sockets folder bound into it
        private = str(tmp_path / "private")
        assert argv[argv.index(private) - 3:argv.index(private) + 1] == [
            "--size", str(sandbox.PRIVATE_BYTES), "--tmpfs", private]
        assert ["--bind", f"{private}/ipc", f"{private}/ipc", "--dir", f"{private}/work"] in [
            argv[i:i + 5] for i in range(len(argv))]
        # Where the grader cannot mount, the sockets folder is a tmpfs of the box's, only the connection file bound.
        boxed = sandbox.bwrap_prefix(tmp_path / "private", tmp_path / "private" / "work", tmp_path / "private" / "ipc")
        connection = f"{private}/ipc/{sandbox.CONNECTION_FILE}"
        assert ["--size", str(sandbox.SOCKETS_BYTES), "--tmpfs", f"{private}/ipc", "--ro-bind", connection,
                connection, "--dir", f"{private}/work"] in [boxed[i:i + 9] for i in range(len(boxed))]
        assert f"{private}/ipc" not in [boxed[i + 1] for i, arg in enumerate(boxed) if arg == "--bind"]
    at = argv.index(str(course))
    assert argv[at - 1:at + 3] == ["--tmpfs", str(course), "--remount-ro", str(course)]
