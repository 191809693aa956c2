"""Segment scores from anywhere: one number per segment and system from a metric run elsewhere (COMET on a GPU) or
from people (expert MQM), read from a file and tested like BLEU.

Two file formats, UTF-8 text read by ``data.read_lines`` (its bounds on size, lines and line length hold):

- **long** (the format of Google's MQM release, ``data/wmt21/mqm_newstest2021_ende.avg_seg_scores.tsv``): one line
  per system and segment, ``SYSTEM SCORE SEG_ID`` separated by tabs or spaces, or by commas (a CSV file, as
  pandas' ``to_csv`` writes it: the separator is read off the first line), ``SEG_ID`` the 1-based line number of
  the segment; an optional first line naming the columns. A segment a system has no line for is not rated.
- **one number per line** (what a metric's command line writes): one file per system, line i the score of segment i.

In both, ``None`` (also ``nan``, ``NA`` or an empty field in the one-number format) means "not rated". Unrated
segments are left out of that metric: a system's score is the mean over its rated segments, and a paired test of
two systems uses the segments both have a score for.

Every metric states its direction (``higher_is_better``); the numbers are kept as given. One file is known to
state the opposite of what people call its metric: the MQM release's column ``mqm_avg_score`` holds *minus* the
weighted error points (Freitag et al. 2021, https://aclanthology.org/2021.tacl-1.87/), so that higher is better,
while MQM is reported as error points, lower is better (its published tables). Read with
``higher_is_better=False``, that column is negated back to error points, and ``SegmentScores.note`` says so.

The paired tests (``significance.bootstrap_from_rows``, ``randomization_from_rows``) resample per-segment rows; for
a mean the rows are [score, 1] and a set of rows scores sum(score) / sum(1) (``paired_mean_rows``).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..data import read_lines
from ..sacrebleu_style import ScoreOptions
from .significance import PairedRows, percentile_interval

UNRATED = ("none", "nan", "na", "")  # read as "not rated" (case does not matter)
# Files whose score column is known to run the other way from its metric's usual reporting: column name -> why
NEGATED_COLUMNS = {"mqm_avg_score": "the MQM release's mqm_avg_score is minus the weighted error points; read "
                                    "as error points (lower is better), as MQM tables print it"}


@dataclass(frozen=True)
class SegmentScores:
    """One metric's score of every segment of every system: NaN where a segment is not rated."""

    name: str
    higher_is_better: bool
    scores: dict[str, np.ndarray] = field(repr=False)  # system -> one float per segment (NaN: not rated)
    source: str = ""  # where they came from, e.g. "file mqm.tsv"
    note: str = ""  # what was done to the numbers on the way in (e.g. negated), "" if nothing

    @property
    def systems(self) -> list[str]:
        return list(self.scores)

    def rated(self, system: str) -> np.ndarray:
        """True for each segment ``system`` has a score for."""
        return ~np.isnan(self._of(system))

    def unrated(self, system: str) -> int:
        """How many segments of ``system`` are not rated (left out of this metric)."""
        return int(np.isnan(self._of(system)).sum())

    def mean(self, system: str) -> float:
        """The mean over ``system``'s rated segments (NaN when none is rated)."""
        values = self._of(system)
        rated = values[~np.isnan(values)]
        return float(rated.mean()) if len(rated) else float("nan")

    def better(self, difference: float) -> bool:
        """True when ``difference`` (system - baseline) favours the system in this metric's direction."""
        return difference > 0 if self.higher_is_better else difference < 0

    @property
    def direction(self) -> str:
        return "higher is better" if self.higher_is_better else "lower is better"

    def _of(self, system: str) -> np.ndarray:
        if system not in self.scores:
            raise KeyError(f"{self.name} has no scores for system {system!r}; it has {', '.join(self.scores)}")
        return self.scores[system]


def segment_scores(name: str, scores: Mapping[str, Sequence[float | None]], *, higher_is_better: bool,
                   source: str = "given scores", note: str = "") -> SegmentScores:
    """``SegmentScores`` from Python values: {system: one score per segment, None or NaN where not rated}."""
    _check_name(name)
    if not isinstance(higher_is_better, bool):
        raise TypeError(f"higher_is_better must be True or False for {name!r}, not {higher_is_better!r}")
    if not isinstance(scores, Mapping) or not scores:
        raise TypeError(f"the scores of {name!r} must be a non-empty dict {{system: one score per segment}}")
    arrays = {}
    for system, values in scores.items():
        if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
            raise TypeError(f"{name!r} scores of {system!r} must be a list of numbers (None: not rated)")
        arrays[system] = np.array([_number(v, f"{name!r} scores of {system!r}, segment {i + 1}")
                                   for i, v in enumerate(values)], dtype=float)
    return SegmentScores(name, higher_is_better, arrays, source, note)


def read_segment_scores(name: str, paths: str | Path | Sequence[str | Path], systems: Sequence[str], segments: int, *,
                        higher_is_better: bool) -> SegmentScores:
    """Read ``name``'s scores for ``systems`` on a test set of ``segments`` lines.

    ``paths``: one file in the long format (system, score, segment id; every system of ``systems`` in it, others
    ignored), or one file per system in the order of ``systems``, one number per line."""
    _check_name(name)
    files = [paths] if isinstance(paths, (str, Path)) else list(paths)
    return scores_from_lines(name, [(str(path), read_lines(path, f"{name} scores")) for path in files], systems,
                             segments, higher_is_better=higher_is_better)


def scores_from_lines(name: str, files: Sequence[tuple[str, Sequence[str]]], systems: Sequence[str], segments: int,
                      *, higher_is_better: bool) -> SegmentScores:
    """``read_segment_scores`` on files already read: (file name, its lines) each (an upload, say)."""
    _check_name(name)
    if not files:
        raise ValueError(f"{name}: no scores file given")
    if len(files) == 1 and long_separator(files[0][1]) is not None:
        where, lines = files[0]
        table, column = parse_long_scores(lines, segments, where)
        missing = [s for s in systems if s not in table]
        if missing:
            raise ValueError(f"{name} file {where} has no scores for system {missing[0]!r}; its systems are "
                             f"{', '.join(table)} (name the systems as the file does, e.g. with --names)")
        scores = {s: table[s] for s in systems}
        note = NEGATED_COLUMNS.get(column or "", "") if not higher_is_better else ""
        if note:
            scores = {s: -values + 0.0 for s, values in scores.items()}
        return SegmentScores(name, higher_is_better, scores, f"file {where}", note)
    if len(files) != len(systems):
        raise ValueError(f"{name} has {len(files)} one-number-per-line files for {len(systems)} systems: give one "
                         "file per system, in the order of the systems (or one file in the long format: system, "
                         "score, segment id)")
    scores = {}
    for system, (where, lines) in zip(systems, files):
        values = parse_line_scores(lines, where, name)
        if len(values) != segments:
            raise ValueError(f"{name} file {where} has {len(values)} lines but the test set has {segments} segments: "
                             "one score per segment, line i for segment i")
        scores[system] = values
    return SegmentScores(name, higher_is_better, scores, "files " + ", ".join(where for where, _ in files))


def read_line_scores(path: str | Path, name: str = "scores") -> np.ndarray:
    """One number per line (None, nan, NA or an empty line: not rated), as a float array with NaN for unrated."""
    return parse_line_scores(read_lines(path, f"{name} scores"), str(path), name)


def parse_line_scores(lines: Sequence[str], where: str, name: str = "scores") -> np.ndarray:
    """``read_line_scores`` on the lines of file ``where``."""
    values = []
    for number, line in enumerate(lines, 1):
        at = f"{name} file {where}, line {number}"
        try:
            values.append(_number(line.strip(), at))
        except ValueError as err:
            raise ValueError(f"{err}{_line_hint(line, number, lines)}") from None
    return np.array(values, dtype=float)


def _line_hint(line: str, number: int, lines: Sequence[str]) -> str:
    """Why a line of a one-number-per-line file may not be a number: a header line, or fields split by commas."""
    if number == 1 and len(lines) > 1 and _is_number(lines[1]):
        return ("; a header line? This format has none (line i is the score of segment i): remove the header line, "
                "or give one file in the long format (system, score, segment id) with its header")
    if "," in line:
        fields = [f.strip() for f in line.split(",")]
        if len(fields) == 2 and all(f.isdigit() for f in fields):
            return "; write decimals with a point (0.5), not a comma"
        return ("; this file is read as one number per line, and a comma separates nothing here: give one file per "
                "system with one score per line, or one file in the long format (system, score, segment id per "
                "line, separated by commas, tabs or spaces)")
    return ""


def _is_number(text: str) -> bool:
    try:
        _number(text.strip(), "")
    except ValueError:
        return False
    return True


def read_long_scores(path: str | Path, segments: int) -> tuple[dict[str, np.ndarray], str | None]:
    """The long format: {system: one float per segment (NaN where not rated)} and the score column's name from the
    header line (None without one). Errors name the file and the line."""
    return parse_long_scores(read_lines(path, "scores"), segments, str(path))


def parse_long_scores(lines: Sequence[str], segments: int, where: str) -> tuple[dict[str, np.ndarray], str | None]:
    """``read_long_scores`` on the lines of file ``where``."""
    separator = long_separator(lines) or ""
    first = _fields(lines[0], separator) if lines else []
    column = first[1] if len(first) == 3 and not first[2].isdigit() else None
    table: dict[str, np.ndarray] = {}
    seen: set[tuple[str, int]] = set()
    for number, line in enumerate(lines[1:] if column else lines, 2 if column else 1):
        if not line.strip():
            continue
        fields = _fields(line, separator)
        at = f"scores file {where}, line {number}"
        if len(fields) != 3:
            split = "commas" if separator else "tabs or spaces"
            raise ValueError(f"{at}: expected system, score and segment id separated by {split} (as on the file's "
                             f"first line), got {line[:80]!r}")
        system, score, seg = fields
        if not seg.isdigit() or not 1 <= int(seg) <= segments:
            raise ValueError(f"{at}: the segment id must be a line number from 1 to {segments}, got {seg[:20]!r}")
        if (system, int(seg)) in seen:
            raise ValueError(f"{at}: {system}'s segment {seg} is scored twice")
        seen.add((system, int(seg)))
        table.setdefault(system, np.full(segments, np.nan))[int(seg) - 1] = _number(score, at)
    if not table:
        raise ValueError(f"scores file {where} holds no scores")
    return table, column


def rated_segments(lines: Sequence[str], segments: int, where: str) -> list[int]:
    """The 1-based numbers of the segments a long-format file (lines of file ``where``) rates for any system."""
    table, _ = parse_long_scores(lines, segments, where)
    rated = np.zeros(segments, dtype=bool)
    for values in table.values():
        rated |= ~np.isnan(values)
    return [int(i) + 1 for i in np.flatnonzero(rated)]


def mean_interval(values: np.ndarray, n_samples: int, seed: int | None) -> tuple[float, float]:
    """The 95% percentile interval of the mean of the rated ``values`` over ``n_samples`` bootstrap resamples
    (``numpy.random.default_rng(seed)``)."""
    rated = values[~np.isnan(values)]
    if not len(rated):
        return float("nan"), float("nan")
    idxs = np.random.default_rng(seed).integers(len(rated), size=(n_samples, len(rated)))
    return percentile_interval(rated[idxs].mean(1))


@dataclass(frozen=True)
class MeanScore:
    """A metric's score of a set of segments: the mean of their scores (what ``PairedRows`` carries)."""

    name: str
    score: float
    segments: int

    @property
    def signature(self) -> str:
        return f"segments:{self.segments}|metric:{self.name}|mean of segment scores"


def paired_mean_rows(metric: SegmentScores, baseline: str, system: str) -> PairedRows:
    """Both systems' rows [score, 1] on the segments both have a score for, scored as sum(score) / sum(1): the
    paired bootstrap and approximate randomization of ``significance`` then test the difference of the means.

    Scores with at most ``MAX_DECIMALS`` decimals (MQM's tenths of a point) are kept as whole numbers of their last
    decimal, so the tests sum them exactly (and take the tests' fast integer path); others are summed as floats."""
    both = metric.rated(baseline) & metric.rated(system)
    if not both.any():
        raise ValueError(f"{metric.name}: no segment is rated for both {baseline!r} and {system!r}")
    base, other = metric.scores[baseline][both], metric.scores[system][both]
    unit = _decimal_unit(np.concatenate([base, other]))
    if unit:
        base, other = np.rint(base * unit).astype(np.int64), np.rint(other * unit).astype(np.int64)
    ones = np.ones(len(base), dtype=base.dtype)
    base_rows, sys_rows = np.column_stack([base, ones]), np.column_stack([other, ones])
    scale = unit or 1

    def scorer(summed: np.ndarray) -> np.ndarray:
        summed = np.asarray(summed, dtype=float)
        return summed[..., 0] / (summed[..., 1] * scale)

    n = len(base)
    return PairedRows(ScoreOptions(), base_rows, sys_rows, MeanScore(metric.name, float(base.sum() / scale / n), n),
                      MeanScore(metric.name, float(other.sum() / scale / n), n), scorer)


MAX_DECIMALS = 6


def _decimal_unit(values: np.ndarray) -> int:
    """10^k for the fewest decimals k <= ``MAX_DECIMALS`` that write every value exactly (to 1e-9 of the last decimal)
    with sums well inside float64's integers; 0 when there is none."""
    for k in range(MAX_DECIMALS + 1):
        scaled = values * 10**k
        whole = np.rint(scaled)
        if np.all(np.abs(scaled - whole) <= 1e-9 * np.maximum(1.0, np.abs(scaled))) and \
                len(values) * np.abs(whole).max(initial=0) < 2**52:
            return 10**k
    return 0


def long_separator(lines: Sequence[str]) -> str | None:
    """How a long-format file separates its fields, read off its first line that is not empty: "," when that line
    is three comma-separated fields, "" (tabs or spaces) when it is three such fields, None when it is not a long
    file (one-number files have one field)."""
    for line in lines:
        if line.strip():
            if "," in line and len(_fields(line, ",")) == 3:
                return ","
            return "" if len(line.split()) == 3 else None
    return None


def _fields(line: str, separator: str) -> list[str]:
    """A long-format line's fields: split on commas (quotes as in CSV) or on tabs and spaces."""
    if not separator:
        return line.split()
    return [part.strip() for part in next(csv.reader([line]), [])]


def _number(value: object, where: str) -> float:
    """A finite float, or NaN for 'not rated' (None, 'None', 'nan', 'NA', '')."""
    if value is None or isinstance(value, str) and value.strip().lower() in UNRATED:
        return float("nan")
    if isinstance(value, float) and math.isnan(value):
        return value
    if isinstance(value, bool):
        raise ValueError(f"{where}: expected a number (or None for not rated), got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: expected a number (or None for not rated), got {str(value)[:40]!r}") from None
    if not math.isfinite(number):
        raise ValueError(f"{where}: expected a finite number (or None for not rated), got {value!r}")
    return number + 0.0  # -0.0 -> 0.0


def _check_name(name: object) -> None:
    if not isinstance(name, str) or not name.strip() or any(c in name for c in "=,\t\n"):
        raise ValueError(f"a metric's name must be a non-empty word without '=', ',' or tabs, got {name!r}")
