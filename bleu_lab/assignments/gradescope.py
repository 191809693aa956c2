"""``bleu-lab gradescope LESSON ... -o autograder.zip``: a Gradescope autograder that grades with ``bleu-lab grade``.

Gradescope's autograder specification (https://gradescope-autograders.readthedocs.io/en/latest/specs/): a zip with
``setup.sh`` and ``run_autograder`` at its root. Gradescope unpacks it into ``/autograder/source``, runs ``setup.sh``
once (as root) when it builds the autograder's image, then, for each submission, ``/autograder/run_autograder`` with
the student's files in ``/autograder/submission``; that must write ``/autograder/results/results.json``.

The zip holds:

- the bleu_lab wheel (``--wheel``, or built now from this clone with ``pip wheel``), and ``constraints.txt``: each
  of bleu_lab's dependencies at the version installed where the command runs (so Gradescope grades with the
  versions the instructor tested; a clone set up from the README has requirements.txt's pins);
- ``setup.sh``: finds a Python >= 3.11 (Gradescope's default image, Ubuntu 22.04, has 3.10 as ``python3``; then it
  installs Ubuntu's ``python3.11``), makes a venv ``/autograder/bleu-lab-venv`` and installs the wheel there with
  pip, which takes the wheel's dependencies from PyPI, pinned by ``constraints.txt``. Nothing else is downloaded,
  and nothing at all when a submission is graded;
- ``run_autograder``: grades the submission's notebooks with that venv's bleu_lab (``run_autograder`` below) into
  ``results/results.json``. Both scripts work under ``$AUTOGRADER_ROOT`` (default ``/autograder``), so that a test
  can run them in a temporary folder laid out like Gradescope's;
- ``bleu-lab-autograder.json``: the lessons, the time limit per notebook and the seed of the hidden cases (none: a
  fresh one for each submission, printed in the instructor's output and kept in ``extra_data``).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from . import lesson_gradings
from .grade import check_timeout, grade_batch
from .gradebook import gradescope_results, write_gradescope
from .processes import descendants, end_leftovers, subreaper

CONFIG_NAME = "bleu-lab-autograder.json"
CONSTRAINTS_NAME = "constraints.txt"
VENV = "bleu-lab-venv"  # under the autograder root
DEFAULT_TIMEOUT = 120  # seconds per notebook (the lessons run in 2-11 s; marking may take as long again)
MAX_NOTEBOOKS = 20  # notebooks of one submission graded at most (the rest are named in the output, not run)
SKIPPED_PARTS = (".ipynb_checkpoints", "__MACOSX")

SETUP_SH = r"""#!/usr/bin/env bash
# Written by `bleu-lab gradescope`. Gradescope runs it once, as root, when it builds the autograder (the zip is
# unpacked in /autograder/source). It installs the bleu_lab wheel of this zip, and its dependencies from PyPI with
# the versions of constraints.txt, in a venv of its own; nothing is downloaded when a submission is graded.
set -euo pipefail
root="${AUTOGRADER_ROOT:-/autograder}"
source="$root/source"
python=""
for candidate in python3.13 python3.12 python3.11 python3; do
    if command -v "$candidate" > /dev/null && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
        python="$candidate"
        break
    fi
done
if [ -z "$python" ]; then  # Ubuntu 22.04 (Gradescope's default image) has Python 3.10 as python3
    apt-get update
    apt-get install -y python3.11 python3.11-venv
    python=python3.11
fi
if ! "$python" -m venv "$root/bleu-lab-venv"; then  # Ubuntu ships venv's pip apart, as PYTHON-venv
    apt-get update
    apt-get install -y "$(basename "$python")-venv"
    "$python" -m venv "$root/bleu-lab-venv"
fi
wheel="$(echo "$source"/bleu_lab-*.whl)"  # with its "lessons" extra: the kernel and notebook packages grading needs
if ! "$root/bleu-lab-venv/bin/pip" install --no-cache-dir -c "$source/constraints.txt" "$wheel[lessons]"; then
    # constraints.txt holds the versions of the instructor's Python; a release may not exist for this one
    echo "setup.sh: the versions in constraints.txt do not install on this Python: the newest that fit instead" >&2
    "$root/bleu-lab-venv/bin/pip" install --no-cache-dir "$wheel[lessons]"
fi
"$root/bleu-lab-venv/bin/python" -I -c \
    'import sys; from bleu_lab.assignments.gradescope import check_config; check_config(sys.argv[1])' "$source"
# bubblewrap: `bleu-lab grade` runs each kernel in its sandbox where it can start (a container may forbid the user
# namespaces it needs); without it, grading goes on with the private-copy isolation and the report's header says so.
if ! command -v bwrap > /dev/null; then
    { apt-get update && apt-get install -y bubblewrap; } \
        || echo "setup.sh: bubblewrap not installed: submissions are graded without its sandbox" >&2
fi
"""

RUN_AUTOGRADER = r"""#!/usr/bin/env bash
# Written by `bleu-lab gradescope`. Gradescope runs it for each submission: it grades the notebooks in
# $root/submission with `bleu-lab grade` and writes $root/results/results.json.
set -u
root="${AUTOGRADER_ROOT:-/autograder}"
python="$root/bleu-lab-venv/bin/python"
mkdir -p "$root/results"
cd "$root"
if [ ! -x "$python" ]; then
    echo '{"score": 0, "output": "The autograder is not set up (no bleu-lab-venv): ask your instructor."}' \
        > "$root/results/results.json"
    echo "run_autograder: $python is missing: setup.sh did not run or failed" >&2
    exit 1
fi
exec "$python" -I -c \
    'import sys; from bleu_lab.assignments.gradescope import run_autograder; sys.exit(run_autograder(sys.argv[1]))' \
    "$root"
"""


@dataclass
class Autograder:
    """What ``build_autograder`` wrote."""

    path: Path
    wheel: str
    lessons: list[str]
    timeout: float


def check_lessons(lessons: list[str]) -> list[str]:
    """``lessons`` as given, each a lesson with graded exercises; ValueError naming the wrong one otherwise."""
    gradings = lesson_gradings()
    if not lessons:
        raise ValueError("LESSON: give at least one lesson, e.g. 03_brevity_penalty")
    for lesson in lessons:
        if lesson not in gradings:
            raise ValueError(f"LESSON {lesson!r}: there is no such lesson (one of {', '.join(sorted(gradings))})")
        if not gradings[lesson].exercises:
            raise ValueError(f"LESSON {lesson}: it has no graded exercises")
    if len(set(lessons)) != len(lessons):
        raise ValueError(f"LESSON: a lesson is given twice ({' '.join(lessons)})")
    return list(lessons)


def check_config(source: str | Path) -> dict:
    """The autograder's configuration in ``source`` (checked against the installed bleu_lab: every lesson exists).
    setup.sh calls it, so that a wheel without the lessons fails when the image is built, not at every submission."""
    config = json.loads((Path(source) / CONFIG_NAME).read_text(encoding="utf-8"))
    check_lessons(list(config.get("lessons", [])))
    check_timeout(config.get("timeout"))
    seed = config.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ValueError(f"{CONFIG_NAME}: seed must be a whole number >= 0 or null, not {seed!r}")
    return config


def clone_root() -> Path | None:
    """The top of the clone bleu_lab runs from (None for an installed wheel: no source to build from)."""
    root = Path(__file__).resolve().parent.parent.parent
    return root if (root / "pyproject.toml").is_file() and (root / "setup.py").is_file() else None


def build_wheel(into: Path) -> Path:
    """Build this clone's wheel into ``into`` with ``pip wheel`` (from a copy, so the clone gets no build/ folder)."""
    root = clone_root()
    if root is None:
        raise ValueError("--wheel: bleu_lab is installed from a wheel, not run from a clone, so there is no source "
                         "to build one from: pass --wheel with the bleu_lab wheel to carry")
    copy = into / "source"
    ignore = shutil.ignore_patterns(".*", "__pycache__", "build", "dist", "*.egg-info", "bleu-lab-course")
    shutil.copytree(root, copy, ignore=ignore)
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir",
                           str(into / "dist"), str(copy)], capture_output=True, text=True)
    wheels = sorted((into / "dist").glob("bleu_lab-*.whl"))
    if done.returncode != 0 or len(wheels) != 1:
        raise RuntimeError(f"pip wheel could not build bleu_lab's wheel:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return wheels[0]


def check_wheel(wheel: Path) -> Path:
    """``wheel`` if it is a bleu_lab wheel; ValueError naming it otherwise."""
    if not wheel.is_file():
        raise FileNotFoundError(f"--wheel {wheel}: no such file")
    if not (wheel.name.startswith("bleu_lab-") and wheel.suffix == ".whl"):
        raise ValueError(f"--wheel {wheel}: expected bleu_lab's wheel, a file named bleu_lab-VERSION-...whl")
    try:
        with zipfile.ZipFile(wheel) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError) as exc:
        raise ValueError(f"--wheel {wheel}: not a readable wheel ({exc})") from exc
    if "bleu_lab/assignments/grade.py" not in names:
        raise ValueError(f"--wheel {wheel}: it holds no bleu_lab/assignments/grade.py")
    return wheel


def constraints() -> str:
    """pip constraints: each dependency of bleu_lab (extras left out) at the version installed here, the one this
    bleu_lab grades with (for a clone, requirements.txt's pins, which CI tests)."""
    from importlib import metadata

    lines = []
    for requirement in metadata.requires("bleu_lab") or []:
        if "extra" in requirement.partition(";")[2]:  # an optional extra (grading, mecab, test)
            continue
        name = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
        try:
            version = metadata.version(name.group(0)) if name else None
        except metadata.PackageNotFoundError:
            version = None
        if version:
            lines.append(f"{name.group(0)}=={version}")
    return "".join(f"{line}\n" for line in sorted(lines, key=str.lower))


def build_autograder(lessons: list[str], output: Path, *, wheel: Path | None = None,
                     timeout: float = DEFAULT_TIMEOUT, seed: int | None = None) -> Autograder:
    """Write Gradescope's autograder zip for ``lessons`` to ``output`` (see the module's docstring)."""
    lessons = check_lessons(lessons)
    check_timeout(timeout)
    if seed is not None and seed < 0:
        raise ValueError(f"--seed must be >= 0, not {seed}")
    if output.suffix != ".zip":
        raise ValueError(f"-o {output}: expected a .zip file name (Gradescope takes a zip)")
    if not output.parent.is_dir():
        raise FileNotFoundError(f"-o {output}: the folder {output.parent} does not exist")
    with tempfile.TemporaryDirectory(prefix="bleu-lab-gradescope-") as tmp:
        wheel = check_wheel(wheel) if wheel is not None else build_wheel(Path(tmp))
        config = {"lessons": lessons, "timeout": timeout, "seed": seed}
        with zipfile.ZipFile(output, "w", zipfile.ZIP_DEFLATED) as archive:
            _add(archive, "setup.sh", SETUP_SH, executable=True)
            _add(archive, "run_autograder", RUN_AUTOGRADER, executable=True)
            _add(archive, CONFIG_NAME, json.dumps(config, indent=1) + "\n")
            _add(archive, CONSTRAINTS_NAME, constraints())
            archive.write(wheel, wheel.name)
    return Autograder(output, wheel.name, lessons, timeout)


def _add(archive: zipfile.ZipFile, name: str, text: str, *, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (0o100755 if executable else 0o100644) << 16
    archive.writestr(info, text)


# ------------------------------------------------------------------------------------------------ in Gradescope


def submitted_notebooks(submission: Path) -> tuple[list[Path], list[str]]:
    """The notebooks to grade in ``submission`` (sorted; checkpoints, hidden files and macOS zip leftovers skipped),
    and a line for each file that is not graded (a link or special file, or one over ``MAX_NOTEBOOKS``)."""
    found, notes = [], []
    for path in sorted(submission.rglob("*.ipynb")) if submission.is_dir() else []:
        parts = path.relative_to(submission).parts
        if any(part.startswith(".") or part in SKIPPED_PARTS for part in parts):
            continue
        shown = "/".join(parts)
        if path.is_symlink() or not path.is_file():
            notes.append(f"{shown}: not graded: a link / not a regular file")
        elif len(found) >= MAX_NOTEBOOKS:
            notes.append(f"{shown}: not graded: more than {MAX_NOTEBOOKS} notebooks in the submission")
        else:
            found.append(path)
    return found, notes


def run_autograder(root: str | Path = "/autograder") -> int:
    """Grade ``root/submission`` as the lessons of ``root/source``'s configuration and write
    ``root/results/results.json``; the grader's report goes to stdout (Gradescope shows it to instructors only).
    Returns 0; 1 (with a results.json that says so) if the autograder itself failed.

    The results are written only once no process of the submission runs (``processes``: this process is their
    subreaper, not dumpable, and ends every one of them), atomically (a temporary file in the same folder, then
    ``os.replace``), and read back: a results.json that is not what the grader wrote is an error, never a score."""
    root = Path(root)
    results_path = root / "results" / "results.json"
    results_path.parent.mkdir(parents=True, exist_ok=True)
    code = 0
    with subreaper():
        keep = descendants()
        try:
            results = _grade_submission(root)
        except Exception as exc:  # noqa: BLE001 - Gradescope needs a results.json, whatever went wrong
            print(f"run_autograder: the autograder failed: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
            results, code = _failed("The autograder failed before it could grade your submission"), 1
        ended = end_leftovers(keep)
        if ended:
            print(f"run_autograder: {ended} process(es) of the submission were still running: ended", flush=True)
        if descendants() - keep:
            print("run_autograder: processes of the submission could not be ended: no marks", file=sys.stderr,
                  flush=True)
            results, code = _failed("Your submission left processes running that could not be ended"), 1
        try:
            _write_results(results_path, results)
        except (OSError, ValueError) as exc:
            print(f"run_autograder: {exc}", file=sys.stderr, flush=True)
            return 1
    print(f"results: {results_path}: {results.get('score')} points", flush=True)
    return code


def _failed(what: str) -> dict:
    return {"score": 0, "stdout_visibility": "hidden", "output": f"{what}; your instructor can see why."}


def _write_results(path: Path, results: dict) -> None:
    """``results`` into ``path`` atomically, then read back: ``ValueError`` if the file holds anything else."""
    fd, temp = tempfile.mkstemp(prefix=".results-", suffix=".json", dir=path.parent)
    os.close(fd)
    try:
        os.chmod(temp, 0o644)
        write_gradescope(temp, results)
        os.replace(temp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
    expected = json.loads(json.dumps(results, ensure_ascii=False))
    try:
        written = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path} could not be read back after writing it ({type(exc).__name__})") from exc
    if written != expected:
        raise ValueError(f"{path} changed after the grader wrote it: something of the submission still runs")


def _grade_submission(root: Path) -> dict:
    """The results of ``root/submission`` (see ``run_autograder``)."""
    config = check_config(root / "source")
    lessons, timeout = list(config["lessons"]), config["timeout"]
    seed = config.get("seed")
    seed = secrets.randbelow(2 ** 32) if seed is None else seed
    notebooks, notes = submitted_notebooks(root / "submission")
    grades: list = []
    code = 0
    if notebooks:
        # One lesson: grade whatever the notebook is called. Several: each notebook says which it is. One notebook
        # of each lesson is graded (of several, the one named after it: roster.check_batch).
        code = grade_batch(notebooks, timeout=timeout, seed=seed, lesson=lessons[0] if len(lessons) == 1 else None,
                           out=sys.stdout, grades=grades, students=lambda path: "this submission")
    if len(lessons) == 1:  # a notebook that could not be read is still the submission of the one lesson
        for grade in grades:
            grade.lesson = lessons[0]
    extra = {"seed": seed, "lessons": lessons}
    if code != 0:
        return {"score": 0, "output": "Your submission could not be graded: the grader's own files changed while it "
                "ran. No marks are given; your instructor can see why.", "stdout_visibility": "hidden",
                "extra_data": extra}
    try:
        return gradescope_results(grades, lessons, notes, extra)
    except ValueError as err:  # two notebooks of one lesson
        return gradescope_results([], lessons, [*notes, f"Not graded: {err}. Submit one notebook per lesson."], extra)
