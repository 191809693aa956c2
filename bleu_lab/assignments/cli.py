"""The instructors' subcommands of ``bleu-lab``: ``release OUTDIR``, ``grade NOTEBOOK [NOTEBOOK ...]`` and
``gradescope LESSON [LESSON ...]``.

    bleu-lab release course/                 course/student/ (no solutions), course/solved/ (with them) and
                                             course/nbgrader/ (an nbgrader course's source/ and its config)
    bleu-lab grade alice/03_brevity_penalty.ipynb bob/03_brevity_penalty.ipynb [--seed N] [--timeout S]
                   [--jobs N] [--csv marks.csv] [--gradescope results.json]
                                             ...several at once, the marks as CSV / Gradescope's JSON (a rerun after a
                                             crash resumes from its journal, kept until every export is written; one
                                             notebook per student and lesson: roster.py)
                   [--feedback DIR] [--canvas GRADEBOOK.csv -o IMPORT.csv [--assignment TITLE] [--points N]
                   [--allow-missing]] [--manual marks.csv] [--grades FILE] [--late-penalty 10%/day] [--manifest FILE]
                                             ...feedback pages (feedback.py), Canvas's import (canvas.py), lateness
                                             from collect's manifest and a late penalty (lateness.py); with an
                                             export, the grades are stored (marks.csv.grades.json: hand_marks.py)
    bleu-lab mark marks.csv.grades.json [--set STUDENT:LESSON:EXERCISE=MARK ...] [--from marks.csv] [--port N]
                                             the written answers' marks by hand: a page on 127.0.0.1 (a random port
                                             and a token), or --set / --from; every export is written again from the
                                             stored grades (the late penalty too), no notebook runs again
                                             (mark_page.py)
    bleu-lab collect 03_brevity_penalty --homes /home --to course/submitted [--deadline ISO]   from hub homes
    bleu-lab collect --return feedback/ --homes /home                        feedback pages back (collect.py)
    bleu-lab gradescope 03_brevity_penalty -o autograder.zip [--wheel W]   a Gradescope autograder (gradescope.py)

``grade`` prints the seed of the hidden cases, then one report per notebook ending in its one ``score:`` line (a
notebook that cannot be read or placed gets ``score: not graded`` and the batch goes on). It exits with 0 once every
notebook is graded, whatever the marks; with 2 (and one line on stderr) for a missing file or a bad option; with 3
if the grader's own files changed during a run (marks withheld from there on, and no export written).

``collect``, ``grade``, ``mark`` and ``release`` run under umask 077 and write every file anew, private (``private``):
on a shared server the other users are the students. Each first warns, on stderr, of a folder it writes into that others
can enter or list.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence
from pathlib import Path

from . import default_notebooks_dir, hand_marks, lesson_gradings
from .batch import MAX_JOBS
from .canvas import (
    Gradebook,
    canvas_from_marks,
    choose_assignment,
    missing_students,
    points_possible,
    read_gradebook,
    refuse_missing,
)
from .collect import add_collect_parser, run_collect
from .exports import ExportSettings, write_exports
from .feedback import HIDDEN_POLICIES
from .grade import (
    DEFAULT_TIMEOUT,
    MARK_MEMORY,
    MAX_CELLS,
    MAX_NOTEBOOK_MB,
    SANDBOX_MODES,
    NotebookGrade,
    check_notebook_mb,
    grade_batch,
)
from .gradebook import read_by_hand, read_marks
from .gradescope import DEFAULT_TIMEOUT as GRADESCOPE_TIMEOUT
from .gradescope import build_autograder
from .lateness import parse_penalty, read_lateness
from .private import open_folders, private_umask
from .release import release
from .roster import student_of

EXIT_ERROR = 2
PRIVATE_COMMANDS = ("collect", "grade", "mark", "release")  # run under umask 077: everything they write is private


def build_parser(prog: str = "bleu-lab") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description="Assignments that grade themselves (for instructors).")
    commands = parser.add_subparsers(dest="command", required=True)
    rel = commands.add_parser("release", help="write OUTDIR/student (no solutions), OUTDIR/solved, OUTDIR/nbgrader",
                              description="Write OUTDIR/student/: the lessons without worked solutions, to hand "
                              "out; OUTDIR/solved/: the same with the solutions filled in (the instructor's copy); and "
                              "OUTDIR/nbgrader/: the lessons as an nbgrader course's source/ folder, with its config.")
    rel.add_argument("outdir", metavar="OUTDIR", type=Path)
    rel.add_argument("--notebooks", metavar="DIR", type=Path, default=None,
                     help="the lessons to release (default: notebooks/ of this checkout)")
    rel.add_argument("--force", action="store_true",
                     help="replace the files an earlier release wrote in OUTDIR (never anything else)")
    grd = commands.add_parser("grade", help="run submitted notebooks and mark their exercises",
                              description="Run each notebook from a private copy in an isolated kernel, read back "
                              "the values of its answers, and mark them outside the kernel (under --timeout and "
                              "--memory) with the lesson's checks and hidden cases drawn from --seed: 1 point for the "
                              "visible check, 1 for the hidden cases; "
                              "written answers are listed for manual grading.")
    grd.add_argument("notebooks", metavar="NOTEBOOK", nargs="*", type=Path,
                     help="the notebooks to grade (none with --manual MARKS --canvas GRADEBOOK -o FILE: Canvas's "
                     "import from the marks CSV alone, without grading again)")
    grd.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                     help=f"wall-clock limit to run one notebook, > 0 (default {DEFAULT_TIMEOUT}); marking it "
                     "afterwards has the same limit again")
    grd.add_argument("--seed", type=int, default=None, metavar="N",
                     help="seed of the hidden cases (default: a random one, printed first)")
    grd.add_argument("--lesson", default=None, metavar="NAME",
                     help="grade every notebook as this lesson (e.g. 03_brevity_penalty), whatever it claims")
    grd.add_argument("--csv", type=Path, default=None, metavar="FILE",
                     help="also write the marks as CSV for an LMS: a row per student (nbgrader's submitted/STUDENT/ "
                     "folder, else the file's folder or name), a column per exercise, each lesson's total and possible")
    grd.add_argument("--gradescope", type=Path, default=None, metavar="FILE",
                     help="also write the marks as Gradescope's results.json (one submission: at most one notebook "
                     "per lesson)")
    grd.add_argument("--sandbox", choices=SANDBOX_MODES, default="auto",
                     help="run each kernel under bubblewrap: 'auto' where it can start (the report's second line "
                     "says which), 'bubblewrap' to refuse to grade without it, 'none' not to use it")
    grd.add_argument("--feedback", type=Path, default=None, metavar="DIR",
                     help="also write a feedback page per student, DIR/STUDENT/LESSON.html (bleu-lab collect --return "
                     "DIR puts them in the students' homes)")
    grd.add_argument("--feedback-hidden", choices=HIDDEN_POLICIES, default="summary",
                     help="what the pages say of failed hidden cases: 'summary' (passed or not, the default: the same "
                     "--seed draws the same inputs again) or 'details' (the messages, which name the hidden inputs)")
    grd.add_argument("--canvas", type=Path, default=None, metavar="GRADEBOOK",
                     help="the gradebook CSV Canvas exported: write -o FILE, the lesson's marks for Canvas's import")
    grd.add_argument("-o", "--output", type=Path, default=None, metavar="FILE",
                     help="with --canvas: the file to import into Canvas")
    grd.add_argument("--assignment", default=None, metavar="TITLE",
                     help="with --canvas: the lesson's assignment in the gradebook (its title, 'Title (id)' or id; "
                     "default: the one whose title holds the lesson's name)")
    grd.add_argument("--points", type=float, default=None, metavar="N",
                     help="with --canvas: the assignment's points possible in Canvas, where they differ from the "
                     "lesson's total (its automatic points, plus 1 per written answer): the written answers are then "
                     "worth the rest; without it such points are refused (marks are never rescaled)")
    grd.add_argument("--allow-missing", action="store_true",
                     help="with --canvas: write the import even where a student of the batch is not in Canvas's "
                     "gradebook (their marks are left out, and listed); without it that stops the command")
    grd.add_argument("--manual", type=Path, default=None, metavar="MARKS",
                     help="a marks CSV that --csv wrote, with the written answers' '(by hand)' columns filled: their "
                     "marks go into --csv's columns and into Canvas's score")
    grd.add_argument("--late-penalty", default=None, metavar="RULE",
                     help="take marks off late notebooks (late as bleu-lab collect --deadline judged them, in its "
                     "manifest): 'P%%' takes P%% of the points possible once (100%% for 'late gets 0'), 'P%%/day' "
                     "P%% per started day late (at most 100%%, or ',max=M%%': 10%%/day,max=50%%); every export shows "
                     "the marks before and after it")
    grd.add_argument("--manifest", type=Path, default=None, metavar="FILE",
                     help="bleu-lab collect's manifest, where the notebooks' lateness is (default: "
                     "LESSON-collected.csv beside the submitted/ folder of each notebook, where collect writes it; "
                     "none: lateness unknown, not shown)")
    grd.add_argument("--grades", type=Path, default=None, metavar="FILE",
                     help="where to store the batch's grades for bleu-lab mark (default, with an export: beside the "
                     "first of --csv, --gradescope, -o, e.g. marks.csv.grades.json; with --feedback DIR alone, "
                     f"DIR/{hand_marks.FEEDBACK_ONLY_NAME}); marks by hand recorded beside it are kept")
    grd.add_argument("--memory", type=int, default=MARK_MEMORY, metavar="MB",
                     help=f"memory that marking one notebook may use, in MB (default {MARK_MEMORY}); beyond it, or "
                     "beyond --timeout, the notebook gets 0 with a note")
    grd.add_argument("--jobs", type=int, default=None, metavar="N",
                     help=f"notebooks graded at once, each in its own box (default: the CPUs, at most {MAX_JOBS}, "
                     "under bubblewrap; 1 without it, where more is refused); the report keeps the notebooks' order")
    grd.add_argument("--max-notebook-mb", type=float, default=MAX_NOTEBOOK_MB, metavar="MB",
                     help=f"a larger notebook file is refused unread, on its own line (default {MAX_NOTEBOOK_MB}); "
                     f"so is one of more than {MAX_CELLS:,} cells")
    add_collect_parser(commands)
    add_mark_parser(commands)
    gs = commands.add_parser("gradescope", help="write a Gradescope autograder (zip) for LESSON ...",
                             description="Write a Gradescope autograder: setup.sh installs the bleu_lab wheel the zip "
                             "carries (and its dependencies, from PyPI, when Gradescope builds the image); "
                             "run_autograder grades the submitted notebooks with bleu-lab grade into "
                             "results/results.json. Hidden cases' details are shown to students once grades are "
                             "published.")
    gs.add_argument("lessons", metavar="LESSON", nargs="+",
                    help="the lessons of the assignment, e.g. 03_brevity_penalty")
    gs.add_argument("-o", "--output", type=Path, required=True, metavar="ZIP", help="the zip to write")
    gs.add_argument("--wheel", type=Path, default=None, metavar="WHEEL",
                    help="the bleu_lab wheel to carry (default: build this clone's with pip wheel)")
    gs.add_argument("--timeout", type=float, default=GRADESCOPE_TIMEOUT, metavar="SECONDS",
                    help=f"wall-clock limit to run one notebook, > 0 (default {GRADESCOPE_TIMEOUT}); marking it "
                    "afterwards has the same limit again")
    gs.add_argument("--seed", type=int, default=None, metavar="N",
                    help="seed of the hidden cases (default: a fresh one for each submission)")
    return parser


def add_mark_parser(commands: argparse._SubParsersAction) -> None:
    """``bleu-lab mark GRADES``: the written answers' marks by hand, on a local page or from the command line."""
    mrk = commands.add_parser("mark", help="mark the written answers by hand, then write every export again",
                              description="Show each written answer of a graded batch beside its rubric on a page "
                              "served on 127.0.0.1 (a random port, and a token in the address it prints), record the "
                              "marks given there (from 0 to the answer's points), and write the batch's exports "
                              "again (marks CSV, Gradescope, feedback pages, Canvas) from the stored grades: no "
                              "notebook runs again. With --set or --from, record those marks and stop.")
    mrk.add_argument("grades", metavar="GRADES", type=Path,
                     help="the grades bleu-lab grade stored (e.g. marks.csv.grades.json, beside --csv)")
    mrk.add_argument("--set", dest="set_marks", action="append", default=[], metavar="STUDENT:LESSON:EXERCISE=MARK",
                     help="record one mark without the page (LESSON: its name or number, e.g. 03; EXERCISE: the "
                     "written answer's name or its start; MARK empty: remove it); repeat for more")
    mrk.add_argument("--from", dest="from_csv", type=Path, default=None, metavar="MARKS",
                     help="record the filled '(by hand)' cells of a marks CSV (the one --csv wrote, filled in)")
    mrk.add_argument("--port", type=int, default=0, metavar="N",
                     help="the page's port on 127.0.0.1 (default: a free one)")


def _mark(args: argparse.Namespace, prog: str) -> int:
    stored = hand_marks.load_grades(args.grades)
    recorded = hand_marks.load_hand_record(stored.path)
    answers = hand_marks.written_answers(stored, recorded.marks, recorded.again)
    if args.set_marks or args.from_csv is not None:
        changes = [hand_marks.parse_set(text, answers) for text in args.set_marks]
        if args.from_csv is not None:
            changes += hand_marks.changes_from_csv(args.from_csv, answers)
        marks = hand_marks.record(stored, changes, prog)
        given = sum(1 for a in hand_marks.written_answers(stored, marks) if a.mark is not None)
        print(f"{prog}: recorded {len(changes)} marks by hand in {hand_marks.hand_marks_path(stored.path)} "
              f"({given} of {len(answers)} written answers marked)")
        return 0
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port {args.port}: expected a port from 0 (a free one) to 65535")
    from .mark_page import serve

    return serve(stored, args.port, prog)


def _exports_ok(args: argparse.Namespace) -> None:
    """Before grading: the export files can be written and are none of the notebooks, and --gradescope's notebooks
    are one student's (ValueError / FileNotFoundError naming the option). Two notebooks of one student and lesson are
    settled by ``grade_batch`` (``roster``)."""
    notebooks = {p.resolve() for p in args.notebooks}
    if (args.canvas is None) != (args.output is None):
        raise ValueError("--canvas GRADEBOOK and -o FILE go together: the gradebook Canvas exported, and the file to "
                         "import")
    read = {p.resolve() for p in (args.canvas, args.manual) if p is not None}
    for flag, path in (("--csv", args.csv), ("-o", args.output)):
        if path is not None and path.resolve() in read:
            raise ValueError(f"{flag} {path} is a file it reads (--canvas or --manual): give another file name")
    for flag, path in (("--csv", args.csv), ("--gradescope", args.gradescope), ("-o", args.output),
                       ("--grades", args.grades)):
        if path is None:
            continue
        if path.resolve() in notebooks:
            raise ValueError(f"{flag} {path} is one of the notebooks to grade: give another file name")
        if not path.parent.is_dir():
            raise FileNotFoundError(f"{flag} {path}: the folder {path.parent} does not exist")
        if path.is_dir():
            raise IsADirectoryError(f"{flag} {path} is a folder: give a file name")
    if args.grades is not None and not ExportSettings.from_args(args).any:
        raise ValueError(f"--grades {args.grades} stores the grades of an export: give --csv, --gradescope, "
                         "--feedback or --canvas too")
    if args.feedback is not None and args.feedback.exists() and not args.feedback.is_dir():
        raise NotADirectoryError(f"--feedback {args.feedback} is a file: give a folder (made if missing)")
    if args.gradescope is not None:
        students = sorted({student_of(path) for path in args.notebooks})
        if len(students) > 1:
            raise ValueError(f"--gradescope writes one submission's results, and these are notebooks of "
                             f"{len(students)} students ({', '.join(students[:3])}): grade one student's notebooks "
                             "at a time, or use --csv")


def _canvas_fits(book: Gradebook, args: argparse.Namespace) -> None:
    """Before grading, what Canvas's import will need: every student of the batch in the gradebook (unless
    --allow-missing) and, where the lesson is known (--lesson, or every notebook named after one lesson), its
    assignment and points (ValueError naming the option)."""
    gradings = lesson_gradings()
    if not args.allow_missing:
        refuse_missing(missing_students(book, sorted({student_of(p) for p in args.notebooks})))
    stems = {p.stem for p in args.notebooks}
    lesson = args.lesson or (next(iter(stems)) if len(stems) == 1 and stems <= gradings.keys() else None)
    if lesson is not None and lesson in gradings:
        column = choose_assignment(book, lesson, args.assignment)
        points_possible(book, column, lesson, gradings[lesson], args.points)


def _grade(args: argparse.Namespace, prog: str) -> int:
    if not args.notebooks:
        return _canvas_from_marks(args, prog)
    _exports_ok(args)
    book = read_gradebook(args.canvas) if args.canvas is not None else None  # refused before grading if unreadable
    if book is not None:
        _canvas_fits(book, args)
    check_notebook_mb(args.max_notebook_mb)  # before the notebooks are read for their lateness
    late = read_lateness(args.notebooks, args.manifest, parse_penalty(args.late_penalty), args.max_notebook_mb)
    settings = ExportSettings.from_args(args)
    store = args.grades or hand_marks.default_store(settings)
    if store is not None:
        hand_marks.load_hand_record(store)  # a file that is not what bleu-lab mark records: refused before grading
    manual = read_by_hand(args.manual) if args.manual is not None else {}

    def export(grades: list[NotebookGrade]) -> None:
        settings.record_lateness(grades, late)  # stored with the grades: mark applies the penalty again
        by_hand: dict[str, dict[str, float]] = {}
        if store is not None:
            hand_marks.save_grades(store, grades, settings)
            print(f"{prog}: stored the grades in {store} (bleu-lab mark {store}: the written answers' marks by "
                  "hand)", file=sys.stderr)
            by_hand, dropped = hand_marks.still_marked(store, grades)
            if dropped:
                print(f"{prog}: to mark again ({len(dropped)}, the written answer changed since its mark, which is "
                      f"dropped): {'; '.join(dropped)}", file=sys.stderr)
        for student, marks in manual.items():  # --manual's marks over those recorded
            by_hand.setdefault(student, {}).update(marks)
        write_exports(settings, grades, by_hand, prog, book)

    keyed = settings.any  # marks go to students: one notebook per student and lesson
    code = grade_batch(list(args.notebooks), timeout=args.timeout, seed=args.seed, lesson=args.lesson,
                       sandbox=args.sandbox, memory=args.memory, max_notebook_mb=args.max_notebook_mb,
                       jobs=args.jobs, journal_beside=args.csv or args.gradescope,
                       students=student_of if keyed else None, export=export if keyed else None, late=late)
    if code != 0 and keyed:
        print(f"{prog}: no marks exported (grading stopped)", file=sys.stderr)
    return code


def _canvas_from_marks(args: argparse.Namespace, prog: str) -> int:
    """``grade --manual MARKS --canvas GRADEBOOK -o FILE`` without notebooks: nothing is graded."""
    if args.manual is None or args.canvas is None or args.output is None:
        raise ValueError("give the notebooks to grade (without notebooks: --manual MARKS --canvas GRADEBOOK -o FILE "
                         "writes Canvas's import from a marks CSV)")
    if args.output.resolve() in (args.manual.resolve(), args.canvas.resolve()):
        raise ValueError(f"-o {args.output} is one of the files it reads: give another file name")
    report = canvas_from_marks(read_gradebook(args.canvas), args.output, read_marks(args.manual), args.lesson,
                               args.assignment, args.points, args.allow_missing, parse_penalty(args.late_penalty))
    print(f"{prog}: {report}", file=sys.stderr)
    return 0


def main(argv: Sequence[str], prog: str = "bleu-lab") -> int:
    """Run ``release``, ``grade``, ``collect``, ``mark`` or ``gradescope``; return the exit code. All but the last run
    under umask 077 (``private``): every folder they make is 0700 and every file 0600."""
    args = build_parser(prog).parse_args(argv)
    with private_umask() if args.command in PRIVATE_COMMANDS else contextlib.nullcontext():
        return _run(args, prog)


def output_folders(args: argparse.Namespace) -> list[tuple[str, Path]]:
    """The folders that exist already which a command writes into, each with the option that names it (the folders
    it makes below them, such as a student's, are made or kept 0700 by the command itself)."""
    found: list[tuple[str, Path | None]] = []
    if args.command == "release":
        found = [("release", args.outdir)]
    elif args.command == "grade":
        found = [(flag, path.parent) for flag, path in (("--csv", args.csv), ("--gradescope", args.gradescope),
                                                         ("-o", args.output), ("--grades", args.grades))
                 if path is not None]
        found.append(("--feedback", args.feedback))
    elif args.command == "mark":
        found = [("mark", args.grades.parent)]  # the marks by hand go beside the stored grades
    elif args.command == "collect" and args.return_dir is None and args.to is not None:
        manifest = args.manifest or args.to.parent / f"{args.lesson}-collected.csv"
        found = [("--to", args.to), ("the manifest", manifest.parent)]
    return [(what, path) for what, path in found if path is not None and path.is_dir()]


def _run(args: argparse.Namespace, prog: str) -> int:
    try:
        for line in open_folders(output_folders(args)):
            print(f"{prog} {args.command}: {line}", file=sys.stderr)
        if args.command == "release":
            notebooks = args.notebooks or default_notebooks_dir()
            done = release(args.outdir, notebooks, force=args.force)
            print(f"released {len(done.notebooks)} notebooks from {notebooks}:\n  {done.student}  (for students)\n"
                  f"  {done.solved}  (with solutions: for instructors, and to test the grader)\n"
                  f"  {done.nbgrader}  (nbgrader's source/ and nbgrader_config.py, for courses that use nbgrader)")
            return 0
        if args.command == "collect":
            return run_collect(args, prog)
        if args.command == "mark":
            return _mark(args, prog)
        if args.command == "gradescope":
            done = build_autograder(args.lessons, args.output, wheel=args.wheel, timeout=args.timeout, seed=args.seed)
            print(f"wrote {done.path}: Gradescope's autograder for {', '.join(done.lessons)}, carrying {done.wheel}.\n"
                  f"  Upload it on the assignment's Configure Autograder page; set Gradescope's autograder timeout "
                  f"to at least {int(2 * done.timeout * len(done.lessons) + 60)} s (2 x --timeout per lesson, and "
                  "a minute to start).")
            return 0
        return _grade(args, prog)
    except (OSError, ValueError, RuntimeError) as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return EXIT_ERROR
    return 0
