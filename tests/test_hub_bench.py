"""A hub benchmark killed while it runs leaves nothing behind: benchmarks/bench_hub.py with one student, sent SIGTERM
once that student's server is up, stops the hub, the proxy, the culler, the server (and any kernel) and removes its
folder before it exits.

Skips with a reason without jupyterhub (the ``hub`` extra) or configurable-http-proxy (npm); fails instead when
BLEU_LAB_REQUIRE_HUB=1 (CI sets it).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

hub_harness = pytest.importorskip("hub_harness", reason="tests/hub_harness.py needs psutil and requests")
import psutil  # noqa: E402 (after the skip: hub_harness needs it too)

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_hub.py"
UP_TIMEOUT = 300  # the hub's start and one server's, on a busy 2-core machine
EXIT_TIMEOUT = 120  # the hub's own stop (cleanup_servers) and what is killed after it


def lines_of(process: subprocess.Popen) -> queue.Queue[str | None]:
    """The process's output, line by line as it comes (None at its end), read in a daemon thread."""
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        for line in process.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    return lines


def wait_for_line(lines: queue.Queue[str | None], pattern: str, seen: list[str], timeout: float) -> re.Match[str]:
    deadline = time.monotonic() + timeout
    while True:
        try:
            line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
        except queue.Empty:
            raise AssertionError(f"no line matching {pattern!r} within {timeout} s:\n{''.join(seen)}") from None
        if line is None:
            raise AssertionError(f"the bench ended before printing {pattern!r}:\n{''.join(seen)}")
        seen.append(line)
        if found := re.search(pattern, line):
            return found


def alive(recorded: dict[int, float]) -> list[psutil.Process]:
    """The recorded processes (pid -> start time) still running; zombies count as gone."""
    left = []
    for pid, created in recorded.items():
        with contextlib.suppress(psutil.NoSuchProcess):
            proc = psutil.Process(pid)
            if proc.create_time() == created and proc.status() != psutil.STATUS_ZOMBIE:
                left.append(proc)
    return left


def test_a_bench_killed_with_sigterm_leaves_nothing() -> None:
    hub_harness.require_hub()
    bench = subprocess.Popen([sys.executable, str(BENCH), "--students", "1"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, start_new_session=True)
    lines, seen, recorded = lines_of(bench), [], {}
    try:
        folder = Path(wait_for_line(lines, r"^the hub answers at \S+ \(pid \d+, folder (.+)\)$", seen, UP_TIMEOUT)[1])
        wait_for_line(lines, r"^student000: wait for the server: done", seen, UP_TIMEOUT)
        tree = psutil.Process(bench.pid).children(recursive=True)
        for proc in tree:
            with contextlib.suppress(psutil.NoSuchProcess):
                recorded[proc.pid] = proc.create_time()
        commands = " ".join(" ".join(p.cmdline()) for p in tree if p.is_running())
        for part in ("jupyterhub -f", "configurable-http-proxy", "jupyterhub_idle_culler", "jupyterhub-singleuser"):
            assert part in commands, f"no {part} among the bench's processes: {commands}"

        bench.send_signal(signal.SIGTERM)
        bench.wait(EXIT_TIMEOUT)
        while (line := lines.get(timeout=10)) is not None:
            seen.append(line)
        assert bench.returncode == 128 + signal.SIGTERM, "".join(seen)
        assert "SIGTERM: stopping the hub and everything it started" in "".join(seen)
        left = alive(recorded)
        assert not left, f"left running after the bench exited: {[(p.pid, p.cmdline()) for p in left]}"
        assert not folder.exists(), f"{folder} left behind"
    finally:
        for proc in [*alive(recorded), *([psutil.Process(bench.pid)] if bench.poll() is None else [])]:
            with contextlib.suppress(psutil.NoSuchProcess):
                proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            bench.wait(10)


def test_the_bench_hides_from_students_what_a_hub_install_lacks(tmp_path: Path) -> None:
    """The students' processes see the packages of ``pip install bleu_lab[hub]``: this environment's test tools
    (scipy, which nltk would import in every lesson's kernel; pytest) are stood in for by modules that raise
    ModuleNotFoundError, and what the hub extra installs (nltk, jupyterhub, the server) still imports."""
    sys.path.insert(0, str(BENCH.parent))
    try:
        import _common
        import bench_hub
    finally:
        sys.path.remove(str(BENCH.parent))
    installed = _common.extra_install(("hub",))
    assert {"bleu-lab", "jupyterhub", "jupyter-server", "jupyterlab", "voila", "nltk", "sacrebleu"} <= installed
    hidden = bench_hub.hidden_packages(tmp_path, ("hub",))
    assert "pytest" in hidden and not {"nltk", "jupyterhub", "pip", "setuptools"} & set(hidden)
    probe = ("import importlib, json, sys\nout = {}\nfor name in sys.argv[1:]:\n    try:\n"
             "        importlib.import_module(name)\n        out[name] = 'imported'\n"
             "    except ModuleNotFoundError as error:\n        out[name] = str(error)\nprint(json.dumps(out))")
    names = ["pytest", "nltk.translate.bleu_score", "jupyterhub.singleuser"] + (["scipy"] if "scipy" in hidden else [])
    run = subprocess.run([sys.executable, "-c", probe, *names], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(tmp_path)}, check=True)
    found = json.loads(run.stdout)
    assert found.pop("nltk.translate.bleu_score") == "imported" and found.pop("jupyterhub.singleuser") == "imported"
    assert all(text.endswith("(not in bleu_lab[hub])") for text in found.values()), found
