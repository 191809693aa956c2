"""Plain values across the kernel boundary: what ``bleu-lab grade`` and a student's kernel send each other.

The grader never trusts an object of the student's kernel: the kernel turns each answer (or a function's return
value) into JSON with ``encode`` — numbers, strings, lists, dicts, tuples, sets, Counters, fractions, numpy arrays and
scalars, and bleu_lab's own result dataclasses by field — and the grader rebuilds plain Python values with ``decode``
(bleu_lab classes only from an allow-list; anything else arrives as an ``Opaque`` stand-in that no check accepts).
Both ends bound the size: ``MAX_CHARS`` of JSON, ``MAX_DEPTH`` levels, ``MAX_ITEMS`` items of a generator.

This module imports nothing from bleu_lab: the grader sends its source text into the kernel (``SOURCE``), so the
kernel encodes with the grader's code, not with a copy the student could have replaced on disk.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from fractions import Fraction
from pathlib import Path

MAX_CHARS = 2_000_000  # JSON characters per answer or returned value
MAX_DEPTH = 40
MAX_ITEMS = 100_000
MAX_TEXT = 200_000  # characters of one string
TAG = "$bleu_lab"


class TooLarge(ValueError):
    """A value beyond the bounds above."""


@dataclasses.dataclass(frozen=True)
class Opaque:
    """What the grader gets for an object it does not rebuild: its type's name and a short repr."""

    type_name: str
    text: str

    def __repr__(self) -> str:
        return f"<a {self.type_name} object: {self.text}>"


@dataclasses.dataclass(frozen=True)
class FunctionRef:
    """A callable answer: the grader calls it through the kernel by ``name``."""

    name: str


def encode(value: object, _depth: int = 0, _budget: list[int] | None = None) -> object:
    """``value`` as JSON-able data (tagged where JSON has no such type); ``TooLarge`` beyond the bounds."""
    budget = [MAX_CHARS] if _budget is None else _budget
    if _depth > MAX_DEPTH:
        raise TooLarge(f"nested more than {MAX_DEPTH} levels deep")
    budget[0] -= 8
    if budget[0] < 0:
        raise TooLarge(f"larger than {MAX_CHARS:,} characters of JSON")

    def inner(item: object) -> object:
        return encode(item, _depth + 1, budget)

    if value is None or isinstance(value, bool):
        return value
    if getattr(value, "shape", None) == () and hasattr(value, "item"):  # numpy scalar or 0-d array
        value = value.item()
        if isinstance(value, bool):
            return value
    if isinstance(value, int):
        if abs(value) > 10 ** 300:
            raise TooLarge("an integer of more than 300 digits")
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {TAG: "float", "v": repr(value)}
    if isinstance(value, str):
        if len(value) > MAX_TEXT:
            raise TooLarge(f"a string of more than {MAX_TEXT:,} characters")
        budget[0] -= len(value)
        if budget[0] < 0:
            raise TooLarge(f"larger than {MAX_CHARS:,} characters of JSON")
        return value
    if isinstance(value, Fraction) or type(value).__name__ == "Decimal":
        exact = Fraction(value)
        return {TAG: "fraction", "n": inner(exact.numerator), "d": inner(exact.denominator)}
    if hasattr(value, "numerator") and hasattr(value, "denominator") and not isinstance(value, type):
        return {TAG: "fraction", "n": inner(int(value.numerator)), "d": inner(int(value.denominator))}
    if hasattr(value, "tolist") and hasattr(value, "shape") and hasattr(value, "dtype"):  # numpy array
        if getattr(value, "size", 0) > MAX_ITEMS:
            raise TooLarge(f"an array of more than {MAX_ITEMS:,} items")
        return {TAG: "ndarray", "v": inner(value.tolist()), "dtype": str(value.dtype)}
    if isinstance(value, Counter):
        return {TAG: "counter", "v": [[inner(k), inner(v)] for k, v in _bounded(value.items())]}
    if isinstance(value, Mapping):
        return {TAG: "dict", "v": [[inner(k), inner(v)] for k, v in _bounded(value.items())]}
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return {TAG: "tuple", "v": [inner(v) for v in _bounded(value)]}
    if isinstance(value, list):
        return [inner(v) for v in _bounded(value)]
    if isinstance(value, (set, frozenset)):
        return {TAG: "set", "v": [inner(v) for v in _bounded(value)]}
    if isinstance(value, range):
        return {TAG: "iterator", "v": [inner(v) for v in _bounded(value)]}
    if value is Ellipsis:
        return {TAG: "ellipsis"}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        fields = {f.name: inner(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {TAG: "dataclass", "cls": f"{cls.__module__}.{cls.__qualname__}", "v": fields}
    if isinstance(value, Iterator):
        return {TAG: "iterator", "v": [inner(v) for v in _bounded(value)]}
    if callable(value) and not isinstance(value, type):
        return {TAG: "function", "name": getattr(value, "__name__", "?")}
    return {TAG: "opaque", "type": type(value).__name__, "text": _short_repr(value)}


def _bounded(items):
    """The items of an iterable, at most MAX_ITEMS of them."""
    for count, item in enumerate(items):
        if count == MAX_ITEMS:
            raise TooLarge(f"more than {MAX_ITEMS:,} items")
        yield item


def _short_repr(value: object) -> str:
    try:
        text = repr(value)
    except Exception as exc:  # noqa: BLE001 - a student's __repr__ may raise
        text = f"(repr raised {type(exc).__name__})"
    return text[:120]


def dumps(value: object) -> str:
    """``encode`` then JSON text."""
    return json.dumps(encode(value), ensure_ascii=True, allow_nan=False)


def decode(data: object, classes: Mapping[str, type] | Callable[[str], type | None] | None = None,
           _depth: int = 0) -> object:
    """Plain Python values from ``encode``'s output; dataclasses only of ``classes`` (qualified name -> class, or a
    function that finds the class of a name, as the kernel does), others as ``Opaque``."""
    if _depth > MAX_DEPTH + 2:
        raise TooLarge(f"nested more than {MAX_DEPTH} levels deep")
    classes = classes or {}

    def inner(item: object) -> object:
        return decode(item, classes, _depth + 1)

    if isinstance(data, list):
        return [inner(v) for v in data]
    if not isinstance(data, dict):
        return data
    kind = data.get(TAG)
    if kind == "float":
        return float(data["v"])
    if kind == "fraction":
        return Fraction(int(data["n"]), int(data["d"]))
    if kind == "ndarray":
        import numpy as np

        values = inner(data["v"])
        if _leaves(values) > MAX_ITEMS:
            raise TooLarge(f"an array of more than {MAX_ITEMS:,} items")
        try:  # the dtype only if plain: "(40000000,)f8" would make one item 320 MB
            return np.asarray(values, dtype=_plain_dtype(data.get("dtype")))
        except (TypeError, ValueError, OverflowError):
            return Opaque("ndarray", str(values)[:120])
    if kind == "counter":
        return Counter({_key(inner(k)): inner(v) for k, v in data["v"]})
    if kind == "dict":
        return {_key(inner(k)): inner(v) for k, v in data["v"]}
    if kind == "tuple":
        return tuple(inner(v) for v in data["v"])
    if kind == "set":
        return {_key(inner(v)) for v in data["v"]}
    if kind == "iterator":
        return iter([inner(v) for v in data["v"]])
    if kind == "ellipsis":
        return Ellipsis
    if kind == "function":
        return FunctionRef(str(data.get("name", "?")))
    if kind == "dataclass":
        name = str(data.get("cls"))
        cls = classes(name) if callable(classes) else classes.get(name)
        fields = {str(k): inner(v) for k, v in data["v"].items()}
        if cls is None:
            return Opaque(str(data.get("cls")).rsplit(".", 1)[-1], str(fields)[:120])
        return cls(**fields)
    if kind == "opaque":
        return Opaque(str(data.get("type")), str(data.get("text"))[:120])
    raise ValueError(f"not a value of the grading wire: {str(data)[:80]}")


def _plain_dtype(name: object):
    """The numpy dtype a student's array names, if it is a plain bool, int, float or complex of at most 16 bytes
    (no sub-array shape, no fields, no object or text); else None, and numpy infers one from the values."""
    if not isinstance(name, str) or len(name) > 32:
        return None
    import numpy as np

    try:
        dtype = np.dtype(name)
    except (TypeError, ValueError, OverflowError, MemoryError):
        return None
    if dtype.kind not in "biufc" or dtype.shape != () or dtype.names is not None or dtype.itemsize > 16:
        return None
    return dtype


def _leaves(values: object) -> int:
    """How many numbers a nested list holds (counted without recursion)."""
    count, stack = 0, [values]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        else:
            count += 1
    return count


def _key(value: object) -> object:
    """A dict key or set item: lists (an unhashable form) become tuples."""
    if isinstance(value, list):
        return tuple(_key(v) for v in value)
    return value


def loads(text: str, classes: Mapping[str, type] | None = None) -> object:
    """``decode`` of JSON text of at most MAX_CHARS characters."""
    if len(text) > MAX_CHARS + 1000:
        raise TooLarge(f"larger than {MAX_CHARS:,} characters of JSON")
    return decode(json.loads(text), classes)


# The kernel's half: this module's own text up to here, read once when the grader imports it (before any submission
# runs).
SOURCE = Path(__file__).read_text(encoding="utf-8").split("# The kernel's half", 1)[0]

# Run in the student's kernel after ``SOURCE``: answers by name, and one call of an answer function on decoded args.
KERNEL_HELPERS = '''
def answers(namespace, names):
    out = {}
    for name in names:
        if name not in namespace:
            out[name] = {"missing": True}
            continue
        try:
            out[name] = {"ok": encode(namespace[name])}
        except Exception as exc:
            out[name] = {"raised": [type(exc).__name__, str(exc)[:300]]}
    return json.dumps(out, ensure_ascii=True, allow_nan=False)


def call(namespace, name, args_json):
    import importlib
    import warnings

    def find(qualified):
        module, _, qualname = qualified.rpartition(".")
        try:
            return getattr(importlib.import_module(module), qualname)
        except Exception:
            return None

    try:
        args = decode(json.loads(args_json), find)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = namespace[name](*args)
        return json.dumps({"ok": encode(result)}, ensure_ascii=True, allow_nan=False)
    except Exception as exc:
        return json.dumps({"raised": [type(exc).__name__, str(exc)[:300]]}, ensure_ascii=True)
'''
