"""Classroom mode: the kernel manager without a server (a kernel is culled only once no page has been connected to it
for the idle timeout, so a preheated kernel handed to a page that has not connected yet survives; the room's cap and
the kernels' owners), then `bleu-lab classroom` itself, started as an instructor would, with plain HTTP clients: the
token, one kernel per client (a reload replaces it), the 'classroom full' page, owner-scoped shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from async_run import run_async
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager

from bleu_lab.course import classroom
from bleu_lab.course.classroom import ClassroomKernelManager, may_cull, settled


@pytest.mark.parametrize(
    ("connections", "since", "now", "expected"),
    [(1, 0.0, 100.0, False), (0, None, 100.0, False), (0, 50.0, 100.0, False), (0, 40.0, 100.0, True)],
)
def test_may_cull_only_after_the_timeout_without_a_page(connections, since, now, expected):
    assert may_cull(connections, since, now, timeout=60) is expected


def test_a_kernel_is_culled_a_timeout_after_its_page_left(monkeypatch):
    culled: list[str] = []

    async def idle_check(self, kernel_id):  # jupyter_server's own check: stands for "idle for long enough"
        culled.append(kernel_id)

    clock = iter([0.0, 30.0, 70.0, 80.0, 100.0, 141.0])
    monkeypatch.setattr(AsyncMappingKernelManager, "cull_kernel_if_idle", idle_check)
    monkeypatch.setattr(classroom, "monotonic", lambda: next(clock))
    manager = ClassroomKernelManager(cull_idle_timeout=60)
    manager._kernel_connections["k"] = 0

    def cull_pass() -> list[str]:
        run_async(manager.cull_kernel_if_idle("k"))
        return culled

    assert cull_pass() == []  # t=0: first seen without a page (handed out, the page still loading)
    manager.notify_connect("k")
    assert cull_pass() == []  # t=30: the page connected
    manager.notify_disconnect("k")
    assert cull_pass() == []  # t=70: the tab closed: the clock starts again
    assert cull_pass() == []  # t=80
    assert cull_pass() == []  # t=100: 30 s without a page
    assert cull_pass() == ["k"]  # t=141: 71 s without a page: jupyter_server's idle check decides


def test_a_page_still_loading_gets_the_connect_grace(monkeypatch):
    culled: list[str] = []

    async def idle_check(self, kernel_id):
        culled.append(kernel_id)

    clock = iter([0.0, 100.0, 121.0])
    monkeypatch.setattr(AsyncMappingKernelManager, "cull_kernel_if_idle", idle_check)
    monkeypatch.setattr(classroom, "monotonic", lambda: next(clock))
    manager = ClassroomKernelManager(cull_idle_timeout=60, connect_grace=120)
    manager._kernel_connections["k"] = 0
    for expected in ([], [], ["k"]):  # never connected: 100 s is not enough, 121 s is
        run_async(manager.cull_kernel_if_idle("k"))
        assert culled == expected


@pytest.mark.parametrize(
    ("started", "last", "state", "expected"),
    [(None, 5, "idle", False), (0, 0, "idle", False), (0, 5, "busy", False), (0, 9.5, "idle", False),
     (0, 5, "idle", True)],
)
def test_a_new_kernel_settles_after_running_and_a_quiet_second(started, last, state, expected):
    def at(s):
        return None if s is None else datetime(2025, 1, 1, tzinfo=UTC) + timedelta(seconds=s)

    assert settled(at(started), at(last), state, at(10)) is expected


def test_kernels_start_one_at_a_time(monkeypatch):
    starting, most = 0, 0

    async def start(self, kernel_id=None, **kwargs):
        nonlocal starting, most
        starting += 1
        most = max(most, starting)
        kernel = SimpleNamespace(execution_state="busy", last_activity=classroom.utcnow() - timedelta(seconds=5))
        self._kernels[kernel_id] = kernel

        async def run_notebook():  # the notebook runs, then the kernel is idle: the turn ends a second later
            nonlocal starting
            await asyncio.sleep(0.05)
            kernel.execution_state, kernel.last_activity = "idle", classroom.utcnow()
            await asyncio.sleep(0.5)
            starting -= 1

        asyncio.get_running_loop().create_task(run_notebook())
        return kernel_id

    monkeypatch.setattr(AsyncMappingKernelManager, "start_kernel", start)

    async def room() -> tuple[list[str], float]:
        manager = ClassroomKernelManager(max_starting=1, start_turn_s=10)
        begin = asyncio.get_running_loop().time()
        ids = await asyncio.gather(*(manager.start_kernel(kernel_id=f"k{i}") for i in range(3)))
        return ids, asyncio.get_running_loop().time() - begin

    ids, seconds = run_async(room())
    assert ids == ["k0", "k1", "k2"] and most == 1 and seconds < 10  # each waited for the last to settle, not 10 s


# --- the classroom server, as `bleu-lab classroom` starts it -----------------------------------------------------


@pytest.mark.parametrize(
    ("pool_size", "max_students", "taken", "expected"),
    [(2, 0, 50, 2), (20, 20, 0, 20), (20, 20, 19, 1), (20, 20, 20, 0), (2, 20, 5, 2), (5, 3, 7, 0)],
)
def test_spares_never_take_the_room_past_its_cap(pool_size, max_students, taken, expected):
    assert classroom.spares(pool_size, max_students, taken) == expected
    assert classroom.room_for(max_students, taken) is (max_students == 0 or taken < max_students)


def test_admission_stops_at_the_cap_and_counts_only_running_kernels():
    manager = ClassroomKernelManager(max_students=2)
    manager._kernels.update({"k1": object(), "k2": object()})
    assert manager.admit() and manager.admit() and not manager.admit()  # two requests in flight fill the room
    manager.claim("k1", "user:a")
    manager.release()
    manager.claim("k2", "user:b")
    manager.release()
    assert not manager.admit() and manager.kernels_of("user:a") == ["k1"] and manager.owner("k2") == "user:b"
    del manager._kernels["k1"]  # culled or shut down: the place is free again, and nobody owns k1 any more
    assert manager.owner("k1") is None and manager.kernels_of("user:a") == [] and manager.admit()


def test_a_clients_newer_request_overtakes_the_waiting_one_and_idle_clients_are_forgotten():
    manager = ClassroomKernelManager()
    first, second = manager.newest_request("ip:10.0.0.1"), manager.newest_request("ip:10.0.0.1")
    assert manager.superseded("ip:10.0.0.1", first) and not manager.superseded("ip:10.0.0.1", second)
    for i in range(1002):
        manager.newest_request(f"user:{i}")
        manager.client_lock(f"user:{i}")
    assert len(manager._client_locks) < 10  # a script that makes up a client per request grows nothing


@pytest.mark.parametrize(("students", "sentence"), [(1, "The only place of this BLEU page is taken."),
                                                    (2, "All 2 places of this BLEU page are taken."),
                                                    (30, "All 30 places of this BLEU page are taken.")])
def test_the_full_page_counts_places_in_good_english(students, sentence):
    page = classroom.full_page(students, retry=30)
    assert sentence in page and "1 places" not in page
    assert '<meta http-equiv="refresh" content="30">' in page and "every 30 seconds" in page


def test_the_playground_and_voila_json_are_found_in_one_place():
    files = classroom.classroom_files()
    assert files.notebook.is_file() and (files.root / "voila.json").is_file()
    args = classroom.build_parser().parse_args(["--students", "25", "--token", "t0ken"])
    argv = classroom.voila_arguments(args, files)
    assert argv[0] == str(files.notebook) and "--Voila.token=t0ken" in argv
    assert "--ClassroomKernelManager.max_students=25" in argv
    assert '--VoilaConfiguration.resources={"kernel_memory_mb": 1024}' in argv  # the limit a dead kernel's page names
    assert '"notebooks/playground.ipynb": {"pool_size": 25}' in argv[-1]
    assert classroom.build_parser().parse_args([]).students == 2  # one student at home: a small pool


def test_voila_takes_uploads_as_big_as_the_comparison_page_accepts():
    from bleu_lab.compare.files import MAX_UPLOAD_BYTES
    from bleu_lab.course import UPLOAD_MESSAGE_BYTES

    settings = json.loads((classroom.classroom_files().root / "voila.json").read_text(encoding="utf-8"))
    assert settings["Voila"]["tornado_settings"]["websocket_max_message_size"] == UPLOAD_MESSAGE_BYTES
    # an upload up to twice the bound reaches the kernel (which refuses it with a message), and no message may hold
    # more than Jupyter's own default of 10 MiB: 15 messages of 20 MB once raised the server from 250 to 600 MB
    assert 2 * MAX_UPLOAD_BYTES <= UPLOAD_MESSAGE_BYTES <= 10 * 2**20


def test_the_comparison_page_is_served_with_its_own_pool():
    args = classroom.build_parser().parse_args(["--page", "compare", "--students", "3"])
    files = classroom.classroom_files(args.page)
    argv = classroom.voila_arguments(args, files)
    assert files.notebook.name == "compare_app.ipynb" and files.notebook.is_file() and argv[0] == str(files.notebook)
    assert '"notebooks/compare_app.ipynb": {"pool_size": 3}' in argv[-1]
    with pytest.raises(ValueError, match="page must be one of playground, compare"):
        classroom.classroom_files("lesson")


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--students", "0"], "--students must be between 1 and 500, got 0"),
     (["--port", "70000"], "--port must be between 1 and 65535, got 70000"),
     (["--page", "lesson"], "--page must be one of playground, compare, got 'lesson'")],
)
def test_bad_classroom_arguments_are_one_line_errors(capsys, args, message):
    from bleu_lab.cli import main

    assert main(["classroom", *args]) == 2
    assert capsys.readouterr().err == f"bleu-lab classroom: error: {message}\n"


TOKEN = "class-token-for-tests"


class Student:
    """A client of the classroom server: urllib with a cookie jar of its own, given the instructor's ``token`` in the
    app's address as students are, and as a header to the API (``cookies=False``: a script that keeps no cookies and
    sends the token as a header everywhere)."""

    def __init__(self, base: str, token: str | None = TOKEN, cookies: bool = True):
        import urllib.request
        from http.cookiejar import CookieJar

        self.base, self.token, self.cookies, self.kernels = base, token, cookies, []
        self.opener = urllib.request.build_opener(
            *([urllib.request.HTTPCookieProcessor(CookieJar())] if cookies else []))

    def request(self, method: str, path: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
        import urllib.error
        import urllib.request

        request = urllib.request.Request(self.base + path, method=method, headers=headers or {})
        if self.token and ("/api/" in path or not self.cookies):
            request.add_header("Authorization", f"token {self.token}")  # token auth: no XSRF cookie needed
        try:
            with self.opener.open(request, timeout=120) as response:
                return response.status, response.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as err:
            return err.code, err.read().decode("utf-8", "replace")

    def open_app(self, query: str = "") -> tuple[int, str | None, str]:
        """GET the app (following the login-cookie redirect); the status, the page's kernel id and the page."""
        path = "/" + (f"?token={self.token}" if self.token and self.cookies else "") + query
        status, page = self.request("GET", path)
        found = re.search(r'"kernelId": "([0-9a-f-]+)"', page)
        self.kernels += [found.group(1)] if found else []
        return status, found and found.group(1), page

    def websocket_status(self, kernel_id: str) -> int:
        """Open the kernel's websocket (what the widgets speak) with this client's cookies: 101, or the refusal."""
        from tornado.httpclient import HTTPClientError, HTTPRequest
        from tornado.websocket import websocket_connect

        jar = next((h.cookiejar for h in self.opener.handlers if hasattr(h, "cookiejar")), [])
        headers = {"Cookie": "; ".join(f"{c.name}={c.value}" for c in jar)} if jar else {}
        if self.token and not self.cookies:
            headers["Authorization"] = f"token {self.token}"
        url = f"{self.base.replace('http', 'ws')}/api/kernels/{kernel_id}/channels"

        async def connect() -> int:
            try:
                (await websocket_connect(HTTPRequest(url, headers=headers, connect_timeout=60))).close()
            except HTTPClientError as err:
                return err.code
            return 101

        return run_async(connect())

    def leave(self) -> None:
        """Shut down this student's kernel (as its owner) so that the next test finds the room empty."""
        token, self.token = self.token, self.token or TOKEN
        for kernel in self.kernels:
            self.request("DELETE", f"/api/kernels/{kernel}")
        self.token = token


@contextlib.contextmanager
def running_classroom(home: Path, *options: str) -> Iterator[tuple[str, subprocess.Popen, Path]]:
    """`bleu-lab classroom --students 2 --token ... OPTIONS` started from an unrelated folder (it must find
    voila.json), until its pool of 2 kernels is filled."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "JPY_"))}
    for name in ("config", "data", "runtime"):
        (home / name).mkdir()
    env.update(JUPYTER_CONFIG_DIR=str(home / "config"), JUPYTER_DATA_DIR=str(home / "data"),
               JUPYTER_RUNTIME_DIR=str(home / "runtime"), PYDEVD_DISABLE_FILE_VALIDATION="1")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    log_path = home / "classroom.log"
    with log_path.open("wb") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "bleu_lab", "classroom", "--students", "2", "--token", TOKEN, "--port", str(port),
             "--ip", "127.0.0.1", *options], cwd=home, env=env, stdout=log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 240
    try:
        while "is filled with 2 kernel(s)" not in log_path.read_text(errors="replace"):
            assert server.poll() is None and time.monotonic() < deadline, log_path.read_text(errors="replace")[-3000:]
            time.sleep(0.5)
        yield f"http://127.0.0.1:{port}", server, log_path
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()


@pytest.fixture(scope="module")
def classroom_server(tmp_path_factory) -> Iterator[tuple[str, subprocess.Popen, Path]]:
    """The playground's classroom server, shared by this module's tests."""
    with running_classroom(tmp_path_factory.mktemp("classroom-server")) as server:
        yield server


@pytest.fixture
def room(classroom_server) -> Iterator:
    """Make students of the classroom server (``room(**options)``); they leave after the test."""
    made: list[Student] = []

    def student(**options) -> Student:
        made.append(Student(classroom_server[0], **options))
        return made[-1]

    yield student
    for each in made:
        each.leave()
    wait_for_kernels(classroom_server[1], lambda ids: not any(k in ids for s in made for k in s.kernels),
                     "the students' kernels did not go")


def kernel_ids(server: subprocess.Popen) -> set[str]:
    """The kernels the server runs (from their connection files), spares included."""
    import psutil

    found = set()
    for child in psutil.Process(server.pid).children(recursive=True):
        with contextlib.suppress(psutil.Error):
            found |= set(re.findall(r"kernel-([0-9a-f-]+)\.json", " ".join(child.cmdline())))
    return found


def wait_for_kernels(server: subprocess.Popen, condition, what: str) -> set[str]:
    deadline = time.monotonic() + 60
    while not condition(running := kernel_ids(server)):
        assert time.monotonic() < deadline, f"{what}: {running}"
        time.sleep(0.5)
    return running


def test_the_token_is_required_and_taken_off_the_address(room):
    status, kernel, page = room(token=None).open_app()
    assert kernel is None and "password" in page.lower()  # Jupyter's login page: no app without the token
    status, kernel, _ = room(token="wrong").open_app()
    assert kernel is None
    student = room()
    status, kernel, _ = student.open_app()
    assert status == 200 and kernel
    student.token = None  # logged in: the cookie is enough from now on
    status, reloaded, _ = student.open_app()
    assert status == 200 and reloaded and reloaded != kernel


def test_a_room_of_two_a_reload_replaces_and_a_third_student_finds_it_full(classroom_server, room):
    server = classroom_server[1]
    ada, bo, cy = room(), room(), room()
    _, first, _ = ada.open_app()
    _, bos, _ = bo.open_app()
    assert first and bos and first != bos
    status, _, page = cy.open_app()
    assert status == 503 and "The classroom is full" in page and "2 places" in page
    _, second, _ = ada.open_app()  # a reload: Ada's first kernel goes, she gets a new one
    assert second and second not in (first, bos)
    wait_for_kernels(server, lambda ids: first not in ids and len(ids) <= 2, "a reload must replace the kernel")


def test_only_a_kernels_owner_can_read_or_shut_it_down(classroom_server, room):
    base, server, _ = classroom_server
    owner, other = room(), room()
    _, kernel, _ = owner.open_app()
    assert kernel and owner.request("GET", f"/api/kernels/{kernel}")[0] == 200
    assert other.request("GET", f"/api/kernels/{kernel}")[0] == 404
    assert other.request("DELETE", f"/api/kernels/{kernel}")[0] == 404
    assert other.request("POST", f"/voila/api/shutdown/{kernel}")[0] == 404
    assert Student(base, cookies=False).request("DELETE", f"/api/kernels/{kernel}")[0] == 404
    assert other.websocket_status(kernel) == 404 and owner.websocket_status(kernel) == 101
    assert kernel in kernel_ids(server)
    assert owner.request("DELETE", f"/api/kernels/{kernel}")[0] == 204
    wait_for_kernels(server, lambda ids: kernel not in ids, "the owner's shutdown did not happen")


def test_a_client_without_cookies_is_one_client_per_address(classroom_server, room):
    server = classroom_server[1]
    script = room(cookies=False)
    _, first, _ = script.open_app()
    _, second, _ = script.open_app()  # the same address: the second load replaces the first kernel
    assert first and second and first != second
    assert script.request("GET", f"/api/kernels/{second}")[0] == 200
    wait_for_kernels(server, lambda ids: first not in ids and len(ids) <= 2, "the script holds more than one kernel")


def test_the_comparison_page_serves_a_room_too(tmp_path):
    with running_classroom(tmp_path, "--page", "compare") as (base, server, _):
        student = Student(base)
        status, kernel, page = student.open_app()
        assert status == 200 and kernel and "compare_app" in page  # the comparison notebook, with a kernel of its own
        classmate = Student(base)
        assert classmate.open_app()[0] == 200  # logged in, with a kernel of their own
        assert student.websocket_status(kernel) == 101 and classmate.websocket_status(kernel) == 404
        student.leave()
        classmate.leave()


def kernel_websocket_messages(student: Student, kernel_id: str, messages: list[str], wait_for: str | None = None):
    """Send ``messages`` on the kernel's websocket, each on a connection of its own, as ``student``: per message,
    "closed CODE" or "open", and the reply's content when ``wait_for`` is a msg_id."""
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import WebSocketClosedError, websocket_connect

    jar = next(h.cookiejar for h in student.opener.handlers if hasattr(h, "cookiejar"))
    headers = {"Cookie": "; ".join(f"{c.name}={c.value}" for c in jar)}
    url = f"{student.base.replace('http', 'ws')}/api/kernels/{kernel_id}/channels"

    async def send(message: str) -> tuple[int | None, dict | None]:
        ws = await websocket_connect(HTTPRequest(url, headers=headers, connect_timeout=60), max_message_size=2**30)
        with contextlib.suppress(WebSocketClosedError):  # the server may close before the whole message is sent
            await ws.write_message(message)
        while True:
            try:
                answer = await asyncio.wait_for(ws.read_message(), timeout=120 if wait_for else 20)
            except TimeoutError:  # still open, and no reply awaited
                ws.close()
                return "open", None
            if answer is None:
                return f"closed {ws.close_code}", None
            reply = json.loads(answer)
            if reply.get("parent_header", {}).get("msg_id") == wait_for and reply["msg_type"].endswith("_reply"):
                ws.close()
                return "open", reply.get("content")

    return [run_async(send(message)) for message in messages]


def kernel_info_request(msg_id: str, padding: int = 0) -> str:
    """A message Voilà lets a page send to its kernel, ``padding`` characters bigger (as an upload's content makes a
    widget message)."""
    header = {"msg_id": msg_id, "msg_type": "kernel_info_request", "username": "student", "session": "test-session",
              "date": datetime.now(UTC).isoformat(), "version": "5.3"}
    return json.dumps({"header": header, "parent_header": {}, "metadata": {"padding": "x" * padding},
                       "channel": "shell", "buffers": [], "content": {}})


def test_the_comparison_room_bounds_each_message_and_each_kernels_memory(tmp_path):
    """The server takes a message as big as an upload at the page's bound and refuses a bigger one before reading it
    (15 refused 20 MB messages leave the server's memory as it was); every kernel, the preheated ones included,
    starts under the --memory limit (test_limits.py runs a kernel past it)."""
    import psutil

    from bleu_lab.compare.files import MAX_UPLOAD_BYTES, UPLOAD_MESSAGE_BYTES

    with running_classroom(tmp_path, "--page", "compare", "--memory", "700") as (base, server, _):
        student = Student(base)
        status, kernel, _ = student.open_app()
        assert status == 200 and kernel
        kernels = [p for p in psutil.Process(server.pid).children(recursive=True)
                   if any("kernel-" in part for part in p.cmdline())]
        assert len(kernels) >= 2  # the student's and the spare the pool keeps while there is room
        assert all(p.rlimit(psutil.RLIMIT_DATA) == (700 * 2**20, 700 * 2**20) for p in kernels)

        server_memory = psutil.Process(server.pid).memory_info().rss
        too_big = kernel_info_request("too-big", padding=20 * 2**20)
        answers = kernel_websocket_messages(student, kernel, [too_big] * 15)
        # refused as soon as its length is read: tornado sends 1009 ("message too big") and drops the connection
        assert all(closed.startswith("closed") for closed, _ in answers) and len(answers) == 15
        assert psutil.Process(server.pid).memory_info().rss - server_memory < 20 * 2**20

        fits = kernel_info_request("fits", padding=MAX_UPLOAD_BYTES + 2**20)  # past the page's own bound
        assert len(fits) < UPLOAD_MESSAGE_BYTES
        [(closed, reply)] = kernel_websocket_messages(student, kernel, [fits], wait_for="fits")
        assert closed == "open" and reply["status"] == "ok"  # it reached the kernel, which answered
        student.leave()
