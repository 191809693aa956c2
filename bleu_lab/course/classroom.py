"""Classroom mode's kernel manager: a student's kernel lives while their tab is open and goes soon after it closes.

Voilà asks the server to shut a page's kernel down when the tab closes, but with XSRF protection on that request
is refused (Voilà sets no ``_xsrf`` cookie), and a laptop that is closed sends nothing. So voila.json culls:
``MappingKernelManager.cull_idle_timeout`` with ``cull_connected: false`` (a connected page keeps its kernel).

jupyter_server measures idleness from the kernel's last message. A preheated kernel waits in Voilà's pool, idle,
and is handed to a page some seconds before that page connects; a cull pass in between would kill it under the
student. ``ClassroomKernelManager`` therefore also requires that no page has been connected for
``cull_idle_timeout`` seconds (counted from the first cull pass that saw the kernel without a page), so a kernel
goes about ``cull_idle_timeout`` + 2 × ``cull_interval`` seconds after its tab closed, and never before its page
had that long to connect (``connect_grace``, for pages still loading on a busy laptop). voila.json names it as
``VoilaConfiguration.multi_kernel_manager_class``.

Kernels also start ``max_starting`` at a time (default 1): a kernel's start (and the notebook run after it) takes
a core for a second or two, and twenty of them at once, when a room arrives or Voilà refills its pool, would slow
every page and every student's typing for half a minute. One at a time, the first students are served first and
the rest of the laptop stays responsive. A start holds its turn until the kernel settles (idle for a moment after
its first run) or ``start_turn_s`` seconds pass.

``bleu-lab classroom`` (``main`` below) starts Voilà with ``ClassroomVoila``, which adds what a room shared with
strangers needs (see docs/instructor.md, "A classroom server that holds"):

- **Who is a client.** Jupyter's own login cookie (signed with the server's secret; set on a student's first
  request, anonymous unless the instructor set a token). A page request without it is sent back once to set it
  (and a ``?token=`` is taken off the address, so a reload keeps the same identity); a client that still sends no
  cookie is identified by its remote IP address. Why the cookie first: students behind one NAT share an address,
  and one student's reload must never replace a classmate's kernel; why the IP as the fallback: a script that
  refuses cookies would otherwise be a new student on every request.
- **One kernel per client**: a page request from a client shuts down the kernel the client already has (a reload
  replaces it, and a page still open on the old kernel says its kernel is gone); concurrent requests from one
  client are served one at a time, and a request overtaken by a newer one from the same client is answered without
  a kernel.
- **A cap on the room** (``max_students``): beyond it a page says the classroom is full, and spare kernels are only
  kept while there is room for them, so the server never runs more than ``max_students`` kernels.
- **Owner-scoped kernels**: the kernel API, its websocket and Voilà's shutdown request answer only the kernel's
  owner (anyone else gets 404, as for a kernel that does not exist).
- **A memory limit per kernel** (``kernel_memory_mb``, ``--memory``): every kernel starts under an operating-system
  limit on its data memory (``RLIMIT_DATA``: heap and anonymous memory, enforced by Linux; macOS ignores it), set
  before the kernel runs a line, so one student's computation fails with a ``MemoryError`` (the pages say so)
  instead of taking the laptop's memory from the room. A kernel that dies all the same (killed by the system, or
  out of memory where Python cannot raise ``MemoryError``) is not restarted, and its page says in plain words that
  its Python process stopped, probably for memory, and that a reload starts again (``LimitedKernelManager``; the
  words are the bleu_lab Voilà template's, given the limit through ``VoilaConfiguration.resources``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from time import monotonic

from jupyter_server._tz import utcnow
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager, ServerKernelManager
from traitlets import Float, Integer, default

from ..reports.templates import render


def settled(started: datetime | None, last: datetime | None, state: str, now: datetime, quiet_s: float = 1.0) -> bool:
    """True once a new kernel has had activity since ``started`` and has been idle for ``quiet_s`` seconds."""
    if started is None or last is None or last <= started or state != "idle":
        return False
    return (now - last).total_seconds() >= quiet_s


def room_for(max_students: int, taken: int) -> bool:
    """True when one more client may get a kernel (``max_students`` 0: no limit)."""
    return max_students <= 0 or taken < max_students


def spares(pool_size: int, max_students: int, taken: int) -> int:
    """How many preheated kernels to keep: the pool's size, but never more than the places left in the room, so that
    clients' kernels and spares together stay within ``max_students``."""
    return pool_size if max_students <= 0 else max(0, min(pool_size, max_students - taken))


def may_cull(connections: int, unconnected_since: float | None, now: float, timeout: float) -> bool:
    """True once a kernel has had no page connected for ``timeout`` seconds (``unconnected_since`` None: just seen)."""
    return connections == 0 and unconnected_since is not None and now - unconnected_since >= timeout


# Run before the kernel: set the limit on the process's data memory (soft and hard, so code in the kernel cannot
# raise it), then become the kernel (exec: same process, so the kernel manager's signals and exit status are the
# kernel's). Python's -c and the standard library only: nothing else is imported into the kernel's process.
LIMIT_LAUNCHER = """import os, resource, sys
limit, hard = int(sys.argv[1]), resource.getrlimit(resource.RLIMIT_DATA)[1]
if hard != resource.RLIM_INFINITY:
    limit = min(limit, hard)  # a lower limit set by the system stays
resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
os.execvp(sys.argv[2], sys.argv[2:])"""


def limited_command(command: Sequence[str], memory_mb: int) -> list[str]:
    """``command`` started under a data-memory limit of ``memory_mb`` MiB (``memory_mb`` 0: unchanged)."""
    if memory_mb <= 0 or sys.platform == "win32":
        return list(command)
    return [sys.executable, "-c", LIMIT_LAUNCHER, str(memory_mb * 2**20), *command]


class LimitedKernelManager(ServerKernelManager):
    """A kernel started under its parent's ``kernel_memory_mb`` (see ``limited_command``), and not restarted when it
    dies: a fresh kernel would hold none of the page's widgets (the page would look alive and answer nothing), so the
    kernel is let go (its place in the room frees), its page is sent Jupyter's "dead" status and says what happened
    (the bleu_lab Voilà template)."""

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        return limited_command(super().format_kernel_cmd(extra_arguments), getattr(self.parent, "kernel_memory_mb", 0))

    def start_restarter(self) -> None:
        """jupyter_client's restarter, which notices a kernel's death, told to give up at once (``restart_limit`` 0:
        the first death fires the "dead" callbacks instead of a restart)."""
        super().start_restarter()
        if self._restarter is not None:
            self._restarter.restart_limit = 0


class ClassroomKernelManager(AsyncMappingKernelManager):
    """Culls a kernel only after no page has been connected to it for ``cull_idle_timeout`` seconds (and it is idle)."""

    connect_grace = Float(120.0, config=True, help="Seconds a page has to connect to its kernel before culling.")
    max_starting = Integer(1, config=True, help="How many kernels may be starting at once (0: no limit).")
    start_turn_s = Float(20.0, config=True, help="The longest a starting kernel keeps others waiting (seconds).")
    max_students = Integer(0, config=True, help="How many clients may hold a kernel at once (0: no limit).")
    kernel_memory_mb = Integer(0, config=True, help="The data memory each kernel may use, in MiB (0: no limit).")

    @default("kernel_manager_class")
    def _default_kernel_manager_class(self) -> str:
        return f"{__name__}.LimitedKernelManager"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._unconnected_since: dict[str, float] = {}
        self._ever_connected: set[str] = set()
        self._turns: asyncio.Semaphore | None = None
        self._owners: dict[str, str] = {}  # kernel id -> the client it was handed to
        self._reserved = 0  # page requests admitted that have not got their kernel yet
        self._latest: dict[str, int] = {}  # client -> number of its newest page request
        self._client_locks: dict[str, asyncio.Lock] = {}
        self._sockets: dict[str, set] = {}  # kernel id -> the websocket handlers of pages connected to it
        if hasattr(self, "fill_if_needed"):  # Voilà's pool (preheat_kernel): keep spares only while there is room
            self._fill_pool = self.fill_if_needed
            self.fill_if_needed = self._fill_within_room

    # --- clients and their kernels ---------------------------------------------------------------------------

    def owner(self, kernel_id: str) -> str | None:
        """The client a running kernel was handed to (None: a spare in the pool, or no such kernel)."""
        return self._owners.get(kernel_id) if kernel_id in self._kernels else None

    def kernels_of(self, client: str) -> list[str]:
        """The running kernels handed to ``client``."""
        return [k for k, c in self._owners.items() if c == client and k in self._kernels]

    def students(self) -> int:
        """How many running kernels are held by clients."""
        self._owners = {k: c for k, c in self._owners.items() if k in self._kernels}
        return len(self._owners)

    def claim(self, kernel_id: str, client: str) -> None:
        """Record that ``kernel_id`` was handed to ``client``."""
        self._owners[kernel_id] = client

    def admit(self) -> bool:
        """Take a place in the room for a page request (release it with ``release``); False when the room is full."""
        if not room_for(self.max_students, self.students() + self._reserved):
            return False
        self._reserved += 1
        return True

    def release(self) -> None:
        self._reserved = max(0, self._reserved - 1)

    def newest_request(self, client: str) -> int:
        """Number a new page request of ``client``; ``superseded`` tells whether a newer one came since."""
        self._latest[client] = self._latest.get(client, 0) + 1
        return self._latest[client]

    def superseded(self, client: str, number: int) -> bool:
        return self._latest.get(client, 0) != number

    def client_lock(self, client: str) -> asyncio.Lock:
        """One page request of a client at a time (the locks of clients with no request under way are forgotten once
        there are many, so clients who come and go cost no memory)."""
        if len(self._client_locks) > 1000:
            for idle in [c for c, lock in self._client_locks.items() if not lock.locked() and c != client]:
                del self._client_locks[idle]
                self._latest.pop(idle, None)
        return self._client_locks.setdefault(client, asyncio.Lock())

    def watch_socket(self, kernel_id: str, handler, connected: bool = True) -> None:
        """Record (or, ``connected`` False, forget) a page's websocket on ``kernel_id``."""
        if connected:
            self._sockets.setdefault(kernel_id, set()).add(handler)
        else:
            self._sockets.get(kernel_id, set()).discard(handler)

    async def shutdown_kernel(self, kernel_id: str, now: bool = False, restart: bool = False):
        """Shut a kernel down and close its pages' websockets (jupyter_server leaves them open on a kernel that is
        gone, and the page would not know): the page then finds its kernel gone and says so (the bleu_lab template)."""
        result = await super().shutdown_kernel(kernel_id, now=now, restart=restart)
        if not restart:
            for handler in self._sockets.pop(kernel_id, set()):
                handler.close(1001, "kernel shut down")  # 1001: going away
        return result

    def top_up_pool(self) -> None:
        """Refill the pools up to the room left (after a client's kernel went, the pool may have room again)."""
        if hasattr(self, "_fill_pool"):
            for notebook_name in list(getattr(self, "_pools", {})):
                self.fill_if_needed(delay=None, notebook_name=notebook_name)

    def _fill_within_room(self, delay: float | None = None, notebook_name: str | None = None, **kwargs) -> None:
        """Voilà's pool refill, with the pool size cut to the room left (``spares``) for this one call."""
        configured = self.kernel_pools_config
        if not self.max_students:
            return self._fill_pool(delay, notebook_name, **kwargs)
        config = configured.get(notebook_name, configured.get("default", {}))
        size = spares(config.get("pool_size", 1), self.max_students, self.students() + self._reserved)
        self.kernel_pools_config = {**configured, notebook_name: {**config, "pool_size": size}}
        try:
            self._fill_pool(delay, notebook_name, **kwargs)
        finally:
            self.kernel_pools_config = configured

    async def start_kernel(self, *args, **kwargs) -> str:
        """Start a kernel when it is its turn (``max_starting`` at a time); the turn ends when it settles."""
        if self.max_starting <= 0:
            return await super().start_kernel(*args, **kwargs)
        self._turns = self._turns or asyncio.Semaphore(self.max_starting)
        await self._turns.acquire()
        try:
            kernel_id = await super().start_kernel(*args, **kwargs)
        except BaseException:
            self._turns.release()
            raise
        asyncio.get_running_loop().create_task(self._end_turn_when_settled(kernel_id))
        return kernel_id

    async def _end_turn_when_settled(self, kernel_id: str) -> None:
        """Release the start turn once the kernel has run something and been quiet for a second, or after
        ``start_turn_s``."""
        deadline = monotonic() + self.start_turn_s
        started = getattr(self._kernels.get(kernel_id), "last_activity", None)
        try:
            while monotonic() < deadline and kernel_id in self._kernels:
                kernel = self._kernels[kernel_id]
                state, last = getattr(kernel, "execution_state", ""), getattr(kernel, "last_activity", None)
                if settled(started, last, state, utcnow()):
                    break
                await asyncio.sleep(0.1)
        finally:
            self._turns.release()

    def notify_connect(self, kernel_id: str) -> None:
        """A page connected: from now on the idle timeout, not the connect grace, applies."""
        super().notify_connect(kernel_id)
        self._ever_connected.add(kernel_id)

    async def cull_kernels(self):
        """One cull pass; forgets kernels that are gone."""
        await super().cull_kernels()
        self.top_up_pool()
        self._unconnected_since = {k: t for k, t in self._unconnected_since.items() if k in self._kernels}
        self._ever_connected &= set(self._kernels)
        self._sockets = {k: handlers for k, handlers in self._sockets.items() if k in self._kernels}

    async def cull_kernel_if_idle(self, kernel_id: str):
        """jupyter_server's idle check, once the kernel has been without a page for the timeout."""
        if self.cull_connected:
            return await super().cull_kernel_if_idle(kernel_id)
        connections, now = self._kernel_connections.get(kernel_id, 0), monotonic()
        since = None if connections else self._unconnected_since.get(kernel_id)
        if connections:
            self._unconnected_since.pop(kernel_id, None)
        elif since is None:
            self._unconnected_since[kernel_id] = now
        timeout = self.cull_idle_timeout if kernel_id in self._ever_connected else self.connect_grace
        if may_cull(connections, since, now, timeout):
            return await super().cull_kernel_if_idle(kernel_id)
        return None


# --- the classroom server: Voilà with clients, a cap and owner-scoped kernels ------------------------------------

COOKIE_CHECK = "bleu-lab-cookie-check"  # added to the address by the one redirect that sets the login cookie
def full_page(students: int, retry: int = 30) -> str:
    """The page a student gets when all ``students`` places are taken ("the only place" for a room of one)."""
    taken = ("The only place of this BLEU page is taken." if students == 1
             else f"All {students} places of this BLEU page are taken.")
    return render("classroom_full.html.j2", taken=taken, retry=retry)


def superseded_page() -> str:
    """The page an older tab gets once the same student opened the classroom page again."""
    return render("classroom_superseded.html.j2")


DEFAULT_KERNEL_MEMORY_MB = 1024  # a kernel with the comparison page and an upload at its bound stays well under it
MIN_KERNEL_MEMORY_MB = 400  # below this a kernel cannot even import the pages' libraries (about 200 MB of data)


@dataclass(frozen=True)
class ClassroomFiles:
    """Where classroom mode's files are: ``root`` holds voila.json, ``notebook`` is the page served."""

    root: Path
    notebook: Path


PAGES = {  # what `bleu-lab classroom --page` can serve
    "playground": "notebooks/playground.ipynb",  # type a hypothesis, see every step of its score
    "compare": "notebooks/compare_app.ipynb",  # upload systems' outputs and references, read lesson 11's analyses
}


def classroom_files(page: str = "playground") -> ClassroomFiles:
    """A page of ``PAGES`` and voila.json: in the course's root, a clone's top folder or an installed wheel's course
    files (``bleu_lab.course.course_root``; the one place that says so)."""
    from . import course_root

    if page not in PAGES:
        raise ValueError(f"page must be one of {', '.join(PAGES)}, not {page!r}")
    root = course_root()
    return ClassroomFiles(root, root / PAGES[page])


def _classroom_handlers():
    """The Voilà handlers classroom mode replaces, and their replacements (imported late: Voilà is heavy)."""
    import tornado.web
    from jupyter_core.utils import ensure_async
    from jupyter_server.services.kernels.handlers import KernelHandler
    from voila.shutdown_kernel_handler import VoilaShutdownKernelHandler
    from voila.tornado.handler import TornadoVoilaHandler
    from voila.tornado.kernel_websocket_handler import VoilaKernelWebsocketHandler

    async def cookie_client(handler) -> str | None:
        """The client named by Jupyter's signed login cookie, if the request carries a valid one."""
        user = await ensure_async(handler.identity_provider.get_user_cookie(handler))
        return f"user:{user.username}" if user is not None else None

    async def client_of(handler) -> str:
        return await cookie_client(handler) or f"ip:{handler.request.remote_ip}"

    async def require_owner(handler, kernel_id: str) -> None:
        if handler.settings["kernel_manager"].owner(kernel_id) != await client_of(handler):
            raise tornado.web.HTTPError(404, "no such kernel")  # another client's kernel, or a spare in the pool

    class Claiming:
        """The kernel manager as one admitted page request sees it: the kernel it gets is recorded as the client's,
        and from then on the kernel, not the request's reservation, holds the client's place."""

        def __init__(self, manager, client: str):
            self._manager, self._client, self.reserved = manager, client, True

        def __getattr__(self, name: str):
            return getattr(self._manager, name)

        def _claim(self, kernel_id: str) -> None:
            self._manager.claim(kernel_id, self._client)
            self.release()

        def release(self) -> None:
            if self.reserved:
                self._manager.release()
                self.reserved = False

        async def get_rendered_notebook(self, *args, **kwargs):
            task, cache, kernel_id = await self._manager.get_rendered_notebook(*args, **kwargs)
            self._claim(kernel_id)
            return task, cache, kernel_id

        async def start_kernel(self, *args, **kwargs) -> str:
            kernel_id = await ensure_async(self._manager.start_kernel(*args, **kwargs))
            self._claim(kernel_id)
            return kernel_id

    class ClassroomPageHandler(TornadoVoilaHandler):
        """The page: one kernel per client, a reload replaces it, a full room gets a page saying so."""

        claiming: Claiming | None = None

        @property
        def kernel_manager(self):
            return self.claiming or self.settings["kernel_manager"]

        @tornado.web.authenticated
        async def get(self, path=None):
            if path:  # another file: Voilà's own answer (a redirect to its file handler)
                return await super().get(path)
            cookie = await cookie_client(self)
            query = self.request.query_arguments
            if "token" in query or (cookie is None and COOKIE_CHECK not in query):
                return self.redirect(_checked_address(self.request.path, query))
            client = cookie or f"ip:{self.request.remote_ip}"
            manager = self.settings["kernel_manager"]
            number = manager.newest_request(client)
            async with manager.client_lock(client):
                if manager.superseded(client, number):
                    self.set_status(409)
                    return self.finish(superseded_page())
                for kernel_id in manager.kernels_of(client):  # a reload (or a second tab) replaces the kernel
                    self.log.info("classroom: %s reloaded; shutting down its kernel %s", client, kernel_id)
                    await manager.shutdown_kernel(kernel_id, now=True)
                if not manager.admit():
                    self.log.warning("classroom: full (%d students); %s turned away", manager.max_students, client)
                    self.set_status(503)
                    self.set_header("Retry-After", "30")
                    return self.finish(full_page(manager.max_students))
                self.claiming = Claiming(manager, client)
                try:
                    await super().get(path)
                finally:
                    self.claiming.release()  # if no kernel was claimed (an error): the place is free again
                    manager.top_up_pool()

    class OwnedKernelHandler(KernelHandler):
        """``/api/kernels/ID`` (read, shut down) for the kernel's owner only."""

        async def prepare(self):
            await super().prepare()
            await require_owner(self, self.path_kwargs.get("kernel_id") or self.path_args[0])

    class OwnedShutdownHandler(VoilaShutdownKernelHandler):
        """Voilà's shutdown request (sent when a tab closes) for the kernel's owner only."""

        async def prepare(self):
            await super().prepare()
            await require_owner(self, self.path_args[0] if self.path_args else "")

    class OwnedKernelWebsocketHandler(VoilaKernelWebsocketHandler):
        """The kernel's websocket (what the widgets speak) for the kernel's owner only; closed when the kernel is shut
        down (``ClassroomKernelManager.shutdown_kernel``)."""

        async def pre_get(self):
            await super().pre_get()
            await require_owner(self, self.kernel_id)

        async def open(self, kernel_id):
            await super().open(kernel_id)
            self.kernel_manager.watch_socket(self.kernel_id, self)

        def on_close(self):
            self.kernel_manager.watch_socket(self.kernel_id, self, connected=False)
            super().on_close()

    return {TornadoVoilaHandler: ClassroomPageHandler, KernelHandler: OwnedKernelHandler,
            VoilaShutdownKernelHandler: OwnedShutdownHandler, VoilaKernelWebsocketHandler: OwnedKernelWebsocketHandler}


def _checked_address(path: str, query: dict[str, list[bytes]]) -> str:
    """``path`` with the query minus any token, plus the cookie-check mark (see ``ClassroomPageHandler``)."""
    from urllib.parse import urlencode

    kept = [(k, v) for k, values in query.items() if k not in ("token", COOKIE_CHECK) for v in values]
    return f"{path}?{urlencode([*kept, (COOKIE_CHECK, b'1')])}"


def classroom_app_class():
    """``ClassroomVoila``: Voilà whose page, kernel API, kernel websocket and shutdown handlers are classroom mode's,
    with voila.json read from ``classroom_files().root`` wherever the command is run."""
    from jupyter_core.paths import jupyter_config_path
    from jupyter_core.utils import ensure_async
    from jupyter_server.auth.identity import PasswordIdentityProvider
    from traitlets import default
    from voila.app import Voila

    replaced = _classroom_handlers()

    class ClassroomIdentityProvider(PasswordIdentityProvider):
        """Jupyter's token and password login, except that a valid login cookie keeps naming its client when a token
        comes with the request (Jupyter would log the client in again as a new anonymous user, and a student's
        reload would no longer replace their own kernel)."""

        async def _get_user(self, handler):
            if getattr(handler, "_jupyter_current_user", None) is None:
                user = await ensure_async(self.get_user_cookie(handler))
                if user is not None:
                    if await ensure_async(self.get_user_token(handler)) is not None:
                        handler._token_authenticated = True  # as Jupyter marks it: no XSRF check needed
                    return user
            return await super()._get_user(handler)

    class ClassroomVoila(Voila):
        @default("config_file_paths")
        def _config_file_paths_default(self):
            return [str(classroom_files().root), *jupyter_config_path()]

        @default("identity_provider_class")
        def _identity_provider_class_default(self):
            return ClassroomIdentityProvider

        def init_handlers(self):
            return [(rule[0], replaced.get(rule[1], rule[1]), *rule[2:]) for rule in super().init_handlers()]

    return ClassroomVoila


def build_parser(prog: str = "bleu-lab classroom") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Serve the BLEU playground (or the comparison page) to a room as a Voilà app: one kernel per "
        "student, at most --students "
        "at once (later arrivals see 'classroom full'), a reload replaces the student's kernel.",
        epilog="Students open the printed address. With --ip 0.0.0.0 everyone on the network can reach it: give a "
        "--token and hand out the address with ?token=... (or tell the token; the login page asks for it). Voilà "
        "options for the room go after --, e.g. -- --MappingKernelManager.cull_idle_timeout=120.",
    )
    parser.add_argument("--page", default="playground", metavar="PAGE",
                        help="playground (default), or compare: students upload their systems' outputs")
    parser.add_argument("--students", type=int, default=2, metavar="N",
                        help="how many students at once: the cap on kernels and the number preheated (default 2)")
    parser.add_argument("--memory", type=int, default=DEFAULT_KERNEL_MEMORY_MB, metavar="MB",
                        help="memory each student's kernel may use, in MB (default %(default)s; Linux enforces it): "
                        "a computation that needs more fails with a message instead of slowing the room")
    parser.add_argument("--token", default="", metavar="T", help="students need this token to open the app "
                        "(Jupyter's token login); default: no token")
    parser.add_argument("--port", type=int, default=8866, metavar="P", help="port (default 8866)")
    parser.add_argument("--ip", default="localhost", metavar="IP",
                        help="address to listen on (default localhost; 0.0.0.0 for the room's network)")
    return parser


def voila_arguments(args: argparse.Namespace, files: ClassroomFiles) -> list[str]:
    """Voilà's command line for ``bleu-lab classroom``: the page, a pool and a cap sized to the class."""
    notebook = files.notebook.relative_to(files.root).as_posix()
    pools = {"default": {"pool_size": 0}, notebook: {"pool_size": args.students}}
    return [
        str(files.notebook),
        f"--Voila.root_dir={files.root}",
        f"--Voila.ip={args.ip}",
        f"--Voila.port={args.port}",
        "--Voila.port_retries=0",
        "--no-browser",
        f"--Voila.token={args.token}",
        f"--ClassroomKernelManager.max_students={args.students}",
        f"--ClassroomKernelManager.kernel_memory_mb={args.memory}",
        f"--VoilaConfiguration.resources={json.dumps({'kernel_memory_mb': args.memory})}",  # for the page's words
        f"--VoilaKernelManager.kernel_pools_config={json.dumps(pools)}",
    ]


def main(argv: Sequence[str] | None = None, prog: str = "bleu-lab") -> int:
    """``bleu-lab classroom``: check the arguments, then run the classroom server until Ctrl-C."""
    argv = list(sys.argv[2:] if argv is None else argv)
    split = argv.index("--") if "--" in argv else len(argv)
    args = build_parser(f"{prog} classroom").parse_args(argv[:split])
    if args.page not in PAGES:
        print(f"{prog} classroom: error: --page must be one of {', '.join(PAGES)}, got {args.page!r}", file=sys.stderr)
        return 2
    files = classroom_files(args.page)
    problems = [f"--students must be between 1 and 500, got {args.students}" if not 1 <= args.students <= 500 else "",
                f"--port must be between 1 and 65535, got {args.port}" if not 0 < args.port < 65536 else "",
                f"--memory must be at least {MIN_KERNEL_MEMORY_MB} (MB), got {args.memory}"
                if args.memory < MIN_KERNEL_MEMORY_MB else "",
                f"the {args.page} page is missing: {files.notebook}" if not files.notebook.is_file() else "",
                f"voila.json is missing: {files.root / 'voila.json'}" if not (files.root / "voila.json").is_file()
                else ""]
    problem = next((p for p in problems if p), "")
    if problem:
        print(f"{prog} classroom: error: {problem}", file=sys.stderr)
        return 2
    if args.ip not in ("localhost", "127.0.0.1", "::1") and not args.token:
        print(f"note: anyone who can reach {args.ip}:{args.port} can open the {args.page} page; "
              "--token T asks them for a token", file=sys.stderr)
    import warnings

    warnings.filterwarnings("ignore", "--kernel_pools_config=.* is deprecated", DeprecationWarning)
    extra = argv[split + 1:]
    given = {option.split("=")[0] for option in extra}  # an option given after -- replaces ours (a dict would merge)
    ours = [option for option in voila_arguments(args, files) if option.split("=")[0] not in given]
    classroom_app_class().launch_instance([*ours, *extra])
    return 0
