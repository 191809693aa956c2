"""Issue 28's attacks on marking itself and issue 31's right answers in other forms, as real notebooks graded by the
real grader (`bleu-lab grade`, one batch of three lessons): a number written as "1e999999999", answer objects whose
dtype asks for 320 MB each, a written answer of 200,000 characters, ranks written as strings and a negated written
answer. Marking must end, stay small, and say why."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from bleu_lab.assignments.release import release
from bleu_lab.course.exercises.bleu_in_context import expected_reference_ranks

REPO = Path(__file__).resolve().parent.parent
ATTACK = '''class Attack:
    """Looks like a numpy array to the grading wire; its dtype asks for 40,000,000 float64 per item (320 MB)."""
    dtype = "(40000000,)f8"
    shape = (1,)
    size = 1

    def tolist(self):
        return [1.0]


'''
NEGATED = "A significance test and human evaluation are unnecessary here, BLEU went up so the new system is better"
# Run the grader as an instructor does, from a small Python that reports the largest resident size of its children
# (the grader, which waits for its kernels): 320 MB per answer would show.
MEASURE = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=600)
sys.stdout.write(done.stdout)
sys.stderr.write(done.stderr)
print(f"maxrss-kb: {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}")
sys.exit(done.returncode)
"""


def _answer(nb: nbformat.NotebookNode, start: str, source: str) -> None:
    next(c for c in nb.cells if c.cell_type == "code" and c.source.startswith(start)).source = source


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("bounds")
    release(root / "course", REPO / "notebooks")
    inbox = root / "inbox"

    def student(name: str) -> nbformat.NotebookNode:
        return nbformat.read(root / "course" / "student" / f"{name}.ipynb", as_version=4)

    def submit(who: str, name: str, nb: nbformat.NotebookNode) -> str:
        (inbox / who).mkdir(parents=True)
        nbformat.write(nb, inbox / who / f"{name}.ipynb")
        return f"{who}/{name}.ipynb"

    lesson0 = student("00_start_here")
    _answer(lesson0, "p1 = ", ATTACK + 'p1 = "1e999999999"\np4 = Attack()\nbp = Attack()')
    lesson3 = student("03_brevity_penalty")
    _answer(lesson3, "answer = ", 'answer = ("Short outputs would score high because precision sees only their '
                                  'words. " * 3000)[:200_000]')
    lesson10 = student("10_bleu_in_context")
    _answer(lesson10, "ranks = ", f"ranks = {({k: str(v) for k, v in expected_reference_ranks().items()})!r}")
    _answer(lesson10, 'answer = ""', f"answer = {NEGATED!r}")
    paths = [submit("zoe", "00_start_here", lesson0), submit("yan", "03_brevity_penalty", lesson3),
             submit("xia", "10_bleu_in_context", lesson10)]
    command = Path(sys.executable).parent / "bleu-lab"
    done = subprocess.run([sys.executable, "-c", MEASURE, str(command), "grade", *paths, "--seed", "1",
                           "--timeout", "120"], capture_output=True, text=True, timeout=900, cwd=inbox)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    reports = {m.group(1): m.group(0) for m in re.finditer(r"^== (\w+)/.*?(?=^== |\Z)", done.stdout, re.S | re.M)}
    reports["maxrss-kb"] = re.search(r"^maxrss-kb: (\d+)$", done.stdout, re.M).group(1)
    return reports


def test_marking_stays_small_with_answer_dtypes_of_320_mb(graded):
    # before the fix the grader's children peaked at 735 MB here (two answers of 320 MB); now about 120 MB
    assert int(graded["maxrss-kb"]) < 300_000
    assert "p4 is array([1.])" in graded["zoe"] and "bp is array([1.])" in graded["zoe"]


def test_a_number_with_a_huge_exponent_is_refused_with_the_reason(graded):
    assert "exponent between -400 and 400" in graded["zoe"] and re.search(r"^score: 0 / \d", graded["zoe"], re.M)


def test_a_written_answer_of_200000_characters_is_read_to_2000(graded):
    report = graded["yan"]
    assert "only the first 2,000 of your 200,000 characters were read" in report
    assert len(report) < 20_000  # the report shows what the check read, not the whole answer


def test_ranks_as_strings_and_a_negated_answer_through_the_grader(graded):
    report = graded["xia"]
    assert re.search(r"Online-W's BLEU rank per reference\s+1 / 1", report)
    assert "key points mentioned: none of them" in report and "this looks reversed" in report
