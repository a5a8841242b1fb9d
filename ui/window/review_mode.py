"""Review mode (View → Review mode, Ctrl+Shift+R): the memory review queue takes the window's main area.

The side panel gave the queue 360 of 1366 px, about 150 px per side of an item (issue 30 §8); in the main area
each side is as wide as the analysis text. The side panel is closed meanwhile (it would take that width again)
and reopened on the way back, where the memory views are refreshed with the rulings made.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QHBoxLayout, QLabel, QPushButton, QStackedWidget, QVBoxLayout, QWidget

from app.settings import Settings
from ui.lang import UiLanguage
from ui.services import Database
from ui.window.side_panel import unavailable

log = logging.getLogger(__name__)


class ReviewMode:
    """Switches the main area between the analysis page and the review page (built when first entered).

    Args:
        stack: the window's main area; analysis_page: its page with the library and the analysis.
        side_dock: the side panel, closed while reviewing.
        action: View → Review mode (checked while on).
        db: the store; settings: the reviewer's name; ui: the interface language.
        remember_reviewer: keeps the reviewer's name asked in the queue.
        refresh_side: reloads the side panel's memory views on the way back.
    """

    def __init__(
        self,
        stack: QStackedWidget,
        analysis_page: QWidget,
        side_dock: QDockWidget,
        action: QAction,
        *,
        db: Database,
        settings: Settings,
        ui: UiLanguage,
        remember_reviewer: Callable[[str], None],
        refresh_side: Callable[[], None],
    ) -> None:
        self._stack = stack
        self._analysis_page = analysis_page
        self._dock = side_dock
        self._action = action
        self._db = db
        self._settings = settings
        self._ui = ui
        self._remember_reviewer = remember_reviewer
        self._refresh_side = refresh_side
        self.page: QWidget | None = None  # built when review mode is first entered
        self.queue: Any = None  # its ReviewQueueTab (None while the memory views are unavailable)
        self.back_button: QPushButton | None = None
        self._dock_before = False

    @property
    def active(self) -> bool:
        """True while the main area shows the review queue instead of the analysis."""
        return self.page is not None and self._stack.currentWidget() is self.page

    def toggle(self) -> None:
        """Ctrl+Shift+R: enter review mode, or leave it."""
        self.set_active(not self.active)

    def set_active(self, on: bool) -> None:
        """The review queue takes the main area (``on``), or the analysis comes back."""
        if on == self.active:
            self._action.setChecked(on)
            return
        if on:
            if self.page is None:
                self.page = self._make_page()
                self._stack.addWidget(self.page)
            elif self.queue is not None:
                self.queue.refresh()  # rulings made in the side panel or on the command line
            self._dock_before = self._dock.isVisible()
            self._dock.hide()
            self._stack.setCurrentWidget(self.page)
            if self.queue is not None:
                self.queue.list.setFocus()
        else:
            self._stack.setCurrentWidget(self._analysis_page)
            if self._dock_before:
                self._dock.show()
            self._refresh_side()
        self._action.setChecked(on)

    def _make_page(self) -> QWidget:
        """The review mode's page: a title line with the way back, and the queue laid out wide."""
        ui = self._ui
        page = QWidget()
        lay = QVBoxLayout(page)
        lay.setContentsMargins(0, 0, 0, 0)
        head = QHBoxLayout()
        title = QLabel(ui.tx("Review mode: memory review queue"))
        title.setStyleSheet("font-weight: 600; font-size: 11pt;")
        back = QPushButton(ui.tx("Back to the analysis (Ctrl+Shift+R)"))
        back.clicked.connect(lambda: self.set_active(False))
        head.addWidget(title, 1)
        head.addWidget(back)
        lay.addLayout(head)
        self.back_button = back
        try:
            from app.memory.store import MemoryStore
            from ui.tabs.memory_review import ReviewQueueTab

            queue = ReviewQueueTab(
                MemoryStore(self._db), ui.lang, reviewer=str(self._settings.get("reviewer_name")), wide=True
            )
            queue.reviewer_named.connect(self._remember_reviewer)
            self.queue = queue
            lay.addWidget(queue, 1)
        except Exception as exc:  # a missing or broken memory view must not take the window down
            log.warning("review mode unavailable: %r", exc)
            self.queue = None
            lay.addWidget(unavailable(ui.tx("Memory is not available"), exc), 1)
        return page

    def drop_page(self) -> None:
        """Forget the review page (a language switch: it is built again, in the new language, when needed)."""
        page, was_on = self.page, self.active
        if page is None:
            return
        if was_on:
            self.set_active(False)
        if self.queue is not None:
            self.queue.cancel_loading()
        self._stack.removeWidget(page)
        page.deleteLater()
        self.page, self.queue = None, None
        if was_on:
            self.set_active(True)

    def close(self) -> None:
        """The window closes: leave review mode (the saved layout is the analysis's) and stop the queue's reads."""
        if self.active:
            self.set_active(False)
        if self.queue is not None:
            self.queue.cancel_loading()
