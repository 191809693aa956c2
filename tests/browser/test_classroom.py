"""Classroom mode as a room sees it: `bleu-lab classroom` (Voilà with the shipped voila.json), a 1280×720 projector,
XSRF protection on.

- the playground is the page: no "Without a running kernel" section, no code;
- readable from the back: controls and the score >= 24 px, the explain tables >= 20 px;
- reference boxes grow with their text; the plots have alt text and every control an accessible name (axe);
- the app asks nothing of the internet (Voilà's lab template links two stylesheets from a CDN; ours does not);
- a closed tab's kernel is culled (Voilà's own shutdown request is refused with XSRF on), an open tab's is kept;
- a reload replaces the student's kernel and works; a full room shows a page saying so, no kernel;
- JupyterLab started as the README says shows no "official Jupyter news?" toast.
No timed assertions: waits are on page or server state, with deadlines.
"""

from __future__ import annotations

import re
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from http.cookiejar import CookieJar
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import Error as PlaywrightError

from bleu_lab.course import classroom

from .conftest import EXTERNAL_URL, REPO_ROOT, ServerProcess, _isolated_env, _start_server, headless_lab_options
from .helpers import (
    PageErrors,
    assert_no_traceback,
    kill_page_kernel,
    open_in_voila,
    page_kernel_id,
    type_into_widget,
)

PROJECTOR = {"width": 1280, "height": 720}
SCORE = ".bleu-score-box .bleu-score"
ROOM = 3  # --students
CONNECT_GRACE_S = 30  # how long a handed-out kernel waits for its page (the full room's fetched pages never connect)
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


def _kernel_exists(page: Page, base_url: str, kernel_id: str) -> bool:
    """Whether the kernel runs, asked as the page's own client (the kernel API answers its owner only)."""
    try:
        status = page.context.request.get(f"{base_url}/api/kernels/{kernel_id}", timeout=10_000).status
    except PlaywrightError:
        return True  # the server was busy: ask again
    assert status in (200, 404), status
    return status == 200


def _server_kernels(server: ServerProcess) -> int:
    """How many kernels the server runs (spares included)."""
    import psutil

    def is_kernel(process: psutil.Process) -> bool:
        try:
            return "ipykernel" in " ".join(process.cmdline())
        except psutil.Error:  # a kernel that just exited (a zombie until reaped, or gone): not running
            return False

    return sum(is_kernel(child) for child in psutil.Process(server.process.pid).children(recursive=True))


def _wait_until(condition: Callable[[], bool], server: ServerProcess, failure: str) -> None:
    """Poll ``condition`` (server state) until it holds; fail with the server's log after a generous deadline."""
    deadline = time.monotonic() + 10 * CULL_TIMEOUT_S + CONNECT_GRACE_S + 30
    while not condition():
        assert time.monotonic() < deadline, f"{failure}\n{server.log_tail()}"
        time.sleep(0.5)


@pytest.fixture(scope="module")
def classroom_voila(browser_tmp: Path) -> Iterator[ServerProcess]:
    """`bleu-lab classroom --students 3` as the README starts it (voila.json, XSRF on), with a short cull window and
    connect grace and one preheated kernel so the test is quick."""
    env = _isolated_env(browser_tmp / "classroom-home")

    def command(port: int) -> list[str]:
        return [
            sys.executable, "-m", "bleu_lab", "classroom", "--students", str(ROOM), "--port", str(port),
            "--ip", "127.0.0.1", "--",
            f"--Voila.connection_dir_root={env['JUPYTER_RUNTIME_DIR']}",
            """--VoilaKernelManager.kernel_pools_config={"notebooks/playground.ipynb": {"pool_size": 1}}""",
            f"--MappingKernelManager.cull_idle_timeout={CULL_TIMEOUT_S}",
            "--MappingKernelManager.cull_interval=1",
            f"--ClassroomKernelManager.connect_grace={CONNECT_GRACE_S}",
        ]  # fmt: skip

    server = _start_server("voila-classroom", command, "/voila/static/voila.js", env, browser_tmp)
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def empty_room(request: pytest.FixtureRequest) -> None:
    """Each classroom test starts with the last test's students gone (culled: the room holds only ROOM)."""
    if "classroom_voila" not in request.fixturenames:
        return
    server = request.getfixturevalue("classroom_voila")
    _wait_until(lambda: _server_kernels(server) <= 1, server, "the last test's kernels were not culled")


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
    left, kept = page_kernel_id(leaving), page_kernel_id(staying)
    assert left != kept and _kernel_exists(leaving, url, left) and _kernel_exists(staying, url, kept)
    assert not _kernel_exists(staying, url, left)  # another student's kernel: not even its existence is told

    leaving.close(run_before_unload=True)  # the tab closes; its unload beacon asks Voilà to shut the kernel down
    _wait_until(lambda: "'_xsrf' argument missing" in classroom_voila.log_tail(200_000), classroom_voila,
                "the unload beacon never reached the server")  # refused: XSRF is on and Voilà sets no _xsrf cookie
    _wait_until(lambda: not _kernel_exists(staying, url, left) and _server_kernels(classroom_voila) <= 2,
                classroom_voila, "the closed tab's kernel still runs")

    # the open tab, idle for longer than the cull window, still has its kernel and still answers
    assert _kernel_exists(staying, url, kept)
    type_into_widget(staying, staying.locator(".bleu-playground .bleu-hypothesis"), "there is a cat on the mat")
    expect(staying.locator(".bleu-playground " + SCORE)).to_have_text("1.0000")


def test_a_reload_replaces_the_students_kernel_and_works(projector_page, classroom_voila: ServerProcess):
    url = classroom_voila.url
    page = projector_page()
    open_in_voila(page, url)
    before = page_kernel_id(page)
    page.reload(wait_until="domcontentloaded")
    open_in_voila(page, url)
    after = page_kernel_id(page)
    assert after != before and _kernel_exists(page, url, after)
    _wait_until(lambda: not _kernel_exists(page, url, before), classroom_voila, "the old kernel still runs")
    type_into_widget(page, page.locator(".bleu-playground .bleu-hypothesis"), "there is a cat on the mat")
    expect(page.locator(".bleu-playground " + SCORE)).to_have_text("1.0000")


def test_a_full_room_shows_a_page_saying_so(projector_page, classroom_voila: ServerProcess):
    url = classroom_voila.url
    for _ in range(ROOM):  # the room fills with students who fetch the page (their kernels are culled after the test)
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
        with opener.open(url + "/", timeout=120) as response:
            assert '"kernelId"' in response.read().decode()
    page = projector_page()
    response = page.goto(url + "/", wait_until="domcontentloaded")
    assert response.status == 503
    expect(page.locator("h1")).to_have_text("The classroom is full")
    expect(page.locator("body")).to_contain_text(f"All {ROOM} places")
    expect(page.locator("#rendered_cells")).to_have_count(0)


def test_a_page_whose_kernel_dies_says_so_in_plain_words(projector_page, classroom_voila: ServerProcess,
                                                         page_errors: PageErrors):
    """A kernel killed as the system's out-of-memory killer kills (SIGKILL) is not restarted (a fresh kernel would
    hold none of the page's widgets): its place frees, the page says what happened and how to start again, and a
    reload gives a working page."""
    url = classroom_voila.url
    page = projector_page()
    open_in_voila(page, url)
    kernel = kill_page_kernel(page, classroom_voila.process.pid)

    notice = page.get_by_role("alert")
    expect(notice).to_contain_text(
        "This page's Python process stopped, probably because it used more memory than this classroom allows "
        f"({classroom.DEFAULT_KERNEL_MEMORY_MB} MB). Reload the page to start again", timeout=60_000)
    assert notice.evaluate("(el) => parseFloat(getComputedStyle(el).fontSize)") >= 24  # read from the back too
    assert_no_traceback(page)
    _wait_until(lambda: not _kernel_exists(page, url, kernel), classroom_voila, "the dead kernel is still listed")
    assert "restarting" not in classroom_voila.log_tail(200_000).lower()  # let go, not restarted

    notice.get_by_role("button", name="Reload the page").click()
    open_in_voila(page, url)
    assert page_kernel_id(page) != kernel
    expect(page.locator("#bleu-kernel-stopped")).to_have_count(0)
    type_into_widget(page, page.locator(".bleu-playground .bleu-hypothesis"), "there is a cat on the mat")
    expect(page.locator(".bleu-playground " + SCORE)).to_have_text("1.0000")
    page_errors.assert_clean(ignore=[re.compile("WebSocket|websocket|Kernel|kernel|404")])


def test_a_page_opened_again_in_another_tab_says_its_kernel_is_gone(browser: Browser, classroom_voila: ServerProcess):
    """A second tab of the same student replaces the kernel (one kernel per student): the first tab says its Python
    process is no longer running and why that may be, not that it ran out of memory."""
    url = classroom_voila.url
    context = browser.new_context(viewport=PROJECTOR)  # one student: the tabs share the login cookie
    context.set_default_timeout(30_000)
    try:
        first = context.new_page()
        open_in_voila(first, url)
        kernel = page_kernel_id(first)
        second = context.new_page()
        open_in_voila(second, url)
        assert page_kernel_id(second) != kernel
        expect(first.get_by_role("alert")).to_contain_text(
            "This page's Python process is no longer running (it stopped, or this page was opened again in another "
            "tab or window). Reload the page to start again.", timeout=60_000)
        expect(first.get_by_role("alert")).not_to_contain_text("memory")
        expect(second.locator("#bleu-kernel-stopped")).to_have_count(0)
        type_into_widget(second, second.locator(".bleu-playground .bleu-hypothesis"), "there is a cat on the mat")
        expect(second.locator(".bleu-playground " + SCORE)).to_have_text("1.0000")
    finally:
        context.close()


@pytest.fixture(scope="module")
def readme_lab_url(browser_tmp: Path) -> Iterator[str]:
    """JupyterLab as the README starts it (`bleu-lab lab`, a fresh working copy): no user settings, the venv's
    defaults (requirements.txt installs ours)."""
    env = _isolated_env(browser_tmp / "readme-lab-home")

    def command(port: int) -> list[str]:
        course = browser_tmp / "readme-course"
        return [sys.executable, "-m", "bleu_lab", "lab", str(course), *headless_lab_options(port)]

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
