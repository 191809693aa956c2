"""The course: this module is the course on disk (below), which the core reads too (the shipped data's location) and
which needs no Jupyter; the rest of the package is the layer the lessons run on, which needs the "lessons" extra:
``exercises/`` (each lesson's checks and its GRADING declaration), ``widgets/`` (the lessons' widgets, view models
apart from the ipywidgets views), ``handout.py`` (a lesson as handed out for graded work) and ``classroom.py``
(Voila's classroom mode). Nothing here imports the hub or the grader.

The course on disk: where its files are, a student's working copy of it, and JupyterLab on that copy.

    bleu-lab lessons [DIR]            copy the lessons to DIR (default bleu-lab-course/); run again to add what is new
    bleu-lab lessons DIR --update     ...and put a newer version of a lesson you changed beside yours (NAME.new.ipynb;
                                      NAME.new-2.ipynb if you changed NAME.new.ipynb too: nothing you edit is replaced)
    bleu-lab lessons DIR --no-solutions
                                      graded work: the lessons as handed out, no worked solutions (the default when
                                      BLEU_LAB_GRADED=1); worked solutions an earlier copy left untouched are deleted;
                                      with BLEU_LAB_RELEASED=FILE only the numbered lessons FILE has released so far
    bleu-lab lab [DIR]                the same copy, then JupyterLab with DIR as its root
    bleu-lab guide [--open]           where the instructor's guide, the hub settings and the course files are

The course (lessons, worked solutions, data, docs, the classroom's settings) sits at the top of a clone of the
repository, and in ``bleu_lab/course_files/`` of an installed wheel (setup.py copies it there); ``course_root()``
finds either. A working copy records what it was given (a SHA-256 per file, in ``MANIFEST_NAME``), so that a later
run tells a file the student changed (kept as it is) from one that bleu_lab shipped in an older version (replaced).
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from importlib import resources
from pathlib import Path

from ..version import __version__

DEFAULT_DIR = Path("bleu-lab-course")
MANIFEST_NAME = ".bleu-lab-course.json"
FIRST_LESSON = "notebooks/00_start_here.ipynb"
# What a working copy gets, as globs relative to the course root: the lessons and the playground, their worked
# solutions (%load solutions/...), the data they and the command line read, and the reading list they link to;
# plus bleu_lab's source to read (package_sources).
SOLUTIONS = "notebooks/solutions/*.py"
WORKING_COPY = ("notebooks/*.ipynb", SOLUTIONS, "data/**/*", "docs/reading_list.md")
LESSONS = "notebooks/*.ipynb"
# Graded work: the switch of the hub settings (jupyter-settings/jupyterhub_config.py, z2jh/config.yaml's
# singleuser.extraEnv) and the default of --no-solutions: "1" hands out the lessons without worked solutions.
GRADED_ENV = "BLEU_LAB_GRADED"
# Graded work, one lesson at a time: the instructor's list of released lessons (``read_released``), which the hub hands
# to each student's start command. Only the numbered lessons wait for it; the playground and the comparison page don't.
RELEASED_ENV = "BLEU_LAB_RELEASED"
NUMBERED_LESSON = "notebooks/[0-9][0-9]_*.ipynb"
EXIT_ERROR = 2
# An upload reaches the kernel as one websocket message holding every file chosen at once; Jupyter's servers take at
# most 10 MiB by default, and a bigger message is dropped without a word. voila.json and ``bleu-lab lab`` set it to
# twice what one comparison may upload (compare.files.MAX_UPLOAD_BYTES, 4 MiB), so that a larger upload still
# reaches the kernel and is refused with a message; a larger limit only lets one message cost the server more memory.
UPLOAD_MESSAGE_BYTES = 8 * 2**20


def course_root() -> Path:
    """The folder holding the course: ``bleu_lab/course_files`` of a wheel, or the top of a clone."""
    packaged = resources.files("bleu_lab") / "course_files"
    if isinstance(packaged, Path) and packaged.is_dir():
        return packaged
    clone = Path(__file__).resolve().parents[2]
    if (clone / "notebooks").is_dir() and (clone / "data").is_dir():
        return clone
    raise FileNotFoundError(
        f"bleu_lab's course files are missing (neither {packaged} nor a clone's notebooks/ and data/): "
        "reinstall bleu_lab from its wheel, or from a clone of the repository"
    )


def graded_from_environment() -> bool:
    """Whether ``BLEU_LAB_GRADED`` asks for graded work: "1" yes; unset, empty or "0" no; anything else refused."""
    value = os.environ.get(GRADED_ENV, "").strip()
    if value not in ("", "0", "1"):
        raise ValueError(f"{GRADED_ENV} must be 1 (graded work: no worked solutions) or 0 (unset: 0), not {value!r}")
    return value == "1"


def course_files(root: Path | None = None, *, solutions: bool = True) -> list[str]:
    """The files of a working copy, as '/'-separated paths relative to the course root, sorted (without the worked
    solutions when ``solutions`` is False)."""
    root = course_root() if root is None else root
    found = set()
    for pattern in WORKING_COPY if solutions else [p for p in WORKING_COPY if p != SOLUTIONS]:
        for path in root.glob(pattern):
            parts = path.relative_to(root).parts
            if path.is_file() and "__pycache__" not in parts and ".ipynb_checkpoints" not in parts:
                found.add("/".join(parts))
    return sorted(found)


def package_sources() -> dict[str, Path]:
    """bleu_lab's own source files, for the working copy's ``bleu_lab/`` folder (the lessons point to them, e.g.
    ``bleu_lab/clipping.py``): a copy to read; the lessons import the installed package, whatever the copy says."""
    package = Path(__file__).resolve().parents[1]
    return {
        "bleu_lab/" + "/".join(path.relative_to(package).parts): path
        for path in sorted(package.rglob("*.py"))
        if not {"course_files", "__pycache__"} & set(path.relative_to(package).parts)
    }


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def new_name(relative: str, number: int = 1) -> str:
    """Where ``--update`` puts the new version of a file the student changed: NAME.new.ipynb beside NAME.ipynb (the
    ``number``-th candidate: NAME.new-2.ipynb, NAME.new-3.ipynb ... when the first ones are the student's)."""
    path = Path(relative)
    tail = "" if number == 1 else f"-{number}"
    return str(path.with_name(f"{path.stem}.new{tail}{path.suffix}").as_posix())


@dataclass
class CopyReport:
    """What ``copy_course`` did, file by file (paths relative to the working copy)."""

    directory: Path
    graded: bool = False  # copied without worked solutions (--no-solutions)
    added: list[str] = field(default_factory=list)  # new files (or ones the student had deleted)
    replaced: list[str] = field(default_factory=list)  # shipped in an older version, untouched by the student
    kept: list[str] = field(default_factory=list)  # changed by the student, and bleu_lab has a newer version
    offered: list[str] = field(default_factory=list)  # the newer versions written beside them (--update)
    offered_as: dict[str, str] = field(default_factory=dict)  # ... and where each one is
    edited_offers: list[str] = field(default_factory=list)  # NAME.new.ipynb files the student changed: kept
    yours: list[str] = field(default_factory=list)  # changed by the student, no newer version
    unchanged: list[str] = field(default_factory=list)
    withheld: list[str] = field(default_factory=list)  # graded: numbered lessons not released yet (not copied)
    removed: list[str] = field(default_factory=list)  # graded: worked solutions an earlier copy left, untouched
    kept_solutions: list[str] = field(default_factory=list)  # graded: ... and the ones the student changed

    def __str__(self) -> str:
        lines = [f"bleu_lab course in {self.directory}{' (graded work: no worked solutions)' if self.graded else ''}:"]
        if self.added:
            lines.append(f"  added {_files(self.added)}")
        if self.replaced:
            what = "as handed out for graded work" if self.graded else "a newer version"
            lines.append(f"  updated {_files(self.replaced)} ({what}; you had not changed them)")
        if self.yours:
            lines.append(f"  yours, left as they are: {_files(self.yours)}")
        for relative in self.kept:
            if relative in self.offered:
                where = self.offered_as.get(relative, new_name(relative))
                lines.append(f"  kept {relative} (you changed it); the new version is beside it: {where}")
            else:
                lines.append(f"  kept {relative} (you changed it); a newer version exists: run with --update to get "
                             f"it as {new_name(relative)}")
        for relative in self.edited_offers:
            lines.append(f"  kept {relative} (you changed this new version too): the next one went beside it")
        if self.removed:
            lines.append(f"  removed the worked solutions an earlier copy put here (graded work; you had not changed "
                         f"them): {', '.join(self.removed)}")
        for relative in self.kept_solutions:
            lines.append(f"  kept {relative} (a worked solution that you changed; graded work hands out none)")
        if self.withheld:
            lines.append(f"  not released yet: {len(self.withheld)} lessons (your instructor releases them one at a "
                         "time; they appear here when released)")
        if not (self.added or self.replaced or self.kept or self.removed):
            lines.append(f"  up to date ({len(self.unchanged) + len(self.yours)} files)")
        return "\n".join(lines)


def _files(paths: list[str]) -> str:
    if len(paths) <= 6:
        return ", ".join(paths)
    return f"{len(paths)} files ({', '.join(paths[:3])}, ...)"


def read_manifest(directory: Path) -> dict[str, str]:
    """The SHA-256 of each file as bleu_lab last wrote it into ``directory`` ({} for a new or foreign folder)."""
    path = directory / MANIFEST_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    return {k: v for k, v in files.items() if isinstance(v, str)} if isinstance(files, dict) else {}


def read_offers(directory: Path) -> dict[str, str]:
    """The SHA-256 of each NAME.new.ipynb ``--update`` wrote into ``directory`` ({} if none)."""
    try:
        data = json.loads((directory / MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    offered = data.get("offered") if isinstance(data, dict) else None
    return {k: v for k, v in offered.items() if isinstance(v, str)} if isinstance(offered, dict) else {}


def offer(directory: Path, relative: str, shipped: bytes, offers: dict[str, str], report: CopyReport) -> None:
    """Write the new version of ``relative`` beside the student's: at the first of NAME.new.ipynb, NAME.new-2.ipynb
    ... that is free, already holds it, or holds an earlier offer the student left untouched. A NAME.new file the
    student changed (or wrote) is never replaced."""
    shipped_hash = hashlib.sha256(shipped).hexdigest()
    number = 1
    while True:
        name = new_name(relative, number)
        target = directory / name
        if target.is_symlink() or (target.exists() and not target.is_file()):
            number += 1
            continue
        current = sha256(target) if target.exists() else None
        if current is None or current == shipped_hash or current == offers.get(name):
            if current != shipped_hash:
                _write(target, shipped)
            offers[name] = shipped_hash
            report.offered.append(relative)
            report.offered_as[relative] = name
            return
        report.edited_offers.append(name)
        number += 1


def copy_course(directory: Path | str = DEFAULT_DIR, *, update: bool = False,
                source: Path | None = None, solutions: bool = True,
                released: Collection[str] | None = None) -> CopyReport:
    """Copy the course into ``directory``: new files are added, nothing the student changed is overwritten.

    A file already there is replaced only when it is byte for byte what bleu_lab wrote last time (the manifest's
    hash): then it is an older shipped version, not the student's work. A changed file is kept; with
    ``update=True`` the new version is written beside it (``NAME.new.ipynb``, or the next free ``NAME.new-2.ipynb``
    if the student changed that one too: ``offer``). A deleted file comes back fresh.

    ``solutions=False`` (graded work) copies the lessons as handed out (``bleu_lab.course.handout.student_copy``: no
    ``%load`` of a worked solution, no pointers to them, no exercise outputs) and no worked solutions; a solution
    file an earlier copy wrote and the student never changed is deleted, a changed one is kept, and both are named.

    ``released`` (graded work, one lesson at a time): the names of the numbered lessons to hand out (e.g.
    ``{"03_brevity_penalty"}``); the others are not copied (``CopyReport.withheld``). None: every lesson.
    """
    if not isinstance(directory, (str, Path)):
        raise TypeError(f"directory must be a path (str or Path), not {type(directory).__name__}")

    directory = Path(directory)
    source = course_root() if source is None else source
    if directory.exists() and not directory.is_dir():
        raise NotADirectoryError(f"{directory} exists and is not a folder: choose another folder for the course")
    if directory.resolve() == source.resolve() or directory.resolve() == (source / "notebooks").resolve():
        raise ValueError(f"{directory} is the course's own folder: give a folder of your own, e.g. {DEFAULT_DIR}")
    manifest = read_manifest(directory)
    offers = read_offers(directory)
    report = CopyReport(directory, graded=not solutions)
    files = {relative: source / relative for relative in course_files(source, solutions=solutions)}
    if released is not None:
        report.withheld = [r for r in files if _matches(r, NUMBERED_LESSON) and Path(r).stem not in released]
        for relative in report.withheld:
            del files[relative]
    if source == course_root():
        files.update(package_sources())
    if not solutions:
        remove_solutions(directory, manifest, report)
    for relative, path in files.items():
        shipped = path.read_bytes() if solutions or not _matches(relative, LESSONS) else handed_out(path)
        shipped_hash = hashlib.sha256(shipped).hexdigest()
        target = directory / relative
        if not target.exists():
            _write(target, shipped)
            report.added.append(relative)
        elif (current := sha256(target)) == shipped_hash:
            report.unchanged.append(relative)
        elif current == manifest.get(relative):
            _write(target, shipped)
            report.replaced.append(relative)
        elif manifest.get(relative) == shipped_hash:
            report.yours.append(relative)  # the student's edits of the version we still ship
            continue
        else:
            report.kept.append(relative)
            if update:
                offer(directory, relative, shipped, offers, report)
            if relative in manifest:
                continue  # keep the hash of what we wrote: the file stays "changed by the student"
        manifest[relative] = shipped_hash
    record = {"bleu_lab": __version__, "files": manifest, **({"offered": offers} if offers else {})}
    _write(directory / MANIFEST_NAME, (json.dumps(record, indent=1, sort_keys=True) + "\n").encode("utf-8"))
    return report


def read_released(path: Path | str, *, now: dt.datetime | None = None,
                  lessons: Collection[str] | None = None) -> set[str]:
    """The numbered lessons released by ``now`` (default: this moment, the server's local time) in the instructor's
    file ``path``: one lesson a line, its notebook's name, optionally followed by the date and time it opens
    (``03_brevity_penalty 2026-12-01 09:00``, the server's local time; a date alone opens at midnight); ``#`` starts
    a comment. A lesson not in the file, or opening later, is not handed out. Errors name the file and the line."""
    path = Path(path)
    now = dt.datetime.now() if now is None else now
    known = set(lessons) if lessons is not None else {Path(r).stem for r in course_files(solutions=False)
                                                       if _matches(r, NUMBERED_LESSON)}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"{RELEASED_ENV}: cannot read the released lessons' file {path}: {err}") from None
    released = set()
    for number, line in enumerate(text.splitlines(), 1):
        name, _, when = line.partition("#")[0].strip().partition(" ")
        if not name:
            continue
        if name.endswith(".ipynb"):
            name = name[: -len(".ipynb")]
        if name not in known:
            raise ValueError(f"{path}, line {number}: {name!r} is not a lesson; the lessons are "
                             f"{', '.join(sorted(known))}")
        opens = _opening(when.strip(), f"{path}, line {number}")
        if opens is None or opens <= now:
            released.add(name)
    return released


def _opening(text: str, where: str) -> dt.datetime | None:
    """A lesson's opening time written as YYYY-MM-DD or YYYY-MM-DD HH:MM ('' = open now)."""
    if not text:
        return None
    for form in ("%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M", "%Y-%m-%d"):
        try:
            return dt.datetime.strptime(" ".join(text.split()), form)
        except ValueError:
            continue
    raise ValueError(f"{where}: the opening time must be YYYY-MM-DD or YYYY-MM-DD HH:MM (the server's local time), "
                     f"got {text!r}")


def released_from_environment() -> set[str] | None:
    """The lessons released so far by the file ``BLEU_LAB_RELEASED`` names (None when it is unset or empty)."""
    value = os.environ.get(RELEASED_ENV, "").strip()
    return read_released(value) if value else None


def _matches(relative: str, pattern: str) -> bool:
    """Whether the '/'-separated ``relative`` is a file ``pattern`` names (its folder exactly, its name by glob)."""
    folder, _, name = relative.rpartition("/")
    pattern_folder, _, pattern_name = pattern.rpartition("/")
    return folder == pattern_folder and fnmatchcase(name, pattern_name)


def handed_out(lesson: Path) -> bytes:
    """The lesson as handed out for graded work (``bleu_lab.course.handout``; ``bleu-lab release``'s ``student/``
    copy)."""
    import nbformat

    from .handout import student_copy

    return nbformat.writes(student_copy(nbformat.read(lesson, as_version=4), lesson.stem)).encode("utf-8")


def remove_solutions(directory: Path, manifest: dict[str, str], report: CopyReport) -> None:
    """Delete the worked solutions that an earlier copy wrote into ``directory`` and that are still byte for byte
    what it wrote (the manifest's hash); keep, and list in the report, those the student changed. Never a link."""
    for relative in sorted(manifest):
        if not _matches(relative, SOLUTIONS):
            continue
        target = directory / relative
        if not target.exists() and not target.is_symlink():
            del manifest[relative]  # already gone
        elif target.is_file() and not target.is_symlink() and sha256(target) == manifest[relative]:
            target.unlink()
            del manifest[relative]
            report.removed.append(relative)
        else:
            report.kept_solutions.append(relative)  # changed (or replaced by a link or a folder): the student's


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


# --- lessons that open unmodified --------------------------------------------------------------------
# When a kernel starts, JupyterLab writes the kernel's language_info into the notebook's metadata, and marks the
# notebook modified unless it equals what is there. ipykernel's language_info holds the Python version (3.11.7,
# 3.12.3, ...), so no saved value can match every student's Python. The lessons are saved without that version
# (.ci/execute_notebooks.py calls normalize_metadata), and `bleu-lab lab` drops it again whenever JupyterLab saves
# (save_without_python_version), so opening a lesson and letting autosave run leaves the file byte for byte as it was.
MACHINE_SPECIFIC_LANGUAGE_INFO = ("version",)


def normalize_metadata(metadata: dict) -> None:
    """Drop the notebook metadata that depends on the machine: the Python version in ``language_info``."""
    info = metadata.get("language_info")
    if isinstance(info, dict):
        for key in MACHINE_SPECIFIC_LANGUAGE_INFO:
            info.pop(key, None)


def save_without_python_version(model: dict, **kwargs: object) -> None:
    """A Jupyter ``pre_save_hook``: every notebook JupyterLab saves loses its ``language_info.version``."""
    content = model.get("content")
    if model.get("type") == "notebook" and isinstance(content, dict) and isinstance(content.get("metadata"), dict):
        normalize_metadata(content["metadata"])


def lab_command(directory: Path, open_file: str | None, extra: Sequence[str]) -> list[str]:
    """The JupyterLab command for a working copy (run with ``directory`` as the working directory = server root)."""
    command = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={directory.resolve()}",
               f"--ContentsManager.pre_save_hook={__name__}.save_without_python_version",
               f"--ServerApp.tornado_settings={{'websocket_max_message_size': {UPLOAD_MESSAGE_BYTES}}}", *extra]
    return command + ([open_file] if open_file else [])


# --- where the instructor's files are (bleu-lab guide) ----------------------------------------------
# What an instructor looks for, relative to the course root: a clone's top level, or bleu_lab/course_files of a wheel.
GUIDE = "docs/instructor.md"
INSTRUCTOR_FILES = (
    ("instructor's guide", GUIDE),
    ("grading notes", "docs/grading_notes.md"),
    ("reading list", "docs/reading_list.md"),
    ("hub on one server", "jupyter-settings/jupyterhub_config.py"),
    ("hub on Kubernetes", "jupyter-settings/z2jh"),
    ("lessons", "notebooks"),
    ("worked solutions", "notebooks/solutions"),
    ("data", "data"),
)


def guide_text(root: Path | None = None, prog: str = "bleu-lab") -> str:
    """Where this installation keeps the instructor's guide, the hub settings and the course files, one per line."""
    root = course_root() if root is None else root
    lines = [f"bleu_lab {__version__}: the course files are in {root}"]
    width = max(len(label) for label, _ in INSTRUCTOR_FILES)
    for label, relative in INSTRUCTOR_FILES:
        path = root / relative
        missing = "" if path.exists() else "  (not here: removed, or not readable by you)"
        lines.append(f"  {label:<{width}}  {path}{missing}")
    lines.append(f"The guide is Markdown: read it in any editor or Markdown viewer, or run '{prog} guide --open' to "
                 "open it in your web browser.")
    return "\n".join(lines)


def open_guide(root: Path | None = None) -> str:
    """Open the instructor's guide in the web browser (Python's ``webbrowser``, which honours $BROWSER); say what
    happened."""
    import webbrowser

    guide = (course_root() if root is None else root) / GUIDE
    if not guide.is_file():
        raise FileNotFoundError(f"the instructor's guide is not at {guide}: reinstall bleu_lab from its wheel")
    if webbrowser.open(guide.as_uri()):
        return f"Opened {guide} in your web browser."
    return f"No web browser found here: open {guide} yourself."


# --- the subcommands -------------------------------------------------------------------------------


def build_parser(prog: str = "bleu-lab") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description="The course's lessons, in a working copy of your own.")
    commands = parser.add_subparsers(dest="command", required=True)
    lessons = commands.add_parser(
        "lessons", help="copy the lessons to DIR (default bleu-lab-course/); run again to add what is new",
        description="Copy the lessons, their worked solutions, the data and the reading list to DIR. Run again "
        "(e.g. after upgrading bleu_lab), it adds what is new, updates what you have not changed, and never "
        "overwrites a file you changed: it says which it kept.")
    lessons.add_argument("directory", metavar="DIR", nargs="?", type=Path, default=DEFAULT_DIR)
    lessons.add_argument("--update", action="store_true",
                         help="for a file you changed that has a newer version, write the new one beside yours "
                         "(NAME.new.ipynb; NAME.new-2.ipynb ... if you changed that one too)")
    add_no_solutions(lessons)
    lab = commands.add_parser(
        "lab", help="copy the lessons to DIR as 'lessons' does, then start JupyterLab there",
        description="Bring the working copy DIR up to date (as 'bleu-lab lessons DIR' does, never overwriting your "
        "changes), then start JupyterLab with DIR as its root. Further options go to JupyterLab, e.g. --no-browser, "
        "--port 8899, --allow-root.")
    lab.add_argument("directory", metavar="DIR", nargs="?", type=Path, default=DEFAULT_DIR)
    add_no_solutions(lab)
    guide = commands.add_parser(
        "guide", help="print where the instructor's guide, the hub settings and the course files are",
        description="Print where this installation keeps the instructor's guide (docs/instructor.md), the grading "
        "notes, the hub settings (jupyter-settings/) and the course files: in a clone, its top level; from a wheel, "
        "bleu_lab/course_files in the environment's site-packages.")
    guide.add_argument("--open", action="store_true", help="also open the guide in your web browser")
    return parser


def open_solutions_warning() -> str:
    """For a server started for graded work: a warning if this account can still read the installed worked
    solutions (a hub's or an image's site-packages), else ''."""
    solutions = course_root() / "notebooks" / "solutions"
    if solutions.is_dir() and os.access(solutions, os.R_OK | os.X_OK):
        return (f"warning: graded work ({GRADED_ENV}=1), but this account can read the worked solutions installed at "
                f"{solutions}: close them (chmod -R go-rwx, on one server) or build the image with --build-arg "
                f"{GRADED_ENV}=1 (on Kubernetes); see the instructor's guide, 'Graded work on a hub'")
    return ""


def add_no_solutions(command: argparse.ArgumentParser) -> None:
    command.add_argument("--no-solutions", action="store_true", default=None,
                         help=f"graded work (the default when {GRADED_ENV}=1): the lessons as handed out, without "
                         "worked solutions; worked solutions an earlier copy put in DIR are deleted if you never "
                         "changed them, kept if you did, and named")


def main(argv: Sequence[str], prog: str = "bleu-lab") -> int:
    """Run ``lessons``, ``lab`` or ``guide``; return the exit code."""
    args, extra = build_parser(prog).parse_known_args(argv)
    if extra and args.command != "lab":
        print(f"{prog} {args.command}: error: unrecognized arguments: {' '.join(extra)}", file=sys.stderr)
        return EXIT_ERROR
    try:
        if args.command == "guide":
            print(guide_text(prog=prog))
            if args.open:
                print(open_guide())
            return 0
        graded = args.no_solutions or graded_from_environment()
        released = released_from_environment() if graded else None
        new = not (args.directory / MANIFEST_NAME).exists()
        report = copy_course(args.directory, update=getattr(args, "update", False), solutions=not graded,
                             released=released)
    except (OSError, ValueError) as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return EXIT_ERROR
    print(report, flush=True)
    if graded_from_environment() and (warning := open_solutions_warning()):
        print(warning, file=sys.stderr, flush=True)
    if args.command == "lessons":
        print(f"Open the lessons with: {prog} lab {args.directory}{' --no-solutions' if args.no_solutions else ''}")
        return 0
    open_file = FIRST_LESSON if new and FIRST_LESSON not in report.withheld else None
    process = subprocess.Popen(lab_command(args.directory, open_file, extra), cwd=args.directory)
    # a stop request to this wrapper (e.g. from a process manager) stops JupyterLab too, instead of orphaning it
    signal.signal(signal.SIGTERM, lambda signum, frame: process.send_signal(signum))
    while True:
        try:
            return process.wait()
        except KeyboardInterrupt:  # Ctrl-C reaches JupyterLab too: it asks to confirm, then shuts its kernels down
            continue
