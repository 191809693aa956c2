"""Benchmark: one playground update (callback + explain view + both figures redrawn), driven from Python.

A 50-token hypothesis against 4 references, a fresh hypothesis on every update (as when a student types).
Prints p50 and p95 over the runs and whether p95 <= 100 ms (the issue's target).

    .venv/bin/python benchmarks/bench_playground.py [--runs 200]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from bleu_lab.course.widgets import playground

TARGET_MS = 100.0
VOCAB = ("the a cat dog sat on mat is there of to and in it that was for with as his her they "
         "at by this from had not but be have are were which one all said").split()


def sentence(rng: random.Random, n: int) -> str:
    """A random sentence of ``n`` tokens over a small vocabulary (so n-grams of every order match)."""
    return " ".join(rng.choice(VOCAB) for _ in range(n))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--tokens", type=int, default=50)
    parser.add_argument("--refs", type=int, default=4)
    args = parser.parse_args()

    rng = random.Random(0)
    refs = [sentence(rng, args.tokens + rng.randint(-5, 5)) for _ in range(args.refs)]
    hyps = [sentence(rng, args.tokens) for _ in range(args.runs + 10)]
    pg = playground(hyps[0], refs)
    for hyp in hyps[:10]:  # warm up: figures, tokenizer, caches
        pg.hypothesis.value = hyp
    times = []
    for hyp in hyps[10:]:
        start = time.perf_counter()
        pg.hypothesis.value = hyp  # fires the observer: model, explain HTML, both PNGs, widget values
        times.append((time.perf_counter() - start) * 1000)
        assert pg.bars_image.value and "bleu-explain" in pg.output.value

    times.sort()
    p50 = statistics.median(times)
    p95 = times[min(len(times) - 1, round(0.95 * len(times)) - 1)]
    print(f"playground update, {args.tokens}-token hypothesis, {args.refs} references, {args.runs} runs "
          "(explain + HTML + bar chart + BP curve):")
    print(f"  p50 = {p50:.1f} ms   p95 = {p95:.1f} ms   max = {times[-1]:.1f} ms")
    print(f"  p95 <= {TARGET_MS:.0f} ms: {'yes' if p95 <= TARGET_MS else 'NO'}")


if __name__ == "__main__":
    main()
