"""What a test may not leave behind: a non-daemon thread, a top-level Qt widget, a Qt object only a GC would free.

Issue 35: the suite died with SIGSEGV inside pytest-qt's ``processEvents``. A closed qasync loop's timer object,
left in a reference cycle by a test, was freed by a garbage collection that ran on another thread (a scripted
server's, an ``asyncio.to_thread`` worker); its Qt timer stayed registered and fired into freed memory. The rules
in CONTRIBUTING.md ("Threads and Qt objects in tests") prevent that class of bug; this module checks them after
every test (the autouse fixture :func:`no_leaks`, loaded by ``tests/conftest.py``):

- every thread a test starts is joined by its teardown (daemon threads are left to their owners);
- every top-level widget it makes is gone (``qtbot.addWidget`` closes and deletes it);
- no Qt object of a Qt test waits for the cyclic garbage collector, which may run on any thread.

A leak fails the test at teardown with the names of what was left, and is cleaned up here so the next test is
judged on its own (the widgets are deleted, the collectable Qt objects freed on this thread; a thread cannot be
stopped from outside, so it stays and is not blamed again).
"""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest


class LeakError(AssertionError):
    """A test left a thread, a widget or a collectable Qt object behind."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What was alive before a test: threads (by object) and top-level widgets (by C++ address)."""

    threads: frozenset[threading.Thread]
    widgets: frozenset[int]


def snapshot() -> Snapshot:
    """The threads and top-level widgets alive now."""
    return Snapshot(frozenset(threading.enumerate()), frozenset(_address(w) for w in _top_level_widgets()))


def check(before: Snapshot, *, qt_garbage: bool = False) -> None:
    """Raise :class:`LeakError` naming every non-daemon thread and top-level widget alive now but not ``before``.

    With ``qt_garbage`` (a test that used Qt) it also collects garbage here and names the Qt objects that only the
    collector would have freed. Leaked widgets and Qt objects are deleted before raising.
    """
    problems = [
        f"thread {t.name!r} (target {_target(t)}) is still running: join it in the test's teardown"
        for t in threading.enumerate()
        if t.is_alive() and not t.daemon and t not in before.threads
    ]
    _flush_deferred_deletes()
    left = [w for w in _top_level_widgets() if _address(w) not in before.widgets]
    problems += [
        f"top-level widget {_describe(w)} is still alive: register it with qtbot.addWidget (or close and delete "
        "it in the teardown)"
        for w in left
    ]
    for widget in left:
        widget.close()
        widget.deleteLater()
    _flush_deferred_deletes()
    if qt_garbage:
        problems += [
            f"Qt object {name} was left for the garbage collector, which may free it on another thread: "
            "give it a parent or delete it on the GUI thread"
            for name in _collect_qt_garbage()
        ]
    if problems:
        raise LeakError("the test left behind:\n  " + "\n  ".join(problems))


@pytest.fixture(autouse=True)
def no_leaks(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a test that leaves a thread, a top-level widget or a collectable Qt object behind (see the module)."""
    before = snapshot()
    yield
    _join_app_threads()
    check(before, qt_garbage="qapp" in request.fixturenames)


def _join_app_threads() -> None:
    """The app's own workers (import thread, view reads) are joined as the app joins them at exit."""
    if "ui.imports" in sys.modules or "ui.tabs.loading" in sys.modules:
        from ui.app import join_worker_threads

        join_worker_threads()


def _top_level_widgets() -> list[Any]:
    """Parentless windows alive now (none when Qt was never loaded or has no application)."""
    if "PySide6.QtWidgets" not in sys.modules:
        return []
    from PySide6.QtWidgets import QApplication

    if QApplication.instance() is None:
        return []
    return [w for w in QApplication.topLevelWidgets() if w.parentWidget() is None]


def _flush_deferred_deletes() -> None:
    if "PySide6.QtCore" not in sys.modules:
        return
    from PySide6.QtCore import QCoreApplication, QEvent

    if QCoreApplication.instance() is not None:
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def _collect_qt_garbage() -> list[str]:
    """Collect garbage now, on this thread; name the parentless Qt objects that were in it, deleted here.

    A parentless QObject made in Python is Python's to delete: once it is only garbage, the collector deletes it on
    whichever thread it runs. One with a parent lives on with that parent, whatever happens to its wrapper.
    """
    if "PySide6.QtCore" not in sys.modules:
        return []
    import shiboken6
    from PySide6.QtCore import QObject

    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
    finally:
        gc.set_debug(0)
    found = [o for o in gc.garbage if isinstance(o, QObject) and shiboken6.isValid(o) and o.parent() is None]
    names = [_describe(o) for o in found]
    for obj in found:
        shiboken6.delete(obj)
    gc.garbage.clear()
    del found
    gc.collect()
    return names


def _address(widget: Any) -> int:
    import shiboken6

    return int(shiboken6.getCppPointer(widget)[0])


def _describe(obj: Any) -> str:
    """Class, object name and window title: enough to find where it was made."""
    parts = [type(obj).__qualname__]
    name = obj.objectName()
    if name:
        parts.append(f"objectName={name!r}")
    title = obj.windowTitle() if hasattr(obj, "windowTitle") else ""
    if title:
        parts.append(f"title={title!r}")
    if len(parts) == 1:  # nothing names it: what it holds may
        kids = [type(c).__qualname__ + (f" {c.objectName()!r}" if c.objectName() else "") for c in obj.children()]
        if kids:
            parts.append(f"holding [{', '.join(kids[:6])}{', ...' if len(kids) > 6 else ''}]")
    return " ".join(parts)


def _target(thread: threading.Thread) -> str:
    target = getattr(thread, "_target", None)  # the function it runs (a Thread keeps it while running)
    return getattr(target, "__qualname__", repr(target))
