"""One thread for the app's first imports off the GUI thread.

Python locks each module while it is being imported. When one thread imports a package whose ``__init__`` imports
its submodules (``app.memory`` imports ``app.memory.store``) while another thread imports one of those submodules
directly, each can end up waiting for a module the other holds. Python breaks that tie by handing one of them a
half-initialised module, and its import fails ("cannot import name ... from partially initialized module"). That
happened when the start-up preload, the side tabs' libraries and an opened replay's stored analyses were first
imported at the same moment. Every background import goes through this one thread instead, in the order asked.
"""

from __future__ import annotations

import contextlib
import importlib
import threading
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from types import ModuleType

_IMPORT_THREAD: list[int] = []  # the import thread's id, once it has started


def _note_thread() -> None:
    _IMPORT_THREAD.append(threading.get_ident())


_EXECUTOR: list[ThreadPoolExecutor] = []  # the one import thread's executor, while there is one
_EXECUTOR_LOCK = threading.Lock()  # worker threads ask for it too (imported()): never two of them


def _import_thread() -> ThreadPoolExecutor:
    """The executor of the one import thread (made on first use; its thread starts with the first import)."""
    with _EXECUTOR_LOCK:
        if not _EXECUTOR:
            _EXECUTOR.append(
                ThreadPoolExecutor(max_workers=1, thread_name_prefix="replaysage-import", initializer=_note_thread)
            )
        return _EXECUTOR[0]


def _import_all(names: tuple[str, ...], keep_going: bool) -> None:
    for name in names:
        if keep_going:
            with contextlib.suppress(Exception):  # a preload is only a head start: the real use reports failures
                importlib.import_module(name)
        else:
            importlib.import_module(name)


def import_in_background(names: Iterable[str], *, keep_going: bool = False) -> Future[None]:
    """Import ``names`` in order on the import thread; the future fails with the first error unless ``keep_going``."""
    return _import_thread().submit(_import_all, tuple(names), keep_going)


def shutdown_import_thread() -> None:
    """Finish the imports asked for and join the import thread (at exit; the tests after each test).

    A later import starts a new thread; the old one's id is forgotten, since a new thread may get the same id.
    """
    with _EXECUTOR_LOCK:
        executor = _EXECUTOR.pop() if _EXECUTOR else None
    if executor is None:
        return
    executor.shutdown(wait=True)
    with _EXECUTOR_LOCK:
        if not _EXECUTOR:  # no newer thread has noted itself yet
            _IMPORT_THREAD.clear()


def imported(name: str) -> ModuleType:
    """``name``, imported on the import thread (after anything queued before); call it from worker threads.

    On the GUI thread this would wait behind the queue, so GUI code imports as usual.
    """
    if threading.get_ident() in _IMPORT_THREAD:  # already on it: waiting for the queue would wait for itself
        return importlib.import_module(name)
    import_in_background((name,)).result()
    return importlib.import_module(name)  # now only a look-up
