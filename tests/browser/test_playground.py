"""The playground and the lessons' small widgets in a real browser (headless Chromium via Playwright).

JupyterLab: open notebooks/playground.ipynb, run all cells, type a new hypothesis, and check that the score and
the explain view change with no traceback; paste 100k words and check the truncation notice; clear the box and
check the friendly message; add a reference and check it counts. Voilà: the same as an
app (no code cells, large type). A generated notebook puts the five small widgets through the same steps.
Every wait is on page state (Playwright's `expect` and the helpers), never a sleep.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import nbformat
import pytest
from playwright.sync_api import Locator, Page, expect

from bleu_lab.course.widgets import EMPTY_HYPOTHESIS

from .helpers import (
    NOTEBOOK7_MENU_BAR,
    RUN_TIMEOUT_MS,
    PageErrors,
    assert_no_traceback,
    open_in_voila,
    open_notebook_in_lab,
    run_all_cells_in_lab,
    type_into_widget,
    wait_for_notebook_ready,
    wait_for_widgets_rendered,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
PLAYGROUND = "notebooks/playground.ipynb"
WIDGETS_PATH = "tests/browser/_widgets.ipynb"  # generated for the session, removed afterwards
PERFECT = "there is a cat on the mat"  # equals reference 2 of the starting example: BLEU = 1


def score_of(root: Locator) -> Locator:
    return root.locator(".bleu-playground .bleu-score-box .bleu-score")


def check_playground(page: Page, root: Locator, page_errors: PageErrors, ignore: tuple[str, ...] = ()) -> None:
    """Type a hypothesis, check score and explain view change; clear it, check the friendly message."""
    app = root.locator(".bleu-playground")
    expect(app).to_have_count(1)
    explain_view = app.locator(".bleu-output .bleu-explain")
    expect(score_of(root)).to_have_text("0.3928")  # the starting sentences: the cat and the cat on the mat
    expect(explain_view).to_have_attribute("data-score", "0.392815")
    expect(explain_view.locator(".bleu-tok")).to_have_count(8)

    type_into_widget(page, app.locator(".bleu-hypothesis"), PERFECT)
    expect(score_of(root)).to_have_text("1.0000")
    expect(explain_view).to_have_attribute("data-score", "1")
    expect(explain_view.locator(".bleu-tok")).to_have_count(7)
    expect(explain_view.locator(".bleu-tokens")).to_contain_text("mat4")  # superscript order marks, not only colour
    assert_no_traceback(page)

    # a pasted 100k-word text: cut to 200 words, with a notice, still scored
    type_into_widget(page, app.locator(".bleu-hypothesis"), " ".join(["the cat sat on the mat ."] * 15_000))
    expect(app.locator(".bleu-output .bleu-notice")).to_contain_text("only its first 200 words")
    expect(explain_view.locator(".bleu-tok")).to_have_count(200)
    assert_no_traceback(page)

    type_into_widget(page, app.locator(".bleu-hypothesis"), "")
    expect(app.locator(".bleu-score-box .bleu-message")).to_have_text(re.compile(re.escape(EMPTY_HYPOTHESIS)))
    expect(app.locator(".bleu-output .bleu-message")).to_be_visible()
    expect(explain_view).to_have_count(0)
    assert_no_traceback(page)

    # references can be added and removed; a new one takes part in the score at once
    type_into_widget(page, app.locator(".bleu-hypothesis"), "a dog in the fog")
    expect(score_of(root)).not_to_have_text("1.0000")
    add = app.locator(".bleu-add-reference button, button.bleu-add-reference").first
    cut = add.evaluate("(el) => el.scrollWidth > el.clientWidth")  # text-overflow: ellipsis would show "+ add ref…"
    assert not cut, "the '+ add reference' button is too narrow for its label"
    add.click()
    expect(app.locator(".bleu-reference")).to_have_count(3)
    type_into_widget(page, app.locator(".bleu-reference").nth(2), "a dog in the fog")
    expect(score_of(root)).to_have_text("1.0000")
    assert_no_traceback(page)
    page_errors.assert_clean(ignore)


def test_playground_in_jupyterlab(page: Page, jupyterlab_url: str, page_errors: PageErrors):
    panel = open_notebook_in_lab(page, jupyterlab_url, PLAYGROUND)
    assert_no_traceback(page)
    check_playground(page, panel, page_errors)
    # the static explain view for readers without a kernel is there too
    expect(panel.locator(".jp-OutputArea-output .bleu-explain").first).to_be_visible()


def test_playground_in_voila_classroom_mode(
    page: Page, voila_server_factory: Callable[[str | None], str], page_errors: PageErrors
):
    cells = open_in_voila(page, voila_server_factory(PLAYGROUND))  # as `voila notebooks/playground.ipynb`
    assert_no_traceback(page)
    # an app: markdown is shown, code is not
    expect(page.locator(".jp-CodeCell .jp-InputArea, .jp-CodeMirrorEditor, .cm-content")).to_have_count(0)
    expect(cells).not_to_contain_text("import playground")
    expect(cells).to_contain_text("The BLEU playground")
    font_px = cells.locator(".bleu-playground").evaluate("(el) => parseFloat(getComputedStyle(el).fontSize)")
    assert font_px >= 18, f"playground text is {font_px}px: too small for a projector"
    check_playground(page, cells, page_errors)


# Notebook 7.6's own front end throws these while it loads any notebook: the first even with empty settings,
# the second after JupyterLab used the same server (a Lab-only command named in the shared state).
NOTEBOOK7_OWN_ERRORS = (
    r"^pageerror: Cannot read properties of undefined \(reading 'schema'\)$",
    r"^pageerror: Command 'filebrowser:open-path' not registered\.$",
)


def test_playground_in_notebook7(page: Page, jupyterlab_url: str, page_errors: PageErrors):
    """Notebook 7 (served by the same Jupyter server as JupyterLab) runs the playground too."""
    saved = (REPO_ROOT / PLAYGROUND).read_bytes()
    code_cells = sum(cell.cell_type == "code" for cell in nbformat.reads(saved.decode(), as_version=4).cells)
    page.goto(jupyterlab_url.rstrip("/") + "/notebooks/" + PLAYGROUND, timeout=90_000)
    panel = page.locator(".jp-NotebookPanel")
    # its model loaded and its kernel connected and idle, not only named (a busy machine clicked "Run all" before)
    wait_for_notebook_ready(page, panel, code_cells=code_cells, timeout_ms=RUN_TIMEOUT_MS)
    run_all_cells_in_lab(page, panel, menu_bar=NOTEBOOK7_MENU_BAR)  # cleared first: no views from saved outputs
    wait_for_widgets_rendered(page, panel)
    expect(score_of(panel)).to_be_visible()
    assert_no_traceback(page)
    check_playground(page, panel, page_errors, ignore=NOTEBOOK7_OWN_ERRORS)
    assert (REPO_ROOT / PLAYGROUND).read_bytes() == saved, "the browser run must not save over the notebook"


# ---------------------------------------------------------------------------------------------- small widgets

WIDGET_CELLS = [
    "from bleu_lab.course import widgets as bw",
    "bw.clip_table_widget()",
    "bw.bp_slider()",
    "bw.smoothing_comparer()",
    "bw.beat_bleu_challenge()",
    "bw.sentence_explorer()",
]


@pytest.fixture(scope="session")
def widgets_notebook() -> Iterator[str]:
    """A notebook with each small widget in its own cell, written into the repo for the session."""
    path = REPO_ROOT / WIDGETS_PATH
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    notebook.cells = [nbformat.v4.new_code_cell(src) for src in WIDGET_CELLS]
    nbformat.write(notebook, path)
    yield WIDGETS_PATH
    checkpoint = path.parent / ".ipynb_checkpoints" / f"{path.stem}-checkpoint.ipynb"
    for leftover in (path, checkpoint):
        leftover.unlink(missing_ok=True)
    with contextlib.suppress(OSError):
        checkpoint.parent.rmdir()


def check_small_widgets(page: Page, root: Locator, page_errors: PageErrors) -> None:
    clip = root.locator(".bleu-clip-table-widget")
    expect(clip.locator(".bleu-clip")).to_have_attribute("data-precision", "5/8")
    type_into_widget(page, clip.locator(".bleu-hypothesis"), "the the the the the the the")
    expect(clip.locator(".bleu-clip")).to_have_attribute("data-precision", "2/7")  # clipped to 2 of 7
    type_into_widget(page, clip.locator(".bleu-hypothesis"), "   ")
    expect(clip.locator(".bleu-message")).to_have_text(re.compile(re.escape(EMPTY_HYPOTHESIS)))

    expect(root.locator(".bleu-bp-slider .bleu-bp")).to_have_attribute("data-bp", "0.513417")  # c = 6, r = 10
    expect(root.locator(".bleu-bp-slider img")).to_be_visible()
    expect(root.locator(".bleu-smoothing-comparer table.bleu-smoothing tr")).to_have_count(14)  # head, raw, 12

    challenge = root.locator(".bleu-challenge")
    expect(challenge.locator(".bleu-message")).to_have_text(re.compile(re.escape(EMPTY_HYPOTHESIS)))
    type_into_widget(page, challenge.locator(".bleu-hypothesis"), "there is not a cat on the mat")
    expect(challenge.locator(".bleu-verdict")).to_have_attribute("data-beaten", "true")
    type_into_widget(page, challenge.locator(".bleu-hypothesis"), "the cat is on the mat")
    expect(challenge.locator(".bleu-verdict")).to_have_attribute("data-beaten", "false")

    explorer = root.locator(".bleu-sentence-explorer")
    type_into_widget(page, explorer.locator(".bleu-hypothesis"), PERFECT)
    expect(explorer.locator(".bleu-explain")).to_have_attribute("data-score", "1")
    type_into_widget(page, explorer.locator(".bleu-hypothesis"), "")
    expect(explorer.locator(".bleu-message")).to_have_text(re.compile(re.escape(EMPTY_HYPOTHESIS)))
    assert_no_traceback(page)
    page_errors.assert_clean()


def test_small_widgets_in_jupyterlab(page: Page, jupyterlab_url: str, widgets_notebook: str,
                                     page_errors: PageErrors):
    panel = open_notebook_in_lab(page, jupyterlab_url, widgets_notebook)
    assert_no_traceback(page)
    check_small_widgets(page, panel, page_errors)
