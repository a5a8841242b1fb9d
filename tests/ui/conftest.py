"""Offscreen Qt on a function-scoped qasync loop (engineering notes §1.7).

Each test body is ``async def scenario()`` run with ``loop.run_until_complete``; :func:`until` polls a
predicate with short sleeps so the loop keeps serving Qt and asyncio while we wait.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, TypeVar

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("qasync")
from PySide6.QtCore import QCoreApplication, QEvent  # after the importorskip guards

from ui.qtloop import GuiLoop


@pytest.fixture(autouse=True)
def _no_real_game_folders(monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows built in tests never look at (or keep replays in) this machine's real game folders.

    Tests of the first start hand the window a finder over a fake home (``find_folders``).
    """
    monkeypatch.setattr("ui.window.replay_folders.find_replay_folders", list)


@pytest.fixture
def loop(qapp: Any) -> Iterator[asyncio.AbstractEventLoop]:
    """A fresh qasync loop for one test, closed afterwards.

    It is a :class:`ui.qtloop.GuiLoop`: closing it here deletes its Qt timer object and signaller on the GUI
    thread. A plain ``qasync.QEventLoop`` left them to the garbage collector, which freed them later on whatever
    thread it ran (a scripted server's, an ``asyncio.to_thread`` worker), and the GUI thread's next
    ``processEvents`` delivered a timer event to the freed object: the suite's SIGSEGV (issue 35).
    """
    lp = GuiLoop(qapp)
    asyncio.set_event_loop(lp)
    try:
        yield lp
    finally:
        lp.run_until_complete(lp.shutdown_asyncgens())
        lp.close()
        asyncio.set_event_loop(None)
        # this test's widgets go now, on this thread: qtbot's deleteLater, and what only a collection frees
        gc.collect()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        qapp.processEvents()


@pytest.fixture
def run(loop: asyncio.AbstractEventLoop) -> Callable[[Coroutine[Any, Any, Any]], Any]:
    """Run a scenario coroutine to completion on the test's loop."""

    def runner(coro: Coroutine[Any, Any, Any]) -> Any:
        return loop.run_until_complete(asyncio.wait_for(coro, timeout=120))

    return runner


async def until(pred: Callable[[], object], timeout: float = 30.0, what: str = "condition") -> None:
    """Wait (serving the loop) until ``pred()`` is truthy; fail the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


T = TypeVar("T")


async def settled(read: Callable[[], T], interval: float = 0.25, timeout: float = 10.0) -> T:
    """``read()`` again every ``interval`` seconds (serving the loop) until two reads in a row agree; that read.

    The side tabs fill from worker threads after they are built, so one read of a screen may miss the text that comes
    a moment later. Fails the test if the reads still change after ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    last = read()
    while True:
        await asyncio.sleep(interval)
        again = read()
        if again == last:
            return again
        if time.monotonic() > deadline:
            raise AssertionError(f"the screen still changed after {timeout} s")
        last = again


@pytest.fixture
def memory_keyring() -> Iterator[Any]:
    """Install an in-memory keyring backend for the test."""
    from tests.keyrings import memory_keyring_installed

    with memory_keyring_installed() as backend:
        yield backend
