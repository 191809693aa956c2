#!/usr/bin/env python3
"""Build the two *derived* toy MT systems of the bleu_lab news corpus.

The hand-written files in this folder are the inputs:

    ref.A.de        first German reference (one segment per line)
    sys.strong.de   the hand-written "strong" system

and this script writes the two derived systems next to them:

    sys.degraded.de  the strong system with words dropped and segments cut
                     short (a handful of segments reduced to a single word).
                     Lesson: the brevity penalty.
    sys.salad.de     reference-A chunks of 2-4 tokens in scrambled order.
                     Unreadable, yet it scores well on BLEU.
                     Lesson: BLEU can be gamed.

Everything is deterministic: every line gets its own ``random.Random`` seeded
with an integer derived from the fixed ``SEED`` and the line number, so the
output is byte-identical on every run, Python version and platform (the
integer-seeded Mersenne Twister and ``Random.random``/``Random.randint``/
``Random.shuffle`` are stable). Only the standard library is used.

Usage (from anywhere):

    python data/news/make_derived_systems.py           # (re)write both files
    python data/news/make_derived_systems.py --check   # exit 1 if out of date
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 20240607

# --- degraded system -------------------------------------------------------
P_ONE_WORD = 0.05  # segment collapses to its first word
P_TRUNCATE = 0.45  # segment is cut after 30-60 % of its words
KEEP_MIN, KEEP_MAX = 0.30, 0.60
P_DROP_WORD = 0.20  # otherwise: each word is dropped with this probability

# --- salad system ----------------------------------------------------------
CHUNK_MIN, CHUNK_MAX = 2, 3  # length of the reference chunks, in tokens


def read_lines(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    if not text.endswith("\n"):
        raise SystemExit(f"{path.name}: last line has no newline")
    return text[:-1].split("\n")


def line_rng(kind: int, lineno: int) -> random.Random:
    """A private generator per (system, line): edits to one line never
    change the randomness used for another."""
    return random.Random(SEED * 1_000_003 + kind * 10_007 + lineno)


def degrade(line: str, lineno: int) -> str:
    rng = line_rng(1, lineno)
    words = line.split()
    roll = rng.random()
    if roll < P_ONE_WORD:
        out = words[:1]
    elif roll < P_ONE_WORD + P_TRUNCATE:
        keep = round(len(words) * (KEEP_MIN + (KEEP_MAX - KEEP_MIN) * rng.random()))
        out = words[: max(1, keep)]
    else:
        out = [w for w in words if rng.random() >= P_DROP_WORD] or words[:1]
    return " ".join(out)


def salad(line: str, lineno: int) -> str:
    rng = line_rng(2, lineno)
    words = line.split()
    chunks: list[list[str]] = []
    i = 0
    while i < len(words):
        size = rng.randint(CHUNK_MIN, CHUNK_MAX)
        chunks.append(words[i : i + size])
        i += size
    if len(chunks) == 1:
        # Too short to scramble chunks (headlines): scramble the words.
        chunks = [[w] for w in chunks[0]]
    original = [list(c) for c in chunks]
    if len(chunks) > 1:
        rng.shuffle(chunks)
        if chunks == original:  # never leave a segment in its readable order
            chunks.reverse()
    return " ".join(w for c in chunks for w in c)


def build() -> dict[str, str]:
    ref = read_lines(HERE / "ref.A.de")
    strong = read_lines(HERE / "sys.strong.de")
    if len(ref) != len(strong):
        raise SystemExit("ref.A.de and sys.strong.de differ in line count")
    degraded = [degrade(s, n) for n, s in enumerate(strong, 1)]
    scrambled = [salad(r, n) for n, r in enumerate(ref, 1)]
    return {
        "sys.degraded.de": "\n".join(degraded) + "\n",
        "sys.salad.de": "\n".join(scrambled) + "\n",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check",
        action="store_true",
        help="do not write; exit 1 if a derived file is missing or differs",
    )
    args = parser.parse_args(argv)
    stale = []
    for name, text in build().items():
        path = HERE / name
        data = text.encode("utf-8")
        if args.check:
            if not path.exists() or path.read_bytes() != data:
                stale.append(name)
        else:
            path.write_bytes(data)
    if stale:
        print("out of date:", ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
