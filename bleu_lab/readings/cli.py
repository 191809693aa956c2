"""``bleu-lab why HYP REF [REF ...] --reported 27.3``: which reading of BLEU gives a reported number on these files.

Files are UTF-8, one segment per line, as for ``bleu-lab HYP REF``; with several reference files an empty line means
"no reference for this segment". Prints the readings that reproduce the number (closest first) or the nearest ones,
then the input mistakes it can see. Errors print one line and exit with 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..data import line_count_error, read_lines, references_per_segment
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
        result = why(hyps, references_per_segment(streams), args.reported, tolerance=args.tolerance)
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
