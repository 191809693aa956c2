"""``bleu-lab release OUTDIR``: the lessons as an assignment, without solutions, a solved copy, and nbgrader's source.

``OUTDIR/student/`` holds every lesson with each ``# %load solutions/NAME.py`` cell turned into an empty scratch
cell, the sentences that point to worked solutions taken out of the text, and the outputs of the exercise cells
cleared (a printed check or answer would give the answer away). ``OUTDIR/solved/`` holds the same notebooks with
each of those cells holding its solution instead (what ``%load`` would put there) and, for a written answer, a model
answer and the key points the grader looks for: what a perfect student hands in. ``OUTDIR/nbgrader/`` holds the same
lessons as an nbgrader course's ``source/`` folder with its ``nbgrader_config.py`` (see ``nbgrader_source``).

A release records what it wrote (``OUTDIR/.bleu-lab-release.json``); ``--force`` replaces those files and nothing
else, so an nbgrader course in ``OUTDIR/nbgrader`` (its gradebook, ``submitted/``, ``autograded/``) survives.

Everything it writes is private (folders 0700, files 0600, each file written anew: ``private``), ``student/`` too:
``solved/`` and ``nbgrader/`` hold the answers, and no student reads from ``OUTDIR`` (the hub's students get their
lessons from the installed package, ``bleu-lab lessons --no-solutions``). A handout is given by copying it out, to a
learning platform or to a folder made for it (docs/instructor.md, *Releasing and collecting assignments*).
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from ..course.exercises import LessonGrading
from ..course.handout import LOAD_CELL, METADATA_KEY, SCRATCH_CELL, student_copy
from . import lesson_gradings
from .nbgrader_source import nbgrader_config, nbgrader_source
from .private import private_folder, write_private


@dataclass
class Release:
    """What ``release`` wrote: the three folders and the lessons in them."""

    student: Path
    solved: Path
    nbgrader: Path
    notebooks: list[str] = field(default_factory=list)


MANIFEST = ".bleu-lab-release.json"  # in OUTDIR: every file the release wrote, with its SHA-256


def release(outdir: Path, notebooks_dir: Path, *, force: bool = False) -> Release:
    """Write ``outdir/student``, ``outdir/solved`` and ``outdir/nbgrader`` from the lessons in ``notebooks_dir``.

    Without ``force`` it refuses a non-empty folder. With ``force`` it replaces only the files an earlier release
    wrote (listed in ``outdir/.bleu-lab-release.json``) and still holds unchanged; it never deletes anything else (an
    nbgrader gradebook, ``submitted/``, ``autograded/``, an edited notebook) and refuses, naming the file, rather
    than overwrite a file it did not write. ``notebooks_dir`` and ``outdir`` must not overlap.
    """
    paths = sorted(notebooks_dir.glob("*.ipynb"))
    if not paths:
        raise FileNotFoundError(f"no lesson notebooks (*.ipynb) in {notebooks_dir}")
    _refuse_overlap(outdir, notebooks_dir)
    result = Release(outdir / "student", outdir / "solved", outdir / "nbgrader")
    gradings = lesson_gradings()
    files: dict[Path, str] = {}
    for path in paths:
        lesson = nbformat.read(path, as_version=4)
        student = student_copy(lesson, path.stem)
        solutions, grading = worked_solutions(lesson, notebooks_dir), gradings.get(path.stem)
        files[result.student / path.name] = nbformat.writes(student)
        files[result.solved / path.name] = nbformat.writes(solved_copy(student, solutions, path.stem, grading))
        source = nbgrader_source(student, solutions, path.stem, grading)
        files[result.nbgrader / "source" / path.stem / path.name] = nbformat.writes(source)
        result.notebooks.append(path.name)
    files[result.nbgrader / "nbgrader_config.py"] = nbgrader_config(SCRATCH_CELL)
    previous = _previous_release(outdir)
    ours = {path for path, digest in previous.items() if path.is_file() and _digest(path.read_bytes()) == digest}
    _check_targets(result, files, previous, ours, force)
    for path in [*files, outdir / MANIFEST]:  # before anything is written or deleted
        if not _inside(outdir, path):
            raise FileExistsError(f"{path} leads out of {outdir} (a link): release writes only inside OUTDIR. Remove "
                                  "the link, or release into another OUTDIR")
    for path in ours - files.keys():  # our own unchanged files of an earlier release that this one does not write
        if _inside(outdir, path):  # checked again just before: never a file outside OUTDIR
            path.unlink()
    for path, text in files.items():  # private (folders 0700, files 0600), the handouts too: see the module
        private_folder(path.parent)
        write_private(path, text.encode("utf-8"))
    manifest = {str(path.relative_to(outdir)): _digest(text.encode("utf-8")) for path, text in files.items()}
    write_private(outdir / MANIFEST, (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode("utf-8"))
    return result


def _refuse_overlap(outdir: Path, notebooks_dir: Path) -> None:
    out, lessons = outdir.resolve(), notebooks_dir.resolve()
    if out == lessons or out in lessons.parents or lessons in out.parents:
        raise ValueError(f"OUTDIR {outdir} and the lessons {notebooks_dir} overlap: release into a folder outside "
                         "the lessons, and release lessons that are not inside OUTDIR")


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _previous_release(outdir: Path) -> dict[Path, str]:
    """The files an earlier release wrote in ``outdir`` and their digests (empty if there was none). An entry that
    names anything outside ``outdir`` (an absolute path, ``..``, a link out of it) is not the release's: the manifest
    is a file anyone can edit, and it never leads ``release`` to delete or overwrite a file elsewhere."""
    try:
        manifest = json.loads((outdir / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(manifest, dict):
        return {}
    return {outdir / name: digest for name, digest in manifest.items()
            if isinstance(name, str) and isinstance(digest, str) and _inside(outdir, outdir / name)}


def _inside(outdir: Path, path: Path) -> bool:
    """``path`` is a file name under ``outdir`` that stays there once links are followed (and is no link itself)."""
    relative = Path(path)
    try:
        relative = relative.relative_to(outdir)
    except ValueError:
        return False
    if relative.is_absolute() or not relative.parts or ".." in relative.parts or path.is_symlink():
        return False
    root = outdir.resolve()
    return root in path.resolve().parents


def _check_targets(result: Release, files: dict[Path, str], previous: dict[Path, str], ours: set[Path],
                   force: bool) -> None:
    """Refuse (FileExistsError, naming the file) to overwrite or delete anything the release did not write."""
    if not force:
        for folder in (result.student, result.solved, result.nbgrader):
            if folder.exists() and any(folder.iterdir()):
                raise FileExistsError(f"{folder} exists and is not empty (pass --force to replace the files an "
                                      "earlier bleu-lab release wrote there; nothing else is touched)")
        return
    for path in files:
        if path.exists() and path not in ours:
            why = "was changed since bleu-lab release wrote it" if path in previous else "was not written by it"
            raise FileExistsError(f"{path} {why}: --force replaces only the release's own unchanged files. Move it "
                                  f"away (or release into another OUTDIR) and run again")


def solved_copy(student: nbformat.NotebookNode, solutions: dict[int, str], name: str,
                grading: LessonGrading | None) -> nbformat.NotebookNode:
    """The student copy with each solution (``worked_solutions``) where its ``%load`` cell was, and model answers
    for the written answers of ``grading``."""
    nb = copy.deepcopy(student)
    for index, solution in solutions.items():
        nb.cells[index].source = solution
    for exercise in grading.exercises if grading else ():
        if not exercise.manual:
            continue
        call = re.compile(rf"\b{exercise.check.__name__}\(")
        at = next((i for i, c in enumerate(nb.cells) if c.cell_type == "code" and call.search(c.source)), len(nb.cells))
        answer = "\n".join(f"{target} = {exercise.model_answer!r}" for target in exercise.answers[:1])
        nb.cells[at:at] = [
            nbformat.v4.new_markdown_cell(f"**Manual grading ({exercise.name}).** Key points: {exercise.manual}."),
            nbformat.v4.new_code_cell(answer),
        ]
    nb.metadata[METADATA_KEY] = {"lesson": name, "copy": "solved"}
    return nb


def worked_solutions(lesson: nbformat.NotebookNode, notebooks_dir: Path) -> dict[int, str]:
    """The lesson's ``%load`` cells, by cell index, and the worked solution each one loads."""
    found = {}
    for index, cell in enumerate(lesson.cells):
        match = LOAD_CELL.match(cell.source) if cell.cell_type == "code" else None
        if match:
            found[index] = (notebooks_dir / match.group(1)).read_text(encoding="utf-8").rstrip("\n")
    return found
