"""How heavy are the installs, and how long does the test suite take? (the figures the README states)

    python benchmarks/bench_install.py            # base and student venv sizes (fresh venvs in a temp dir), suite time
    python benchmarks/bench_install.py --no-suite # only the install sizes

Each install is made in a new venv by the Python running this script, with the versions requirements.txt pins:

- base: ``pip install .`` (no extra; of a clean copy of the repository): the metric, ``bleu-lab compare``, ``why``,
  chrF, TER, the significance tests and the reports, without Jupyter or matplotlib (.ci/base_install_check.sh bounds
  it); then the same venv with the "plots" extra (``pip install ".[plots]"``: matplotlib, for the report's figures);
- student: the README's set-up command, ``pip install -r requirements.txt -e .``: everything the lessons, classroom
  mode and the assignments use (the same packages as a wheel's ``[lessons]`` extra, which includes ``[plots]``);
- the test extra (``-e ".[test]"``), measured on top of the student install.

Each size is every file in the venv (``__pycache__`` included: pip compiles at install), followed by its largest
distributions. The suite time is ``python -m pytest`` in the project's own ``.venv`` (the README's test command,
after set-up), wall clock.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MB = 1_000_000
# Left out of the clean copy the base install builds from (a build in place would leave build/ in the repository).
NOT_COPIED = (".venv*", ".git", "build", "dist", "*.egg-info", "bleu-lab-course", "__pycache__", ".hypothesis")


def folder_size(path: Path) -> int:
    """Bytes in the files under ``path`` (symlinks not followed)."""
    return sum(f.lstat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def distribution_sizes(venv: Path) -> dict[str, int]:
    """Bytes each installed distribution's files take (the files its RECORD lists, compiled bytecode included)."""
    sizes = {}
    for record in venv.glob("lib*/python*/site-packages/*.dist-info/RECORD"):
        site = record.parent.parent
        name = record.parent.name.removesuffix(".dist-info").rsplit("-", 1)[0]
        files = {(site / line.split(",", 1)[0]).resolve() for line in record.read_text(encoding="utf-8").splitlines()
                 if line.strip()}
        sizes[name] = sum(f.lstat().st_size for f in files if f.is_file() and not f.is_symlink())
    return sizes


def largest(venv: Path, count: int = 8) -> str:
    sizes = sorted(distribution_sizes(venv).items(), key=lambda item: -item[1])
    return ", ".join(f"{name} {size / MB:.0f}" for name, size in sizes[:count])


def new_venv(path: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
    return path


def pip_install(venv: Path, *args: str) -> float:
    """Run pip in ``venv`` with ``args`` from the project root; return the seconds it took."""
    pip = venv / ("Scripts" if sys.platform == "win32" else "bin") / "pip"
    start = time.perf_counter()
    subprocess.run([str(pip), "install", "-q", *args], cwd=ROOT, check=True)
    return time.perf_counter() - start


def measure_install() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        empty = folder_size(new_venv(tmp / "empty"))
        print(f"an empty venv (pip, and setuptools before Python 3.12): {empty / MB:.0f} MB")
        constraints = tmp / "constraints.txt"
        pins = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
        constraints.write_text("\n".join(line for line in pins if not line.startswith("./")) + "\n")
        source = tmp / "source"
        shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*NOT_COPIED))
        venv = new_venv(tmp / "base")
        seconds = pip_install(venv, "-c", str(constraints), str(source))
        print(f"base install (pip install ., no extra):    {folder_size(venv) / MB:.0f} MB, set-up {seconds:.0f} s")
        print(f"  largest (MB): {largest(venv)}")
        seconds = pip_install(venv, "-c", str(constraints), f"{source}[plots]")
        print(f"with the plots extra (\".[plots]\"):          {folder_size(venv) / MB:.0f} MB (+{seconds:.0f} s)")
        venv = new_venv(tmp / "student")
        seconds = pip_install(venv, "-r", "requirements.txt", "-e", ".")
        print(f"student install (requirements.txt -e .):  {folder_size(venv) / MB:.0f} MB, set-up {seconds:.0f} s")
        print(f"  largest (MB): {largest(venv, 12)}")
        seconds = pip_install(venv, "-r", "requirements.txt", "-e", ".[test]")
        print(f"with the test extra (-e \".[test]\"):        {folder_size(venv) / MB:.0f} MB (+{seconds:.0f} s)")


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
