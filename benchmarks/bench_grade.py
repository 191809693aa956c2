"""Benchmark: `bleu-lab grade` on a class's worth of one lesson, with and without bubblewrap, one at a time and
several at once.

N submissions of one lesson (default 200 of 03_brevity_penalty) are made from a fresh release, in a mix like a real
class: the solved copy, the untouched student copy and a broken one (a cell that raises before the answers) in turn,
plus one that sleeps until its --timeout and one that floods its output (12 displays with 25 MB of metadata each).
Each configuration grades the whole batch with the real command in a fresh interpreter and prints one row:

  sandbox, --jobs, wall-clock seconds in all and per notebook, CPU seconds per notebook (the grader, its workers,
  the kernels and marking, all together: counted by a cgroup of the run's own where one can be made, else by
  getrusage, which misses processes nobody waited for, such as a box's kernels) and per ordinary notebook (the same
  total less what the sleeper's and the flood's own processes spent, each kernel counted by its cgroup, over the
  other N - 2; "nan" where there are no such cgroups), the peak memory (VmHWM) of the grader's main process and the
  largest of its workers' (one per notebook; the kernels and marking's child, under --memory, are not counted).

The graded kernels see the packages of an install of ``bleu_lab[grading]``, not the test tools this environment holds
besides (``_common.hiding_code``; the kernels run ``python -I`` in a minimal environment, so a finder their first code
installs refuses them): scipy, for one, is a test peer, and nltk imports scipy.stats when it can, which costs each
kernel about 0.7 CPU s and 45 MB. ``--all-packages`` measures with them.

Goals (issue 35): the grader's peak memory independent of the batch size and at most 300 MB; at most 3 CPU seconds
per ordinary notebook; 200 notebooks of lesson 3 in at most 10 minutes on 2 cores.

First it times the refusal of issue 35's two notebook bombs (41 MB of 900,000 empty raw cells, once 114 s to read;
36 MB of [[]] * 12,000,000 in the metadata, once 54 s) and of two under the size limit (100,000 cells; 1,600,000
empty lists): ``read_submission`` must refuse each in under a second.

    .venv/bin/python benchmarks/bench_grade.py [--n 200] [--lesson 03_brevity_penalty] [--timeout 60]
                                               [--sandbox none bubblewrap] [--jobs 1 2]
                                               [--all-packages]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import nbformat
from _common import REPO, hiding_code

from bleu_lab.hub.cgroups import Cgroup, own_hierarchies

# The grader in this process; its peak (VmHWM) on stderr, and, in the file $WORKER_LOG, one JSON line per worker (one
# per notebook, or per retry of one): its notebook, its peak (kB) and the CPU seconds of that notebook's own processes
# (the worker, marking's child, and each kernel as its cgroup counted it; "kernels": false where a kernel had none).
MEASURED = """\
import json, os, re, resource, sys
from bleu_lab.assignments import batch, notebook
from bleu_lab.cli import main

def peak_kb():
    return int(re.search(r"VmHWM:\\s*(\\d+)", open("/proc/self/status").read()).group(1))

def cpu(who):
    used = resource.getrusage(who)
    return used.ru_utime + used.ru_stime

spent = {"marking": 0.0, "kernels": 0.0, "counted": True}  # this worker's (each worker is a fork: its own copy)
graded_here, make_cgroup, run_limited = batch._grade_here, notebook.kernel_cgroup, notebook.run_limited

def kernel_cgroup(*args, **kwargs):  # each kernel's CPU, read from its cgroup before the cgroup is ended
    group = make_cgroup(*args, **kwargs)
    if group is None:
        spent["counted"] = False
        return group
    end = group.end
    def counted_end(*a, **k):
        stats = [folder / "cpu.stat" for folder, _ in group.folders if (folder / "cpu.stat").exists()]
        usage = [re.search(r"^usage_usec (\\d+)$", path.read_text(), re.M) for path in stats]
        found = [int(m.group(1)) / 1e6 for m in usage if m]
        spent["kernels"] += found[0] if found else 0.0
        spent["counted"] = spent["counted"] and bool(found)
        return end(*a, **k)
    group.end = counted_end
    return group

def limited(*args, **kwargs):  # marking's child (forked by the worker, and waited for)
    before = cpu(resource.RUSAGE_CHILDREN)
    try:
        return run_limited(*args, **kwargs)
    finally:
        spent["marking"] += cpu(resource.RUSAGE_CHILDREN) - before

def measured(path, *args, **kwargs):  # in each worker, after its notebook: the worker's own peak and CPU
    grade = graded_here(path, *args, **kwargs)
    with open(os.environ["WORKER_LOG"], "a") as f:
        f.write(json.dumps({"path": str(path), "peak_kb": peak_kb(), "kernels": spent["counted"],
                            "cpu": cpu(resource.RUSAGE_SELF) + spent["marking"] + spent["kernels"]}) + "\\n")
    return grade

batch._grade_here, notebook.kernel_cgroup, notebook.run_limited = measured, kernel_cgroup, limited
hide = os.environ.get("BENCH_HIDE")  # code each kernel runs first: the packages a grading install lacks, refused
if hide:
    spec_manager = notebook._kernel_spec_manager
    hiding = f"exec({hide!r}, {{}})\\n"
    notebook._kernel_spec_manager = lambda prefix=None, first="": spec_manager(prefix, hiding + first)
code = main(sys.argv[1:])
print("peak-kb", peak_kb(), file=sys.stderr)
sys.exit(code)
"""
FLOOD = ('from IPython.display import display\nfor _ in range(12):\n'
         '    display({"text/plain": "."}, raw=True, metadata={"pad": "A" * 25_000_000})')


def _copy(nb: nbformat.NotebookNode, cell: str | None = None, at: int = 1) -> nbformat.NotebookNode:
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))
    if cell is not None:
        nb.cells.insert(at, nbformat.v4.new_code_cell(cell))
    return nb


def make_class(folder: Path, lesson: str, n: int) -> list[Path]:
    """``n`` submissions of ``lesson`` in ``folder/class/sNNN/``: solved, untouched, broken in turn; +sleeper, flood."""
    from bleu_lab.assignments.release import release

    release(folder / "course", REPO / "notebooks")
    solved = nbformat.read(folder / "course" / "solved" / f"{lesson}.ipynb", as_version=4)
    student = nbformat.read(folder / "course" / "student" / f"{lesson}.ipynb", as_version=4)
    kinds = [_copy(solved), _copy(student), _copy(solved, "raise RuntimeError('a broken notebook')")]
    paths = []
    for i in range(n):
        if i == 1:
            nb = _copy(solved, "import time\ntime.sleep(10 ** 6)")
        elif i == 2:
            nb = _copy(solved, FLOOD)
        else:
            nb = kinds[i % len(kinds)]
        path = folder / "class" / f"s{i:03d}" / f"{lesson}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nb, path)
        paths.append(path)
    return paths


def bombs(folder: Path, lesson: str) -> dict[str, Path]:
    """Issue 35's two bombs and two under the size limit, written as one line of JSON each in ``folder/bombs``."""
    base = json.loads((folder / "course" / "solved" / f"{lesson}.ipynb").read_text(encoding="utf-8"))
    raw = {"cell_type": "raw", "metadata": {}, "source": ""}
    kinds = {"900,000 cells (41 MB)": {**base, "cells": [raw] * 900_000},
             "[[]] * 12,000,000 (36 MB)": {**base, "metadata": {**base["metadata"], "pad": [[]] * 12_000_000}},
             "100,000 cells": {**base, "cells": [raw] * 100_000},
             "[[]] * 1,600,000": {**base, "metadata": {**base["metadata"], "pad": [[]] * 1_600_000}}}
    paths = {}
    for i, (name, nb) in enumerate(kinds.items()):
        paths[name] = folder / "bombs" / str(i) / f"{lesson}.ipynb"
        paths[name].parent.mkdir(parents=True)
        paths[name].write_text(json.dumps(nb, separators=(",", ":")), encoding="utf-8")
    return paths


def time_bombs(paths: dict[str, Path]) -> None:
    """How long ``read_submission`` takes to refuse each bomb (target: under a second), and what it says."""
    from bleu_lab.assignments.submissions import read_submission

    for name, path in paths.items():
        start = time.perf_counter()
        try:
            read_submission(path)
            said = "READ (not refused)"
        except ValueError as err:
            said = str(err)[:90]
        seconds = time.perf_counter() - start
        print(f"bomb {name:<26} refused in {seconds:5.2f} s ({'ok' if seconds < 1 else 'over 1 s'}): {said}")


def cpu_cgroup(name: str) -> Cgroup | None:
    """A new cgroup (``bleu-lab-bench/name``, cgroup v2, under this process's own) whose ``cpu.stat`` counts every
    process moved into it and every process they start (a box's kernels too, whoever reaps them); None where none
    can be made (not root, no writable cgroup v2)."""
    group = Cgroup.make(name, None, None, "bleu-lab-bench", [h for h in own_hierarchies() if h.version == 2])
    return group if group.folders else None


def cgroup_cpu_seconds(group: Cgroup) -> float:
    """The CPU seconds counted in ``group`` (its ``usage_usec``); then whatever is left in it is ended and it is
    removed."""
    stat = (group.folders[0][0] / "cpu.stat").read_text()
    usage = int(re.search(r"^usage_usec (\d+)$", stat, re.MULTILINE).group(1))
    group.end()
    for folder, _ in group.folders:  # the grader leaves its kernels' parent cgroup (empty) inside
        for inside, _, _ in sorted(os.walk(folder), reverse=True)[:-1]:
            with contextlib.suppress(OSError):
                os.rmdir(inside)
    group.remove()
    return usage / 1e6


def run(paths: list[Path], sandbox: str, jobs: int, timeout: float, cwd: Path, hide: str = "",
        special: tuple[Path, ...] = ()) -> dict:
    """Grade ``paths`` once with the real command; ``hide``: code each graded kernel runs first (``hiding_code``);
    ``special``: the notebooks left out of the CPU per ordinary notebook (the sleeper and the flood)."""
    log = cwd / f"workers-{sandbox}-{jobs}.jsonl"
    group = cpu_cgroup(f"bleu-lab-bench-grade-{os.getpid()}-{sandbox}-{jobs}")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-I", "-c", MEASURED, "grade", *map(str, paths), "--seed", "1",
                           "--timeout", str(timeout), "--sandbox", sandbox, "--jobs", str(jobs)],
                          capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, "WORKER_LOG": str(log), "BENCH_HIDE": hide},
                          preexec_fn=None if group is None else lambda: group.join(os.getpid()))
    seconds = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime) if group is None
           else cgroup_cpu_seconds(group))
    own = re.search(r"^peak-kb (\d+)$", done.stderr, re.MULTILINE)
    workers = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    scores = re.findall(r"^score: .*$", done.stdout, re.MULTILINE)
    if done.returncode != 0 or len(scores) != len(paths):
        print(done.stdout[-2000:], done.stderr[-2000:], file=sys.stderr)
    return {"code": done.returncode, "seconds": seconds, "cpu": cpu, "scores": len(scores),
            "ordinary_cpu": ordinary_cpu(cpu, len(paths), workers, {str(p) for p in special}, group is not None),
            "marks": ", ".join(f"{count} x {score[7:]}" for score, count in Counter(scores).most_common()),
            "own_mb": int(own.group(1)) / 1024 if own else float("nan"),
            "worker_mb": max((w["peak_kb"] for w in workers), default=0) / 1024}


def ordinary_cpu(total: float, n: int, workers: list[dict], special: set[str], whole: bool) -> float:
    """CPU seconds per ordinary notebook: ``total`` (the whole run's, every process of it: ``whole``) less what the
    ``special`` notebooks' own processes spent (their workers, marking and kernels, from ``workers``: the lines
    MEASURED writes), over the other notebooks; the grader's own start and loop are shared among those. NaN where it
    cannot be counted (no cgroup for the run or for a special notebook's kernels)."""
    theirs = [w for w in workers if w["path"] in special]
    counted = {w["path"] for w in theirs} == special and all(w["kernels"] for w in theirs)
    if not whole or not counted or len(special) >= n:
        return float("nan")
    return (total - sum(w["cpu"] for w in theirs)) / (n - len(special))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--lesson", default="03_brevity_penalty")
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--sandbox", nargs="+", default=["none", "bubblewrap"])
    parser.add_argument("--jobs", nargs="+", type=int, default=sorted({1, os.cpu_count() or 1}))
    parser.add_argument("--all-packages", action="store_true",
                        help="let the graded kernels import this environment's test tools too (scipy, ...)")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, "
          f"Python {platform.python_version()}; load average {os.getloadavg()[0]:.1f} at the start")
    print(f"{args.n} submissions of {args.lesson} (solved, untouched, broken in turn; one sleeps to --timeout "
          f"{args.timeout:g} s, one floods 300 MB of output)")
    probe = cpu_cgroup(f"bleu-lab-bench-grade-{os.getpid()}-probe")
    if probe is not None:
        probe.remove()
    print("CPU seconds counted by " + ("a cgroup of the run's own: every process of it" if probe else
          "getrusage: only processes their parents waited for (a box's kernels may be missed; run as root with a "
          "writable cgroup v2 to count them all)"))
    hide = ""
    if not args.all_packages:
        hide, hidden = hiding_code(("grading",))
        print(f"hidden from the graded kernels (not installed by bleu_lab[grading]; --all-packages keeps them): "
              f"{', '.join(hidden)}")
    with tempfile.TemporaryDirectory(prefix="bleu-lab-bench-grade-") as tmp:
        folder = Path(tmp)
        paths = make_class(folder, args.lesson, args.n)
        time_bombs(bombs(folder, args.lesson))
        special = tuple(paths[1:3])  # the sleeper and the flood (make_class)
        print(f"{'sandbox':<11} {'jobs':>4} {'graded':>6} {'wall s':>8} {'s/nb':>6} {'CPU s/nb':>8} {'/ordinary':>9} "
              f"{'grader MB':>9} {'worker MB':>9}")
        for sandbox in args.sandbox:
            for jobs in args.jobs:
                if jobs > 1 and sandbox != "bubblewrap":
                    continue  # refused: several at once needs the sandbox
                r = run(paths, sandbox, jobs, args.timeout, folder, hide, special)
                print(f"{sandbox:<11} {jobs:>4} {r['scores']:>6} {r['seconds']:>8.1f} {r['seconds'] / args.n:>6.2f} "
                      f"{r['cpu'] / args.n:>8.2f} {r['ordinary_cpu']:>9.2f} {r['own_mb']:>9.0f} {r['worker_mb']:>9.0f}"
                      + ("" if r["code"] == 0 else f"  (exit {r['code']})") + f"  [{r['marks']}]", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
