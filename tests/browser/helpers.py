"""Helpers for driving widget notebooks in a real browser (JupyterLab 4.6 and Voilà 0.5).

Every wait here is on page state (selectors, attributes, a JS predicate), never a fixed sleep.
Timeouts are in milliseconds, as everywhere in Playwright.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from urllib.parse import quote

from playwright.sync_api import Locator, Page, expect

# Generous defaults: a cold kernel plus a lesson's imports can take a while on a 2-core CI machine.
OPEN_TIMEOUT_MS = 90_000
RUN_TIMEOUT_MS = 180_000
IDLE_TIMEOUT_MS = 60_000

STDERR_OUTPUT = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
# JupyterLab's status-bar kernel item: "Python 3 (ipykernel) | Idle" (title "Change kernel for <name>").
LAB_KERNEL_STATUS = '#jp-main-statusbar .jp-StatusBar-TextItem[title^="Change kernel for"]'
LAB_KERNEL_IDLE = re.compile(r"^(?!No Kernel).*\|\s*Idle\s*$")
LAB_LOG_STATUS = ".jp-LogConsoleStatusItem .jp-StatusBar-GroupItem"
# The notebook toolbar's kernel indicator, in JupyterLab and Notebook 7 alike: data-status "unknown" while the page
# connects to the kernel ("Kernel Connecting"; the kernel's name shows already), "idle" once it answers.
NOTEBOOK_KERNEL_INDICATOR = ".jp-Notebook-ExecutionIndicator"
LAB_MENU_BAR = "#jp-menu-panel"
NOTEBOOK7_MENU_BAR = "#jp-MainMenu"

# A traceback, or an error line IPython prints without one (SyntaxError), or a widget/JS rendering failure.
_TRACEBACK = re.compile(
    r"Traceback \(most recent call last\)"
    r"|^\s*\w*(Error|Exception|Interrupt)\b"
    r"|Error displaying widget"
    r"|Javascript Error"
    r"|There was an error when executing cell",
    re.MULTILINE,
)

# True once every widget-view output under `root` shows a rendered view (or an error text).
# Widget outputs are lumino Panels (`.jp-OutputArea-output.lm-Panel`) that stay empty until the view renders.
_WIDGETS_RENDERED_JS = """
(root) => [...root.querySelectorAll('.jp-OutputArea-output.lm-Panel')]
    .every((out) => out.querySelector('.jupyter-widgets') !== null || out.textContent.trim() !== '')
"""

# True once a "Run All" has finished: no cell queued or running ([*]), and either every non-empty
# code cell shows an execution count or a cell failed (Lab then resets the cells after it to [ ]).
# Only valid after the outputs were cleared, so stale counts cannot satisfy it.
_LAB_RUN_FINISHED_JS = """
(panel) => {
    let allRan = true;
    for (const cell of panel.querySelectorAll('.jp-Notebook .jp-CodeCell')) {
        const prompt = (cell.querySelector('.jp-InputPrompt')?.textContent || '').trim();
        if (prompt.includes('*')) return false;
        const source = (cell.querySelector('.cm-content')?.textContent || '').trim();
        if (source !== '' && !/\\[\\d+\\]/.test(prompt)) allRan = false;
    }
    const failed = panel.querySelector('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]');
    return allRan || failed !== null;
}
"""

_LAB_OUTPUTS_CLEARED_JS = """
(panel) => [...panel.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')]
    .every((p) => !/[\\d*]/.test(p.textContent))
"""

_VOILA_READY_JS = """
() => {
    if (document.getElementById('loading')) return false;
    const cells = document.getElementById('rendered_cells');
    if (!cells || cells.style.display === 'none') return false;
    return document.querySelector('script[type="application/vnd.voila.cell-output+json"]') === null;
}
"""

_COLLECT_ERROR_TEXTS_JS = """
(stderrSelector) => {
    const texts = [...document.querySelectorAll(stderrSelector)].map((e) => e.textContent);
    for (const out of document.querySelectorAll('.jp-OutputArea-output')) {
        const text = out.textContent || '';
        if (/Error displaying widget|There was an error when executing cell/.test(text)) texts.push(text);
    }
    return texts;
}
"""


@dataclass
class PageErrors:
    """What went wrong in the page, collected by the `page` fixture while the test ran."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    blocked_requests: list[str] = field(default_factory=list)

    def problems(self, ignore: Iterable[str | re.Pattern[str]] = ()) -> list[str]:
        """Console errors and uncaught page exceptions, minus those matching an `ignore` pattern."""
        patterns = [re.compile(p) if isinstance(p, str) else p for p in ignore]
        found = [f"console.error: {t}" for t in self.console_errors] + [f"pageerror: {t}" for t in self.page_errors]
        return [p for p in found if not any(pat.search(p) for pat in patterns)]

    def assert_clean(self, ignore: Iterable[str | re.Pattern[str]] = ()) -> None:
        """Fail if the page logged a console error or threw an uncaught exception."""
        problems = self.problems(ignore)
        assert not problems, "browser reported errors:\n" + "\n".join(problems)


def _url(base_url: str, *parts: str) -> str:
    return base_url.rstrip("/") + "/" + "/".join(quote(p.strip("/")) for p in parts if p)


def run_lab_menu_command(
    page: Page, menu: str, command: str, *, menu_bar: str = LAB_MENU_BAR, timeout_ms: float = 30_000
) -> None:
    """Click `menu` in the menu bar (JupyterLab's, or `NOTEBOOK7_MENU_BAR`), then the item bound to `command` (e.g.
    "runmenu:run-all") once it is there and enabled: the command is registered and applies to the current notebook.

    A busy machine loads the front end's plugins slowly: the menu can open before the command is in it, or with the
    item disabled until the notebook is the current widget. Closing and reopening the menu re-reads both."""
    title = page.locator(f"{menu_bar} .lm-MenuBar-item").filter(has_text=re.compile(rf"^{re.escape(menu)}$"))
    item = page.locator(f'.lm-Menu .lm-Menu-item[data-command="{command}"]:not(.lm-mod-disabled)')
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        title.click(timeout=timeout_ms)
        try:
            expect(item).to_be_visible(timeout=min(5_000, timeout_ms))
            break
        except AssertionError:
            page.keyboard.press("Escape")  # closes the menu; its items are rebuilt when it opens again
            expect(page.locator(".lm-Menu")).to_have_count(0, timeout=timeout_ms)
            if time.monotonic() > deadline:
                waited = f"{timeout_ms / 1000:.0f} s"
                raise AssertionError(f"no enabled item {command!r} in the {menu} menu within {waited}") from None
    item.click(timeout=timeout_ms)
    expect(page.locator(".lm-Menu")).to_have_count(0, timeout=timeout_ms)


def wait_for_lab_kernel_idle(page: Page, *, timeout_ms: float = IDLE_TIMEOUT_MS) -> None:
    """Wait until JupyterLab's status bar shows a started kernel that is idle ("Python 3 (ipykernel) | Idle")."""
    expect(page.locator(LAB_KERNEL_STATUS)).to_have_text(LAB_KERNEL_IDLE, timeout=timeout_ms)


def wait_for_notebook_ready(page: Page, panel: Locator, *, code_cells: int | None = None,
                            timeout_ms: float = OPEN_TIMEOUT_MS) -> None:
    """Wait until the notebook in `panel` can run: its model loaded (every cell attached, `code_cells` code cells
    where given) and its kernel connected and idle (the toolbar's indicator, in JupyterLab and Notebook 7; the
    kernel's name shows before the page has connected to it)."""
    cells = panel.locator(".jp-Notebook .jp-CodeCell")
    if code_cells is None:
        expect(cells.first).to_be_attached(timeout=timeout_ms)
    else:
        expect(cells).to_have_count(code_cells, timeout=timeout_ms)
    expect(panel.locator(NOTEBOOK_KERNEL_INDICATOR)).to_have_attribute("data-status", "idle", timeout=timeout_ms)


def wait_for_widgets_rendered(page: Page, root: Locator, *, timeout_ms: float = OPEN_TIMEOUT_MS) -> None:
    """Wait until every ipywidgets output under `root` has rendered its view."""
    page.wait_for_function(_WIDGETS_RENDERED_JS, arg=root.element_handle(timeout=timeout_ms), timeout=timeout_ms)


def lab_notebook_panel(page: Page, path: str, *, timeout_ms: float = OPEN_TIMEOUT_MS) -> Locator:
    """The JupyterLab panel of the open notebook `path`, found through its main-area tab."""
    name = PurePosixPath(path).name
    label = page.locator(".lm-TabBar-tabLabel").filter(has_text=re.compile(rf"^{re.escape(name)}$"))
    tab = page.locator("#jp-main-dock-panel .lm-TabBar-tab").filter(has=label)
    expect(tab).to_have_count(1, timeout=timeout_ms)
    panel = page.locator(f'.jp-NotebookPanel[id="{tab.get_attribute("data-id")}"]')
    expect(panel).to_be_visible(timeout=timeout_ms)
    return panel


def run_all_cells_in_lab(
    page: Page, panel: Locator, *, menu_bar: str = LAB_MENU_BAR, timeout_ms: float = RUN_TIMEOUT_MS
) -> None:
    """Clear all outputs, run all cells from the Run menu, and wait until execution has finished.

    Clearing first resets every prompt to `[ ]`, so a notebook saved with execution counts cannot look
    finished before it ran. Execution stops at the first failing cell, as in JupyterLab itself.
    `menu_bar`: NOTEBOOK7_MENU_BAR in Notebook 7, whose notebook page is the same panel.
    """
    wait_for_notebook_ready(page, panel, timeout_ms=timeout_ms)
    run_lab_menu_command(page, "Edit", "editmenu:clear-all", menu_bar=menu_bar)
    page.wait_for_function(_LAB_OUTPUTS_CLEARED_JS, arg=panel.element_handle(), timeout=timeout_ms)
    run_lab_menu_command(page, "Run", "runmenu:run-all", menu_bar=menu_bar)
    page.wait_for_function(_LAB_RUN_FINISHED_JS, arg=panel.element_handle(), timeout=timeout_ms, polling=100)
    expect(panel.locator(NOTEBOOK_KERNEL_INDICATOR)).to_have_attribute("data-status", "idle", timeout=timeout_ms)


def open_notebook_in_lab(
    page: Page, base_url: str, path: str, *, run_all: bool = True, timeout_ms: float = RUN_TIMEOUT_MS
) -> Locator:
    """Open `path` (relative to the server root) in JupyterLab, wait for an idle kernel, and run all cells.

    Returns the notebook panel; scope widget locators to it. `?reset` starts from an empty workspace,
    so tabs from earlier tests never come back.
    """
    page.goto(_url(base_url, "lab", "tree", path) + "?reset", timeout=timeout_ms)
    panel = lab_notebook_panel(page, path, timeout_ms=timeout_ms)
    wait_for_lab_kernel_idle(page, timeout_ms=timeout_ms)
    if run_all:
        run_all_cells_in_lab(page, panel, timeout_ms=timeout_ms)
        wait_for_widgets_rendered(page, panel, timeout_ms=timeout_ms)
    return panel


def open_in_voila(page: Page, base_url: str, path: str | None = None, *, timeout_ms: float = RUN_TIMEOUT_MS) -> Locator:
    """Open `/voila/render/<path>` (or the server root for a single-notebook Voilà) and wait for the widgets.

    Voilà executes the whole notebook before it shows it; this waits until the spinner is gone, every
    output is rendered, and every widget view is drawn. Returns the `#rendered_cells` container.
    """
    url = _url(base_url, "voila", "render", path) if path else base_url.rstrip("/") + "/"
    page.goto(url, wait_until="domcontentloaded", timeout=timeout_ms)
    page.wait_for_function(_VOILA_READY_JS, timeout=timeout_ms)
    cells = page.locator("#rendered_cells")
    expect(cells).to_be_visible(timeout=timeout_ms)
    wait_for_widgets_rendered(page, cells, timeout_ms=timeout_ms)
    return cells


def type_into_widget(page: Page, locator: Locator, text: str, *, timeout_ms: float = 30_000) -> None:
    """Replace the text of an ipywidgets Text/Textarea so its `observe` callbacks fire.

    `locator` may be the widget (e.g. `.widget-text`) or its `<input>`/`<textarea>`. `fill` sends an
    `input` event (enough with `continuous_update=True`); the extra `change` event covers
    `continuous_update=False`. traitlets does not re-notify an unchanged value, so callbacks fire once.
    """
    locator.first.wait_for(state="attached", timeout=timeout_ms)
    is_field = locator.first.evaluate("(el) => el.matches('input, textarea')")
    field_ = locator.first if is_field else locator.locator("input, textarea").first
    expect(field_).to_be_editable(timeout=timeout_ms)
    field_.fill(text, timeout=timeout_ms)
    field_.dispatch_event("change")
    expect(field_).to_have_value(text, timeout=timeout_ms)


def find_tracebacks(page: Page) -> list[str]:
    """Texts of the error outputs (tracebacks, widget render errors) currently shown in the page."""
    texts: list[str] = page.evaluate(_COLLECT_ERROR_TEXTS_JS, STDERR_OUTPUT)
    return [t for t in texts if _TRACEBACK.search(t)]


def _open_lab_log_console_if_it_has_entries(page: Page, timeout_ms: float) -> None:
    """Widget callback output outside an Output widget goes to Lab's log console: show it if non-empty."""
    status = page.locator(LAB_LOG_STATUS)
    if status.count() == 0:
        return
    entries = re.search(r"(\d+) log entr", status.first.get_attribute("title") or "")
    if not entries or int(entries.group(1)) == 0:
        return
    console = page.locator(".jp-LogConsolePanel")
    if not console.is_visible():
        status.first.click(timeout=timeout_ms)
    expect(console.locator(".jp-OutputArea-output").first).to_be_attached(timeout=timeout_ms)


def assert_no_traceback(page: Page, *, timeout_ms: float = IDLE_TIMEOUT_MS) -> None:
    """Fail if any output area (cells, Output widgets, Lab's log console) shows a Python traceback.

    In JupyterLab and Notebook 7 it first waits for the kernel to be idle, so an error still on its way is seen.
    Voilà drops the output of widget callbacks unless they write into an Output widget
    (`@out.capture()`), so lessons should route callback errors there to make them testable.
    """
    if page.locator(LAB_KERNEL_STATUS).count():
        wait_for_lab_kernel_idle(page, timeout_ms=timeout_ms)
        _open_lab_log_console_if_it_has_entries(page, timeout_ms)
    elif page.locator(NOTEBOOK_KERNEL_INDICATOR).count() == 1:  # Notebook 7: no status bar
        expect(page.locator(NOTEBOOK_KERNEL_INDICATOR)).to_have_attribute("data-status", "idle", timeout=timeout_ms)
    found = find_tracebacks(page)
    assert not found, "the page shows a Python traceback:\n\n" + "\n\n".join(found)


def page_kernel_id(page: Page) -> str:
    """The id of the kernel a Voilà page was handed (from the page's own config)."""
    return page.evaluate("() => JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId")


KERNEL_CONNECTIONS = """async (kernel) => {
  const config = JSON.parse(document.getElementById('jupyter-config-data').textContent);
  const base = (config.baseUrl || '/').replace(/\\/?$/, '/');
  const answer = await fetch(base + 'api/kernels/' + kernel, { credentials: 'same-origin', cache: 'no-store' });
  return answer.ok ? (await answer.json()).connections : -1;
}"""


def wait_for_kernel_connection(page: Page, kernel: str, timeout: float = 30) -> None:
    """Wait until the page's websocket to its kernel is open (the kernel API counts it among its connections)."""
    deadline = time.monotonic() + timeout
    while (connections := page.evaluate(KERNEL_CONNECTIONS, kernel)) < 1:
        assert time.monotonic() < deadline, f"the page never connected to its kernel {kernel} ({connections})"
        time.sleep(0.2)


def kill_page_kernel(page: Page, server_pid: int) -> str:
    """Kill the kernel process of a Voilà page as the system's out-of-memory killer does (SIGKILL), once the page is
    connected to it (a kernel killed before that is one the page never had: its notice says so); return its id."""
    import psutil

    kernel = page_kernel_id(page)
    wait_for_kernel_connection(page, kernel)
    [process] = [p for p in psutil.Process(server_pid).children(recursive=True)
                 if f"kernel-{kernel}.json" in " ".join(p.cmdline())]
    process.kill()
    return kernel
