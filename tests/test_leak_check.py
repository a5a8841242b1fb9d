"""The per-test leak check (tests/support/leaks.py) catches what it is there to catch, and pytest runs it.

Each case leaks one thing on purpose, calls the check directly and then cleans up; the last one runs pytest on a
file of leaking tests in a fresh interpreter, so the autouse fixture itself is shown to fail them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO_ROOT
from tests.support.leaks import LeakError, check, snapshot


def test_a_thread_left_running_is_named() -> None:
    before = snapshot()
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait, name="forgotten-worker")
    worker.start()
    try:
        with pytest.raises(LeakError, match=r"thread 'forgotten-worker' \(target Event.wait\) is still running"):
            check(before)
    finally:
        stop.set()
        worker.join()
    check(before)  # joined: nothing left


def test_a_daemon_thread_and_a_thread_from_before_are_not_blamed() -> None:
    stop = threading.Event()
    older = threading.Thread(target=stop.wait, name="older-worker")
    older.start()
    try:
        before = snapshot()
        daemon = threading.Thread(target=stop.wait, name="daemon-worker", daemon=True)
        daemon.start()
        check(before)
    finally:
        stop.set()
        older.join()
        daemon.join()


@pytest.mark.gui
def test_a_top_level_widget_left_alive_is_named_and_deleted(qapp: Any) -> None:
    import shiboken6
    from PySide6.QtWidgets import QLabel, QWidget

    before = snapshot()
    window = QWidget()
    window.setObjectName("forgotten-window")
    window.setWindowTitle("Forgotten")
    QLabel("a child is no top-level widget", window)
    window.show()
    with pytest.raises(LeakError, match="top-level widget QWidget objectName='forgotten-window' title='Forgotten'"):
        check(before)
    assert not shiboken6.isValid(window)  # cleaned up, so the next test is judged on its own
    check(before)


@pytest.mark.gui
def test_a_qt_object_left_to_the_garbage_collector_is_named_and_deleted_here(qapp: Any) -> None:
    from PySide6.QtCore import QTimer

    class Holder:
        """A Python object in a reference cycle, as a closed qasync loop was."""

        def __init__(self) -> None:
            self.me = self
            self.timer = QTimer()
            self.timer.setObjectName("orphan-timer")
            self.timer.start(60_000)  # a registered timer, as qasync's timer object had

    before = snapshot()
    holder = Holder()
    destroyed_on: list[str] = []
    holder.timer.destroyed.connect(lambda: destroyed_on.append(threading.current_thread().name))
    del holder  # now only a collection frees it, on whichever thread it runs
    with pytest.raises(LeakError, match="Qt object QTimer objectName='orphan-timer' was left for the garbage"):
        check(before, qt_garbage=True)
    assert destroyed_on == [threading.main_thread().name]  # deleted here, its Qt timer unregistered
    check(before, qt_garbage=True)


LEAKY_TESTS = textwrap.dedent(
    """
    import threading

    KEPT = []


    def test_leaves_a_thread():
        threading.Thread(target=threading.Event().wait, args=(3,), name="leaky-worker").start()


    def test_leaves_a_window(qapp):
        from PySide6.QtWidgets import QWidget

        window = QWidget()
        window.setObjectName("leaky-window")
        window.show()
        KEPT.append(window)


    def test_cleans_up(qtbot):
        from PySide6.QtWidgets import QWidget

        window = QWidget()
        qtbot.addWidget(window)
        window.show()
        worker = threading.Thread(target=lambda: None)
        worker.start()
        worker.join()
    """
)


@pytest.mark.gui
def test_the_autouse_check_fails_leaking_tests(tmp_path: Path) -> None:
    (tmp_path / "test_leaky.py").write_text(LEAKY_TESTS, encoding="utf-8")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO_ROOT)}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.support.leaks", "-p", "no:cacheprovider", "-q", "-rA",
         "--rootdir", str(tmp_path), str(tmp_path / "test_leaky.py")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    out = run.stdout
    assert run.returncode == 1, out[-3000:] + run.stderr[-2000:]
    assert "ERROR test_leaky.py::test_leaves_a_thread" in out, out[-3000:]
    assert "thread 'leaky-worker'" in out
    assert "ERROR test_leaky.py::test_leaves_a_window" in out
    assert "top-level widget QWidget objectName='leaky-window'" in out
    assert "PASSED test_leaky.py::test_cleans_up" in out
    assert "3 passed, 2 errors" in out
