"""Fixtures for browser tests: a JupyterLab and a Voilà server on loopback, and Playwright driving Chromium.

The whole directory is skipped (with the reason shown by `pytest -rs`) when Chromium or Playwright is
missing, so a student's clone without a browser still passes. Set BLEU_LAB_REQUIRE_BROWSER=1 (CI does)
to turn that skip into a failure. BLEU_LAB_CHROMIUM overrides the browser path (default /usr/bin/chromium).
"""

from __future__ import annotations

import contextlib
import http.client
import importlib.util
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Playwright

    from .helpers import PageErrors

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
CHROMIUM = os.environ.get("BLEU_LAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
]
SERVER_START_TIMEOUT_S = 60.0
# Anything that is not loopback is answered with an empty 200 in the browser: tests stay offline and the
# CDN stylesheets Voilà links (Font Awesome) neither hang nor log "Failed to load resource".
EXTERNAL_URL = r"^(https?|wss?)://(?!(127\.0\.0\.1|localhost|\[::1\])(:\d+)?/)"

# The generated smoke notebook must never be collected by nbval (`--nbval` is in addopts).
collect_ignore_glob = ["_*.ipynb"]


def _browser_skip_reason() -> str | None:
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        return (
            f"browser tests need Chromium at {CHROMIUM} (apt-get install chromium, "
            "or point BLEU_LAB_CHROMIUM at a Chromium binary)"
        )
    if importlib.util.find_spec("playwright") is None:
        return 'browser tests need the playwright package (pip install -e ".[test]")'
    return None


class _UnavailableBrowserModule(pytest.Module):
    """Stands in for a test module when no browser is available: skips (or fails) it without importing it."""

    def collect(self):  # type: ignore[override]
        reason = _browser_skip_reason() or "browser unavailable"
        if os.environ.get("BLEU_LAB_REQUIRE_BROWSER") == "1":
            pytest.fail(f"BLEU_LAB_REQUIRE_BROWSER=1 but {reason}", pytrace=False)
        pytest.skip(reason, allow_module_level=True)


def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> pytest.Module | None:
    """Replace every test module of this directory by a skipped one when Chromium or Playwright is missing."""
    if _browser_skip_reason() is not None and module_path.name.startswith("test_"):
        return _UnavailableBrowserModule.from_parent(parent, path=module_path)
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class ServerProcess:
    """A Jupyter server or Voilà started for the test session."""

    name: str
    url: str
    process: subprocess.Popen[bytes]
    log_path: Path

    def log_tail(self, chars: int = 6000) -> str:
        """The end of the server's combined stdout/stderr."""
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        return text[-chars:]

    def stop(self) -> None:
        """Terminate the server (which shuts its kernels down), killing it if it does not exit in time."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


_LAB_SERVERS: list[ServerProcess] = []


def _isolated_env(home: Path) -> dict[str, str]:
    """The environment for a server: Jupyter config, data, runtime and settings dirs of its own.

    A student's ~/.jupyter (passwords, settings, workspaces, extra kernels) cannot leak in, and the
    repo root is first on PYTHONPATH so kernels import this checkout's bleu_lab.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "JPY_"))}
    dirs = {
        "JUPYTER_CONFIG_DIR": home / "config",
        "JUPYTER_DATA_DIR": home / "data",
        "JUPYTER_RUNTIME_DIR": home / "runtime",
        "JUPYTERLAB_SETTINGS_DIR": home / "config" / "lab" / "user-settings",
        "JUPYTERLAB_WORKSPACES_DIR": home / "config" / "lab" / "workspaces",
        "IPYTHONDIR": home / "ipython",
    }
    for key, path in dirs.items():
        path.mkdir(parents=True, exist_ok=True)
        env[key] = str(path)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"  # silences debugpy's frozen-modules warning in kernel logs
    return env


# JupyterLab user settings for tests: every cell attached to the DOM, no autosave (running a lesson must
# never rewrite it in the repo), no kernel-picker dialog, no news/update toasts over the widgets.
_LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none", "autoStartDefaultKernel": True},
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
    "@jupyterlab/apputils-extension/notification": {
        "fetchNews": "false",
        "checkForUpdates": False,
        "doNotDisturbMode": True,
    },
}


def _write_lab_settings(settings_dir: Path) -> None:
    for plugin, values in _LAB_SETTINGS.items():
        path = settings_dir / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))


def _ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except (OSError, http.client.HTTPException):  # URLError/HTTPError, refused, reset, timeout, garbled reply
        return False


def headless_lab_options(port: int) -> list[str]:
    """The options of every JupyterLab a test starts: loopback on ``port``, no browser, no token, root allowed."""
    return [
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        "--ServerApp.allow_root=True",
        "--IdentityProvider.token=",
        "--PasswordIdentityProvider.hashed_password=",
    ]


def _start_server(
    name: str, command: Callable[[int], list[str]], ready_path: str, env: dict[str, str], log_dir: Path
) -> ServerProcess:
    """Start `command(port)` on a free loopback port and poll `ready_path` over HTTP until it answers 200.

    Up to three ports are tried (another process may grab the free port first); the server is started
    with port retries off, so it fails instead of silently moving to another port.
    """
    failures = []
    for attempt in range(3):
        port = _free_port()
        log_path = log_dir / f"{name}-{attempt}.log"
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                command(port), cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )
        server = ServerProcess(name, f"http://127.0.0.1:{port}", process, log_path)
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        while time.monotonic() < deadline:
            if _ready(server.url + ready_path):
                return server
            try:  # waits on the process itself: returns at once if it died, else acts as the poll interval
                process.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                continue
            break
        exit_code = process.poll()
        server.stop()
        status = "still not answering, stopped" if exit_code is None else f"exited with code {exit_code}"
        failures.append(f"--- {name} on port {port} ({status}); its log:\n{server.log_tail()}")
        if exit_code is None or exit_code == 0:
            break  # it hung rather than lost a port race: retrying would not help
    pytest.fail(
        f"{name} did not come up (waited up to {SERVER_START_TIMEOUT_S:.0f}s for GET {ready_path} to answer 200)\n"
        + "\n".join(failures),
        pytrace=False,
    )


@pytest.fixture(scope="session")
def browser_tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Session scratch dir for server homes and logs."""
    return tmp_path_factory.mktemp("browser")


@pytest.fixture(scope="session")
def jupyterlab_url(browser_tmp: Path) -> Iterator[str]:
    """Base URL of a JupyterLab serving the repo root (so `notebooks/...` resolve), without auth, offline, with the
    settings `bleu-lab lab` gives it (``course.lab_command``)."""
    home = browser_tmp / "lab-home"
    env = _isolated_env(home)
    _write_lab_settings(Path(env["JUPYTERLAB_SETTINGS_DIR"]))

    def command(port: int) -> list[str]:  # JupyterLab as `bleu-lab lab` starts it, serving the repository
        from bleu_lab.course import lab_command

        return lab_command(REPO_ROOT, None, [
            *headless_lab_options(port),
            "--ServerApp.disable_check_xsrf=True",  # lets the fixtures DELETE sessions over the REST API
            "--ServerApp.terminals_enabled=False",
            "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.handlers.announcements.NeverCheckForUpdate",
            "--LabApp.extension_manager=readonly",
        ])  # fmt: skip

    server = _start_server("jupyterlab", command, "/api/status", env, browser_tmp)
    _LAB_SERVERS.append(server)
    yield server.url
    _LAB_SERVERS.remove(server)
    server.stop()


def voila_command(target: str, port: int, env: dict[str, str], pool: str, *extra: str) -> list[str]:
    """`voila TARGET` on loopback at `port`, run from the repo root so voila.json applies, but with one preheated
    kernel for the playground (its path `pool` as Voilà names it) where voila.json preheats 20 for a room."""
    pools = {"default": {"pool_size": 0}, pool: {"pool_size": 1}}
    return [
        sys.executable, "-m", "voila", target,
        "--no-browser",
        "--Voila.ip=127.0.0.1",
        f"--Voila.port={port}",
        "--Voila.port_retries=0",
        f"--Voila.connection_dir_root={env['JUPYTER_RUNTIME_DIR']}",
        f"--VoilaKernelManager.kernel_pools_config={pools!r}",
        *extra,
    ]  # fmt: skip


def voila_tornado_settings(**extra: object) -> dict:
    """voila.json's ``Voila.tornado_settings`` (websocket ping and message size), with ``extra`` added."""
    return {**json.loads((REPO_ROOT / "voila.json").read_text(encoding="utf-8"))["Voila"]["tornado_settings"], **extra}


@pytest.fixture(scope="session")
def voila_server_factory(browser_tmp: Path) -> Iterator[Callable[[str | None], str]]:
    """Start Voilà on demand: `factory(None)` serves the repo root, `factory("notebooks/x.ipynb")` one notebook.

    Servers are cached per target for the session. A single-notebook server renders at its root URL,
    so pass `path=None` to `open_in_voila` for it.
    """
    servers: dict[str | None, ServerProcess] = {}

    def factory(notebook: str | None = None) -> str:
        if notebook not in servers:
            env = _isolated_env(browser_tmp / f"voila-home-{len(servers)}")
            target = str(REPO_ROOT / notebook) if notebook else str(REPO_ROOT)

            def command(port: int) -> list[str]:
                return voila_command(
                    target, port, env, "notebooks/playground.ipynb",
                    f"--Voila.root_dir={REPO_ROOT}",
                    "--show_tracebacks=True",
                    # Voilà sets no _xsrf cookie, so without this its unload beacon that shuts the page's
                    # kernel down gets a 403 and the kernel stays until culled (test_classroom.py tests that).
                    # A dict given here replaces voila.json's, so its settings (ping, message size) come along.
                    f"--Voila.tornado_settings={voila_tornado_settings(disable_check_xsrf=True)!r}",
                    # Lab-only front-end extensions fail to load in Voilà's older Lab core (console error).
                    "--VoilaConfiguration.extension_denylist=@jupyter-notebook/lab-extension",
                    "--VoilaConfiguration.extension_denylist=@voila-dashboards/jupyterlab-preview",
                )  # fmt: skip

            # A static file: polling "/" of a single-notebook Voilà would execute the notebook.
            servers[notebook] = _start_server("voila", command, "/voila/static/voila.js", env, browser_tmp)
        return servers[notebook].url

    yield factory
    for server in servers.values():
        server.stop()


@pytest.fixture(scope="session")
def voila_url(voila_server_factory: Callable[[str | None], str]) -> str:
    """Base URL of a Voilà serving the repo root: open notebooks at `/voila/render/<path>`."""
    return voila_server_factory(None)


def _shut_down_lab_sessions() -> None:
    """Stop every kernel the last test left on the JupyterLab servers, so they do not pile up."""
    for server in _LAB_SERVERS:
        try:
            with urllib.request.urlopen(server.url + "/api/sessions", timeout=10) as response:
                sessions = json.load(response)
            for session in sessions:
                request = urllib.request.Request(f"{server.url}/api/sessions/{session['id']}", method="DELETE")
                urllib.request.urlopen(request, timeout=30).close()
        except (OSError, http.client.HTTPException, ValueError):
            pass  # best effort: the server shuts everything down at session end anyway


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    """The Playwright driver (sync API); `expect` waits up to 20 s by default."""
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=20_000)
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    """Debian's headless Chromium (Playwright's own browser download is not used).

    Playwright gives each launch a fresh temporary profile (--user-data-dir) and deletes it on close.
    """
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    yield browser
    browser.close()


@pytest.fixture
def page_errors() -> PageErrors:
    """Console errors, uncaught exceptions and blocked external requests of the test's page."""
    from .helpers import PageErrors

    return PageErrors()


@pytest.fixture
def page(browser: Browser, page_errors: PageErrors) -> Iterator[Page]:
    """A fresh page in a new browser context, offline except for loopback, with its errors recorded."""
    from playwright.sync_api import Route

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(30_000)
    context.set_default_navigation_timeout(90_000)

    def block(route: Route) -> None:
        page_errors.blocked_requests.append(route.request.url)
        route.fulfill(status=200, body="")

    context.route(re.compile(EXTERNAL_URL), block)
    page = context.new_page()
    page.on("console", lambda msg: page_errors.console_errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: page_errors.page_errors.append(str(exc)))
    yield page
    # Leaving the page runs Voilà's beforeunload hook, whose beacon shuts the page's kernel down. Request
    # interception would cancel that beacon, so the external-request route goes first.
    with contextlib.suppress(Exception):
        context.unroute_all(behavior="ignoreErrors")
        page.goto("about:blank")
    context.close()
    _shut_down_lab_sessions()
