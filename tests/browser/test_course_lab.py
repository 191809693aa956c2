"""`bleu-lab lab` in a real browser: a working copy as JupyterLab's root, lessons that open unmodified on any
Python, and the playground at a projector's 1280×720.

A lesson is opened in JupyterLab with autosave every second, on the real kernel and on a kernel that reports
another Python version (as 3.12 or 3.13 would): after the autosave the tab is clean and the file is byte for byte
what `bleu-lab lessons` wrote (`.ci/execute_notebooks.py` saves language_info without the Python version, and
`bleu-lab lab` drops it again when JupyterLab saves).
"""

from __future__ import annotations

import json
import re
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from playwright.sync_api import Page, expect

from bleu_lab import course

from .conftest import _isolated_env, _start_server, headless_lab_options
from .helpers import lab_notebook_panel, open_in_voila, open_notebook_in_lab, wait_for_lab_kernel_idle

LESSON = "notebooks/03_brevity_penalty.ipynb"
PROJECTOR = {"width": 1280, "height": 720}
# A python3 kernel that answers kernel_info with another Python version, as a student's 3.13 would.
OTHER_PYTHON_KERNEL = (
    "import ipykernel.ipkernel as k; k.IPythonKernel.language_info['version'] = '{version}'; "
    "from ipykernel import kernelapp; kernelapp.launch_new_instance()"
)


def _as_executed(path: Path) -> None:
    """The lesson's metadata as .ci/execute_notebooks.py saves it (a no-op once the lessons are re-executed)."""
    from ipykernel.ipkernel import IPythonKernel

    nb = nbformat.read(path, as_version=4)
    nb.metadata["language_info"] = dict(IPythonKernel.language_info)
    course.normalize_metadata(nb.metadata)
    nbformat.write(nb, path)


@pytest.fixture(params=[None, "3.13.0"], ids=["this-python", "another-python"])
def working_copy_lab(request, tmp_path: Path):
    """`bleu-lab lab DIR` on a fresh working copy, with autosave every second; yields (url, DIR, server)."""
    directory = tmp_path / "bleu-lab-course"
    course.copy_course(directory)
    _as_executed(directory / LESSON)
    env = _isolated_env(tmp_path / "home")
    settings = Path(env["JUPYTERLAB_SETTINGS_DIR"]) / "@jupyterlab"
    for plugin, values in {
        "docmanager-extension/plugin": {"autosave": True, "autosaveInterval": 1},
        "notebook-extension/tracker": {"windowingMode": "none"},
        "apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False, "doNotDisturbMode": True},
    }.items():
        (settings / f"{plugin}.jupyterlab-settings").parent.mkdir(parents=True, exist_ok=True)
        (settings / f"{plugin}.jupyterlab-settings").write_text(json.dumps(values))
    if request.param:
        kernel = Path(env["JUPYTER_DATA_DIR"]) / "kernels" / "python3"
        kernel.mkdir(parents=True)
        argv = [sys.executable, "-c", OTHER_PYTHON_KERNEL.format(version=request.param), "-f", "{connection_file}"]
        (kernel / "kernel.json").write_text(json.dumps(
            {"argv": argv, "display_name": "Python 3 (ipykernel)", "language": "python"}))
        env["JUPYTER_PREFER_ENV_PATH"] = "0"  # the kernel above, not the venv's own python3

    def command(port: int) -> list[str]:
        return [
            sys.executable, "-m", "bleu_lab", "lab", str(directory), *headless_lab_options(port),
            "--ServerApp.terminals_enabled=False",
            "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.handlers.announcements.NeverCheckForUpdate",
        ]  # fmt: skip

    server = _start_server("bleu-lab-lab", command, "/api/status", env, tmp_path)
    yield server.url, directory, server
    server.stop()


def test_a_lesson_opens_unmodified_and_autosave_leaves_it_as_it_was(page: Page, working_copy_lab):
    url, directory, server = working_copy_lab
    lesson = directory / LESSON
    before = lesson.read_bytes()
    page.set_viewport_size(PROJECTOR)
    page.goto(f"{url}/lab/tree/{LESSON}?reset", timeout=90_000)
    panel = lab_notebook_panel(page, LESSON)
    wait_for_lab_kernel_idle(page)
    expect(panel).to_be_visible()
    # JupyterLab writes the kernel's language_info on connecting; with another Python that marks the notebook
    # modified and autosave (every second here) saves it: wait for that save, then look.
    deadline = time.monotonic() + 20
    while "Saving file at /" + LESSON not in server.log_tail(100_000) and time.monotonic() < deadline:
        page.wait_for_timeout(250)
    assert "Saving file at /" + LESSON in server.log_tail(100_000), "JupyterLab never saved: nothing was tested"
    tab = page.locator("#jp-main-dock-panel .lm-TabBar-tab").filter(has_text="03_brevity_penalty.ipynb")
    expect(tab).not_to_have_class(re.compile(r"\bjp-mod-dirty\b"), timeout=10_000)
    assert lesson.read_bytes() == before, "opening the lesson rewrote it"
    # The server's root is the working copy: the lessons' links to the reading list and the data resolve.
    for path in ("docs/reading_list.md", "data/news/ref.A.de", "notebooks/solutions/03_brevity_penalty.py"):
        with urllib.request.urlopen(f"{url}/api/contents/{path}?content=0", timeout=10) as response:
            assert response.status == 200, path


def test_playground_input_and_score_on_one_projector_screen(page: Page, jupyterlab_url: str):
    """At 1280×720 the hypothesis box and the score are both on screen with the notebook scrolled to the top,
    and the introduction is a collapsed block that opens on a click."""
    page.set_viewport_size(PROJECTOR)
    panel = open_notebook_in_lab(page, jupyterlab_url, "notebooks/playground.ipynb")
    panel.locator(".jp-WindowedPanel-outer").evaluate("(el) => { el.scrollTop = 0; }")
    app = panel.locator(".bleu-playground")
    hypothesis = app.locator(".bleu-hypothesis textarea")
    score = app.locator(".bleu-score-box .bleu-score")
    expect(score).to_have_text("0.3928")
    for element in (hypothesis, score):
        box = element.bounding_box()
        assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= PROJECTOR["height"], box
    details = panel.locator(".jp-MarkdownOutput details").first
    expect(details).not_to_have_attribute("open", re.compile(".*"))
    expect(details.locator("li").first).to_be_hidden()
    details.locator("summary").click()
    expect(details.locator("li").first).to_be_visible()


def test_playground_input_and_score_on_one_projector_screen_in_classroom_mode(page: Page, voila_server_factory):
    """The same in Voilà (classroom mode, projector-size text): typing and its score share the first screen."""
    page.set_viewport_size(PROJECTOR)
    cells = open_in_voila(page, voila_server_factory("notebooks/playground.ipynb"))
    page.evaluate("() => window.scrollTo(0, 0)")
    app = cells.locator(".bleu-playground")
    expect(app.locator(".bleu-score-box .bleu-score")).to_have_text("0.3928")
    for element in (app.locator(".bleu-hypothesis textarea"), app.locator(".bleu-score-box .bleu-score")):
        box = element.bounding_box()
        assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= PROJECTOR["height"], box
