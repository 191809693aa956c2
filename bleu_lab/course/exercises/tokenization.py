"""Checks for lesson 7 (tokenization and reporting): token counts, nltk on words, a report line with a signature.

Each check compares the student's answer with bleu_lab's own ``tokenize`` / ``sentence_bleu`` /
``corpus_score`` and, when they differ, says what the number points to (characters scored instead of
words, a mixed-case score reported as lowercased, a signature field that does not match, ...).
"""

from __future__ import annotations

import math
import random
import re
import warnings
from collections.abc import Callable, Mapping, Sequence
from functools import partial

from nltk.translate.bleu_score import sentence_bleu as nltk_sentence_bleu

from ...nltk_style import sentence_bleu, without_warnings
from ...sacrebleu_style import corpus_score
from ...tokenization import tokenize
from . import (
    MAX_ANSWER_CHARS,
    Case,
    Feedback,
    GradedExercise,
    LessonGrading,
    Slip,
    as_number,
    as_whole,
    check_cases,
    close,
    random_sentence,
    random_variant,
    run_student_code,
    same_number,
    shown,
    tiered_hint,
)

# Exercise 1: how many tokens does each tokenizer make of this sentence?
TOKEN_SENTENCE = "The well-known chef can't cook 3.5kg of rice."
TOKEN_TOKENIZERS = ("13a", "intl", "none")
TOKENIZER_HINTS = {
    "13a": "13a splits off punctuation such as , . ? ( ) \" but keeps apostrophes and hyphens inside words "
    "(can't, well-known) and a period or comma between digits (3.5)",
    "intl": "intl splits off every punctuation character, apostrophes and hyphens inside words included, "
    "but keeps a period or comma between digits (3.5)",
    "none": "none only splits on spaces: punctuation stays glued to its word",
}

# Exercise 2: (reference, hypothesis) pairs for nltk_word_bleu; lengths differ in the first one, and case differs in
# the last (nltk compares tokens as given: a solution that lowercases scores it 1.0).
NLTK_CASES: tuple[tuple[str, str], ...] = (
    ("the cat is sitting on the mat today", "the cat is sitting on a mat"),
    ("he reads the book every evening", "every evening he reads the book"),
    ("the cat is on the mat", "the mat is on the cat"),
    ("The committee approved the new budget on Tuesday", "the committee approved the new budget on tuesday"),
)

# Exercise 3: a small corpus to score lowercased with the international tokenizer, and report.
REPORT_HYPOTHESES = (
    "The well-known chef can't cook rice.",
    "Prices rose by 3.5% in the U.S. last year.",
    'She said: "we\'ll meet on Monday."',
    "the museum opens at nine o'clock",
)
REPORT_REFERENCES = (
    ("The famous chef cannot cook rice.",),
    ("In the U.S., prices rose by 3.5% last year.",),
    ('She said: "We will meet on Monday."',),
    ("The museum opens at 9 o'clock.",),
)
REPORT_OPTIONS = {"lowercase": True, "tokenize": "intl"}

_SCORE = re.compile(r"BLEU\s*[=:]\s*(\d+(?:\.(\d+))?)")
_SIGNATURE = re.compile(r"(?:nrefs|#):[^\s()]+")
# sacrebleu's short signature (``format(short=True)``) abbreviates these fields.
_SHORT_FIELDS = {"#": "nrefs", "c": "case", "e": "eff", "s": "smooth", "v": "version", "t": "test", "l": "lang"}


def check_token_counts(prediction: Mapping[str, int], *, reveal: bool = False) -> Feedback:
    """Check the predicted number of tokens of ``TOKEN_SENTENCE`` under '13a', 'intl' and 'none'.

    Wrong counts get the tokenizer's rule first, then how far off the prediction is, and the tokens themselves only
    after that (or with ``reveal=True``).
    """
    fb = Feedback("token_counts")
    if not isinstance(prediction, Mapping):
        expected = "a dict like {'13a': 0, 'intl': 0, 'none': 0}"
        return fb.fail(f"prediction must be {expected}, not {type(prediction).__name__}")
    rules, offs, answers = [], [], []
    for name in TOKEN_TOKENIZERS:
        given = prediction.get(name)
        tokens = tokenize(TOKEN_SENTENCE, name)
        guess = as_whole(given)
        if guess is None:
            fb.fail(f"prediction[{name!r}] is {shown(given)}; write a whole number of tokens")
        elif guess != len(tokens):
            rules.append(f"{name}: {guess} is not right. {TOKENIZER_HINTS[name]}")
            offs.append(f"{name}: you predicted {guess}, which is {'too many' if guess > len(tokens) else 'too few'}")
            answers.append(f"{name} makes {len(tokens)} tokens: {tokens}")
    if rules and fb.passed:
        tiered_hint(fb, [" / ".join(rules), " / ".join(offs)], " / ".join(answers), reveal=reveal)
    elif rules:
        fb.fail(" / ".join(rules))
    if fb.passed:
        chars = len(tokenize(TOKEN_SENTENCE, "char"))
        fb.note(f"for comparison, 'char' makes {chars} tokens: one per non-space character")
    return fb


def check_nltk_word_bleu(func: Callable, *, cases: Sequence[tuple[str, str]] = NLTK_CASES,
                         reveal: bool = False) -> Feedback:
    """Check ``func(reference, hypothesis)`` (two strings) returns nltk's word-level sentence BLEU (0–1).

    A recognised mistake is named on the first wrong try; the call that fixes it comes only on a later try (or
    with ``reveal=True``), so the first run of the skeleton does not hand over the solution."""
    return check_cases("nltk_word_bleu", _quiet(func) if callable(func) else func, (
        Case(f"reference {ref!r}, hypothesis {hyp!r}", (ref, hyp), partial(_nltk_slip, ref, hyp))
        for ref, hyp in cases), most=1, reveal=reveal)


def _quiet(func: Callable) -> Callable:
    """The student's function with nltk's warnings silenced (the check names what they would warn about)."""
    def quiet(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return func(*args)
    return quiet


def _nltk_slip(ref: str, hyp: str, got: object) -> str | Slip | None:
    problem = _nltk_problem(ref, hyp, got)
    if problem is None:
        return None
    message, fix = problem
    return message if fix is None else Slip(message, fix)


def _nltk_problem(ref: str, hyp: str, got: object) -> tuple[str, str | None] | None:
    """What is wrong with one nltk_word_bleu result (None if it equals word-level BLEU): the diagnosis, and the
    fix in code where the diagnosis has one (shown only on a later try)."""
    if as_number(got, strings=False) is None:
        return f"your function returned {shown(got)}; return nltk's score, a number between 0 and 1", None
    want = without_warnings(sentence_bleu, [ref], hyp)
    if same_number(got, want, strings=False):
        return None
    got = float(as_number(got, strings=False))
    if not math.isfinite(got):
        return f"your function returned {got}; return nltk's score, a number between 0 and 1", None
    message = f"you returned {float(got):.6g}, word-level BLEU is {want:.6g}"
    call = "nltk_sentence_bleu([reference.split()], hypothesis.split())"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mistakes = (
            (nltk_sentence_bleu([ref], hyp), "you gave nltk the raw strings, so it scored CHARACTERS. What does "
             "nltk expect instead of a string? Section 6 shows it", f"split both strings: {call}"),
            (nltk_sentence_bleu([ref], hyp.split()), "the reference is still a string (nltk sees its characters): "
             "split it too", None),
            (nltk_sentence_bleu(ref.split(), hyp.split()), "references must be a LIST of token lists (one token "
             "list per reference, even when there is only one); section 6 shows the shape",
             f"wrap the split reference in a list: {call}"),
            (nltk_sentence_bleu([hyp.split()], ref.split()), "the arguments are swapped: nltk takes the references "
             "first, then the hypothesis", None),
            (want * 100, "nltk's scores are on a 0–1 scale; don't multiply by 100", None),
            (nltk_sentence_bleu([ref.lower().split()], hyp.lower().split()), "you changed the text before scoring "
             "(lowercased it): nltk compares the tokens exactly as given, and so must your function. Which words of "
             "this pair differ only in case?", None),
        )
    for value, explanation, fix in mistakes:
        if _same(got, value) and not _same(value, want):
            return f"{message} — {explanation}", fix
    return message, None


def expected_report_score() -> float:
    """The corpus BLEU (0–100) the report exercise asks for."""
    return _report_score(**REPORT_OPTIONS).score


def check_report_line(report: str) -> Feedback:
    """Check a report line like ``BLEU = 12.3 (nrefs:1|case:lc|...)`` for the exercise corpus and options."""
    fb = Feedback("report_line")
    if not isinstance(report, str):
        return fb.fail(f"report must be a string (an f-string is easiest), not {type(report).__name__}")
    report = report[:MAX_ANSWER_CHARS]  # a report line is one line: the rest is not read
    result = _report_score(**REPORT_OPTIONS)
    _check_reported_score(fb, report, result.score)
    _check_reported_signature(fb, report, result.signature)
    return fb


def _report_score(lowercase: bool = False, tokenize: str = "13a"):
    refs = [list(seg) for seg in REPORT_REFERENCES]
    return corpus_score(list(REPORT_HYPOTHESES), refs, lowercase=lowercase, tokenize=tokenize)


def _check_reported_score(fb: Feedback, report: str, want: float) -> None:
    match = _SCORE.search(report)
    if not match:
        fb.fail("start with the score, e.g. 'BLEU = 12.3': no 'BLEU = <number>' found in your report")
        return
    text, decimals = match.group(1), match.group(2) or ""
    got = float(text)
    if not decimals:
        fb.fail(f"give the score with one decimal (e.g. {want:.1f}), as papers do; you wrote {text}")
        return
    if math.isclose(got, round(want, len(decimals)), abs_tol=1e-9):
        return
    hint = f"your score {text} is not {want:.{len(decimals)}f}, the score of this corpus with the required options"
    for label, options in (
        ("sacrebleu's defaults (mixed case, 13a)", {}),
        ("mixed case (you forgot lowercase=True)", {"tokenize": "intl"}),
        ("the 13a tokenizer (you forgot tokenize='intl')", {"lowercase": True}),
    ):
        if math.isclose(got, round(_report_score(**options).score, len(decimals)), abs_tol=1e-9):
            hint += f": {text} is the score with {label}"
            break
    else:
        if math.isclose(got, round(want / 100, len(decimals)), abs_tol=1e-9):
            hint += ": sacrebleu-style scores are reported on the 0–100 scale"
    fb.fail(hint)


def _check_reported_signature(fb: Feedback, report: str, want: str) -> None:
    match = _SIGNATURE.search(report)
    if not match:
        fb.fail(
            "add the signature after the score, e.g. f\"BLEU = {result.score:.1f} ({result.signature})\": "
            "without it nobody can tell how your number was computed"
        )
        return
    got_fields, want_fields = _fields(match.group(0)), _fields(want)
    for key, value in want_fields.items():
        if key not in got_fields:
            fb.fail(f"your signature has no '{key}' field; it should read {key}:{value}")
        elif got_fields[key] != value:
            fb.fail(f"your signature says {key}:{got_fields[key]} but the required score has {key}:{value}")


def _fields(signature: str) -> dict[str, str]:
    """'nrefs:1|case:lc|...' (or sacrebleu's short '#:1|c:lc|...') -> {'nrefs': '1', 'case': 'lc', ...}."""
    pairs = (part.split(":", 1) for part in signature.split("|") if ":" in part)
    return {_SHORT_FIELDS.get(key, key): value for key, value in pairs}


def _same(a: float, b: float) -> bool:
    return close(a, b)

# For ``bleu-lab grade``: hidden sentence pairs drawn at grading time (no hidden case ships).
def hidden_nltk_cases(rng: random.Random) -> dict:
    """(reference, hypothesis) pairs for ``check_nltk_word_bleu(..., cases=...)``; in the last, the reference starts
    with a capital where the hypothesis has the word in lowercase, so a solution that lowercases fails."""
    cases = []
    for _ in range(3):
        reference = random_sentence(rng, 5, 10)
        cases.append((reference, random_variant(rng, reference, rng.randint(0, 3))))
    for _ in range(100):  # a few draws at most: the capital almost always changes the score
        reference = random_sentence(rng, 5, 10)
        words = random_variant(rng, reference, rng.randint(0, 2)).split()
        cased = " ".join([words[0].capitalize(), *reference.split()[1:]])
        hypothesis = " ".join(words)
        scores = [without_warnings(sentence_bleu, [r], hypothesis) for r in (cased, cased.lower())]
        if not close(*scores, rel_tol=1e-3):
            break
    cases.append((cased, hypothesis))
    return {"cases": cases}


# Exercise 4 (the library zoo): the setting behind a reported number. Each case: (system of data/news, reference
# names, the BLEU a paper reports with one decimal and no signature); exactly one choice of tokenizer and casing of
# corpus_score rounds to it.
PAPER_CASES: tuple[tuple[str, tuple[str, ...], float], ...] = (("fluent", ("A",), 32.2),)
SETTING_KEYS = ("tokenize", "lowercase", "smooth_method", "smooth_value", "effective_order")


def hidden_paper_cases(rng: random.Random) -> dict:
    """Three (system, references, reported BLEU) cases for ``check_find_setting``, each from a tokenizer and casing
    drawn at grading time (no hidden case ships)."""
    from ...data import load_corpus
    from ...tokenization import TOKENIZERS

    corpus = load_corpus("news")
    cases = []
    for system in rng.sample(sorted(corpus.systems), 3):
        ref_names = rng.choice((("A",), ("B",), ("A", "B")))
        options = {"tokenize": rng.choice(TOKENIZERS), "lowercase": rng.random() < 0.5}
        score = corpus_score(list(corpus.systems[system]), corpus.references_for(*ref_names), **options).score
        cases.append((system, ref_names, round(score, 1)))
    return {"cases": cases}
def check_find_setting(func: Callable, *, cases: Sequence[tuple[str, tuple[str, ...], float]] = PAPER_CASES,
                       reveal: bool = False) -> Feedback:
    """Check ``func(hypotheses, references, reported)`` returns ``corpus_score`` options (a dict) that reproduce
    ``reported`` to one decimal; any options that do are right."""
    from ...data import load_corpus
    from ...tokenization import TOKENIZERS

    fb = Feedback("find_setting")
    if not callable(func):
        return fb.fail(f"pass your function itself (find_setting), not {type(func).__name__}")
    corpus = load_corpus("news")
    for system, ref_names, reported in cases:
        hyps, refs = list(corpus.systems[system]), corpus.references_for(*ref_names)
        got = run_student_code(fb, func, hyps, [list(seg) for seg in refs], reported)
        if not fb.passed:
            break
        options = _setting_options(fb, got)
        if options is None:
            break
        try:
            value = corpus_score(hyps, refs, **options).score
        except (TypeError, ValueError) as err:
            fb.fail(f"bl.corpus_score does not accept your settings {shown(options)}: {shown(str(err))}")
            break
        if round(value, 1) != reported:
            truth = next(f"tokenize={t!r}, lowercase={lc}" for t in TOKENIZERS for lc in (False, True)
                         if round(corpus_score(hyps, refs, tokenize=t, lowercase=lc).score, 1) == reported)
            tiered_hint(fb, [
                f"system {system!r}: your settings {shown(options)} give BLEU = {value:.1f}, the paper reports "
                f"{reported}. "
                "Which options of corpus_score change a corpus score by this much? (At corpus level smoothing almost "
                "never matters: every order has matches.)",
                "let your function try the options that change a corpus score, each combination in turn, and return "
                "the one whose score rounds to the reported number",
            ], f"for system {system!r} the paper's number comes from {truth}", reveal=reveal)
            break
    if fb.passed:
        fb.note("the signature of the setting you found is what the paper should have printed next to its number")
    return fb


def _setting_options(fb: Feedback, got: object) -> dict | None:
    if not isinstance(got, Mapping):
        fb.fail(f"return the options as a dict such as {{'tokenize': '13a', 'lowercase': False}}, not "
                f"{type(got).__name__}")
        return None
    unknown = [k for k in got if k not in SETTING_KEYS]
    if unknown:
        fb.fail(f"{shown(unknown[0])} is not an option of bl.corpus_score; its options are {', '.join(SETTING_KEYS)}")
        return None
    options = dict(got)
    for key in ("lowercase", "effective_order"):
        value = options.get(key)
        if getattr(value, "ndim", None) == 0 and getattr(value, "dtype", None) is not None and value.dtype.kind == "b":
            options[key] = bool(value)  # numpy's bool is a right answer too
    return options


GRADING = LessonGrading("07_tokenization_and_reporting", (
    GradedExercise("token_counts", check_token_counts, ("prediction",), implemented_by=()),
    # The two function exercises ask for a library called right (words, not characters) and for a search over
    # settings: using a BLEU function, bleu_lab's included, is the exercise, so no bleu_lab function is the answer.
    GradedExercise("nltk_word_bleu", check_nltk_word_bleu, ("nltk_word_bleu",), hidden=hidden_nltk_cases,
                   implemented_by=()),
    GradedExercise("report_line", check_report_line, ("report",), implemented_by=()),
    GradedExercise("find_setting", check_find_setting, ("find_setting",), hidden=hidden_paper_cases,
                   implemented_by=()),
))
