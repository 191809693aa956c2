"""A real JupyterHub on 127.0.0.1 with the shipped jupyter-settings/jupyterhub_config.py, for tests/test_hub.py and
benchmarks/bench_hub.py.

What is swapped, and why (everything else is the shipped config: the start command running `bleu-lab lessons`, the
single-user settings, the server root, the default URL, the idle culler service and its role):

- the authenticator: JupyterHub's DummyAuthenticator with one password, in place of PAM (no system accounts here;
  with ``pam=True``, tests/test_hub_runbook.py, the shipped PAM login with the accounts' real passwords);
- the spawner: JupyterHub's SimpleLocalProcessSpawner, the LocalProcessSpawner that runs each server as the hub's
  own user with HOME = <tmp>/home/NAME, in place of LocalProcessSpawner/SystemdSpawner (which need a system
  account per student and, for systemd, a booted systemd). The servers are still separate processes with separate
  homes and tokens: what keeps students apart here is the hub's authorization, which is what the test checks.
  With ``local_users=True`` (tests/test_hub_private.py and tests/test_hub_fallback.py, as root, with accounts they
  created) the spawner is the shipped config's one without systemd, bleu_lab.hub.fallback.FallbackSpawner
  (LocalProcessSpawner with a cgroup per student): each server runs as its student, in the student's real home;
- the groups: the shipped config refuses to start where a group it names (the students', the instructors') does not
  exist; the DummyAuthenticator's users are in no group, so a group not given in the environment is one that exists
  and whose members have no home (``no_homes_group``), which the start check passes;
- the addresses: the proxy, the hub and the servers on 127.0.0.1 at free ports; as root, `--allow-root` for the
  single-user server (which otherwise refuses to run as root);
- the culler's timings, on request (``idle_timeout``), and the hub's activity interval, so a test can wait for it;
- each server's output, in ``logs/NAME.log`` in the hub's folder rather than the hub's log (a wrapper around the
  shipped start command), so a step that runs out of time can show that student's server's log beside the hub's;
- the Python environment, only where students could not run this one (a Python under /root, as pyenv installs it
  for root): the shipped config refuses to start from it, so the hub runs from a copy students can reach
  (``reachable_environment``), reading this environment's packages.

Nothing it starts outlives it: the hub runs in a process session of its own (and, as root, a cgroup of its own, which
its servers and kernels inherit); every process seen in its tree is recorded, and ``stop`` ends them all whatever
ends the ``running_hub`` block: its end, an exception, a failed test, Ctrl-C, or SIGTERM or SIGHUP (turned into
SystemExit by ``exit_on_signals``, which ``running_hub`` installs itself in the main thread). Every wait has a bound
that, when it runs out, names the student and the step (``StepTimeout``, ``bounded``) and shows the hub's log and
that student's server's.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import requests
from async_run import run_async

from bleu_lab.hub import checks as hub_checks
from bleu_lab.hub.cgroups import Cgroup, own_hierarchies
from bleu_lab.hub.probe import run_code as execute  # a kernel's code through its websocket: the probe's

REPO = Path(__file__).resolve().parent.parent
SHIPPED_CONFIG = REPO / "jupyter-settings" / "jupyterhub_config.py"
PASSWORD = "bleu-lab-" + uuid.uuid4().hex[:12]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proxy_command() -> str | None:
    """configurable-http-proxy from npm: on PATH (npm install -g), else None."""
    return shutil.which("configurable-http-proxy")


def missing() -> str | None:
    """Why a hub cannot start here, or None."""
    for module in ("jupyterhub", "jupyterhub_idle_culler"):
        try:
            __import__(module)
        except ImportError:
            return f"{module} is not installed (pip install -e '.[hub]')"
    if proxy_command() is None:
        return "configurable-http-proxy is not on PATH (npm install -g configurable-http-proxy@5.3.0)"
    closed = hub_checks.tree_problems("bleu_lab", REPO / "bleu_lab", frozenset()) + hub_checks.usable_problems(
        "the course", REPO / "notebooks", hub_checks.READ | hub_checks.SEARCH, frozenset())
    if closed:  # the shipped config's start check would refuse (a Python students cannot reach is copied instead)
        return f"the shipped hub config refuses a checkout students cannot read: {closed[0]}"
    return None


def require_hub() -> None:
    """Skip the test with the reason a hub cannot start here; fail instead when BLEU_LAB_REQUIRE_HUB=1 (CI)."""
    import pytest

    reason = missing()
    if reason:
        if os.environ.get("BLEU_LAB_REQUIRE_HUB") == "1":
            pytest.fail(f"BLEU_LAB_REQUIRE_HUB=1 but {reason}", pytrace=False)
        pytest.skip(reason)


TEST_CONFIG = """\
import os
c = get_config()  # noqa
for _group in ("BLEU_LAB_STUDENTS_GROUP", "BLEU_LAB_INSTRUCTORS_GROUP"):  # the groups must exist (module docstring)
    os.environ.setdefault(_group, {no_homes_group!r})
load_subconfig({shipped!r})
if not {pam!r}:  # with pam: the shipped PAMAuthenticator and its allowed groups (real passwords, chpasswd)
    c.JupyterHub.authenticator_class = "dummy"
    c.DummyAuthenticator.password = {password!r}
    c.Authenticator.allow_all = True
if not {local_users!r}:
    c.JupyterHub.spawner_class = "simple"
    c.SimpleLocalProcessSpawner.home_dir_template = {homes!r} + "/{{username}}"
    # each server's output in logs/NAME.log ($0 of the wrapper is that folder; "$@" the shipped command and its args)
    c.Spawner.cmd = ["/bin/sh", "-c", 'exec "$@" >>"$0/$JUPYTERHUB_USER.log" 2>&1', {logs!r}, *c.Spawner.cmd]
else:
    c.JupyterHub.spawner_class = "bleu_lab.hub.fallback.FallbackSpawner"
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_bind_url = "http://127.0.0.1:{hub_port}"
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_api_port}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.JupyterHub.last_activity_interval = {activity_interval}
c.Spawner.environment.update({{"JUPYTERHUB_ACTIVITY_INTERVAL": "{activity_interval}"}})
if os.environ.get("LD_LIBRARY_PATH"):  # a copied interpreter's libpython (tests/test_hub_private.py)
    c.Spawner.environment["LD_LIBRARY_PATH"] = os.environ["LD_LIBRARY_PATH"]
if {as_root!r} and not {local_users!r}:
    c.Spawner.args = list(c.Spawner.args) + ["--allow-root"]
if {idle_timeout!r}:
    for service in c.JupyterHub.services:
        if service["name"] == "idle-culler":
            service["command"] = [a for a in service["command"] if not a.startswith(("--timeout", "--cull-every"))]
            service["command"] += ["--timeout={idle_timeout}", "--cull-every={cull_every}"]
"""


@dataclass
class Hub:
    """A running hub: its URL, its folder, the process tree it started."""

    url: str
    root: Path
    process: subprocess.Popen
    seen: dict[int, float] = field(default_factory=dict)  # pid -> create_time of every process seen in its tree
    cgroup: Cgroup | None = None  # as root: the hub's cgroup, which everything it starts inherits

    @property
    def homes(self) -> Path:
        return self.root / "home"

    def record_processes(self) -> list[psutil.Process]:
        """Note every process now in the hub's tree (to check at the end that all are gone); return them."""
        try:
            tree = [psutil.Process(self.process.pid), *psutil.Process(self.process.pid).children(recursive=True)]
        except psutil.NoSuchProcess:
            return []
        for proc in tree:
            with contextlib.suppress(psutil.NoSuchProcess):
                self.seen[proc.pid] = proc.create_time()
        return tree

    def alive(self) -> list[psutil.Process]:
        """The processes seen in the hub's tree that still run (same pid and start time; zombies count as gone)."""
        left = []
        for pid, created in self.seen.items():
            with contextlib.suppress(psutil.NoSuchProcess):
                proc = psutil.Process(pid)
                if proc.create_time() == created and proc.status() != psutil.STATUS_ZOMBIE:
                    left.append(proc)
        return left

    def log(self) -> str:
        path = self.root / "hub.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def server_log(self, name: str) -> str:
        """The output of ``name``'s server (with ``local_users``, the servers write into the hub's log)."""
        path = self.root / "logs" / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def logs_for(self, name: str, chars: int = 4000) -> str:
        """The ends of the hub's log and of ``name``'s server's log, for an error message."""
        return (f"--- the hub's log (last {chars} characters):\n{self.log()[-chars:]}\n"
                f"--- {name}'s server's log (last {chars} characters):\n{self.server_log(name)[-chars:]}")


class StepTimeout(TimeoutError):
    """A student's step that did not finish within its bound."""


class StepFailed(RuntimeError):
    """A student's step that failed: the message names the student and the step and holds the logs."""


def bounded(hub: Hub, name: str, step: str, seconds: float, call: Callable[[], object]) -> object:
    """``call()``'s result; StepTimeout naming the student and the step, with the hub's and the server's logs, if
    it has not returned after ``seconds``, and StepFailed, the same way, if it raised. It runs in a daemon thread, so
    whatever it waits on cannot hold up the caller or the interpreter's exit; stopping the hub ends its connections."""
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["result"] = call()
        except BaseException as err:  # noqa: BLE001 (handed to the caller's thread below)
            outcome["error"] = err

    thread = threading.Thread(target=run, name=f"{name}: {step}", daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        raise StepTimeout(f"{name}: {step} did not finish within {seconds:.0f} s\n{hub.logs_for(name)}")
    error = outcome.get("error")
    if isinstance(error, Exception) and not isinstance(error, (StepFailed, StepTimeout)):
        raise StepFailed(f"{name}: {step} failed: {type(error).__name__}: {error}\n{hub.logs_for(name)}") from error
    if error is not None:
        raise error  # type: ignore[misc]
    return outcome.get("result")


@contextlib.contextmanager
def exit_on_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP raise SystemExit (SIGINT raises KeyboardInterrupt, as always), so that the ``finally`` of a
    ``running_hub`` block stops the hub and everything it started; Python's default for SIGTERM ends the process
    without running any ``finally``. Main thread only."""
    def leave(signum: int, _frame: object) -> None:
        print(f"{signal.Signals(signum).name}: stopping the hub and everything it started", file=sys.stderr, flush=True)
        raise SystemExit(128 + signum)

    before = {sig: signal.signal(sig, leave) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def no_homes_group() -> str:
    """A group that exists and none of whose members has a home folder (so the start check has no home to check:
    on Debian, systemd-journal, which has no members).

    Only the system's own groups (gid below 1000, or nogroup's 65534): another test running at the same time makes
    and removes ordinary groups (the runbook's students, whose private group has no member for a while), and a hub
    told to use one of those would be refused when it has gone by the time the hub starts."""
    import grp

    system = [entry for entry in grp.getgrall() if entry.gr_gid < 1000 or entry.gr_gid >= 65534]
    names = [entry.gr_name for entry in sorted(system, key=lambda entry: -entry.gr_gid)]
    for name in names:
        _, homes = hub_checks.group_members(name)
        if not any(home.is_dir() for home in homes.values()):
            return name
    raise RuntimeError("no group here is without members with a home: the hub's start check needs one")


@contextlib.contextmanager
def accounts_removed(users: list[str], groups: list[str]) -> Iterator[None]:
    """Every local account named in ``users`` (with its home) and every group in ``groups`` is removed at the end,
    whatever happens: the accounts and groups the block adds under these names, or that exist under them (the lists
    may grow inside the block). Root only; the names must be the test's own (a random suffix)."""
    try:
        yield
    finally:
        for name in users:
            subprocess.run(["userdel", "--remove", name], capture_output=True, timeout=60)
        for group in groups:
            subprocess.run(["groupdel", group], capture_output=True, timeout=60)


def account_exists(name: str) -> bool:
    """Whether the local account ``name`` exists."""
    import pwd

    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def group_exists(name: str) -> bool:
    """Whether the local group ``name`` exists."""
    import grp

    try:
        grp.getgrnam(name)
    except KeyError:
        return False
    return True


def write_config(root: Path, port: int, *, idle_timeout: int = 0, cull_every: int = 5, activity_interval: int = 5,
                 local_users: bool = False, pam: bool = False) -> Path:
    """The test's jupyterhub_config.py in ``root`` (the shipped config, then what the module docstring lists)."""
    config = root / "test_jupyterhub_config.py"
    (root / "logs").mkdir(exist_ok=True)
    config.write_text(TEST_CONFIG.format(
        shipped=str(SHIPPED_CONFIG), password=PASSWORD, homes=str(root / "home"), logs=str(root / "logs"), port=port,
        hub_port=free_port(),
        proxy_api_port=free_port(), proxy=proxy_command(), activity_interval=activity_interval,
        as_root=os.geteuid() == 0, idle_timeout=idle_timeout, cull_every=cull_every, local_users=local_users,
        no_homes_group=no_homes_group(), pam=pam),
        encoding="utf-8")
    return config


def reachable_environment(base: Path, copy: bool = False) -> tuple[Path, dict[str, str]]:
    """The bin folder of a Python environment that students can run (the shipped config refuses to start from one
    they cannot), and what its processes need in their environment: this one where they can reach it; else (a
    Python under /root, as pyenv installs it for root, and as on this project's CI) a venv in ``base`` on a copy of
    its interpreter and standard library that reads this environment's packages, as the guide's /opt/bleu-lab-hub
    would be (always, with ``copy``). The files are copied, never hard-linked: a new link changes the original's
    ctime, which the grader's integrity check, running in a parallel test, would read as tampering."""
    bin_dir = Path(sys.executable).parent
    closed = (hub_checks.usable_problems("the hub's Python", Path(sys.executable), hub_checks.SEARCH, frozenset())
              + hub_checks.usable_problems("the hub's command", bin_dir / "bleu-lab", hub_checks.READ, frozenset()))
    if not copy and not closed:
        return bin_dir, {}
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    source, python = Path(sys.base_prefix), base / "python"

    def unused(folder: str, names: list[str]) -> set[str]:  # what a hub never imports: about 100 MB copied, not 950
        if Path(folder).name != version:
            return set()
        return {n for n in names if n in {"site-packages", "test", "idlelib", "ensurepip"} or n.startswith("config-")}

    for part in ("bin", "lib"):
        shutil.copytree(source / part, python / part, symlinks=True, copy_function=shutil.copy2, ignore=unused)
    env = base / "env"
    subprocess.run([str(python / "bin" / version), "-m", "venv", "--without-pip", str(env)], check=True,
                   capture_output=True, timeout=120)
    packages = Path(sysconfig.get_path("purelib"))
    (env / "lib" / version / "site-packages" / "bleu_lab_test_env.pth").write_text(
        f"import site; site.addsitedir({str(packages)!r})\n")
    for data in ("share", "etc"):  # JupyterLab's and Voila's data files; the server extensions they enable
        (env / data).symlink_to(Path(sys.prefix) / data)
    for script in ("jupyterhub", "jupyterhub-singleuser", "bleu-lab"):
        lines = (bin_dir / script).read_text().splitlines(keepends=True)
        (env / "bin" / script).write_text(f"#!{env / 'bin' / 'python'}\n" + "".join(lines[1:]))
        (env / "bin" / script).chmod(0o755)
    # the interpreter finds libpython by an absolute RUNPATH into the original (pyenv's), which students cannot reach
    return env / "bin", {"LD_LIBRARY_PATH": str(python / "lib")}


def hub_environment(bin_dir: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", **(extra or {})}


COURSE_LOCK = Path(tempfile.gettempdir()) / "bleu-lab-tests-course-files.lock"
_holding_exclusive = False  # this process holds COURSE_LOCK exclusively: its own hub starts need no shared lock


@contextlib.contextmanager
def course_files_lock(exclusive: bool = False) -> Iterator[None]:
    """Between test workers: a test that changes the installed course's files (closes the worked solutions, as the
    guide's graded mode says) holds this exclusively; a hub start, whose config checks those files, holds it shared,
    so that no hub of another test starts while they are closed (one did, and refused: CI, Python 3.12)."""
    global _holding_exclusive
    if _holding_exclusive:
        yield
        return
    import fcntl

    with open(COURSE_LOCK, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        _holding_exclusive = exclusive
        try:
            yield
        finally:
            _holding_exclusive = False
            fcntl.flock(handle, fcntl.LOCK_UN)


def refused_start(root: Path, bin_dir: Path, env: dict[str, str] | None = None, timeout: float = 120,
                  local_users: bool = False, pam: bool = False) -> subprocess.CompletedProcess:
    """Start the hub of ``bin_dir``'s environment in ``root`` and expect its config to refuse (exit before it
    listens): the finished process, its output in ``stdout``. Fails if the hub still runs after ``timeout`` s."""
    config = write_config(root, free_port(), local_users=local_users, pam=pam)
    with course_files_lock():
        process = subprocess.Popen([str(bin_dir / "jupyterhub"), "-f", str(config)], cwd=root,
                                   env=hub_environment(bin_dir, env), stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, start_new_session=True)
        try:
            out, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            out, _ = process.communicate()
            raise AssertionError(f"the hub did not refuse to start within {timeout} s:\n{out[-3000:]}") from None
    return subprocess.CompletedProcess(process.args, process.returncode, out, "")


def hub_cgroup(local_users: bool) -> Cgroup | None:
    """As root, a new cgroup (v2) for a hub and everything it starts, to end them all at once; None where none can be
    made, and with ``local_users``: there the shipped FallbackSpawner makes each student's cgroup under the hub's own,
    which cgroup v2 allows only where the hub's cgroup holds no process."""
    if local_users or os.geteuid() != 0:
        return None
    group = Cgroup.make(f"hub-{os.getpid()}-{uuid.uuid4().hex[:8]}", None, None, "bleu-lab-hub-harness",
                        [h for h in own_hierarchies() if h.version == 2])
    return group if group.folders else None


@contextlib.contextmanager
def running_hub(root: Path, *, idle_timeout: int = 0, cull_every: int = 5, activity_interval: int = 5,
                startup_timeout: float = 120, local_users: bool = False, env: dict[str, str] | None = None,
                bin_dir: Path | None = None, pam: bool = False) -> Iterator[Hub]:
    """Start the hub in ``root`` (its database, log, the servers' logs and, unless ``local_users``, the students'
    homes), with ``env`` added to its environment and the Python environment of ``bin_dir`` (default: this one's);
    yield it; stop it and everything it started (servers, kernels, proxy, culler) however the block ends: by PID,
    and as root by its cgroup too."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "home").mkdir(exist_ok=True)
    port = free_port()
    config = write_config(root, port, idle_timeout=idle_timeout, cull_every=cull_every,
                          activity_interval=activity_interval, local_users=local_users, pam=pam)
    python_env = None
    group: Cgroup | None = None
    hub: Hub | None = None
    signals = contextlib.ExitStack()
    if threading.current_thread() is threading.main_thread():  # SIGTERM to a test run, too, stops all of it
        signals.enter_context(exit_on_signals())
    try:
        if bin_dir is None:  # an environment students could run (the shipped config's start check asks for one)
            python_env = Path(tempfile.mkdtemp(prefix="bleu-lab-hub-python-"))
            python_env.chmod(0o755)
            bin_dir, reachable = reachable_environment(python_env)
            env = {**reachable, **(env or {})}
        group = hub_cgroup(local_users)
        with contextlib.ExitStack() as starting:
            starting.enter_context(course_files_lock())  # until it answers: its config checks the course's files
            with open(root / "hub.log", "wb") as log:
                process = subprocess.Popen(
                    [str(bin_dir / "jupyterhub"), "-f", str(config)], cwd=root, env=hub_environment(bin_dir, env),
                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            if group is not None:  # at once: the hub imports for a second or more before it starts anything
                group.join(process.pid)
            hub = Hub(f"http://127.0.0.1:{port}", root, process, cgroup=group)
            wait_until_up(hub, process, startup_timeout)
        yield hub
    finally:
        if hub is not None:
            hub.record_processes()
            # leaving on an error or a signal: a short wait for the hub's own stop of the servers (a server stopped in
            # the middle of a request took the hub a minute), then everything left is killed
            stop(hub, grace=60 if sys.exc_info()[0] is None else 10)
        elif group is not None:
            group.end()
            group.remove()
        if python_env is not None:
            shutil.rmtree(python_env, ignore_errors=True)
        signals.close()


def wait_until_up(hub: Hub, process: subprocess.Popen, startup_timeout: float) -> None:
    """Until the hub's API answers; RuntimeError with its log if it exits or takes longer than ``startup_timeout``."""
    deadline = time.monotonic() + startup_timeout
    while True:
        hub.record_processes()
        if process.poll() is not None:
            raise RuntimeError(f"jupyterhub exited with {process.returncode}:\n{hub.log()[-4000:]}")
        with contextlib.suppress(requests.RequestException):
            if requests.get(f"{hub.url}/hub/api", timeout=5).status_code == 200:
                break
        if time.monotonic() > deadline:
            raise RuntimeError(f"jupyterhub did not answer within {startup_timeout} s:\n{hub.log()[-4000:]}")
        time.sleep(0.5)


@contextlib.contextmanager
def signals_ignored() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP ignored for the block (in the main thread; elsewhere nothing changes): a second
    Ctrl-C or kill while the hub is being stopped would otherwise leave the rest running."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def stop(hub: Hub, grace: float = 60) -> None:
    """SIGTERM the hub (it stops the servers, the culler and the proxy: cleanup_servers), then SIGKILL by PID
    whatever of its tree is left after ``grace`` seconds, and every process left in its cgroup."""
    with signals_ignored():
        if hub.process.poll() is None:
            hub.process.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                hub.process.wait(grace)
        deadline = time.monotonic() + min(10, grace / 2)  # for what the hub stopped to exit
        while hub.alive() and time.monotonic() < deadline:
            time.sleep(0.5)
        for proc in hub.alive():
            with contextlib.suppress(psutil.NoSuchProcess):
                proc.kill()
        if hub.process.poll() is None:
            hub.process.kill()
            hub.process.wait(10)
        if hub.cgroup is not None:
            hub.cgroup.end()
            hub.cgroup.remove()


class Student:
    """One student's browser session (cookies) and, after login, an API token of their own."""

    def __init__(self, hub: Hub, name: str, password: str = PASSWORD):
        self.hub, self.name, self.password = hub, name, password
        self.session = requests.Session()
        self.token: str | None = None

    def xsrf_headers(self) -> dict[str, str]:
        token = self.session.cookies.get("_xsrf", path="/hub/")
        return {"X-XSRFToken": token} if token else {}

    def login(self) -> requests.Response:
        """The login form, as a browser sends it; then a token for the API calls (POST /hub/api/users/NAME/tokens)."""
        self.session.get(f"{self.hub.url}/hub/login", timeout=30)
        response = self.session.post(
            f"{self.hub.url}/hub/login?next=", data={"username": self.name, "password": self.password,
                                                     "_xsrf": self.session.cookies.get("_xsrf", path="/hub/")},
            allow_redirects=False, timeout=60)
        if response.status_code != 302:
            raise RuntimeError(f"login of {self.name}: HTTP {response.status_code}")
        token = self.session.post(f"{self.hub.url}/hub/api/users/{self.name}/tokens", headers=self.xsrf_headers(),
                                  json={"note": "bleu_lab hub test", "expires_in": 3600}, timeout=60)
        token.raise_for_status()
        self.token = token.json()["token"]
        return response

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"token {self.token}"}

    def hub_api(self, method: str, path: str, **kwargs) -> requests.Response:
        return requests.request(method, f"{self.hub.url}/hub/api{path}", headers=self.auth, timeout=120, **kwargs)

    def server_api(self, method: str, path: str, owner: str | None = None, timeout: float = 180,
                   **kwargs) -> requests.Response:
        """A request to ``/user/OWNER/...`` (default: the student's own server) with the student's token."""
        return requests.request(method, f"{self.hub.url}/user/{owner or self.name}/{path.lstrip('/')}",
                                headers=self.auth, timeout=timeout, allow_redirects=False, **kwargs)

    def user_model(self) -> dict:
        response = self.hub_api("GET", f"/users/{self.name}")
        response.raise_for_status()
        return response.json()

    def start(self) -> None:
        response = self.hub_api("POST", f"/users/{self.name}/server")
        if response.status_code not in (201, 202):
            raise RuntimeError(f"start of {self.name}'s server: HTTP {response.status_code} {response.text}")

    def wait_ready(self, timeout: float = 300) -> float:
        """Wait until the student's server is ready and answers through the proxy; return the seconds waited.

        As a browser's spawn page does: JupyterHub's progress event stream (server-sent events from
        ``GET /hub/api/users/NAME/server/progress``) until its ready event, not a request to the hub every half
        second (20 students polling cost the hub and the proxy about 4 ms of CPU per request)."""
        started = time.monotonic()
        url = f"{self.hub.url}/hub/api/users/{self.name}/server/progress"
        # the hub sends a blank keepalive every 8 s, which re-arms a read timeout: the total is checked on each line
        with requests.get(url, headers=self.auth, stream=True, timeout=(30, min(timeout, 60))) as response:
            if response.status_code != 200:
                raise RuntimeError(f"{self.name}'s server is neither ready nor starting (HTTP "
                                   f"{response.status_code}):\n{self.hub.logs_for(self.name)}")
            for line in response.iter_lines():
                event = json.loads(line[len(b"data:"):]) if line.startswith(b"data:") else {}
                if event.get("failed"):
                    raise RuntimeError(f"{self.name}'s server failed to start: {event.get('message')}\n"
                                       f"{self.hub.logs_for(self.name)}")
                if event.get("ready") or time.monotonic() - started > timeout:
                    break
        while time.monotonic() - started < timeout:
            with contextlib.suppress(requests.RequestException):
                if self.server_api("GET", "api/status", timeout=30).status_code == 200:
                    return time.monotonic() - started
            time.sleep(0.5)
        raise StepTimeout(f"{self.name}: the server was not ready after {timeout} s\n{self.hub.logs_for(self.name)}")

    def stop_server(self, timeout: float = 120) -> None:
        self.hub_api("DELETE", f"/users/{self.name}/server")
        deadline = time.monotonic() + timeout
        while self.user_model().get("servers", {}).get(""):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.name}'s server did not stop within {timeout} s")
            time.sleep(0.5)

    def server_pid(self) -> int | None:
        """The PID of the student's single-user server (the process whose HOME is the student's home)."""
        home = str(self.hub.homes / self.name)
        for proc in self.hub.record_processes():
            with contextlib.suppress(psutil.Error):
                if proc.environ().get("HOME") == home and "jupyterhub-singleuser" in " ".join(proc.cmdline()):
                    return proc.pid
        return None

    def contents(self, path: str) -> dict:
        response = self.server_api("GET", f"api/contents/{path}")
        response.raise_for_status()
        return response.json()

    def run_lesson(self, lesson: str, marker: str) -> tuple[str, str, str, str]:
        """Open ``lesson`` in a kernel (a session, as JupyterLab does) and run its code cells up to the one whose
        saved output shows ``marker``; return the kernel's id, the reply status, what the cells printed and the
        saved output of that cell."""
        sources, saved = lesson_cells_up_to(self.contents(lesson)["content"], marker)
        session = self.server_api("POST", "api/sessions", data=json.dumps(
            {"path": lesson, "type": "notebook", "name": "", "kernel": {"name": "python3"}}))
        if session.status_code != 201:
            raise RuntimeError(f"{self.name}: no kernel for {lesson}: HTTP {session.status_code} {session.text}")
        kernel_id = session.json()["kernel"]["id"]
        url = self.hub.url.replace("http", "ws", 1) + f"/user/{self.name}/api/kernels/{kernel_id}/channels"
        status, printed = run_async(execute(url, self.token, "\n".join(sources)))
        return kernel_id, status, printed, saved

    def put_notebook(self, path: str, notebook: dict) -> None:
        response = self.server_api("PUT", f"api/contents/{path}",
                                   data=json.dumps({"type": "notebook", "format": "json", "content": notebook}))
        response.raise_for_status()


def lesson_cells_up_to(notebook: dict, marker: str) -> tuple[list[str], str]:
    """The code of lesson 0's cells up to the first one whose saved output contains ``marker``, and that output."""
    sources = []
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if source.lstrip().startswith("%"):
            continue  # magics (%load of a worked solution): not needed for the cell we run
        sources.append(source)
        for output in cell.get("outputs", []):
            text = output.get("text") or output.get("data", {}).get("text/plain", "")
            text = "".join(text) if isinstance(text, list) else text
            if marker in text:
                return sources, text
    raise AssertionError(f"no cell of the lesson prints {marker!r}")

