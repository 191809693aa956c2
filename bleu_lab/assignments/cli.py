"""The instructors' subcommands of ``bleu-lab``: ``release OUTDIR`` and ``grade NOTEBOOK [NOTEBOOK ...]``.

    bleu-lab release course/                 course/student/ (no solutions), course/solved/ (with them) and
                                             course/nbgrader/ (an nbgrader course's source/ and its config)
    bleu-lab grade alice/03_brevity_penalty.ipynb bob/03_brevity_penalty.ipynb [--seed N] [--timeout S]

``grade`` prints the seed of the hidden cases, then one report per notebook ending in its one ``score:`` line (a
notebook that cannot be read or placed gets ``score: not graded`` and the batch goes on). It exits with 0 once every
notebook is graded, whatever the marks; with 2 (and one line on stderr) for a missing file or a bad option; with 3
if the grader's own files changed during a run (marks withheld from there on).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from . import default_notebooks_dir
from .grade import DEFAULT_TIMEOUT, MARK_MEMORY, SANDBOX_MODES, grade_batch
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
    rel.add_argument("--force", action="store_true",
                     help="replace the files an earlier release wrote in OUTDIR (never anything else)")
    grd = commands.add_parser("grade", help="run submitted notebooks and mark their exercises",
                              description="Run each notebook from a private copy in an isolated kernel, read back "
                              "the values of its answers, and mark them outside the kernel (under --timeout and "
                              "--memory) with the lesson's checks and hidden cases drawn from --seed: 1 point for the "
                              "visible check, 1 for the hidden cases; "
                              "written answers are listed for manual grading.")
    grd.add_argument("notebooks", metavar="NOTEBOOK", nargs="+", type=Path)
    grd.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                     help=f"wall-clock limit to run one notebook, > 0 (default {DEFAULT_TIMEOUT}); marking it "
                     "afterwards has the same limit again")
    grd.add_argument("--seed", type=int, default=None, metavar="N",
                     help="seed of the hidden cases (default: a random one, printed first)")
    grd.add_argument("--lesson", default=None, metavar="NAME",
                     help="grade every notebook as this lesson (e.g. 03_brevity_penalty), whatever it claims")
    grd.add_argument("--sandbox", choices=SANDBOX_MODES, default="auto",
                     help="run each kernel under bubblewrap: 'auto' where it can start (the report's second line "
                     "says which), 'bubblewrap' to refuse to grade without it, 'none' not to use it")
    grd.add_argument("--memory", type=int, default=MARK_MEMORY, metavar="MB",
                     help=f"memory that marking one notebook may use, in MB (default {MARK_MEMORY}); beyond it, or "
                     "beyond --timeout, the notebook gets 0 with a note")
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
        return grade_batch(list(args.notebooks), timeout=args.timeout, seed=args.seed, lesson=args.lesson,
                           sandbox=args.sandbox, memory=args.memory)
    except (OSError, ValueError) as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return EXIT_ERROR
    return 0
