"""Automatic, instructive checks for the lessons' exercises.

Each lesson has a module here (named after the lesson) with ``check_...`` functions and the cases and hints they
use. A check runs the student's answer or function on cases, compares with bleu_lab's own result, and returns
``Feedback`` that says *what* is wrong ("your clipped count for ('the',) is 3; the most any reference has is 2"), not
just that something is. A module also declares, in ``GRADING``, how ``bleu-lab grade`` marks its lesson (see
``bleu_lab.assignments``), with hidden cases drawn at grading time.

What every lesson shares lives in a module named for its role, re-exported here:

- ``feedback``: ``Feedback``, hints that grow with each wrong try, multiple-choice answers by counts
- ``values``: a student's number, whole number or list read in every correct form; the checks' tolerances
- ``written``: written answers (key points, negations, reversed claims) and their ``WrittenFeedback``
- ``cases``: the case loop of a function exercise (``Case``, ``check_cases``, ``number_problem``)
- ``grading``: ``GradedExercise``/``LessonGrading``, the ``GRADING`` declarations; ``hidden``: sentences for hidden
  cases
"""

from .cases import (
    MAX_REPORTED_CASES,
    Case,
    Slip,
    call_student,
    check_cases,
    enough_failures,
    number_problem,
    run_student_code,
)
from .feedback import (
    Feedback,
    choice_mistakes,
    choices_text,
    reset_tries,
    tiered_hint,
)
from .grading import (
    GradedExercise,
    LessonGrading,
)
from .hidden import (
    CASE_WORDS,
    random_sentence,
    random_variant,
)
from .values import (
    ABS_TOL,
    FLOAT32_TINY,
    MAX_EXPONENT,
    MAX_ITEMS,
    MAX_NUMBER_TEXT,
    REL_TOL,
    as_list,
    as_number,
    as_whole,
    close,
    number_from_text,
    number_text_problem,
    same_number,
    shown,
)
from .written import (
    CLAUSE,
    CONDITION,
    DISMISSED_AFTER,
    MAX_ANSWER_CHARS,
    NEGATION,
    NOUN_NEGATION,
    SCOPE_BREAK,
    WORDS_IN_SCOPE,
    ReversedClaim,
    WrittenFeedback,
    check_written_answer,
    key_points_found,
    missing_key_points,
    reversed_claims,
)

__all__ = [
    "ABS_TOL",
    "CASE_WORDS",
    "CLAUSE",
    "CONDITION",
    "Case",
    "DISMISSED_AFTER",
    "FLOAT32_TINY",
    "Feedback",
    "GradedExercise",
    "LessonGrading",
    "MAX_ANSWER_CHARS",
    "MAX_EXPONENT",
    "MAX_ITEMS",
    "MAX_NUMBER_TEXT",
    "MAX_REPORTED_CASES",
    "NEGATION",
    "NOUN_NEGATION",
    "REL_TOL",
    "ReversedClaim",
    "SCOPE_BREAK",
    "Slip",
    "WORDS_IN_SCOPE",
    "WrittenFeedback",
    "as_list",
    "as_number",
    "as_whole",
    "call_student",
    "check_cases",
    "check_written_answer",
    "choice_mistakes",
    "choices_text",
    "close",
    "enough_failures",
    "key_points_found",
    "missing_key_points",
    "number_from_text",
    "number_problem",
    "number_text_problem",
    "random_sentence",
    "random_variant",
    "reset_tries",
    "reversed_claims",
    "run_student_code",
    "same_number",
    "shown",
    "tiered_hint",
]
