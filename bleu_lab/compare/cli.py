"""``bleu-lab compare``: compare systems' output files on one test set, from the command line.

    bleu-lab compare --refs ref.A.de --systems sys.strong.de sys.fluent.de --names strong fluent
    bleu-lab compare --refs ref.A ref.B --systems base new --json report.json --html report.html --csv tables/

Files are UTF-8 text, one segment per line, line i of every file belonging to segment i. With several reference
files an empty line means "no reference for this segment". Errors print one line and exit with status 2.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence

from ..commands import (
    add_version,
    check_output_file,
    check_output_folder,
    plots_missing_note,
    refuse_repeated_files,
    run_with_clear_errors,
)
from ..metrics.segment_scores import read_segment_scores
from ..metrics.significance import TooManyDraws
from ..metrics.ter import MAX_TER_WORDS
from ..scripts import tokenizer_warning
from ..tokenization import ALL_TOKENIZERS, OPTIONAL_TOKENIZERS, TOKENIZERS
from .comparison import TER_SECONDS, ThresholdOutOfReach, compare_systems
from .files import comparison_inputs, default_names, read_text_file


def build_parser(prog: str = "bleu-lab compare") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Compare two or more systems' outputs on one test set: BLEU (exact sacrebleu), chrF and, with "
        "--ter, TER; paired significance tests (approximate randomization and the paired bootstrap) on each of them "
        "for every pair of systems, read with Bonferroni's correction and Holm's adjusted p when there are more "
        "than two (with WMT-style clusters; too few --samples or --trials for the correction are raised, and said), "
        "word accuracy by frequency, buckets by length and by sentence BLEU, salient n-grams, and the segments where "
        "each system and the baseline differ most.",
        epilog="Example: bleu-lab compare --refs data/news/ref.A.de --systems data/news/sys.strong.de "
        "data/news/sys.fluent.de --names strong fluent --html report.html",
    )
    add_version(parser, "bleu-lab")
    parser.add_argument("--refs", nargs="+", required=True, metavar="REF", help="reference file(s)")
    parser.add_argument("--systems", nargs="+", required=True, metavar="SYS", help="system output files")
    parser.add_argument("--names", nargs="+", metavar="NAME", help="one name per system (default: the file names)")
    parser.add_argument("--baseline", metavar="NAME",
                        help="the system the others are set against in the scores table, the salient n-grams and the "
                        "examples (default: first; every pair is tested either way)")
    parser.add_argument("--source", metavar="SRC", help="source file, shown beside the examples")
    parser.add_argument("-t", "--tokenize", default="13a", choices=ALL_TOKENIZERS, metavar="TOK",
                        help=f"tokenizer: {', '.join(TOKENIZERS)}; {', '.join(OPTIONAL_TOKENIZERS)} "
                        f"with the mecab extra (default 13a; 'none' for pre-tokenized text)")
    parser.add_argument("-lc", "--lowercase", action="store_true", help="lowercase before tokenizing")
    parser.add_argument("--frequencies", metavar="FILE",
                        help="word<TAB>count file (e.g. training-set counts) for the word-frequency buckets "
                        "(default: counts in the first reference)")
    parser.add_argument("--samples", type=int, default=1000, metavar="N", help="bootstrap resamples (default 1000)")
    parser.add_argument("--trials", type=int, default=10000, metavar="N",
                        help="approximate randomization trials (default 10000)")
    parser.add_argument("--seed", type=int, default=12345, help="random seed (default 12345)")
    parser.add_argument("--alpha", type=float, default=1.0, help="smoothing of the salient n-gram scores (default 1)")
    parser.add_argument("--examples", type=int, default=10, metavar="N", help="examples per pair (default 10)")
    parser.add_argument("--no-chrf", action="store_true", help="skip chrF (the slowest score after TER)")
    parser.add_argument("--ter", action="store_true",
                        help="add TER (sacrebleu's default TER; lower is better): each system's corpus TER (edits "
                        "summed over reference words summed) and both paired tests on every pair, with the same draws "
                        "as BLEU's and Holm's adjusted p. Off by default: TER's edit distance with shifts takes about "
                        f"{TER_SECONDS} CPU seconds per system and reference file on 1,002 segments (WMT21 en-de; "
                        f"measured 3 to 6), and a segment of more than {MAX_TER_WORDS} words is refused")
    parser.add_argument("--scores", action="append", default=[], metavar="NAME=FILE[,FILE...]",
                        help="another metric's (or people's) score of every segment: one file in the long format "
                        "(system, score, segment id per line, separated by tabs, spaces or commas, as Google's MQM "
                        "release or a CSV file; an optional header line) or one file per system in "
                        "the order of --systems, one number per line; None = not rated. Repeat for more metrics; "
                        "each needs --higher-is-better NAME or --lower-is-better NAME")
    parser.add_argument("--higher-is-better", action="append", default=[], metavar="NAME",
                        help="the --scores metric NAME is better when higher (COMET, the MQM release's mqm_avg_score "
                        "as it stands)")
    parser.add_argument("--lower-is-better", action="append", default=[], metavar="NAME",
                        help="the --scores metric NAME is better when lower (MQM error points; the MQM release's "
                        "mqm_avg_score, minus the points, is then read as points)")
    parser.add_argument("--people", action="append", default=None, metavar="NAME",
                        help="the --scores metric NAME holds people's judgements (MQM, direct assessment): it gets "
                        "the people-against-the-metrics table, each system's score and rank by every metric (BLEU, "
                        "chrF, TER, each --scores) and by NAME, NAME's own significance clusters and every pair of "
                        "systems a metric and NAME order the opposite way, flagged where either side's paired "
                        "bootstrap (Holm) is significant. Repeat for more; default: every --scores metric (give "
                        "--people for the human ones when you also pass a learned metric such as COMET)")
    parser.add_argument("--json", metavar="FILE", help="write the whole report as JSON")
    parser.add_argument("--html", metavar="FILE", help="write the whole report as one standalone HTML page")
    parser.add_argument("--latex", metavar="FILE", help="write the scores table as LaTeX (and, with more than two "
                        "systems, every pair's tests)")
    parser.add_argument("--csv", metavar="DIR", help="write every table as a CSV file into DIR")
    return parser


def main(argv: Sequence[str] | None = None, prog: str = "bleu-lab compare") -> int:
    """Run ``bleu-lab compare``; return the exit code (0, or 2 after printing a one-line error)."""
    args = build_parser(prog).parse_args(sys.argv[1:] if argv is None else list(argv))
    return run_with_clear_errors(run, args, prog)


def run(args: argparse.Namespace) -> None:
    """Read and check the files, compare, print the summary and write the exports asked for."""
    if args.names is not None and len(args.names) != len(args.systems):
        raise ValueError(f"--names has {len(args.names)} names but --systems has {len(args.systems)} files: "
                         "give one name per system")
    refuse_repeated_files("--systems", args.systems)
    for flag, path in (("--json", args.json), ("--html", args.html), ("--latex", args.latex)):
        if path:
            check_output_file(flag, path)
    if args.csv:
        check_output_folder("--csv", args.csv)
    specs = score_specs(args.scores, args.higher_is_better, args.lower_is_better)
    for name in args.people or ():
        if name not in specs:
            raise ValueError(f"--people {name}: no --scores {name}=FILE to go with it (--people names the --scores "
                             "metrics that hold people's judgements)")
    inputs = comparison_inputs(
        args.names or default_names(args.systems),
        [read_text_file(p, "system") for p in args.systems],
        [read_text_file(p, "reference") for p in args.refs],
        read_text_file(args.source, "source") if args.source else None,
    )
    scores = {name: read_segment_scores(name, files, list(inputs.systems), len(inputs.references),
                                        higher_is_better=higher)
              for name, (files, higher) in specs.items()}
    warning = tokenizer_warning((r for seg in inputs.references for r in seg), args.tokenize)
    if warning:
        warnings.warn(warning, stacklevel=2)
    try:
        comparison = compare_systems(
            inputs.systems, inputs.references, tokenize=args.tokenize, lowercase=args.lowercase,
            baseline=args.baseline, sources=inputs.sources, frequencies=args.frequencies, n_samples=args.samples,
            n_trials=args.trials, seed=args.seed, alpha=args.alpha, n_examples=args.examples, chrf=not args.no_chrf,
            scores=scores or None, ter=args.ter, people=args.people,
        )
    except (TooManyDraws, ThresholdOutOfReach) as err:  # in this command's words: its flags, not arguments
        raise ValueError(err.in_flags()) from None
    print(comparison)
    for flag, value, write in (("--json", args.json, comparison.to_json), ("--html", args.html, comparison.to_html),
                               ("--latex", args.latex, comparison.to_latex), ("--csv", args.csv, comparison.to_csv)):
        if value:
            write(value)
            print(f"wrote {value} ({flag[2:]})", file=sys.stderr)
            if flag == "--html" and (note := plots_missing_note()):  # the page says it too, where its figures would be
                print(f"note: {value} has no figures. {note}", file=sys.stderr)


def score_specs(specs: Sequence[str], higher: Sequence[str], lower: Sequence[str]) -> dict[str, tuple[list[str], bool]]:
    """--scores NAME=FILE[,FILE...] with each metric's direction: {name: (files, higher_is_better)}, checked."""
    result: dict[str, tuple[list[str], bool]] = {}
    for spec in specs:
        name, sep, files = spec.partition("=")
        if not sep or not name.strip() or not files.strip():
            raise ValueError(f"--scores {spec!r}: expected NAME=FILE (or NAME=FILE1,FILE2,... one file per system)")
        if name in result or name in ("BLEU", "chrF"):
            raise ValueError(f"--scores {name}: {'given twice' if name in result else 'that name is taken'}; give each "
                             "metric its own name")
        both = name in higher and name in lower
        if both or (name not in higher and name not in lower):
            raise ValueError(f"--scores {name}: say which way it goes, with exactly one of --higher-is-better {name} "
                             f"or --lower-is-better {name} (MQM error points: lower is better; COMET: higher)")
        result[name] = ([f for f in files.split(",") if f], name in higher)
    for flag, names in (("--higher-is-better", higher), ("--lower-is-better", lower)):
        stray = [n for n in names if n not in result]
        if stray:
            raise ValueError(f"{flag} {stray[0]}: no --scores {stray[0]}=FILE to go with it")
    return result
