"""Speed of the paired significance tests against sacrebleu's PairedTest, on WMT21 en-de (1002 segments).

    .venv/bin/python benchmarks/bench_significance.py [--rounds 7]

Baseline Facebook-AI vs system UEdin, with reference A and with references A, C, D. Both libraries start
from raw text (tokenization and statistics included on both sides; every round builds fresh sacrebleu
objects, so neither side reuses the other's tokenizer caches) and run the same test with the same seed:
paired bootstrap with 1000 resamples, approximate randomization with 10000 trials (method="sacrebleu", its
count of the trials; the default, which also counts ties, costs the same). The results are checked equal before
timing. Rounds alternate the contenders; medians of wall time and of CPU time are printed
(CPU time is steadier on a shared machine). Target: bleu_lab <= 0.5x sacrebleu in wall time, for both tests.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import time
from collections.abc import Callable

from _common import wmt21_en_de
from sacrebleu.metrics import BLEU
from sacrebleu.significance import PairedTest

from bleu_lab.metrics.significance import paired_bootstrap, paired_randomization

SEED = 12345
TARGET = 0.5
TESTS = {"bootstrap (1000 resamples)": ("bs", 1000), "randomization (10000 trials)": ("ar", 10000)}


def sacrebleu_test(baseline, system, streams, test_type: str, n: int):
    """sacrebleu's paired test on two systems: (baseline result, system result)."""
    _, scores = PairedTest([("baseline", baseline), ("system", system)], {"BLEU": BLEU()}, streams,
                           test_type=test_type, n_samples=n)()
    return scores["BLEU"]


def bleu_lab_test(baseline, system, references, test_type: str, n: int):
    if test_type == "bs":
        return paired_bootstrap(baseline, system, references, n_samples=n, seed=SEED)
    return paired_randomization(baseline, system, references, n_trials=n, seed=SEED, method="sacrebleu")


def check_equal(ours, theirs, test_type: str) -> None:
    base, sys_ = theirs
    assert ours.p_value == sys_.p_value, (ours.p_value, sys_.p_value)
    assert ours.system.score == sys_.score and ours.baseline.score == base.score
    if test_type == "bs":
        for a, b in ((ours.baseline_mean, base.mean), (ours.baseline_ci, base.ci), (ours.system_mean, sys_.mean),
                     (ours.system_ci, sys_.ci)):
            assert abs(a - b) <= 1e-9, (a, b)


def interleaved(contenders: dict[str, Callable[[], object]], rounds: int) -> dict[str, tuple[float, float]]:
    """Median (wall, cpu) seconds of each contender, run alternately once per round."""
    wall: dict[str, list[float]] = {name: [] for name in contenders}
    cpu: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, fn in contenders.items():
            gc.collect()
            w, c = time.perf_counter(), time.process_time()
            fn()
            cpu[name].append(time.process_time() - c)
            wall[name].append(time.perf_counter() - w)
    return {name: (statistics.median(wall[name]), statistics.median(cpu[name])) for name in contenders}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="interleaved repetitions per contender (default 7)")
    rounds = parser.parse_args().rounds
    os.environ["SACREBLEU_SEED"] = str(SEED)  # sacrebleu reads its seed from the environment
    print(f"WMT21 en-de, baseline Facebook-AI vs system UEdin, seed {SEED}, {rounds} interleaved rounds")
    ok = True
    for refs in ("A", "ACD"):
        baseline, references = wmt21_en_de("Facebook-AI", refs)
        system, _ = wmt21_en_de("UEdin", refs)
        streams = [list(s) for s in zip(*references)]
        print(f"\nreferences {'+'.join(refs)} ({len(baseline)} segments)")
        for label, (test_type, n) in TESTS.items():
            ours = bleu_lab_test(baseline, system, references, test_type, n)
            check_equal(ours, sacrebleu_test(baseline, system, streams, test_type, n), test_type)
            medians = interleaved({
                "bleu_lab": lambda: bleu_lab_test(baseline, system, references, test_type, n),  # noqa: B023
                "sacrebleu": lambda: sacrebleu_test(baseline, system, streams, test_type, n),  # noqa: B023
            }, rounds)
            (ours_wall, ours_cpu), (peer_wall, peer_cpu) = medians["bleu_lab"], medians["sacrebleu"]
            ratio_wall, ratio_cpu = ours_wall / peer_wall, ours_cpu / peer_cpu
            met = ratio_wall <= TARGET
            ok &= met
            print(f"  {label:<30} p = {ours.p_value:.5f} (equal)  bleu_lab {ours_wall * 1000:7.1f} ms  "
                  f"sacrebleu {peer_wall * 1000:7.1f} ms  ratio {ratio_wall:.2f} wall, {ratio_cpu:.2f} cpu "
                  f"(target <= {TARGET})  {'OK' if met else 'MISSED'}")
    print("\nall targets met" if ok else "\nsome targets missed")


if __name__ == "__main__":
    main()
