"""Reading a submitted notebook, bounded: a link or special file is refused, a file over ``--max-notebook-mb`` is
never read, one with more than ``MAX_CELLS`` cells (or ``MAX_BRACKETS`` JSON lists and objects) is never parsed, and
parsing runs in a child process under ``limits.run_limited``'s time and memory limits; then which lesson it is."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path

from ..course.exercises import LessonGrading
from . import METADATA_KEY, lesson_gradings
from .limits import Exceeded, run_limited

MAX_NOTEBOOK_MB = 5  # a larger notebook is refused unread (--max-notebook-mb)
MAX_CELLS = 2000  # a notebook with more cells is refused before nbformat reads it (the lessons have at most 80)
MAX_BRACKETS = 500_000  # "[" and "{" in a notebook's bytes: more JSON lists and objects are refused unparsed
READ_SECONDS, READ_MEMORY = 20, 512  # the child process that parses one notebook: wall clock, MB of address space


def lesson_of(metadata: Mapping[str, object], path: Path, lessons: Mapping[str, LessonGrading]) -> str:
    """The lesson a notebook is: from the release's metadata (if it names a lesson), else from its file name."""
    info = metadata.get(METADATA_KEY)
    if isinstance(info, Mapping) and info.get("lesson") in lessons:
        return str(info["lesson"])
    names = sorted((name for name in lessons if name in path.stem), key=len, reverse=True)
    if names:
        return names[0]
    raise ValueError(f"cannot tell which lesson this is (no lesson in its '{METADATA_KEY}' metadata, and the file "
                     f"name contains none of {', '.join(sorted(lessons))}); pass --lesson")


def peek_lesson(path: Path, data: bytes, lessons: Mapping[str, LessonGrading]) -> str | None:
    """The lesson ``read_submission`` finds in a notebook's bytes ``data`` (the release's metadata, else the file
    name), without reading its cells: the JSON is parsed in a child under ``READ_SECONDS`` and ``READ_MEMORY``, the
    same bounds (a file of too many brackets is not parsed). None where it cannot tell: grading then says why."""
    parse = data.count(b"[") + data.count(b"{") <= MAX_BRACKETS

    def claimed(ask) -> object:
        raw = json.loads(data.decode("utf-8"))
        info = raw.get("metadata", {}).get(METADATA_KEY) if isinstance(raw, dict) else None
        return info.get("lesson") if isinstance(info, dict) and isinstance(info.get("lesson"), str) else None

    try:
        found = run_limited(claimed, lambda request: {"error": "no requests"}, seconds=READ_SECONDS,
                            megabytes=READ_MEMORY) if parse else None
    except Exceeded:  # no readable notebook: its file name may still say which lesson it was meant to be
        found = None
    try:
        return lesson_of({METADATA_KEY: {"lesson": found}}, path, lessons)
    except ValueError:
        return None


def check_notebook_mb(megabytes: object) -> None:
    if isinstance(megabytes, bool) or not isinstance(megabytes, (int, float)) or not 0 < megabytes <= 1000:
        raise ValueError(f"--max-notebook-mb must be a number of megabytes above 0 and at most 1000, not {megabytes!r}")


def read_regular(path: Path, max_mb: float = MAX_NOTEBOOK_MB) -> bytes:
    """The bytes of the regular file at ``path``, never following a link: ``FileNotFoundError`` if nothing is
    there, ``ValueError`` ("a link", "not a regular file", larger than ``max_mb`` megabytes: never read) otherwise."""
    limit = int(max_mb * 1_000_000)
    too_large = f"larger than {max_mb:g} MB (--max-notebook-mb): not read"
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such file") from None
    if stat.S_ISLNK(st.st_mode):
        raise ValueError("a link (a submission must be the notebook itself; links are never followed)")
    if not stat.S_ISREG(st.st_mode):
        raise ValueError("not a regular file")
    if st.st_size > limit:
        raise ValueError(too_large)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise ValueError(f"cannot be read ({exc.strerror})") from exc
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):  # replaced between the two looks
            raise ValueError("not a regular file")
        data = f.read(limit + 1)
    if len(data) > limit:  # grew since
        raise ValueError(too_large)
    return data


def parse_notebook(data: bytes) -> dict:
    """What grading needs of a notebook file's bytes, as plain JSON: ``{"cells": [[type, source], ...],
    "lesson": the release's lesson name or None}``, or ``{"refused": why}``. More than ``MAX_CELLS`` cells are
    refused before nbformat reads the notebook. Run it in a child under limits (``read_submission``)."""
    import nbformat

    try:
        text = data.decode("utf-8")
        raw = json.loads(text)
    except (UnicodeDecodeError, ValueError) as exc:
        return {"refused": f"not a readable notebook ({type(exc).__name__})"}
    cells = raw.get("cells") if isinstance(raw, dict) else None
    if isinstance(cells, list) and len(cells) > MAX_CELLS:
        return {"refused": f"more than {MAX_CELLS:,} cells ({len(cells):,}): not read"}
    try:
        nb = nbformat.reads(text, as_version=4)
    except Exception as exc:  # noqa: BLE001 - nbformat raises several kinds for a file that is no notebook
        return {"refused": f"not a readable notebook ({type(exc).__name__})"}
    if len(nb.cells) > MAX_CELLS:  # an older format's worksheets, converted
        return {"refused": f"more than {MAX_CELLS:,} cells ({len(nb.cells):,}): not read"}
    info = nb.metadata.get(METADATA_KEY)
    lesson = info.get("lesson") if isinstance(info, Mapping) else None
    return {"cells": [[str(cell.get("cell_type")), str(cell.get("source", ""))] for cell in nb.cells],
            "lesson": lesson if isinstance(lesson, str) else None}


def new_cell(kind: str, source: str):
    """A fresh cell of ``kind`` ("code", "markdown", anything else: "raw") holding the text ``source``, as
    ``nbformat.v4.new_code_cell`` and its kin make one but without their schema check (a millisecond a cell, and
    nothing in a string source can fail it)."""
    import nbformat
    from nbformat.corpus.words import generate_corpus_id

    kind = kind if kind in ("code", "markdown") else "raw"
    cell = {"id": generate_corpus_id(), "cell_type": kind, "metadata": {}, "source": str(source)}
    if kind == "code":
        cell |= {"execution_count": None, "outputs": []}
    return nbformat.from_dict(cell)


def read_submission(path: Path, lesson: str | None = None, data: bytes | None = None, *,
                    max_mb: float = MAX_NOTEBOOK_MB):
    """The notebook at ``path`` (or in ``data``, its bytes already read) and its lesson (``lesson`` if given). Parsed
    in a child process (``READ_SECONDS``, ``READ_MEMORY``): only its cells' types and sources come back, in a fresh
    notebook. FileNotFoundError if there is no file; ValueError with a clear message if it is a link, a special file,
    too large, has too many cells or is no notebook of a lesson."""
    import nbformat

    data = read_regular(path, max_mb) if data is None else data
    if len(data) > max_mb * 1_000_000:
        raise ValueError(f"larger than {max_mb:g} MB (--max-notebook-mb): not read")
    brackets = data.count(b"[") + data.count(b"{")  # at least as many as its JSON lists and objects
    if brackets > MAX_BRACKETS:
        raise ValueError(f"more than {MAX_BRACKETS:,} JSON lists and objects ({brackets:,} brackets): not read")
    try:
        parsed = run_limited(lambda ask: parse_notebook(data), lambda request: {"error": "no requests"},
                             seconds=READ_SECONDS, megabytes=READ_MEMORY)
    except Exceeded as exc:
        raise ValueError("not read: " + str(exc).replace("marking", "parsing it", 1)) from None
    if "refused" in parsed:
        raise ValueError(str(parsed["refused"]))
    nb = nbformat.v4.new_notebook(cells=[new_cell(kind, source) for kind, source in parsed["cells"]])
    if parsed["lesson"] is not None:
        nb.metadata[METADATA_KEY] = {"lesson": parsed["lesson"]}
    gradings = lesson_gradings()
    if lesson is not None and lesson not in gradings:
        raise ValueError(f"there is no lesson {lesson!r}")
    return nb, lesson or lesson_of(nb.metadata, path, gradings)
