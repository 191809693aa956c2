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
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from time import monotonic

from jupyter_server._tz import utcnow
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from traitlets import Float, Integer


def settled(started: datetime | None, last: datetime | None, state: str, now: datetime, quiet_s: float = 1.0) -> bool:
    """True once a new kernel has had activity since ``started`` and has been idle for ``quiet_s`` seconds."""
    if started is None or last is None or last <= started or state != "idle":
        return False
    return (now - last).total_seconds() >= quiet_s


def may_cull(connections: int, unconnected_since: float | None, now: float, timeout: float) -> bool:
    """True once a kernel has had no page connected for ``timeout`` seconds (``unconnected_since`` None: just seen)."""
    return connections == 0 and unconnected_since is not None and now - unconnected_since >= timeout


class ClassroomKernelManager(AsyncMappingKernelManager):
    """Culls a kernel only after no page has been connected to it for ``cull_idle_timeout`` seconds (and it is idle)."""

    connect_grace = Float(120.0, config=True, help="Seconds a page has to connect to its kernel before culling.")
    max_starting = Integer(1, config=True, help="How many kernels may be starting at once (0: no limit).")
    start_turn_s = Float(20.0, config=True, help="The longest a starting kernel keeps others waiting (seconds).")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._unconnected_since: dict[str, float] = {}
        self._ever_connected: set[str] = set()
        self._turns: asyncio.Semaphore | None = None

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
        self._unconnected_since = {k: t for k, t in self._unconnected_since.items() if k in self._kernels}
        self._ever_connected &= set(self._kernels)

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
