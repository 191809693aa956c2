"""Marking, in the grader's marking process: the lessons' checks on the student's plain values.

``grade_exercise`` runs an exercise's check on the visible cases and on hidden cases drawn from the seed
(``hidden_rng``); ``Marker`` decodes the kernel's replies (``wire``) and stands in for the student's functions with
``KernelFunction``s that call them in the kernel. ``assert_passes`` is the same check in an nbgrader test cell."""

from __future__ import annotations

import json
import random
import secrets
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from ..course.exercises import MAX_ANSWER_CHARS, Feedback, GradedExercise, LessonGrading, reset_tries, shown
from . import lesson_gradings, wire
from .results import ExerciseResult

WIRE_CLASSES = ("bleu_lab.metrics.significance.BootstrapResult", "bleu_lab.metrics.significance.RandomizationResult",
                "bleu_lab.sacrebleu_style.BleuScore", "bleu_lab.statistics.BleuStats")


def hidden_rng(seed: int, lesson: str, exercise: str) -> random.Random:
    """The random source of one exercise's hidden cases: the same seed draws the same cases, whatever the order."""
    return random.Random(f"{seed}:{lesson}:{exercise}")


def grade_exercise(exercise: GradedExercise, namespace: Mapping[str, object], seed: int = 0,
                   lesson: str = "") -> ExerciseResult:
    """Mark one exercise from the student's values in ``namespace`` (decoded values, ``KernelFunction``s or any
    objects), with the visible check and hidden cases drawn from ``seed``."""
    result = ExerciseResult(exercise.name, possible=exercise.points, manual=bool(exercise.manual))
    args = _answers(exercise, namespace)
    if isinstance(args, str):
        result.messages.append(args)
        return result
    visible = _run_check(exercise.check, args, {})
    if exercise.manual:
        result.answer = "; ".join(f"{name} = {shown(value, MAX_ANSWER_CHARS)}"  # as much as the check reads
                                  for name, value in zip(exercise.answers, args))
        result.key_points = exercise.manual
        result.messages += [m for m in visible.messages if not m.startswith(("recorded:", "a model answer"))]
        return result
    result.points += visible.passed
    if not visible.passed:
        result.messages.append(str(visible))
    if exercise.hidden is not None:
        cases = exercise.hidden(hidden_rng(seed, lesson, exercise.name))
        hidden = _run_check(exercise.check, args, cases)
        result.points += hidden.passed
        result.hidden_points = int(hidden.passed)
        if not hidden.passed and visible.passed:
            result.messages.append("hidden cases: " + str(hidden))
        elif not hidden.passed:
            result.messages.append("hidden cases: not passed either")
    return result


def _answers(exercise: GradedExercise, namespace: Mapping[str, object]) -> list[object] | str:
    """The student's values the exercise's check takes, or why they are missing."""
    missing = [name for name in exercise.answers if name not in namespace]
    if missing:
        return (f"{', '.join(missing)} is not defined after running the notebook "
                "(a cell above raised, or the name was changed)")
    problems = [f"{name}: {namespace[name].why}" for name in exercise.answers
                if isinstance(namespace[name], Unreadable)]
    if problems:
        return "could not read the answer: " + "; ".join(problems)
    return [namespace[name] for name in exercise.answers]


def grade_namespace(grading: LessonGrading, namespace: Mapping[str, object], seed: int = 0) -> list[ExerciseResult]:
    """Mark every exercise of a lesson from one namespace."""
    return [grade_exercise(exercise, namespace, seed, grading.notebook) for exercise in grading.exercises]


def _run_check(check: Callable[..., Feedback], args: list[object], kwargs: Mapping[str, object]) -> Feedback:
    """A check's feedback, as on a first try (tiered hints never show the answer); a crash is a failure."""
    reset_tries()
    try:
        feedback = check(*args, **kwargs)
    except MemoryError:
        raise  # beyond marking's memory limit: the whole notebook's marking stops, and says so
    except Exception as exc:  # noqa: BLE001 - an answer that crashes the check fails it
        return Feedback(check.__name__).fail(f"the check could not run on this answer: {type(exc).__name__}: {exc}")
    return feedback if isinstance(feedback, Feedback) else Feedback(check.__name__).fail("the check returned nothing")


@dataclass(frozen=True)
class Unreadable:
    """An answer the kernel could not hand over as a plain value."""

    why: str


class StudentError(Exception):
    """An exception the student's function raised in the kernel (its class name and message, nothing else)."""


_STUDENT_ERRORS: dict[str, type[StudentError]] = {}


def student_error(name: str, message: str) -> StudentError:
    """A ``StudentError`` whose class is named like the student's exception, so the checks' hints still read it
    ("raised ZeroDivisionError: division by zero")."""
    safe = name if name.isidentifier() else "Error"
    if safe not in _STUDENT_ERRORS:
        _STUDENT_ERRORS[safe] = type(safe, (StudentError,), {})
    return _STUDENT_ERRORS[safe](message)


class Marker:
    """The marking process's side of the kernel: decodes the replies that ``KernelSession`` passes on (under the
    marking limits) and hands the checks plain values and ``KernelFunction``s."""

    def __init__(self, ask: Callable[[dict], dict], classes: Mapping[str, type]) -> None:
        self.ask, self.classes = ask, classes

    def _text(self, request: dict) -> str:
        reply = self.ask(request)
        if "error" in reply:
            raise RuntimeError(str(reply["error"]))
        return str(reply.get("text", ""))

    def answers(self, names: Iterable[str]) -> dict[str, object]:
        """The student's values of ``names`` (functions as ``KernelFunction``; ``Unreadable`` where none came)."""
        names = list(names)
        try:
            reply = json.loads(self._text({"op": "answers", "names": names}))
        except (RuntimeError, ValueError) as exc:
            return {name: Unreadable(str(exc)) for name in names}
        found: dict[str, object] = {}
        for name in names:
            item = reply.get(name, {}) if isinstance(reply, dict) else {}
            if not isinstance(item, dict) or item.get("missing"):
                continue
            if "raised" in item:
                found[name] = Unreadable("it cannot be read as a plain value ({}: {})".format(
                    *(list(item["raised"]) + ["", ""])[:2]))
                continue
            try:
                value = wire.decode(item.get("ok"), self.classes)
            except MemoryError:
                raise
            except Exception as exc:  # noqa: BLE001 - anything malformed is unreadable, never trusted
                found[name] = Unreadable(f"malformed value ({type(exc).__name__}: {str(exc)[:100]})")
                continue
            found[name] = KernelFunction(self, name) if isinstance(value, wire.FunctionRef) else value
        return found

    def call(self, name: str, args: tuple) -> object:
        """The student's ``name(*args)``, run in the kernel; its decoded result, or its exception re-raised here."""
        try:
            args_json = json.dumps([wire.encode(a) for a in args], allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise RuntimeError(f"the grader could not send these arguments ({exc})") from exc
        reply = json.loads(self._text({"op": "call", "name": name, "args": args_json}))
        if not isinstance(reply, dict):
            raise RuntimeError("the kernel sent a malformed reply")
        if "raised" in reply:
            kind, message = (list(reply["raised"]) + ["", ""])[:2]
            raise student_error(str(kind), str(message))
        return wire.decode(reply.get("ok"), self.classes)


class KernelFunction:
    """The grader's stand-in for a student's function: calling it runs the function in the student's kernel on the
    same (serialised) arguments and returns the decoded result. The checks call it like any function."""

    def __init__(self, session: Marker, name: str) -> None:
        self.session, self.__name__ = session, name

    def __call__(self, *args: object) -> object:
        return self.session.call(self.__name__, args)

    def __repr__(self) -> str:
        return f"<your function {self.__name__}>"


def _wire_classes() -> dict[str, type]:
    """The bleu_lab result classes an answer may be (the only classes the grader rebuilds)."""
    import importlib

    found = {}
    for qualified in WIRE_CLASSES:
        module, _, name = qualified.rpartition(".")
        found[qualified] = getattr(importlib.import_module(module), name)
    return found


def assert_passes(lesson: str, index: int, *, hidden: bool = False) -> None:
    """An nbgrader test cell of ``bleu-lab release``'s nbgrader source: exercise ``index`` of ``lesson`` passes.

    Runs in the student's kernel on their objects (so, unlike ``bleu-lab grade``, a notebook can forge it: see the
    instructor guide), on the visible cases or (``hidden=True``) on hidden cases drawn now at random, and raises
    ``AssertionError`` with the check's feedback otherwise, which nbgrader shows the student.
    """
    from IPython import get_ipython

    exercise = lesson_gradings()[lesson].exercises[index]
    shell = get_ipython()
    args = _answers(exercise, shell.user_ns if shell is not None else {})
    if isinstance(args, str):
        raise AssertionError(f"{exercise.name}: {args}")
    cases = exercise.hidden(random.Random(secrets.randbits(64))) if hidden and exercise.hidden else {}
    feedback = _run_check(exercise.check, args, cases)
    if not feedback.passed:
        raise AssertionError(f"{exercise.name}{' (hidden cases)' if hidden else ''}:\n{feedback}")
    print(f"{exercise.name}: passed{' on the hidden cases' if hidden else ''}")
