"""The outline beside the analysis' stage panels, and moving between the panels: jump to a stage, follow the run.

:class:`ui.analysis_view.AnalysisView` makes the panels and applies the events; this part owns where the reader
is. One outline row per stage shows its state; a click scrolls its panel to the top. While a run goes, the
running stage is opened and followed until the reader scrolls away (then the "follow" box is cleared, and
ticking it jumps back).
"""

from __future__ import annotations

from collections.abc import Mapping

import shiboken6
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractSlider,
    QCheckBox,
    QScrollArea,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.pipeline import events as ev
from ui.icons import STATUS_ICONS, icon
from ui.stage_panel import StagePanel
from ui.widgets import Collapsible

STATE_MARKS = {"pending": "○", "running": "◐", "revising": "◐", "done": "●", "failed": "✕", "cancelled": "◌"}
"""A stage's state as the outline's leading mark."""


class StageOutline:
    """The outline tree and the "follow the running stage" box of an analysis view, and its scrolling.

    Args:
        view: the analysis view (parent of the outline and the box).
        scroll_area: the scroll area the panels are in; container: its widget; panel_layout: the panels' layout.
        panels: the view's panels by stage key; groups: its segment groups by segment (the view's own dicts,
            read here, never changed).
    """

    def __init__(
        self,
        view: QWidget,
        scroll_area: QScrollArea,
        container: QWidget,
        panel_layout: QVBoxLayout,
        *,
        panels: Mapping[str, StagePanel],
        groups: Mapping[int, Collapsible],
    ) -> None:
        self._view = view
        self._scroll_area = scroll_area
        self._container = container
        self._panel_layout = panel_layout
        self._panels = panels
        self._groups = groups
        self.follow = True
        self._auto_scroll = False
        self.items: dict[str, QTreeWidgetItem] = {}
        self.tree = QTreeWidget(view)
        self.tree.setHeaderHidden(True)
        self.tree.setRootIsDecorated(False)
        self.tree.setIndentation(12)
        self.tree.itemClicked.connect(self._clicked)
        self.follow_box = QCheckBox(view)
        self.follow_box.setChecked(True)
        self.follow_box.toggled.connect(self._follow_toggled)
        # the reader scrolled (wheel, bar, keys): stop following the running stage until asked again
        scroll_area.verticalScrollBar().actionTriggered.connect(self._user_scrolled)

    def add(self, panel: StagePanel) -> None:
        """A row for ``panel``'s stage, kept up to date with its title and state."""
        item = QTreeWidgetItem([""])
        item.setData(0, Qt.ItemDataRole.UserRole, panel.stage.key)
        self.tree.addTopLevelItem(item)
        self.items[panel.stage.key] = item
        panel.retitled.connect(lambda p=panel, it=item: self._retitle(p, it))
        self._retitle(panel, item)

    def clear(self) -> None:
        """Every row goes (the panels went)."""
        self.tree.clear()
        self.items.clear()

    def _retitle(self, panel: StagePanel, item: QTreeWidgetItem) -> None:
        if not shiboken6.isValid(item):
            return
        seg = f"{panel.stage.segment + 1}." if panel.stage.kind is ev.StageKind.WINDOW else ""
        item.setText(0, f"{STATE_MARKS.get(panel.status, '·')} {seg}{panel.title().strip()}")
        item.setIcon(0, icon(STATUS_ICONS.get(panel.status, "status-pending")))
        item.setToolTip(0, panel.title())
        color = {"running": "#2f6fdf", "revising": "#2f6fdf", "failed": "#c0392b"}.get(panel.status)
        item.setForeground(0, QBrush(QColor(color)) if color else QBrush())

    def to_top(self, panel: StagePanel) -> None:
        """Put ``panel``'s row first (the summary, once the run is complete)."""
        item = self.items.get(panel.stage.key)
        if item is not None and self.tree.indexOfTopLevelItem(item) != 0:
            self.tree.takeTopLevelItem(self.tree.indexOfTopLevelItem(item))
            self.tree.insertTopLevelItem(0, item)

    def jump_to(self, key: str) -> None:
        """Open a stage's panel (and its segment) and scroll so its header is at the top."""
        panel = self._panels.get(key)
        if panel is None:
            return
        panel.set_expanded(True)
        group = self._groups.get(panel.stage.segment) if panel.stage.kind is ev.StageKind.WINDOW else None
        if group is not None:
            group.set_expanded(True)
        item = self.items.get(key)
        if item is not None:
            self.tree.setCurrentItem(item)
        QTimer.singleShot(0, lambda: self._scroll_to(panel))

    def _scroll_to(self, panel: StagePanel) -> None:
        if not shiboken6.isValid(panel) or not shiboken6.isValid(self._view):
            return
        self._panel_layout.activate()
        y = panel.mapTo(self._container, panel.rect().topLeft()).y()
        self._auto_scroll = True
        try:
            self._scroll_area.verticalScrollBar().setValue(y)
        finally:
            self._auto_scroll = False

    def scroll_target(self, key: str) -> int:
        """Where :meth:`jump_to` scrolls for ``key`` (the panel's top, within the scroll range)."""
        panel = self._panels[key]
        bar = self._scroll_area.verticalScrollBar()
        return min(panel.mapTo(self._container, panel.rect().topLeft()).y(), bar.maximum())

    def _clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        key = item.data(0, Qt.ItemDataRole.UserRole)
        if key:
            self.jump_to(str(key))

    def _user_scrolled(self, action: int) -> None:
        if not self._auto_scroll and action != QAbstractSlider.SliderAction.SliderNoAction.value:
            self.follow_box.setChecked(False)

    def _follow_toggled(self, on: bool) -> None:
        self.follow = on
        running = next((p for p in self._panels.values() if p.status in ("running", "revising")), None)
        if on and running is not None:
            self.jump_to(running.stage.key)

    def open_running(self, panel: StagePanel, live: bool) -> None:
        """A stage started: open it unless the reader folded it; in a ``live`` run, follow it unless they scrolled."""
        if not panel.user_set and not panel.expanded:
            panel.set_expanded(True)
            panel.auto_opened = True
        if self.follow and live:
            self.jump_to(panel.stage.key)

    @staticmethod
    def fold_finished(panel: StagePanel) -> None:
        """A finished stage folds back if the view opened it; its outline row and title keep the result."""
        if panel.auto_opened and not panel.user_set:
            panel.set_expanded(False)
            panel.auto_opened = False
