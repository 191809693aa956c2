"""Benchmark: one Voilà server for a whole room, started as `bleu-lab classroom --students N` (shipped voila.json).

For each class size N (default 1, 5, 10, 20) and each attack size A (default 0: none) a fresh server starts on
loopback for N + MARGIN students (default 1: the hostile script, one client for its address, takes a place, as
the guide advises) and fills its pool of preheated kernels; then N headless Chromium pages arrive together, with A
hostile plain page loads (no browser, no cookies, as a script would send them) at the same moment, and each student
  - waits until the playground is usable (its score is shown and a first typed hypothesis is scored),
  - types UPDATES hypotheses, timing each from the keystroke to the new score in the page;
then every tab closes and the kernels the students used are watched for CLEANUP_S seconds (Voilà's own
shutdown request is refused with XSRF on, so culling must remove them). Prints one row per N:

  N, A, time until usable (median, max), update latency (median, p95), RSS and USS per kernel, the CPU seconds per
  student spent by the browsers, the server and the kernels while the students arrived and typed, the most kernels
  the server ran at once (the cap is N + MARGIN), kernels left.
After the rows, each attacked round's time until usable and update p95 as a ratio of the same N without attack
(the target: within 1.5x).

Loopback only, bounded: every wait has a deadline and the server is stopped at the end. The browsers run on
the same 2 cores as the server here (each headless Chromium page costs 5-10 CPU seconds to load Voilà's front
end); in a lecture hall they run on the students' laptops. ``--no-browsers`` measures that room: each student
fetches the page and then speaks the widget protocol over the kernel's websocket, as the browser would.

    .venv/bin/python benchmarks/bench_classroom.py [--students 1 5 10 20] [--attack 0 25] [--updates 5]
                                                   [--cleanup 120] [--no-browsers]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("BLEU_LAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
NOTEBOOK = "notebooks/playground.ipynb"
START_TIMEOUT_S = 300  # a big pool fills one kernel at a time
PAGE_TIMEOUT_S = 300
SENTENCES = ("the cat sat on the mat", "a cat is on the mat", "there is a dog on the mat", "the mat is on the cat",
             "on the mat there is a cat", "the cat and the dog", "is there a cat", "a cat on a mat")
SCORE = ".bleu-playground .bleu-score-box .bleu-score"
# Offline, as in the browser tests: anything not on loopback gets an empty 200 at once (the shipped voila.json picks
# a template that requests nothing outside the server; the guard stays for a template that does).
EXTERNAL_URL = re.compile(r"^(https?|wss?)://(?!(127\.0\.0\.1|localhost|\[::1\])(:\d+)?/)")
# In the page: type `text` into the hypothesis box as a keystroke would, then resolve with the milliseconds until
# the score shows `expected`.
TYPE_AND_TIME_JS = """
async ([text, expected]) => {
    const box = document.querySelector('.bleu-playground .bleu-hypothesis textarea');
    const score = () => document.querySelector('.bleu-playground .bleu-score-box .bleu-score');
    const start = performance.now();
    const done = new Promise((resolve) => {
        const check = () => { const s = score(); if (s && s.textContent === expected) { resolve(); return true; } };
        const observer = new MutationObserver(() => { if (check()) observer.disconnect(); });
        observer.observe(document.querySelector('.bleu-playground .bleu-score-box'), {subtree: true, childList: true,
                                                                                        characterData: true});
    });
    box.value = text;
    box.dispatchEvent(new Event('input', {bubbles: true}));
    await done;
    return performance.now() - start;
}
"""


@dataclass
class Round:
    """What one class size measured."""

    students: int
    attack: int
    html_s: list[float]  # until the page's HTML is in (the server's part: a kernel handed out, the page rendered)
    usable_s: list[float]
    updates_ms: list[float]
    rss_mb: list[float]
    uss_mb: list[float]
    left_after_s: dict[int, int]  # seconds after the tabs closed -> student kernels still running
    failures: int
    cpu_s: dict[str, float]  # CPU seconds spent while the students arrived and typed, by who spent them
    most_kernels: int  # the most kernels the server ran at once (spares included)
    cap: int  # --students of the server


class CpuMeter:
    """CPU seconds used by the browsers, the Voilà server and its kernels between ``start`` and ``stop``.

    The server and its kernels are the server's process tree; the browsers are the Chromium processes this benchmark
    started. Processes come and go (a tab's renderer exits when it closes), so a thread samples their CPU times and
    keeps the last value seen for each.
    """

    def __init__(self, server: subprocess.Popen):
        self.server, self.seen, self.base = psutil.Process(server.pid), {}, {}
        self.running, self.thread = False, threading.Thread(target=self.poll, daemon=True)

    def processes(self) -> list[tuple[str, psutil.Process]]:
        found = [("server", self.server)]
        found += [("kernels", p) for p in self.server.children(recursive=True)]
        for proc in psutil.Process().children(recursive=True):
            with contextlib.suppress(psutil.Error):
                if "chrom" in proc.name():
                    found.append(("browsers", proc))
        return found

    def sample(self) -> dict[int, tuple[str, float]]:
        found = {}
        for who, proc in self.processes():
            try:
                times = proc.cpu_times()
            except psutil.Error:
                continue
            found[proc.pid] = (who, times.user + times.system)
        return found

    def poll(self) -> None:
        while self.running:
            self.seen.update(self.sample())
            time.sleep(0.25)

    def start(self) -> None:
        self.base = self.sample()
        self.running = True
        self.thread.start()

    def stop(self) -> dict[str, float]:
        self.running = False
        self.thread.join()
        self.seen.update(self.sample())
        spent = {"browsers": 0.0, "server": 0.0, "kernels": 0.0}
        for pid, (who, cpu) in self.seen.items():
            spent[who] += cpu - self.base.get(pid, (who, 0.0))[1]
        return spent


def expected_score(hypothesis: str) -> str:
    """The score text the playground shows for ``hypothesis`` against its starting references."""
    from bleu_lab.course.widgets.model import PlaygroundState, playground_view_model

    return f"{playground_view_model(PlaygroundState(hypothesis=hypothesis)).score:.4f}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_voila(home: Path, port: int, students: int, extra: list[str]) -> subprocess.Popen:
    """`bleu-lab classroom --students N` on loopback, Jupyter dirs of its own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "JPY_"))}
    for name in ("config", "data", "runtime"):
        (home / name).mkdir(parents=True, exist_ok=True)
    env.update(JUPYTER_CONFIG_DIR=str(home / "config"), JUPYTER_DATA_DIR=str(home / "data"),
               JUPYTER_RUNTIME_DIR=str(home / "runtime"), PYTHONPATH=str(REPO), PYDEVD_DISABLE_FILE_VALIDATION="1")
    command = [sys.executable, "-m", "bleu_lab", "classroom", "--students", str(students), "--ip", "127.0.0.1",
               "--port", str(port), *(["--", *extra] if extra else [])]
    log = (home / "voila.log").open("wb")
    return subprocess.Popen(command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)


def kernels(server: subprocess.Popen) -> dict[str, psutil.Process]:
    """The server's running kernels by kernel id (from the connection file on their command line)."""
    found = {}
    for child in psutil.Process(server.pid).children(recursive=True):
        try:
            line = " ".join(child.cmdline())
        except psutil.Error:
            continue
        if "ipykernel" in line and "kernel-" in line:
            found[line.split("kernel-")[-1].split(".json")[0]] = child
    return found


def wait_for(predicate, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        time.sleep(0.5)


def pool_ready(home: Path) -> bool:
    log = (home / "voila.log").read_text(errors="replace")
    return "is filled with" in log


def static_ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "voila/static/voila.js", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


async def student(browser, url: str, updates: int, offset: int, targets: dict[str, str]) -> dict:
    """One student: open the app, wait until it answers typing, type ``updates`` hypotheses; never raises."""
    context = await browser.new_context(viewport={"width": 1280, "height": 720})
    await context.route(EXTERNAL_URL, lambda route: route.fulfill(status=200, body=""))
    page = await context.new_page()
    start = time.perf_counter()
    try:
        await page.goto(url, wait_until="domcontentloaded", timeout=PAGE_TIMEOUT_S * 1000)
        html = time.perf_counter() - start
        await page.wait_for_selector(SCORE, timeout=PAGE_TIMEOUT_S * 1000)
        kernel_id = await page.evaluate(
            "() => JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId")
        first = SENTENCES[offset % len(SENTENCES)]
        await asyncio.wait_for(page.evaluate(TYPE_AND_TIME_JS, [first, targets[first]]), PAGE_TIMEOUT_S)
        usable = time.perf_counter() - start
        times = []
        for i in range(1, updates + 1):
            text = SENTENCES[(offset + i) % len(SENTENCES)]
            times.append(await asyncio.wait_for(page.evaluate(TYPE_AND_TIME_JS, [text, targets[text]]), 60))
        return {"context": context, "usable": usable, "html": html, "updates": times, "kernel": kernel_id}
    except Exception as err:  # a student who never got a usable page is counted, not fatal
        print(f"  student {offset}: {type(err).__name__}: {str(err)[:200]}", file=sys.stderr)
        return {"context": context, "usable": None, "html": None, "updates": [], "kernel": None}


async def hostile_loads(url: str, count: int) -> None:
    """``count`` plain page loads at once, as a script sends them: no browser, no cookies, redirects followed."""
    from tornado.httpclient import AsyncHTTPClient

    client = AsyncHTTPClient(max_clients=max(10, count))
    await asyncio.gather(*(client.fetch(url, request_timeout=PAGE_TIMEOUT_S, raise_error=False) for _ in range(count)),
                         return_exceptions=True)


async def arrive(url: str, n: int, updates: int, attack: int = 0) -> list[dict]:
    """N students opening the app at the same moment, in one headless Chromium (and ``attack`` hostile loads)."""
    from playwright.async_api import async_playwright

    targets = {s: expected_score(s) for s in SENTENCES}
    async with async_playwright() as driver:
        browser = await driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        results, _ = await asyncio.gather(
            asyncio.gather(*(student(browser, url, updates, i, targets) for i in range(n))), hostile_loads(url, attack))
        for r in results:  # every tab closes: Voilà's unload beacon fires (and is refused with XSRF on)
            await r.pop("context").close()
        await browser.close()
    return results


class WidgetClient:
    """A student without a browser: Voilà's page request, then the widget protocol over the kernel's websocket.

    What a browser does for the playground, minus drawing: fetch the page (the server hands out a kernel), ask the
    kernel for every widget's state, then set the hypothesis box's value and wait for the score to change.
    """

    def __init__(self, url: str):
        self.url, self.session, self.ws, self.states = url, uuid.uuid4().hex, None, {}

    def message(self, msg_type: str, content: dict, channel: str = "shell") -> dict:
        header = {"msg_id": uuid.uuid4().hex, "msg_type": msg_type, "session": self.session, "username": "student",
                  "version": "5.3", "date": datetime.now(UTC).isoformat()}
        metadata = {"version": "1.0.0"}  # ipywidgets' control protocol
        return {"header": header, "parent_header": {}, "metadata": metadata, "content": content, "channel": channel,
                "buffers": []}

    async def open(self) -> str:
        """GET the page (its first answer sets the login cookie and sends it back once, as to a browser), connect to
        its kernel with the cookie, load the widgets' states; returns the kernel id."""
        from tornado.httpclient import AsyncHTTPClient, HTTPRequest
        from tornado.websocket import websocket_connect

        client = AsyncHTTPClient()
        first = await client.fetch(self.url, request_timeout=PAGE_TIMEOUT_S, follow_redirects=False,
                                   raise_error=False)
        cookie = "; ".join(c.split(";")[0] for c in first.headers.get_list("Set-Cookie"))
        address = urllib.parse.urljoin(self.url, first.headers.get("Location", ""))
        page = await client.fetch(address, headers={"Cookie": cookie}, request_timeout=PAGE_TIMEOUT_S)
        kernel_id = re.search(r'"kernelId": "([0-9a-f-]+)"', page.body.decode()).group(1)
        ws_url = f"{self.url.replace('http', 'ws')}api/kernels/{kernel_id}/channels?session_id={self.session}"
        self.ws = await websocket_connect(HTTPRequest(ws_url, headers={"Cookie": cookie}))
        control = uuid.uuid4().hex
        await self.send("comm_open", {"comm_id": control, "target_name": "jupyter.widget.control", "data": {}})
        await self.send("comm_msg", {"comm_id": control, "data": {"method": "request_states"}})
        reply = await self.receive(lambda comm, data: data.get("method") == "update_states")
        self.states = reply["states"]
        return kernel_id

    async def send(self, msg_type: str, content: dict) -> None:
        await self.ws.write_message(json.dumps(self.message(msg_type, content)))

    async def receive(self, wanted) -> dict:
        """The data of the next comm message that ``wanted(comm_id, data)`` accepts."""
        while True:
            raw = await self.ws.read_message()
            if raw is None:
                raise ConnectionError("the kernel's websocket closed")
            if isinstance(raw, bytes):
                continue
            msg = json.loads(raw)
            content = msg.get("content", {})
            if msg.get("msg_type") == "comm_msg" and wanted(content.get("comm_id"), content.get("data", {})):
                return content["data"]

    def model(self, css_class: str) -> str:
        return next(k for k, v in self.states.items() if css_class in v["state"].get("_dom_classes", ()))

    async def type_and_time(self, text: str, expected: str) -> float:
        """Set the hypothesis to ``text``; milliseconds until the score box shows ``expected``."""
        box, score = self.model("bleu-hypothesis"), self.model("bleu-score-box")
        start = time.perf_counter()
        await self.send("comm_msg", {"comm_id": box, "data": {"method": "update", "state": {"value": text},
                                                              "buffer_paths": []}})
        shows = f"class='bleu-score'>{expected}<"
        await self.receive(lambda comm, data: comm == score and shows in data.get("state", {}).get("value", ""))
        return (time.perf_counter() - start) * 1000


async def protocol_student(url: str, updates: int, offset: int, targets: dict[str, str]) -> dict:
    """``student`` without a browser (see ``WidgetClient``); never raises."""
    client, start = WidgetClient(url), time.perf_counter()
    try:
        kernel_id = await asyncio.wait_for(client.open(), PAGE_TIMEOUT_S)
        html = time.perf_counter() - start
        first = SENTENCES[offset % len(SENTENCES)]
        await asyncio.wait_for(client.type_and_time(first, targets[first]), PAGE_TIMEOUT_S)
        usable, times = time.perf_counter() - start, []
        for i in range(1, updates + 1):
            text = SENTENCES[(offset + i) % len(SENTENCES)]
            times.append(await asyncio.wait_for(client.type_and_time(text, targets[text]), 60))
        return {"client": client, "usable": usable, "html": html, "updates": times, "kernel": kernel_id}
    except Exception as err:
        print(f"  student {offset}: {type(err).__name__}: {str(err)[:200]}", file=sys.stderr)
        return {"client": client, "usable": None, "html": None, "updates": [], "kernel": None}


async def arrive_without_browsers(url: str, n: int, updates: int, attack: int = 0) -> list[dict]:
    """N browserless students at the same moment (and ``attack`` hostile loads); then every connection closes (as
    closed tabs, no beacon)."""
    targets = {s: expected_score(s) for s in SENTENCES}
    results, _ = await asyncio.gather(
        asyncio.gather(*(protocol_student(url, updates, i, targets) for i in range(n))), hostile_loads(url, attack))
    for client in [r.pop("client") for r in results]:
        if client.ws is not None:
            client.ws.close()
    return results


def memory_mb(procs: list[psutil.Process]) -> tuple[list[float], list[float]]:
    rss, uss = [], []
    for proc in procs:
        try:
            info = proc.memory_full_info()
        except psutil.Error:
            continue
        rss.append(info.rss / 2**20)
        uss.append(info.uss / 2**20)
    return rss, uss


class KernelCounter:
    """The most kernels the server runs at once, sampled every 0.2 s by a thread."""

    def __init__(self, server: subprocess.Popen):
        self.server, self.most, self.running = server, 0, True
        self.thread = threading.Thread(target=self.poll, daemon=True)
        self.thread.start()

    def poll(self) -> None:
        while self.running:
            with contextlib.suppress(psutil.Error):
                self.most = max(self.most, len(kernels(self.server)))
            time.sleep(0.2)

    def stop(self) -> int:
        self.running = False
        self.thread.join()
        return self.most


def run_round(n: int, attack: int, updates: int, cleanup_s: int, extra: list[str], browsers: bool = True,
              margin: int = 1) -> Round:
    with tempfile.TemporaryDirectory(prefix="bench-classroom-") as tmp:
        home, port = Path(tmp), free_port()
        url = f"http://127.0.0.1:{port}/"
        server = start_voila(home, port, n + margin, extra)
        try:
            wait_for(lambda: static_ready(url), START_TIMEOUT_S, "Voilà did not start")
            wait_for(lambda: pool_ready(home), START_TIMEOUT_S, "the kernel pool did not fill")
            meter, counter = CpuMeter(server), KernelCounter(server)
            meter.start()
            results = asyncio.run((arrive if browsers else arrive_without_browsers)(url, n, updates, attack))
            cpu = meter.stop()
            used = {r["kernel"] for r in results if r["kernel"]}
            rss, uss = memory_mb([p for k, p in kernels(server).items() if k in used])
            closed, left = time.monotonic(), {}
            for mark in sorted({30, 60, 90, cleanup_s}):
                if mark > cleanup_s:
                    continue
                time.sleep(max(0.0, closed + mark - time.monotonic()))
                left[mark] = len(used & set(kernels(server)))
            most = counter.stop()
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
    ok = [r for r in results if r["usable"] is not None]
    updates = [t for r in ok for t in r["updates"]]
    return Round(n, attack, [r["html"] for r in ok], [r["usable"] for r in ok], updates, rss, uss, left, n - len(ok),
                 cpu, most, n + margin)


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(0.95 * len(ordered)) - 1))]


def show(r: Round) -> str:
    usable = (f"{statistics.median(r.html_s):5.1f}  {statistics.median(r.usable_s):6.1f} {max(r.usable_s):6.1f}"
              if r.usable_s else "    –       –      –")
    upd = f"{statistics.median(r.updates_ms) / 1000:6.2f} {p95(r.updates_ms) / 1000:6.2f}" if r.updates_ms else (
        "     –      –")
    mem = f"{statistics.mean(r.rss_mb):6.0f} {statistics.mean(r.uss_mb):6.0f}" if r.rss_mb else "     –      –"
    left = " ".join(f"{k}s:{v}" for k, v in r.left_after_s.items())
    cpu = " ".join(f"{r.cpu_s[k] / r.students:5.1f}" for k in ("browsers", "server", "kernels"))
    return (f"{r.students:>3} {r.attack:>3}  {usable}  {upd}  {mem}  {cpu}  {r.most_kernels:>3}/{r.cap:<3} {left}"
            + (f"  ({r.failures} never usable)" if r.failures else ""))


def ratios(attacked: Round, calm: Round) -> str:
    """Time until usable (median, max) and update p95 of an attacked round over the same room without attack."""
    if not (attacked.usable_s and calm.usable_s and attacked.updates_ms and calm.updates_ms):
        return f"{attacked.students:>3} {attacked.attack:>3}  –"
    usable = statistics.median(attacked.usable_s) / statistics.median(calm.usable_s)
    worst = max(attacked.usable_s) / max(calm.usable_s)
    update = p95(attacked.updates_ms) / p95(calm.updates_ms)
    return (f"{attacked.students:>3} {attacked.attack:>3}  usable x{usable:.2f} (max x{worst:.2f})  "
            f"update p95 x{update:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, nargs="+", default=[1, 5, 10, 20])
    parser.add_argument("--margin", type=int, default=1, help="places beyond the students (--students N+MARGIN)")
    parser.add_argument("--attack", type=int, nargs="+", default=[0],
                        help="hostile plain page loads arriving with the students (e.g. 0 25: without and with)")
    parser.add_argument("--updates", type=int, default=5, help="hypotheses each student types after the first")
    parser.add_argument("--cleanup", type=int, default=120, help="seconds to watch the kernels after the tabs close")
    parser.add_argument("--voila-arg", action="append", default=[], help="extra Voilà flag, e.g. a pool size")
    parser.add_argument("--no-browsers", action="store_true",
                        help="students speak the widget protocol without a browser (as when each brings a laptop)")
    args = parser.parse_args()
    print(f"Classroom benchmark: bleu-lab classroom --students N ({NOTEBOOK}, the shipped voila.json) "
          f"{' '.join(args.voila_arg)}".rstrip())
    clients = "students without browsers (widget protocol)" if args.no_browsers else "browsers on the same machine"
    print(f"{os.cpu_count()} cores, {psutil.virtual_memory().total / 2**30:.0f} GiB; {clients}")
    print("  N   A  HTML s  usable s: median max  update s: median p95  kernel MB: RSS USS"
          "  CPU s per student: browsers server kernels  most kernels/cap  student kernels left after")
    rounds = []
    for n in args.students:
        for attack in args.attack:
            rounds.append(run_round(n, attack, args.updates, args.cleanup, args.voila_arg, not args.no_browsers,
                                    args.margin))
            print(show(rounds[-1]), flush=True)
    calm = {r.students: r for r in rounds if r.attack == 0}
    attacked = [ratios(r, calm[r.students]) for r in rounds if r.attack and r.students in calm]
    if attacked:
        print("Attacked / calm (target: within x1.5):\n" + "\n".join(attacked))


if __name__ == "__main__":
    main()
