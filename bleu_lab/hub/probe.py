"""``bleu-lab hub check``: a login to the running hub, end to end, as a student would make it (issue 44).

The hub's start checks (``bleu_lab.hub.checks``) judge modes and groups; this one logs in. As root, on the hub's
server, it creates a probe account as the runbook creates a student (``useradd --create-home -K HOME_MODE=0700
--groups students``, a random password), then, through the hub's web pages and REST API: logs in with the login form
(PAM, the config's allowed groups), starts the probe's server (the hub's spawner: the start command copies the
course as the probe), checks a lesson is there, and runs code in a kernel as the probe: its uid, ``import bleu_lab``,
and that no other student's home can be entered or listed. Then it stops the server and removes the account and its
home, whatever happened. Each check prints one line, ``ok:`` or ``FAILED:`` with what was seen and the fix; the
first failure ends the probe (later checks need it). Exit 0 when every check passed, 1 otherwise, 2 for bad input.

The hub keeps a record of the probe's name after the account is gone (no server, no account: it cannot log in);
with an instructor's token in ``JUPYTERHUB_API_TOKEN`` the record is deleted too.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import pwd
import secrets
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from .checks import group_members, group_problems

DEFAULT_URL = "http://127.0.0.1:8000"
DEFAULT_PROBE = "bleu-lab-probe"


class CheckFailed(Exception):
    """A check that failed: its message is what was seen and the fix."""


@dataclass
class Probe:
    """One probe login: the hub's address, the students' group, the account's name and home base, and the lines
    printed so far."""

    url: str
    group: str
    name: str = DEFAULT_PROBE
    homes: Path = Path("/home")
    lesson: str | None = None
    timeout: float = 300.0
    say: Callable[[str], None] = print
    lines: list[str] = field(default_factory=list)
    token: str | None = None
    password: str = ""
    session: object = None

    def ok(self, what: str) -> None:
        self.lines.append(f"ok: {what}")
        self.say(self.lines[-1])

    def failed(self, what: str, why: str) -> None:
        self.lines.append(f"FAILED: {what}: {why}")
        self.say(self.lines[-1])

    # --- the steps ----------------------------------------------------------------------------------------------

    def hub_answers(self) -> str:
        import requests

        try:
            response = requests.get(f"{self.url}/hub/api", timeout=30)
        except requests.RequestException as err:
            raise CheckFailed(f"no answer from {self.url} ({type(err).__name__}): start the hub (the runbook's step "
                              "6), or give its address with --url") from None
        if response.status_code != 200:
            raise CheckFailed(f"{self.url}/hub/api answered HTTP {response.status_code}, not JupyterHub's API: give "
                              "the hub's address with --url")
        return f"the hub answers at {self.url} (JupyterHub {response.json().get('version', '?')})"

    def create_account(self) -> str:
        with contextlib.suppress(KeyError):
            pwd.getpwnam(self.name)
            raise CheckFailed(f"an account {self.name!r} exists already (a probe that was stopped?): userdel "
                              f"--remove {self.name}, or give another name with --probe")
        done = subprocess.run(["useradd", "--create-home", "-b", str(self.homes), "-K", "HOME_MODE=0700",
                               "--groups", self.group, "--shell", "/bin/sh", self.name],
                              capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise CheckFailed(f"useradd refused: {done.stderr.strip()}")
        self.password = secrets.token_urlsafe(24)
        done = subprocess.run(["chpasswd"], input=f"{self.name}:{self.password}\n", capture_output=True, text=True,
                              timeout=60)
        if done.returncode != 0:
            raise CheckFailed(f"chpasswd refused: {done.stderr.strip()}")
        return (f"the probe account {self.name} (home {self.homes / self.name}, mode 700, in the group "
                f"{self.group}), made as the runbook's step 3 makes a student")

    def login(self) -> str:
        import requests

        self.session = session = requests.Session()
        session.get(f"{self.url}/hub/login", timeout=60)
        xsrf = session.cookies.get("_xsrf", path="/hub/")
        response = session.post(f"{self.url}/hub/login?next=", allow_redirects=False, timeout=120,
                                data={"username": self.name, "password": self.password, "_xsrf": xsrf})
        if response.status_code == 500:
            raise CheckFailed("the hub failed the login (HTTP 500): its log says why; a group the config names that "
                              "does not exist is one cause (groupadd it; the hub's start check names it)")
        if response.status_code != 302:
            raise CheckFailed(f"the login form refused {self.name} (HTTP {response.status_code}): the hub must let "
                              f"the group {self.group} in (BLEU_LAB_STUDENTS_GROUP={self.group} in the hub's "
                              "environment, then restart it), and PAM must accept local passwords; the hub's log "
                              "says which")
        headers = {"X-XSRFToken": session.cookies.get("_xsrf", path="/hub/") or ""}
        token = session.post(f"{self.url}/hub/api/users/{self.name}/tokens", headers=headers, timeout=60,
                             json={"note": "bleu-lab hub check", "expires_in": 3600})
        if token.status_code != 201:
            raise CheckFailed(f"logged in, but no API token for {self.name} (HTTP {token.status_code}): "
                              "the hub's log says why")
        self.token = token.json()["token"]
        return f"{self.name} logged in with the login form (PAM and the config's allowed groups)"

    def api(self, method: str, path: str, **kwargs):
        import requests

        return requests.request(method, f"{self.url}{path}", headers={"Authorization": f"token {self.token}"},
                                timeout=kwargs.pop("timeout", 120), allow_redirects=False, **kwargs)

    def server_starts(self) -> str:
        started = time.monotonic()
        response = self.api("POST", f"/hub/api/users/{self.name}/server")
        if response.status_code not in (201, 202):
            raise CheckFailed(f"the hub did not start the server (HTTP {response.status_code}: "
                              f"{response.text[:300]}): the hub's log says why")
        message = self._wait_ready(started)
        while time.monotonic() - started < self.timeout:
            with contextlib.suppress(OSError):
                if self.api("GET", f"/user/{self.name}/api/status", timeout=30).status_code == 200:
                    return f"{self.name}'s server started and answers ({time.monotonic() - started:.0f} s)"
            time.sleep(0.5)
        raise CheckFailed(f"{self.name}'s server did not answer within {self.timeout:.0f} s ({message}): the hub's "
                          "log shows the server's output; a Python or bleu_lab students cannot reach, or a slow "
                          "disk, are causes")

    def _wait_ready(self, started: float) -> str:
        """JupyterHub's progress events until ready; CheckFailed with the hub's message if the start failed."""
        last = "no progress event"
        with self.api("GET", f"/hub/api/users/{self.name}/server/progress", stream=True,
                      timeout=(30, 60)) as response:
            if response.status_code != 200:
                return f"progress: HTTP {response.status_code}"
            for line in response.iter_lines():
                event = json.loads(line[len(b"data:"):]) if line.startswith(b"data:") else {}
                last = event.get("message", last)
                if event.get("failed"):
                    raise CheckFailed(f"{self.name}'s server failed to start: {last}; the hub's log shows the "
                                      "server's output")
                if event.get("ready") or time.monotonic() - started > self.timeout:
                    break
        return last

    def lesson_reachable(self) -> str:
        response = self.api("GET", f"/user/{self.name}/api/contents/notebooks?content=1")
        if response.status_code != 200:
            raise CheckFailed(f"the server has no notebooks folder (HTTP {response.status_code}): the start command "
                              "copies the course (bleu-lab lessons); its output is in the hub's log")
        names = sorted(item["name"] for item in response.json()["content"] if item["name"].endswith(".ipynb"))
        lessons = [name.removesuffix(".ipynb") for name in names if name[:2].isdigit()]
        if self.lesson is not None:
            if f"{self.lesson}.ipynb" not in names:
                raise CheckFailed(f"{self.lesson} was not handed out ({', '.join(lessons) or 'no lesson'} was): in "
                                  "graded mode with BLEU_LAB_RELEASED, add it to the released file (the runbook's "
                                  "step 5b), or wait for its opening time")
            opened = self.api("GET", f"/user/{self.name}/api/contents/notebooks/{self.lesson}.ipynb")
            if opened.status_code != 200:
                raise CheckFailed(f"{self.lesson} is there but does not open (HTTP {opened.status_code})")
            return f"{self.lesson} opens in the probe's server (numbered lessons handed out: {len(lessons)})"
        if not lessons:
            raise CheckFailed("no lesson was handed out: in graded mode with BLEU_LAB_RELEASED, release one (the "
                              "runbook's step 5b)")
        return f"{len(lessons)} lessons handed out ({lessons[0]}...{lessons[-1]})"

    def kernel_as_student(self) -> str:
        _, members = group_members(self.group)
        others = sorted(str(home) for user, home in members.items() if user != self.name and home.is_dir())
        kernel = self.api("POST", f"/user/{self.name}/api/kernels", data=json.dumps({"name": "python3"}))
        if kernel.status_code != 201:
            raise CheckFailed(f"no kernel (HTTP {kernel.status_code}: {kernel.text[:300]})")
        url = self.url.replace("http", "ws", 1) + f"/user/{self.name}/api/kernels/{kernel.json()['id']}/channels"
        status, printed = asyncio.run(run_code(url, self.token, KERNEL_CODE.format(others=others), 120))
        if status != "ok":
            raise CheckFailed(f"the kernel's check failed: {printed.strip()[-500:]}")
        seen = json.loads(printed.strip().splitlines()[-1])
        uid = pwd.getpwnam(self.name).pw_uid
        if seen["uid"] != uid:
            raise CheckFailed(f"the kernel runs as uid {seen['uid']}, not as the probe ({uid}): the spawner must "
                              "run each server as its student")
        if seen["bleu_lab"] is not None:
            raise CheckFailed(f"import bleu_lab failed as the probe: {seen['bleu_lab']}; chmod -R o+rX on the "
                              "hub's environment")
        if seen["open"]:
            raise CheckFailed(f"the probe entered or listed other students' homes: {', '.join(seen['open'])}; "
                              f"chmod 700 each (and restart the hub: its start check names the cause)")
        return (f"a kernel runs as {self.name} (uid {uid}), imports bleu_lab, and enters none of the other "
                f"{len(others)} students' homes")

    def remove(self) -> list[str]:
        """Stop the server, remove the account and its home (and the hub's record, with an instructor's token)."""
        done = []
        if self.token is not None:
            with contextlib.suppress(OSError):
                self.api("DELETE", f"/hub/api/users/{self.name}/server")
                deadline = time.monotonic() + 120
                while time.monotonic() < deadline:
                    model = self.api("GET", f"/hub/api/users/{self.name}")
                    if model.status_code != 200 or not model.json().get("servers", {}).get(""):
                        break
                    time.sleep(0.5)
                done.append("server stopped")
        with contextlib.suppress(KeyError):
            pwd.getpwnam(self.name)
            deadline = time.monotonic() + 60
            while True:  # userdel refuses while a process of the account runs (the spawner ends them on stop)
                removed = subprocess.run(["userdel", "--remove", self.name], capture_output=True, text=True,
                                         timeout=60)
                if removed.returncode in (0, 12) or time.monotonic() > deadline:  # 12: the home could not go
                    break
                time.sleep(0.5)
            if removed.returncode not in (0, 12):
                raise CheckFailed(f"userdel --remove {self.name} refused: {removed.stderr.strip()}; run it again "
                                  "once the probe's processes are gone")
            done.append("account and home removed")
        admin = os.environ.get("JUPYTERHUB_API_TOKEN")
        if admin:
            import requests

            deleted = requests.delete(f"{self.url}/hub/api/users/{self.name}", timeout=60,
                                      headers={"Authorization": f"token {admin}"})
            done.append("the hub's record deleted" if deleted.status_code in (204, 404) else
                        f"the hub's record not deleted (HTTP {deleted.status_code})")
        return done


KERNEL_CODE = """\
import json, os
try:
    import bleu_lab
    failed = None
except Exception as err:
    failed = f"{{type(err).__name__}}: {{err}}"
opened = []
for home in {others!r}:
    for look in (os.listdir, os.chdir):
        try:
            look(home)
            opened.append(home)
            break
        except OSError:
            pass
os.chdir(os.path.expanduser("~"))
print(json.dumps({{"uid": os.getuid(), "bleu_lab": failed, "open": opened}}))
"""


async def run_code(url: str, token: str, code: str, timeout: float = 120) -> tuple[str, str]:
    """Run ``code`` in a kernel through its server's websocket (the Jupyter messaging protocol); return the
    execute_reply's status and what the code printed. TimeoutError after ``timeout`` s, the handshake included."""
    return await asyncio.wait_for(_run_code(url, token, code, timeout), timeout)


async def _run_code(url: str, token: str, code: str, timeout: float) -> tuple[str, str]:
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    # the server answers the handshake once the kernel answered a kernel_info request: slow when 20 kernels start
    socket = await websocket_connect(HTTPRequest(url, headers={"Authorization": f"token {token}"},
                                                 connect_timeout=timeout, request_timeout=timeout))
    msg_id = uuid.uuid4().hex
    socket.write_message(json.dumps({
        "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": "bleu-lab", "session":
                   uuid.uuid4().hex, "date": datetime.now(UTC).isoformat(), "version": "5.3"},
        "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
        "content": {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                    "allow_stdin": False, "stop_on_error": True}}))
    printed, status = [], None
    deadline = time.monotonic() + timeout
    while status is None:
        message = await asyncio.wait_for(socket.read_message(), max(1.0, deadline - time.monotonic()))
        if message is None:
            raise ConnectionError("the kernel's websocket closed")
        message = json.loads(message)
        if message.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        kind, content = message["msg_type"], message["content"]
        if kind == "stream":
            printed.append(content["text"])
        elif kind == "error":
            printed.append("\n".join(content["traceback"]))
        elif kind == "execute_reply":
            status = content["status"]
    socket.close()
    return status, "".join(printed)


STEPS = (("the hub answers", Probe.hub_answers), ("the probe account", Probe.create_account),
         ("the login", Probe.login), ("the probe's server", Probe.server_starts),
         ("a lesson in it", Probe.lesson_reachable), ("a kernel as the student", Probe.kernel_as_student))


def check(probe: Probe) -> bool:
    """Every step in order, until one fails; then the probe is removed, whatever happened. True when all passed."""
    if os.geteuid() != 0:
        probe.failed("root", "bleu-lab hub check creates a local account and removes it: run it as root (sudo -i)")
        return False
    missing = group_problems({probe.group: "the students'"})
    if missing:
        probe.failed("the students' group", missing[0])
        return False
    passed = True
    with _removing(probe):
        for what, step in STEPS:
            try:
                probe.ok(step(probe))
            except CheckFailed as err:
                probe.failed(what, str(err))
                passed = False
                break
            except Exception as err:  # noqa: BLE001 (a network error, a bound: named with the step, never a traceback)
                probe.failed(what, f"{type(err).__name__}: {err}")
                passed = False
                break
    return passed and not probe.lines[-1].startswith("FAILED")


@contextlib.contextmanager
def _removing(probe: Probe) -> Iterator[None]:
    try:
        yield
    finally:
        created = any(line.startswith("ok: the probe account") for line in probe.lines)
        if created:
            try:
                probe.ok("probe removed: " + ", ".join(probe.remove()))
            except CheckFailed as err:
                probe.failed("removing the probe", str(err))


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"{prog} hub check", description=(
            "A probe student logs in to the running hub end to end: a local account made as the runbook makes a "
            "student, the login form, its server started by the hub, a lesson in it, a kernel running as the probe "
            "that imports bleu_lab and enters no other student's home; then the probe is removed. One line per "
            "check, with the fix of a failed one. Run it as root on the hub's server."))
    parser.add_argument("--url", default=DEFAULT_URL,
                        help=f"the hub's address from this machine (default {DEFAULT_URL})")
    parser.add_argument("--group", default=os.environ.get("BLEU_LAB_STUDENTS_GROUP", "students"),
                        help="the students' group (default: BLEU_LAB_STUDENTS_GROUP, else students)")
    parser.add_argument("--lesson", default=None, metavar="NAME",
                        help="a lesson that must be handed out, e.g. 03_brevity_penalty (default: any numbered one)")
    parser.add_argument("--probe", default=DEFAULT_PROBE, metavar="LOGIN",
                        help=f"the probe account's name, created and removed (default {DEFAULT_PROBE})")
    parser.add_argument("--homes", default="/home", metavar="DIR",
                        help="where the probe's home is made, as the students' (default /home)")
    parser.add_argument("--timeout", type=float, default=300.0, metavar="SECONDS",
                        help="how long the probe's server may take to start (default 300)")
    return parser


def main(argv: Sequence[str], prog: str = "bleu-lab") -> int:
    """``bleu-lab hub check ...``: 0 when every check passed, 1 when one failed, 2 for bad input."""
    if not argv or argv[0] != "check":
        print(f"{prog} hub: error: the one subcommand is 'check' ({prog} hub check --help)", file=sys.stderr)
        return 2
    args = build_parser(prog).parse_args(argv[1:])
    if not args.timeout > 0:
        print(f"{prog} hub check: error: --timeout must be a positive number of seconds, got {args.timeout}",
              file=sys.stderr)
        return 2
    if not Path(args.homes).is_dir():
        print(f"{prog} hub check: error: --homes {args.homes} is not a folder", file=sys.stderr)
        return 2
    try:
        import requests  # noqa: F401
        import tornado  # noqa: F401
    except ImportError:
        print(f"{prog} hub check: error: this needs the hub extra (requests, tornado): pip install "
              f"\"bleu_lab[hub]\"", file=sys.stderr)
        return 2
    probe = Probe(url=args.url.rstrip("/"), group=args.group, name=args.probe, homes=Path(args.homes),
                  lesson=args.lesson, timeout=args.timeout)
    return 0 if check(probe) else 1
