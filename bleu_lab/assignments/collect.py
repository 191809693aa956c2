"""``bleu-lab collect LESSON --homes /home --to DIR`` and ``bleu-lab collect --return DIR --homes /home``: a lesson's
notebooks from the students' homes on a hub into nbgrader's layout, and feedback pages back into the homes.

**Collect.** For each folder ``HOMES/STUDENT`` it copies ``STUDENT/bleu-lab-course/notebooks/LESSON.ipynb`` (where the
hub's ``bleu-lab lessons`` puts the course, ``jupyter-settings/jupyterhub_config.py``) to
``DIR/STUDENT/LESSON/LESSON.ipynb``, the layout ``bleu-lab grade`` reads (``DIR`` is nbgrader's ``submitted``; the
student is the folder, ``gradebook.student_id``). A home is the student's, so every step is taken as if it were hostile:
each folder is opened relative to the one before with ``O_NOFOLLOW | O_DIRECTORY`` and the file with ``O_NOFOLLOW`` (a
link at any component is refused, never followed), the file must be a regular file (checked before it is opened, so a
socket or a FIFO is never opened, and again with ``fstat``) of at most ``MAX_BYTES`` (checked before reading, and the
read stops one byte beyond), owned by the home's owner and with no other hard link (whatever ``fs.protected_hardlinks``
says), and nothing of it is run or even parsed. Each file's last change is compared with an optional deadline: a late
file is collected and marked late, never dropped. The last change is the later of the file's modification time, which
its owner can set to any date (``touch -d 2020-01-01``), and its change time (ctime), which no user can set: the kernel
sets it to the present whenever the file's contents or attributes change, that ``touch`` included, so an edit after the
deadline is late whatever the modification time says. A time no date can hold (``touch`` on a file system with 64-bit
times, e.g. 1e15 s) refuses the file. Whatever goes wrong in one home (refused, an error reading it) is that home's one
line, and the others are collected. Collecting again replaces the earlier copies; where a home now has nothing to
collect (or is refused), an earlier copy is renamed ``LESSON.ipynb.earlier``, out of ``bleu-lab grade``'s way. A
manifest CSV (``DIR``'s sibling ``LESSON-collected.csv``) lists every home: collected, late, refused (why) or nothing to
collect, with the deadline; ``bleu-lab grade`` reads it back (``lateness``) to show how late and apply
``--late-penalty``. The folders and files it writes are the instructor's, private (0700, 0600: ``private``),
whatever the umask.

**Return.** For each page ``DIR/STUDENT/LESSON.html`` (what ``bleu-lab grade --feedback DIR`` writes) it writes
``HOMES/STUDENT/bleu-lab-course/feedback/LESSON.html``, owned by the student when run as root (the owner of the home),
through the same link-refusing walk. It never writes over a file it did not write: a page it returned before (its
SHA-256 is in ``DIR/RETURNED_NAME``) is replaced; any other file there (the student's own, or a link) is left alone
and the page goes beside it (``LESSON.new.html``, ``LESSON.new-2.html``: ``course.new_name``), and the report says so.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import secrets
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from ..course import DEFAULT_DIR, new_name
from ..reports.spreadsheet import write_csv
from . import lesson_gradings
from .lateness import format_past
from .private import PRIVATE_FILE, private_folder, write_private

MAX_BYTES = 5_000_000  # a lesson notebook a student saved is well under 1 MB; the bound refuses anything near it
NOTEBOOKS = (DEFAULT_DIR.as_posix(), "notebooks")  # in a home, where the hub's `bleu-lab lessons` puts the lessons
FEEDBACK = (DEFAULT_DIR.as_posix(), "feedback")  # ... and where the feedback pages go
SUBMITTED = "submitted"  # nbgrader's folder name, which bleu-lab grade reads the student from
RETURNED_NAME = ".bleu-lab-returned.json"
MANIFEST_COLUMNS = ["student", "status", "modified", "late", "late by", "deadline", "bytes", "sha256", "file", "note"]
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0)
SKIPPED_HOMES = ("lost+found",)


class Refused(ValueError):
    """A home's path that is a link, not a folder or not a regular file, or too large: the message says which."""


@dataclass
class Collected:
    """One home's line of the manifest."""

    student: str
    status: str  # "collected", "late", "refused", "nothing to collect"
    modified: str = ""
    late: str = ""
    late_by: str = ""  # how long after the deadline, exactly (``lateness.format_past``: the manifest's "late by")
    deadline: str = ""  # --deadline (``lateness`` reads both back for bleu-lab grade)
    bytes: int | str = ""
    sha256: str = ""
    file: str = ""
    note: str = ""


@dataclass
class CollectReport:
    lesson: str
    target: Path
    manifest: Path
    rows: list[Collected] = field(default_factory=list)

    def of(self, status: str) -> list[Collected]:
        return [row for row in self.rows if row.status == status]

    def __str__(self) -> str:
        copied = self.of("collected") + self.of("late")
        lines = [f"collected {len(copied)} notebooks of {self.lesson} into {self.target}"
                 f" (manifest: {self.manifest})"]
        late = self.of("late")
        if late:
            lines.append(f"  late ({len(late)}, collected and marked in the manifest): "
                         + ", ".join(f"{r.student} ({r.modified})" for r in late))
        for row in self.of("refused"):
            lines.append(f"  refused {row.student}: {row.note}")
        nothing = self.of("nothing to collect")
        if nothing:
            lines.append(f"  nothing to collect ({len(nothing)}): "
                         + ", ".join(f"{r.student}" + (f" ({r.note})" if r.note else "") for r in nothing))
        return "\n".join(lines)


# ------------------------------------------------------------------------------------------- walking a home safely


def open_dir(name: str, dir_fd: int | None = None) -> int:
    """A folder's descriptor, ``name`` relative to ``dir_fd``, never through a link (``Refused``);
    FileNotFoundError or PermissionError as the system says."""
    try:
        return os.open(name, DIR_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            kind = "a link" if _is_link(name, dir_fd) else "not a folder"
            raise Refused(f"{name} is {kind} (never followed)") from None
        raise


def _is_link(name: str, dir_fd: int | None) -> bool:
    with contextlib.suppress(OSError):
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    return False


def walk(parts: tuple[str, ...], dir_fd: int) -> int:
    """Open each folder of ``parts`` in turn below ``dir_fd`` (each with ``open_dir``); the last one's descriptor."""
    fd = dir_fd
    try:
        for part in parts:
            next_fd = open_dir(part, fd)
            if fd != dir_fd:
                os.close(fd)
            fd = next_fd
    except BaseException:
        if fd != dir_fd:
            os.close(fd)
        raise
    return fd


def read_bounded(name: str, dir_fd: int, limit: int = MAX_BYTES,
                 owner: int | None = None) -> tuple[bytes, os.stat_result]:
    """The bytes and ``fstat`` of the regular file ``name`` in ``dir_fd``, opened without following a link and read
    only if at most ``limit`` bytes (``Refused`` otherwise). Anything but a regular file (a socket, a FIFO, a device)
    is refused before it is opened. With ``owner`` (a uid), so is a file that uid does not own or that has another
    hard link: a student can link (or have root leave) a file that is not theirs in their home, and whether Linux
    lets them link another's file depends on the ``fs.protected_hardlinks`` setting, never relied on here."""
    _refuse_unless_regular(name, os.stat(name, dir_fd=dir_fd, follow_symlinks=False), owner)
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0), dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Refused(f"{name} is a link (never followed)") from None
        raise
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        _refuse_unless_regular(name, st, owner)  # what was opened, if it changed since
        if st.st_size > limit:
            raise Refused(f"{name} is {st.st_size / 1e6:.1f} MB, over the {limit / 1e6:g} MB bound (not read)")
        data = f.read(limit + 1)
    if len(data) > limit:
        raise Refused(f"{name} grew beyond the {limit / 1e6:g} MB bound while it was read")
    return data, st


def _refuse_unless_regular(name: str, st: os.stat_result, owner: int | None) -> None:
    if stat.S_ISLNK(st.st_mode):
        raise Refused(f"{name} is a link (never followed)")
    if not stat.S_ISREG(st.st_mode):
        raise Refused(f"{name} is not a regular file (a {_kind(st.st_mode)})")
    if owner is not None and st.st_uid != owner:
        raise Refused(f"{name} is not the student's: owned by {_user(st.st_uid)}, not by the home's owner "
                      f"{_user(owner)}")
    if owner is not None and st.st_nlink > 1:
        raise Refused(f"{name} has {st.st_nlink} hard links: it may be another's file (save the lesson again, as a "
                      "file of its own)")


def _kind(mode: int) -> str:
    for test, kind in ((stat.S_ISSOCK, "socket"), (stat.S_ISFIFO, "FIFO"), (stat.S_ISDIR, "folder"),
                       (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device")):
        if test(mode):
            return kind
    return "special file"


def _user(uid: int) -> str:
    try:
        import pwd

        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except (ImportError, KeyError):
        return f"uid {uid}"


def homes(root: Path) -> tuple[int, list[str]]:
    """The folder of homes (opened as the instructor names it) and the names in it that may be students' homes."""
    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        raise FileNotFoundError(f"--homes {root}: cannot open the folder of homes ({exc.strerror})") from None
    names = sorted(n for n in os.listdir(fd) if not n.startswith(".") and n not in SKIPPED_HOMES)
    return fd, names


# ------------------------------------------------------------------------------------------- collect


def parse_deadline(text: str | None) -> datetime | None:
    """``--deadline``: an ISO 8601 time (``2026-12-01T23:59``, ``...+01:00``, ``...Z``); without a zone it is the
    machine's local time."""
    if text is None:
        return None
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"--deadline {text!r}: expected an ISO 8601 time such as 2026-12-01T23:59 or "
                         "2026-12-01T23:59+01:00") from None
    return when if when.tzinfo else when.astimezone()


def _check_lesson(lesson: str) -> None:
    if lesson not in lesson_gradings():
        raise ValueError(f"LESSON {lesson!r}: no such graded lesson (one of {', '.join(sorted(lesson_gradings()))})")


def collect(lesson: str, homes_root: Path, target: Path, *, deadline: datetime | None = None,
            limit: int = MAX_BYTES, manifest: Path | None = None) -> CollectReport:
    """Copy every home's notebook of ``lesson`` into ``target/STUDENT/LESSON/LESSON.ipynb`` (see the module)."""
    _check_lesson(lesson)
    target = Path(target)
    if target.name != SUBMITTED:
        raise ValueError(f"--to {target}: name the folder {SUBMITTED!r} (nbgrader's layout, e.g. --to "
                         f"course/{SUBMITTED}): bleu-lab grade reads the student from .../{SUBMITTED}/STUDENT/LESSON/")
    if limit <= 0:
        raise ValueError(f"--max-mb must be > 0, not {limit / 1e6:g}")
    if target.resolve().is_relative_to(Path(homes_root).resolve()):
        raise ValueError(f"--to {target} is inside --homes {homes_root}: collect into a folder of the instructor's, "
                         "out of the students' reach")
    root_fd, names = homes(homes_root)
    private_folder(target)
    report = CollectReport(lesson, target, manifest or target.parent / f"{lesson}-collected.csv")
    try:
        for student in names:
            try:
                row = _collect_one(student, root_fd, lesson, target, deadline, limit)
            except (OSError, ValueError, OverflowError) as exc:  # one home's trouble is its own line, never the end
                row = Collected(student, "refused", note=f"not collected: {getattr(exc, 'strerror', None) or exc}")
            earlier = target / student / lesson / f"{lesson}.ipynb"
            if row.status not in ("collected", "late") and earlier.is_file() and not earlier.is_symlink():
                earlier.replace(earlier.with_name(earlier.name + ".earlier"))  # never graded for this collection
                row.note += f"; the copy an earlier collection made is now {earlier.name}.earlier"
            report.rows.append(row)
    finally:
        os.close(root_fd)
    write_csv(report.manifest, [_manifest_row(row) for row in report.rows], MANIFEST_COLUMNS, mode=PRIVATE_FILE)
    return report


def _manifest_row(row: Collected) -> dict[str, object]:
    found = vars(row).copy()
    found["late by"] = found.pop("late_by")
    return found


def _collect_one(student: str, root_fd: int, lesson: str, target: Path, deadline: datetime | None,
                 limit: int) -> Collected:
    name = f"{lesson}.ipynb"
    relative = "/".join((*NOTEBOOKS, name))
    try:
        home = open_dir(student, root_fd)
    except Refused as exc:
        return Collected(student, "refused", note=f"the home {exc}")
    except OSError as exc:
        return Collected(student, "refused", note=f"the home cannot be opened ({exc.strerror})")
    try:
        owner = os.fstat(home).st_uid  # the student: whoever owns the home
        folder = walk(NOTEBOOKS, home)
        try:
            data, st = read_bounded(name, folder, limit, owner)
        finally:
            os.close(folder)
    except FileNotFoundError:
        return Collected(student, "nothing to collect", note=f"no {relative}")
    except Refused as exc:
        return Collected(student, "refused", note=f"{relative}: {exc}")
    except PermissionError:
        return Collected(student, "refused", note=f"{relative}: permission denied (run as root or as the student)")
    except OSError as exc:
        return Collected(student, "refused", note=f"{relative}: cannot be read ({exc.strerror or exc})")
    finally:
        os.close(home)
    try:
        datetime.fromtimestamp(st.st_mtime, UTC)
        modified = datetime.fromtimestamp(max(st.st_mtime, st.st_ctime), UTC)
    except (ValueError, OverflowError, OSError):
        return Collected(student, "refused", note=f"{relative}: its modification time ({st.st_mtime:.0f} s after "
                         "1970) is out of range: not collected (the student saves the lesson again)")
    late = deadline is not None and modified > deadline
    out = private_folder(target / student / lesson) / name
    private_folder(target / student)
    write_private(out, data)
    return Collected(student, "late" if late else "collected", modified=modified.isoformat(timespec="seconds"),
                     late=("yes" if late else "no") if deadline is not None else "",
                     late_by=format_past(modified - deadline) if late else "",
                     deadline=deadline.isoformat() if deadline is not None else "", bytes=len(data),
                     sha256=hashlib.sha256(data).hexdigest(), file=str(out))


# ------------------------------------------------------------------------------------------- return


@dataclass
class ReturnReport:
    source: Path
    returned: list[str] = field(default_factory=list)  # "alice: bleu-lab-course/feedback/03_brevity_penalty.html"
    beside: list[str] = field(default_factory=list)  # written under a new name, and why
    refused: list[str] = field(default_factory=list)  # not written, and why
    unchanged: list[str] = field(default_factory=list)
    owner_note: str = ""

    def __str__(self) -> str:
        lines = [f"returned {len(self.returned) + len(self.beside)} feedback pages from {self.source}"
                 + (f" ({self.owner_note})" if self.owner_note else "")]
        lines += [f"  written beside: {line}" for line in self.beside]
        lines += [f"  not returned: {line}" for line in self.refused]
        if self.unchanged:
            lines.append(f"  already there, unchanged: {len(self.unchanged)}")
        return "\n".join(lines)


def _read_record(source: Path) -> dict[str, dict[str, str]]:
    with contextlib.suppress(OSError, ValueError):
        record = json.loads((source / RETURNED_NAME).read_text(encoding="utf-8"))
        if isinstance(record, dict):
            return record
    return {}


def _pages(source: Path) -> list[tuple[str, str, bytes]]:
    """The pages to return: (student, file name, bytes) for each regular ``source/STUDENT/*.html``."""
    found = []
    for folder in sorted(source.iterdir()):
        if folder.name.startswith(".") or folder.is_symlink() or not folder.is_dir():
            continue
        for page in sorted(folder.glob("*.html")):
            if page.is_symlink() or not page.is_file():
                continue
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
            try:
                data, _ = read_bounded(page.name, fd)
            finally:
                os.close(fd)
            found.append((folder.name, page.name, data))
    return found


def return_feedback(source: Path, homes_root: Path) -> ReturnReport:
    """Put each page ``source/STUDENT/NAME.html`` into ``HOMES/STUDENT/bleu-lab-course/feedback/`` (see the
    module): never through a link, never over a file it did not write, owned by the student when run as root."""
    source = Path(source)
    if not source.is_dir():
        raise FileNotFoundError(f"--return {source}: no such folder (bleu-lab grade --feedback writes it)")
    record = _read_record(source)
    report = ReturnReport(source)
    as_root = os.geteuid() == 0
    report.owner_note = "" if as_root else "not run as root: the pages are owned by you, not by the students"
    root_fd, names = homes(homes_root)
    try:
        for student, page, data in _pages(source):
            where = f"{student}: {'/'.join((*FEEDBACK, page))}"
            if student not in names:
                report.refused.append(f"{where}: no home {student} in {homes_root}")
                continue
            try:
                written, note = _return_one(root_fd, student, page, data, record.get(student, {}), as_root)
            except Refused as exc:
                report.refused.append(f"{where}: {exc}")
                continue
            except OSError as exc:
                report.refused.append(f"{where}: {exc.strerror or exc}")
                continue
            record.setdefault(student, {})[written] = hashlib.sha256(data).hexdigest()
            if note == "unchanged":
                report.unchanged.append(where)
            elif note:
                report.beside.append(f"{student}: {'/'.join((*FEEDBACK, written))} ({note})")
            else:
                report.returned.append(where)
    finally:
        os.close(root_fd)
        write_private(source / RETURNED_NAME, (json.dumps(record, indent=1, sort_keys=True) + "\n").encode())
    return report


def _owner(home_fd: int) -> tuple[int, int]:
    """The student's uid and gid: the home's owner, and that user's group (else the home's group)."""
    st = os.fstat(home_fd)
    try:
        import pwd

        return st.st_uid, pwd.getpwuid(st.st_uid).pw_gid
    except (ImportError, KeyError):
        return st.st_uid, st.st_gid


def _ensure_dir(name: str, dir_fd: int, chown: Callable[[int], None]) -> int:
    """Open folder ``name`` in ``dir_fd`` without following a link, creating it (0700, the student's) if missing."""
    try:
        return open_dir(name, dir_fd)
    except FileNotFoundError:
        os.mkdir(name, 0o700, dir_fd=dir_fd)
        fd = open_dir(name, dir_fd)
        chown(fd)
        return fd


def _return_one(root_fd: int, student: str, page: str, data: bytes, ours: dict[str, str],
                as_root: bool) -> tuple[str, str]:
    """Write one page into one home; (the name written, "" / "unchanged" / why it went beside)."""
    home = open_dir(student, root_fd)
    try:
        uid, gid = _owner(home)

        def chown(fd: int) -> None:
            if as_root:
                os.fchown(fd, uid, gid)

        fd = home
        try:
            for part in FEEDBACK:
                next_fd = _ensure_dir(part, fd, chown)
                if fd != home:
                    os.close(fd)
                fd = next_fd
            return _place(page, data, fd, ours, chown)
        finally:
            if fd != home:
                os.close(fd)
    finally:
        os.close(home)


def _state(name: str, folder: int, ours: dict[str, str], data: bytes) -> str:
    """What is at ``name``: "free", "same" (this very page), "ours" (a page this tool wrote) or why it is not ours."""
    try:
        st = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return "free"
    if stat.S_ISLNK(st.st_mode):
        return f"{name} is a link, left alone"
    if not stat.S_ISREG(st.st_mode):
        return f"{name} is not a regular file, left alone"
    try:
        current, _ = read_bounded(name, folder)
    except (Refused, OSError):
        return f"{name} is not a page this tool wrote, left alone"
    digest = hashlib.sha256(current).hexdigest()
    if current == data:
        return "same"
    return "ours" if ours.get(name) == digest else f"{name} was not written by bleu-lab collect, left alone"


def _place(page: str, data: bytes, folder: int, ours: dict[str, str], chown: Callable[[int], None]) -> tuple[str, str]:
    why = ""
    for number in range(1, 1000):
        name = page if number == 1 else new_name(page, number - 1)
        state = _state(name, folder, ours, data)
        if state == "same":
            return name, "unchanged" if not why else why
        if state in ("free", "ours"):
            _write_into(folder, name, data, chown)
            return name, why
        why = why or state
    raise Refused(f"999 files named like {page} that this tool did not write")


def _write_into(folder: int, name: str, data: bytes, chown: Callable[[int], None]) -> None:
    """Write ``name`` in ``folder`` through a new file (never opened through a link) renamed into place."""
    tmp = f".{name}.{secrets.token_hex(4)}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600, dir_fd=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            chown(f.fileno())
        os.replace(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=folder)
        raise



# ------------------------------------------------------------------------------------------- the command


def add_collect_parser(commands) -> None:
    """``bleu-lab collect``'s options, on the instructors' subcommands of ``assignments.cli``."""
    col = commands.add_parser("collect", help="copy a lesson from the students' homes into nbgrader's layout, or "
                              "return feedback pages (--return)",
                              description="Copy HOMES/STUDENT/bleu-lab-course/notebooks/LESSON.ipynb of every home "
                              "into DIR/STUDENT/LESSON/LESSON.ipynb (DIR named 'submitted': nbgrader's layout, which "
                              "bleu-lab grade reads), never through a link, regular files only, at most --max-mb each; "
                              "a manifest CSV beside DIR lists every home (collected, late, refused, nothing to "
                              "collect). Student code is never run. With --return DIR: put each page DIR/STUDENT/"
                              "NAME.html (bleu-lab grade --feedback DIR) into HOMES/STUDENT/bleu-lab-course/feedback/, "
                              "owned by the student when run as root, never over a file it did not write.")
    col.add_argument("lesson", metavar="LESSON", nargs="?", help="the lesson to collect, e.g. 03_brevity_penalty")
    col.add_argument("--homes", type=Path, required=True, metavar="DIR", help="the folder of the homes, e.g. /home")
    col.add_argument("--to", type=Path, default=None, metavar="DIR",
                     help="where to collect: a folder named 'submitted', e.g. course/submitted")
    col.add_argument("--return", dest="return_dir", type=Path, default=None, metavar="DIR",
                     help="return the feedback pages of DIR (bleu-lab grade --feedback DIR) instead of collecting")
    col.add_argument("--deadline", default=None, metavar="TIME",
                     help="ISO 8601 time (2026-12-01T23:59, or with a zone: ...+01:00); a file changed later (its "
                     "modification time, or its change time, which no student can set back) is "
                     "collected and marked late in the manifest (bleu-lab grade shows it, and applies --late-penalty)")
    col.add_argument("--max-mb", type=float, default=MAX_BYTES / 1e6, metavar="MB",
                     help=f"largest notebook collected, in MB (default {MAX_BYTES / 1e6:g}); larger ones are refused")
    col.add_argument("--manifest", type=Path, default=None, metavar="FILE",
                     help="the manifest CSV (default: LESSON-collected.csv beside DIR)")


def run_collect(args, prog: str) -> int:
    """Run ``bleu-lab collect``; 0 once done (refused homes are listed, not fatal)."""
    if args.return_dir is not None:
        if args.lesson or args.to or args.deadline:
            raise ValueError("--return DIR takes only --homes (not LESSON, --to or --deadline)")
        print(return_feedback(args.return_dir, args.homes))
        return 0
    if not args.lesson or args.to is None:
        raise ValueError("collect needs LESSON and --to DIR (or --return DIR to hand feedback back)")
    report = collect(args.lesson, args.homes, args.to, deadline=parse_deadline(args.deadline),
                     limit=int(args.max_mb * 1e6), manifest=args.manifest)
    print(report)
    return 0
