"""The bounds of issue 35 on ``bleu-lab grade``: real notebooks graded by the real command.

- the output cap counts every byte a kernel sends (display metadata, display updates, one huge message): the grader's
  own peak memory stays bounded, the flooding notebook is stopped with a note, and the next student keeps full marks;
- a notebook over the size limit or with too many cells is refused before it is parsed, in well under a second.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from bleu_lab.assignments import grade as grading
from bleu_lab.assignments.release import release

REPO = Path(__file__).resolve().parent.parent
REQUIRE = os.environ.get("BLEU_LAB_REQUIRE_SANDBOX") == "1"
SEED = 35
TIMEOUT = 60  # seconds to run one notebook, and again to mark it
PEAK_MB = 300  # the grader's own peak memory (issue 35's goal; about 150 MB for a plain lesson 0)
# Runs `bleu-lab grade` in this process and prints the process's own peak memory (the kernels and marking's child
# are other processes): what a flood of output costs the grader itself.
MEASURED = ("import resource, sys\nfrom bleu_lab.cli import main\ncode = main(sys.argv[1:])\n"
            "print('peak-kb', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\nsys.exit(code)")


@pytest.fixture(scope="module")
def released(tmp_path_factory) -> Path:
    outdir = tmp_path_factory.mktemp("course")
    release(outdir, REPO / "notebooks")
    return outdir


def _need(mode: str) -> None:
    """Skip (or, under BLEU_LAB_REQUIRE_SANDBOX=1, fail) a bubblewrap run where bubblewrap cannot start."""
    if mode != "bubblewrap":
        return
    box = grading.choose_sandbox("auto")
    if box.kind != "bubblewrap":
        if REQUIRE:
            pytest.fail(f"BLEU_LAB_REQUIRE_SANDBOX=1 but {box.why}")
        pytest.skip(box.why)


def _nb(released: Path, copy: str, lesson: str) -> nbformat.NotebookNode:
    return nbformat.read(released / copy / f"{lesson}.ipynb", as_version=4)


def _with_cell(nb: nbformat.NotebookNode, source: str, at: int | None = None) -> nbformat.NotebookNode:
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))
    nb.cells.insert(len(nb.cells) if at is None else at, nbformat.v4.new_code_cell(source))
    return nb


def _write(path: Path, nb: nbformat.NotebookNode) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def _grade(paths: list[Path], cwd: Path, *options: str) -> tuple[subprocess.CompletedProcess, int]:
    """``bleu-lab grade`` in a fresh interpreter; the result and the grader's own peak memory in MB."""
    command = [sys.executable, "-I", "-c", MEASURED, "grade", *map(str, paths), "--seed", str(SEED),
               "--timeout", str(TIMEOUT), *options]
    done = subprocess.run(command, capture_output=True, text=True, timeout=1200, cwd=cwd)
    peak = re.search(r"^peak-kb (\d+)$", done.stderr, re.MULTILINE)
    return done, int(peak.group(1)) // 1024 if peak else -1


def _reports(stdout: str) -> list[str]:
    return re.split(r"^(?===)", stdout, flags=re.MULTILINE)[1:]


def _by_name(stdout: str) -> dict[str, str]:
    return {Path(r.splitlines()[0].split(" (lesson")[0][3:]).parent.name: r for r in _reports(stdout)}


def _score(report: str) -> str:
    return re.findall(r"^score: .*$", report, re.MULTILINE)[0]


# ------------------------------------------------------------------------------------------------ the output cap

# Issue 35: 40 displays of one dot each carrying 25 MB of metadata made the grader peak at 1.2 GB, and the notebook
# kept 2 / 2. Here 12 (300 MB in all), an update flood of one display, and one message of 100 MB.
METADATA_FLOOD = """\
from IPython.display import display
for _ in range(12):
    display({"text/plain": "."}, raw=True, metadata={"pad": "A" * 25_000_000})
"""
UPDATE_FLOOD = """\
from IPython.display import display
handle = display({"text/plain": "."}, raw=True, display_id=True)
for _ in range(12):
    handle.update({"text/plain": "B" * 20_000_000}, raw=True)
"""
ONE_HUGE_MESSAGE = """\
from IPython.display import display
display({"text/plain": "."}, raw=True, metadata={"pad": "A" * 100_000_000})
"""


@pytest.mark.parametrize("mode", ["none", "bubblewrap"])
def test_output_floods_are_cut_and_the_grader_stays_small(mode, released, tmp_path):
    """Without the sandbox all three floods; in it (the same client code) the metadata flood only, to save time."""
    _need(mode)
    solved = _nb(released, "solved", "00_start_here")
    paths = {"metadata": _write(tmp_path / "metadata" / "00_start_here.ipynb", _with_cell(solved, METADATA_FLOOD))}
    if mode == "none":
        paths["updates"] = _write(tmp_path / "updates" / "00_start_here.ipynb", _with_cell(solved, UPDATE_FLOOD, at=1))
        paths["huge"] = _write(tmp_path / "huge" / "00_start_here.ipynb", _with_cell(solved, ONE_HUGE_MESSAGE))
    paths["next"] = _write(tmp_path / "next" / "00_start_here.ipynb", solved)
    done, peak = _grade(list(paths.values()), tmp_path, "--sandbox", mode)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    reports = _by_name(done.stdout)
    last = len(solved.cells) + 1
    # Stopped where the flood began, the cells before it marked as usual.
    assert (f"note: its output went over the limit ({grading.OUTPUT_LIMIT:,} characters in all): cell {last} was "
            "stopped there and the cells below were not run") in reports["metadata"]
    assert _score(reports["metadata"]) == "score: 2 / 2"
    if mode == "none":
        assert "went over the limit (1,000,000 characters in all): cell 2 was stopped" in reports["updates"]
        assert _score(reports["updates"]) == "score: 0 / 2"  # its answers were in the cells below
        assert (f"went over the limit (one message over {grading.MAX_MESSAGE_BYTES // 1_000_000} MB)"
                in reports["huge"])
        assert _score(reports["huge"]) == "score: 2 / 2"
    assert _score(reports["next"]) == "score: 2 / 2" and "note:" not in reports["next"]
    assert 0 < peak <= PEAK_MB, f"the grader peaked at {peak} MB"


def test_message_size_counts_every_part_of_a_message():
    content = {"data": {"text/plain": "abc"}, "metadata": {"pad": "x" * 1000}, "transient": {"display_id": "d"}}
    assert grading.message_size({"content": content}) >= len(json.dumps(content)) - 10
    assert grading.message_size({"content": {"data": [[]] * 1000}}) >= 3000  # empty lists are not free
    assert grading.message_size({"content": {}, "buffers": [b"1" * 500]}) >= 500

