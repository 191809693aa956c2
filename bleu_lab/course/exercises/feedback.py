"""Feedback for the lessons' checks: what a check says to the student, and hints that grow with each wrong try.

``Feedback`` collects a check's verdict and messages (shown as text or, in a notebook, as HTML); ``tiered_hint`` gives
a stronger hint with each wrong try of an exercise, and the answer only when the hints are used up or asked for;
``choice_mistakes`` answers a multiple-choice question with counts, never with the letters.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from ...reports.templates import render

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

    def verdict(self) -> dict[str, str]:
        """How the notebook view shows the outcome: the bar's colour, the mark, the word and a remark after them."""
        if self.passed:
            return {"colour": "#2e7d32", "mark": "✔", "word": "correct!", "remark": ""}
        return {"colour": "#c62828", "mark": "✘", "word": "not yet.", "remark": ""}

    def _repr_html_(self) -> str:
        return render("exercise_feedback.html.j2", exercise=self.exercise, messages=self.messages, **self.verdict())


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
