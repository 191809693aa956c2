"""A course hub under a class arriving together: N students log in at the same moment to a real JupyterHub started
with the shipped jupyter-settings/jupyterhub_config.py (tests/hub_harness.py says what a local run swaps: a test
authenticator, homes in a temporary folder, 127.0.0.1), each opens the playground through Voilà and lesson 0 in
JupyterLab's way (a kernel running the lesson's first cells).

    python benchmarks/bench_hub.py --students 20

Prints, per student: the time from login to a usable playground (the Voilà page fully rendered by the student's
server: the server's part; a browser adds the front end's load, about 2 s, docs/instructor.md) and to lesson 0's
first cells run; the memory (PSS, so libraries shared between processes are counted once across them) of the
student's server and its kernels; and the hub's own share (hub, proxy, culler). Then the figures z2jh's
singleuser.memory / cpu and a node for 200 students are sized from. Needs the ``hub`` extra and
configurable-http-proxy (npm). Goal: at most 200 MB per student with a lesson open; median at most 15 s for 20.

The students' processes see the packages a hub installed with ``bleu_lab[hub]`` has, not the test tools this
environment holds besides (``_common.hidden_packages``): scipy, for one, is a test peer, and nltk imports scipy.stats
when it can, which made lesson 0's kernel about 45 MB bigger (110 MB, not 65) and took it 0.7-1.1 CPU s more.
``--all-packages`` measures with them.

It never hangs and leaves nothing behind: each student's step has a bound (STEPS) which, when it runs out, names the
student and the step and prints the hub's log and that student's server's; what it prints is flushed line by line;
the hub, the proxy, the culler, the servers and their kernels are stopped however it ends (its end, an exception,
SIGTERM, SIGHUP, Ctrl-C): tests/test_hub_bench.py kills it with SIGTERM and finds none of them left.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import queue
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psutil
from _common import hidden_packages

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
import hub_harness  # noqa: E402 (tests/hub_harness.py: the hub as the hub test starts it)

MB = 2**20
# Each student's steps and the seconds each may take before the bench stops with the student's and the step's name.
# 20 students on 2 cores took 35-70 s for all of them; the hub's own bounds are below these (a server that does not
# answer within Spawner.start_timeout + http_timeout, 300 s, is reported failed by the hub itself).
STEPS = {"log in": 120.0, "start the server": 120.0, "wait for the server": 330.0, "open the playground": 300.0,
         "run lesson 0": 300.0}


@dataclass
class Arrival:
    name: str
    ready: float  # login to the server answering
    playground: float  # login to the Voilà playground rendered
    lesson: float  # login to lesson 0's first cells run
    lesson_kernel: str = ""
    pss: float = 0.0  # bytes: server + kernels
    rss: float = 0.0  # bytes: server + kernels, shared pages counted in each (what a container's cgroup may hold)
    server_pss: float = 0.0  # bytes: the server alone
    lesson_pss: float = 0.0  # bytes: the kernel running lesson 0
    processes: int = 0
    cpu: float = 0.0  # CPU seconds of the course copy, the server and its kernels so far
    copy_cpu: float = 0.0  # the server's finished children: `bleu-lab lessons` (run before exec), any node process
    server_cpu: float = 0.0
    playground_cpu: float = 0.0  # the Voilà page's kernel
    lesson_cpu: float = 0.0


def arrive(hub: hub_harness.Hub, name: str) -> Arrival:
    """One student's arrival, each step bounded (STEPS); prints each step as it ends."""
    student = hub_harness.Student(hub, name)
    start = time.monotonic()

    def step(label: str, call: Callable[[], object]) -> object:
        result = hub_harness.bounded(hub, name, label, STEPS[label], call)
        print(f"{name}: {label}: done at {time.monotonic() - start:.1f} s", flush=True)
        return result

    step("log in", student.login)
    step("start the server", student.start)
    step("wait for the server", lambda: student.wait_ready(timeout=STEPS["wait for the server"] - 10))
    ready = time.monotonic() - start
    page = step("open the playground", lambda: student.server_api(
        "GET", "voila/render/notebooks/playground.ipynb", timeout=STEPS["open the playground"] - 10))
    if page.status_code != 200 or "application/vnd.jupyter.widget-view+json" not in page.text:
        raise RuntimeError(f"{name}: the playground did not render (HTTP {page.status_code})\n{hub.logs_for(name)}")
    playground = time.monotonic() - start
    kernel, status, printed, _ = step("run lesson 0", lambda: student.run_lesson(
        "notebooks/00_start_here.ipynb", "all three agree"))
    if status != "ok" or "all three agree: True" not in printed:
        raise RuntimeError(f"{name}: lesson 0 failed: {printed[-2000:]}\n{hub.logs_for(name)}")
    return Arrival(name, ready, playground, time.monotonic() - start, kernel)


def arrive_together(hub: hub_harness.Hub, names: list[str]) -> list[Arrival]:
    """Every student's ``arrive`` at once, each in a daemon thread; the first failure is raised at once (the hub is
    then stopped under the others, which ends their requests), and the whole is bounded by the sum of STEPS."""
    done: queue.Queue[tuple[str, Arrival | BaseException]] = queue.Queue()

    def one(name: str) -> None:
        try:
            done.put((name, arrive(hub, name)))
        except BaseException as err:  # noqa: BLE001 (handed to the main thread)
            done.put((name, err))

    for name in names:
        threading.Thread(target=one, args=(name,), name=name, daemon=True).start()
    arrivals: dict[str, Arrival] = {}
    deadline = time.monotonic() + sum(STEPS.values()) + 30
    while len(arrivals) < len(names):
        try:  # in short waits: a signal another thread receives runs its handler here only between them
            name, outcome = done.get(timeout=0.5)
        except queue.Empty:
            if time.monotonic() < deadline:
                continue
            late = sorted(set(names) - set(arrivals))
            raise hub_harness.StepTimeout(
                f"students still arriving after {sum(STEPS.values()) + 30:.0f} s: {late}") from None
        if isinstance(outcome, BaseException):
            raise outcome
        arrivals[name] = outcome
    return [arrivals[name] for name in names]


def server_tree(hub: hub_harness.Hub, name: str) -> list[psutil.Process]:
    """The student's single-user server and its descendants (the kernels)."""
    home = str(hub.homes / name)
    for proc in hub.record_processes():
        with contextlib.suppress(psutil.Error):
            if proc.environ().get("HOME") == home and "jupyterhub-singleuser" in " ".join(proc.cmdline()):
                return [proc, *proc.children(recursive=True)]
    return []


def total(processes: list[psutil.Process], measure: Callable[[psutil.Process], float]) -> float:
    """The sum of ``measure`` over the processes still running."""
    result = 0.0
    for proc in processes:
        with contextlib.suppress(psutil.Error):
            result += measure(proc)
    return result


def pss(processes: list[psutil.Process]) -> float:
    return total(processes, lambda proc: proc.memory_full_info().pss)


def rss(processes: list[psutil.Process]) -> float:
    return total(processes, lambda proc: proc.memory_info().rss)


def cpu(processes: list[psutil.Process]) -> float:
    return total(processes, lambda proc: sum(proc.cpu_times()[:2]))


def waited_children_cpu(process: psutil.Process) -> float:
    """CPU seconds of the children ``process`` has waited for. For a student's server: the course copy, which its
    start command (``sh -c 'bleu-lab lessons ...; exec jupyterhub-singleuser'``) ran before exec (exec keeps the
    count), and any process the server ran and waited for: JupyterLab's ``node yarn.js config`` at its import, where
    node is on the PATH, until the single-user settings turned it off."""
    with contextlib.suppress(psutil.Error):
        times = process.cpu_times()
        return times.children_user + times.children_system
    return 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=20, help="students logging in together (default 20)")
    parser.add_argument("--all-packages", action="store_true",
                        help="let the students' processes import this environment's test tools too (scipy, ...)")
    args = parser.parse_args()
    if args.students < 1:
        parser.error(f"--students must be at least 1, not {args.students}")
    reason = hub_harness.missing()
    if reason:
        sys.exit(f"bench_hub needs a hub: {reason}")
    sys.stdout.reconfigure(line_buffering=True)  # each line as it is printed, also into a file or a pipe
    with hub_harness.exit_on_signals():  # SIGTERM/SIGHUP: the hub's block is left through its finally, as on Ctrl-C
        return measure(args.students, all_packages=args.all_packages)


def measure(students: int, all_packages: bool = False) -> int:
    load_before = os.getloadavg()
    print(f"bench_hub: {students} students, {psutil.cpu_count()} cores, "
          f"{psutil.virtual_memory().total / 2**30:.0f} GiB; load average before: "
          f"{load_before[0]:.1f} (other work on the machine slows every figure below)")
    with tempfile.TemporaryDirectory(prefix="bleu-lab-hub-bench-") as folder:
        env = {}
        if not all_packages:
            stand_ins = Path(folder) / "not-in-bleu_lab-hub"
            stand_ins.mkdir()
            stand_ins.chmod(0o755)
            hidden = hidden_packages(stand_ins, ("hub",))
            print(f"hidden from the students' processes (not installed by bleu_lab[hub]; --all-packages keeps them): "
                  f"{', '.join(hidden)}")
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(stand_ins), os.environ.get("PYTHONPATH")]))
        with hub_harness.running_hub(Path(folder) / "hub", activity_interval=300, env=env) as hub:
            print(f"the hub answers at {hub.url} (pid {hub.process.pid}, folder {folder})")
            names = [f"student{i:03d}" for i in range(students)]
            wall = time.monotonic()
            arrivals = arrive_together(hub, names)
            wall = time.monotonic() - wall
            time.sleep(5)  # let the servers settle (the kernels' first-run allocations), then measure
            for arrival in arrivals:
                tree = server_tree(hub, arrival.name)
                arrival.pss, arrival.processes = pss(tree), len(tree)
                lesson = [p for p in tree[1:] if arrival.lesson_kernel in " ".join(p.cmdline())]
                arrival.copy_cpu, arrival.server_cpu = waited_children_cpu(tree[0]), cpu(tree[:1])
                arrival.lesson_cpu = cpu(lesson)
                arrival.playground_cpu = cpu([p for p in tree[1:] if p not in lesson])
                arrival.cpu = arrival.copy_cpu + cpu(tree)
                arrival.rss = rss(tree)
                arrival.server_pss = pss(tree[:1])
                arrival.lesson_pss = pss(lesson)
            student_pids = {p.pid for a in arrivals for p in server_tree(hub, a.name)}
            hub_side = [p for p in hub.record_processes() if p.pid not in student_pids]
            overhead = pss(hub_side)
            hub_cpu = cpu(hub_side)
            load_after = os.getloadavg()
        left = hub.alive()
    times = sorted(a.playground for a in arrivals)
    lessons = sorted(a.lesson for a in arrivals)
    ready = sorted(a.ready for a in arrivals)
    memory = sorted(a.pss / MB for a in arrivals)
    cpus = sorted(a.cpu for a in arrivals)
    print(f"all {students} in {wall:.1f} s; load average during the run (1 min): {load_after[0]:.1f}")
    print(f"login -> server ready:          median {statistics.median(ready):6.1f} s, max {ready[-1]:6.1f} s")
    print(f"login -> playground usable:     median {statistics.median(times):6.1f} s, max {times[-1]:6.1f} s"
          f"   (goal: median <= 15 s for 20)")
    print(f"login -> lesson 0 cells run:    median {statistics.median(lessons):6.1f} s, max {lessons[-1]:6.1f} s")
    with_lesson = sorted((a.server_pss + a.lesson_pss) / MB for a in arrivals)
    print(f"memory per student (PSS), server + lesson 0's kernel: median {statistics.median(with_lesson):.0f} MB, "
          f"max {with_lesson[-1]:.0f} MB   (goal: <= 200 MB with a lesson open)")
    print(f"  of which the server {statistics.median(a.server_pss / MB for a in arrivals):.0f} MB, the lesson's "
          f"kernel {statistics.median(a.lesson_pss / MB for a in arrivals):.0f} MB (medians)")
    print(f"memory per student (PSS), server + lesson + playground ({arrivals[0].processes - 1} kernels): median "
          f"{statistics.median(memory):.0f} MB, max {memory[-1]:.0f} MB")
    resident = sorted(a.rss / MB for a in arrivals)
    print(f"  the same as RSS (libraries counted in every process, as a container's memory cgroup may be charged): "
          f"median {statistics.median(resident):.0f} MB, max {resident[-1]:.0f} MB")
    print(f"CPU per student (course copy + server + kernels, login to here): median {statistics.median(cpus):.1f} s, "
          f"max {cpus[-1]:.1f} s")
    print(f"  of which the start command's finished children (`bleu-lab lessons`, and any process the server waited "
          f"for) {statistics.median(a.copy_cpu for a in arrivals):.2f} s, the server "
          f"{statistics.median(a.server_cpu for a in arrivals):.2f} s, the playground's kernel "
          f"{statistics.median(a.playground_cpu for a in arrivals):.2f} s, lesson 0's kernel "
          f"{statistics.median(a.lesson_cpu for a in arrivals):.2f} s (medians)")
    print(f"hub + proxy + culler: {overhead / MB:.0f} MB PSS ({len(hub_side)} processes), {hub_cpu:.1f} CPU s")
    # z2jh: the guarantee is what the scheduler reserves per student. In a pod, the student's processes share their
    # libraries with each other but not (for the memory cgroup's accounting) with other pods: the RSS of the server and
    # its kernels is what one pod may be charged, so the guarantee covers its maximum.
    guarantee = math.ceil(resident[-1] / 32) * 32
    per_node_200 = 200 * guarantee / 1024
    print("z2jh sizing from these figures:")
    print(f"  singleuser.memory.guarantee: {guarantee}M   (the largest RSS, rounded up to 32 MB)")
    print(f"  200 students: {per_node_200:.0f} GiB of guarantees + the hub's {overhead / MB:.0f} MB "
          f"-> e.g. two nodes of 64 GiB or four of 32 GiB (keep ~10% of a node for the system pods)")
    print(f"  CPU: {statistics.median(cpus):.1f} CPU s per student to log in and open a lesson and the playground: "
          f"200 arriving within a minute need about {200 * statistics.median(cpus) / 60:.0f} cores for that minute")
    if left:
        print(f"processes left after the hub stopped: {[p.pid for p in left]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
