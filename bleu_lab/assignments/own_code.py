"""Hidden points mean the student's own code: a function exercise is marked again with bleu_lab's own
implementation of what it asks for taken out of the student's world.

Each exercise declares, in its lesson's ``GRADING``, the bleu_lab functions that do what it asks for
(``GradedExercise.implemented_by``, e.g. ``"bleu_lab.brevity.brevity_penalty"``). When such an exercise earned points,
``bleu-lab grade`` runs the notebook a second time in a fresh kernel in which every function its lesson's exercises
declare is a **stand-in** that raises ("bleu_lab's own brevity_penalty is not available to graded code"), and marks
those exercises again, visible and hidden cases alike. An answer that is, wraps or calls one of them (the function
itself, a lambda, ``functools.partial``, a call inside the student's function, an import inside it, ``getattr``)
cannot compute anything there, so it loses the exercise's points: "uses bleu_lab's own X: write it yourself".

The verdict is the grader's: it compares the marks of the two runs, and the second run earns points only with code
that runs without bleu_lab's implementation. Only a second run that ran to its end concludes (``unfinished``): one
whose kernel died, that ran out of time or output, whose marking went beyond its limits, or in which a cell raised an
``OSError`` or ``MemoryError`` it did not raise in the first run, is run again (in a batch of several at once, when
nothing runs beside it); if that one does not finish either, the exercises are "not marked: grade again"
(``leave_unmarked``): no points, and no accusation. Where the stand-ins live decides what the kernel can undo:

- **bubblewrap**: the stand-in module is bound read-only over bleu_lab's module file, and an empty folder over the
  ``__pycache__`` beside it (its compiled copies), so nothing in the box holds the implementation: reloading the
  module, ``importlib``, ``sys.modules`` surgery, reading the file and ``exec``-ing it, loading the ``.pyc`` with
  ``marshal`` or copying a ``__code__`` all find the stand-in.
- **none**: a finder at the head of ``sys.meta_path``, installed before the kernel starts, loads the stand-in
  whenever the module is imported or reloaded. The kernel runs as the grader's user and can read bleu_lab's files
  (as it could read a worked solution): a notebook that removes the finder or executes the module's file passes.

Other libraries' implementations (nltk's ``brevity_penalty``, sacrebleu's) and bleu_lab functions that compute the
same quantity inside a larger result of their own are not hidden: an answer built on them, or on bleu_lab's source
text pasted into the notebook, is a copy of someone else's code for the person who grades to see, not a grader bypass.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import functools
import importlib.util
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..course.exercises import GradedExercise, LessonGrading
from .sandbox import in_box, with_box_args

MISSING = "is not available to graded code"  # in every stand-in's error: how the report names what was called
MAX_BOOT_CHARS = 120_000  # the stand-ins travel in the kernel's command line (one argument holds at most 128 KiB)
_CALLED = re.compile(r"bleu_lab's own ([\w.]+) " + re.escape(MISSING))


@dataclass(frozen=True)
class Overlay:
    """The stand-in world of one lesson: ``functions`` (qualified names) hidden; ``modules`` maps each module that
    holds one to (its file, the stand-in source); ``grading`` the exercises marked again in it."""

    grading: LessonGrading
    functions: tuple[str, ...]
    modules: Mapping[str, tuple[Path, str]]

    def bwrap_args(self, folder: Path) -> list[str]:
        """bubblewrap's arguments binding the stand-ins (written into ``folder``, a folder of the grader's) over
        bleu_lab's module files, and an empty read-only folder over the ``__pycache__`` beside each (no compiled copy
        of the original is left to load with ``marshal``; the kernel compiles those modules from source)."""
        folder.mkdir(parents=True, exist_ok=True)
        args = []
        for index, (name, (path, text)) in enumerate(sorted(self.modules.items())):
            stand_in = folder / f"{index}-{name}.py"
            stand_in.write_text(text, encoding="utf-8")
            args += ["--ro-bind", str(stand_in), str(path)]
        for cache in sorted({path.parent / "__pycache__" for path, _ in self.modules.values()}):
            if cache.is_dir():
                args += ["--tmpfs", str(cache), "--remount-ro", str(cache)]
        return args

    def kernel(self, prefix: list[str], folder: Path) -> tuple[list[str], str]:
        """The kernel's command prefix and the code it runs first, for this world: under bubblewrap (``prefix``
        holds ``bwrap``) the stand-ins bound in the box, else the finder (``boot``)."""
        if not in_box(prefix):
            return prefix, self.boot()
        return with_box_args(prefix, self.bwrap_args(folder)), ""

    def boot(self) -> str:
        """Python run in the kernel before IPython starts (``--sandbox none``), in a namespace of its own: a finder
        that loads each stand-in in place of its module, on import and on reload."""
        texts = {name: text for name, (_, text) in self.modules.items()}
        code = f"""
import importlib.machinery as _machinery, sys as _sys
class _StandIn(_machinery.SourceFileLoader):
    texts = {texts!r}
    def get_code(self, fullname):
        return compile(self.texts[fullname], self.path, "exec", dont_inherit=True)
class _StandIns:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name not in _StandIn.texts:
            return None
        spec = _machinery.PathFinder.find_spec(name, path, target)
        if spec is not None and spec.origin:
            spec.loader, spec.cached = _StandIn(name, spec.origin), None
        return spec
    @staticmethod
    def invalidate_caches():
        pass
_sys.meta_path.insert(0, _StandIns)
"""
        if len(code) > MAX_BOOT_CHARS:
            raise ValueError(f"lesson {self.grading.notebook}: the stand-ins of {', '.join(self.functions)} take "
                             f"{len(code):,} characters, more than the {MAX_BOOT_CHARS:,} a kernel's command line "
                             "holds: declare fewer functions, or split their module")
        return code


def declared(grading: LessonGrading) -> tuple[str, ...]:
    """Every bleu_lab function the lesson's exercises declare as their answer (in order, once each)."""
    return tuple(dict.fromkeys(name for e in grading.exercises for name in (e.implemented_by or ())))


@functools.cache
def overlay(grading: LessonGrading) -> Overlay | None:
    """The stand-in world of a lesson (None if none of its exercises declares a function); ``ValueError`` naming
    the exercise if a declared name is not a function (or a method of a class) defined in a bleu_lab module.
    Built from the grader's files before any submission runs (the grader calls it at start) and kept."""
    functions = declared(grading)
    if not functions:
        return None
    by_module: dict[str, list[str]] = {}
    for qualified in functions:
        module, inside = _split(qualified, grading)
        by_module.setdefault(module, []).append(inside)
    modules = {}
    for module, names in by_module.items():
        path = Path(importlib.util.find_spec(module).origin).resolve()
        modules[module] = (path, stand_in_source(path.read_text(encoding="utf-8"), names, module))
    marked = tuple(e for e in grading.exercises if e.implemented_by)
    return Overlay(LessonGrading(grading.notebook, marked), functions, modules)


def _split(qualified: str, grading: LessonGrading) -> tuple[str, str]:
    """("bleu_lab.brevity", "brevity_penalty") of a declared name: the longest importable bleu_lab module in front."""
    parts = qualified.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:cut])
        try:
            found = parts[0] == "bleu_lab" and importlib.util.find_spec(module) is not None
        except ImportError:  # a name inside a module, not a module
            found = False
        if found:
            return module, ".".join(parts[cut:])
    raise ValueError(f"lesson {grading.notebook}: {qualified!r} in implemented_by is not a function of a bleu_lab "
                     "module (write it as 'bleu_lab.module.function')")


def stand_in_source(source: str, names: Iterable[str], module: str = "the module") -> str:
    """``source`` with the definition of each of ``names`` (a function, or ``Class.method``) replaced by one of the
    same name that raises, under the same decorators: no line of the original body is left."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    spans = []
    for name in names:
        node = _definition(tree, name)
        if node is None:
            raise ValueError(f"{module}.{name} (declared in implemented_by) is not a function defined in {module}")
        start = node.lineno  # its decorators stay (a property stays a property that raises)
        indent = " " * node.col_offset
        short = name.rsplit(".", 1)[-1]
        stub = (f"{indent}def {short}(*args, **kwargs):\n"
                f"{indent}    raise RuntimeError(\"bleu_lab's own {short} {MISSING}: write it yourself\")\n")
        spans.append((start - 1, node.end_lineno, stub))
    for start, end, stub in sorted(spans, reverse=True):
        lines[start:end] = [stub]
    return "".join(lines)


def _definition(tree: ast.Module, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The module-level definition of ``name`` ("function" or "Class.method"; the last one if defined twice)."""
    body = tree.body
    *classes, function = name.split(".")
    for cls in classes:
        found = [n for n in body if isinstance(n, ast.ClassDef) and n.name == cls]
        if not found:
            return None
        body = found[0].body
    found = [n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == function]
    return found[-1] if found else None


def recheck(grade, grading: LessonGrading, rerun: Callable[[Overlay], object], *, tries: int = 2,
            last: bool = True):
    """``grade`` (a ``NotebookGrade``) with every exercise that earned points and declares bleu_lab functions marked
    again by ``rerun(overlay)`` in the stand-in world; an exercise that earns fewer points there gets none.

    Only a stand-in run that ran to its end concludes (``unfinished``): one that did not (its kernel died, a time
    limit, an OS error) is run again, up to ``tries`` runs in all. If none finished: with ``last``, those exercises
    are not marked (``leave_unmarked``: no points, no accusation); without, ``grade.retry`` says why, for the batch
    to run it once more with nothing beside it (and ``last``)."""
    world = overlay(grading)
    if world is None:
        return grade
    at_stake = {r.name for r in grade.exercises if r.points > 0} & {e.name for e in world.grading.exercises}
    if not at_stake:
        return grade
    marked = tuple(e for e in world.grading.exercises if e.name in at_stake)
    exercises = {e.name: e for e in marked}
    why = ""
    for _ in range(tries):
        try:
            again = rerun(dataclasses.replace(world, grading=LessonGrading(grading.notebook, marked)))
        except (OSError, MemoryError) as exc:  # the grader's side of the run failed (a full disk ...)
            again, why = None, f"{type(exc).__name__}: {exc}"[:300]
        else:
            why = unfinished(again, grade)
        if not why:
            judge(grade, again, exercises)
            grade.retry = ""
            return grade
    if last:
        leave_unmarked(grade, exercises, why)
        grade.retry = ""
    else:
        grade.retry = why
    return grade


OS_ERRORS = frozenset(name for name, value in vars(builtins).items()
                      if isinstance(value, type) and issubclass(value, (OSError, MemoryError)))
_CELL_ERROR = re.compile(r"cell (\d+): (\w+):")


def unfinished(again, first) -> str:
    """Why the stand-in run ``again`` (a ``NotebookGrade``) cannot conclude anything ("" if it can): it stopped
    before its end (``stopped``: the kernel died, a time limit, the output cap, marking's limits), or a cell that ran
    in ``first`` (the ordinary run) without an OS error now raised one (``OSError`` and its kin, ``MemoryError``: the
    machine's trouble, e.g. a full disk, not the student's code)."""
    if getattr(again, "stopped", ""):
        return again.stopped
    raised_before = {m.group(1) for e in first.errors if (m := _CELL_ERROR.match(e))}
    for error in again.errors:
        found = _CELL_ERROR.match(error)
        if found and found.group(2) in OS_ERRORS and found.group(1) not in raised_before:
            return error
    return ""


def _short(exercise: GradedExercise) -> list[str]:
    return [name.rsplit(".", 1)[-1] for name in exercise.implemented_by]


def leave_unmarked(grade, exercises: Mapping[str, GradedExercise], why: str) -> None:
    """The exercises of ``exercises`` that earned points in ``grade`` are not marked: their points are withheld and
    each says "not marked: grade again" with ``why`` (the stand-in run could not finish), never an accusation."""
    names = []
    for result in grade.exercises:
        exercise = exercises.get(result.name)
        if exercise is None or result.points == 0:
            continue
        names.append(result.name)
        result.points, result.hidden_points = 0, 0
        result.unmarked = why
        result.messages = [f"not marked: grade again (the second run, with bleu_lab's own "
                           f"{', '.join(_short(exercise))} hidden, could not finish twice: {why})"]
    if names:
        grade.note = (grade.note + "; " if grade.note else "") + (
            f"not marked: grade again: {', '.join(names)} (the run with bleu_lab's functions hidden could not finish "
            f"twice: {why})")


def judge(grade, again, exercises: Mapping[str, GradedExercise]) -> None:
    """Take the points of each exercise of ``exercises`` that ``again`` (a stand-in run that finished: ``unfinished``
    is empty) did not confirm."""
    second = {r.name: r for r in again.exercises}
    for result in grade.exercises:
        exercise = exercises.get(result.name)
        if exercise is None or result.points == 0:
            continue
        other = second.get(result.name)
        if other is not None and other.points >= result.points:
            continue
        short = _short(exercise)
        called = list(dict.fromkeys(m.rsplit(".", 1)[-1] for text in (other.messages if other else [])
                                    for m in _CALLED.findall(text) if m.rsplit(".", 1)[-1] in short))
        line = f"uses bleu_lab's own {' or '.join(called or short)}: write it yourself"
        why = f" (with it hidden, your answer earned {other.points if other else 0} of {result.possible} points)"
        result.points, result.hidden_points = 0, 0
        result.messages = [line + why]
