"""The command line: ``bleu-lab HYP REF [REF ...]`` (or ``python -m bleu_lab``).

    bleu-lab hyp.de ref.A.de                       corpus BLEU with its signature
    bleu-lab hyp.de ref.A.de ref.B.de -lc          several references, lowercased
    bleu-lab hyp.de ref.A.de --explain 7           ...and every step of segment 7's sentence BLEU
    bleu-lab base.de ref.A.de --compare new.de     a paired test of new against base: approximate randomization
    bleu-lab base.de ref.A.de --compare new.de --paired-bs    ...the paired bootstrap instead (both: add --paired-ar)
    bleu-lab release OUTDIR | grade NOTEBOOK ... | mark GRADES | gradescope LESSON ... -o ZIP
                                                   assignments for instructors (bleu_lab.assignments.cli)
    bleu-lab lessons [DIR] | lab [DIR]             the lessons in a working copy of your own (bleu_lab.course)
    bleu-lab guide [--open]                        where the instructor's guide, hub settings and course files are
    bleu-lab hub check [--url URL] [--lesson NAME]  as root on a hub's server: a probe student logs in end to end
    bleu-lab classroom [--page compare] [--students N] [--token T]
                                                   the playground (or the comparison page) as a Voilà app for a room

Files are UTF-8, one segment per line; line i of every file belongs to segment i. An empty reference line is an
empty reference, as sacrebleu's command line reads it (--drop-empty-refs: "no reference for this segment").
Errors print one line and exit with 2.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import textwrap
import unicodedata
import warnings
from collections.abc import Sequence

from .commands import add_version, note_empty_reference_lines, require_lessons, run_with_clear_errors
from .data import line_count_error, read_lines, references_per_segment
from .metrics.significance import (
    BootstrapResult,
    RandomizationResult,
    TooManyDraws,
    paired_bootstrap,
    paired_randomization,
)
from .reports.explain import explain
from .sacrebleu_style import corpus_score
from .scripts import tokenizer_warning
from .smoothing import SACREBLEU_METHODS
from .tokenization import ALL_TOKENIZERS, OPTIONAL_TOKENIZERS, TOKENIZERS

DEFAULT_SAMPLES, DEFAULT_TRIALS = 1000, 10000  # sacrebleu's defaults for --paired-bs-n and --paired-ar-n
CLASSROOM_COMMANDS = ("release", "grade", "gradescope", "collect", "mark")
COURSE_COMMANDS = ("lessons", "lab", "guide")
# The commands that need the lessons' packages (the "lessons" extra); the others work on the base install.
LESSONS_COMMANDS = (*CLASSROOM_COMMANDS, "lessons", "lab", "classroom")


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, but a line never breaks inside a hyphenated word ("bleu-lab" stays whole)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        text = re.sub(r"\s+", " ", text).strip()
        return textwrap.fill(text, width, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False)


def build_parser(prog: str = "bleu-lab") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        formatter_class=_HelpFormatter,
        description="Corpus BLEU of a hypothesis file against reference files, as sacrebleu computes it.",
        epilog="Files are UTF-8 with one segment per line. Example: bleu-lab data/news/sys.strong.de "
        "data/news/ref.A.de --compare data/news/sys.fluent.de. Other commands (each has its own --help): "
        "'bleu-lab lessons [DIR]' copies the lessons to a working copy of your own; 'bleu-lab lab [DIR]' updates "
        "that copy and opens it in JupyterLab; 'bleu-lab why HYP REF --reported SCORE' finds which library and "
        "setting reproduce a reported BLEU; 'bleu-lab compare --refs REF --systems SYS SYS' shows where systems "
        "differ (lesson 11). For instructors: 'bleu-lab guide [--open]' prints where the instructor's guide, the hub "
        "settings and the course files are (--open: the guide in your web browser); 'bleu-lab release OUTDIR' "
        "writes the lessons as an assignment "
        "(OUTDIR/student without solutions, OUTDIR/solved with them), 'bleu-lab grade NOTEBOOK [NOTEBOOK ...]' marks "
        "submitted lessons (--csv, --gradescope: the marks for a gradebook), 'bleu-lab mark GRADES' marks the written "
        "answers by hand on a local page and writes the exports again, 'bleu-lab gradescope LESSON -o ZIP' "
        "writes a Gradescope autograder, 'bleu-lab collect LESSON --homes /home --to DIR' collects a lesson from a "
        "hub's homes ('--return DIR' hands the feedback pages back), 'bleu-lab hub check' logs a probe student in to a "
        "running hub end to end (as root on its server), and 'bleu-lab classroom --students N' serves the "
        "playground to a room ('--page compare': the comparison page).",
    )
    add_version(parser, prog)
    parser.add_argument("hypothesis", metavar="HYP", help="hypothesis file (system output)")
    parser.add_argument("references", metavar="REF", nargs="+", help="reference file(s)")
    parser.add_argument("-t", "--tokenize", default="13a", choices=ALL_TOKENIZERS, metavar="TOK",
                        help=f"tokenizer: {', '.join(TOKENIZERS)}; {', '.join(OPTIONAL_TOKENIZERS)} "
                        f"with the mecab extra (default 13a)")
    parser.add_argument("-lc", "--lowercase", action="store_true", help="lowercase before tokenizing")
    parser.add_argument("-s", "--smooth", default="exp", choices=SACREBLEU_METHODS, metavar="METHOD",
                        help=f"smoothing: {', '.join(SACREBLEU_METHODS)} (default exp)")
    parser.add_argument("--smooth-value", type=float, default=None, metavar="V",
                        help="value for floor (default 0.1) and add-k (default 1)")
    parser.add_argument("--drop-empty-refs", action="store_true",
                        help="read an empty reference line as 'no reference for this segment' (the signature then "
                        "counts references per segment, nrefs:var) instead of an empty reference, as sacrebleu does")
    parser.add_argument("--explain", type=int, metavar="N",
                        help="explain the sentence BLEU of segment N (1 = first line)")
    parser.add_argument("--compare", metavar="HYP2",
                        help="test HYP2 (system) against HYP (baseline) with a paired significance test: approximate "
                        "randomization unless --paired-bs is given")
    parser.add_argument("--paired-ar", "-par", action="store_true",
                        help="with --compare: paired approximate randomization, ties counted (Noreen 1989); the "
                        "default test when neither --paired-ar nor --paired-bs is given")
    parser.add_argument("--paired-bs", "-pbs", action="store_true",
                        help="with --compare: paired bootstrap resampling (Koehn 2004), 95%% intervals, win rate and "
                        "the two-sided shift p-value; give both flags to run both tests")
    parser.add_argument("--samples", type=int, default=None, metavar="N",
                        help=f"bootstrap resamples (default {DEFAULT_SAMPLES})")
    parser.add_argument("--trials", type=int, default=None, metavar="N",
                        help=f"approximate randomization trials (default {DEFAULT_TRIALS})")
    parser.add_argument("--seed", type=int, default=12345, help="random seed of the paired tests (default 12345)")
    parser.add_argument("--progress", action="store_true", help="show progress bars for the paired tests")
    return parser


def main(argv: Sequence[str] | None = None, prog: str = "bleu-lab") -> int:
    """Run the command line; return the exit code (0, or 2 after printing a one-line error)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in LESSONS_COMMANDS and (refused := require_lessons(argv[0], prog)):
        return refused
    if argv and argv[0] in CLASSROOM_COMMANDS:  # instructors' subcommands, before the scoring parser
        from .assignments.cli import main as assignments_main

        return assignments_main(argv, prog)
    if argv and argv[0] in COURSE_COMMANDS:  # the student's working copy of the lessons (bleu_lab.course)
        from .course import main as course_main

        return course_main(argv, prog)
    if argv and argv[0] == "why":  # which reading of BLEU gives a reported number (bleu_lab.readings.cli)
        from .readings.cli import main as why_main

        return why_main(argv, prog)
    if argv and argv[0] == "compare":  # compare systems' outputs (bleu_lab.compare.cli)
        from .compare.cli import main as compare_main

        return compare_main(argv[1:], f"{prog} compare")
    if argv and argv[0] == "hub":  # a probe login to the running hub, as root on its server (bleu_lab.hub.probe)
        from .hub.probe import main as hub_main

        return hub_main(argv[1:], prog)
    if argv and argv[0] == "classroom":
        from .course.classroom import main as classroom_main

        return classroom_main(argv[1:], prog)
    return run_with_clear_errors(run, build_parser(prog).parse_args(argv), prog)


def _print(text: object, nrefs: int) -> None:
    """Print a result; with several reference files the signature counts the files, as sacrebleu's does (a blank
    line in one of them is a missing reference for that segment, not one reference fewer for the corpus)."""
    text = str(text)
    if nrefs > 1:
        text = re.sub(r"nrefs:[^|\s]+", f"nrefs:{nrefs}", text)
    print(text)


def run(args: argparse.Namespace) -> None:
    """Read the files, print the score, then the explanation and the paired tests when asked."""
    for flag, value, least in (("--samples", args.samples, 1), ("--trials", args.trials, 1), ("--seed", args.seed, 0)):
        if value is not None and value < least:
            raise ValueError(f"{flag} must be >= {least}, got {value}")
    if (args.paired_ar or args.paired_bs) and args.compare is None:
        flag = "--paired-ar" if args.paired_ar else "--paired-bs"
        raise ValueError(f"{flag} needs --compare HYP2: the system file to test against {args.hypothesis}")
    hyps = read_lines(args.hypothesis, "hypothesis")
    if not hyps:
        raise ValueError(f"hypothesis file {args.hypothesis} is empty: nothing to score")
    several = len(args.references) > 1
    roles = [f"reference {i}" if several else "reference" for i in range(1, 1 + len(args.references))]
    streams = [read_lines(path, role) for path, role in zip(args.references, roles)]
    for path, role, lines in zip(args.references, roles, streams):
        _check_count(path, role, lines, args.hypothesis, hyps)
    warning = tokenizer_warning((line for lines in streams for line in lines), args.tokenize)
    if warning:
        warnings.warn(warning, stacklevel=2)
    references = _references(args, streams)
    options = {"tokenize": args.tokenize, "lowercase": args.lowercase, "smooth_method": args.smooth,
               "smooth_value": args.smooth_value}
    if args.explain is not None and not 1 <= args.explain <= len(hyps):
        raise ValueError(f"--explain {args.explain} is out of range: {args.hypothesis} has segments 1 to {len(hyps)}")
    score = corpus_score(hyps, references, **options)
    if not math.isfinite(score.score):
        raise ValueError(f"--smooth-value {args.smooth_value:g} is too large: the score overflows ({score.score}); "
                         f"{args.smooth} smoothing adds a small count, e.g. --smooth-value 1")
    nrefs = 0 if args.drop_empty_refs else len(streams)  # 0: the signature's own count (nrefs:var where it varies)
    if args.compare is not None:
        _compare(args, hyps, references, options, nrefs)
    else:
        _print(score, nrefs)
        _print(f"signature: {score.signature}", nrefs)
    if args.explain is not None:
        _explain(args, hyps, references)


def _references(args: argparse.Namespace, streams: list[list[str]]) -> list[list[str]]:
    """Each segment's references, reading empty reference lines as sacrebleu's command line does (or dropping them
    with --drop-empty-refs), with a note per file that has empty lines.

    sacrebleu 2.6.0 keeps an empty line as the reference '': its command line reads every reference line with
    ``line = line.rstrip()`` (sacrebleu/sacrebleu.py), and ``BLEU._cache_references`` removes only ``None``:
    ``# Remove undefined references`` / ``lines = [x for x in refs if x is not None]`` (sacrebleu/metrics/base.py).
    An empty reference has length 0 and no n-grams, but its length can be the closest one for the brevity penalty.
    """
    note_empty_reference_lines(args.references, streams, dropped=args.drop_empty_refs)
    if not args.drop_empty_refs:
        return [list(refs) for refs in zip(*streams)]
    references = references_per_segment(streams)
    bare = sum(1 for seg in references if not any(r.strip() for r in seg))
    if bare and len(streams) > 1:
        print(f"note: {bare} segments have no reference in any file and are scored against an empty reference",
              file=sys.stderr)
    return references


def _explain(args: argparse.Namespace, hyps: list[str], references: list[list[str]]) -> None:
    i = args.explain - 1
    print(f"\nSegment {args.explain} (line {args.explain} of {args.hypothesis}), sentence BLEU step by step:\n")
    print(terminal_safe(str(explain(references[i], hyps[i], smoothing=args.smooth, tokenize=args.tokenize,
                                    lowercase=args.lowercase, smooth_value=args.smooth_value))))


def terminal_safe(text: str) -> str:
    """``text`` with the characters a terminal would obey or reorder (control characters such as ESC and CR, line
    separators, bidirectional overrides and isolates) written as escapes (``\\x1b``, ``\\r``, ``\\u202e``);
    newlines and tabs stay, and so does every printable character (joiners included)."""
    return "".join(ascii(ch)[1:-1] if _obeyed_by_terminals(ch) else ch for ch in text)


def _obeyed_by_terminals(ch: str) -> bool:
    return ch not in "\n\t" and (unicodedata.category(ch) in ("Cc", "Zl", "Zp") or ch in BIDI_CONTROLS)


BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _compare(args: argparse.Namespace, hyps: list[str], references: list[list[str]], options: dict,
             nrefs: int) -> None:
    """The test(s) the flags ask for (approximate randomization when none does), or why there is nothing to test."""
    system = read_lines(args.compare, "hypothesis")
    _check_count(args.compare, "hypothesis", system, args.hypothesis, hyps)
    if system == hyps:  # no shuffle or resample can tell two copies of one output apart
        score = corpus_score(hyps, references, **options)
        _print(f"baseline: {args.hypothesis}\n  {score}\nsystem:   {args.compare}\n  {score}", nrefs)
        _print(f"signature: {score.signature}\n", nrefs)
        print("identical outputs: nothing to test")
        return
    run_ar, run_bs = args.paired_ar or not args.paired_bs, args.paired_bs
    for flag, value, runs, test in (("--trials", args.trials, run_ar, "--paired-ar"),
                                    ("--samples", args.samples, run_bs, "--paired-bs")):
        if value is not None and not runs:
            print(f"note: {flag} is for {test}, which is not running (add {test} to run it)", file=sys.stderr)
    common = {"seed": args.seed, "progress": args.progress, **options}
    results = []
    try:
        if run_ar:
            results.append(paired_randomization(hyps, system, references, n_trials=args.trials or DEFAULT_TRIALS,
                                                **common))
        if run_bs:
            results.append(paired_bootstrap(hyps, system, references, n_samples=args.samples or DEFAULT_SAMPLES,
                                            method="shift", **common))
    except TooManyDraws as err:  # in this command's words: its flags, not the functions' arguments
        raise ValueError(err.in_flags()) from None
    first = results[0]
    _print(f"baseline: {args.hypothesis}\n  {first.baseline}", nrefs)
    _print(f"system:   {args.compare}\n  {first.system}", nrefs)
    _print(f"signature: {first.baseline.signature}", nrefs)
    seed = f" with SACREBLEU_SEED={args.seed}" if args.seed != 12345 else ""
    for result in results:
        print()
        _print(result, nrefs)
        if isinstance(result, RandomizationResult) and result.ties:
            print(f"  sacrebleu --paired-ar{seed} prints p = {result.p_value_as('sacrebleu'):.4f} for these trials: "
                  f"it does not count the {result.ties} that tie the observed gap")
        elif isinstance(result, BootstrapResult):
            print(f"  {result.sacrebleu_note()}")


def _check_count(path: str, what: str, lines: list[str], hyp_path: str, hyps: list[str]) -> None:
    if len(lines) != len(hyps):
        raise line_count_error(f"{what} file {path}", lines, f"hypothesis file {hyp_path}", hyps)
