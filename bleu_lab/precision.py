"""Step 3 — modified precision: the share of hypothesis n-grams that earn (clipped) credit.

    p_n = sum_g Count_clip(g) / sum_g Count_hyp(g)

Kept as an exact fraction that remembers its raw counts (5/8 stays 5/8, and 4/8 is not shown as 1/2),
like nltk's. When the hypothesis is shorter than n it has no n-grams; nltk then uses the denominator
max(1, 0) = 1 (a "phantom" n-gram), sacrebleu uses 0 — see ``statistics.BleuStats``.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from numbers import Rational

from .clipping import clip_counts, max_reference_counts
from .ngrams import count_ngrams
from .validation import as_reference_list, as_tokens, check_length, check_order


class ModifiedPrecision(Fraction):
    """An exact p_n whose ``numerator``/``denominator`` are the raw clipped and total counts.

    Its value and arithmetic are those of the reduced fraction; only the two attributes and the
    printed form keep the raw counts, so ``ModifiedPrecision(4, 8)`` prints as ``4/8`` and equals 1/2.
    Like nltk's, ``Fraction(p)`` would copy the raw counts unreduced: use ``p.as_fraction()`` instead.
    It compares, hashes, formats and pickles as a number on every supported Python (3.11-3.13).
    """

    def __new__(cls, clipped: int, total: int) -> ModifiedPrecision:
        check_length(clipped, "clipped")
        check_length(total, "total")
        if total == 0:
            raise ValueError("total must be >= 1: a precision needs at least one hypothesis n-gram")
        if clipped > total:
            raise ValueError(f"clipped must be <= total (got {clipped} > {total}): clipping never adds credit")
        self = super().__new__(cls, clipped, total)
        self._clipped = clipped
        self._total = total
        return self

    @classmethod
    def from_float(cls, f: float) -> Fraction:  # type: ignore[override]
        """A plain Fraction: Python 3.12+ calls this to compare with a float, and a float has no raw counts."""
        return Fraction.from_float(f)

    @classmethod
    def from_decimal(cls, dec) -> Fraction:  # type: ignore[override]
        """A plain Fraction, as ``from_float``."""
        return Fraction.from_decimal(dec)

    @property
    def numerator(self) -> int:  # type: ignore[override]
        """The clipped match count (not reduced)."""
        return self._clipped

    @property
    def denominator(self) -> int:  # type: ignore[override]
        """The number of hypothesis n-grams, at least 1 (not reduced)."""
        return self._total

    def as_fraction(self) -> Fraction:
        """The value as a plain, reduced Fraction (4/8 -> 1/2)."""
        return Fraction(self._clipped, self._total)

    def __repr__(self) -> str:
        return f"ModifiedPrecision({self._clipped}, {self._total})"

    def __str__(self) -> str:
        return f"{self._clipped}/{self._total}"

    def __format__(self, format_spec: str) -> str:
        """An empty spec prints the raw counts (``f"{p}"`` is ``"2/6"``); ``f"{p:.4f}"`` formats the float value.

        The same on every Python: 3.12 gave Fraction a ``__format__`` of its own, which rounds the exact value
        and so could print a different last digit than the float does.
        """
        if not format_spec:
            return str(self)
        return format(float(self), format_spec)

    # Comparisons and the hash go through the reduced value. Fraction's own ``__eq__`` compares its reduced
    # numerator with the other side's ``numerator`` attribute, which here is the raw count, so without these
    # ModifiedPrecision(2, 6) would not equal itself; defining them here relies on no Fraction internals.
    def __eq__(self, other: object) -> bool:
        return self.as_fraction() == _value(other)

    def __lt__(self, other: object) -> bool:
        return self.as_fraction() < _value(other)

    def __le__(self, other: object) -> bool:
        return self.as_fraction() <= _value(other)

    def __gt__(self, other: object) -> bool:
        return self.as_fraction() > _value(other)

    def __ge__(self, other: object) -> bool:
        return self.as_fraction() >= _value(other)

    def __hash__(self) -> int:
        return hash(self.as_fraction())

    def __reduce__(self):
        return (type(self), (self._clipped, self._total))

    def __copy__(self) -> ModifiedPrecision:
        return self  # immutable, like Fraction; Fraction's own copy would reduce 4/8 to 1/2

    def __deepcopy__(self, memo: dict) -> ModifiedPrecision:
        return self


def _value(other: object) -> object:
    """The other side of a comparison: any rational (this class, nltk's unreduced fractions) as a reduced Fraction."""
    if isinstance(other, Rational) and not isinstance(other, int):
        return Fraction(other.numerator, other.denominator)
    return other


def modified_precision(references: Sequence, hypothesis: Sequence[str] | str, n: int) -> ModifiedPrecision:
    """p_n for one hypothesis, as nltk computes it: clipped matches / max(1, number of hypothesis n-grams).

    Same argument order as ``nltk.translate.bleu_score.modified_precision``.
    """
    refs = as_reference_list(references, "references")
    hyp = as_tokens(hypothesis, "hypothesis")
    n = check_order(n)
    counts = count_ngrams(hyp, n)
    clipped = clip_counts(counts, max_reference_counts(refs, n))
    return ModifiedPrecision(sum(clipped.values()), max(1, sum(counts.values())))
