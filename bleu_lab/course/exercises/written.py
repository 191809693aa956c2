"""Written answers: key points found or missing, negations and dismissals understood, reversed claims, and feedback
that never says "correct" (a keyword check cannot grade meaning; the grader compares with the model answer)."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from .feedback import Feedback

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

    def verdict(self) -> dict[str, str]:
        """Recorded, never "correct": a keyword check cannot grade meaning (the notebook view's bar, mark, words)."""
        return {"colour": "#1565c0", "mark": "✎", "word": "recorded.",
                "remark": "A keyword check cannot grade meaning: compare with the model answer."}


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
