"""The side panel: a dock with the error-wisdom, memory and players views, built after the window first paints.

The views' modules take a quarter of a second to import and their widgets 130 ms to build, so the window shows
first: the imports run in a worker thread once it has painted, and the views are built when the panel is open,
one per event-loop turn. A view that cannot be built shows why instead of taking the window down.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import warnings
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QMainWindow, QTabWidget, QWidget

from app.i18n import N_
from app.settings import Settings
from ui.icons import icon
from ui.imports import import_in_background
from ui.lang import UiLanguage
from ui.services import Database
from ui.tabs.staged import AfterFirstPaint, StagedTabs, later
from ui.widgets import plain_label

log = logging.getLogger(__name__)

FIRST_PAINT_WAIT_MS = 300
"""The side libraries load after the window first paints, or this long after it is shown if no paint came."""

SIDE_TABS = (
    N_("Error wisdom"),
    N_("Memory / facts / scorecard"),
    N_("Players"),
)
"""The side tabs' titles, in their order."""
SIDE_MODULES = ("app.memory.store", "app.wisdom.manager", "ui.tabs.memory_tabs", "ui.tabs.wisdom_tab")
"""What the side tabs import: loaded in a worker thread after the window shows (see :meth:`SidePanel.load`)."""


def unavailable(text: str, exc: Exception) -> QWidget:
    """What stands in for a view that could not be built: ``text`` and the exception."""
    lab = plain_label(f"{text}\n({type(exc).__name__}: {exc})")
    lab.setAlignment(Qt.AlignmentFlag.AlignCenter)
    lab.setWordWrap(True)
    return lab


class SidePanel:
    """The side dock and its tabs, docked on the right of ``window``.

    Args:
        window: the main window (the dock's parent; the views load after it first paints).
        db: the store the views read; settings: the reviewer's name; ui: the interface language.
        remember_reviewer: keeps the reviewer's name asked in the memory views.
        enter_review: switches the window to review mode (the memory views' "review in full width").
    """

    def __init__(
        self,
        window: QMainWindow,
        db: Database,
        settings: Settings,
        ui: UiLanguage,
        *,
        remember_reviewer: Callable[[str], None],
        enter_review: Callable[[], None],
    ) -> None:
        self._window = window
        self._db = db
        self._settings = settings
        self._ui = ui
        self._remember_reviewer = remember_reviewer
        self._enter_review = enter_review
        self.tabs = QTabWidget()  # its widgets that use the sheet's roles are styled one by one (ui.theme.styled)
        self._built = False
        self._pending: list[int] = []  # side tabs still to build (indices into SIDE_TABS), next first
        self._trash: list[QWidget] = []  # replaced side tabs still to delete
        self._loading: asyncio.Future[None] | None = None
        self._first_paint: AfterFirstPaint | None = None
        # side tabs in a dock (VS Code's panels, qBittorrent's side bar): closable, movable, floatable, remembered
        self.dock = QDockWidget(window)
        self.dock.setObjectName("side_dock")
        self.dock.setWidget(self.tabs)
        self.dock.setAllowedAreas(
            Qt.DockWidgetArea.LeftDockWidgetArea
            | Qt.DockWidgetArea.RightDockWidgetArea
            | Qt.DockWidgetArea.BottomDockWidgetArea
        )
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.dock)
        ui.bind_tr(self.dock, self.dock.setWindowTitle, "Side panel: wisdom / memory")
        window.resizeDocks([self.dock], [360], Qt.Orientation.Horizontal)

    def toggle(self) -> None:
        """Ctrl+B: show or hide the panel."""
        self.dock.setVisible(not self.dock.isVisible())

    # -- the views ---------------------------------------------------------------------------------------------------

    @property
    def wisdom_tab(self) -> QWidget:
        """The error-wisdom view (built now if the deferred load has not built it yet)."""
        self.ensure_built()
        self._build_tab(0)
        return self._wisdom_tab

    @property
    def memory_tabs(self) -> QWidget:
        """The memory views (built now if the deferred load has not built it yet)."""
        self.ensure_built()
        self._build_tab(1)
        return self._memory_tabs

    @property
    def players_tab(self) -> QWidget:
        """The players view (built now if the deferred load has not built it yet)."""
        self.ensure_built()
        self._build_tab(2)
        return self._players_tab

    def refresh_memory(self) -> None:
        """Reload the memory views if they are built (rulings were made elsewhere)."""
        refresh = getattr(getattr(self, "_memory_tabs", None), "refresh", None)
        if callable(refresh):
            refresh()

    def ensure_built(self) -> None:
        """Build the side tabs if they are not built yet."""
        if not self._built:
            self.rebuild()

    def retranslate(self) -> None:
        """After a language switch: the built views are built again in the new language (else later, in it)."""
        if self._built:
            self.rebuild()

    # -- loading after the first paint -------------------------------------------------------------------------------

    def load(self) -> None:
        """The window was shown: load the views' modules once it has painted (the first show only).

        A plain future and its done callback, never a task: a caller running ``processEvents()`` inside a task
        (the self-test) would re-enter the loop.
        """
        if self._loading is not None or self._built or self._first_paint is not None:
            return
        # The imports hold the GIL for a quarter of a second; run alongside the window's first paint they made
        # that paint wait for it (70-120 ms stalls). They start once the window has painted (or soon after show).
        self._first_paint = AfterFirstPaint(self._window, self._start_import, FIRST_PAINT_WAIT_MS)

    def _start_import(self) -> None:
        if self._loading is not None or self._built:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # shown before the loop runs: load once it does
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                try:
                    loop = asyncio.get_event_loop()
                except RuntimeError:  # no loop at all (a bare QApplication): built when first asked for
                    return
        self._loading = asyncio.wrap_future(import_in_background(SIDE_MODULES), loop=loop)
        self._loading.add_done_callback(self._modules_imported)

    def _modules_imported(self, fut: asyncio.Future[None]) -> None:
        """Build the views now if the side panel is open, else when it opens (132 ms of widgets on the GUI thread)."""
        if not shiboken6.isValid(self._window) or fut.cancelled():
            return
        if fut.exception() is not None:
            log.warning("side tabs: %r", fut.exception())  # the views show what is unavailable
        # The libraries are loaded now, and their modules, classes and functions live as long as the process.
        # Each full garbage collection walked all of them again (70-90 ms holding the GIL, a frozen window every
        # few seconds while tables page); frozen, a collection walks only the objects made since.
        gc.freeze()
        if self.dock.isVisible():
            self.ensure_built()
        else:
            self.dock.visibilityChanged.connect(lambda shown: self.ensure_built() if shown else None)

    async def tabs_loaded(self) -> None:
        """Return once the deferred side-tab load has built them."""
        if self._first_paint is not None:
            await self._first_paint.wait()
        if self._loading is not None:
            await asyncio.wait([self._loading])
            await asyncio.sleep(0)  # the done callback that builds them
        while self._pending:  # the tabs built in later turns
            await asyncio.sleep(0.001)
        for staged in self.tabs.findChildren(StagedTabs):  # and the pages inside them
            await staged.all_made()

    # -- building ----------------------------------------------------------------------------------------------------

    def rebuild(self) -> None:
        """Host the error-wisdom and memory views where they exist; otherwise show a ready, empty frame.

        The views load their data in worker threads (the error-wisdom manager, whose construction loads the
        query index, is built there too), so building them costs the GUI thread only the widgets. The tab on
        screen is built now and the other in a later event-loop turn (together they were 64 ms of GUI-thread work
        in one go); asking for a view (:attr:`wisdom_tab`, :attr:`memory_tabs`) builds it at once.
        """
        self._built = True
        current = max(0, self.tabs.currentIndex())
        while self.tabs.count():  # rebuilt on a language switch: those views take their language at birth
            old = self.tabs.widget(0)
            self.tabs.removeTab(0)
            cancel = getattr(old, "cancel_loading", None)
            if callable(cancel):
                cancel()
            if old is not None:
                self._trash.append(old)  # deleted later, one per turn (10-13 ms each)
        self._pending = [current] + [i for i in range(len(SIDE_TABS)) if i != current]
        self._build_tab(current)
        self._later()

    def _later(self) -> None:
        later(self.dock, self._finish)  # the window's one queue of deferred view work: a job per turn

    def _finish(self) -> None:
        """Build the side tabs still waiting, then delete the replaced ones: one per event-loop turn."""
        if self._pending:
            self._build_tab(self._pending[0])
        elif self._trash:
            self._trash.pop(0).deleteLater()
        if self._pending or self._trash:
            self._later()

    def _build_tab(self, index: int) -> None:
        """Build side tab ``index`` of :data:`SIDE_TABS` (if it is still waiting) at its place among the built."""
        if index not in self._pending:
            return
        self._pending.remove(index)
        at = sum(1 for i in range(index) if i not in self._pending)
        widget, title = (self._make_wisdom_tab, self._make_memory_tabs, self._make_players_tab)[index]()
        self.tabs.insertTab(at, widget, title)  # the tab built first (the one on screen) stays current
        self.tabs.setTabIcon(at, icon(("tab-wisdom", "tab-memory", "tab-players")[index]))

    def _make_wisdom_tab(self) -> tuple[QWidget, str]:
        lang = self._ui.lang
        try:
            from ui.tabs.wisdom_tab import WisdomTab

            db = self._db

            def wisdom_manager() -> Any:  # called in the tab's worker thread, heavy import included
                from app.wisdom.manager import ErrorWisdomManager

                return ErrorWisdomManager(db, lang)

            from app.wisdom.store import WisdomStore

            self._wisdom_tab: QWidget = WisdomTab(wisdom_manager, lang, store=WisdomStore(db))
        except Exception as exc:  # a missing or broken side view must not take the window down
            log.warning("error-wisdom tab unavailable: %r", exc)
            self._wisdom_tab = unavailable(self._ui.tx("Error wisdom is not available"), exc)
        return self._wisdom_tab, SIDE_TABS[0](self._ui.lang)

    def _make_memory_tabs(self) -> tuple[QWidget, str]:
        lang = self._ui.lang
        title = SIDE_TABS[1](self._ui.lang)
        try:
            from app.memory.store import MemoryStore
            from ui.tabs.memory_tabs import MemoryTabs

            memory = MemoryTabs(
                MemoryStore(self._db),
                lang,
                reviewer=str(self._settings.get("reviewer_name")),
                on_reviewer=self._remember_reviewer,
            )
            self._memory_tabs: QWidget = memory
            memory.review_mode_requested.connect(self._enter_review)
            memory.queue_count_changed.connect(
                lambda n: self.tabs.setTabText(
                    self.tabs.indexOf(memory), title + (f" · {self._ui.tx('review')} {n}" if n else "")
                )
            )
        except Exception as exc:  # see above
            log.warning("memory tabs unavailable: %r", exc)
            self._memory_tabs = unavailable(self._ui.tx("Memory is not available"), exc)
        return self._memory_tabs, title

    def _make_players_tab(self) -> tuple[QWidget, str]:
        try:
            from ui.tabs.players_tab import PlayersTab

            settings = self._settings
            self._players_tab: QWidget = PlayersTab(
                self._db, self._ui.lang, reviewer=lambda: str(settings.get("reviewer_name"))
            )
        except Exception as exc:  # see _make_wisdom_tab
            log.warning("players tab unavailable: %r", exc)
            self._players_tab = unavailable(self._ui.tx("Players are not available"), exc)
        return self._players_tab, SIDE_TABS[2](self._ui.lang)
