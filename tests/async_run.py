"""``run_async``: a coroutine run to its end from a synchronous test, whatever the worker ran before.

The browser tests drive Chromium through Playwright's sync API, whose session-wide browser keeps an event loop running
in the worker's thread; ``asyncio.run`` refuses to start inside one. With ``--dist loadfile`` any test file may share
a worker with them, so a coroutine runs in a thread of its own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def run_async(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coroutine)`` in a fresh thread; its result, or its exception raised here."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()
