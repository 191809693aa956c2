"""Smoke test of the browser-test infrastructure on a throwaway word-count widget notebook.

The notebook is written into the repo (JupyterLab and Voilà only serve files under their root) as
tests/browser/_smoke.ipynb, which .gitignore lists, and removed at the end of the session.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from playwright.sync_api import Locator, Page, expect

from .helpers import PageErrors, assert_no_traceback, open_in_voila, open_notebook_in_lab, type_into_widget

SMOKE_PATH = "tests/browser/_smoke.ipynb"

SMOKE_CODE = """\
import ipywidgets as widgets
from IPython.display import display

sentence = widgets.Text(placeholder="Type a sentence", description="Sentence")
count = widgets.HTML(value="Type a sentence")
errors = widgets.Output()  # callback errors land here, visible in JupyterLab and Voilà alike
sentence.add_class("smoke-sentence")
count.add_class("smoke-count")
errors.add_class("smoke-errors")


@errors.capture(clear_output=True)
def update(change=None):
    if sentence.value.strip() == "boom":
        raise ValueError("deliberate error for the browser smoke test")
    words = len(sentence.value.split())
    count.value = f"{words} words" if words else "Type a sentence"


sentence.observe(update, names="value")
display(sentence, count, errors)
"""


@pytest.fixture(scope="session")
def smoke_notebook() -> Iterator[str]:
    """Write the word-count notebook into the repo for the session; yields its repo-relative path."""
    path = Path(__file__).resolve().parents[2] / SMOKE_PATH
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    notebook.cells = [nbformat.v4.new_markdown_cell("# Word count smoke test"), nbformat.v4.new_code_cell(SMOKE_CODE)]
    nbformat.write(notebook, path)
    yield SMOKE_PATH
    checkpoint = path.parent / ".ipynb_checkpoints" / f"{path.stem}-checkpoint.ipynb"  # JupyterLab makes one on open
    for leftover in (path, checkpoint):
        leftover.unlink(missing_ok=True)
    with contextlib.suppress(OSError):  # only if empty: it may hold other notebooks' checkpoints
        checkpoint.parent.rmdir()


def check_word_count(page: Page, root: Locator, page_errors: PageErrors) -> None:
    """Drive the word-count widget under `root` and check its label, tracebacks and browser errors."""
    sentence = root.locator(".smoke-sentence")
    count = root.locator(".smoke-count")
    expect(count).to_have_text("Type a sentence")

    type_into_widget(page, sentence, "the cat sat")
    expect(count).to_have_text("3 words")
    assert_no_traceback(page)

    type_into_widget(page, sentence, "")
    expect(count).to_have_text("Type a sentence")
    assert_no_traceback(page)
    page_errors.assert_clean()

    # The traceback check must catch a failing callback, or it proves nothing.
    type_into_widget(page, sentence, "boom")
    expect(root.locator(".smoke-errors")).to_contain_text("ValueError")
    with pytest.raises(AssertionError, match="deliberate error"):
        assert_no_traceback(page)


def test_word_count_in_jupyterlab(page: Page, jupyterlab_url: str, smoke_notebook: str, page_errors: PageErrors):
    panel = open_notebook_in_lab(page, jupyterlab_url, smoke_notebook)
    assert_no_traceback(page)
    check_word_count(page, panel, page_errors)


def test_word_count_in_voila(page: Page, voila_url: str, smoke_notebook: str, page_errors: PageErrors):
    cells = open_in_voila(page, voila_url, smoke_notebook)
    assert_no_traceback(page)
    check_word_count(page, cells, page_errors)
