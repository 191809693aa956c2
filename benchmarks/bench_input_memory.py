"""Peak memory of the command line (`bleu-lab HYP REF`) against sacrebleu's (`sacrebleu REF -i HYP`) on big input.

The README promises that input the command line accepts fits in memory: files are read a line at a time, at most
MAX_INPUT_BYTES (256 MB) and MAX_SEGMENTS (1,000,000 lines) each. Memory grows with the number of segments for
short lines and with the bytes for long ones, so two kinds of input are scored, hypothesis = reference:

  short   "a b" per line (4 bytes a segment: the most segments per MB)
  long    the shipped news corpus's German sentences, repeated (about 130 bytes a segment)

For each, the peak resident memory of a fresh process (ru_maxrss), minus that of the bare import, is measured at two
sizes; the line through them (MB of RAM per MB of input, plus what a run takes whatever its size: the segments
counted at once, ``statistics.CHUNK``) is extrapolated to the bounds. The sizes are small by default so that a run
takes a minute or two on a shared 2-core machine.

    .venv/bin/python benchmarks/bench_input_memory.py [--short-mb 0.5 1] [--long-mb 2 4]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import REPO

from bleu_lab.data import MAX_INPUT_BYTES, MAX_SEGMENTS

NEWS = REPO / "data" / "news" / "ref.A.de"


def peak_mb(command: list[str]) -> float:
    """The peak RSS in MB of ``command`` run in a process of its own (measured by a helper that runs only it)."""
    probe = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    done = subprocess.run([sys.executable, "-c", probe, *command], capture_output=True, text=True, check=True)
    return int(done.stdout) / 1024  # Linux reports KiB


def write_input(folder: Path, kind: str, megabytes: float) -> tuple[Path, int]:
    """A file of about ``megabytes`` MB of ``kind`` lines; its path and number of lines."""
    line = b"a b\n" if kind == "short" else None
    lines = [line] if line else [s + b"\n" for s in NEWS.read_bytes().splitlines() if s.strip()]
    target, written, count = int(megabytes * 2**20), 0, 0
    path = folder / f"{kind}-{megabytes}.txt"
    with path.open("wb") as out:
        while written < target:
            chunk = lines[count % len(lines)]
            out.write(chunk)
            written, count = written + len(chunk), count + 1
    return path, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short-mb", type=float, nargs="+", default=[0.5, 1.0])
    parser.add_argument("--long-mb", type=float, nargs="+", default=[2.0, 4.0])
    args = parser.parse_args()
    bin_dir = Path(sys.executable).parent
    ours_base = peak_mb([sys.executable, "-c", "import bleu_lab.cli"])
    theirs_base = peak_mb([sys.executable, "-c", "import sacrebleu.sacrebleu"])
    print(f"bare import: bleu-lab {ours_base:.0f} MB, sacrebleu {theirs_base:.0f} MB (subtracted below)")
    print(" kind   input MB  segments  bleu-lab MB  sacrebleu MB  ratio  bleu-lab MB per input MB")
    measured: dict[str, list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-input-") as tmp:
        for kind, sizes in (("short", args.short_mb), ("long", args.long_mb)):
            for megabytes in sizes:
                path, count = write_input(Path(tmp), kind, megabytes)
                ours = peak_mb([sys.executable, "-m", "bleu_lab", str(path), str(path)]) - ours_base
                theirs = peak_mb([str(bin_dir / "sacrebleu"), str(path), "-i", str(path), "-f", "text"]) - theirs_base
                measured.setdefault(kind, []).append((megabytes, ours))
                print(f" {kind:<6} {megabytes:8.1f}  {count:8d}  {ours:11.0f}  {theirs:12.0f}  {ours / theirs:5.2f}"
                      f"  {ours / megabytes:8.0f}")
    short_mb = MAX_SEGMENTS * 4 / 2**20  # the most segments: "a b" lines up to the segment bound
    long_mb = MAX_INPUT_BYTES / 2**20
    short, long = line_through(measured["short"]), line_through(measured["long"])
    print(f"Per MB of input (the slope between the sizes): short {short[0]:.0f} MB, long {long[0]:.0f} MB")
    print(f"At the bounds (extrapolated on that line; hypothesis and reference both that size):\n"
          f"  {MAX_SEGMENTS:,} short segments ({short_mb:.1f} MB): about {short[1] + short[0] * short_mb:.0f} MB\n"
          f"  {long_mb:.0f} MB of long lines: about {(long[1] + long[0] * long_mb) / 1024:.1f} GB")


def line_through(points: list[tuple[float, float]]) -> tuple[float, float]:
    """(slope, intercept) of the line through the first and last (input MB, memory MB) points."""
    (x1, y1), (x2, y2) = points[0], points[-1]
    slope = (y2 - y1) / (x2 - x1) if x2 != x1 else y2 / x2
    return slope, y1 - slope * x1


if __name__ == "__main__":
    main()
