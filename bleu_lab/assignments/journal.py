"""The journal of a batch: each grade, once given, appended to a file beside the output, so that a rerun of the same
command after the grader died (killed, out of memory, the machine restarted) keeps the marks already given.

The file is JSON lines: first ``{"key": ..., "seed": ...}``, the batch's identity (its notebooks in order, the options
that change a mark) and the seed of its hidden cases; then ``{"index": i, "sha256": ..., "grade": {...}}`` per graded
notebook. A rerun whose key matches takes the seed and every grade whose file still has that SHA-256; the journal is
removed only once the whole batch is graded and every export written (a crash while writing them keeps every mark). A
line that is not the grader's (cut short by the crash) is ignored.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sys
from pathlib import Path

from .results import ExerciseResult, NotebookGrade

JOURNAL_SUFFIX = ".journal"


def journal_path(output: Path | None, key: str) -> Path:
    """Where the journal of batch ``key`` goes: beside its export ``output`` (``marks.csv.journal``), else in this
    user's cache folder (``$XDG_CACHE_HOME/bleu-lab/`` or ``~/.cache/bleu-lab/``, ``grade-KEY.journal``)."""
    if output is not None:
        return output.with_name(output.name + JOURNAL_SUFFIX)
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "bleu-lab"
    return cache / f"grade-{key[:16]}{JOURNAL_SUFFIX}"


def batch_key(paths: list[Path], options: dict) -> str:
    """The identity of a batch: its notebooks (absolute paths, in order) and the options that change a mark."""
    text = json.dumps({"paths": [os.path.abspath(p) for p in paths], "options": options}, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def grade_to_json(grade: NotebookGrade) -> dict:
    return {**dataclasses.asdict(grade), "path": str(grade.path)}


def grade_from_json(item: dict) -> NotebookGrade:
    """A ``NotebookGrade`` back from ``grade_to_json`` (unknown fields ignored)."""
    known = {f.name for f in dataclasses.fields(ExerciseResult)}
    exercises = [ExerciseResult(**{k: v for k, v in e.items() if k in known}) for e in item.get("exercises", [])]
    fields = {f.name for f in dataclasses.fields(NotebookGrade)} - {"path", "exercises"}
    return NotebookGrade(Path(item["path"]), exercises=exercises, **{k: v for k, v in item.items() if k in fields})


class Journal:
    """The journal file of one batch (see the module's docstring)."""

    def __init__(self, path: Path | None, key: str, seed: int, resumed: dict[int, tuple[str, NotebookGrade]]) -> None:
        self.path, self.key, self.seed, self.resumed = path, key, seed, resumed

    @classmethod
    def open(cls, path: Path, key: str, seed: int | None, new_seed: int) -> Journal:
        """The journal at ``path``: resumed if it is batch ``key``'s (and, when ``seed`` is given, of that seed), else
        started afresh with ``seed`` or ``new_seed``."""
        resumed: dict[int, tuple[str, NotebookGrade]] = {}
        header = None
        try:
            with open(path, encoding="utf-8") as f:
                for number, line in enumerate(f):
                    try:
                        item = json.loads(line)
                    except ValueError:
                        continue
                    if number == 0:
                        header = item if isinstance(item, dict) else None
                        continue
                    if isinstance(item, dict) and isinstance(item.get("index"), int):
                        resumed[item["index"]] = (str(item.get("sha256")), grade_from_json(item["grade"]))
        except FileNotFoundError:
            pass
        except (OSError, KeyError, TypeError, ValueError):
            header = None
        if header is not None and header.get("key") == key and isinstance(header.get("seed"), int) and (
                seed is None or header["seed"] == seed):
            return cls(path, key, header["seed"], resumed)
        chosen = new_seed if seed is None else seed
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            cls._write(path, json.dumps({"key": key, "seed": chosen}) + "\n", "w")
        except OSError as exc:  # grading goes on without one
            print(f"bleu-lab grade: warning: no journal ({path}: {exc.strerror}): a rerun after a crash starts over",
                  file=sys.stderr, flush=True)
            return cls(None, key, chosen, {})
        return cls(path, key, chosen, {})

    @staticmethod
    def _write(path: Path, text: str, mode: str) -> None:
        with open(path, mode, encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())

    def earlier(self, index: int, sha256: str | None) -> NotebookGrade | None:
        """The grade an earlier run gave notebook ``index``, if its file is unchanged since."""
        found = self.resumed.get(index)
        return found[1] if found is not None and sha256 is not None and found[0] == sha256 else None

    def record(self, index: int, sha256: str | None, grade: NotebookGrade) -> None:
        """Append notebook ``index``'s grade (flushed to disk before the next notebook's report)."""
        if self.path is None:
            return
        try:
            self._write(self.path, json.dumps({"index": index, "sha256": sha256, "grade": grade_to_json(grade)})
                        + "\n", "a")
        except OSError as exc:
            print(f"bleu-lab grade: warning: the journal {self.path} cannot be written ({exc.strerror}): a rerun "
                  "after a crash starts over", file=sys.stderr, flush=True)
            self.path = None

    def finish(self) -> None:
        """The whole batch is graded and its exports written: no rerun needs the journal."""
        if self.path is not None:
            self.path.unlink(missing_ok=True)
