"""Checks on user input, so bad input fails early with a message that names the argument.

Every public function calls these before doing any arithmetic: a student who passes ``None``,
bytes, or lists of the wrong length gets a ``TypeError``/``ValueError`` that says what was expected,
never a ``ZeroDivisionError`` from deep inside the formula.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from numbers import Real

Tokens = list[str]


def as_tokens(value: object, name: str) -> Tokens:
    """Return ``value`` as a list of tokens: a string is split on whitespace, a sequence of strings is kept."""
    if isinstance(value, str):
        return value.split()
    if type(value) is list and set(map(type, value)) == {str}:  # the usual case, checked in C (runs per segment)
        return list(value)
    if value is None:
        raise TypeError(f"{name} must be a string or a list of string tokens, not None")
    if isinstance(value, (bytes, bytearray)):
        raise TypeError(f"{name} must be text (str), not bytes: decode it first, e.g. data.decode('utf-8')")
    if not isinstance(value, Sequence):
        raise TypeError(f"{name} must be a string or a list of string tokens, not {type(value).__name__}")
    tokens = list(value)
    if all(type(t) is str for t in tokens):
        return tokens
    for bad in tokens:
        if not isinstance(bad, str):
            raise TypeError(f"{name} must contain only string tokens; found {bad!r} ({type(bad).__name__})")
    return [str(t) for t in tokens]  # str subclasses such as numpy.str_ become plain strings


def as_reference_list(value: object, name: str, *, tokenized_one: bool = False) -> list[Tokens]:
    """Return one segment's references as a non-empty list of token lists.

    Any iterable of references is accepted (a list, a tuple, ``reversed(refs)``, a generator), as nltk does.
    ``tokenized_one=True`` (nltk's front door, where references are token lists) rejects a list of one-word
    strings: it is one tokenized reference that lost its brackets.
    """
    if type(value) is not list and (
        isinstance(value, (str, bytes, bytearray, Mapping)) or value is None or not isinstance(value, Iterable)
    ):
        raise TypeError(
            f"{name} must be a list of references (each a string or a list of tokens), "
            f"not {type(value).__name__}; wrap a single reference in a list: [reference]"
        )
    refs = value if isinstance(value, Sequence) else list(value)
    if len(refs) == 0:
        raise ValueError(f"{name} is empty: BLEU needs at least one reference")
    if tokenized_one and len(refs) > 1 and all(isinstance(r, str) and len(r.split()) == 1 for r in refs):
        raise ValueError(
            f"{name} looks like one reference split into tokens ({len(refs)} one-word strings): a list of "
            "references needs each reference as a string or a token list, so wrap it: [tokens]"
        )
    return [as_tokens(ref, f"{name}[{i}]") for i, ref in enumerate(refs)]


def check_flag(value: object, name: str) -> bool:
    """Return ``value`` if it is a real bool (True/False); a string such as "no" would otherwise count as true."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, not {type(value).__name__} ({value!r})")
    return value


def as_text(value: object, name: str) -> str:
    """Return ``value`` if it is a string; raise a clear error otherwise."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        raise TypeError(f"{name} must be text (str), not bytes: decode it first, e.g. data.decode('utf-8')")
    raise TypeError(f"{name} must be a string, not {type(value).__name__}")


def plain_strings(values: Sequence, name: str, what: str) -> list[str]:
    """``values`` as a list of plain ``str`` (subclasses such as numpy.str_ converted); a non-string is an error."""
    if all(type(v) is str for v in values):
        return list(values)
    for i, v in enumerate(values):
        if not isinstance(v, str):
            as_text(v, f"{name}[{i}]")  # bytes get the decode hint
            raise TypeError(f"{name}[{i}] must be {what}, not {type(v).__name__}")
    return [str(v) for v in values]


# The longest segment bleu_lab takes, in characters. The longest line of the WMT21 news test sets (sources,
# references and the systems' outputs of de-en, en-de, en-ja and en-zh) has 854 characters (130 words); 20,000 are
# a few pages of text. A longer "segment" is a file that is not one segment per line (a text with no line breaks),
# and analysing it would take minutes and gigabytes (three one-line files of 8 MB: 173 s and 2.3 GB in compare).
MAX_SEGMENT_CHARS = 20_000


def segment_too_long(where: str, length: int | None = None) -> ValueError:
    """The error for a segment longer than ``MAX_SEGMENT_CHARS`` at ``where`` (``length``: its characters, if known)."""
    size = f"{length:,} characters" if length is not None else f"more than {MAX_SEGMENT_CHARS:,} characters"
    return ValueError(
        f"{where} has {size}; a segment may have at most {MAX_SEGMENT_CHARS:,} (the longest line of the WMT21 test "
        "sets has 854): give one sentence or paragraph per line"
    )


def check_segment_lengths(lines: Sequence[str], name: str) -> None:
    """Raise ``ValueError`` naming the first of ``lines`` longer than ``MAX_SEGMENT_CHARS`` characters."""
    if lines and max(map(len, lines)) > MAX_SEGMENT_CHARS:
        number = next(i for i, line in enumerate(lines) if len(line) > MAX_SEGMENT_CHARS)
        raise segment_too_long(f"{name}[{number}]", len(lines[number]))


def as_sequence(value: object, name: str, what: str) -> Sequence:
    """Return ``value`` if it is a non-string sequence (list, tuple), else raise ``TypeError``."""
    if isinstance(value, (str, bytes, bytearray)) or value is None or not isinstance(value, Sequence):
        raise TypeError(f"{name} must be a list of {what}, not {type(value).__name__}")
    return value


def check_same_length(a: Sequence, a_name: str, b: Sequence, b_name: str) -> None:
    """Raise ``ValueError`` when two corpus-level lists do not line up segment by segment."""
    if len(a) != len(b):
        raise ValueError(
            f"{a_name} and {b_name} must have one entry per segment, "
            f"but {a_name} has {len(a)} and {b_name} has {len(b)}"
        )


def check_order(n: object, name: str = "n") -> int:
    """Return ``n`` as an n-gram order (an int >= 1)."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"{name} must be an int n-gram order (1, 2, 3, ...), not {type(n).__name__}")
    if n < 1:
        raise ValueError(f"{name} must be >= 1 (an n-gram has at least one token), got {n}")
    return n


def check_length(value: object, name: str) -> int:
    """Return ``value`` as a length (an int >= 0)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int length, not {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return value


def check_weights(weights: object, name: str = "weights") -> tuple[float, ...]:
    """Return ``weights`` as a non-empty tuple of finite, non-negative numbers (one per n-gram order)."""
    if hasattr(weights, "ndim") and hasattr(weights, "tolist") and getattr(weights, "ndim", None) == 1:
        weights = weights.tolist()  # a 1-d NumPy array, as nltk accepts
    if isinstance(weights, (str, bytes, bytearray)) or weights is None or not isinstance(weights, Sequence):
        raise TypeError(f"{name} must be a tuple of numbers, one per n-gram order, e.g. (0.25, 0.25, 0.25, 0.25)")
    if len(weights) == 0:
        raise ValueError(f"{name} is empty: give one weight per n-gram order, e.g. (0.25, 0.25, 0.25, 0.25)")
    for i, w in enumerate(weights):
        if isinstance(w, Sequence):
            raise TypeError(
                f"{name} must be one flat tuple of numbers (one weight per n-gram order)"
            )
        if isinstance(w, bool) or not isinstance(w, Real):
            raise TypeError(f"{name}[{i}] must be a number, not {type(w).__name__}")
        if math.isnan(w) or math.isinf(w):
            raise ValueError(f"{name}[{i}] must be a finite number, got {w}")
        if w < 0:
            raise ValueError(f"{name}[{i}] must be >= 0 (a weight is a share of the score), got {w}")
    return tuple(float(w) for w in weights)


def check_choice(value: object, name: str, choices: Sequence[str]) -> str:
    """Return ``value`` if it is one of ``choices``; otherwise raise ``ValueError`` listing them."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {', '.join(map(repr, choices))}, not {type(value).__name__}")
    if value not in choices:
        raise ValueError(f"unknown {name} {value!r}; choose one of {', '.join(map(repr, choices))}")
    return value
