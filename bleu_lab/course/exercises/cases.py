"""The case loop of a function exercise: call the student's function on each case, say what is wrong, hint.

A lesson's check module states only its cases: a ``Case`` is what the student's function is called with and a
``problem`` function that says what is wrong with a result (None when it is right). ``check_cases`` does the rest for
every lesson alike: it refuses what is not a function, turns an exception into a message (with the case's advice),
reports each wrong case under its label, stops after ``MAX_REPORTED_CASES`` failing cases, and notes the lesson's
remark when everything is right. ``number_problem`` builds the ``problem`` of a case whose answer is one number.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .feedback import Feedback, tiered_hint
from .values import as_number, close, shown

MAX_REPORTED_CASES = 3  # a check stops after this many failing cases: more messages would bury the first


@dataclass(frozen=True)
class Slip:
    """What is wrong with a result, and a fix shown only on a later wrong try (``tiered_hint``): the first wrong try
    names the slip, never the code or formula that fixes it."""

    message: str
    fix: str


@dataclass(frozen=True)
class Case:
    """One call of the student's function: ``func(*args)``; ``problem(result)`` says what is wrong with its result (a
    hint, or a ``Slip``; None when it is right); ``on_error`` is advice added when the call raises on this case;
    ``label`` names the case in messages."""

    label: str
    args: tuple
    problem: Callable[[object], str | Slip | None]
    on_error: str = ""


def run_student_code(feedback: Feedback, func, *args):
    """Call the student's ``func(*args)``; on an exception record it in ``feedback`` and return None."""
    try:
        return func(*args)
    except Exception as exc:  # noqa: BLE001 - any error in student code becomes feedback, not a traceback
        feedback.fail(f"calling it with {', '.join(map(repr, args))} raised {type(exc).__name__}: {exc}")
        return None


def call_student(feedback: Feedback, func: Callable, *args) -> tuple[bool, object]:
    """Run the student's ``func(*args)``: (True, None) if it failed (recorded in ``feedback``), else (False, result)."""
    if not callable(func):
        feedback.fail(f"pass your function itself (its name, without parentheses), not a {type(func).__name__}")
        return True, None
    before = len(feedback.messages)
    result = run_student_code(feedback, func, *args)
    return len(feedback.messages) > before, result


def enough_failures(feedback: Feedback, most: int = MAX_REPORTED_CASES, failed: int | None = None) -> bool:
    """True (and a note added) once ``most`` cases have failed: ``failed`` of them, or, if not given, as many as
    ``feedback`` holds messages."""
    if (len(feedback.messages) if failed is None else failed) < most:
        return False
    feedback.note(f"(stopping after {most} failing case{'s' if most > 1 else ''}; fix {'these' if most > 1 else 'it'} "
                  "first)")
    return True


def check_cases(exercise: str, func: object, cases: Iterable[Case], *, passed: str = "",
                most: int | None = MAX_REPORTED_CASES, stop_on_error: bool = False, reveal: bool = False) -> Feedback:
    """Run the student's ``func`` on every case and collect what is wrong, as ``Feedback(exercise)``.

    A call that raises is reported with the case's ``on_error`` advice (and ends the check if ``stop_on_error``); a
    wrong result is reported as "label: problem". A ``Slip``'s fix shows through ``tiered_hint`` on a later try (or
    with ``reveal=True``), once a run. The check stops after ``most`` failing cases (None: it reports every case);
    ``passed`` is noted when every case is right.
    """
    fb = Feedback(exercise)
    if not callable(func):
        name = exercise.split("(")[0]
        return fb.fail(f"pass your function itself ({name}, its name without parentheses), not a "
                       f"{type(func).__name__}")
    fix_shown, failed = False, 0
    for case in cases:
        raised, result = call_student(fb, func, *case.args)
        problem = None if raised else case.problem(result)
        if raised:
            if case.on_error:
                fb.messages[-1] += f" — {case.on_error}"
            if stop_on_error:
                break
        elif isinstance(problem, Slip) and not fix_shown:
            tiered_hint(fb, [f"{case.label}: {problem.message}"], problem.fix, reveal=reveal)
            fix_shown = True
        elif problem is not None:
            fb.fail(f"{case.label}: {problem.message if isinstance(problem, Slip) else problem}")
        failed += raised or problem is not None
        if most is not None and enough_failures(fb, most, failed):
            break
    if fb.passed and passed:
        fb.note(passed)
    return fb


def number_problem(expected: float, wrong: Callable[[float], str | Slip], *, what: str = "a number",
                   strings: bool = False, same: Callable[[object, float], bool] = close
                   ) -> Callable[[object], str | Slip | None]:
    """The ``problem`` of a case whose answer is one number: None if the result (in any form ``as_number`` reads;
    strings only if ``strings``) is ``same`` as ``expected``, "return {what}" if it is no number, else
    ``wrong(the number as a float)`` (what the wrong number points to)."""
    def problem(result: object) -> str | Slip | None:
        number = as_number(result, strings=strings)
        if number is None:
            return f"return {what}, not {type(result).__name__} ({shown(result)})"
        if same(number, expected):
            return None
        try:
            return wrong(float(number))
        except OverflowError:
            return wrong(math.copysign(math.inf, number))
    return problem
