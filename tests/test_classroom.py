"""Classroom mode's kernel manager without a server: a kernel is culled only once no page has been connected to it
for the idle timeout, so a preheated kernel handed to a page that has not connected yet survives."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager

from bleu_lab import classroom
from bleu_lab.classroom import ClassroomKernelManager, may_cull, settled


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
        asyncio.run(manager.cull_kernel_if_idle("k"))
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
        asyncio.run(manager.cull_kernel_if_idle("k"))
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

    ids, seconds = asyncio.run(room())
    assert ids == ["k0", "k1", "k2"] and most == 1 and seconds < 10  # each waited for the last to settle, not 10 s
