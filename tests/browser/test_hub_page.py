"""A Voilà app on a student's own Jupyter server, as a JupyterHub runs it: JupyterLab started with the shipped
single-user settings (jupyter-settings/singleuser/jupyter_server_config.py: the offline bleu_lab template, the
voila-hide cells left out), only the hub's login left out. Such a server restarts a kernel that dies (Jupyter's
default); the page then says so in plain words instead of silently no longer answering.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from .conftest import REPO_ROOT, ServerProcess, _isolated_env, _start_server, headless_lab_options
from .helpers import assert_no_traceback, kill_page_kernel, open_in_voila, page_kernel_id, type_into_widget

SINGLEUSER_CONFIG = REPO_ROOT / "jupyter-settings" / "singleuser" / "jupyter_server_config.py"
SCORE = ".bleu-playground .bleu-score-box .bleu-score"


@pytest.fixture(scope="module")
def singleuser_server(browser_tmp: Path) -> Iterator[ServerProcess]:
    env = _isolated_env(browser_tmp / "singleuser-home")

    def command(port: int) -> list[str]:
        return [sys.executable, "-m", "jupyterlab", f"--config={SINGLEUSER_CONFIG}",
                f"--ServerApp.root_dir={REPO_ROOT}", *headless_lab_options(port), "--ServerApp.disable_check_xsrf=True"]

    server = _start_server("singleuser", command, "/api/status", env, browser_tmp)
    yield server
    server.stop()


def test_a_page_whose_kernel_is_restarted_says_so_in_plain_words(page: Page, singleuser_server: ServerProcess):
    """A kernel killed as the out-of-memory killer kills (SIGKILL) is restarted by the server, empty: the page says
    what happened and how to start again, and a reload gives a working page."""
    url = singleuser_server.url
    open_in_voila(page, url, "notebooks/playground.ipynb")
    expect(page.get_by_text("Without a running kernel")).to_have_count(0)  # the voila-hide section is left out
    kernel = kill_page_kernel(page, singleuser_server.process.pid)

    notice = page.get_by_role("alert")
    expect(notice).to_contain_text(
        "This page's Python process stopped, probably because it used more memory than it is allowed, and was started "
        "again empty, so this page no longer answers. Reload the page to start again", timeout=60_000)
    assert f"kernel {kernel} restarted" in singleuser_server.log_tail(200_000)  # the server's own restart
    assert notice.evaluate("(el) => parseFloat(getComputedStyle(el).fontSize)") >= 24
    assert_no_traceback(page)

    notice.get_by_role("button", name="Reload the page").click()
    open_in_voila(page, url, "notebooks/playground.ipynb")
    assert page_kernel_id(page) != kernel
    expect(page.locator("#bleu-kernel-stopped")).to_have_count(0)
    type_into_widget(page, page.locator(".bleu-playground .bleu-hypothesis"), "there is a cat on the mat")
    expect(page.locator(SCORE)).to_have_text("1.0000")
