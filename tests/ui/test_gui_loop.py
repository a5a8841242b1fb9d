"""The qasync loop's Qt objects die on the GUI thread when it closes (issue 35: the suite's SIGSEGV).

A closed ``qasync.QEventLoop`` leaves its timer object, with the Qt timer of a cancelled ``wait_for`` timeout
still registered, in a reference cycle. When a garbage collection on another thread frees it, Qt cannot
unregister the timer from there, and the GUI thread's next ``processEvents`` delivers the timer's event to freed
memory. The scenario runs in a fresh interpreter, as the app runs its loop (``asyncio.Runner`` with a loop
factory), once with qasync's own loop, to pin the mechanism, and once with the app's :class:`ui.qtloop.GuiLoop`.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
import threading
from typing import Any

import pytest

from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.gui

SEQUENCE = textwrap.dedent(
    """
    import asyncio, gc, sys, threading, time
    import qasync
    from PySide6.QtWidgets import QApplication
    from ui.qtloop import GuiLoop

    app = QApplication([])
    make = GuiLoop if sys.argv[1] == "app" else qasync.QEventLoop
    gc.disable()  # only the collection below, on its thread
    with asyncio.Runner(loop_factory=lambda: make(app)) as runner:
        # wait_for's timeout is cancelled when the sleep ends; qasync keeps its Qt timer until it would fire
        runner.run(asyncio.wait_for(asyncio.sleep(0), timeout=0.5))
    collector = threading.Thread(target=gc.collect, name="worker")  # as a to_thread worker's allocation would
    collector.start()
    collector.join()
    time.sleep(0.7)  # the timer is due now
    app.processEvents()
    print("survived", flush=True)
    """
)
OFF_THREAD = "Timers cannot be stopped from another thread"


def _sequence(loop_kind: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run(
        [sys.executable, "-X", "faulthandler", "-c", SEQUENCE, loop_kind],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_plain_qasync_loop_collected_on_another_thread_leaves_its_timer_behind() -> None:
    run = _sequence("qasync")
    assert OFF_THREAD in run.stderr, run.stderr[-2000:]
    assert "survived" not in run.stdout  # the timer event reached freed memory: SIGSEGV
    assert run.returncode != 0


def test_the_apps_loop_deletes_its_qt_objects_when_it_closes() -> None:
    run = _sequence("app")
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "survived"
    assert OFF_THREAD not in run.stderr


def test_close_deletes_the_qt_objects_and_later_thread_calls_are_dropped(qapp: Any) -> None:
    import shiboken6

    from ui.qtloop import GuiLoop

    loop = GuiLoop(qapp)
    threads: list[str] = []

    def where() -> None:
        threads.append(threading.current_thread().name)

    async def scenario() -> None:
        await asyncio.to_thread(where)
        await asyncio.wait_for(asyncio.sleep(0), timeout=60)  # leaves a Qt timer registered

    try:
        loop.run_until_complete(scenario())
        owned = loop.qt_objects()
        assert sorted(type(o).__name__ for o in owned) == ["Signaller", "_SimpleTimer"]  # qasync's two
    finally:
        loop.close()
    assert not any(shiboken6.isValid(o) for o in owned)
    assert loop.qt_objects() == []
    assert threads[0].startswith("replaysage-loop")  # a plain pool thread, not one of qasync's QThreads
    assert not [t for t in threading.enumerate() if t.name.startswith("replaysage-loop")]  # joined by close()
    called: list[int] = []
    worker = threading.Thread(target=lambda: loop.call_soon_threadsafe(called.append, 1))
    worker.start()
    worker.join()
    qapp.processEvents()
    assert called == []
