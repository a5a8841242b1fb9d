"""The asyncio event loop on Qt (qasync) whose Qt objects die on the GUI thread when it closes.

qasync's ``QEventLoop`` keeps two parentless QObjects: a timer object holding one Qt timer per scheduled callback
(a cancelled handle keeps its Qt timer until it fires: ``asyncio.wait_for(…, timeout=120)`` leaves one for two
minutes) and the signaller behind ``call_soon_threadsafe``. Its ``close()`` only marks the timer object stopped.
The loop, its handles and those objects form reference cycles, so the cyclic garbage collector frees them later,
on whichever thread's allocation happens to start a collection: an ``asyncio.to_thread`` worker, the view-read
thread, a test's HTTP server thread. A QObject destroyed there cannot unregister its timers ("QObject::~QObject:
Timers cannot be stopped from another thread"); the GUI thread's next ``processEvents`` then delivers a timer event
to freed memory and the process dies with SIGSEGV (issue 35).

:class:`GuiLoop` deletes those QObjects in ``close()``, on the thread that made them, so whatever thread collects
the Python leftovers later finds only empty wrappers. Its default executor (``asyncio.to_thread``) is a plain
thread pool, joined by ``close()``, instead of qasync's ten QThreads, which are QObjects too. Make every qasync loop
with it (the app, benchmarks, tests).
"""

from __future__ import annotations

import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import qasync
import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, QThread


class GuiLoop(qasync.QEventLoop):  # type: ignore[misc]  # qasync has no type hints
    """A ``qasync.QEventLoop`` that destroys its Qt objects when it closes (make and close it on the GUI thread).

    ``call_soon_threadsafe`` after ``close()`` is dropped, as qasync's disconnected signal dropped it; a lock keeps
    a worker thread's call from racing the deletion of the signaller it emits. Async-generator hooks pointing at
    the loop are removed when it closes, so the next loop of the process installs its own.
    """

    def __init__(self, app: Any = None) -> None:
        self._qt_lock = threading.Lock()
        super().__init__(app)
        self.set_default_executor(ThreadPoolExecutor(thread_name_prefix="replaysage-loop"))  # shut down by close()

    def call_soon_threadsafe(self, callback: Any, *args: Any, context: Any = None) -> None:
        """Run ``callback(*args)`` on the loop from any thread; nothing happens once the loop is closed."""
        with self._qt_lock:
            if self.is_closed():
                return
            super().call_soon_threadsafe(callback, *args, context=context)

    def close(self) -> None:
        """Close the loop, then delete its QObjects here, so no garbage collection on another thread frees them."""
        if self.is_closed():
            return
        owned = self.qt_objects()
        here = shiboken6.getCppPointer(QThread.currentThread())
        strangers = [type(o).__name__ for o in owned if shiboken6.getCppPointer(o.thread()) != here]
        if strangers:
            raise RuntimeError(f"close the qasync loop on the thread that made it (its {', '.join(strangers)})")
        super().close()  # joins the default executor's threads (not under the lock: a job may call the loop)
        with self._qt_lock:  # a call_soon_threadsafe under way finishes first; later ones see the loop closed
            for obj in owned:
                shiboken6.delete(obj)  # its timers are unregistered now, on their own thread
        if getattr(sys.get_asyncgen_hooks().finalizer, "__self__", None) is self:
            # installed while it ran (app.llm.streams.ensure_asyncgen_hooks): a later loop installs its own
            sys.set_asyncgen_hooks(firstiter=None, finalizer=None)

    def qt_objects(self) -> list[QObject]:
        """The loop's own QObjects still alive (not the application it runs on)."""
        return [
            v
            for v in vars(self).values()
            if isinstance(v, QObject) and not isinstance(v, QCoreApplication) and shiboken6.isValid(v)
        ]
