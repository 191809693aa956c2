"""Shared test settings: hypothesis profiles and the optional WMT21 data from ../shared/mtdata."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "default", max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("BLEU_LAB_HYPOTHESIS_PROFILE", "default"))

warnings.filterwarnings("ignore", message=r"\nThe hypothesis contains 0 counts", category=UserWarning)


def mtdata_dir() -> Path | None:
    """The WMT21 test sets, from $BLEU_LAB_MTDATA (set by .ci/run); None on a student's clone."""
    path = os.environ.get("BLEU_LAB_MTDATA")
    return Path(path) if path and Path(path).is_dir() else None


@pytest.fixture(scope="session")
def mtdata() -> Path:
    path = mtdata_dir()
    if path is None:
        pytest.skip(
            "needs the WMT21 news test sets (newstest2021; research data, not shipped with bleu_lab): "
            "set BLEU_LAB_MTDATA to a folder holding them in per-pair folders such as en-de/ to run it"
        )
    return path


@pytest.fixture(autouse=True)
def _fresh_exercise_tries():
    """Each test starts as a fresh kernel would: no exercise has been tried yet (tiered hints count tries)."""
    from bleu_lab.course.exercises import reset_tries

    reset_tries()
    yield
    reset_tries()
