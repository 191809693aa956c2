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
from ..metrics.segment_scores import long_separator, rated_segments
from .why import REALIGN_FROM, alignment_hint, why

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
    parser.add_argument("--segments", action="append", default=[], metavar="FILE",
                        help="a subset of the segments the number may have been computed on (repeatable): 1-based "
                        "segment numbers, one per line, or a segment-scores file in the long format (system, score, "
                        "segment id; e.g. the MQM release: the segments it rates)")
    parser.add_argument("--all", action="store_true", help="also list every reading with its score")
    return parser


def main(argv: Sequence[str], prog: str = "bleu-lab") -> int:
    """Run ``bleu-lab why ...`` (``argv`` starts with 'why'); return the exit code."""
    args = build_parser(f"{prog} why").parse_args(list(argv)[1:])
    try:
        hyps = read_lines(args.hypothesis, "hypothesis")
        streams = [read_lines(path, "reference") for path in args.references]
        for path, lines in zip(args.references, streams):
            if len(lines) != len(streams[0]):
                raise ValueError(line_count_error(f"reference file {path}", lines,
                                                  f"reference file {args.references[0]}", streams[0]))
            if len(lines) != len(hyps) and (abs(len(lines) - len(hyps)) > 1 or
                                            min(len(lines), len(hyps)) < REALIGN_FROM):  # else why pairs them
                err = line_count_error(f"reference file {path}", lines, f"hypothesis file {args.hypothesis}", hyps)
                raise ValueError(f"{err}{alignment_hint(hyps, [[line] for line in lines])}")
        note_empty_reference_lines(args.references, streams, drop_option=None)
        names = reference_names(args.references)
        subsets = {Path(path).name: segment_numbers(path, len(streams[0])) for path in args.segments}
        result = why(hyps, [list(refs) for refs in zip(*streams)], args.reported, tolerance=args.tolerance,
                     reference_names=names, segments=subsets)
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


def segment_numbers(path: str, segments: int) -> list[int]:
    """The 1-based segment numbers file ``path`` names: one per line, or the segments a long-format scores file
    (``segment_scores``) rates for any system."""
    lines = read_lines(path, "segments")
    if long_separator(lines) is not None:
        return rated_segments(lines, segments, path)
    numbers = []
    for number, line in enumerate(lines, 1):
        if line.strip():
            if not line.strip().isdigit():
                raise ValueError(f"segments file {path}, line {number}: expected a segment number (1 to {segments}) "
                                 f"or a scores file in the long format, got {line[:40]!r}")
            numbers.append(int(line))
    return numbers


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
