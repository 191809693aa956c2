"""The instructors' subcommands of ``bleu-lab``: ``release OUTDIR`` and ``grade NOTEBOOK [NOTEBOOK ...]``.

    bleu-lab release course/                 course/student/ (no solutions), course/solved/ (with them) and
                                             course/nbgrader/ (an nbgrader course's source/ and its config)
    bleu-lab grade alice/03_brevity_penalty.ipynb bob/03_brevity_penalty.ipynb

``grade`` exits with 0 once every notebook is graded, whatever the marks; with 2 (and one line on stderr) for an
unusable input: a missing file, a file that is not a notebook, a notebook that is none of the lessons.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from . import default_notebooks_dir
from .grade import DEFAULT_TIMEOUT, format_grade, grade_notebook, read_submission
from .release import release

EXIT_ERROR = 2


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
    rel.add_argument("--force", action="store_true", help="replace OUTDIR/student and OUTDIR/solved if they exist")
    grd = commands.add_parser("grade", help="run submitted notebooks and mark their exercises",
                              description="Run each notebook in a fresh kernel, then mark its exercises with the "
                              "lesson's checks and hidden cases: 1 point for the visible check, 1 for the hidden "
                              "cases; written answers are listed for manual grading.")
    grd.add_argument("notebooks", metavar="NOTEBOOK", nargs="+", type=Path)
    grd.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                     help=f"interrupt a cell that runs longer (default {DEFAULT_TIMEOUT})")
    return parser


def main(argv: Sequence[str], prog: str = "bleu-lab") -> int:
    """Run ``release`` or ``grade``; return the exit code."""
    args = build_parser(prog).parse_args(argv)
    try:
        if args.command == "release":
            notebooks = args.notebooks or default_notebooks_dir()
            done = release(args.outdir, notebooks, force=args.force)
            print(f"released {len(done.notebooks)} notebooks from {notebooks}:\n  {done.student}  (for students)\n"
                  f"  {done.solved}  (with solutions: for instructors, and to test the grader)\n"
                  f"  {done.nbgrader}  (nbgrader's source/ and nbgrader_config.py, for courses that use nbgrader)")
            return 0
        for path in args.notebooks:  # every input usable before the first (slow) run
            read_submission(path)
        for path in args.notebooks:
            print(format_grade(grade_notebook(path, timeout=args.timeout)), flush=True)
    except (OSError, ValueError) as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return EXIT_ERROR
    return 0
