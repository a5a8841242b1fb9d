"""Off-GUI-thread loading for the side tabs: the query runs in a worker thread, the widget fills itself after.

Each view owns a :class:`Loader`. ``Loader.start(query, apply)`` runs ``query()`` (plain data out, no Qt) in the
views' one worker thread (:func:`view_reads`) and hands the result to ``apply`` on the GUI thread.
At most one query per loader is in flight: a request made meanwhile replaces any other waiting one and runs next,
and the result of a query that was superseded while it ran is dropped, so stale data never overwrites fresher
data. A :class:`app.errors.KnownError` from the query goes to the view's ``on_error`` (a label), anything else is
logged and shown as an internal error there too; nothing reaches the window as an exception.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
import threading
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any, Generic, TypeVar

import shiboken6
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QWidget

from app.errors import KnownError
from app.i18n import Lang, tr
from ui.tabs.staged import after_building

log = logging.getLogger(__name__)

T = TypeVar("T")
FILL_BATCH = 200  # table rows or list items filled per event-loop turn
VIEW_READ_THREADS = 1
"""Worker threads for the views' reads and actions. The loop's default executor has ten: a refresh of every side
tab ran seven queries at once, which on a 2-core machine left the GUI thread waiting for a core and for the GIL
(59 ms stalls with 13 ms of its own work in ``benchmarks/side_tabs.py``). One thread keeps a core and the GIL
mostly free for the GUI; the reads run one after another, in the order they were asked for."""
STEP_GAP_S = 0.002
"""Pause between two steps of an ``apply`` iterator. qasync runs ``call_soon`` as a zero-delay Qt timer, so a
step's successor was already due at Qt's next timer pass and ran in it, beside the other due timers and before the
posted paint events: 10 ms steps chained that way measured 21 ms of GUI work per stall-monitor tick (10.6 ms with
this gap), and the charts' steps ran as one 30-45 ms stall in ``benchmarks/side_tabs.py`` (issue 34). A 2 ms timer
lets the repaint and the loop's other callbacks in between."""


def read_in_worker(loop: asyncio.AbstractEventLoop, owner: QWidget, read: Callable[[], T]) -> asyncio.Future[T]:
    """Run a view's ``read()`` in the view-read thread, once the window's deferred building is done.

    A read is Python work that holds the GIL for most of its time; running beside a turn that builds or first
    lays out widgets, it made that turn wait for the GIL (a 25 ms turn became a 60 ms stall while the side tabs
    were built). Queued behind the building (:func:`ui.tabs.staged.after_building`), it starts once the pages are
    up; with nothing being built it starts at once.
    """
    ctx = contextvars.copy_context()  # as asyncio.to_thread does
    out: asyncio.Future[T] = loop.create_future()

    def relay(inner: asyncio.Future[T]) -> None:
        if out.done():
            return
        if inner.cancelled():
            out.cancel()
        elif (exc := inner.exception()) is not None:
            out.set_exception(exc)
        else:
            out.set_result(inner.result())

    def submit() -> None:  # maybe from a Qt timer, outside the loop's own callbacks: the loop is named
        if loop.is_closed():  # the window's loop ended while the read waited
            return
        asyncio.wrap_future(view_reads().submit(ctx.run, read), loop=loop).add_done_callback(relay)

    after_building(owner, submit)  # dropped with its view: nobody is left to apply the rows
    return out


@functools.cache
def view_reads() -> Executor:
    """The executor every side-view query, page read and action runs in (made on first use, by the GUI thread)."""
    return ThreadPoolExecutor(VIEW_READ_THREADS, thread_name_prefix="replaysage-view-read")


def shutdown_view_reads() -> None:
    """Let the reads asked for finish, then join their thread (at exit; the tests after each test).

    A later read starts a new executor. Their results reach no closed loop (:class:`ui.qtloop.GuiLoop` drops them).
    """
    if view_reads.cache_info().currsize:
        view_reads().shutdown(wait=True)
        view_reads.cache_clear()


class Loader:
    """Runs one view's queries in worker threads; the newest request wins.

    Everything on the GUI side is a plain loop callback (a future's done callback, ``call_soon``), never an
    asyncio task: a caller that runs ``QApplication.processEvents()`` from inside a task (the self-test does,
    after showing the window) would otherwise make the loop re-enter a task and lose it.

    Args:
        owner: the view (results are dropped once its C++ object is gone, e.g. after a language switch).
        on_error: shows a problem in the view (called with the exception).
    """

    def __init__(self, owner: QWidget, on_error: Callable[[Exception], None]) -> None:
        self.owner = owner
        self.on_error = on_error
        self._pending: tuple[Callable[[], Any], Callable[[Any], Iterator[None] | None]] | None = None
        self._idle: asyncio.Future[None] | None = None  # unresolved while a request runs or waits
        self._loop: asyncio.AbstractEventLoop | None = None
        self.superseded = 0  # query results dropped because a newer request came in (exposed for tests)

    def start(
        self, query: Callable[[], T], apply: Callable[[T], Iterator[None] | None], *, delay_s: float = 0.0
    ) -> asyncio.Future[None] | None:
        """Run ``query`` in a worker thread, then ``apply`` its result on the GUI thread.

        ``apply`` may return an iterator: it is advanced one step per event-loop turn (fill big tables in
        slices), and dropped when a newer request comes in. Returns a future resolved once the newest request
        has been applied (or failed). Without an asyncio loop yet (a view built before the qasync loop is set),
        the request waits for the Qt event loop's next turn and None is returned.

        ``delay_s`` holds the query back that long (the loader counts as busy meanwhile): a long query that
        would otherwise hold the GIL while the GUI lays out and paints what the caller just changed.
        """
        self._pending = (query, apply)
        if self.busy():
            return self._idle
        loop = current_loop()
        if loop is None:
            QTimer.singleShot(0, self.owner, self._start_later)
            return None
        self._begin(loop, delay_s)
        return self._idle

    def _start_later(self) -> None:
        if self._pending is not None and not self.busy():
            loop = current_loop()
            if loop is None:
                self.on_error(RuntimeError("no asyncio event loop to load the view on"))
                return
            self._begin(loop)

    def _begin(self, loop: asyncio.AbstractEventLoop, delay_s: float = 0.0) -> None:
        self._loop = loop
        self._idle = loop.create_future()
        if delay_s > 0:  # then the newest request; nothing if this one was cancelled (or replaced) meanwhile
            idle = self._idle
            loop.call_later(delay_s, lambda: self._launch() if self._idle is idle else None)
        else:
            self._launch()

    def busy(self) -> bool:
        """A request is running or waiting."""
        return self._idle is not None and not self._idle.done()

    async def wait(self) -> None:
        """Return once every request made so far has been applied (or has failed)."""
        while self._idle is not None and not self._idle.done():
            await asyncio.shield(self._idle)

    def stale(self) -> bool:
        """A newer request is waiting, or the view is gone: filling the current data can stop."""
        return self._pending is not None or not self._alive()

    def cancel(self) -> None:
        """Drop what is waiting and stop applying (the running query finishes in its thread, unused)."""
        self._pending = None
        self._finish()

    def _alive(self) -> bool:
        return shiboken6.isValid(self.owner)

    def _finish(self) -> None:
        if self._idle is not None and not self._idle.done():
            self._idle.set_result(None)

    def _launch(self) -> None:
        if self._pending is None or not self._alive() or not self.busy() or self._loop is None:
            self._finish()
            return
        query, apply = self._pending
        self._pending = None
        fut = read_in_worker(self._loop, self.owner, query)
        fut.add_done_callback(lambda f: self._arrived(f, apply))

    def _arrived(self, fut: asyncio.Future[Any], apply: Callable[[Any], Iterator[None] | None]) -> None:
        if not self.busy():  # cancelled meanwhile
            return
        if self._pending is not None:  # a newer request came in while this one ran: its data is stale
            self.superseded += 1
            self._launch()
            return
        if not self._alive():
            self._finish()
            return
        exc = fut.exception()
        if exc is not None:
            self._report(exc)
            self._finish()
            return
        try:
            steps = apply(fut.result())
        except Exception as err:  # a view that cannot fill itself says so
            self._report(err)
            self._finish()
            return
        if steps is None:
            self._finish()
        else:
            self._step(steps)

    def _step(self, steps: Iterator[None]) -> None:
        if not self.busy():
            return
        if self.stale():  # newer data is on its way (or the view is gone): stop filling this one
            self._launch()
            return
        try:
            next(steps)
        except StopIteration:
            self._finish()
            return
        except Exception as err:  # see above
            self._report(err)
            self._finish()
            return
        assert self._loop is not None
        self._loop.call_later(STEP_GAP_S, self._step, steps)

    def _report(self, exc: BaseException) -> None:
        if not isinstance(exc, Exception):
            raise exc
        if not isinstance(exc, KnownError):
            log.error("side-tab query failed", exc_info=exc)
        self.on_error(exc)


class Actions:
    """Runs a view's actions (audit, approve, flip back…) in worker threads, each to completion, in any number.

    Like :class:`Loader`, the GUI side is made of loop callbacks only.

    Args:
        owner: the view (``done`` is skipped once its C++ object is gone).
        on_error: shows a problem in the view (called with the exception).
    """

    def __init__(self, owner: QWidget, on_error: Callable[[Exception], None]) -> None:
        self.owner = owner
        self.on_error = on_error
        self.tasks: set[asyncio.Future[Any]] = set()  # the running actions' futures

    def run(self, action: Callable[[], T], done: Callable[[T], None]) -> asyncio.Future[Any] | None:
        """Run ``action()`` in a worker thread, then ``done(result)`` on the GUI thread."""
        loop = current_loop()
        if loop is None:
            self.on_error(RuntimeError("no asyncio event loop to run the action on"))
            return None
        ctx = contextvars.copy_context()
        fut = loop.run_in_executor(view_reads(), ctx.run, action)
        self.tasks.add(fut)
        fut.add_done_callback(lambda f: self._done(f, done))
        return fut

    async def wait(self) -> None:
        """Return once no action is running."""
        while self.tasks:
            await asyncio.wait(set(self.tasks))

    def cancel(self) -> None:
        """Stop waiting for running actions (their threads finish, unused)."""
        for fut in list(self.tasks):
            fut.cancel()

    def _done(self, fut: asyncio.Future[Any], done: Callable[[Any], None]) -> None:
        self.tasks.discard(fut)
        if fut.cancelled() or not shiboken6.isValid(self.owner):
            return
        exc = fut.exception()
        if exc is not None:
            if not isinstance(exc, Exception):
                raise exc
            if not isinstance(exc, KnownError):
                log.error("side-tab action failed", exc_info=exc)
            self.on_error(exc)
            return
        try:
            done(fut.result())
        except Exception as err:  # shown in the view, never raised
            log.error("side-tab action result could not be shown", exc_info=err)
            self.on_error(err)


def current_loop() -> asyncio.AbstractEventLoop | None:
    """The running loop, else the thread's set loop (qasync's before it runs), else None."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        pass
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return asyncio.get_event_loop()
    except RuntimeError:
        return None


def error_text(exc: Exception, lang: Lang | Callable[[str, str], str]) -> str:
    """The message for ``exc`` in ``lang``: a KnownError's own words, anything else as an internal error.

    ``lang`` may still be a 中文/English picker (``lambda zh, en: ...``) while callers move to the catalogue.
    """
    if isinstance(exc, KnownError):
        return str(exc)
    if isinstance(lang, Lang):
        return tr(lang, "Internal error: {error}", error=repr(exc))
    return lang(f"内部错误：{exc!r}", f"Internal error: {exc!r}")


def batches(count: int, fill: Callable[[int, int], None]) -> Iterator[None]:
    """Call ``fill(start, stop)`` over ``range(count)`` in slices of :data:`FILL_BATCH`, one slice per step.

    Return it from a :class:`Loader` ``apply`` function: the loader takes one step per event-loop turn.
    """
    for start in range(0, count, FILL_BATCH):
        fill(start, min(count, start + FILL_BATCH))
        yield


class Lazy(Generic[T]):
    """A service built on first use, in whichever worker thread asks first (once, under a lock)."""

    def __init__(self, value: T | Callable[[], T], cls: type[T]) -> None:
        self._lock = threading.Lock()
        self._value: T | None = value if isinstance(value, cls) else None
        self._factory: Callable[[], T] | None = None if self._value is not None else value  # type: ignore[assignment]

    @property
    def ready(self) -> T | None:
        """The service if it was built already (never builds it)."""
        return self._value

    def get(self) -> T:
        """The service (built now if needed; call from a worker thread)."""
        with self._lock:
            if self._value is None:
                assert self._factory is not None
                self._value = self._factory()
            return self._value
