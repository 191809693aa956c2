"""Automatic, instructive checks for the lessons' exercises.

Each lesson has a module here (named after the lesson) with ``check_...`` functions. A check runs the
student's answer or function on cases, compares with bleu_lab's own result, and returns ``Feedback``
that says *what* is wrong ("your clipped count for ('the',) is 3; the most any reference has is 2"),
not just that something is.

A module also declares, in ``GRADING``, how an assignment grades its lesson (``bleu-lab grade``, see
``bleu_lab.assignments``): which check takes which of the student's objects, and hidden cases for the function checks.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

MAX_REPORTED_CASES = 3  # a check stops after this many failing cases: more messages would bury the first

# Wrong tries so far per exercise name, in this kernel: "by hand" checks give a stronger hint each time.
_wrong_tries: Counter[str] = Counter()


@dataclass
class Feedback:
    """The outcome of one exercise check: passed or not, with messages for the student."""

    exercise: str
    passed: bool = True
    messages: list[str] = field(default_factory=list)

    def fail(self, message: str) -> Feedback:
        """Record a problem (the check keeps going, so the student sees every problem at once)."""
        self.passed = False
        self.messages.append(message)
        return self

    def note(self, message: str) -> Feedback:
        """Record a remark that is not a failure."""
        self.messages.append(message)
        return self

    def __str__(self) -> str:
        head = f"✔ {self.exercise}: correct!" if self.passed else f"✘ {self.exercise}: not yet."
        return "\n".join([head, *(f"  - {m}" for m in self.messages)])

    def __repr__(self) -> str:  # the readable text, also in terminals and plain-text renderers
        return str(self)

    def _repr_html_(self) -> str:
        colour, mark, word = ("#2e7d32", "✔", "correct!") if self.passed else ("#c62828", "✘", "not yet.")
        items = "".join(f"<li>{html.escape(m)}</li>" for m in self.messages)
        return (
            f'<div style="border-left:4px solid {colour};padding:4px 10px">'
            f"<b>{mark} {html.escape(self.exercise)}: {word}</b><ul>{items}</ul></div>"
        )


@dataclass(frozen=True)
class GradedExercise:
    """How ``bleu-lab grade`` marks one exercise of a lesson.

    ``check(*answers)`` is the lesson's own check, called on the student's objects named ``answers``; it earns 1 point.
    ``hidden`` (function exercises only) gives the same check other inputs, ``check(*answers, **hidden)`` (usually
    ``{"cases": ...}``), for 1 more point, so that an answer hard-coded for the visible cases does not pass.
    A ``manual`` exercise (a written answer) earns no automatic points: the report shows the student's text and these
    key points to the grader, and the solved copy shows ``model_answer``.
    """

    name: str
    check: Callable[..., Feedback]
    answers: tuple[str, ...]
    hidden: Mapping[str, object] | None = None
    manual: str = ""
    model_answer: str = ""

    @property
    def points(self) -> int:
        """Automatic points: 0 for a manual exercise, else 1 for the visible check and 1 for the hidden cases."""
        return 0 if self.manual else 1 + (self.hidden is not None)


@dataclass(frozen=True)
class LessonGrading:
    """The graded exercises of one lesson notebook (its file name without ``.ipynb``), in notebook order."""

    notebook: str
    exercises: tuple[GradedExercise, ...]


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


def enough_failures(feedback: Feedback) -> bool:
    """True (and a note added) once MAX_REPORTED_CASES cases have failed."""
    if len(feedback.messages) < MAX_REPORTED_CASES:
        return False
    feedback.note(f"(stopping after {MAX_REPORTED_CASES} failing cases; fix these first)")
    return True


def choices_text(choices: dict[str, tuple[str, bool, str]]) -> str:
    """A multiple-choice question's options ``{letter: (text, correct, why)}``, one "A. text" per line."""
    return "\n".join(f"{key}. {text}" for key, (text, _, _) in choices.items())


def tiered_hint(feedback: Feedback, hints: Sequence[str], answer: str, *, reveal: bool = False) -> Feedback:
    """Fail ``feedback`` with a hint that grows with each wrong try of the same exercise.

    The k-th wrong try (k = 1, 2, ...) shows ``hints[k-1]``; once every hint has been shown, or when the
    student asks with ``reveal=True``, the next wrong try shows ``answer`` as well. So a first wrong answer
    never gives the solution away, and nobody stays stuck for ever.
    """
    if not hints:
        raise ValueError("hints must hold at least one hint: the first wrong try never shows the answer")
    _wrong_tries[feedback.exercise] += 1
    tries = _wrong_tries[feedback.exercise]
    shown = hints[: min(tries, len(hints))]
    feedback.fail(shown[-1] if len(shown) == 1 else "hints so far: " + " | ".join(shown))
    if reveal or tries > len(hints):
        feedback.note(f"the answer: {answer}")
    else:
        left = len(hints) - tries
        more = f"{left} more hint(s) on the next tries, then the answer" if left else "the answer on the next try"
        feedback.note(f"try again ({more}; or call the check with reveal=True)")
    return feedback


def missing_key_points(answer: str, key_points: Sequence[tuple[str, Sequence[str]]]) -> list[str]:
    """The key points of a written answer (point, its keywords) that none of their keywords appears for."""
    text = answer.lower()
    return [point for point, words in key_points if not any(word in text for word in words)]


def choice_mistakes(feedback: Feedback, chosen: set[str], true_keys: set[str], wrong_hint: str, missed_hint: str
                    ) -> Feedback:
    """Fail ``feedback`` with the NUMBER of wrongly chosen and of missed letters, never the letters themselves:
    naming them would turn one try of "all of them" into the answer. The hints follow the counts."""
    wrong, missed = len(chosen - true_keys), len(true_keys - chosen)
    if wrong:
        feedback.fail(f"{wrong} of the letters you chose {'is' if wrong == 1 else 'are'} wrong: {wrong_hint}")
    if missed:
        feedback.fail(f"you found {len(true_keys & chosen)} of the {len(true_keys)} right letters: {missed_hint}")
    return feedback


def reset_tries() -> None:
    """Forget every exercise's wrong tries (as a fresh kernel would)."""
    _wrong_tries.clear()
