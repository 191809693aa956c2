#!/usr/bin/env python3
"""Write newstest2021_en-de_segment_metrics.tsv: sentence BLEU and chrF of every MQM-rated segment.

For each of the eight WMT21 English→German systems that Google's experts rated with MQM, and each of the 527
segments they rated, sacrebleu's sentence BLEU (tokenizer 13a, exp smoothing, effective order: what
``sacrebleu.sentence_bleu`` computes) and chrF2 (``sacrebleu.sentence_chrf``) against reference C, computed with
bleu_lab (``bleu_lab.metrics.published_scores.segment_metrics_from_text``, equal to sacrebleu's:
tests/test_segment_scores.py) from the WMT21 files, whose SHA-256 are checked first. The WMT21 text is not shipped;
these numbers are.

Usage (from the repository root, with the WMT21 files in $BLEU_LAB_MTDATA/en-de/):

    python data/wmt21/make_segment_metrics.py --mtdata "$BLEU_LAB_MTDATA"           # (re)write the file
    python data/wmt21/make_segment_metrics.py --mtdata "$BLEU_LAB_MTDATA" --check   # exit 1 if it differs
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))  # this checkout's bleu_lab

from bleu_lab.metrics.published_scores import (  # noqa: E402
    load_segment_metrics,
    segment_metrics_from_text,
    write_segment_metrics,
)

TARGET = HERE / "newstest2021_en-de_segment_metrics.tsv"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mtdata", default=os.environ.get("BLEU_LAB_MTDATA"),
                        help="folder holding en-de/ with the WMT21 files (default: $BLEU_LAB_MTDATA)")
    parser.add_argument("--check", action="store_true", help="compare with the shipped file instead of writing it")
    args = parser.parse_args(argv)
    if not args.mtdata:
        parser.error("--mtdata (or BLEU_LAB_MTDATA) must name the folder holding en-de/ with the WMT21 files")
    rows = segment_metrics_from_text(args.mtdata)
    if not args.check:
        write_segment_metrics(rows, TARGET)
        print(f"wrote {len(rows)} rows to {TARGET}")
        return 0
    # Equal to the last bits is too strict across Pythons: 3.12's sum() of floats compensates rounding (3.11's does
    # not), so a score may differ in its 16th digit. Equal within 1e-9 points, as the sacrebleu cross-check asks.
    shipped = load_segment_metrics() if TARGET.is_file() else []
    same = len(shipped) == len(rows) and all(
        (a.system, a.segment) == (b.system, b.segment) and math.isclose(a.bleu, b.bleu, abs_tol=1e-9)
        and math.isclose(a.chrf, b.chrf, abs_tol=1e-9) for a, b in zip(rows, shipped))
    print(f"{TARGET.name}: {'up to date' if same else 'DIFFERS from a fresh computation'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
