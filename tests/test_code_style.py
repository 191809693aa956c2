"""The code stays ruff-clean (the same check a contributor runs: `ruff check .`)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def test_ruff_is_clean():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip('ruff is not installed (pip install -e ".[test]")')
    result = subprocess.run([ruff, "check", "--output-format", "concise", "."], cwd=REPO, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout + result.stderr
