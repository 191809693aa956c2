"""Re-execute lessons top to bottom in a fresh kernel and save them clean.

    python .ci/execute_notebooks.py                 # every notebook in notebooks/
    python .ci/execute_notebooks.py 03 playground    # only those whose file name starts with 03 or playground

Each notebook runs in a new kernel from the current environment (run it with the project's venv Python), with
notebooks/ as its working directory. The saved file carries no widget state (a widget shows live only), the
kernelspec of the kernel the README installs, and the kernel's language_info without its Python version
(bleu_lab.course.normalize_metadata), so a contributor's diff shows what changed in the lesson, not in metadata,
and a lesson opens unmodified in JupyterLab on any Python (`bleu-lab lab` drops the version when it saves).

The cells that call an exercise's check (a line ``check_...(...)``) are saved without outputs and as never run: their
feedback, right or wrong, would show a fix or an answer before the student has tried. nbval still runs them (a
check that raises fails the test) but compares no output for a cell the notebook saved unrun.
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
sys.path.insert(0, str(NOTEBOOKS.parent))  # this checkout's bleu_lab, whatever the venv's editable install points at
from bleu_lab.course import normalize_metadata  # noqa: E402

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
TIMEOUT_PER_CELL = 300
CHECK_CALL = re.compile(r"^check_\w+\(", re.MULTILINE)  # a lesson's call of an exercise check


def normalize(nb: nbformat.NotebookNode) -> None:
    """Keep only metadata that does not depend on the machine or on widget state."""
    nb.metadata.pop("widgets", None)
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    normalize_metadata(nb.metadata)  # language_info as JupyterLab writes it on open, without the Python version
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = coalesce_streams(cell.outputs)


def coalesce_streams(outputs: list) -> list:
    """Join consecutive stdout (or stderr) outputs into one: how a print is cut into messages depends on timing,
    and the saved file should not."""
    joined: list = []
    for output in outputs:
        previous = joined[-1] if joined else None
        if (output.get("output_type") == "stream" and previous is not None
                and previous.get("output_type") == "stream" and previous.get("name") == output.get("name")):
            previous["text"] = "".join(previous["text"]) + "".join(output["text"])
        else:
            joined.append(output)
    return joined


def clear_exercise_checks(nb: nbformat.NotebookNode) -> list[int]:
    """Save the cells that call an exercise check without outputs and unrun; return their indices."""
    cleared = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and CHECK_CALL.search(cell.source):
            cell.outputs, cell.execution_count = [], None
            cleared.append(index)
    return cleared


def execute(path: Path) -> float:
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    client = NotebookClient(
        nb,
        timeout=TIMEOUT_PER_CELL,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        store_widget_state=False,
    )
    client.execute()
    normalize(nb)
    clear_exercise_checks(nb)
    nbformat.write(nb, path)
    return time.perf_counter() - start


def main(prefixes: list[str]) -> int:
    # The kernels import bleu_lab from this checkout, whatever checkout the venv's editable install points at.
    root = str(NOTEBOOKS.parent)
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
    paths = sorted(p for p in NOTEBOOKS.glob("*.ipynb") if not prefixes or p.name.startswith(tuple(prefixes)))
    if not paths:
        print(f"no notebook in {NOTEBOOKS} starts with {' or '.join(prefixes)}", file=sys.stderr)
        return 2
    for path in paths:
        seconds = execute(path)
        print(f"{path.name}: executed in {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
