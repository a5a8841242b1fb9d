"""Deferred view building: one job per event-loop turn for the whole window, and tabs whose pages use it.

The side views hold a dozen tables, lists, forms and charts. Built in one go they took 50-70 ms of the GUI thread
(widgets, then the style's polish and the first layout of everything); a language switch, which rebuilds them,
froze the window for that long. :class:`StagedTabs` makes its pages in later turns of the event loop, one per
turn, the page on screen first. Code that needs a page's widgets asks :meth:`StagedTabs.page`, which
makes it on the spot, so nothing ever sees a half-built view.

Every deferred job of the window goes through one queue (:func:`later`): separate timers that come due together
fire in the same pass of the event loop, so three views each building "one page per turn" built three at once.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import TypeVar

import shiboken6
from PySide6.QtCore import QEvent, QObject, QTimer, Signal
from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

W = TypeVar("W", bound=QWidget)

LATER_MS = 1
"""The delay between two jobs: a timer, not a zero timeout (a posted event would run in the same pass)."""


class _LaterQueue(QObject):
    """The window's deferred jobs, first in first out, one per event-loop turn (input and painting in between)."""

    def __init__(self) -> None:
        super().__init__()
        self._jobs: deque[tuple[QObject, Callable[[], object]]] = deque()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(LATER_MS)
        self._timer.timeout.connect(self._run_one)

    def add(self, owner: QObject, job: Callable[[], object]) -> None:
        self._jobs.append((owner, job))
        if not self._timer.isActive():
            self._timer.start()

    def pending(self) -> int:
        return len(self._jobs)

    def _run_one(self) -> None:
        while self._jobs:
            owner, job = self._jobs.popleft()
            if shiboken6.isValid(owner):  # a view deleted meanwhile (a language switch) drops its jobs
                try:
                    job()
                finally:
                    if self._jobs:
                        self._timer.start()
                return


_queue: list[_LaterQueue] = []


def _the_queue() -> _LaterQueue:
    if not _queue:
        _queue.append(_LaterQueue())
    return _queue[0]


def later(owner: QObject, job: Callable[[], object]) -> None:
    """Run ``job()`` in a later event-loop turn, after the jobs queued before it, unless ``owner`` is gone by then."""
    _the_queue().add(owner, job)


def after_building(owner: QObject, job: Callable[[], object]) -> None:
    """Run ``job()`` now when no deferred building waits, else after the jobs queued so far.

    A job queued for later is dropped when ``owner`` is gone by then.
    """
    if not later_pending():
        job()
        return
    later(owner, job)


def later_pending() -> int:
    """Jobs still waiting (for tests and benchmarks)."""
    return _queue[0].pending() if _queue else 0


class StagedTabs(QTabWidget):
    """Tabs whose pages are made one per event-loop turn (the current one first), or at once when asked for.

    Each tab holds an empty holder until its page is made into it, so tab indices and titles never change.

    Signals:
        page_made(str): the key of a page just made (connect a page's wiring to it).
    """

    page_made = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._factories: dict[str, Callable[[], QWidget]] = {}
        self._holders: dict[str, QWidget] = {}
        self._made: dict[str, QWidget] = {}
        self._scheduled = False
        self._started = False
        self.currentChanged.connect(self._on_current)
        # A page never made dies with the tabs, here on the GUI thread. A factory may hold a page built ahead
        # (the error-wisdom tab's entries): parentless, it would otherwise live on with this wrapper, and a
        # wrapper in a reference cycle is freed by a garbage collection on any thread, taking the page with it.
        self.destroyed.connect(self._factories.clear)

    def add_page(self, key: str, title: str, factory: Callable[[], QWidget]) -> int:
        """Add a tab whose page ``factory()`` makes when it is first needed; returns the tab's index."""
        holder = QWidget()
        layout = QVBoxLayout(holder)
        layout.setContentsMargins(0, 0, 0, 0)
        self._factories[key] = factory
        self._holders[key] = holder
        return self.addTab(holder, title)

    def start(self) -> None:
        """Schedule the pages, the one on screen first (call once every page is added).

        Even the page on screen waits for the next turn: the turn that made this widget has its own work, and the
        page shows one frame later.
        """
        self._started = True
        self._schedule()

    def page(self, key: str) -> QWidget:
        """The page ``key``, made now if it was still waiting."""
        made = self._made.get(key)
        if made is not None:
            return made
        factory = self._factories.pop(key)  # KeyError: no such page
        widget = factory()
        self._made[key] = widget
        layout = self._holders[key].layout()
        assert layout is not None
        layout.addWidget(widget)
        self.page_made.emit(key)
        return widget

    def typed_page(self, key: str, kind: type[W]) -> W:
        """:meth:`page` checked to be a ``kind`` (for typed accessors)."""
        widget = self.page(key)
        if not isinstance(widget, kind):
            raise TypeError(f"page {key!r} is a {type(widget).__name__}, not a {kind.__name__}")
        return widget

    def indexOf(self, widget: QWidget) -> int:  # noqa: N802 - Qt name
        """The tab of ``widget``: a tab's holder or the page made into it."""
        index = super().indexOf(widget)
        if index < 0:
            for key, page in self._made.items():
                if page is widget:
                    return super().indexOf(self._holders[key])
        return index

    def setCurrentWidget(self, widget: QWidget) -> None:  # noqa: N802 - Qt name
        """Show the tab of ``widget`` (a holder or a made page)."""
        index = self.indexOf(widget)
        if index >= 0:
            self.setCurrentIndex(index)

    def made_pages(self) -> dict[str, QWidget]:
        """The pages made so far, by key."""
        return dict(self._made)

    def holder(self, key: str) -> QWidget:
        """The tab's own widget for page ``key`` (made or not), e.g. to make it current."""
        return self._holders[key]

    def pending(self) -> bool:
        """Some page is still waiting to be made."""
        return bool(self._factories)

    async def all_made(self) -> None:
        """Return once every page is made (for tests and benchmarks)."""
        while self._factories and shiboken6.isValid(self):
            await asyncio.sleep(0.001)

    def _on_current(self, index: int) -> None:
        del index
        # Only a tab chosen on screen: the first tab added becomes current before the others exist, and a tab
        # widget being destroyed changes its current tab while its children go (making a page then crashed).
        if self._started and self.isVisible():
            self._make_current()

    def _make_current(self) -> None:
        current = self.currentWidget()
        for key, holder in self._holders.items():
            if holder is current and key in self._factories:
                self.page(key)
                return

    def _schedule(self) -> None:
        if self._factories and not self._scheduled:
            self._scheduled = True
            later(self, self._make_next)

    def _make_next(self) -> None:
        self._scheduled = False
        if self._factories:
            current = self.currentWidget()
            waiting = [key for key in self._factories if self._holders[key] is current] or list(self._factories)
            self.page(waiting[0])
        self._schedule()


class AfterFirstPaint(QObject):
    """Runs ``job()`` in the event-loop turn after ``widget`` first paints, or ``wait_ms`` after now if it has not.

    For start-up work that runs beside the window (imports in a worker thread hold the GIL): started after the
    first frame it cannot make that frame late.
    """

    def __init__(self, widget: QWidget, job: Callable[[], object], wait_ms: int) -> None:
        super().__init__(widget)
        self._widget = widget
        self._job = job
        self.fired = False
        widget.installEventFilter(self)
        self._fallback = QTimer(self)  # a child timer: it goes with this object (and the widget)
        self._fallback.setSingleShot(True)
        self._fallback.timeout.connect(self._fire)
        self._fallback.start(wait_ms)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        """Wait for the first paint, then let that frame finish."""
        if event.type() == QEvent.Type.Paint:
            watched.removeEventFilter(self)
            later(self, self._fire)
        return False

    def _fire(self) -> None:
        if self.fired:
            return
        self.fired = True
        self._fallback.stop()
        self._widget.removeEventFilter(self)
        self._job()

    async def wait(self) -> None:
        """Return once the job has run (for tests and benchmarks)."""
        while not self.fired and shiboken6.isValid(self):
            await asyncio.sleep(0.005)
