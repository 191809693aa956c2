"""What every ``bleu-lab`` command shares: one-line errors, ``--version``, inputs and outputs checked before work, and
the one command that installs an extra (the lessons' packages, matplotlib for the figures) where a command needs it
and the base install lacks it.

The scoring command (``bleu_lab.cli``) and ``bleu-lab compare`` (``bleu_lab.compare.cli``) both import this module;
it imports neither, so the commands' dependencies point one way.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

from .version import __version__

EXIT_ERROR = 2
# The base install (``pip install bleu_lab``) has no Jupyter package. What the course's commands need beyond it (the
# "lessons" extra of pyproject.toml; tests/test_layers.py checks the two agree), by import name -> distribution:
# JupyterLab and the lessons' packages (lessons, lab), Voila (classroom), a kernel and notebook files (release, grade,
# gradescope, collect).
LESSONS_PACKAGES = {
    "IPython": "ipython", "ipykernel": "ipykernel", "ipywidgets": "ipywidgets", "jupyter_server": "jupyter_server",
    "jupyterlab": "jupyterlab", "nbclient": "nbclient", "nbformat": "nbformat", "nltk": "nltk",
    "traitlets": "traitlets", "voila": "voila",
}
# What drawing needs (the "plots" extra; the "lessons" extra includes it): the HTML report's figures, the lessons' and
# the widgets' plots (bleu_lab.reports.plots). Without it the report says where its figures would be and what to add.
PLOTS_PACKAGES = {"matplotlib": "matplotlib", "PIL": "pillow"}


def version_text(prog: str = "bleu-lab") -> str:
    """``bleu-lab 0.1.0 (sacrebleu 2.6.0, nltk 3.10.4, Python 3.11.7)``: what a bug report needs. nltk, which only
    the lessons use (the "lessons" extra), is named where it is installed."""
    from importlib.metadata import PackageNotFoundError, version

    peers = [f"sacrebleu {version('sacrebleu')}"]
    try:
        peers.append(f"nltk {version('nltk')}")
    except PackageNotFoundError:
        pass
    return f"{prog} {__version__} ({', '.join(peers)}, Python {platform.python_version()})"


def missing_packages(packages: dict[str, str]) -> list[str]:
    """The distributions of ``packages`` (import name -> distribution) this environment lacks, found without
    importing any of them."""
    from importlib.util import find_spec

    return sorted(dist for module, dist in packages.items() if find_spec(module) is None)


def missing_lessons_packages() -> list[str]:
    """The lessons' packages (distribution names, matplotlib's among them) this environment lacks."""
    return missing_packages({**LESSONS_PACKAGES, **PLOTS_PACKAGES})


def install_command(extra: str = "lessons") -> str:
    """The one command that installs pyproject.toml's ``extra`` into this environment, and the folder to run it in:
    in a clone, the README's set-up for the lessons (requirements.txt's pinned versions, the clone installed
    editable), the clone's ``extra`` for another; from a wheel, the wheel's ``extra``."""
    python = sys.executable if sys.platform == "win32" else shlex.quote(sys.executable)  # PowerShell: no quotes
    package = Path(__file__).resolve().parent
    clone = package.parent
    if not (package / "course_files").is_dir() and (clone / "requirements.txt").is_file():
        if extra == "lessons":
            return f"{python} -m pip install -r requirements.txt -e . (in {clone})"
        return f'{python} -m pip install -e ".[{extra}]" (in {clone})'
    wheel = f"bleu_lab-{__version__}-py3-none-any.whl"
    return f'{python} -m pip install "{wheel}[{extra}]" (in the folder holding {wheel})'


def require_lessons(command: str, prog: str = "bleu-lab") -> int:
    """0 if the lessons' packages are installed; else print one line naming the missing ones and the command that
    installs them, and return ``EXIT_ERROR`` (for ``command``, which needs them)."""
    missing = missing_lessons_packages()
    if not missing:
        return 0
    which = "them" if len(missing) == len(LESSONS_PACKAGES) + len(PLOTS_PACKAGES) else ", ".join(missing)
    print(f"{prog} {command}: error: this needs the lessons' packages (JupyterLab, ipywidgets, Voila, nbclient...) "
          f"and this environment lacks {which}: add them with {install_command('lessons')}", file=sys.stderr)
    return EXIT_ERROR


def plots_missing_note() -> str | None:
    """None if matplotlib (the "plots" extra) is installed; else one sentence saying that the figures need it and the
    command that adds it (what a report shows where its figures would be)."""
    missing = missing_packages(PLOTS_PACKAGES)
    if not missing:
        return None
    return (f"The figures need matplotlib, which this environment lacks ({', '.join(missing)}): add it with "
            f"{install_command('plots')}")


def add_version(parser: argparse.ArgumentParser, prog: str = "bleu-lab") -> None:
    """``--version``: print ``version_text`` and exit."""
    parser.add_argument("--version", action="version", version=version_text(prog),
                        help="print bleu_lab's version (and sacrebleu's, nltk's if installed, and Python's) and exit")


def run_with_clear_errors(run: Callable[[argparse.Namespace], object], args: argparse.Namespace, prog: str) -> int:
    """``run(args)``; return 0, or print one line ("PROG: error: ...") and return 2 for an error of the input.

    A warning (e.g. a byte order mark) prints as one "note:" line."""
    with warnings.catch_warnings():
        warnings.simplefilter("always", UserWarning)
        warnings.showwarning = _note
        try:
            run(args)
        except (OSError, ValueError, TypeError, MemoryError) as err:
            print(f"{prog}: error: {err or type(err).__name__}", file=sys.stderr)
            return EXIT_ERROR
    return 0


def _note(message: Warning | str, *args: object, **kwargs: object) -> None:
    print(f"note: {message}", file=sys.stderr)


def note_empty_reference_lines(paths: Sequence[str], streams: Sequence[Sequence[str]], *, dropped: bool = False,
                               drop_option: str | None = "--drop-empty-refs") -> None:
    """Print a note per reference file with empty lines, saying how they are read: as empty references (sacrebleu's
    reading), or with ``dropped`` as "no reference for this segment" (``drop_option`` asks for that)."""
    for path, lines in zip(paths, streams):
        empty = sum(1 for line in lines if not line.strip())
        if not empty:
            continue
        lines_word = "line" if empty == 1 else "lines"
        if dropped and len(streams) > 1:
            meaning = f"'no reference for this segment' ({drop_option})"
        else:
            meaning = "an empty reference, as sacrebleu reads it"
            if not dropped and len(streams) > 1:
                meaning += " (length 0: a short hypothesis there escapes the brevity penalty, see lesson 8" + (
                    f"; {drop_option} reads it as no reference)" if drop_option else ")")
        print(f"note: {path} has {empty} empty {lines_word}, read as {meaning}", file=sys.stderr)


def check_output_file(flag: str, path: str | os.PathLike) -> None:
    """Raise ``ValueError`` naming ``flag`` unless a file can be written at ``path``: not a folder, in a folder that
    exists and is writable (checked before any work, so a long run does not end in a failed write)."""
    target = Path(path)
    if target.is_dir():
        example = target / f"report{_suffix(flag)}"
        raise ValueError(f"{flag} {path} is a folder: give a file name, e.g. {flag} {example}")
    if target.exists() and not os.access(target, os.W_OK):
        raise ValueError(f"{flag} {path} exists and is not writable: give another file name")
    _check_parent(flag, path, target.parent)


def check_output_folder(flag: str, path: str | os.PathLike) -> None:
    """Raise ``ValueError`` naming ``flag`` unless ``path`` is a writable folder, or can be created as one."""
    target = Path(path)
    if target.exists():
        if not target.is_dir():
            raise ValueError(f"{flag} {path} is a file: {flag} takes a folder to write the CSV files into")
        if not os.access(target, os.W_OK | os.X_OK):
            raise ValueError(f"{flag} {path} is a folder you cannot write to: give another folder")
        return
    _check_parent(flag, path, target.parent)


def _check_parent(flag: str, path: str | os.PathLike, parent: Path) -> None:
    folder = parent if str(parent) else Path(".")
    if not folder.is_dir():
        raise ValueError(f"{flag} {path}: the folder {folder} does not exist (create it first, or give another path)")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"{flag} {path}: the folder {folder} is not writable (give a path in a folder you can write)")


def _suffix(flag: str) -> str:
    return {"--html": ".html", "--json": ".json", "--latex": ".tex"}.get(flag, "")


def refuse_repeated_files(flag: str, paths: Sequence[str]) -> None:
    """Raise ``ValueError`` when ``flag`` names one file twice (the same path, or two paths to one file)."""
    seen: dict[object, int] = {}
    for i, path in enumerate(paths):
        key: object = path
        if path != "-":
            try:
                stat = os.stat(path)
                key = (stat.st_dev, stat.st_ino)
            except OSError:
                key = os.path.abspath(path)  # a missing file is reported when it is read
        if key in seen:
            first = paths[seen[key]]
            same = "" if first == path else f" (as {first})"
            raise ValueError(f"{flag}: {path} is given twice{same}: give each file once (two copies of one output "
                             "cannot be told apart by any test)")
        seen[key] = i
