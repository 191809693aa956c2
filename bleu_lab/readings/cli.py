"""``bleu-lab why HYP REF [REF ...] --reported 27.3``: which reading of BLEU gives a reported number on these files.

Files are UTF-8, one segment per line, as for ``bleu-lab HYP REF``; an empty reference line is an empty reference, as
the scoring command and sacrebleu's command line read it. Prints the readings that reproduce the number (the one with
the fewest departures from its library's defaults first) or the nearest ones, then the input mistakes it can see, and
the readings it could not try. Errors print one line and exit with 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from ..commands import note_empty_reference_lines
from ..data import line_count_error, read_lines
from .why import alignment_hint, why

EXIT_ERROR = 2


def build_parser(prog: str = "bleu-lab why") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Find which library and setting reproduce a reported BLEU on these files: sacrebleu (every "
        "tokenizer, casing, smoothing, effective order), nltk (smoothing 0-7, BLEU-1..4, raw strings, before 3.4), "
        "Hugging Face evaluate, torchmetrics, multi-bleu.perl, d2l.ai, and common input mistakes.",
        epilog="Example: bleu-lab why data/news/sys.strong.de data/news/ref.A.de data/news/ref.B.de --reported 59.6",
    )
    parser.add_argument("hypothesis", metavar="HYP", help="hypothesis file (system output)")
    parser.add_argument("references", metavar="REF", nargs="+", help="reference file(s)")
    parser.add_argument("--reported", required=True, metavar="SCORE",
                        help="the BLEU to explain, e.g. 27.3 (0-100; a 0-1 number is recognized too)")
    parser.add_argument("--tolerance", type=float, default=None, metavar="T",
                        help="how far a reading may be from SCORE (default: half a unit of its last decimal)")
    parser.add_argument("--all", action="store_true", help="also list every reading with its score")
    return parser


def main(argv: Sequence[str], prog: str = "bleu-lab") -> int:
    """Run ``bleu-lab why ...`` (``argv`` starts with 'why'); return the exit code."""
    args = build_parser(f"{prog} why").parse_args(list(argv)[1:])
    try:
        hyps = read_lines(args.hypothesis, "hypothesis")
        streams = [read_lines(path, "reference") for path in args.references]
        for path, lines in zip(args.references, streams):
            if len(lines) != len(hyps):
                err = line_count_error(f"reference file {path}", lines, f"hypothesis file {args.hypothesis}", hyps)
                raise ValueError(f"{err}{alignment_hint(hyps, [[line] for line in lines])}")
        note_empty_reference_lines(args.references, streams, drop_option=None)
        names = reference_names(args.references)
        result = why(hyps, [list(refs) for refs in zip(*streams)], args.reported, tolerance=args.tolerance,
                     reference_names=names)
    except (OSError, ValueError, TypeError) as err:
        print(f"{prog} why: error: {err}", file=sys.stderr)
        return EXIT_ERROR
    print(result)
    if args.all:
        print("\nevery reading (0-100):")
        for reading in result.readings:
            score = "   n/a" if reading.score is None else f"{reading.score:8.2f}"
            print(f"  {score}  {reading.label()}")
    return 0


def reference_names(paths: Sequence[str]) -> list[str]:
    """Short names of the reference files: the part that differs between them (ref.A.de, ref.B.de -> A, B), else
    the file names, else the paths."""
    names = [Path(p).name for p in paths]
    if len(set(names)) != len(names):
        return list(paths)
    parts = [n.split(".") for n in names]
    if len({len(p) for p in parts}) == 1 and len(parts) > 1:
        differing = [i for i in range(len(parts[0])) if len({p[i] for p in parts}) > 1]
        if len(differing) == 1:
            return [p[differing[0]] for p in parts]
    return names
