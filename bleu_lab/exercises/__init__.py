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
from bisect import bisect_left, bisect_right
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
MAX_NUMBER_TEXT = 100  # characters of a number written as a string ("5/8", "0.625", "1e-3")
MAX_EXPONENT = 400  # |exponent| of a number written as a string: floats end at 1e308, nothing here needs more
# A number a check compares with a float passes within this relative tolerance: a float32 keeps 24 bits (a relative
# rounding error of at most 6e-8), so an answer computed or returned in float32 passes, while a wrong answer (another
# smoothing, a count off by one, a swapped argument) is off by far more than one part in a million.
REL_TOL = 1e-6
# Only for a value of 0 (or one that underflows): nltk's scores without smoothing are as small as 1e-231 and a
# check must tell them from 0 and from each other.
ABS_TOL = 1e-300
FLOAT32_TINY = 1.1754943508222875e-38  # the smallest normal float32: smaller right answers round to 0 in float32

_DECIMAL_TEXT = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?")


def number_from_text(text: str) -> Fraction | None:
    """A number written as text (``"1"``, ``"5/8"``, ``"0.625"``, ``"1e-3"``) as an exact Fraction, else None.

    Read without exponent arithmetic on what a student wrote: text longer than ``MAX_NUMBER_TEXT`` characters, or
    with an exponent beyond ±``MAX_EXPONENT``, is refused before any conversion (``Fraction("1e999999999")`` would
    compute a number of a billion digits); ``number_text_problem`` says why.
    """
    if len(text) > 4 * MAX_NUMBER_TEXT:  # before any copy of a long string
        return None
    compact = "".join(text.split())
    if not compact or len(compact) > MAX_NUMBER_TEXT:
        return None
    parts = compact.split("/")
    if len(parts) > 2:
        return None
    values = []
    for part in parts:
        match = _DECIMAL_TEXT.fullmatch(part)
        if match is None or (match.group(1) is not None and abs(int(match.group(1))) > MAX_EXPONENT):
            return None
        values.append(Fraction(part))
    if len(values) == 2:
        if values[1] == 0:
            return None
        return values[0] / values[1]
    return values[0]


def number_text_problem(value: object) -> str:
    """Why a string is not read as a number because of its size ('' for anything else): for the check's message."""
    if not isinstance(value, str):
        return ""
    if len(value) > 4 * MAX_NUMBER_TEXT or len("".join(value.split())) > MAX_NUMBER_TEXT:
        return f"a number written as text is read up to {MAX_NUMBER_TEXT} characters"
    exponent = re.search(r"[eE]([+-]?\d+)\s*(?:/|$)", value.strip())
    if exponent and abs(int(exponent.group(1))) > MAX_EXPONENT:
        return f"a number written as text is read with an exponent between -{MAX_EXPONENT} and {MAX_EXPONENT}"
    return ""


def shown(value: object, limit: int = 80) -> str:
    """A short repr of a student's value for a message: at most ``limit`` characters (a long string or list would
    bury the feedback)."""
    if isinstance(value, str) and len(value) > limit:
        return repr(value[:limit]) + f"... ({len(value):,} characters)"
    try:
        text = repr(value)
    except Exception as exc:  # noqa: BLE001 - a student's __repr__ may raise
        return f"(a {type(value).__name__} whose repr raised {type(exc).__name__})"
    return text if len(text) <= limit else text[:limit] + "..."


def _numpy_size(value: object) -> int | None:
    """The number of elements of a numpy array (or array-like with ``size``), None if it does not say."""
    size = getattr(value, "size", None)
    return size if isinstance(size, int) and not isinstance(size, bool) else None


def as_number(value: object, *, strings: bool = True) -> int | Fraction | float | None:
    """A student's number as a plain Python one, or None if it is not a number.

    Accepts ``int``, ``float``, ``Fraction`` (and any ``Rational``, kept exact), ``Decimal``, numpy scalars and 0-d
    arrays, and (unless ``strings=False``, for what a function returns) strings such as ``"1"``, ``"5/8"`` or
    ``"0.625"``, read exactly and without exponent arithmetic (``number_from_text``). ``True``/``False``, ``None``
    and ``...`` are not numbers.
    """
    if isinstance(value, bool) or value is None or value is Ellipsis or isinstance(value, str) and not strings:
        return None
    if isinstance(value, str):
        return number_from_text(value)
    if getattr(value, "shape", None) == () and _numpy_size(value) == 1 and hasattr(value, "item"):  # numpy scalar
        try:
            value = value.item()
        except Exception:  # noqa: BLE001 - an object that only looks like numpy is not a number
            return None
        if isinstance(value, bool):
            return None
        if isinstance(value, str):
            return number_from_text(value) if strings else None
    if isinstance(value, Integral):
        return int(value)
    if isinstance(value, Rational):
        return Fraction(int(value.numerator), int(value.denominator))
    if isinstance(value, Real):
        try:
            return float(value)
        except (TypeError, ValueError, OverflowError):
            return None
    if type(value).__name__ == "Decimal":  # exact, but its exponent is the student's: bounded like a string's
        try:
            exponent = value.as_tuple().exponent
            if not isinstance(exponent, int) or abs(exponent) > MAX_EXPONENT or value.adjusted() > MAX_EXPONENT:
                return None
            return Fraction(value)
        except (TypeError, ValueError, ArithmeticError, AttributeError):
            return None
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
    None for a string, a mapping, anything not iterable, or more than ``limit`` items (an array's size is read
    before any conversion)."""
    if value is None or isinstance(value, (str, bytes, Mapping)):
        return None
    if hasattr(value, "tolist") and hasattr(value, "shape"):  # a numpy array
        size = _numpy_size(value)
        if size is None or size > limit or not getattr(value, "ndim", 0):
            return None
        items = value.tolist()
        return items if isinstance(items, list) and len(items) <= limit else None
    if isinstance(value, range):
        return list(value) if len(value) <= limit else None
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


def same_number(got: object, want: float, *, rel_tol: float = REL_TOL, abs_tol: float = ABS_TOL,
                strings: bool = True) -> bool:
    """Whether a student's number (any form ``as_number`` reads) equals ``want``: exactly for two exact numbers,
    else within the tolerances (``REL_TOL`` by default: float32 answers pass)."""
    number = as_number(got, strings=strings)
    if number is None:
        return False
    if isinstance(number, (int, Fraction)) and isinstance(want, (int, Fraction)):
        return number == want
    dtype = getattr(got, "dtype", None)
    if getattr(dtype, "kind", None) == "f" and getattr(dtype, "itemsize", None) == 4:
        abs_tol = max(abs_tol, FLOAT32_TINY)  # a right answer below it underflows to 0 in float32
    return close(number, want, rel_tol=rel_tol, abs_tol=abs_tol)


def close(a: float, b: float, *, rel_tol: float = REL_TOL, abs_tol: float = ABS_TOL) -> bool:
    """``math.isclose`` with the checks' tolerances, for two numbers already read (False where a float overflows)."""
    try:
        return math.isclose(float(a), float(b), rel_tol=rel_tol, abs_tol=abs_tol)
    except (OverflowError, ValueError, TypeError):
        return False


# ------------------------------------------------------------------------------------------- written answers

MAX_ANSWER_CHARS = 2_000  # a written answer is one or two sentences: a check reads this much of it, and says so

# A word that negates what follows it in the same clause ("would not reward", "never scores high", "no need for a
# test", "skip the test").
NEGATION = re.compile(r"\b(?:not|no|never|neither|nor|hardly|cannot|\w+n't|nothing|none|unlikely|without|skip\w*|"
                      r"forgo\w*|unnecessary|needless|pointless)\b", re.IGNORECASE)
# A word that makes the rest of its clause a question rather than a claim ("check whether it is significant"), and
# ends the reach of a negation before it ("not significant unless a paired test says so").
CONDITION = re.compile(r"\b(?:whether|if|unless|check|test|verify|confirm|until|before)\b", re.IGNORECASE)
SCOPE_BREAK = re.compile(r"^(?:whether|if|unless|until|before|than|once|after)$")
CLAUSE = re.compile(r"[.;:!?,()\n]|\b(?:but|because|while|whereas|so|although|though)\b", re.IGNORECASE)
# A predicate after a point that sets it aside: "a significance test and human evaluation are unnecessary".
DISMISSED_AFTER = re.compile(
    r"\b(?:is|are|was|were|be|being|seems?|looks?)\s+(?:(?!not\b)\w+\s+){0,2}?"
    r"(?:unnecessary|needless|pointless|superfluous|useless|irrelevant|optional|overkill|"
    r"not\s+(?:needed|necessary|required|useful|important|worth\w*))\b", re.IGNORECASE)
WORDS_IN_SCOPE = 4  # a negation reaches this many words ahead
NOUN_NEGATION = re.compile(r"no|neither|nor|without|skip\w*|forgo\w*")  # "no test and no people"
_LOOK_BEHIND = 120  # characters of a clause read before a keyword (bounded: checks stay linear in the answer)
_LOOK_AHEAD = 80  # characters read after a keyword for a predicate that dismisses it


@dataclass(frozen=True)
class ReversedClaim:
    """A claim that turns a written answer's point around: ``pattern`` (a regex) and why it is wrong."""

    pattern: str
    why: str
    negative: bool = False  # the claim is itself a denial ("no need for a test"): its own "no" or "not" is the claim


class _Clauses:
    """Where the clauses of a text start and end, found in one pass, so that each look-up is a bisection."""

    def __init__(self, text: str) -> None:
        marks = [(m.start(), m.end()) for m in CLAUSE.finditer(text)]
        self.starts = [start for start, _ in marks]
        self.ends = [end for _, end in marks]
        self.length = len(text)

    def start(self, position: int) -> int:
        """Where the clause holding ``position`` starts."""
        index = bisect_right(self.ends, position) - 1
        return self.ends[index] if index >= 0 else 0

    def end(self, position: int) -> int:
        """Where the clause holding ``position`` ends."""
        index = bisect_left(self.starts, position)
        return self.starts[index] if index < len(self.starts) else self.length


def _clause_before(text: str, start: int, clauses: _Clauses | None = None) -> str:
    """The words of ``text`` before ``start`` in the same clause (at most ``_LOOK_BEHIND`` characters of them)."""
    clauses = clauses or _Clauses(text)
    return text[max(clauses.start(start), start - _LOOK_BEHIND):start]


def _negated(text: str, start: int, clauses: _Clauses | None = None) -> bool:
    """Whether the words just before ``start`` negate it: a negation among the last ``WORDS_IN_SCOPE`` words of its
    clause, not cut off by a condition ("unless", "if"); the reach grows across "or" / "nor" ("without a test or
    human evaluation"), and across "and" for a negation of a noun ("no test and human evaluation"); "without" only
    inside a clause ("ship without a test"), since a clause that opens with it sets a condition ("without BP, ...")."""
    clauses = clauses or _Clauses(text)
    clause_start = clauses.start(start)
    words = text[max(clause_start, start - _LOOK_BEHIND):start].split()
    opens_clause = start - _LOOK_BEHIND <= clause_start
    reach, nouns_only = WORDS_IN_SCOPE, False
    for index in range(len(words) - 1, -1, -1):
        if reach == 0:
            return False
        reach -= 1
        word = words[index].strip("\"'“”‘’").lower()
        if SCOPE_BREAK.match(word):
            return False
        if NEGATION.fullmatch(word) and not (word == "without" and index == 0 and opens_clause):
            if not nouns_only or NOUN_NEGATION.fullmatch(word):
                return True
        elif word in ("or", "nor"):
            reach += WORDS_IN_SCOPE
        elif word == "and":
            reach, nouns_only = reach + WORDS_IN_SCOPE, True
    return False


def _dismissed(text: str, end: int, clauses: _Clauses) -> bool:
    """Whether the rest of the clause after a point (up to ``_LOOK_AHEAD`` characters) sets it aside: "... are
    unnecessary", "... is not needed"."""
    return DISMISSED_AFTER.search(text, end, min(clauses.end(end), end + _LOOK_AHEAD)) is not None


def _read(answer: str) -> str:
    return answer[:MAX_ANSWER_CHARS].lower()


def _mentions(text: str, key_points: Sequence[tuple[str, Sequence[str]]], clauses: _Clauses
              ) -> tuple[list[str], list[str], list[tuple[str, str]]]:
    """(points made, points missing, (point, the words that set it aside) for points only mentioned negated)."""
    found, missing, set_aside = [], [], []
    for point, words in key_points:
        made, negated_at = False, None
        for word in words:
            for match in re.finditer(re.escape(word.lower()), text):
                if _negated(text, match.start(), clauses) or _dismissed(text, match.end(), clauses):
                    negated_at = negated_at or match
                else:
                    made = True
                    break
            if made:
                break
        (found if made else missing).append(point)
        if not made and negated_at is not None:
            start, end = clauses.start(negated_at.start()), clauses.end(negated_at.end())
            set_aside.append((point, text[start:end].strip()))
    return found, missing, set_aside


def key_points_found(answer: str, key_points: Sequence[tuple[str, Sequence[str]]]) -> tuple[list[str], list[str]]:
    """(points found, points missing) of a written answer: a point is found when one of its keywords occurs and is
    neither negated in its clause ("would not reward", "no need for a test", "ship without a test") nor set aside by
    what follows ("a test and human evaluation are unnecessary"). Reads at most ``MAX_ANSWER_CHARS`` characters, in
    time linear in them."""
    text = _read(answer)
    found, missing, _ = _mentions(text, key_points, _Clauses(text))
    return found, missing


def reversed_claims(answer: str, claims: Sequence[ReversedClaim]) -> list[str]:
    """Why each claim of ``claims`` that the answer makes (not negated, not asked as a question) is wrong."""
    text = _read(answer)
    clauses = _Clauses(text)
    reasons = []
    for claim in claims:
        for match in re.finditer(claim.pattern, text):
            before = _clause_before(text, match.start(), clauses)
            opens_clause = match.start() - _LOOK_BEHIND <= clauses.start(match.start())
            denied = _denies(before, opens_clause) or not claim.negative and _denies(match.group(0), False,
                                                                                     in_claim=True)
            if not denied and not CONDITION.search(before):
                reasons.append(f"“{answer[match.start():match.end()]}”: {claim.why}")
                break
    return reasons


def _denies(words: str, opens_clause: bool, *, in_claim: bool = False) -> bool:
    """Whether ``words`` hold a negation. A "without" that opens its clause sets a condition ("without BP, ...") and
    does not count; nor does one inside a claim's own words ("short outputs without BP score lower")."""
    for index, word in enumerate(words.split()):
        word = word.strip("\"'“”‘’").lower()
        if not NEGATION.fullmatch(word):
            continue
        if word == "without" and (in_claim or index == 0 and opens_clause):
            continue
        return True
    return False


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
    missing, the key points mentioned only to be negated or set aside, every reversed claim, and the model answer.
    Reads at most ``MAX_ANSWER_CHARS`` characters, in time linear in them."""
    if not isinstance(answer, str):
        return _no_try(exercise, min_words)
    read = answer[:MAX_ANSWER_CHARS]
    if len(read.split()) < min_words or read.strip().endswith("..."):
        return _no_try(exercise, min_words)
    fb = WrittenFeedback(exercise)
    text = read.lower()
    clauses = _Clauses(text)
    found, missing, set_aside = _mentions(text, key_points, clauses)
    wrong = reversed_claims(read, claims)
    fb.passed = not missing and not wrong
    fb.note(f"recorded: {read.strip()!r}")
    if len(answer) > MAX_ANSWER_CHARS:
        fb.note(f"only the first {MAX_ANSWER_CHARS:,} of your {len(answer):,} characters were read: the question asks "
                "for one or two sentences")
    fb.note("key points mentioned: " + (", ".join(found) if found else "none of them"))
    if missing:
        fb.note("key points not found: " + ", ".join(missing) + f". Hint: {hints[min(len(found), len(hints) - 1)]}")
    for point, clause in set_aside:
        fb.note(f"not counted as {point}: “{clause}” mentions it only to negate or set it aside (a point denied is "
                "not a point made)")
    for reason in wrong:
        fb.note(f"this looks reversed: {reason}")
    fb.note(f"a model answer to compare with: {model_answer}")
    return fb


def _no_try(exercise: str, min_words: int) -> Feedback:
    return Feedback(exercise).fail(
        f"write your answer as one or two sentences (at least {min_words} words) in a string, e.g. "
        'answer = "..." with your own words in place of the dots')


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
