"""How heavy is a student's install, and how long does the test suite take? (the figures the README states)

    python benchmarks/bench_install.py            # student venv size (fresh venv in a temp dir) and suite time
    python benchmarks/bench_install.py --no-suite # only the install size

The student install is the README's set-up command: ``pip install -r requirements.txt -e .`` in a new venv made
by the Python running this script. The test extra (``-e ".[test]"``) is measured on top of it. The suite time is
``python -m pytest`` in the project's own ``.venv`` (the README's test command, after set-up), wall clock.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MB = 1_000_000


def folder_size(path: Path) -> int:
    """Bytes in the files under ``path`` (symlinks not followed)."""
    return sum(f.lstat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def pip_install(venv: Path, *args: str) -> float:
    """Run pip in ``venv`` with ``args`` from the project root; return the seconds it took."""
    pip = venv / ("Scripts" if sys.platform == "win32" else "bin") / "pip"
    start = time.perf_counter()
    subprocess.run([str(pip), "install", "-q", *args], cwd=ROOT, check=True)
    return time.perf_counter() - start


def measure_install() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        venv = Path(tmp) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        seconds = pip_install(venv, "-r", "requirements.txt", "-e", ".")
        student = folder_size(venv)
        print(f"student install (requirements.txt -e .): {student / MB:.0f} MB, set-up {seconds:.0f} s")
        seconds = pip_install(venv, "-r", "requirements.txt", "-e", ".[test]")
        print(f"with the test extra (-e \".[test]\"):      {folder_size(venv) / MB:.0f} MB (+{seconds:.0f} s)")


def measure_suite() -> None:
    python = ROOT / ".venv" / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    if not python.exists():
        print("no .venv: run the README's test command once, then measure the suite again")
        return
    start = time.perf_counter()
    result = subprocess.run([str(python), "-m", "pytest", "-q"], cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    summary = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else "(no output)"
    print(f"test suite (python -m pytest): {seconds:.0f} s wall clock: {summary}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-suite", action="store_true", help="measure only the install size")
    args = parser.parse_args()
    measure_install()
    if not args.no_suite:
        measure_suite()


if __name__ == "__main__":
    main()
