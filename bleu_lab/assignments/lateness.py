"""Late work: ``bleu-lab collect --deadline``'s manifest read back by ``bleu-lab grade``, and ``--late-penalty``.

**Whether a notebook is late** is collect's judgement, never made again here: the manifest it writes
(``collect.manifest_path``: ``LESSON-collected.csv`` beside the ``submitted`` folder, or ``grade --manifest FILE``)
has, for each home, the file's last change (the later of its modification time and its ctime, which no student can
set back), ``late`` (yes/no; empty when collected without ``--deadline``), ``late by`` (how long after the deadline,
to the microsecond: ``format_past``) and the deadline. A notebook is matched to
its manifest row by its student (``roster.student_of``) and by content: the row's SHA-256 must be the notebook's
now, or its lateness is unknown (the file changed since it was collected). A notebook with no manifest, no row, or
collected without a deadline has unknown lateness: nothing is shown and no penalty applies.

**The penalty** (``parse_penalty``): ``P%`` deducts P% of the points possible from a late notebook's total, once;
``P%/day`` deducts P% per started day late (24 hours: 1 second late is 1 day, 24 h 1 s is 2), at most 100%, or at
most ``max=M%`` (``10%/day,max=50%``). The deduction is a share of the lesson's points possible, written answers
included (``NotebookGrade.worth``: in the CSV, the report, the feedback page and Gradescope; Canvas's points possible
for the assignment, the same unless ``--points``), taken off the total with the marks by hand
(``gradebook.lesson_total``), never more than the marks earned (the final mark is never below 0), and
exact (``Fraction``): ``penalise`` is the one computation every export calls.
"""

from __future__ import annotations

import csv
import hashlib
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from fractions import Fraction
from pathlib import Path

from .roster import NBGRADER_FOLDERS, student_of
from .submissions import MAX_NOTEBOOK_MB, read_regular

MANIFEST_SUFFIX = "-collected.csv"  # collect's manifest: LESSON-collected.csv beside the submitted folder
MAX_MANIFEST_BYTES = 50_000_000
DAY = timedelta(days=1)
PENALTY_FORMS = "P% (P% of the points once late, e.g. 100% for 'late gets 0') or P%/day (P% per started day late, " \
    "at most 100%; ',max=M%' caps it, e.g. 10%/day,max=50%), P a number from 0 to 100"
_PERCENT = r"(\d{1,3}(?:\.\d{1,6})?)%"
_PENALTY = re.compile(rf"\A{_PERCENT}(/day(?:,max={_PERCENT})?)?\Z")


# ------------------------------------------------------------------------------------------------ the rule


@dataclass(frozen=True)
class Penalty:
    """``--late-penalty``: ``rate`` of the points possible, once (``per_day`` False) or per started day up to
    ``cap``."""

    text: str
    rate: Fraction
    per_day: bool = False
    cap: Fraction = Fraction(1)

    def share(self, late: Lateness) -> Fraction:
        """The share of the points possible that ``late`` loses (0 unless it is late)."""
        if not late.late:
            return Fraction(0)
        if not self.per_day:
            return self.rate
        if late.days is None:
            raise ValueError(f"--late-penalty {self.text}: {late.why_no_days}")
        return min(self.cap, self.rate * late.days)

    def describe(self) -> str:
        if not self.per_day:
            return f"{percent(self.rate)} of the points possible for late work"
        return (f"{percent(self.rate)} of the points possible per started day late, at most "
                f"{percent(self.cap)}")


def parse_penalty(text: str | None) -> Penalty | None:
    """``--late-penalty TEXT`` (``PENALTY_FORMS``), exactly (``Fraction``); ValueError naming the flag otherwise."""
    if text is None:
        return None
    found = _PENALTY.match(text.strip().replace(" ", ""))
    if found is None:
        raise ValueError(f"--late-penalty {text!r}: expected {PENALTY_FORMS}")
    rate = Fraction(found.group(1)) / 100
    cap = Fraction(found.group(3)) / 100 if found.group(3) else Fraction(1)
    for value, what in ((rate, "the penalty"), (cap, "max")):
        if not 0 < value <= 1:
            raise ValueError(f"--late-penalty {text!r}: {what} must be above 0% and at most 100%, not "
                             f"{percent(value)}")
    if cap < rate:
        raise ValueError(f"--late-penalty {text!r}: max={percent(cap)} is below the daily {percent(rate)}")
    return Penalty(text.strip(), rate, bool(found.group(2)), cap)


# ------------------------------------------------------------------------------------------------ exact numbers


def exact(value: object) -> Fraction:
    """A mark as an exact ``Fraction``: an int, a Fraction, a decimal text, or a float read as the decimal it prints
    (``0.1`` is 1/10, never the binary value beside it)."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, bool):
        raise TypeError(f"not a mark: {value!r}")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"not a mark: {value!r}")
        return Fraction(repr(value))
    return Fraction(str(value).strip().replace(",", "."))


def points(value: Fraction) -> str:
    """A Fraction as its exact decimal (``4``, ``4.75``); one with no finite decimal as ``p/q``."""
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    rest = value.denominator
    for prime in (2, 5):
        while rest % prime == 0:
            rest //= prime
    if rest != 1:
        return f"{value.numerator}/{value.denominator}"
    digits = 0
    while (value * 10 ** digits).denominator != 1:
        digits += 1
    sign = "-" if value < 0 else ""
    whole = abs(value.numerator) * 10 ** digits // value.denominator
    text = str(whole).rjust(digits + 1, "0")
    return f"{sign}{text[:-digits]}.{text[-digits:]}"


def percent(share: Fraction) -> str:
    return f"{points(share * 100)}%"


def number(value: Fraction) -> int | float:
    """For JSON (Gradescope): an int where whole, else the float nearest the exact decimal."""
    return value.numerator if value.denominator == 1 else float(points(value))


# ------------------------------------------------------------------------------------------------ how late


@dataclass(frozen=True)
class Lateness:
    """One notebook's lateness as collect judged it: ``late`` True / False, or None when unknown (``note`` says
    why); ``past``: how long after ``deadline`` the file last changed (None if not late, or the manifest has no
    deadline)."""

    late: bool | None = None
    past: timedelta | None = None
    deadline: str = ""
    note: str = ""

    @property
    def days(self) -> int | None:
        """Started days late (1 second late is 1 day); 0 when not late; None when late by an unknown time."""
        if not self.late:
            return 0
        if self.past is None:
            return None
        return max(1, -(-self.past // DAY))  # ceil, in whole microseconds (exact)

    @property
    def why_no_days(self) -> str:
        why = f" ({self.note})" if self.note else ""
        return (f"a late notebook's time past the deadline is unknown, so its days late are too{why} (collect again "
                "with --deadline, or use a fixed penalty such as --late-penalty 100%)")

    def by(self) -> str:
        """How late, e.g. ``1 d 02:03:04`` (``format_past``; "" unless late by a known time)."""
        return format_past(self.past) if self.late and self.past is not None else ""

    def cell(self) -> str:
        """The CSV's ``late`` cell: yes / no / "" (unknown)."""
        return "" if self.late is None else "yes" if self.late else "no"

    def describe(self) -> str:
        """One line for the report and the pages: late by how much, on time, or unknown and why."""
        if self.late is None:
            return f"lateness unknown ({self.note})" if self.note else "lateness unknown"
        deadline = f" the deadline {self.deadline}" if self.deadline else " the deadline"
        if not self.late:
            return f"handed in on time (last changed before{deadline})"
        how = f"{self.by()} after" if self.past is not None else "after"
        return f"late: last changed {how}{deadline}"


UNKNOWN = Lateness()
_PAST = re.compile(r"\A(\d+) d (\d\d):(\d\d):(\d\d)(?:\.(\d{6}))?\Z")


def format_past(past: timedelta) -> str:
    """How long after the deadline, exactly: ``1 d 02:03:04``, with the microseconds where there are any
    (``0 d 00:00:00.250000``), so that the started days are exact (``parse_past`` reads it back)."""
    micro = max(timedelta(0), past) // timedelta(microseconds=1)
    seconds, micro = divmod(micro, 1_000_000)
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    return f"{days} d {hours:02}:{rest // 60:02}:{rest % 60:02}" + (f".{micro:06}" if micro else "")


def parse_past(text: object) -> timedelta | None:
    """``format_past``'s text back as a timedelta (None if it is not one)."""
    found = _PAST.match(str(text or "").strip())
    if found is None:
        return None
    return timedelta(days=int(found[1]), hours=int(found[2]), minutes=int(found[3]), seconds=int(found[4]),
                     microseconds=int(found[5] or 0))


def from_cells(late: object, by: object) -> Lateness:
    """A ``Lateness`` from a marks CSV's ``late`` and ``late by`` cells (``Lateness.cell``, ``Lateness.by``)."""
    late = str(late or "").strip()
    if late not in ("yes", "no"):
        return UNKNOWN
    past = parse_past(by) if late == "yes" else None
    return Lateness(late == "yes", past, note="" if past is not None or late == "no" else "the marks CSV has no "
                    "'late by'")


@dataclass(frozen=True)
class Marked:
    """A total before and after the late penalty."""

    raw: Fraction
    penalty: Fraction
    final: Fraction
    share: Fraction = Fraction(0)


def penalise(raw: object, possible: object, late: Lateness, rule: Penalty | None) -> Marked:
    """The one computation of a late penalty: ``rule``'s share of ``possible`` (``Penalty.share``), at most ``raw``,
    taken off ``raw``; exact. No rule, or lateness unknown or on time: no penalty."""
    raw_f, possible_f = exact(raw), exact(possible)
    share = rule.share(late) if rule is not None else Fraction(0)
    penalty = min(raw_f, share * possible_f) if raw_f > 0 else Fraction(0)
    return Marked(raw_f, penalty, raw_f - penalty, share)


def penalty_text(marked: Marked, possible: object, late: Lateness, rule: Penalty | None) -> str:
    """``late penalty 1 (20%: 2 started days at 10%/day): 4 / 5`` ("" without a penalty rule or when on time)."""
    if rule is None or not late.late:
        return ""
    why = f"{percent(marked.share)}" + (f": {late.days} started day{'s' if late.days != 1 else ''} at {rule.text}"
                                         if rule.per_day else "")
    return f"late penalty {points(marked.penalty)} ({why}): {points(marked.final)} / {points(exact(possible))}"


# ------------------------------------------------------------------------------------------------ the manifest


def manifest_path(notebook: Path) -> Path | None:
    """Where collect wrote the manifest of ``submitted/STUDENT/LESSON/LESSON.ipynb``: ``LESSON-collected.csv``
    beside ``submitted``; None for a notebook outside that layout."""
    parts = Path(notebook).absolute().parts
    if len(parts) >= 4 and parts[-4] in NBGRADER_FOLDERS:
        return Path(*parts[:-4]) / f"{parts[-2]}{MANIFEST_SUFFIX}"
    return None


def read_manifest(path: Path) -> dict[str, dict[str, str]]:
    """The rows of a collect manifest by student; ValueError naming the file when it is not one."""
    path = Path(path)
    if path.stat().st_size > MAX_MANIFEST_BYTES:
        raise ValueError(f"collect's manifest {path}: larger than {MAX_MANIFEST_BYTES // 1_000_000} MB, not a manifest")
    with path.open(encoding="utf-8-sig", newline="") as f:
        reader = csv.DictReader(f)
        needed = {"student", "status", "modified", "late", "sha256"}
        if not reader.fieldnames or not needed <= set(reader.fieldnames):
            raise ValueError(f"{path}: not a manifest of bleu-lab collect (its columns: "
                             f"{', '.join(sorted(needed))}, ...)")
        return {row["student"]: row for row in reader}


@dataclass
class LateWork:
    """What the exports need of lateness: each notebook's ``Lateness`` (by its absolute path) and the penalty rule
    (None: lateness shown, no penalty). ``known``: whether any notebook's lateness is known (the exports then show
    it)."""

    by_path: dict[Path, Lateness] = field(default_factory=dict)
    rule: Penalty | None = None
    manifests: list[Path] = field(default_factory=list)

    @property
    def known(self) -> bool:
        return any(late.late is not None for late in self.by_path.values())

    @property
    def shown(self) -> bool:
        """Whether the exports show lateness: some notebook's is known, or a penalty rule was given."""
        return self.known or self.rule is not None

    def of(self, path: Path) -> Lateness:
        return self.by_path.get(Path(path).absolute(), UNKNOWN)

    def mark(self, raw: object, possible: object, path: Path) -> Marked:
        return penalise(raw, possible, self.of(path), self.rule)

    def line(self, raw: object, possible: object, path: Path) -> str:
        """The report's line of lateness: how late, and the penalty where a rule applies and there is a mark (``raw``
        None: not graded); "" if unknown and not shown."""
        late = self.of(path)
        if late.late is None and not self.shown:
            return ""
        text = late.describe()
        if late.late and self.rule is not None and raw is not None:
            text += "; " + penalty_text(self.mark(raw, possible, path), possible, late, self.rule)
        return text


def _lateness(row: dict[str, str] | None, data: bytes, manifest: Path) -> Lateness:
    if row is None:
        return Lateness(note=f"no row in {manifest}")
    if hashlib.sha256(data).hexdigest() != row.get("sha256"):
        return Lateness(note=f"the notebook changed since it was collected (its SHA-256 is not {manifest}'s)")
    late = (row.get("late") or "").strip()
    if late not in ("yes", "no"):
        return Lateness(note="collected without --deadline")
    deadline = (row.get("deadline") or "").strip()
    past = parse_past(row.get("late by")) if late == "yes" else None
    why = f"{manifest} has no 'late by' (an older bleu-lab collect)"
    return Lateness(late == "yes", past, deadline, "" if past is not None or late == "no" else why)


def read_lateness(notebooks: Iterable[Path], manifest: Path | None = None, rule: Penalty | None = None,
                  max_mb: float = MAX_NOTEBOOK_MB) -> LateWork:
    """Each notebook's lateness from collect's manifest (``manifest``, else ``manifest_path`` of each notebook). With a
    ``rule``, ValueError before any grading when no notebook's lateness is known (nothing to penalise: say where the
    manifest is) or a late one's days are unknown for a per-day rule."""
    work = LateWork(rule=rule)
    if manifest is not None and not Path(manifest).is_file():
        raise FileNotFoundError(f"--manifest {manifest}: no such file (bleu-lab collect writes LESSON-collected.csv "
                                "beside its --to folder)")
    tables: dict[Path, dict[str, dict[str, str]]] = {}
    for notebook in notebooks:
        found = Path(manifest) if manifest is not None else manifest_path(notebook)
        key = Path(notebook).absolute()
        if found is None or not found.is_file():
            where = f"no manifest {found}" if found is not None else "not in a submitted/STUDENT/LESSON/ folder"
            work.by_path[key] = Lateness(note=f"{where}: not collected by bleu-lab collect")
            continue
        if found not in tables:
            tables[found] = read_manifest(found)
            work.manifests.append(found)
        try:  # for its SHA-256: a regular file only, never through a link, bounded (as the grader reads it)
            data = read_regular(Path(notebook), max_mb)
        except (OSError, ValueError) as exc:
            work.by_path[key] = Lateness(note=f"not read ({exc})")
            continue
        work.by_path[key] = _lateness(tables[found].get(student_of(notebook)), data, found)
    if rule is not None:
        if not work.known:
            looked = ", ".join(str(p) for p in work.manifests) or "beside each submitted/ folder"
            raise ValueError(f"--late-penalty {rule.text}: no notebook's lateness is known (manifests: {looked}): "
                             "collect with bleu-lab collect --deadline, or give its manifest with --manifest")
        for late in work.by_path.values():
            rule.share(late)  # a per-day rule and a late notebook of unknown days: refused now, before grading
    return work
