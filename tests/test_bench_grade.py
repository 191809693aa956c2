"""benchmarks/bench_grade.py measures what a grading install costs: its graded kernels (``python -I`` in the grader's
minimal environment, where PYTHONPATH does not reach) cannot import this environment's test tools, which
``bleu_lab[grading]`` does not install; what that install has still imports.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import nbformat

from bleu_lab.assignments.release import release

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))
import _common  # noqa: E402 (benchmarks/_common.py)
import bench_grade  # noqa: E402

LESSON = "03_brevity_penalty"


def test_a_graded_kernel_cannot_import_what_a_grading_install_lacks(tmp_path: Path) -> None:
    """A real grader run through the bench's own wrapper: the kernel's ``import pytest`` (a test tool) raises
    ModuleNotFoundError naming the extra, and the lesson's own imports (nltk, sacrebleu, numpy) still work: the
    solved notebook keeps its full marks."""
    hide, hidden = _common.hiding_code(("grading",))
    assert "pytest" in hidden and not {"nltk", "ipykernel", "nbclient", "pip", "setuptools"} & set(hidden)
    release(tmp_path / "course", bench_grade.REPO / "notebooks")
    solved = nbformat.read(tmp_path / "course" / "solved" / f"{LESSON}.ipynb", as_version=4)
    path = tmp_path / "class" / "s0" / f"{LESSON}.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(bench_grade._copy(solved, "import pytest"), path)
    done = subprocess.run([sys.executable, "-I", "-c", bench_grade.MEASURED, "grade", str(path), "--sandbox", "none"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600,
                          env={**os.environ, "WORKER_LOG": str(tmp_path / "workers.jsonl"), "BENCH_HIDE": hide})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "cell 2: ModuleNotFoundError: No module named 'pytest' (not in bleu_lab[grading])" in done.stdout
    assert "score: 5 / 5" in done.stdout, done.stdout[-2000:]


def test_cpu_per_ordinary_notebook_leaves_out_what_the_sleeper_and_the_flood_spent() -> None:
    """The run's total less the special notebooks' own processes (a retry's worker counted too), over the others;
    NaN where a part cannot be counted (no cgroup for the run, a special kernel without one, a special not logged)."""
    workers = [{"path": "a", "cpu": 3.0, "kernels": True}, {"path": "sleeper", "cpu": 0.5, "kernels": True},
               {"path": "flood", "cpu": 1.0, "kernels": True}, {"path": "flood", "cpu": 0.5, "kernels": True}]
    special = {"sleeper", "flood"}
    assert bench_grade.ordinary_cpu(10.0, 4, workers, special, True) == 4.0
    assert math.isnan(bench_grade.ordinary_cpu(10.0, 4, workers, special, False))
    assert math.isnan(bench_grade.ordinary_cpu(10.0, 4, workers[:2], special, True))
    assert math.isnan(bench_grade.ordinary_cpu(10.0, 4, [*workers, {"path": "sleeper", "cpu": 0.1, "kernels": False}],
                                               special, True))
