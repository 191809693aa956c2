"""Classroom mode as a room sees it: Voilà with the shipped voila.json, a 1280×720 projector, XSRF protection on.

- the playground is the page: no "Without a running kernel" section, no code;
- readable from the back: controls and the score >= 24 px, the explain tables >= 20 px;
- reference boxes grow with their text; the plots have alt text and every control an accessible name (axe);
- the app asks nothing of the internet (Voilà's lab template links two stylesheets from a CDN; ours does not);
- a closed tab's kernel is culled (Voilà's own shutdown request is refused with XSRF on), an open tab's is kept;
- JupyterLab started as the README says shows no "official Jupyter news?" toast.
No timed assertions: waits are on page or server state, with deadlines.
"""

from __future__ import annotations

import http.client
import re
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import EXTERNAL_URL, REPO_ROOT, ServerProcess, _isolated_env, _start_server, voila_command
from .helpers import PageErrors, assert_no_traceback, open_in_voila, type_into_widget

PLAYGROUND = "notebooks/playground.ipynb"
PROJECTOR = {"width": 1280, "height": 720}
SCORE = ".bleu-score-box .bleu-score"
CULL_TIMEOUT_S = 3  # the test's cull window (voila.json ships 60 s); flags on the command line override the file
# Font sizes in px of the playground's parts, as the browser computed them.
FONT_SIZES_JS = """
(app) => {
    const px = (el) => parseFloat(getComputedStyle(el).fontSize);
    const sizes = (selector) => [...app.querySelectorAll(selector)].filter((el) => el.offsetParent !== null).map(px);
    return {
        controls: sizes('textarea, select, input, button, .widget-label, label'),
        score: sizes('.bleu-score-box .bleu-score'),
        headline: sizes('.bleu-score-box .bleu-headline span, .bleu-score-box .bleu-headline div'),
        tables: sizes('.bleu-output table td, .bleu-output table th'),
    };
}
"""


def _kernel_exists(base_url: str, kernel_id: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base_url}/api/kernels/{kernel_id}", timeout=10) as response:
            return response.status == 200
    except urllib.error.HTTPError as err:
        if err.code == 404:
            return False
        raise
    except (OSError, http.client.HTTPException):
        return True  # the server was busy: ask again


def _wait_until(condition: Callable[[], bool], server: ServerProcess, failure: str) -> None:
    """Poll ``condition`` (server state) until it holds; fail with the server's log after a generous deadline."""
    deadline = time.monotonic() + 10 * CULL_TIMEOUT_S + 30
    while not condition():
        assert time.monotonic() < deadline, f"{failure}\n{server.log_tail()}"
        time.sleep(0.5)


def _page_kernel_id(page: Page) -> str:
    return page.evaluate("() => JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId")


@pytest.fixture(scope="module")
def classroom_voila(browser_tmp: Path) -> Iterator[ServerProcess]:
    """`voila notebooks/playground.ipynb` from the repo root as the README starts it (voila.json, XSRF on),
    with a short cull window and a pool of one preheated kernel so the test is quick."""
    env = _isolated_env(browser_tmp / "classroom-home")

    def command(port: int) -> list[str]:
        return voila_command(
            PLAYGROUND, port, env, "playground.ipynb",
            f"--MappingKernelManager.cull_idle_timeout={CULL_TIMEOUT_S}",
            "--MappingKernelManager.cull_interval=1",
        )  # fmt: skip

    server = _start_server("voila-classroom", command, "/voila/static/voila.js", env, browser_tmp)
    yield server
    server.stop()


@pytest.fixture
def projector_page(browser: Browser, page_errors: PageErrors) -> Iterator[Callable[[], Page]]:
    """New 1280×720 pages (one context each, like students' laptops); closed at the end if still open."""
    contexts = []

    def new_page() -> Page:
        context = browser.new_context(viewport=PROJECTOR)
        context.set_default_timeout(30_000)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: page_errors.page_errors.append(str(exc)))
        return page

    yield new_page
    for context in contexts:
        context.close()


def test_the_room_sees_only_the_app_in_large_type(projector_page, classroom_voila: ServerProcess,
                                                  page_errors: PageErrors):
    page = projector_page()
    cells = open_in_voila(page, classroom_voila.url)
    assert_no_traceback(page)
    expect(cells).to_contain_text("The BLEU playground")
    expect(cells).not_to_contain_text("Without a running kernel")
    expect(cells).not_to_contain_text("voila ")  # no shell command projected
    expect(page.locator(".bleu-explain")).to_have_count(1)  # the live one only, not the static copy
    app = cells.locator(".bleu-playground")
    expect(app.locator(SCORE)).to_have_text("0.3928")
    sizes = app.evaluate(FONT_SIZES_JS)
    assert sizes["controls"] and min(sizes["controls"]) >= 24, sizes["controls"]
    assert sizes["score"] and min(sizes["score"] + sizes["headline"]) >= 24, sizes
    assert sizes["tables"] and min(sizes["tables"]) >= 20, sizes["tables"]
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PROJECTOR["width"]
    page_errors.assert_clean()


def test_the_app_loads_nothing_from_the_internet(projector_page, classroom_voila: ServerProcess):
    """A classroom network may have no internet, or one where outside connections hang until they time out; a
    stylesheet in the page's head would keep the app blank for that long."""
    page = projector_page()
    outside = []
    page.on("request", lambda request: outside.append(request.url) if re.match(EXTERNAL_URL, request.url) else None)
    open_in_voila(page, classroom_voila.url)
    expect(page.locator(".bleu-playground " + SCORE)).to_have_text("0.3928")
    assert outside == []


def test_a_long_reference_grows_its_box(projector_page, classroom_voila: ServerProcess):
    page = projector_page()
    app = open_in_voila(page, classroom_voila.url).locator(".bleu-playground")
    box = app.locator(".bleu-reference textarea").first
    before = box.evaluate("(el) => el.clientHeight")
    long_reference = " ".join(["the cat is on the mat and there is a dog under the table"] * 8)
    type_into_widget(page, box, long_reference)
    expect(app.locator(SCORE)).not_to_have_text("0.3928")
    after = box.evaluate("(el) => [el.clientHeight, el.scrollHeight]")
    assert after[0] > before and after[1] <= after[0], (before, after)  # taller, and all of the text shows


def test_plots_and_controls_pass_an_axe_audit(projector_page, classroom_voila: ServerProcess):
    from axe_playwright_python.sync_playwright import Axe

    page = projector_page()
    open_in_voila(page, classroom_voila.url)
    expect(page.locator(".bleu-plot img")).to_have_count(2)
    for img in page.locator(".bleu-plot img").all():
        assert (img.get_attribute("alt") or "").strip()
    results = Axe().run(page, context={"include": [[".bleu-playground"]]},
                        options={"runOnly": ["image-alt", "aria-input-field-name", "label", "select-name",
                                             "button-name", "color-contrast"]})
    violations = [(v["id"], v["help"], [n["target"] for n in v["nodes"]][:3]) for v in results.response["violations"]]
    assert violations == [], violations


def test_a_closed_tabs_kernel_is_culled_and_an_open_tabs_kept(projector_page, classroom_voila: ServerProcess):
    url = classroom_voila.url
    leaving, staying = projector_page(), projector_page()
    open_in_voila(leaving, url)
    open_in_voila(staying, url)
    left, kept = _page_kernel_id(leaving), _page_kernel_id(staying)
    assert left != kept and _kernel_exists(url, left) and _kernel_exists(url, kept)

    leaving.close(run_before_unload=True)  # the tab closes; its unload beacon asks Voilà to shut the kernel down
    _wait_until(lambda: "'_xsrf' argument missing" in classroom_voila.log_tail(200_000), classroom_voila,
                "the unload beacon never reached the server")  # refused: XSRF is on and Voilà sets no _xsrf cookie
    _wait_until(lambda: not _kernel_exists(url, left), classroom_voila, "the closed tab's kernel still runs")

    # the open tab, idle for longer than the cull window, still has its kernel and still answers
    assert _kernel_exists(url, kept)
    type_into_widget(staying, staying.locator(".bleu-playground .bleu-hypothesis"), "there is a cat on the mat")
    expect(staying.locator(".bleu-playground " + SCORE)).to_have_text("1.0000")


@pytest.fixture(scope="module")
def readme_lab_url(browser_tmp: Path) -> Iterator[str]:
    """JupyterLab as the README starts it: no user settings, the venv's defaults (requirements.txt installs ours)."""
    env = _isolated_env(browser_tmp / "readme-lab-home")

    def command(port: int) -> list[str]:
        return [
            sys.executable, "-m", "jupyter", "lab", "notebooks/00_start_here.ipynb",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0",
            "--ServerApp.allow_root=True",
            "--IdentityProvider.token=",
            "--PasswordIdentityProvider.hashed_password=",
        ]  # fmt: skip

    server = _start_server("jupyterlab-readme", command, "/api/status", env, browser_tmp)
    yield server.url
    server.stop()


def test_jupyterlab_shows_no_news_toast(page: Page, readme_lab_url: str):
    overrides = Path(sys.prefix, "share/jupyter/lab/settings/overrides.d/bleu_lab.json")
    assert overrides.read_text() == (REPO_ROOT / "jupyter-settings/overrides.d/bleu_lab.json").read_text(), (
        "requirements.txt installs ./jupyter-settings into the venv; run pip install -r requirements.txt")
    page.goto(readme_lab_url + "/lab?reset", timeout=90_000)
    expect(page.locator(".jp-Launcher")).to_be_visible(timeout=90_000)  # restored: the news plugin has decided
    page.wait_for_load_state("networkidle", timeout=90_000)
    plugin = page.evaluate("""async () => {
        const r = await fetch('/lab/api/settings/@jupyterlab/apputils-extension:notification');
        return await r.json(); }""")
    assert plugin["schema"]["properties"]["fetchNews"]["default"] == "false" and "fetchNews" not in plugin["settings"]
    expect(page.get_by_text("official Jupyter news")).to_have_count(0)
    expect(page.locator(".jp-Notification-Toast, .Toastify__toast")).to_have_count(0)
