"""The widgets' logic as pure functions: the state of the controls in, what to show out.

No ipywidgets here, so tests (and the benchmark) call these directly. Each ``*_view_model`` returns a
small frozen dataclass whose ``.html`` is what the widget displays and whose fields (score, message,
notices, ...) are what tests assert on. Every number comes from the core (``explain``, ``brevity_penalty``);
nothing here re-implements the metric. Bad or odd input never raises: it becomes a friendly ``message``.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache

from ...brevity import brevity_penalty
from ...reports.explain import Explanation, explain
from ...reports.explain_html import explanation_html, order_table_html, token_marks, view_constants
from ...reports.templates import Markup, macros
from ...smoothing import NLTK_METHODS, SACREBLEU_METHODS
from ...tokenization import available_tokenizers
from .inputs import EMPTY_HYPOTHESIS, NO_REFERENCES, clip_references, clip_text, parse_references

WHITESPACE = "whitespace"  # the widgets' name for "str.split, no sacrebleu tokenizer"
TOKENIZERS = (WHITESPACE, "13a", "intl", "char", "zh", "none")
SMOOTHINGS = NLTK_METHODS + SACREBLEU_METHODS
SMOOTHING_DESCRIPTIONS = {
    "method0": "no smoothing: a zero p_n makes the score vanishingly small",
    "method1": "add ε = 0.1 to zero match counts",
    "method2": "add 1 to matches and totals for n ≥ 2",
    "method3": "NIST: the k-th zero p_n becomes 1 / (2^k · total)",
    "method4": "like method3, scaled for short hypotheses",
    "method5": "average each p_n with its neighbours",
    "method6": "interpolate with a prior from lower orders",
    "method7": "method4, then method5",
    "exp": "sacrebleu's default: the k-th zero p_n becomes 1 / (2^k · total)",
    "floor": "a zero p_n becomes 0.1 / total",
    "add-k": "add k = 1 to matches and totals for n ≥ 2",
    "none": "no smoothing: any zero p_n makes the score 0",
}
SMOOTHING_OPTIONS = tuple(
    (f"{'nltk' if m in NLTK_METHODS else 'sacrebleu'} {m}: {SMOOTHING_DESCRIPTIONS[m]}", m) for m in SMOOTHINGS
)
TOKENIZER_OPTIONS = (
    ("whitespace (str.split)", WHITESPACE),
    ("13a (sacrebleu's default)", "13a"),
    ("intl (Unicode punctuation)", "intl"),
    ("char (every character)", "char"),
    ("zh (Chinese)", "zh"),
    ("none (sacrebleu, whitespace only)", "none"),
)
OPTIONAL_TOKENIZER_LABELS = {"ja-mecab": "ja-mecab (Japanese, MeCab)", "ko-mecab": "ko-mecab (Korean, MeCab)"}


def tokenizer_options() -> tuple[tuple[str, str], ...]:
    """The tokenizer menu: ``TOKENIZER_OPTIONS``, then the optional tokenizers whose packages are installed."""
    extra = [name for name in available_tokenizers() if name in OPTIONAL_TOKENIZER_LABELS]
    return (*TOKENIZER_OPTIONS, *((OPTIONAL_TOKENIZER_LABELS[name], name) for name in extra))

# Starting sentences, from the lessons' sources (Papineni et al. 2002, the nltk docs, the BLEU blog posts).
EXAMPLES: dict[str, tuple[str, tuple[str, ...]]] = {
    "the cat and the cat (clipping)": (
        "the cat and the cat on the mat",
        ("the cat is on the mat", "there is a cat on the mat"),
    ),
    "a guide to action (Papineni et al.)": (
        "It is a guide to action which ensures that the military always obeys the commands of the party .",
        (
            "It is a guide to action that ensures that the military will forever heed Party commands .",
            "It is the guiding principle which guarantees the military forces always being under the command of "
            "the Party .",
            "It is the practical guide for the army always to heed the directions of the party .",
        ),
    ),
    "it is ship (four references)": ("it is ship", ("this is a ship", "it is ship", "ship it is", "a ship , it is")),
    "the Opportunity rover (paraphrase)": (
        "The Opportunity rover is combating a big sandstorm on planet Mars .",
        ("The NASA Opportunity rover is battling a massive dust storm on planet Mars .",),
    ),
}
DEFAULT_EXAMPLE = "the cat and the cat (clipping)"
DEFAULT_HYPOTHESIS, DEFAULT_REFERENCES = EXAMPLES[DEFAULT_EXAMPLE]
# The playground scores live typing: unsmoothed, almost every typed sentence has some p_n = 0 and scores 0, so it
# starts with sacrebleu's sentence-level default and shows the unsmoothed score beside it.
PLAYGROUND_SMOOTHING = "exp"
UNSMOOTHED = {"nltk": "method0", "sacrebleu": "none"}  # each formula's "no smoothing"


# ---------------------------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class Settings:
    """How to score: max n and weights (None = uniform 1/max_n), smoothing, tokenizer, lowercasing."""

    max_n: int = 4
    weights: tuple[float, ...] | None = None
    smoothing: str = "method0"
    tokenize: str = WHITESPACE
    lowercase: bool = False

    def explain_kwargs(self) -> dict:
        """The keyword arguments of ``bleu_lab.explain`` for these settings."""
        weights = self.weights if self.weights is not None else (1 / self.max_n,) * self.max_n
        tokenize = None if self.tokenize == WHITESPACE else self.tokenize
        return {"weights": weights, "smoothing": self.smoothing, "tokenize": tokenize, "lowercase": self.lowercase}


def parse_weights(text: str, max_n: int) -> tuple[float, ...] | None:
    """Weights typed as text ('0.4 0.3 0.2 0.1' or '0.5, 0.5'); '' or 'uniform' -> None (uniform 1/max_n).

    Raises ``ValueError`` with a message for the student when the text is not ``max_n`` numbers.
    """
    text = (text or "").strip()
    if text.lower() in ("", "uniform"):
        return None
    parts = [p for p in re.split(r"[\s,;]+", text[:200]) if p]
    try:
        weights = tuple(float(p) for p in parts)
    except ValueError:
        raise ValueError(f"weights: type {max_n} numbers separated by spaces, e.g. "
                         f"'{' '.join(['%g' % (1 / max_n)] * max_n)}', or leave the box empty for uniform") from None
    if len(weights) != max_n:
        raise ValueError(f"weights: max n is {max_n}, so type {max_n} numbers (you typed {len(weights)}), "
                         "or leave the box empty for uniform weights")
    return weights


def text_rows(text: object, chars_per_line: int = 60, min_rows: int = 1, max_rows: int = 12) -> int:
    """How many rows a text box needs to show ``text`` whole, lines wrapped at ``chars_per_line`` (clamped).

    A fallback for browsers without CSS ``field-sizing: content`` (which fits the box exactly where supported).
    """
    lines = ("" if text is None else str(text))[: max_rows * chars_per_line * 2].split("\n")
    rows = sum(max(1, -(-len(line) // chars_per_line)) for line in lines)
    return max(min_rows, min(rows, max_rows))


# ---------------------------------------------------------------------------------------------- explain


@dataclass(frozen=True)
class ExplainResult:
    """An explanation of raw text, or the friendly message that replaces it; plus notices (e.g. truncation)."""

    explanation: Explanation | None = None
    message: str | None = None
    notices: tuple[str, ...] = ()

    @property
    def score(self) -> float | None:
        """The BLEU score (0–1), or None when there is only a message."""
        return None if self.explanation is None else self.explanation.score

    @property
    def html(self) -> str:
        """The explain view (or the message), with the notices above it."""
        body = message_html(self.message) if self.explanation is None else explanation_html(self.explanation)
        return notices_html(self.notices) + body

    @property
    def text(self) -> str:
        """The plain-text form (for terminals)."""
        body = self.message if self.explanation is None else str(self.explanation)
        return "\n".join([*(f"notice: {n}" for n in self.notices), body or ""])


MAX_N = 9  # the largest n-gram order a widget scores


def settings_problem(settings: object) -> str | None:
    """Why ``settings`` cannot be used by a widget (None if they can): never an exception for odd values."""
    if not isinstance(settings, Settings):
        return "Choose the settings first (max n, weights, smoothing, tokenizer)."
    n = settings.max_n
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_N:
        return f"max n must be a whole number from 1 to {MAX_N}, not {n!r}."
    return None


def whole_number(value: object, default: int, low: int, high: int) -> int:
    """``value`` as an int clipped to [low, high]; ``default`` for anything that is not a finite number."""
    try:
        number = int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError, OverflowError):
        return default
    return max(low, min(number, high))


def explain_texts(hypothesis: object, references: object, settings: Settings = Settings()) -> ExplainResult:
    """``explain`` for raw text from widget boxes: cut to size, blank boxes skipped, errors as messages."""
    problem = settings_problem(settings)
    if problem:
        return ExplainResult(message=problem)
    hyp = clip_text(hypothesis, "hypothesis")
    refs, notices = clip_references(references)
    notices = ([hyp.notice] if hyp.notice else []) + notices
    if hyp.blank:
        return ExplainResult(message=EMPTY_HYPOTHESIS, notices=tuple(notices))
    if not refs:
        return ExplainResult(message=NO_REFERENCES, notices=tuple(notices))
    try:
        expl = explain(refs, hyp.text, **settings.explain_kwargs())
    except (TypeError, ValueError) as err:
        return ExplainResult(message=f"These settings cannot be scored: {err}", notices=tuple(notices))
    if expl.hyp_len == 0:
        return ExplainResult(message=f"The {settings.tokenize} tokenizer leaves no tokens in this hypothesis. "
                             + EMPTY_HYPOTHESIS, notices=tuple(notices))
    return ExplainResult(expl, None, tuple(notices))


def image_html(png: bytes, alt: str, width_px: int) -> str:
    """A PNG as an ``<img>`` with alt text (for screen readers), at most ``width_px`` wide."""
    return str(_views().image(base64.b64encode(png).decode("ascii"), alt, width_px))


def message_html(message: str | None) -> str:
    """A friendly message box (the circled i makes it readable without colour)."""
    return str(_views().message(message or ""))


def failure_message(err: BaseException) -> str:
    """What a widget says instead of a traceback when something it did failed unexpectedly."""
    if isinstance(err, MemoryError):
        return ("This needs more memory than this page may use (on a shared server each student's kernel has a "
                "memory limit, and this computation went past it): try smaller input, or fewer files at once.")
    return f"Something unexpected happened ({type(err).__name__}: {err})."


def notices_html(notices: Sequence[str]) -> str:
    """Notices (e.g. 'only the first 200 words are scored') above a view."""
    return str(_views().notices(notices))


def sentence_explorer_view_model(
    hypothesis: str, references_text: str, settings: Settings = Settings()
) -> ExplainResult:
    """The sentence explorer: a hypothesis and a text area with one reference per line -> the explain view."""
    return explain_texts(hypothesis, parse_references(references_text), settings)


# ---------------------------------------------------------------------------------------------- playground


@dataclass(frozen=True)
class PlaygroundState:
    """Every control of the playground, as the student left it."""

    hypothesis: str = DEFAULT_HYPOTHESIS
    references: tuple[str, ...] = DEFAULT_REFERENCES
    max_n: int = 4
    weights: str = ""  # as typed; '' = uniform
    smoothing: str = PLAYGROUND_SMOOTHING
    tokenize: str = WHITESPACE
    lowercase: bool = False


@dataclass(frozen=True)
class PlaygroundView:
    """What the playground shows for one state; ``unsmoothed`` is the score without smoothing (None if unknown)."""

    result: ExplainResult
    max_n: int
    unsmoothed: float | None = None
    # What the charts show when only the score is refused (typed weights under sacrebleu's smoothing): p_n and BP
    # do not depend on the weights, so the bars and the curve stay.
    chart: Explanation | None = None

    @property
    def _charted(self) -> Explanation | None:
        return self.result.explanation or self.chart

    @property
    def score(self) -> float | None:
        return self.result.score

    @property
    def message(self) -> str | None:
        return self.result.message

    @property
    def html(self) -> str:
        """The explain view (or the friendly message)."""
        return self.result.html

    @property
    def score_html(self) -> str:
        """The headline, big enough for a projector: the score, its smoothing, the unsmoothed score; or the message."""
        expl = self.result.explanation
        if expl is None:
            return message_html(self.result.message)
        unsmoothed = None if expl.smoothing in UNSMOOTHED.values() else self.unsmoothed
        return str(_views().headline(expl, smoothing_name(expl.smoothing), unsmoothed))

    @property
    def precisions(self) -> tuple[float | None, ...]:
        """p_1 ... p_max_n as floats for the bar chart (None where there is nothing to show)."""
        expl = self._charted
        if expl is None:
            return (None,) * self.max_n
        return tuple(None if o.precision is None else float(o.precision) for o in expl.orders)

    @property
    def precision_labels(self) -> tuple[str, ...]:
        """'5/8'-style labels of the bars."""
        expl = self._charted
        return ("",) * self.max_n if expl is None else tuple(o.precision_text for o in expl.orders)

    @property
    def lengths(self) -> tuple[int, int] | None:
        """(c, r) for the BP curve, or None."""
        expl = self._charted
        return None if expl is None else (expl.hyp_len, expl.ref_len)

    @property
    def bars_alt(self) -> str:
        """The p_n bar chart in words (its alt text)."""
        if self._charted is None:
            return "Bar chart of the modified precisions p_n: empty, nothing is scored."
        bars = ", ".join(f"p{n} = {label}" for n, label in enumerate(self.precision_labels, 1))
        return f"Bar chart of the modified precisions: {bars}."

    @property
    def bp_alt(self) -> str:
        """The brevity-penalty curve in words (its alt text)."""
        curve = "Brevity penalty BP = exp(1 − r/c) against c/r, 1 from c = r on"
        if self._charted is None:
            return f"{curve}."
        c, r = self.lengths
        return f"{curve}; this hypothesis: c = {c}, r = {r}, BP = {self._charted.bp:.3f}."


def smoothing_name(method: str) -> str:
    """How the headline names a smoothing method: 'exp smoothing', 'nltk method1 smoothing', 'no smoothing'."""
    if method in UNSMOOTHED.values():
        return "no smoothing"
    return f"{method} smoothing" if method in SACREBLEU_METHODS else f"nltk {method} smoothing"


def unsmoothed_html(unsmoothed: float | None, method: str) -> str:
    """' · unsmoothed 0.0000' beside a smoothed score ('' when the score is unsmoothed or unknown)."""
    if unsmoothed is None or method in UNSMOOTHED.values():
        return ""
    return str(_views().unsmoothed(unsmoothed))


def unsmoothed_score(hypothesis: object, references: object, settings: Settings, result: ExplainResult) -> float | None:
    """The score of ``result`` without smoothing (the same formula's 'method0' or 'none'); None if unscored."""
    expl = result.explanation
    if expl is None or expl.smoothing in UNSMOOTHED.values():
        return None if expl is None else expl.score
    plain = Settings(settings.max_n, settings.weights, UNSMOOTHED[expl.flavour], settings.tokenize, settings.lowercase)
    return explain_texts(hypothesis, references, plain).score


def weights_problem(weights: tuple[float, ...] | None, smoothing: str) -> str | None:
    """Why typed ``weights`` cannot go with ``smoothing`` (sacrebleu's formula weighs orders equally), or None."""
    if weights is None or smoothing not in SACREBLEU_METHODS or len(set(weights)) == 1:
        return None
    return (f"weights: sacrebleu's {smoothing} smoothing weighs every order equally. Leave the weights box empty, "
            "or choose an nltk smoothing (e.g. method1) to use your own weights.")


def playground_view_model(state: PlaygroundState) -> PlaygroundView:
    """The playground's output for ``state``: the explain view, the score (and unsmoothed), the bars' values, (c, r)."""
    try:
        weights = parse_weights(state.weights, state.max_n)
    except ValueError as err:
        return PlaygroundView(ExplainResult(message=str(err)), state.max_n)
    problem = weights_problem(weights, state.smoothing)
    if problem:
        uniform = Settings(state.max_n, None, state.smoothing, state.tokenize, state.lowercase)
        chart = explain_texts(state.hypothesis, state.references, uniform).explanation
        return PlaygroundView(ExplainResult(message=problem), state.max_n, chart=chart)
    settings = Settings(state.max_n, weights, state.smoothing, state.tokenize, state.lowercase)
    result = explain_texts(state.hypothesis, state.references, settings)
    return PlaygroundView(result, state.max_n, unsmoothed_score(state.hypothesis, state.references, settings, result))


# ---------------------------------------------------------------------------------------------- clip table


@dataclass(frozen=True)
class ClipTableView:
    """The clip table of order n for an edited hypothesis."""

    result: ExplainResult
    n: int

    @property
    def order(self):
        """The ``OrderReport`` of order n, or None."""
        expl = self.result.explanation
        return None if expl is None else expl.orders[self.n - 1]

    @property
    def precision_text(self) -> str | None:
        """p_n as a fraction, e.g. '5/8'."""
        return None if self.order is None else self.order.precision_text

    @property
    def html(self) -> str:
        expl = self.result.explanation
        if expl is None:
            return notices_html(self.result.notices) + message_html(self.result.message)
        # For unigrams each token is its own n-gram: the template marks it ✓ / ✂ / ✗. The clip table is markup
        # rendered by explain_parts.html.j2.
        table = Markup(order_table_html(self.order, max_rows=40))
        return notices_html(self.result.notices) + str(
            _views().clip(token_marks(expl)[:200], self.n, self.order, self.precision_text, table))


def clip_table_view_model(
    references: Sequence[str], hypothesis: str, n: int = 1, lowercase: bool = False
) -> ClipTableView:
    """The clip table of order ``n`` for ``hypothesis`` against ``references`` (whitespace tokens)."""
    n = whole_number(n, 1, 1, MAX_N)
    return ClipTableView(explain_texts(hypothesis, references, Settings(max_n=n, lowercase=lowercase)), n)


# ---------------------------------------------------------------------------------------------- BP slider


@dataclass(frozen=True)
class BpView:
    """The brevity penalty for hypothesis length c and reference length r."""

    c: int
    r: int
    bp: float

    @property
    def rule(self) -> str:
        """Which case of the definition applies, with the numbers in."""
        if self.c == 0:
            return "c = 0: an empty hypothesis gets BP = 0"
        if self.c > self.r:
            return f"c = {self.c} > r = {self.r}: longer than the reference, no penalty, BP = 1"
        return f"c = {self.c} ≤ r = {self.r}: BP = exp(1 − r/c) = exp(1 − {self.r}/{self.c}) = {self.bp:.4f}"

    @property
    def html(self) -> str:
        return str(_views().brevity(self.bp, self.rule))


def bp_view_model(hyp_len: int, ref_len: int) -> BpView:
    """BP for c = ``hyp_len`` and r = ``ref_len`` (``brevity_penalty``), with the rule that applies."""
    c, r = whole_number(hyp_len, 0, 0, 10**6), whole_number(ref_len, 0, 0, 10**6)
    return BpView(c, r, brevity_penalty(r, c))


# ---------------------------------------------------------------------------------------------- smoothing


@dataclass(frozen=True)
class SmoothingRow:
    """One smoothing method's result: the p_n it used and the score (None, with a ``problem``, if it cannot)."""

    method: str
    library: str
    description: str
    used: tuple[float | None, ...]
    score: float | None
    problem: str | None = None


@dataclass(frozen=True)
class SmoothingComparison:
    """The same hypothesis scored with several smoothing methods."""

    rows: tuple[SmoothingRow, ...] = ()
    raw: tuple[str, ...] = ()  # p_n before smoothing, as fractions
    message: str | None = None
    notices: tuple[str, ...] = ()

    def score(self, method: str) -> float | None:
        """The score of ``method``."""
        return next(row.score for row in self.rows if row.method == method)

    @property
    def html(self) -> str:
        if self.message:
            return notices_html(self.notices) + message_html(self.message)
        best = max((row.score for row in self.rows if row.score is not None), default=None)
        return notices_html(self.notices) + str(_views().smoothing(self.rows, [str(p) for p in self.raw], best))


def smoothing_comparison(
    references: Sequence[str],
    hypothesis: str,
    *,
    methods: Sequence[str] = SMOOTHINGS,
    max_n: int = 4,
    tokenize: str = WHITESPACE,
    lowercase: bool = False,
) -> SmoothingComparison:
    """``hypothesis`` scored with each smoothing method in ``methods`` (nltk's and sacrebleu's).

    A method that cannot score this input (e.g. method6 on a hypothesis too short for it) gets a row that
    says why; empty input gives the friendly message instead of a table.
    """
    methods = (methods,) if isinstance(methods, str) else tuple(methods or ())  # one name is one method
    if not methods:
        return SmoothingComparison(message="Choose at least one smoothing method.")
    first = explain_texts(hypothesis, references, Settings(max_n, None, "method0", tokenize, lowercase))
    if first.explanation is None:
        return SmoothingComparison(message=first.message, notices=first.notices)
    rows = []
    for method in methods:
        if method not in SMOOTHINGS:
            rows.append(SmoothingRow(str(method), "?", "", (), None,
                                     f"unknown method; choose among {', '.join(SMOOTHINGS)}"))
            continue
        result = explain_texts(hypothesis, references, Settings(max_n, None, method, tokenize, lowercase))
        library = "nltk" if method in NLTK_METHODS else "sacrebleu"
        expl = result.explanation
        used = () if expl is None else tuple(o.smoothed for o in expl.orders)
        rows.append(SmoothingRow(method, library, SMOOTHING_DESCRIPTIONS.get(method, ""), used,
                                 None if expl is None else expl.score, result.message))
    raw = tuple(o.precision_text for o in first.explanation.orders)
    return SmoothingComparison(tuple(rows), raw, None, first.notices)


# ---------------------------------------------------------------------------------------------- beat BLEU

Rule = Callable[[Sequence[str], Sequence[Sequence[str]]], str | None]  # tokens -> why the rule is broken, or None
NEGATIONS = frozenset({"not", "no", "never", "nobody", "nothing", "none", "neither", "nor", "cannot", "n't"})


def _says_the_opposite(hyp: Sequence[str], refs: Sequence[Sequence[str]]) -> str | None:
    in_refs = {t.lower() for r in refs for t in r}
    negs = [t for t in hyp if (t.lower() in NEGATIONS or t.lower().endswith("n't")) and t.lower() not in in_refs]
    return None if negs else "Your sentence must say the opposite: add a negation (not, no, never, isn't, ...)."


def _no_cat(hyp: Sequence[str], refs: Sequence[Sequence[str]]) -> str | None:
    return "The word 'cat' is not allowed: your sentence must not be about the cat." if any(
        t.lower().strip(".,!?") in ("cat", "cats") for t in hyp) else None


def _same_words_other_order(hyp: Sequence[str], refs: Sequence[Sequence[str]]) -> str | None:
    if any(list(hyp) == list(r) for r in refs):
        return "That is a reference word for word: change the order of the words."
    if not any(sorted(hyp) == sorted(r) for r in refs):
        return "Use exactly the words of one reference (each as often as it has it), only in another order."
    return None


def _at_most_four_words(hyp: Sequence[str], refs: Sequence[Sequence[str]]) -> str | None:
    return None if len(hyp) <= 4 else f"Use at most 4 words (you have {len(hyp)})."


@dataclass(frozen=True)
class Challenge:
    """A 'beat BLEU' task: a bad translation, by ``rule``, that still scores at least ``threshold`` (0–1)."""

    key: str
    title: str
    task: str
    references: tuple[str, ...]
    threshold: float
    rule: Rule
    lesson: str  # the failure mode, revealed once the challenge is beaten
    settings: Settings = field(default_factory=lambda: Settings(smoothing="method1"))
    placeholder: str = "type your bad translation here"


_CAT = ("the cat is on the mat", "there is a cat on the mat")
CHALLENGES: dict[str, Challenge] = {
    c.key: c
    for c in (
        Challenge(
            "opposite", "Say the opposite",
            "Write a sentence that means the opposite of the references (add a negation) and still scores ≥ 0.5.",
            _CAT, 0.5, _says_the_opposite,
            "BLEU counts matching n-grams; one extra word like 'not' costs only the few n-grams around it, "
            "even though it flips the meaning. BLEU measures overlap, not meaning.",
        ),
        Challenge(
            "no-cat", "Lose the cat",
            "Write a sentence without the word 'cat' (so it is about something else) that scores ≥ 0.5.",
            _CAT, 0.5, _no_cat,
            "The most important word is worth no more than any other: BLEU gives every n-gram the same weight, "
            "so swapping the one content word that matters still leaves most n-grams matching.",
        ),
        Challenge(
            "swap", "Swap the roles",
            "Use exactly the words of one reference in another order (e.g. put the mat on the cat) "
            "and score ≥ 0.25.",
            _CAT, 0.25, _same_words_other_order,
            "Unigram precision is perfect for any reordering, and the short n-grams inside the swapped phrases "
            "still match: BLEU only sees word order through 2- to 4-grams, and only locally.",
        ),
        Challenge(
            "fragment", "Say almost nothing",
            "Write at most 4 words that score ≥ 0.5 with sacrebleu's sentence BLEU (exp smoothing).",
            _CAT, 0.5, _at_most_four_words,
            "With effective order, a short fragment is only averaged over the orders it has, and the brevity "
            "penalty for 4 words against 6 is mild (exp(1 − 6/4) ≈ 0.61): a fragment can beat a full translation.",
            Settings(smoothing="exp"),
        ),
    )
}


@dataclass(frozen=True)
class ChallengeResult:
    """How a hypothesis does on a challenge: its score, whether it keeps the rule, whether BLEU is beaten."""

    challenge: Challenge | None  # None when no such challenge exists (``result`` then holds the message)
    result: ExplainResult
    rule_problem: str | None  # why the hypothesis breaks the rule (None = keeps it)

    @property
    def score(self) -> float | None:
        return self.result.score

    @property
    def beaten(self) -> bool:
        """True if the hypothesis keeps the rule and scores at least the threshold."""
        return self.score is not None and self.rule_problem is None and self.score >= self.challenge.threshold

    @property
    def html(self) -> str:
        ch = self.challenge
        if self.result.explanation is None:
            return notices_html(self.result.notices) + message_html(self.result.message)
        why = Markup(explanation_html(self.result.explanation))  # rendered by explain.html.j2
        return notices_html(self.result.notices) + str(
            _views().challenge(ch, self.score, self.rule_problem, self.beaten, why))


def challenge_view_model(challenge: Challenge | str, hypothesis: str) -> ChallengeResult:
    """Score ``hypothesis`` on ``challenge`` (a ``Challenge`` or a key of ``CHALLENGES``) and check its rule."""
    if not isinstance(challenge, Challenge):
        if not (isinstance(challenge, str) and challenge in CHALLENGES):
            known = ", ".join(CHALLENGES)
            return ChallengeResult(None, ExplainResult(message=f"There is no challenge {challenge!r}; choose one of "
                                                               f"{known}."), None)
        challenge = CHALLENGES[challenge]
    result = explain_texts(hypothesis, challenge.references, challenge.settings)
    expl = result.explanation
    problem = None if expl is None else challenge.rule(expl.hypothesis, expl.references)
    return ChallengeResult(challenge, result, problem)


@cache
def _views():
    """The macros of templates/widget_views.html.j2 (message, notices, image, headline, clip, brevity, smoothing,
    challenge)."""
    return macros("widget_views.html.j2", **view_constants())
