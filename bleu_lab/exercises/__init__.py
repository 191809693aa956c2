"""Automatic, instructive checks for the lessons' exercises.

Each lesson has a module here (named after the lesson) with ``check_...`` functions. A check runs the
student's answer or function on cases, compares with bleu_lab's own result, and returns ``Feedback``
that says *what* is wrong ("your clipped count for ('the',) is 3; the most any reference has is 2"),
not just that something is.

A module also declares, in ``GRADING``, how an assignment grades its lesson (``bleu-lab grade``, see
``bleu_lab.assignments``): which check takes which of the student's objects, and, for the function checks, how to draw
hidden cases at grading time (a function of a seeded ``random.Random``: no hidden case ships with the package).

Every check reads a student's number, list or whole number through one helper (``as_number``, ``as_list``,
``as_whole``), so that every correct form passes: ``Fraction``, numpy scalars and arrays, tuples and generators where a
list is asked, and strings such as ``"1"`` or ``"5/8"``.
"""

from __future__ import annotations

import html
import math
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from numbers import Integral, Rational, Real

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
    ``hidden`` (function exercises only) draws other inputs at grading time, ``hidden(rng)`` -> keyword arguments of
    the check (usually ``{"cases": ...}``) from a seeded ``random.Random``; ``check(*answers, **hidden(rng))`` earns 1
    more point, so that an answer hard-coded for the visible cases does not pass, and no hidden case ships.
    A ``manual`` exercise (a written answer) earns no automatic points: the report shows the student's text and these
    key points to the grader, and the solved copy shows ``model_answer``.
    """

    name: str
    check: Callable[..., Feedback]
    answers: tuple[str, ...]
    hidden: Callable[[random.Random], Mapping[str, object]] | None = None
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


# ------------------------------------------------------------------------------------------- every correct form

MAX_ITEMS = 100_000  # a generator a student passes is read up to this many items (an endless one is not a list)


def as_number(value: object, *, strings: bool = True) -> int | Fraction | float | None:
    """A student's number as a plain Python one, or None if it is not a number.

    Accepts ``int``, ``float``, ``Fraction`` (and any ``Rational``, kept exact), ``Decimal``, numpy scalars and 0-d
    arrays, and (unless ``strings=False``, for what a function returns) strings such as ``"1"``, ``"5/8"`` or
    ``"0.625"``, read exactly. ``True``/``False``, ``None`` and ``...`` are not numbers.
    """
    if isinstance(value, bool) or value is None or value is Ellipsis or isinstance(value, str) and not strings:
        return None
    if getattr(value, "shape", None) == () and hasattr(value, "item"):  # a numpy scalar or 0-d array
        value = value.item()
        if isinstance(value, bool):
            return None
    if isinstance(value, Integral):
        return int(value)
    if isinstance(value, Rational):
        return Fraction(value.numerator, value.denominator)
    if isinstance(value, Real):
        return float(value)
    if isinstance(value, str):
        try:
            return Fraction(value.strip().replace(" ", ""))
        except (ValueError, ZeroDivisionError):
            return None
    try:  # Decimal and other exact numbers
        return Fraction(value) if type(value).__name__ == "Decimal" else None
    except (TypeError, ValueError, ArithmeticError):
        return None


def as_whole(value: object) -> int | None:
    """A student's whole number (``3``, ``np.int64(3)``, ``3.0``, ``"3"``, ``Fraction(6, 2)``) as an int, else None."""
    number = as_number(value)
    if isinstance(number, int):
        return number
    if isinstance(number, Fraction) and number.denominator == 1:
        return int(number)
    if isinstance(number, float) and math.isfinite(number) and number.is_integer():
        return int(number)
    return None


def as_list(value: object, limit: int = MAX_ITEMS) -> list | None:
    """A student's list as a list: a list, tuple, generator, range, set or numpy array (as plain Python values);
    None for a string, a mapping, anything not iterable, or more than ``limit`` items."""
    if value is None or isinstance(value, (str, bytes, Mapping)):
        return None
    if hasattr(value, "tolist") and hasattr(value, "shape"):  # a numpy array
        items = value.tolist()
        return items if isinstance(items, list) and len(items) <= limit else None
    if not isinstance(value, Iterable):
        return None
    items = []
    iterator: Iterator = iter(value)
    try:
        for item in iterator:
            if len(items) == limit:
                return None
            items.append(item)
    except Exception:  # noqa: BLE001 - a student's generator that raises is not a list
        return None
    return items


def same_number(got: object, want: float, *, rel_tol: float = 1e-9, abs_tol: float = 1e-12) -> bool:
    """Whether a student's number (any form ``as_number`` reads) equals ``want``: exactly for two exact numbers,
    else within the tolerances."""
    number = as_number(got)
    if number is None:
        return False
    if isinstance(number, (int, Fraction)) and isinstance(want, (int, Fraction)):
        return number == want
    try:
        return math.isclose(float(number), float(want), rel_tol=rel_tol, abs_tol=abs_tol)
    except (OverflowError, ValueError):
        return False


# ------------------------------------------------------------------------------------------- written answers

# A word that negates what follows it in the same clause ("would not reward", "never scores high"). "without" is not
# one: the questions themselves say "without BP".
NEGATION = re.compile(r"\b(?:not|no|never|neither|nor|hardly|cannot|\w+n't|nothing|none|unlikely)\b", re.IGNORECASE)
# A word that makes the rest of its clause a question rather than a claim ("check whether it is significant").
CONDITION = re.compile(r"\b(?:whether|if|unless|check|test|verify|confirm|until|before)\b", re.IGNORECASE)
CLAUSE = re.compile(r"[.;:!?,()\n]|\b(?:but|because|while|whereas|so|although|though)\b", re.IGNORECASE)
WORDS_IN_SCOPE = 4  # a negation reaches this many words ahead


@dataclass(frozen=True)
class ReversedClaim:
    """A claim that turns a written answer's point around: ``pattern`` (a regex) and why it is wrong."""

    pattern: str
    why: str


def _clause_before(text: str, start: int) -> str:
    """The words of ``text`` before ``start`` in the same clause."""
    head = text[:start]
    cut = max((m.end() for m in CLAUSE.finditer(head)), default=0)
    return head[cut:]


def _negated(text: str, start: int) -> bool:
    return bool(NEGATION.search(" ".join(_clause_before(text, start).split()[-WORDS_IN_SCOPE:])))


def key_points_found(answer: str, key_points: Sequence[tuple[str, Sequence[str]]]) -> tuple[list[str], list[str]]:
    """(points found, points missing) of a written answer: a point is found when one of its keywords occurs and is
    not negated in its clause ("would not reward" does not count as "reward")."""
    text = answer.lower()
    found, missing = [], []
    for point, words in key_points:
        hit = any(not _negated(text, m.start()) for word in words for m in re.finditer(re.escape(word), text))
        (found if hit else missing).append(point)
    return found, missing


def reversed_claims(answer: str, claims: Sequence[ReversedClaim]) -> list[str]:
    """Why each claim of ``claims`` that the answer makes (not negated, not asked as a question) is wrong."""
    text = answer.lower()
    reasons = []
    for claim in claims:
        for match in re.finditer(claim.pattern, text):
            before = _clause_before(text, match.start())
            if not any(NEGATION.search(part) for part in (before, match.group(0))) and not CONDITION.search(before):
                reasons.append(f"“{answer[match.start():match.end()]}”: {claim.why}")
                break
    return reasons


def missing_key_points(answer: str, key_points: Sequence[tuple[str, Sequence[str]]]) -> list[str]:
    """The key points of a written answer (point, its keywords) that no keyword shows, negations understood."""
    return key_points_found(answer, key_points)[1]


class WrittenFeedback(Feedback):
    """What a keyword check can say about a written answer: never "correct" (it cannot tell a claim from its
    opposite). It shows what was recorded, the key points found and missing, claims that look reversed, and the
    model answer to compare with. ``passed`` is only a hint for the person who grades: every key point found and no
    reversed claim."""

    def __str__(self) -> str:
        head = f"✎ {self.exercise}: recorded. A keyword check cannot grade meaning: compare with the model answer."
        return "\n".join([head, *(f"  - {m}" for m in self.messages)])

    def _repr_html_(self) -> str:
        items = "".join(f"<li>{html.escape(m)}</li>" for m in self.messages)
        return (f'<div style="border-left:4px solid #1565c0;padding:4px 10px"><b>✎ {html.escape(self.exercise)}: '
                "recorded.</b> A keyword check cannot grade meaning: compare with the model answer."
                f"<ul>{items}</ul></div>")


def check_written_answer(exercise: str, answer: object, *, key_points: Sequence[tuple[str, Sequence[str]]],
                         claims: Sequence[ReversedClaim], model_answer: str, hints: Sequence[str],
                         min_words: int = 6) -> Feedback:
    """Read a written answer: a plain ``Feedback`` failure if it is no real try (not a string of ``min_words``
    words), else ``WrittenFeedback`` with the recorded text, the key points found and missing, a hint for what is
    missing, every reversed claim, and the model answer."""
    if not isinstance(answer, str) or len(answer.split()) < min_words or answer.strip().endswith("..."):
        return Feedback(exercise).fail(
            f"write your answer as one or two sentences (at least {min_words} words) in a string, e.g. "
            'answer = "..." with your own words in place of the dots')
    fb = WrittenFeedback(exercise)
    found, missing = key_points_found(answer, key_points)
    wrong = reversed_claims(answer, claims)
    fb.passed = not missing and not wrong
    fb.note(f"recorded: {answer.strip()!r}")
    fb.note("key points mentioned: " + (", ".join(found) if found else "none of them"))
    if missing:
        fb.note("key points not found: " + ", ".join(missing) + f". Hint: {hints[min(len(found), len(hints) - 1)]}")
    for reason in wrong:
        fb.note(f"this looks reversed: {reason}")
    fb.note(f"a model answer to compare with: {model_answer}")
    return fb


# ------------------------------------------------------------------------------------------- hidden cases

# Words for the sentences of hidden cases: few, so that n-grams repeat and clipping matters.
CASE_WORDS = ("the", "a", "cat", "dog", "sat", "on", "mat", "red", "is", "and", "rose", "big")


def random_sentence(rng: random.Random, low: int = 1, high: int = 9, words: Sequence[str] = CASE_WORDS) -> str:
    """A sentence of ``low`` to ``high`` words drawn from ``words`` (for hidden cases drawn at grading time)."""
    return " ".join(rng.choice(words) for _ in range(rng.randint(low, high)))


def random_variant(rng: random.Random, sentence: str, changes: int = 2) -> str:
    """``sentence`` with up to ``changes`` words replaced, dropped or added: a hypothesis close to a reference."""
    tokens = sentence.split()
    for _ in range(changes):
        edit, at = rng.choice(("replace", "drop", "add")), rng.randrange(len(tokens) or 1)
        if edit == "replace" and tokens:
            tokens[at] = rng.choice(CASE_WORDS)
        elif edit == "drop" and len(tokens) > 1:
            del tokens[at]
        else:
            tokens.insert(at, rng.choice(CASE_WORDS))
    return " ".join(tokens)
