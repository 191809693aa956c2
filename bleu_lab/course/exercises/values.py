"""A student's values read in every correct form, and the tolerances of the checks.

Every check reads a student's number, list or whole number through one helper (``as_number``, ``as_list``,
``as_whole``), so that every correct form passes: ``Fraction``, numpy scalars and arrays, tuples and generators where a
list is asked, and strings such as ``"1"`` or ``"5/8"``, read exactly and within bounds (``number_from_text``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Mapping
from fractions import Fraction
from numbers import Integral, Rational, Real

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
