"""The hub without systemd (issue 36): bleu_lab.hub.fallback's cgroup per student, on this machine's real cgroups,
and on a real JupyterHub with the shipped jupyterhub_config.py and a real local account (tests/test_hub_private.py's
helpers): a process a student's kernel started with setsid and nohup is gone once the hub stopped the server, as the
idle culler stops it (``DELETE /hub/api/users/NAME/server``), and a process going past the memory limit is killed
while the server and the kernel go on.

The cgroup tests skip with a reason where they do not run as root or where root cannot make cgroups here; CI runs
them as root (BLEU_LAB_REQUIRE_HUB=1 for the hub's).
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

hub_fallback = pytest.importorskip("bleu_lab.hub.fallback", reason="JupyterHub (the hub extra) and POSIX accounts")
hub_harness = pytest.importorskip("hub_harness", reason="tests/hub_harness.py needs psutil and requests")

# --- where the students' cgroups go: /proc/self/mountinfo and /proc/self/cgroup ---------------------------------

HYBRID_MOUNTS = """\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
"""
HYBRID_OWN = "9:name=systemd:/\n8:pids:/\n4:memory:/hubs/a\n2:cpu,cpuacct:/\n0::/\n"


def test_hierarchies_of_a_hybrid_machine_place_the_students_under_the_hubs_own_cgroup():
    """cgroup v1 controllers beside a controller-less v2 (as on this project's CI machine): v1 memory and cpu carry
    the limits, v2 tracks; the memory cgroup is the hub's own (/hubs/a), so a limit on the hub covers its students."""
    assert hub_fallback.hierarchies(HYBRID_MOUNTS, HYBRID_OWN) == [
        hub_fallback.Hierarchy(1, frozenset({"cpu"}), Path("/sys/fs/cgroup/cpu,cpuacct")),
        hub_fallback.Hierarchy(1, frozenset({"memory"}), Path("/sys/fs/cgroup/memory/hubs/a")),
        hub_fallback.Hierarchy(2, frozenset(), Path("/sys/fs/cgroup/unified"))]


def test_hierarchies_of_pure_v2_and_of_a_containers_view():
    v2 = "29 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
    assert hub_fallback.hierarchies(v2, "0::/system.slice/hub.service\n") == [
        hub_fallback.Hierarchy(2, frozenset(), Path("/sys/fs/cgroup/system.slice/hub.service"))]
    # a container without a cgroup namespace: the mount's root is the container's cgroup, which is the hub's own
    docker = "40 31 0:32 /docker/abc /sys/fs/cgroup/memory ro,nosuid - cgroup cgroup rw,memory\n"
    assert hub_fallback.hierarchies(docker, "4:memory:/docker/abc\n") == [
        hub_fallback.Hierarchy(1, frozenset({"memory"}), Path("/sys/fs/cgroup/memory"))]
    assert hub_fallback.hierarchies("", "0::/\n") == []  # nothing mounted: nothing to make


def test_a_missing_controller_or_an_unwritable_hierarchy_is_named(tmp_path):
    """Folders standing in for hierarchies: a v1 cpu one only (no memory controller), one where nothing can be
    made (as a read-only /sys/fs/cgroup)."""
    cpu_only = [hub_fallback.Hierarchy(1, frozenset({"cpu"}), tmp_path)]
    found = hub_fallback.probe("p", cpu_only)
    assert (found.tracked, found.memory, found.cpu) == (True, False, True)
    assert found.problems == ("no cgroup hierarchy here gives the memory controller",)
    assert "mem_limit (1G) NOT enforced (no cgroup hierarchy here gives the memory controller)" in (
        hub_fallback.describe(found, "1G", 1.0))
    group = hub_fallback.StudentCgroup.make("alice", None, 0.5, "p", cpu_only)
    assert (tmp_path / "p/alice/cpu.cfs_quota_us").read_text() == "50000" and group.problems == []
    unwritable = [hub_fallback.Hierarchy(2, frozenset(), Path("/proc/no-cgroup-here"))]
    found = hub_fallback.probe("p", unwritable)
    assert not found.tracked and found.problems[0].startswith("cannot create /proc/no-cgroup-here/p/probe-")


def test_the_start_line_says_what_is_enforced_and_what_is_not():
    everything = hub_fallback.describe(hub_fallback.Probe(True, True, True, ()), "1G", 1.0)
    assert "mem_limit 1G and cpu_limit 1.0 enforced on all of a student's processes together" in everything
    assert "NOT" not in everything and "every process of it ends" in everything
    no_cpu = hub_fallback.describe(hub_fallback.Probe(True, True, False, ("cannot write 100000 100000 to X",)),
                                   "1G", 1.0)
    assert "mem_limit 1G enforced" in no_cpu
    assert "cpu_limit (1.0) NOT enforced (cannot write 100000 100000 to X)" in no_cpu
    nothing = hub_fallback.describe(hub_fallback.Probe(False, False, False, ("cannot create X: Read-only file "
                                                                             "system",)), "1G", 1.0)
    assert "mem_limit (1G) and cpu_limit (1.0) are NOT enforced" in nothing
    assert "(cannot create X: Read-only file system)" in nothing and "every process of the student's uid" in nothing


def test_end_uid_refuses_roots_and_the_hubs_own_uid():
    for uid in {0, os.getuid()}:
        with pytest.raises(ValueError, match=f"uid: refusing to kill every process of uid {uid}"):
            hub_fallback.end_uid(uid)


def test_end_uid_ends_every_process_of_the_account_and_nothing_else():
    """Where no cgroup can be made: every process of the student's account, whatever session it is in."""
    from test_hub_private import local_accounts

    if os.geteuid() != 0 or shutil.which("useradd") is None:
        pytest.skip("creates a local account (useradd) and runs a process as it: needs root (CI runs it as root)")
    suffix = uuid.uuid4().hex[:6]
    homes = Path(tempfile.mkdtemp(prefix="bleu-lab-end-uid-"))
    try:
        with local_accounts(f"blu{suffix}", (f"blu{suffix}a",), homes):
            uid = pwd.getpwnam(f"blu{suffix}a").pw_uid
            theirs = subprocess.Popen(["sh", "-c", "nohup setsid sleep 600 </dev/null >/dev/null 2>&1 & echo $!"],
                                      user=uid, stdout=subprocess.PIPE, text=True)
            daemon = int(theirs.stdout.readline())
            theirs.wait(10)
            ours = subprocess.Popen(["sleep", "600"])
            try:
                assert alive(daemon) and hub_fallback.end_uid(uid) == set() and not alive(daemon)
                assert ours.poll() is None  # the hub's own (root's) process is untouched
            finally:
                ours.kill(), ours.wait(10)
    finally:
        shutil.rmtree(homes, ignore_errors=True)


# --- a student's cgroup on this machine's cgroups ------------------------------------------------------------------


def writable_cgroups() -> hub_fallback.Probe:
    if os.geteuid() != 0:
        pytest.skip("makes cgroups: needs root (CI runs it as root)")
    found = hub_fallback.probe(f"bleu-lab-test-{uuid.uuid4().hex[:8]}")
    if not found.tracked:
        pytest.skip(f"root cannot make cgroups here: {'; '.join(found.problems)}")
    return found


def joined(group: hub_fallback.StudentCgroup, code: str) -> subprocess.Popen:
    """A Python running ``code``, placed in ``group`` between fork and exec (as FallbackSpawner places a server)."""
    return subprocess.Popen([sys.executable, "-c", code], preexec_fn=lambda: group.join(os.getpid()),
                            stdout=subprocess.PIPE, text=True, start_new_session=True)


DAEMON = """\
import subprocess
print(subprocess.run(["sh", "-c", "nohup setsid sleep 600 </dev/null >/dev/null 2>&1 & echo $!"],
                     capture_output=True, text=True).stdout.strip(), flush=True)
import time; time.sleep(600)
"""


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def exited(pid: int) -> bool:
    """Whether a process has exited so that its parent's waitpid sees it: gone, or a zombie with no thread left
    (a thread group's leader shows Z while its other threads still exit, and waitpid waits for them)."""
    try:
        return os.listdir(f"/proc/{pid}/task") == [str(pid)] and not alive(pid)
    except FileNotFoundError:
        return True


def test_ending_a_cgroup_ends_what_left_the_session_and_the_limits_hold():
    found = writable_cgroups()
    parent = f"bleu-lab-test-{uuid.uuid4().hex[:8]}"
    group = hub_fallback.StudentCgroup.make("alice", 64 * 2**20, 0.2, parent)
    try:
        server = joined(group, DAEMON)
        daemon = int(server.stdout.readline())
        deadline = time.monotonic() + 30  # $! is nohup's PID: setsid(1) leaves the session once nohup has exec'd it
        while alive(daemon) and os.getsid(daemon) == os.getsid(server.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert alive(daemon) and os.getsid(daemon) != os.getsid(server.pid)  # it left the server's session
        assert {server.pid, daemon} <= group.pids()
        server.kill(), server.wait(10)  # what LocalProcessSpawner's stop does: the server's own process only
        assert alive(daemon)
        assert group.end() == set() and not alive(daemon)
        if found.memory:  # past the limit: the kernel's OOM killer ends the process inside, nothing else
            hog = joined(group, "b = bytearray(256 * 2**20)\nprint('survived')")
            assert hog.wait(60) == -9 and hog.stdout.read() == ""
        if found.cpu:  # 0.2 of a core: a second of spinning gets about 0.2 s of CPU (less on a busy machine)
            spin = joined(group, "import time\nt = time.monotonic()\nwhile time.monotonic() - t < 1: pass\n"
                                 "print(time.process_time())")
            assert 0 < float(spin.stdout.read()) < 0.35
            spin.wait(10)
    finally:
        group.end()
        group.remove()
    assert not [folder for folder, _ in group.folders if folder.exists() or folder.parent.exists()]


# --- a real hub, a real account ------------------------------------------------------------------------------------

KERNEL_DAEMON = """\
import subprocess, sys
daemon = subprocess.run(["sh", "-c", "nohup setsid sleep 600 </dev/null >/dev/null 2>&1 & echo $!"],
                        capture_output=True, text=True).stdout.strip()
hog = subprocess.run([sys.executable, "-c", "bytearray(1536 * 2**20)"], capture_output=True)
print(daemon, hog.returncode)
"""


def test_a_stopped_server_leaves_no_process_and_its_student_is_limited():
    """The culler's stop on the shipped config without systemd: a daemon a kernel started (setsid, nohup, its parent
    gone) dies with the server; a process going past the 1 GB limit is killed while the kernel and server go on."""
    from test_hub_private import local_accounts, require_root_hub

    require_root_hub()
    suffix = uuid.uuid4().hex[:6]
    group_name, name = f"blf{suffix}", f"blf{suffix}a"
    base = Path(tempfile.mkdtemp(prefix="bleu-lab-hub-fallback-"))
    base.chmod(0o755)
    homes, state = base / "home", base / "hub"
    homes.mkdir(mode=0o755)
    state.mkdir(mode=0o700)
    found = hub_fallback.probe()
    own = hub_fallback.hierarchies(Path("/proc/self/mountinfo").read_text(), Path("/proc/self/cgroup").read_text())
    folders = [h.own / hub_fallback.CGROUP_PARENT / name for h in own]  # the hub inherits this process's cgroups
    try:
        bin_dir, env = hub_harness.reachable_environment(base)
        env["BLEU_LAB_STUDENTS_GROUP"] = group_name
        with local_accounts(group_name, (name,), homes):
            uid = pwd.getpwnam(name).pw_uid
            try:
                with hub_harness.running_hub(state, local_users=True, env=env, bin_dir=bin_dir) as hub:
                    try:
                        daemon, hog = check_stop_and_limits(hub, name, found, folders)
                    except BaseException:
                        print(hub.log()[-6000:])
                        raise
                    if not Path("/run/systemd/system").is_dir():  # with systemd the shipped config says nothing
                        said = "bleu_lab jupyterhub_config: " + hub_fallback.describe(found, "1G", 1.0)
                        assert said in hub.log()
            finally:
                hub_fallback.end_uid(uid)  # whatever failed above, userdel needs the account's processes gone
            assert not alive(daemon)
            assert hog == (-9 if found.memory else 0)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def check_stop_and_limits(hub, name: str, found: hub_fallback.Probe, folders: list[Path]) -> tuple[int, int]:
    student = hub_harness.Student(hub, name)
    student.login()
    student.start()
    student.wait_ready()
    kernel = student.server_api("POST", "api/kernels", data=json.dumps({"name": "python3"}))
    assert kernel.status_code == 201, kernel.text
    url = hub.url.replace("http", "ws", 1) + f"/user/{name}/api/kernels/{kernel.json()['id']}/channels"
    status, printed = hub_harness.run_async(hub_harness.execute(url, student.token, KERNEL_DAEMON))
    assert status == "ok", printed  # the kernel went on after its child was killed
    daemon, hog = map(int, printed.split())
    uid = pwd.getpwnam(name).pw_uid
    server = next(p.pid for p in hub.record_processes()
                  if p.uids().real == uid and "jupyterhub-singleuser" in " ".join(p.cmdline()))
    assert alive(daemon) and os.getsid(daemon) != os.getsid(server)
    assert daemon not in {p.pid for p in hub.record_processes()}  # out of the hub's process tree: init's child
    if found.tracked:
        listed = set()
        for folder in folders:
            listed |= {int(p) for p in (folder / "cgroup.procs").read_text().split()}
        assert {server, daemon} <= listed
        limits = {f.name: f.read_text().split() for folder in folders for f in folder.iterdir()
                  if f.name in ("memory.max", "memory.limit_in_bytes", "cpu.max", "cpu.cfs_quota_us")}
        if found.memory:
            assert [str(2**30)] in (limits.get("memory.max"), limits.get("memory.limit_in_bytes"))
        if found.cpu:
            assert ["100000", "100000"] == limits.get("cpu.max") or ["100000"] == limits.get("cpu.cfs_quota_us")
    assert student.server_api("GET", "api/status").status_code == 200  # the server survived the hog

    student.stop_server()  # what the idle culler does: DELETE /hub/api/users/NAME/server
    deadline = time.monotonic() + 10
    while alive(daemon) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not alive(daemon)
    assert hub_fallback._pids_of(uid) == set()  # nothing of the student's is left
    assert not [folder for folder in folders if folder.exists()]

    # A server that dies by itself (killed, as the OOM killer would; the hub never calls stop): what it left ends
    # when the hub polls it, here at the student's next start (POST polls first).
    student.start()
    student.wait_ready()
    server = next(p.pid for p in hub.record_processes()
                  if p.uids().real == uid and "jupyterhub-singleuser" in " ".join(p.cmdline()))
    kernel = student.server_api("POST", "api/kernels", data=json.dumps({"name": "python3"}))
    url = hub.url.replace("http", "ws", 1) + f"/user/{name}/api/kernels/{kernel.json()['id']}/channels"
    status, printed = hub_harness.run_async(hub_harness.execute(url, student.token, KERNEL_DAEMON.split("\nhog")[0]
                                                                + "\nprint(daemon)"))
    assert status == "ok", printed
    orphan = int(printed)
    os.kill(server, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while not exited(server) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert alive(orphan)
    student.start()
    assert not alive(orphan)
    student.wait_ready()
    student.stop_server()
    return daemon, hog
