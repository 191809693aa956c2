"""Shared helpers for the benchmarks: locating the WMT21 data and timing peers interleaved."""

from __future__ import annotations

import gc
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def mtdata_dir() -> Path:
    """$BLEU_LAB_MTDATA or ../shared/mtdata beside the repo; exits with a message when absent."""
    candidates = [os.environ.get("BLEU_LAB_MTDATA"), str(REPO.parent / "shared" / "mtdata")]
    for c in candidates:
        if c and Path(c).is_dir():
            return Path(c)
    sys.exit("benchmarks need the WMT21 test sets: set BLEU_LAB_MTDATA to shared/mtdata")


def read_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def wmt21_en_de(system: str = "Facebook-AI", refs: str = "ACD") -> tuple[list[str], list[list[str]]]:
    """Hypotheses and per-segment references of WMT21 en-de (1002 segments)."""
    d = mtdata_dir() / "en-de"
    hyps = read_lines(d / f"newstest2021.en-de.hyp.{system}.de")
    streams = [read_lines(d / f"newstest2021.en-de.ref.{r}.de") for r in refs]
    return hyps, [list(seg) for seg in zip(*streams)]


def interleaved_medians(contenders: dict[str, Callable[[], object]], rounds: int = 7) -> dict[str, float]:
    """Run each contender once per round, alternating, and return the median seconds of each."""
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, fn in contenders.items():
            gc.collect()
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(ts) for name, ts in times.items()}


def report(label: str, ours: float, peer: float, target: float, unit: str = "ms") -> bool:
    """Print one ratio line; return whether it meets the target."""
    ratio = ours / peer
    ok = ratio <= target
    scale = 1000 if unit == "ms" else 1 / 2**20
    print(f"{label:<58} bleu_lab {ours * scale:9.1f} {unit}  peer {peer * scale:9.1f} {unit}  "
          f"ratio {ratio:5.2f} (target <= {target})  {'OK' if ok else 'MISSED'}")
    return ok
