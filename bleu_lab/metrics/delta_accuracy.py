"""How big is a difference? How often a system-level difference of a given size agrees with people.

Kocmi, Zouhar, Federmann and Post (2024, "Navigating the Metrics Maze", https://aclanthology.org/2024.acl-long.110)
fitted, for each metric, how often the metric's preference between two systems agrees with human judgements as a
function of the size of the difference Delta (in the metric's points):

    estimated accuracy(Delta) = a / (1 + exp(-b * |Delta|)) / 100

with ``a`` and ``b`` per metric, read from ``data/kocmi2024/delta_accuracy_fits.tsv`` (their published parameters;
its README says where from). It is an estimate over the authors' pairs of systems, not a property of one test set:
shown beside a difference, never in place of a significance test. Below 50% the fit says no more than a coin toss.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from functools import cache
from numbers import Real
from pathlib import Path

from ..data import corpus_dir

FITS_FILE = Path("kocmi2024") / "delta_accuracy_fits.tsv"
COIN_TOSS = 0.5


@dataclass(frozen=True)
class DeltaFit:
    """One metric's published fit: accuracy = a / (1 + exp(-b |Delta|)) percent, Delta measured on ``scale``."""

    metric: str
    scale: str  # '0-100' (as sacrebleu prints BLEU and chrF), 'x100' (a 0-1 metric times 100), or 'as published'
    a: float
    b: float

    def accuracy(self, delta: float) -> float:
        """The estimated accuracy (0-1) of a difference of ``delta`` points (its sign does not matter)."""
        return self.a / (1.0 + math.exp(-self.b * abs(delta))) / 100.0

    def delta(self, accuracy: float) -> float | None:
        """The difference whose estimated accuracy is ``accuracy`` (0.5-1), or None where the fit never reaches it."""
        ratio = self.a / (100.0 * accuracy) - 1.0
        return -math.log(ratio) / self.b if ratio > 0 else None


@cache
def delta_fits() -> dict[str, DeltaFit]:
    """Every published fit, keyed by the metric's name in lower case ('bleu', 'chrf', 'comet-22', ...)."""
    path = corpus_dir() / FITS_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: the data/ folder comes with the bleu_lab repository")
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return {row["metric"].lower(): DeltaFit(row["metric"], row["scale"], float(row["a"]), float(row["b"]))
            for row in rows}


def fit_for(metric: str) -> DeltaFit | None:
    """The published fit of ``metric`` (case does not matter), or None for a metric the paper did not fit."""
    if not isinstance(metric, str):
        raise TypeError(f"metric must be a metric's name (str), not {type(metric).__name__}")
    return delta_fits().get(metric.strip().lower())


def estimated_accuracy(delta: float, metric: str) -> float | None:
    """How often a difference of ``delta`` points in ``metric`` agrees with people (0-1), per Kocmi et al. 2024;
    None for a metric they did not fit (bleu_lab then shows nothing)."""
    if isinstance(delta, bool) or not isinstance(delta, Real) or not math.isfinite(delta):
        raise ValueError(f"delta must be a finite number of the metric's points, not {delta!r}")
    fit = fit_for(metric)
    return None if fit is None else fit.accuracy(float(delta))


def describe_accuracy(accuracy: float | None) -> str:
    """'73%', 'a coin toss' below 50%, or '' for no estimate: how reports print an estimated accuracy."""
    if accuracy is None:
        return ""
    return "a coin toss" if accuracy < COIN_TOSS else f"{accuracy:.0%}"
